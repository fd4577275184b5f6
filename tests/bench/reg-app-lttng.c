/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The registration benchmark's application, instrumented with LTTng-UST. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TRACEPOINT_DEFINE
#define TRACEPOINT_CREATE_PROBES
#include "reg-app-lttng-tp.h"

int
main(int argc, char **argv)
{
	struct timespec now;
	char c;

	clock_gettime(CLOCK_MONOTONIC, &now);
	printf("%lld\n", (long long)now.tv_sec * 1000000000LL + now.tv_nsec);
	fflush(stdout);
	tracepoint(bench, event, 1, 2);
	if (argc > 1 && strcmp(argv[1], "wait") == 0)
		while (read(0, &c, 1) > 0)
			;
	return 0;
}
