/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ust-loop.c's events of other field kinds for LTTng-UST 2.13 (the
 * anchor): an enumeration and a float; an array and a sequence of 16
 * uint32_t. */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER bench_kinds

#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./ust-kinds-lttng-tp.h"

#if !defined(UST_KINDS_LTTNG_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define UST_KINDS_LTTNG_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

TRACEPOINT_ENUM(bench_kinds, state,
	TP_ENUM_VALUES(
		ctf_enum_value("idle", 0)
		ctf_enum_range("busy", 1, 5)
		ctf_enum_auto("done")))

TRACEPOINT_EVENT(bench_kinds, enum_float,
	TP_ARGS(int, state, float, value),
	TP_FIELDS(
		ctf_enum(bench_kinds, state, int, state, state)
		ctf_float(float, value, value)))

TRACEPOINT_EVENT(bench_kinds, arrays,
	TP_ARGS(const uint32_t *, words),
	TP_FIELDS(
		ctf_array(uint32_t, fixed, words, 16)
		ctf_sequence(uint32_t, varying, words, unsigned int, 16)))

#endif

#include <lttng/tracepoint-event.h>
