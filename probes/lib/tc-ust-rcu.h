/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Grace periods for what tracepoints read without a lock (tc-ust-state.h):
 * a removed object is unlinked first, then freed once every tracepoint
 * that could still hold it has returned.
 *
 * The scheme is sleepable RCU's (SRCU): a tracepoint counts its entry and
 * its exit in the counters of the current phase (0 or 1); the writer flips
 * the phase and waits until the entries of the old phase equal its exits,
 * twice, so that a tracepoint that read the phase before a flip is waited
 * for too. A tracepoint whose entry the writer did not see reads the state
 * after the unlink, since both sides order their store before their loads.
 *
 * The hot path takes no lock, makes no system call and, on a CPU whose
 * counters it can add to in a restartable sequence (tc-rb-rseq.h), no
 * locked instruction either: the counters are per CPU, plain adds on the
 * CPU the thread runs on, and a locked add to the CPU's remote counters
 * for a thread that migrated, runs on a CPU beyond the slots or has no
 * rseq area. The store-to-load order the plain adds lack is given by the
 * writer with membarrier(2) (MEMBARRIER_CMD_PRIVATE_EXPEDITED), which
 * runs a full barrier on every CPU that runs a thread of the process;
 * where the kernel refuses it, tracepoints fence themselves.
 *
 * Entries and exits may nest (a signal handler's tracepoint inside
 * another); each exit names the phase of its own entry.
 *
 * Not liburcu: its flavours need every reading thread registered, either
 * beforehand (urcu-memb) or at its first read with a lock and an
 * allocation (urcu-bp), neither of which a tracepoint in a signal handler
 * or in a thread the library never saw may do; and a library loaded into
 * any application must not bring its own liburcu beside the one the
 * application may link. LTTng-UST carries a private copy for the same
 * reasons.
 */
#ifndef TC_UST_RCU_H
#define TC_UST_RCU_H

#include <stdbool.h>
#include <stdint.h>

#include "tc-rb-rseq.h"

/* CPUs with counters of their own; the others share the remote ones. */
#define TC_UST_RCU_SLOTS 256u

/* One CPU's counters, one cache line; local: rseq adds on that CPU only. */
struct tc_ust_rcu_slot {
	uint64_t local_entries[2];
	uint64_t local_exits[2];
	uint64_t remote_entries[2];
	uint64_t remote_exits[2];
} __attribute__((aligned(64)));

extern struct tc_ust_rcu_slot tc_ust_rcu_slots[TC_UST_RCU_SLOTS];
extern uint32_t tc_ust_rcu_phase;	  /* atomic; flipped by writers */
extern uint32_t tc_ust_rcu_readers_fence; /* atomic; 1: no membarrier */

/* The slot of the calling thread's CPU (any slot will do for the remote
 * counters: the writer sums them all), and that CPU's number or -1. */
static inline int
tc_ust_rcu_cpu(void)
{
#ifdef TC_RB_HAVE_RSEQ
	return tc_rb_rseq_cpu();
#else
	return -1;
#endif
}

/* Adds one to counters[phase] of the slot of cpu: locally in a restartable
 * sequence when the thread still runs on cpu, else with a locked add to the
 * remote counters (a full barrier on x86). is_exit picks the exits. */
static inline void
tc_ust_rcu_count(int cpu, uint32_t phase, int is_exit)
{
	struct tc_ust_rcu_slot *slot =
	    &tc_ust_rcu_slots[cpu < 0 ? 0 : (unsigned int)cpu % TC_UST_RCU_SLOTS];

#ifdef TC_RB_HAVE_RSEQ
	if (__builtin_expect(cpu >= 0 && (unsigned int)cpu < TC_UST_RCU_SLOTS, 1) &&
	    tc_rb_rseq_add(is_exit ? &slot->local_exits[phase] : &slot->local_entries[phase], 1,
			   (uint32_t)cpu))
		return;
#endif
	__atomic_fetch_add(is_exit ? &slot->remote_exits[phase] : &slot->remote_entries[phase], 1,
			   __ATOMIC_SEQ_CST);
}

/* Enters a read-side section; returns the phase to give to the exit. */
static inline uint32_t
tc_ust_rcu_read_lock(void)
{
	uint32_t phase = __atomic_load_n(&tc_ust_rcu_phase, __ATOMIC_RELAXED) & 1;

	tc_ust_rcu_count(tc_ust_rcu_cpu(), phase, 0);
	/* The entry is seen before the state is read: by the writer's
	 * membarrier, or by this fence where there is none. */
	if (__builtin_expect(__atomic_load_n(&tc_ust_rcu_readers_fence, __ATOMIC_RELAXED), 0))
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	else
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return phase;
}

/* Leaves the section entered in phase. Every access to the state is done
 * before the exit is seen (x86 keeps stores in order after loads and
 * stores; elsewhere the locked add is a full barrier). */
static inline void
tc_ust_rcu_read_unlock(uint32_t phase)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	tc_ust_rcu_count(tc_ust_rcu_cpu(), phase, 1);
}

/* Whether membarrier can stand for the readers' fences; at the library's
 * start and in a fork child. */
void tc_ust_rcu_init(void);

/* Returns true once every read-side section that began before the call
 * has ended, false if one has not within a second (never to be freed
 * then). Callers serialize (the state lock, or a single thread); never
 * from a read-side section. */
bool tc_ust_rcu_synchronize(void);

/* In a fork child: sections of the parent's other threads never end
 * here. Only the forking thread exists, outside any section. */
void tc_ust_rcu_forget(void);

#endif /* TC_UST_RCU_H */
