/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * How soon the consumer's main thread runs once a writer wakes it.
 *
 * A writer wakes the consumer when it closes a sub-buffer, and loses
 * events if the consumer has not run before the writers fill the rest of
 * the buffer: three sub-buffers of the default 4 x 512 KiB channel, 3 ms
 * at 26 M events/s. A woken thread of the normal policy that the
 * scheduler queues behind a writer that never sleeps waits there until
 * the writer's slice ends, which the kernel (EEVDF) checks at the next
 * tick: 2.9 to 4.0 ms at HZ=250 in `perf sched` of the lossy runs.
 *
 * Since Linux 6.12 a task of the normal policy may ask for a shorter
 * slice (sched_attr.sched_runtime, 0.1 to 100 ms, no privilege needed);
 * a woken task whose slice is shorter than the running one's preempts it
 * at once instead of waiting for the tick. It changes when the thread
 * runs, not how much: the thread keeps its fair share and nothing more,
 * unlike tracectld --consumer-rt-priority, whose SCHED_FIFO it leaves
 * alone. Threads started later do not inherit it (reset on fork).
 *
 * Measured on the 2-vCPU development machine of 2026-11-25 (Linux 6.18,
 * HZ=250, Intel Xeon, no steal, base slice 1.4 ms), paced 2 s runs of
 * one writer against the default channel, services with and without it
 * alternated in blocks: lost events in 12 of 68 runs at 26 to 28 M/s
 * against 34 of 68, and in 3 of 21 runs at the writer's top speed (34 to
 * 36 M/s) against 12 of 21. Slices of 0.4 and 1 ms did as well as 0.1 ms
 * within the noise (2 and 4 of 16 against 3 of 16). What still loses
 * events, in `perf sched`: a thread woken onto the writer's CPU, or
 * preempted there in the middle of a drain once its slice is used up,
 * that is no longer eligible to run before the writer, which then runs
 * to the next tick (5 of 6 delays over 2.5 ms in 15 traced runs at 27
 * M/s), and, more rarely, a wake-up on the idle virtual CPU that the
 * machine runs 4 ms late. On the AMD machine of the same day (a
 * paravirtualised hypervisor, kvm-clock) a 0.1 ms slice made no clear
 * difference (7 of 16 lossy runs against 9 of 16).
 */
#ifndef TC_CONSUMER_SCHED_H
#define TC_CONSUMER_SCHED_H

#define CONSUMERD_SCHED_SLICE_NS 100000ull

/*
 * Gives the calling thread a slice of CONSUMERD_SCHED_SLICE_NS, reset on
 * fork, if it runs with the normal or batch policy; its nice value stays.
 * Returns 0 when the kernel took it, 1 when the thread has another policy
 * (SCHED_FIFO from tracectld --consumer-rt-priority, say), left as it is,
 * -EOPNOTSUPP when the kernel ignored it (before 6.12), or another -errno
 * from sched_getattr()/sched_setattr().
 */
int consumerd_sched_short_slice(void);

#endif /* TC_CONSUMER_SCHED_H */
