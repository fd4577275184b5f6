/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-ust-rcu.h"

#include <linux/membarrier.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Yields before sleeping: a tracepoint is short, so most grace periods end
 * after a few yields; a thread preempted in one may take a time slice. */
#define TC_UST_RCU_YIELDS 100
#define TC_UST_RCU_SLEEP_NS 1000000L
/* A section still under way after this is taken as one that will never
 * end (a handler that longjmp()ed out of a tracepoint, a thread that
 * exited from one): what waits for it is left unfreed. */
#define TC_UST_RCU_WAIT_MAX_NS 1000000000LL

struct tc_ust_rcu_slot tc_ust_rcu_slots[TC_UST_RCU_SLOTS];
uint32_t tc_ust_rcu_phase;
/* Fences until membarrier is known to work: a tracepoint may run before
 * the library's constructor. */
uint32_t tc_ust_rcu_readers_fence = 1;

static int
membarrier(int cmd)
{
	return (int)syscall(__NR_membarrier, cmd, 0, 0);
}

void
tc_ust_rcu_init(void)
{
	int commands;

	/* Readers fence until membarrier is known to work here: a fork
	 * child inherits 0 from a parent whose registration it must redo. */
	__atomic_store_n(&tc_ust_rcu_readers_fence, 1, __ATOMIC_SEQ_CST);
	commands = membarrier(MEMBARRIER_CMD_QUERY);
	if (commands < 0 || !(commands & MEMBARRIER_CMD_PRIVATE_EXPEDITED) ||
	    membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) < 0)
		return;
	__atomic_store_n(&tc_ust_rcu_readers_fence, 0, __ATOMIC_SEQ_CST);
}

/* A full barrier here and in every thread of the process that may be in a
 * read-side section. */
static void
barrier_everywhere(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&tc_ust_rcu_readers_fence, __ATOMIC_RELAXED))
		return;
	if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) < 0) {
		/* Registered, so it cannot fail; if it ever does, readers
		 * fence from now on, and a section under way when it failed is
		 * waited for by the counts all the same. */
		__atomic_store_n(&tc_ust_rcu_readers_fence, 1, __ATOMIC_SEQ_CST);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	}
}

static uint64_t
sum_exits(uint32_t phase)
{
	uint64_t sum = 0;

	for (unsigned int i = 0; i < TC_UST_RCU_SLOTS; i++)
		sum += __atomic_load_n(&tc_ust_rcu_slots[i].local_exits[phase], __ATOMIC_RELAXED) +
		       __atomic_load_n(&tc_ust_rcu_slots[i].remote_exits[phase], __ATOMIC_RELAXED);
	return sum;
}

static uint64_t
sum_entries(uint32_t phase)
{
	uint64_t sum = 0;

	for (unsigned int i = 0; i < TC_UST_RCU_SLOTS; i++)
		sum +=
		    __atomic_load_n(&tc_ust_rcu_slots[i].local_entries[phase], __ATOMIC_RELAXED) +
		    __atomic_load_n(&tc_ust_rcu_slots[i].remote_entries[phase], __ATOMIC_RELAXED);
	return sum;
}

static long long
now_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec * 1000000000LL + now.tv_nsec;
}

/*
 * Waits until every section of phase that the sums can see has ended, or
 * until deadline_ns (then false). Exits are summed before entries: a
 * section whose exit is counted has its entry counted too, so equal sums
 * mean no section was under way.
 */
static bool
wait_for_phase(uint32_t phase, long long deadline_ns)
{
	for (int attempt = 0;; attempt++) {
		uint64_t exits = sum_exits(phase);

		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (sum_entries(phase) == exits)
			return true;
		if (now_ns() >= deadline_ns)
			return false;
		if (attempt < TC_UST_RCU_YIELDS) {
			sched_yield();
		} else {
			struct timespec pause = {.tv_nsec = TC_UST_RCU_SLEEP_NS};

			nanosleep(&pause, NULL);
		}
	}
}

bool
tc_ust_rcu_synchronize(void)
{
	long long deadline_ns = now_ns() + TC_UST_RCU_WAIT_MAX_NS;

	/* The unlink is seen before the counts are read (and by any
	 * section whose entry they miss). */
	barrier_everywhere();
	for (int round = 0; round < 2; round++) {
		uint32_t old = __atomic_load_n(&tc_ust_rcu_phase, __ATOMIC_RELAXED);

		__atomic_store_n(&tc_ust_rcu_phase, old + 1, __ATOMIC_SEQ_CST);
		if (!wait_for_phase(old & 1, deadline_ns))
			return false;
	}
	/* The sections' accesses are done before anything is freed. */
	barrier_everywhere();
	return true;
}

void
tc_ust_rcu_forget(void)
{
	memset(tc_ust_rcu_slots, 0, sizeof(tc_ust_rcu_slots));
	tc_ust_rcu_init();
}
