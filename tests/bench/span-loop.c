/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The workload of bench-spans, built for tracectl (tracectl/span.h) and for
 * the anchor (-DTRACER_LTTNG: the same span as BlkKin writes it with
 * LTTng-UST, span-lttng-tp.h):
 *
 *   span-loop COUNT   on CPU 0, COUNT times: start a root span, set one
 *                     integer attribute, end it; prints ns_per_span
 *
 * Sampled or not is the environment's choice: for tracectl the sampler
 * (TRACECTL_SPAN_SAMPLE), for the anchor whether a session enabled the
 * events (BlkKin has no cheaper way to skip a span). The anchor's ids come
 * from an inline generator as cheap as ours, so that the figures compare
 * what the spans cost to record.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifdef TRACER_LTTNG
#define TRACEPOINT_DEFINE
#define TRACEPOINT_CREATE_PROBES
#include "span-lttng-tp.h"

static uint64_t id_state = 0x9e3779b97f4a7c15u;

static inline uint64_t
next_id(void)
{
	uint64_t z = (id_state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static void
one_span(uint64_t i)
{
	uint64_t trace_id = next_id(), span_id = next_id();

	tracepoint(zipkin, timestamp, "request", "bench", 7000, "127.0.0.1", trace_id, span_id, 0,
		   "start");
	tracepoint(zipkin, keyval_integer, "request", "bench", 7000, "127.0.0.1", trace_id,
		   span_id, 0, "status", (int64_t)i);
	tracepoint(zipkin, timestamp, "request", "bench", 7000, "127.0.0.1", trace_id, span_id, 0,
		   "end");
}
#else
#include <tracectl/span.h>

static void
one_span(uint64_t i)
{
	struct tracectl_span span;

	tracectl_span_start_root(&span, TRACECTL_SPAN_KIND_SERVER, "request");
	tracectl_span_set_int(&span, "status", (int64_t)i);
	tracectl_span_end(&span);
}
#endif

static double
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int
main(int argc, char **argv)
{
	uint64_t count = argc > 1 ? strtoull(argv[1], NULL, 10) : 100000;
	cpu_set_t cpus;
	double start;

#ifndef TRACER_LTTNG
	tracectl_span_set_endpoint("bench", "127.0.0.1:7000");
#endif
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	for (uint64_t i = 0; i < 1000; i++) /* warm the caches and the id source */
		one_span(i);
	start = now_ns();
	for (uint64_t i = 0; i < count; i++)
		one_span(i);
	printf("ns_per_span=%.3f\n", (now_ns() - start) / (double)count);
	return 0;
}
