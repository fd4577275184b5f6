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
	/* Probability mode: sampled when a draw is <= threshold. */
	uint64_t threshold;
	/* Rate mode when non-zero: ns between two sampled roots. */
	uint64_t interval_ns;
	/* Rate mode: the earliest time of the next sampled root. */
	uint64_t next_ns;
};

/* Parses spec into sampler. Returns 0 or -EINVAL (sampler untouched). */
int tc_span_sampler_parse(struct tc_span_sampler *sampler, const char *spec);
/* The decision for one root span at time now_ns (read only in rate mode:
 * pass 0 in probability mode). */
bool tc_span_sampler_decide_rate(struct tc_span_sampler *sampler, uint64_t now_ns);

#endif /* TC_SPAN_SAMPLER_H */
