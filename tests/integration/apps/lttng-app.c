/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An application instrumented with LTTng-UST only (Debian's liblttng-ust),
 * for the tests of tracectld serving such applications: prints "ready"
 * once main() runs (after LTTng-UST's constructor waited for a session
 * daemon's register_done, or for its timeout), then emits its events
 * every 100 ms until killed, or for SECONDS when given.
 *
 * With THREADS, that many more threads each emit tick, counting from 0,
 * every 20 ms for the same time, spinning a little before each so that
 * their per-thread counters (perf:thread: contexts) have work to count;
 * main() waits for them before it returns.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "lttng-tp.h"

#define THREADS_MAX 16

static long seconds = -1;

static void *
worker(void *data)
{
	struct timespec pause = {.tv_nsec = 20 * 1000 * 1000};
	volatile unsigned long spin = 0;

	(void)data;
	for (long i = 0; seconds < 0 || i < seconds * 50; i++) {
		for (unsigned long j = 0; j < 100000; j++)
			spin += j;
		lttng_ust_tracepoint(tc_lttng_test, tick, (int)i);
		nanosleep(&pause, NULL);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	long threads = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
	struct timespec tick = {.tv_nsec = 100 * 1000 * 1000};
	pthread_t workers[THREADS_MAX];

	seconds = argc > 1 ? strtol(argv[1], NULL, 10) : -1;
	if (threads < 0 || threads > THREADS_MAX) {
		fprintf(stderr, "THREADS: 0 to %d\n", THREADS_MAX);
		return 2;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (long t = 0; t < threads; t++)
		if (pthread_create(&workers[t], NULL, worker, NULL) != 0) {
			fprintf(stderr, "pthread_create failed\n");
			return 1;
		}
	for (long i = 0; seconds < 0 || i < seconds * 10; i++) {
		lttng_ust_tracepoint(tc_lttng_test, tick, (int)i);
		lttng_ust_tracepoint(tc_lttng_test, message, "hello", i / 10.0);
		if (i % 50 == 49)
			lttng_ust_tracepoint(tc_lttng_test, failure, i);
		if (i % 10 == 0)
			lttng_ust_tracepoint(tc_lttng_test, state, (int)(i / 10 % 4));
		nanosleep(&tick, NULL);
	}
	for (long t = 0; t < threads; t++)
		pthread_join(workers[t], NULL);
	return 0;
}
