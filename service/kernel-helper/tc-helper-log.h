/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The helper's clock and its log lines on stderr. */
#ifndef TC_HELPER_LOG_H
#define TC_HELPER_LOG_H

#include <stdint.h>

/* CLOCK_MONOTONIC in milliseconds, and a line on stderr. */
int64_t tc_helper_log_now_ms(void);
void tc_helper_log(const char *level, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

#endif /* TC_HELPER_LOG_H */
