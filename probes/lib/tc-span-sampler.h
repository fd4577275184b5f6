/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sampler of root spans: "1/N" (each root with probability 1/N, from
 * the per-thread random source) or "R/s" (at most R roots a second in the
 * process, evenly spaced). See tracectl/span.h.
 */
#ifndef TC_SPAN_SAMPLER_H
#define TC_SPAN_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>

struct tc_span_sampler {
	/* Probability mode: each root sampled with probability
	 * (threshold + 1) / 2^64; UINT64_MAX samples every root. */
	uint64_t threshold;
	/* Rate mode when non-zero: ns between two sampled roots. */
	uint64_t interval_ns;
	/* Rate mode: the earliest time of the next sampled root. */
	uint64_t next_ns;
};

/*
 * Probability mode draws, at each sampled root, how many roots to skip
 * before the next one (struct tracectl_span__countdown, per thread): a
 * geometric number of failures, which gives the same distribution as one
 * Bernoulli draw per root, but leaves an unsampled root a decrement
 * instead of a draw. tracectl_span__generation is bumped by every
 * configuration: the threads' countdowns are stale then. Rate mode and
 * "every root" keep the skip at 0, so that every root reaches the library.
 */

/* Roots to skip before the next sampled one, for probability threshold. */
uint64_t tc_span_sampler_draw_skip(uint64_t threshold);

/* Parses spec into sampler. Returns 0 or -EINVAL (sampler untouched). */
int tc_span_sampler_parse(struct tc_span_sampler *sampler, const char *spec);
/* The decision for one root span at time now_ns (read only in rate mode:
 * pass 0 in probability mode). */
bool tc_span_sampler_decide_rate(struct tc_span_sampler *sampler, uint64_t now_ns);

#endif /* TC_SPAN_SAMPLER_H */
