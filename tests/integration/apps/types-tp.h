/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Events of the field-types application (types-app.c): one field of each
 * kind and attribute beyond those of the example application. */
#ifndef TYPES_TP_H
#define TYPES_TP_H

#include <stdint.h>
#include <tracectl/tracepoint.h>

TRACECTL_EVENT(types, scalars,
	TRACECTL_ARGS(uint32_t, i, const char *, text),
	TRACECTL_FIELDS(
		tracectl_field_integer_hex(uint32_t, hex, 0xdeadbeefu + i),
		tracectl_field_integer_oct(uint16_t, oct, 0755 + i),
		tracectl_field_integer_network(uint16_t, port, 8080 + i),
		tracectl_field_integer_network_hex(uint32_t, addr, 0x7f000001u + i),
		tracectl_field_integer(int64_t, plain, -(int64_t)i),
		tracectl_field_float(ratio, 1.5f + (float)i),
		tracectl_field_double(precise, 2.25 + i),
		tracectl_field_string_max(head, text, 5),
		tracectl_field_string(whole, text)))

#endif /* TYPES_TP_H */
