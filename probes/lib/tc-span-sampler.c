/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The sampler of root spans (tc-span-sampler.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tc-span-random.h"
#include "tc-span-sampler.h"

#include <tracectl/span.h>

TRACECTL_SPAN_API __thread struct tracectl_span__countdown tracectl_span__countdown_tls
	__attribute__((tls_model("initial-exec")));
/* Starts at 1 so that a thread's zeroed countdown is stale. */
TRACECTL_SPAN_API uint64_t tracectl_span__generation = 1;

static int
parse_probability(struct tc_span_sampler *sampler, const char *denominator)
{
	char *end;
	unsigned long long n;

	if (*denominator < '0' || *denominator > '9')
		return -EINVAL;
	errno = 0;
	n = strtoull(denominator, &end, 10);
	if (errno != 0 || *end != '\0' || n < 1)
		return -EINVAL;
	sampler->threshold = UINT64_MAX / n;
	sampler->interval_ns = 0;
	return 0;
}

static int
parse_rate(struct tc_span_sampler *sampler, const char *spec, const char *slash)
{
	char *end;
	double rate;

	if (strcmp(slash, "/s") != 0 || (*spec < '0' || *spec > '9'))
		return -EINVAL;
	errno = 0;
	rate = strtod(spec, &end);
	/* Below one root in ~584 years the interval no longer fits. */
	if (errno != 0 || end != slash || !isfinite(rate) || rate <= 0 || rate < 1e-9 ||
	    rate > 1e9)
		return -EINVAL;
	sampler->interval_ns = (uint64_t)(1e9 / rate);
	if (sampler->interval_ns == 0)
		sampler->interval_ns = 1;
	sampler->threshold = 0;
	__atomic_store_n(&sampler->next_ns, 0, __ATOMIC_RELAXED);
	return 0;
}

int
tc_span_sampler_parse(struct tc_span_sampler *sampler, const char *spec)
{
	const char *slash;

	if (!spec)
		return -EINVAL;
	slash = strchr(spec, '/');
	if (!slash)
		return -EINVAL;
	if (strncmp(spec, "1/", 2) == 0 && slash == spec + 1 && strcmp(slash, "/s") != 0)
		return parse_probability(sampler, slash + 1);
	return parse_rate(sampler, spec, slash);
}

/*
 * A root is sampled when its time reached next_ns; the thread that moves
 * next_ns one interval on owns the decision, so concurrent roots never
 * share a slot. After an idle time the schedule restarts from now: no
 * burst of roots to catch up.
 */
bool
tc_span_sampler_decide_rate(struct tc_span_sampler *sampler, uint64_t now_ns)
{
	uint64_t next = __atomic_load_n(&sampler->next_ns, __ATOMIC_RELAXED);

	for (;;) {
		uint64_t base = now_ns - next > sampler->interval_ns ? now_ns : next;

		if ((int64_t)(now_ns - next) < 0)
			return false;
		if (__atomic_compare_exchange_n(&sampler->next_ns, &next,
						base + sampler->interval_ns, false,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED))
			return true;
	}
}

/* Inverse transform of a uniform draw in (0, 1]: floor(ln(u) / ln(1 - p)). */
uint64_t
tc_span_sampler_draw_skip(uint64_t threshold)
{
	double p = ((double)threshold + 1.0) / 18446744073709551616.0;
	double u = ((double)(tc_span_random_next() >> 11) + 1.0) / 9007199254740992.0;
	double skip;

	if (p >= 1.0)
		return 0;
	skip = floor(log(u) / log1p(-p));
	return skip >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)skip;
}
