/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The per-thread random source of span ids and of the sampler. splitmix64
 * (Steele, Lea and Flood, "Fast Splittable Pseudorandom Number Generators",
 * OOPSLA 2014): its output is a bijection of a 64-bit counter, so one
 * thread never draws the same value twice in 2^64 draws, and threads differ
 * by their seeds, drawn from getrandom() at each thread's first use and
 * again in a forked child (which would otherwise repeat its parent).
 */
#ifndef TC_SPAN_RANDOM_H
#define TC_SPAN_RANDOM_H

#include <stdint.h>

struct tc_span_random {
	uint64_t state;
	uint32_t generation; /* 0: not seeded yet */
};

extern __thread struct tc_span_random tc_span_random_tls
	__attribute__((tls_model("initial-exec")));
/* Bumped in every forked child: the threads' seeds are then stale. */
extern uint32_t tc_span_random_generation;

void tc_span_random_seed(struct tc_span_random *random);

static inline uint64_t
tc_span_random_next(void)
{
	struct tc_span_random *random = &tc_span_random_tls;
	uint64_t z;

	if (__builtin_expect(random->generation !=
				     __atomic_load_n(&tc_span_random_generation, __ATOMIC_RELAXED),
			     0))
		tc_span_random_seed(random);
	z = (random->state += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* A non-zero 64-bit id. */
static inline uint64_t
tc_span_random_id(void)
{
	uint64_t id;

	do
		id = tc_span_random_next();
	while (__builtin_expect(id == 0, 0));
	return id;
}

#endif /* TC_SPAN_RANDOM_H */
