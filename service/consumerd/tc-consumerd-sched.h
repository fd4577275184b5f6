/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * How soon a session thread of the consumer runs once a writer wakes it.
 *
 * A writer wakes the consumer when it closes a sub-buffer, and loses
 * events if the consumer has not run before the writers fill the rest of
 * the buffer, which at full speed takes less than a tick. A woken thread
 * of the normal policy that the scheduler queues behind a writer that
 * never sleeps waits there until the writer's slice ends, which the
 * kernel (EEVDF) checks at the next tick.
 *
 * Since Linux 6.12 a task of the normal policy may ask for a shorter
 * slice (sched_attr.sched_runtime, 0.1 to 100 ms, no privilege needed);
 * a woken task whose slice is shorter than the running one's preempts it
 * at once instead of waiting for the tick. It changes when the thread
 * runs, not how much: the thread keeps its fair share and nothing more,
 * unlike tracectld --consumer-rt-priority, whose SCHED_FIFO it leaves
 * alone. Threads started later do not inherit it (reset on fork).
 *
 * It does not help a thread that has used up its fair share on the
 * writer's CPU (the scheduler then lets the writer run to the tick), nor
 * a wake-up on an idle virtual CPU that the hypervisor runs late. The
 * measurements behind it are in docs/performance.md.
 */
#ifndef TC_CONSUMERD_SCHED_H
#define TC_CONSUMERD_SCHED_H

#include <pthread.h>

#define CONSUMERD_SCHED_SLICE_NS 100000ull

/*
 * Gives the calling thread a slice of CONSUMERD_SCHED_SLICE_NS, reset on
 * fork, if it runs with the normal or batch policy; its nice value stays.
 * Returns 0 when the kernel took it, 1 when the thread has another policy
 * (SCHED_FIFO from tracectld --consumer-rt-priority, say), left as it is,
 * -EOPNOTSUPP when the kernel ignored it (before 6.12), or another -errno
 * from sched_getattr()/sched_setattr().
 */
int tc_consumerd_sched_short_slice(void);

/*
 * Gives the calling thread the realtime policy and priority of thread
 * from (the consumer's main thread, which tracectld
 * --consumer-rt-priority makes SCHED_FIFO, reset on fork, so that the
 * threads it starts begin with the normal policy). An unprivileged
 * thread may take it only up to its RLIMIT_RTPRIO. Returns 0 when taken,
 * 1 when from is not realtime (nothing done), or -errno (-EPERM: above
 * RLIMIT_RTPRIO).
 */
int tc_consumerd_sched_take_realtime(pthread_t from);

#endif /* TC_CONSUMERD_SCHED_H */
