/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Per-thread performance counters (the perf:thread: contexts), read as
 * LTTng-UST reads them: each thread opens each counter it records at its
 * first event that records it (perf_event_open(2) on itself, user space
 * only, the counter's first page mapped), and reads it at each event
 * from that page in its sequence lock, adding the hardware counter read
 * with rdpmc when the page says user space may (cap_user_rdpmc, and an
 * index other than 0 while the counter is on the PMU): no system call.
 * Where the page gives no index (software counters such as task-clock,
 * whose value the kernel keeps; a hardware counter not scheduled in), the
 * value is read with read(2) of its descriptor: LTTng-UST's fallback, a
 * system call per event and counter, documented in tracectl-ust(3).
 *
 * A counter that cannot be opened in a thread (no such hardware,
 * perf_event_paranoid) reads 0 there and is not tried again by that
 * thread. A thread's counters are closed when it exits; a fork child
 * forgets its parent's (tc_ust_perf_forget()) and opens its own.
 */
#ifndef TC_UST_PERF_H
#define TC_UST_PERF_H

#include <stdint.h>

/* The most counters one thread keeps open: a channel's bound. */
#define TC_UST_PERF_COUNTERS_MAX 16u

/* How a thread's counter was read at its last event. */
enum tc_ust_perf_path {
	TC_UST_PERF_UNOPENED, /* never read by this thread */
	TC_UST_PERF_FAILED,   /* could not be opened: reads 0 */
	TC_UST_PERF_RDPMC,    /* the mapped page and rdpmc: no system call */
	TC_UST_PERF_READ,     /* read(2): no index in the page */
};

/* The calling thread's count of the counter of perf_event_attr type and
 * config, opened at its first call in this thread. Async-signal-safe once
 * opened; never from another thread's point of view. */
uint64_t tc_ust_perf_read(uint32_t type, uint64_t config);

/* How the calling thread read that counter last. */
enum tc_ust_perf_path tc_ust_perf_path(uint32_t type, uint64_t config);

/* In a fork child: the forking thread's counters count its parent's
 * thread; closes them, so that the child opens its own. */
void tc_ust_perf_forget(void);

#endif /* TC_UST_PERF_H */
