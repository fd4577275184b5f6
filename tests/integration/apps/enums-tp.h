/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Events of the enumerations application (enums-app.c): an unsigned and
 * a signed enumeration, the first used by both events, in unsigned and
 * signed containers of 1, 4 and 8 bytes. */
#ifndef ENUMS_TP_H
#define ENUMS_TP_H

#include <stdint.h>
#include <tracectl/tracepoint.h>

/* Values, ranges, an automatic value, gaps between them (7 to 9, from 20
 * on but 255), and a label that needs quoting. */
TRACECTL_ENUM(enums, state,
	TRACECTL_ENUM_VALUES(
		tracectl_enum_value("idle", 0),
		tracectl_enum_range("busy", 1, 5),
		tracectl_enum_auto("done"),
		tracectl_enum_range("failing", 10, 19),
		tracectl_enum_value("say \"stop\"", 255)))

/* Negative values down to INT64_MIN; nothing past 1000. */
TRACECTL_ENUM(enums, delta,
	TRACECTL_ENUM_VALUES(
		tracectl_enum_range("down", INT64_MIN, -1),
		tracectl_enum_value("still", 0),
		tracectl_enum_range("up", 1, 1000)))

TRACECTL_EVENT(enums, transition,
	TRACECTL_ARGS(uint32_t, from, uint32_t, to, int64_t, change, uint32_t, i),
	TRACECTL_FIELDS(
		tracectl_field_enum(enums, state, uint8_t, from, from),
		tracectl_field_enum(enums, state, uint64_t, to, to),
		tracectl_field_enum(enums, delta, int64_t, change, change),
		tracectl_field_integer(uint32_t, after, i)))

TRACECTL_EVENT(enums, status,
	TRACECTL_ARGS(int32_t, state, float, load),
	TRACECTL_FIELDS(
		tracectl_field_enum(enums, state, int32_t, state, state),
		tracectl_field_float(load, load)))

#endif /* ENUMS_TP_H */
