/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-consumer-log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOG_LINE_MAX 1024

static unsigned long log_uid;
static bool log_is_debug;

void
consumerd_log_init(unsigned long uid)
{
	const char *debug = getenv("TRACECTL_CONSUMERD_DEBUG");

	log_uid = uid;
	log_is_debug = debug && *debug && strcmp(debug, "0") != 0;
}

static const char *
level_name(enum consumerd_log_level level)
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

/*
 * Formats the whole line first and writes it with one write(), so that the
 * lines stay whole in the service's log. errno is preserved, so that a
 * caller can log and then still use it (and %m works).
 */
void
consumerd_log(enum consumerd_log_level level, const char *format, ...)
{
	char line[LOG_LINE_MAX];
	int saved_errno = errno;
	va_list args;
	int prefix, len;

	if (level == CONSUMERD_LOG_DEBUG && !log_is_debug)
		return;
	prefix = snprintf(line, sizeof(line), "tracectl-consumerd[uid=%lu]: %s: ", log_uid,
			  level_name(level));
	va_start(args, format);
	len = vsnprintf(line + prefix, sizeof(line) - prefix - 1, format, args);
	va_end(args);
	if (len < 0)
		len = 0;
	len += prefix;
	if (len > (int)sizeof(line) - 2)
		len = sizeof(line) - 2;
	line[len++] = '\n';
	/* Best effort: nothing sensible can be done if stderr is gone. */
	while (write(STDERR_FILENO, line, len) < 0 && errno == EINTR)
		;
	errno = saved_errno;
}

bool
consumerd_ratelimit_check(struct consumerd_ratelimit *limit, uint64_t now_ns,
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
