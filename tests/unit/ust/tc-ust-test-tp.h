/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A provider with every field kind, for tc-ust-test.c. */
#ifndef TC_UST_TEST_TP_H
#define TC_UST_TEST_TP_H

#include <stdint.h>
#include <tracectl/tracepoint.h>

TRACECTL_EVENT(unit, every_type,
	TRACECTL_ARGS(uint64_t, i, const char *, text, const void *, data, size_t, size),
	TRACECTL_FIELDS(
		tracectl_field_integer(int8_t, s8, -(int)i),
		tracectl_field_integer(int16_t, s16, -2 * (int)i),
		tracectl_field_integer(int32_t, s32, -3 * (int)i),
		tracectl_field_integer(int64_t, s64, -4 * (int64_t)i),
		tracectl_field_integer(uint8_t, u8, i),
		tracectl_field_integer(uint16_t, u16, i * 2),
		tracectl_field_integer(uint32_t, u32, i * 3),
		tracectl_field_integer(uint64_t, u64, i * 4),
		tracectl_field_double(dbl, i * 0.25),
		tracectl_field_string(str, text),
		tracectl_field_bytes(blob, data, size)))

TRACECTL_EVENT_LOGLEVEL(unit, leveled, TRACECTL_LOGLEVEL_WARNING,
	TRACECTL_ARGS(int, value),
	TRACECTL_FIELDS(
		tracectl_field_integer(int, value, value)))

/* An enumeration of values, a range, automatic values after an unsigned
 * and after a negative end, used by two fields in two containers. */
TRACECTL_ENUM(unit, state,
	TRACECTL_ENUM_VALUES(
		tracectl_enum_value("idle", 0),
		tracectl_enum_range("busy", 1, 5),
		tracectl_enum_auto("done"),
		tracectl_enum_range("low", -3, -1),
		tracectl_enum_auto("zero")))

TRACECTL_EVENT(unit, with_enums,
	TRACECTL_ARGS(int, from, int, to),
	TRACECTL_FIELDS(
		tracectl_field_enum(unit, state, int8_t, from, from),
		tracectl_field_integer(int, plain, from),
		tracectl_field_enum(unit, state, int64_t, to, to)))

/* An enumeration its field's type cannot hold: the library must register
 * neither the event nor the enumeration. */
TRACECTL_ENUM(unit, wide,
	TRACECTL_ENUM_VALUES(
		tracectl_enum_value("big", 300)))

TRACECTL_EVENT(unit, enum_too_wide,
	TRACECTL_ARGS(int, value),
	TRACECTL_FIELDS(
		tracectl_field_enum(unit, wide, uint8_t, value, value)))

/* A name the service would refuse: the library must not register it. */
TRACECTL_EVENT(unit, bad_field_name,
	TRACECTL_ARGS(int, value),
	TRACECTL_FIELDS(
		tracectl_field_integer(int, _value, value)))

#endif /* TC_UST_TEST_TP_H */
