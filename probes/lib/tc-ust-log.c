/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-ust-log.h"

#include "tc-log-line.h"

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

/* The line goes out as tc_log_line_write() says: one write(2), no stdio
 * state of the application touched, errno preserved. */
void
tc_ust_log_debug(const char *format, ...)
{
	char prefix[48];
	va_list args;

	snprintf(prefix, sizeof(prefix), "libtracectl-ust[%d]: ", (int)getpid());
	va_start(args, format);
	tc_log_line_write(prefix, format, args);
	va_end(args);
}
