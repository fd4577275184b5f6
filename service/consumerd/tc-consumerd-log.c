/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-consumerd-log.h"

#include "tc-log-line.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long log_uid;
static bool log_is_debug;

void
tc_consumerd_log_init(unsigned long uid)
{
	const char *debug = getenv("TRACECTL_CONSUMERD_DEBUG");

	log_uid = uid;
	log_is_debug = debug && *debug && strcmp(debug, "0") != 0;
}

static const char *
level_name(enum tc_consumerd_log_level level)
{
	switch (level) {
	case CONSUMERD_LOG_ERROR:
		return "error";
	case CONSUMERD_LOG_WARNING:
		return "warning";
	case CONSUMERD_LOG_INFO:
		return "info";
	case CONSUMERD_LOG_DEBUG:
	default:
		return "debug";
	}
}

/* The line goes out as tc_log_line_write() says: whole, with one write(),
 * so that it stays whole in the service's log; errno is preserved. */
void
tc_consumerd_log(enum tc_consumerd_log_level level, const char *format, ...)
{
	char prefix[80];
	va_list args;

	if (level == CONSUMERD_LOG_DEBUG && !log_is_debug)
		return;
	snprintf(prefix, sizeof(prefix), "tracectl-consumerd[uid=%lu]: %s: ", log_uid,
		 level_name(level));
	va_start(args, format);
	tc_log_line_write(prefix, format, args);
	va_end(args);
}

bool
tc_consumerd_log_ratelimit_check(struct tc_consumerd_ratelimit *limit, uint64_t now_ns,
				 uint64_t *suppressed)
{
	if (limit->has_logged && now_ns - limit->last_ns < CONSUMERD_RATELIMIT_INTERVAL_NS) {
		limit->suppressed++;
		return false;
	}
	*suppressed = limit->suppressed;
	limit->suppressed = 0;
	limit->last_ns = now_ns;
	limit->has_logged = true;
	return true;
}
