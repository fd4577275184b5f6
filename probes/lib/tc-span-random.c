/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Seeding of the per-thread random source (tc-span-random.h). */
#include <pthread.h>
#include <stdint.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "tc-span-random.h"

__thread struct tc_span_random tc_span_random_tls __attribute__((tls_model("initial-exec")));
/* Starts at 1 so that a thread's zeroed generation means "not seeded". */
uint32_t tc_span_random_generation = 1;

/* Without getrandom() (a seccomp filter, an old kernel) the seed mixes
 * what differs between threads and processes: ids then stay distinct in
 * practice, though guessable. */
static uint64_t
fallback_seed(const struct tc_span_random *random)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return ((uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec) ^
	       ((uint64_t)getpid() << 32) ^ (uint64_t)gettid() ^ (uint64_t)(uintptr_t)random;
}

void
tc_span_random_seed(struct tc_span_random *random)
{
	uint64_t seed;

	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != (ssize_t)sizeof(seed))
		seed = fallback_seed(random);
	random->state = seed;
	random->generation = __atomic_load_n(&tc_span_random_generation, __ATOMIC_RELAXED);
}

static void
forked_child(void)
{
	uint32_t next = tc_span_random_generation + 1;

	tc_span_random_generation = next ? next : 1;
}

static void __attribute__((constructor))
install_fork_handler(void)
{
	pthread_atfork(NULL, NULL, forked_child);
}
