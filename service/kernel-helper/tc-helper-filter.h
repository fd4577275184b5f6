/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Event filters of a session's instance. */
#ifndef TC_HELPER_FILTER_H
#define TC_HELPER_FILTER_H

#include <stdint.h>

struct tc_kernel_filter_msg;
/* EVENT_FILTER, its message checked. */
int tc_helper_filter_event(const struct tc_kernel_filter_msg *msg);

#endif /* TC_HELPER_FILTER_H */
