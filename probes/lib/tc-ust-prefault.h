/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef TC_UST_PREFAULT_H
#define TC_UST_PREFAULT_H

#include "tc-rb.h"

/*
 * Buffers the application has mapped, written once page by page
 * (tc_rb_prefault()) so that no tracepoint pays a page's first write, by a
 * thread of their own at SCHED_IDLE, which runs only on a CPU nothing else
 * wants:
 *
 * - not in the listener thread before it publishes the buffer, as
 *   registration would wait for it: on the development VM the default
 *   channel's 1,030 pages on two CPUs took 5.7 ms, and the time
 *   registration costs an application went from 0.7 to 6.4 ms;
 * - not at the listener's priority after it either: with a channel of
 *   8 x 1 MiB on both CPUs (22 ms of prefaulting) it took the CPU of the
 *   application's own threads, two threads pinned to the two CPUs then
 *   doing about as much as one.
 *
 * A buffer stays mapped for the life of the process (tc-ust-state.h), so
 * the thread never finds one unmapped.
 */

/* Queues rb and starts the thread if it is not running. Requires
 * tc_ust_state.lock. Without memory or a thread, rb is not prefaulted,
 * which only makes its first lap slower. */
void tc_ust_prefault_queue_locked(const struct tc_rb *rb);

/* In a child after fork(), which holds tc_ust_state.lock: the parent's
 * buffers are not the child's to write, and its thread did not follow. */
void tc_ust_prefault_forget_locked(void);

#endif /* TC_UST_PREFAULT_H */
