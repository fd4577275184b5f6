/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Events of the arrays application (arrays-app.c): arrays and sequences
 * of each element kind, and sequences at and past the bounds. */
#ifndef ARRAYS_TP_H
#define ARRAYS_TP_H

#include <stdint.h>
#include <tracectl/tracepoint.h>

TRACECTL_EVENT(arrays, ints,
	TRACECTL_ARGS(uint32_t, i, const uint32_t *, words, const int8_t *, small,
		      const int64_t *, wide, const uint16_t *, hex, const uint32_t *, net),
	TRACECTL_FIELDS(
		tracectl_field_array(uint32_t, words, words, 16),
		tracectl_field_array(int8_t, small, small, 3),
		tracectl_field_array(int64_t, wide, wide, 2),
		tracectl_field_array_hex(uint16_t, hex, hex, 2),
		tracectl_field_array_network(uint32_t, net, net, 2),
		tracectl_field_integer(uint32_t, after, i)))

TRACECTL_EVENT(arrays, seqs,
	TRACECTL_ARGS(uint32_t, n, const uint32_t *, words, const int16_t *, shorts,
		      const uint64_t *, wide),
	TRACECTL_FIELDS(
		tracectl_field_sequence(uint32_t, words, words, n),
		tracectl_field_sequence(int16_t, shorts, shorts, n),
		tracectl_field_sequence_hex(uint64_t, wide, wide, n),
		tracectl_field_integer(uint32_t, after, n)))

TRACECTL_EVENT(arrays, reals,
	TRACECTL_ARGS(uint32_t, n, const double *, doubles, const float *, floats),
	TRACECTL_FIELDS(
		tracectl_field_array_double(fixed, doubles, 3),
		tracectl_field_sequence_double(varying, doubles, n),
		tracectl_field_array_float(fixed_float, floats, 2),
		tracectl_field_sequence_float(varying_float, floats, n),
		tracectl_field_integer(uint32_t, after, n)))

TRACECTL_EVENT(arrays, text,
	TRACECTL_ARGS(uint32_t, n, const char *, fixed, const char *, varying),
	TRACECTL_FIELDS(
		tracectl_field_array_text(char, fixed, fixed, 8),
		tracectl_field_sequence_text(char, varying, varying, n),
		tracectl_field_integer(uint32_t, after, n)))

/* One sequence of bytes, asked for with length n (capped). */
TRACECTL_EVENT(arrays, bound,
	TRACECTL_ARGS(uint32_t, n, const uint8_t *, bytes),
	TRACECTL_FIELDS(
		tracectl_field_sequence(uint8_t, bytes, bytes, n),
		tracectl_field_integer(uint32_t, after, n)))

/* A sequence of 8-byte integers, too long for a small sub-buffer. */
TRACECTL_EVENT(arrays, wide,
	TRACECTL_ARGS(uint32_t, n, const uint64_t *, values),
	TRACECTL_FIELDS(
		tracectl_field_sequence(uint64_t, values, values, n),
		tracectl_field_integer(uint32_t, after, n)))

#endif /* ARRAYS_TP_H */
