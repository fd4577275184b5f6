/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-log-line.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void
tc_log_line_write(const char *prefix, const char *format, va_list args)
{
	char line[TC_LOG_LINE_MAX];
	int saved_errno = errno;
	size_t len = strnlen(prefix, sizeof(line) - 2);
	int n;

	memcpy(line, prefix, len);
	errno = saved_errno; /* for %m */
	n = vsnprintf(line + len, sizeof(line) - len - 1, format, args);
	if (n > 0)
		len += (size_t)n;
	if (len > sizeof(line) - 2)
		len = sizeof(line) - 2;
	line[len++] = '\n';
	/* Best effort: nothing sensible can be done if stderr is gone. */
	while (write(STDERR_FILENO, line, len) < 0 && errno == EINTR)
		;
	errno = saved_errno;
}
