/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Between packets, a session thread's drains give way to the session's
 * requests: a drain of the read timer or of a wake-up stops after the
 * packet under way when a request waits, so that a request waits for one
 * packet (one send to a slow relay, one write to a slow disk), never for
 * a whole buffer of them; the thread serves its queue, then drains again
 * at once. Drains that a request itself runs (a flush, a rotation) never
 * stop early.
 *
 * Everything here is the calling thread's (thread-locals); the check per
 * packet is one relaxed atomic load, no lock, no system call.
 */
#ifndef TC_CONSUMERD_YIELD_H
#define TC_CONSUMERD_YIELD_H

#include <stdatomic.h>
#include <stdbool.h>

/* The flag that says requests wait for the calling thread, set by the
 * thread that queues them; NULL: never yield. */
void tc_consumerd_yield_attach(const atomic_bool *requests_waiting);

/* Whether the calling thread's drains may stop early from now on. */
void tc_consumerd_yield_enable(bool enable);

/* Per packet: true when the drain is to stop now (yielding is enabled and
 * a request waits); it is then remembered for tc_consumerd_yield_take_cut(). */
bool tc_consumerd_yield_now(void);

/* Whether a drain stopped early since the last call. */
bool tc_consumerd_yield_take_cut(void);

/* The same, leaving it for tc_consumerd_yield_take_cut(): whether what a
 * drain counted is only part of what it found. */
bool tc_consumerd_yield_is_cut(void);

#endif /* TC_CONSUMERD_YIELD_H */
