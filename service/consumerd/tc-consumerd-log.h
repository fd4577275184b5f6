/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Logging of tracectl-consumerd: one line per message on stderr, which the
 * service forwards to its own log. Every line starts with
 * "tracectl-consumerd[uid=N]:"; messages about a session name it with
 * "session=ID", like the service does.
 */
#ifndef TC_CONSUMERD_LOG_H
#define TC_CONSUMERD_LOG_H

#include <stdbool.h>
#include <stdint.h>

enum tc_consumerd_log_level {
	CONSUMERD_LOG_ERROR,
	CONSUMERD_LOG_WARNING,
	CONSUMERD_LOG_INFO,
	CONSUMERD_LOG_DEBUG,
};

/* Sets the uid named in every line; debug lines are printed only when
 * TRACECTL_CONSUMERD_DEBUG is set in the environment. */
void tc_consumerd_log_init(unsigned long uid);

void tc_consumerd_log(enum tc_consumerd_log_level level, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

#define tc_consumerd_error(...) tc_consumerd_log(CONSUMERD_LOG_ERROR, __VA_ARGS__)
#define tc_consumerd_warning(...) tc_consumerd_log(CONSUMERD_LOG_WARNING, __VA_ARGS__)
#define tc_consumerd_info(...) tc_consumerd_log(CONSUMERD_LOG_INFO, __VA_ARGS__)
#define tc_consumerd_debug(...) tc_consumerd_log(CONSUMERD_LOG_DEBUG, __VA_ARGS__)

/*
 * A per-source rate limit, for faults that an application can repeat at
 * will (corrupt packets, a full disk). The first occurrence is always
 * logged, then at most one line per CONSUMERD_RATELIMIT_INTERVAL_NS.
 * Zero-initialize before use.
 */
#define CONSUMERD_RATELIMIT_INTERVAL_NS (30ull * 1000000000ull)

struct tc_consumerd_ratelimit {
	uint64_t last_ns;
	uint64_t suppressed; /* occurrences not logged since the last line */
	bool has_logged;
};

/*
 * Records one occurrence. Returns true when the caller should log it now;
 * *suppressed is then the number of occurrences that were not logged since
 * the previous line.
 */
bool tc_consumerd_log_ratelimit_check(struct tc_consumerd_ratelimit *limit, uint64_t now_ns,
				      uint64_t *suppressed);

#endif /* TC_CONSUMERD_LOG_H */
