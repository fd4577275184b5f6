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
	int waits = argc > 1 && strcmp(argv[1], "wait") == 0;
	char c;

	clock_gettime(CLOCK_MONOTONIC, &now);
	printf("%lld\n", (long long)now.tv_sec * 1000000000LL + now.tv_nsec);
	fflush(stdout);
	/* a tells the timed runs (1) from the crowd that waits (2). */
	tracepoint(bench, event, waits ? 2 : 1, 2);
	if (waits)
		while (read(0, &c, 1) > 0)
			;
	return 0;
}
