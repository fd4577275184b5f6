/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Commit counts added without a locked instruction, by a restartable
 * sequence (rseq(2), registered for every thread by glibc >= 2.35).
 *
 * A commit is an add to a counter that other threads of any process may
 * add to at the same time. A locked add costs 6 ns on the development
 * machine of 2026-11-25, where perf put a quarter of tracectl_ust_emit()'s
 * own samples on it. But a buffer belongs to one CPU,
 * and whatever runs on that CPU runs one thread at a time: a plain add
 * made by a thread that has not left that CPU since it checked it is
 * atomic against everything else on the CPU, as the paper's per-CPU
 * local_add() is in the kernel. The kernel restarts the sequence (check
 * the CPU, add) when the thread is preempted, migrated or signalled in the
 * middle, so the add only ever happens on the CPU that was checked.
 *
 * Nothing on another CPU may add to that counter without the lock, so
 * each sub-buffer has two: the local one, only ever added to this way, and
 * the remote one, with locked adds, for a thread that migrated between its
 * reservation and its commit, one on a CPU beyond the buffers' count, one
 * without an rseq area (glibc.pthread.rseq=0, another libc), and the
 * consumer. Readers add the two (tc-rb.c).
 */
#ifndef TC_RB_RSEQ_H
#define TC_RB_RSEQ_H

#include <stdbool.h>
#include <stdint.h>

#if defined(__x86_64__) && !defined(TC_RB_MODEL_CHECK) && defined(__GLIBC__) && \
	(__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
#include <sys/rseq.h>
#define TC_RB_HAVE_RSEQ 1

static inline struct rseq *
tc_rb_rseq_area(void)
{
	return (struct rseq *)((char *)__builtin_thread_pointer() + __rseq_offset);
}

/* The CPU the calling thread runs on, as the kernel last wrote it to the
 * thread's rseq area (what sched_getcpu() returns, without the call), or
 * a negative value when the thread has no rseq area. */
static inline int
tc_rb_rseq_cpu(void)
{
	return (int)__atomic_load_n(&tc_rb_rseq_area()->cpu_id, __ATOMIC_RELAXED);
}

/*
 * Adds value to *counter if the calling thread runs on cpu; returns false,
 * adding nothing, when it runs on another CPU or has no rseq area (glibc
 * then leaves its cpu_id negative, which is no CPU). x86 stores are not
 * reordered with earlier stores, so the record written before is visible
 * to a reader that sees the new count, as with a release add.
 *
 * The descriptor (struct rseq_cs) names the instructions from the CPU
 * check to the add; the abort handler, which the kernel runs instead of
 * the rest of the sequence, is preceded by the signature glibc registered
 * (RSEQ_SIG), as the kernel requires, and starts over.
 */
static inline bool
tc_rb_rseq_add(uint64_t *counter, uint64_t value, uint32_t cpu)
{
	struct rseq *area = tc_rb_rseq_area();

restart:
	__asm__ goto(".pushsection __rseq_cs, \"aw\"\n\t"
		     ".balign 32\n"
		     "3:\t.long 0, 0\n\t"
		     ".quad 1f, 2f - 1f, 4f\n\t"
		     ".popsection\n\t"
		     "leaq 3b(%%rip), %%rax\n\t"
		     "movq %%rax, %[rseq_cs]\n"
		     "1:\tcmpl %[cpu], %[cpu_id]\n\t"
		     "jnz %l[elsewhere]\n\t"
		     "addq %[value], %[counter]\n"
		     "2:\n\t"
		     ".pushsection __rseq_failure, \"ax\"\n\t"
		     /* ud1 with the signature as its displacement */
		     ".byte 0x0f, 0xb9, 0x3d\n\t"
		     ".long %c[sig]\n"
		     "4:\tjmp %l[restart]\n\t"
		     ".popsection"
		     :
		     : [rseq_cs] "m"(area->rseq_cs), [cpu_id] "m"(area->cpu_id), [cpu] "r"(cpu),
		       [counter] "m"(*counter), [value] "r"(value), [sig] "i"(RSEQ_SIG)
		     : "rax", "memory", "cc"
		     : elsewhere, restart);
	return true;
elsewhere:
	return false;
}
#endif

#endif /* TC_RB_RSEQ_H */
