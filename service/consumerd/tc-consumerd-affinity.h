/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Where a session thread of the consumer waits for wake-ups: anywhere, as the
 * scheduler places it, until a wake-up comes late, then away from what
 * made it late.
 *
 * A wake-up is late when the drain it starts finds more closed
 * sub-buffers than the writer leaves when it wakes the consumer
 * (tc_rb_wake_packets(): one in the default 4 x 512 KiB buffer): the
 * consumer ran only after the writers had filled a whole sub-buffer
 * more, and two more such fill the default buffer. Two causes are known
 * (perf sched):
 *
 *   - woken on the writer's own CPU, behind a writer that never sleeps:
 *     the scheduler lets the writer finish its slice, up to the next
 *     tick, while another CPU is idle; the thread then waits off that
 *     CPU (all its CPUs but that one);
 *   - woken on another, idle, virtual CPU: that CPU runs again only when
 *     the hypervisor runs it; the thread then waits on the writer's CPU,
 *     where the wake-up needs no other CPU and what stops the consumer
 *     stops the writer too.
 *
 * Following is for the second cause only: a late wake-up on another CPU
 * moves the thread onto the writer's only if the hypervisor took time
 * from the machine's CPUs since the last one (steal in /proc/stat).
 * Without steal, following only puts the thread behind the writer.
 *
 * The placement stays while wake-ups come in time, changes at the next
 * late one (not before CONSUMERD_AFFINITY_HOLD_MIN_NS, so that writers on
 * several CPUs do not move the thread at every wake-up), and ends
 * CONSUMERD_AFFINITY_IDLE_NS after the last wake-up. This rule lost
 * fewer events than always following the writer, never following it, or
 * following it after any late wake-up; docs/performance.md has the
 * measurements.
 *
 * Each session thread has its own (struct tc_consumerd_affinity is the
 * thread's, and moves only the calling thread), following the writers of
 * its own session; the main thread and the writer threads
 * (tc-consumerd-writer.h) run anywhere. Nothing here reads shared memory; the count of packets
 * a wake-up found does, which lets an application move its own user's
 * consumer, nothing more.
 */
#ifndef TC_CONSUMERD_AFFINITY_H
#define TC_CONSUMERD_AFFINITY_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CONSUMERD_AFFINITY_IDLE_NS 1000000000ull
#define CONSUMERD_AFFINITY_HOLD_MIN_NS 10000000ull

struct tc_consumerd_affinity {
	cpu_set_t *allowed; /* the CPUs the thread was given; NULL: never moves */
	cpu_set_t *scratch; /* the set being asked for */
	size_t set_size;    /* bytes of each set */
	int cpu;            /* the CPU the thread is placed about, or -1 */
	bool away;          /* on all its CPUs but cpu, rather than on cpu */
	uint64_t moved_at;  /* when it was placed */
	uint64_t last_asked; /* the last wake-up while placed */
	/* The machine's steal (USER_HZ ticks) when last read, and where to
	 * read it: /proc/stat, or a test's file. */
	uint64_t steal;
	const char *stat_path;
};

/*
 * Reads the calling thread's CPUs. On failure (no memory, a kernel that
 * will not say), or when it has only one, the thread is never moved.
 * Returns 0 or -errno.
 */
int tc_consumerd_affinity_init(struct tc_consumerd_affinity *affinity);

void tc_consumerd_affinity_fini(struct tc_consumerd_affinity *affinity);

/*
 * Places the thread on cpu (follow) or on all its CPUs but cpu (avoid),
 * if cpu is one of its CPUs and the thread has been where it is for
 * CONSUMERD_AFFINITY_HOLD_MIN_NS; asked again for the same placement,
 * only dates the request. A failure (the CPU went offline, a cpuset
 * changed) rereads the thread's CPUs and leaves it where it runs.
 */
void tc_consumerd_affinity_follow(struct tc_consumerd_affinity *affinity, uint32_t cpu,
				  uint64_t now);
void tc_consumerd_affinity_avoid(struct tc_consumerd_affinity *affinity, uint32_t cpu,
				 uint64_t now);

/*
 * A wake-up from the buffer of writer_cpu came late and the thread ran on
 * ran_on (sched_getcpu(), -1 if unknown): avoids writer_cpu when it ran
 * there, follows it otherwise if the machine's steal grew since the last
 * late wake-up (or since tc_consumerd_affinity_init()).
 */
void tc_consumerd_affinity_late_wake(struct tc_consumerd_affinity *affinity, uint32_t writer_cpu,
				     int ran_on, uint64_t now);

/* A wake-up came in time: the placement, if any, stays. */
void tc_consumerd_affinity_keep(struct tc_consumerd_affinity *affinity, uint64_t now);

/* Gives the thread back all its CPUs, if it is held on one. */
void tc_consumerd_affinity_release(struct tc_consumerd_affinity *affinity);

/*
 * Releases the thread when no wake-up asked for its CPU for
 * CONSUMERD_AFFINITY_IDLE_NS. Returns when to call again: 0 while the
 * thread is not held (no timer, no wake-up).
 */
uint64_t tc_consumerd_affinity_expire(struct tc_consumerd_affinity *affinity, uint64_t now);

#endif /* TC_CONSUMERD_AFFINITY_H */
