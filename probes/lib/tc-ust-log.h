/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Debug output of libtracectl-ust. The library runs inside other people's
 * programs: it never writes to stdout, and writes to stderr only when
 * TRACECTL_UST_DEBUG is set in the environment (read once, at load time).
 * Never call this from the tracepoint fast path.
 */
#ifndef TC_UST_LOG_H
#define TC_UST_LOG_H

#include <stdbool.h>

extern bool tc_ust_debug_enabled;

void tc_ust_log_init(void);
void tc_ust_log_debug(const char *format, ...) __attribute__((format(printf, 1, 2)));

#define tc_ust_debug(...)                                  \
	do {                                               \
		if (__builtin_expect(tc_ust_debug_enabled, 0)) \
			tc_ust_log_debug(__VA_ARGS__);     \
	} while (0)

#endif /* TC_UST_LOG_H */
