/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-consumer-abi.h"

/*
 * The trace clock of a session, chosen when it is created and the same for
 * its applications' buffers, its consumer and its kernel instance:
 *
 * - the x86 time-stamp counter, read directly by the tracepoint (a third
 *   of the cost of clock_gettime()), when the kernel itself uses it as its
 *   clock source: it then checked at boot that the counter is invariant
 *   and synchronized across CPUs. The kernel records with trace_clock
 *   "x86-tsc", the same counter.
 * - CLOCK_MONOTONIC in ns everywhere else, or when TRACECTL_TRACE_CLOCK is
 *   "monotonic" in the service's environment.
 *
 * The frequency of the TSC is measured once, against CLOCK_MONOTONIC_RAW
 * (the kernel's own conversion of that counter).
 */
typedef struct tc_consumer_clock TcTraceClock;

/* At start-up: measures the TSC's frequency in a thread of its own (10 ms),
 * so that the first session created on the main loop does not wait. */
void tc_trace_clock_prepare(void);

/* Chooses the clock and reads its offset from the Unix epoch now. */
void tc_trace_clock_init(TcTraceClock *clock);
