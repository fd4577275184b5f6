/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The workload of the per-event benchmarks, built once for tracectl and
 * once for LTTng-UST (-DTRACER_LTTNG) around the same events: bench:event,
 * two 64-bit integers; bench_kinds:enum_float, an enumeration (of an int)
 * and a float; bench_kinds:arrays, an array and a sequence of 16 uint32_t:
 *
 *   ust-loop loop THREADS COUNT [KIND]
 *                                 each thread (on CPU i) emits COUNT events
 *                                 of KIND (event, enum_float or arrays;
 *                                 event when not given)
 *                                 as fast as it can; prints the ns per
 *                                 event of one thread and the events per
 *                                 second of all of them, per second of
 *                                 wall-clock time and per second of each
 *                                 thread's own CPU time
 *   ust-loop paced RATE SECONDS   one thread emits RATE events per second
 *                                 (busy-waiting on the clock between
 *                                 bursts of 16) for SECONDS
 *
 * tracectl's build registers the application context bench:request (an
 * int64, a thread-local count) when BENCH_APP_CONTEXT is set.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef TRACER_LTTNG
#define TRACEPOINT_DEFINE
#define TRACEPOINT_CREATE_PROBES
#include "reg-app-lttng-tp.h"
#include "ust-kinds-lttng-tp.h"
#define EMIT(a, b) tracepoint(bench, event, (a), (b))
#define EMIT_ENUM_FLOAT(state, value) tracepoint(bench_kinds, enum_float, (state), (value))
#define EMIT_ARRAYS(words) tracepoint(bench_kinds, arrays, (words))
#else
#define TRACECTL_CREATE_PROBES
#include <tracectl/tracepoint.h>
TRACECTL_EVENT(bench, event,
	TRACECTL_ARGS(uint64_t, a, uint64_t, b),
	TRACECTL_FIELDS(
		tracectl_field_integer(uint64_t, a, a),
		tracectl_field_integer(uint64_t, b, b)))
TRACECTL_ENUM(bench_kinds, state,
	TRACECTL_ENUM_VALUES(
		tracectl_enum_value("idle", 0),
		tracectl_enum_range("busy", 1, 5),
		tracectl_enum_auto("done")))
TRACECTL_EVENT(bench_kinds, enum_float,
	TRACECTL_ARGS(int, state, float, value),
	TRACECTL_FIELDS(
		tracectl_field_enum(bench_kinds, state, int, state, state),
		tracectl_field_float(value, value)))
TRACECTL_EVENT(bench_kinds, arrays,
	TRACECTL_ARGS(const uint32_t *, words),
	TRACECTL_FIELDS(
		tracectl_field_array(uint32_t, fixed, words, 16),
		tracectl_field_sequence(uint32_t, varying, words, 16)))
#include <tracectl/app-context.h>
#define EMIT(a, b) tracectl_tracepoint(bench, event, (a), (b))
#define EMIT_ENUM_FLOAT(state, value) tracectl_tracepoint(bench_kinds, enum_float, (state), (value))
#define EMIT_ARRAYS(words) tracectl_tracepoint(bench_kinds, arrays, (words))
#endif

enum kind { KIND_EVENT, KIND_ENUM_FLOAT, KIND_ARRAYS };

#define THREADS_MAX 16

static uint64_t count;
static enum kind kind = KIND_EVENT;
static pthread_barrier_t barrier;
static double thread_seconds[THREADS_MAX];
static double thread_cpu_seconds[THREADS_MAX];
static long nr_threads;

