/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The consumer's main thread reads a busy buffer from the CPU that fills
 * it: a wake-up from the streams of one CPU moves the thread there (its
 * affinity becomes that CPU), and it stays there while it sleeps, so that
 * the next wake-up from that CPU is local.
 *
 * Why: on a virtual machine, a consumer asleep on an idle virtual CPU runs
 * again only when the hypervisor runs that CPU, measured at up to 11 ms
 * after the writer's wake-up, while the default 4 x 512 KiB buffer holds
 * 7.5 ms of events at 14 M events/s; and time the hypervisor takes from
 * the consumer's CPU does not stop the writer on another. On the writer's
 * CPU the wake-up needs no other CPU, and what stops the consumer stops
 * the writer too. Paced at 12 to 15 M events/s on the development VM
 * (2 vCPUs, 2 s runs, alternated): 34 runs of 48 lost events without
 * following, 10 with it, and 17 following only after a wake-up that
 * found the buffer half full (a prototype); this code against none, 6
 * runs of 30 against 19.
 *
 * The price: the consumer's work (about 6 ns per event, copying and
 * checking packets) is done on the writer's CPU, even when another CPU
 * is idle; an application that keeps its CPU busy with events runs that
 * much slower (46.1 against 41.9 ns per event, one thread writing 6 MiB
 * as fast as it can, measured with the prototype).
 *
 * Following stops, for good, for a stream whose writers lost events at
 * CONSUMERD_AFFINITY_LOSING_WAKES wake-ups in a row while the consumer
 * was held on their CPU (a writer that leaves the consumer no time there,
 * such as a real-time thread that never sleeps; a single loss is the
 * hypervisor's doing more often than not): its buffer is then read from
 * whichever CPU the scheduler picks, as before. The thread stays on a CPU
 * at least CONSUMERD_AFFINITY_HOLD_MIN_NS, so that writers on several
 * CPUs do not move it at every wake-up, and gets back all the CPUs it
 * was given CONSUMERD_AFFINITY_IDLE_NS after the last wake-up that asked
 * for one.
 *
 * Only the main thread moves; the writer thread (tc-consumer-writer.h)
 * runs anywhere. Nothing here reads shared memory.
 */
#ifndef TC_CONSUMER_AFFINITY_H
#define TC_CONSUMER_AFFINITY_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CONSUMERD_AFFINITY_IDLE_NS 1000000000ull
#define CONSUMERD_AFFINITY_HOLD_MIN_NS 10000000ull
#define CONSUMERD_AFFINITY_LOSING_WAKES 3

struct consumerd_affinity {
	cpu_set_t *allowed; /* the CPUs the thread was given; NULL: never moves */
	cpu_set_t *one;     /* scratch set for one CPU */
	size_t set_size;    /* bytes of each set */
	int cpu;            /* the CPU the thread is held on, or -1 */
	uint64_t moved_at;  /* when it was held there */
	uint64_t last_asked; /* when a wake-up last asked for a CPU */
};

/*
 * Reads the calling thread's CPUs. On failure (no memory, a kernel that
 * will not say), or when it has only one, the thread is never moved.
 * Returns 0 or -errno.
 */
int consumerd_affinity_init(struct consumerd_affinity *affinity);

void consumerd_affinity_fini(struct consumerd_affinity *affinity);

/*
 * Holds the thread on cpu, if it is one of its CPUs and the thread has
 * been held where it is for CONSUMERD_AFFINITY_HOLD_MIN_NS. A failure
 * (the CPU went offline, a cpuset changed) rereads the thread's CPUs and
 * leaves it where it runs.
 */
void consumerd_affinity_follow(struct consumerd_affinity *affinity, uint32_t cpu,
			       uint64_t now);

/*
 * Whether the thread has been held on cpu, without a break, since the time
 * since: a move there at that very time counts, as the move that ends a
 * wake-up carries that wake-up's time; a move away and back does not.
 */
bool consumerd_affinity_held_since(const struct consumerd_affinity *affinity, uint32_t cpu,
				   uint64_t since);

/* Gives the thread back all its CPUs, if it is held on one. */
void consumerd_affinity_release(struct consumerd_affinity *affinity);

/*
 * Releases the thread when no wake-up asked for its CPU for
 * CONSUMERD_AFFINITY_IDLE_NS. Returns when to call again: 0 while the
 * thread is not held (no timer, no wake-up).
 */
uint64_t consumerd_affinity_expire(struct consumerd_affinity *affinity, uint64_t now);

#endif /* TC_CONSUMER_AFFINITY_H */
