/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The helper's log and clock, apart from its main file so that every
 * file of the helper may use them without depending on the main loop
 * that calls those files.
 */
#include "tc-helper-log.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>


void
tc_helper_log(const char *level, const char *format, ...)
{
	va_list args;

	fprintf(stderr, "tracectl-kernel-helper: %s: ", level);
	va_start(args, format);
	vfprintf(stderr, format, args);
	va_end(args);
	fputc('\n', stderr);
}

int64_t
tc_helper_log_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