static double
clock_s(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double
now_s(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

/* The thread's own CPU time: the kernel leaves out the time the hypervisor
 * stole (paravirtual steal accounting) and the time other tasks ran on
 * its CPU, such as the consumer. */
static double
thread_cpu_s(void)
{
	return clock_s(CLOCK_THREAD_CPUTIME_ID);
}

static void *
loop_thread(void *data)
{
	long index = (long)data;
	cpu_set_t cpus;
	const uint64_t n = count;
	double start, cpu_start;

	CPU_ZERO(&cpus);
	CPU_SET((int)index, &cpus);
	pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus);
	pthread_barrier_wait(&barrier);
	cpu_start = thread_cpu_s(); /* a system call: outside the timed loop */
	start = now_s();
	switch (kind) {
	case KIND_EVENT:
		for (uint64_t i = 0; i < n; i++)
			EMIT(i, (uint64_t)index);
		break;
	case KIND_ENUM_FLOAT:
		/* Values in each range of the enumeration and past them. */
		for (uint64_t i = 0; i < n; i++)
			EMIT_ENUM_FLOAT((int)(i & 7), (float)i);
		break;
	case KIND_ARRAYS: {
		uint32_t words[16];

		for (uint32_t k = 0; k < 16; k++)
			words[k] = (uint32_t)index * 16 + k;
		for (uint64_t i = 0; i < n; i++)
			EMIT_ARRAYS(words);
		break;
	}
	}
	thread_seconds[index] = now_s() - start;
	thread_cpu_seconds[index] = thread_cpu_s() - cpu_start;
	return NULL;
}

static int
run_loop(long threads)
{
	pthread_t ids[THREADS_MAX];
	double start, elapsed;

	pthread_barrier_init(&barrier, NULL, (unsigned)threads + 1);
	for (long i = 0; i < threads; i++)
		pthread_create(&ids[i], NULL, loop_thread, (void *)i);
	pthread_barrier_wait(&barrier);
	start = now_s();
	for (long i = 0; i < threads; i++)
		pthread_join(ids[i], NULL);
	elapsed = now_s() - start;
	/* Aggregate rate: each thread's own rate while they all ran, summed,
	 * so that thread start-up does not count. */
	double aggregate = 0, aggregate_cpu = 0;

	for (long i = 0; i < threads; i++) {
		aggregate += (double)count / thread_seconds[i];
		aggregate_cpu += (double)count / thread_cpu_seconds[i];
	}
	(void)elapsed;
	printf("ns_per_event=%.3f events_per_s=%.1f events_per_cpu_s=%.1f\n",
	       thread_seconds[0] * 1e9 / (double)count, aggregate, aggregate_cpu);
	return 0;
}

/* The paced loop reads the clock once every PACE_BATCH events: a read per
 * event (tens of ns) would cap the rate at what the loop itself can do,
 * below what a tracer can record. */
#define PACE_BATCH 16u

static int
run_paced(double rate, double seconds)
{
	double start = now_s(), interval = 1.0 / rate, max_lag = 0.0;
	uint64_t total = (uint64_t)(rate * seconds);

	for (uint64_t i = 0; i < total; i += PACE_BATCH) {
		double due = (double)i * interval, elapsed = now_s() - start;

		/* Behind the schedule (the thread did not run, or the tracer
		 * was slower): the next batches go at full speed until the
		 * schedule is caught up. */
		if (elapsed - due > max_lag)
			max_lag = elapsed - due;
		while (elapsed < due)
			elapsed = now_s() - start;
		for (uint64_t j = i; j < i + PACE_BATCH && j < total; j++)
			EMIT(j, 0);
	}
	/* The rate reached, which is below the one asked for when the
	 * tracepoint itself cannot go that fast, and how far the loop fell
	 * behind its schedule at worst. */
	printf("rate=%.1f max_lag_us=%.0f\n", (double)total / (now_s() - start), max_lag * 1e6);
	return 0;
}

#ifndef TRACER_LTTNG
/* bench:request: what a program's own callback would do at its cheapest,
 * a thread-local read and an increment. */
static __thread int64_t request;

static void
get_request(void *priv, struct tracectl_app_context_value *value)
{
	value->u.s64 = request++;
}
#endif

int
main(int argc, char **argv)
{
#ifndef TRACER_LTTNG
	if (getenv("BENCH_APP_CONTEXT") &&
	    tracectl_app_context_register("bench", "request", TRACECTL_APP_CONTEXT_INT64,
					  get_request, NULL) < 0)
		return 1;
#endif
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "loop") == 0) {
		long threads = strtol(argv[2], NULL, 10);

		count = strtoull(argv[3], NULL, 10);
		if (argc == 5 && strcmp(argv[4], "enum_float") == 0)
			kind = KIND_ENUM_FLOAT;
		else if (argc == 5 && strcmp(argv[4], "arrays") == 0)
			kind = KIND_ARRAYS;
		else if (argc == 5 && strcmp(argv[4], "event") != 0)
			return 2;
		if (threads < 1 || threads > THREADS_MAX)
			return 2;
		return run_loop(threads);
	}
	if (argc == 4 && strcmp(argv[1], "paced") == 0)
		return run_paced(strtod(argv[2], NULL), strtod(argv[3], NULL));
	fprintf(stderr, "usage: ust-loop loop THREADS COUNT [event|enum_float|arrays] | "
			"paced RATE SECONDS\n");
	return 2;
}
