/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Events of the ring-buffer stress application (stress-app.c). */
#ifndef STRESS_TP_H
#define STRESS_TP_H

#include <stdint.h>
#include <tracectl/tracepoint.h>

/* Written by thread `thread`, its seq-th event. */
TRACECTL_EVENT(stress, thread,
	TRACECTL_ARGS(uint32_t, thread, uint64_t, seq),
	TRACECTL_FIELDS(
		tracectl_field_integer(uint32_t, thread, thread),
		tracectl_field_integer(uint64_t, seq, seq)))

/* Written by a signal handler that interrupted thread `thread`. */
TRACECTL_EVENT(stress, signal,
	TRACECTL_ARGS(uint32_t, thread, uint64_t, seq),
	TRACECTL_FIELDS(
		tracectl_field_integer(uint32_t, thread, thread),
		tracectl_field_integer(uint64_t, seq, seq)))

#endif /* STRESS_TP_H */
