/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Commit counts added, and reservations made, without a locked
 * instruction, by restartable sequences (rseq(2), registered for every
 * thread by glibc >= 2.35).
 *
 * A commit is an add to a counter that other threads of any process may
 * add to at the same time. A locked add is a large part of an event's
 * cost (docs/performance.md). But a buffer belongs to one CPU,
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
 *
 * A reservation moves one word, the write position, which cannot be
 * split in two. Writers on the buffer's CPU move it with a plain
 * compare-then-store in a restartable sequence (tc_rb_rseq_move()),
 * cheaper than lock cmpxchg. Everyone else must first lock these plain moves
 * out (the buffer's locked_moves count, tc-rb.h), and see the lock-out
 * take hold on that CPU, before a locked move of their own.
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

/* Does the calling thread have an rseq area, so that its process's
 * tracepoints can move positions locally (struct tc_rb, move_locally)? */
static inline bool
tc_rb_rseq_registered(void)
{
	return __rseq_size > 0 && tc_rb_rseq_cpu() >= 0;
}

/*
 * The text every sequence below shares. The descriptor (struct rseq_cs)
 * names the instructions from label 1 (the CPU check) to label 2 (after
 * the commit, the sequence's last instruction); entering stores its
 * address, through scratch, in the thread's rseq area. The abort handler,
 * which the kernel runs instead of the rest of the sequence when the
 * thread is preempted, migrated or signalled inside it, is preceded by
 * the signature glibc registered (RSEQ_SIG, as the operand sig), as the
 * kernel requires, and starts over at the C label restart.
 */
#define TC_RB_RSEQ_ENTER(scratch)                                              \
	".pushsection __rseq_cs, \"aw\"\n\t"                                    \
	".balign 32\n"                                                         \
	"3:\t.long 0, 0\n\t"                                                   \
	".quad 1f, 2f - 1f, 4f\n\t"                                            \
	".popsection\n\t"                                                      \
	"leaq 3b(%%rip), %%" scratch "\n\t"                                    \
	"movq %%" scratch ", %[rseq_cs]\n\t"

/* ud1 with the signature as its displacement, then the handler. */
#define TC_RB_RSEQ_ABORT                                                       \
	".pushsection __rseq_failure, \"ax\"\n\t"                               \
	".byte 0x0f, 0xb9, 0x3d\n\t"                                            \
	".long %c[sig]\n"                                                      \
	"4:\tjmp %l[restart]\n\t"                                              \
	".popsection"

/*
 * Adds value to *counter if the calling thread runs on cpu; returns false,
 * adding nothing, when it runs on another CPU or has no rseq area (glibc
 * then leaves its cpu_id negative, which is no CPU). x86 stores are not
 * reordered with earlier stores, so the record written before is visible
 * to a reader that sees the new count, as with a release add.
 */
static inline bool
tc_rb_rseq_add(uint64_t *counter, uint64_t value, uint32_t cpu)
{
	struct rseq *area = tc_rb_rseq_area();

restart:
	__asm__ volatile goto(TC_RB_RSEQ_ENTER("rax")
			      "1:\tcmpl %[cpu], %[cpu_id]\n\t"
			      "jnz %l[elsewhere]\n\t"
			      "addq %[value], %[counter]\n"
			      "2:\n\t"
			      TC_RB_RSEQ_ABORT
			      :
			      : [rseq_cs] "m"(area->rseq_cs), [cpu_id] "m"(area->cpu_id),
				[cpu] "r"(cpu), [counter] "m"(*counter), [value] "r"(value),
				[sig] "i"(RSEQ_SIG)
			      : "rax", "memory", "cc"
			      : elsewhere, restart);
	return true;
elsewhere:
	return false;
}

/* What a move of the write position in a restartable sequence did. */
enum tc_rb_rseq_move {
	TC_RB_RSEQ_MOVED,     /* the position was *expected and is now desired */
	TC_RB_RSEQ_CHANGED,   /* it was not: *expected holds what it was */
	TC_RB_RSEQ_ELSEWHERE, /* the thread is not on cpu (or has no rseq area) */
	TC_RB_RSEQ_LOCKED,    /* plain moves are locked out: nothing done */
};

/*
 * Moves *word from *expected to desired with a plain store, if the calling
 * thread runs on cpu and *locked_out is 0. The store is the sequence's last
 * instruction (its commit): once it ran, the kernel no longer restarts the
 * sequence. x86 stores are seen in order, as with a release store, and the
 * loads before it are not reordered with it.
 */
static inline enum tc_rb_rseq_move
tc_rb_rseq_move(uint64_t *word, const uint32_t *locked_out, uint64_t *expected,
		uint64_t desired, uint32_t cpu)
{
	struct rseq *area = tc_rb_rseq_area();

restart:
	__asm__ volatile goto(TC_RB_RSEQ_ENTER("rax")
			      "1:\tcmpl %[cpu], %[cpu_id]\n\t"
			      "jnz %l[elsewhere]\n\t"
			      "cmpl $0, %[locked_out]\n\t"
			      "jnz %l[locked]\n\t"
			      "cmpq %[expected], %[word]\n\t"
			      "jnz %l[changed]\n\t"
			      "movq %[desired], %[word]\n"
			      "2:\n\t"
			      TC_RB_RSEQ_ABORT
			      :
			      : [rseq_cs] "m"(area->rseq_cs), [cpu_id] "m"(area->cpu_id),
				[cpu] "r"(cpu), [word] "m"(*word), [locked_out] "m"(*locked_out),
				[expected] "r"(*expected), [desired] "r"(desired),
				[sig] "i"(RSEQ_SIG)
			      : "rax", "memory", "cc"
			      : elsewhere, locked, changed, restart);
	return TC_RB_RSEQ_MOVED;
changed:
	*expected = __atomic_load_n(word, __ATOMIC_RELAXED);
	return TC_RB_RSEQ_CHANGED;
locked:
	return TC_RB_RSEQ_LOCKED;
elsewhere:
	return TC_RB_RSEQ_ELSEWHERE;
}

/*
 * The same move with lock cmpxchg, for when plain moves are locked out,
 * still only on cpu: a thread that read the lock-out before it was lifted
 * must not swap from another CPU while plain moves run again on cpu (the
 * single instruction cannot interleave with a sequence on the same CPU,
 * which the kernel restarts if this thread preempts it).
 */
static inline enum tc_rb_rseq_move
tc_rb_rseq_move_locked(uint64_t *word, uint64_t *expected, uint64_t desired, uint32_t cpu)
{
	struct rseq *area = tc_rb_rseq_area();

	/* No output operands: with one, the value cmpxchg found, GCC 12
	 * deleted the whole sequence where that value went unused (an asm
	 * goto with outputs is not implicitly volatile), and locked-out
	 * moves were taken for done. tc-rb-test's local-moves caught it. */
restart:
	__asm__ volatile goto(TC_RB_RSEQ_ENTER("rcx")
			      "movq %[expected], %%rax\n"
			      "1:\tcmpl %[cpu], %[cpu_id]\n\t"
			      "jnz %l[elsewhere]\n\t"
			      "lock cmpxchgq %[desired], %[word]\n"
			      "2:\n\t"
			      "jnz %l[changed]\n\t"
			      TC_RB_RSEQ_ABORT
			      :
			      : [rseq_cs] "m"(area->rseq_cs), [cpu_id] "m"(area->cpu_id),
				[cpu] "r"(cpu), [word] "m"(*word), [expected] "r"(*expected),
				[desired] "r"(desired), [sig] "i"(RSEQ_SIG)
			      : "rax", "rcx", "memory", "cc"
			      : elsewhere, changed, restart);
	return TC_RB_RSEQ_MOVED;
changed:
	*expected = __atomic_load_n(word, __ATOMIC_RELAXED);
	return TC_RB_RSEQ_CHANGED;
elsewhere:
	return TC_RB_RSEQ_ELSEWHERE;
}
#endif

#endif /* TC_RB_RSEQ_H */
