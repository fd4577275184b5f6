/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tracectl-kernel-helper's main loop: requests from the service, one at a time. */
#ifndef TC_HELPER_MAIN_H
#define TC_HELPER_MAIN_H

#include <stdint.h>

/* Tells systemd's watchdog the helper is not stuck
 * (no-op without it). */
void tc_helper_main_watchdog_ping(void);

#endif /* TC_HELPER_MAIN_H */
