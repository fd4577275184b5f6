/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-clock-offset.h"

#include <time.h>

#define NSEC_PER_SEC 1000000000ll
#define TRIES 10

static int64_t
ns_of(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * NSEC_PER_SEC + ts->tv_nsec;
}

int64_t
tc_clock_offset_monotonic_ns(void)
{
	int64_t best = 0, best_span = INT64_MAX;

	for (int i = 0; i < TRIES; i++) {
		struct timespec mono1, real, mono2;
		int64_t span;

		clock_gettime(CLOCK_MONOTONIC, &mono1);
		clock_gettime(CLOCK_REALTIME, &real);
		clock_gettime(CLOCK_MONOTONIC, &mono2);
		span = ns_of(&mono2) - ns_of(&mono1);
		if (span < best_span) {
			best_span = span;
			best = ns_of(&real) - (ns_of(&mono1) + span / 2);
		}
	}
	return best;
}
