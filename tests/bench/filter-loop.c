/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The workload of the filter benchmark, built once for tracectl and once
 * for LTTng-UST (-DTRACER_LTTNG) around the same event, a 64-bit integer
 * and a string:
 *
 *   filter-loop COUNT INTFIELD STRFIELD   one thread pinned to CPU 0 emits
 *                                         COUNT events with these values;
 *                                         prints the ns per event, of
 *                                         wall-clock time and of the
 *                                         thread's own CPU time
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifdef TRACER_LTTNG
#define TRACEPOINT_DEFINE
#define TRACEPOINT_CREATE_PROBES
#include "filter-lttng-tp.h"
#define EMIT(i, s) tracepoint(benchf, event, (i), (s))
#else
#define TRACECTL_CREATE_PROBES
#include <tracectl/tracepoint.h>
TRACECTL_EVENT(benchf, event,
	TRACECTL_ARGS(int64_t, i, const char *, s),
	TRACECTL_FIELDS(
		tracectl_field_integer(int64_t, intfield, i),
		tracectl_field_string(strfield, s)))
#define EMIT(i, s) tracectl_tracepoint(benchf, event, (i), (s))
#endif

static double
clock_s(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	cpu_set_t cpus;
	uint64_t count;
	int64_t value;
	/* volatile: the compiler must not see the string as a constant and
	 * fold strlen() away, which it cannot do in a real program either. */
	const char *volatile text;
	double start, cpu_start, elapsed, cpu_elapsed;

	if (argc != 4) {
		fprintf(stderr, "usage: filter-loop COUNT INTFIELD STRFIELD\n");
		return 2;
	}
	count = strtoull(argv[1], NULL, 10);
	value = strtoll(argv[2], NULL, 10);
	text = argv[3];
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus);
	/* The thread's CPU time leaves out the time other tasks ran on CPU 0
	 * and the time the hypervisor stole from it. */
	cpu_start = clock_s(CLOCK_THREAD_CPUTIME_ID);
	start = clock_s(CLOCK_MONOTONIC);
	for (uint64_t n = 0; n < count; n++)
		EMIT(value, text);
	elapsed = clock_s(CLOCK_MONOTONIC) - start;
	cpu_elapsed = clock_s(CLOCK_THREAD_CPUTIME_ID) - cpu_start;
	printf("ns_per_event=%.3f cpu_ns_per_event=%.3f\n", elapsed * 1e9 / (double)count,
	       cpu_elapsed * 1e9 / (double)count);
	return 0;
}
