/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tracepoint provider of the example application: one header that
 * declares the events, included by every file that emits them, and once
 * with TRACECTL_CREATE_PROBES defined (example-tp.c) to define them.
 */
#ifndef EXAMPLE_TP_H
#define EXAMPLE_TP_H

#include <stdint.h>
#include <tracectl/tracepoint.h>

/* Emitted first thing in main(): shows that registration completed before
 * main() ran when a session was waiting for the application. */
TRACECTL_EVENT_LOGLEVEL(example, startup, TRACECTL_LOGLEVEL_INFO,
	TRACECTL_ARGS(int32_t, pid),
	TRACECTL_FIELDS(
		tracectl_field_integer(int32_t, pid, pid)))

/*
 * One field of every kind. The field expressions are evaluated only when
 * the event is recorded. The conversions to the narrower signed types wrap
 * for large i (GCC defines the conversion as modulo), which keeps --forever
 * free of signed overflow.
 */
TRACECTL_EVENT(example, all_types,
	TRACECTL_ARGS(uint64_t, i, const char *, msg, const void *, buf, uint32_t, len),
	TRACECTL_FIELDS(
		tracectl_field_integer(uint64_t, seq, i),
		tracectl_field_integer(int8_t, s8, -(int)(i % 128)),
		tracectl_field_integer(int16_t, s16, -300 * (int)(i % 100)),
		tracectl_field_integer(int32_t, s32, (int32_t)(-70000 * (int64_t)i)),
		tracectl_field_integer(int64_t, s64, (int64_t)(0 - i * UINT64_C(10000000000))),
		tracectl_field_integer(uint8_t, u8, i % 256),
		tracectl_field_integer(uint16_t, u16, (i * 3) % 65536),
		tracectl_field_integer(uint32_t, u32, (uint32_t)i * 100000u),
		tracectl_field_integer(uint64_t, u64, UINT64_MAX - i),
		tracectl_field_double(dbl, i * 0.5),
		tracectl_field_string(str, msg),
		tracectl_field_bytes(blob, buf, len)))

TRACECTL_EVENT(example, done,
	TRACECTL_ARGS(uint64_t, count),
	TRACECTL_FIELDS(
		tracectl_field_integer(uint64_t, count, count)))

#endif /* EXAMPLE_TP_H */
