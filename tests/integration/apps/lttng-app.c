/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An application instrumented with LTTng-UST only (Debian's liblttng-ust),
 * for the tests of tracectld serving such applications: prints "ready"
 * once main() runs (after LTTng-UST's constructor waited for a session
 * daemon's register_done, or for its timeout), then emits its events
 * every 100 ms until killed, or for SECONDS when given.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "lttng-tp.h"

int
main(int argc, char **argv)
{
	long seconds = argc > 1 ? strtol(argv[1], NULL, 10) : -1;
	struct timespec tick = {.tv_nsec = 100 * 1000 * 1000};

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (long i = 0; seconds < 0 || i < seconds * 10; i++) {
		lttng_ust_tracepoint(tc_lttng_test, tick, (int)i);
		lttng_ust_tracepoint(tc_lttng_test, message, "hello", i / 10.0);
		if (i % 50 == 49)
			lttng_ust_tracepoint(tc_lttng_test, failure, i);
		if (i % 10 == 0)
			lttng_ust_tracepoint(tc_lttng_test, state, (int)(i / 10 % 4));
		nanosleep(&tick, NULL);
	}
	return 0;
}
