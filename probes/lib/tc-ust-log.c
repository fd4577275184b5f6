/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-ust-log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

bool tc_ust_debug_enabled;

void
tc_ust_log_init(void)
{
	tc_ust_debug_enabled = secure_getenv("TRACECTL_UST_DEBUG") != NULL;
}

/* One write(2) per line so that lines of several threads do not mix, and no
 * stdio state of the application is touched. errno is preserved. */
void
tc_ust_log_debug(const char *format, ...)
{
	char line[512];
	int saved_errno = errno;
	int prefix, len;
	va_list args;

	prefix = snprintf(line, sizeof(line), "libtracectl-ust[%d]: ", (int)getpid());
	va_start(args, format);
	len = vsnprintf(line + prefix, sizeof(line) - prefix - 1, format, args);
	va_end(args);
	if (len < 0)
		len = 0;
	len += prefix;
	if (len > (int)sizeof(line) - 2)
		len = sizeof(line) - 2;
	line[len++] = '\n';
	if (write(STDERR_FILENO, line, len) < 0) {
		/* Nothing sensible to do about a failing debug write. */
	}
	errno = saved_errno;
}
