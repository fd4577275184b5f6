/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Protocol-buffers wire encoding (tc-export-protobuf.h). */
#include <string.h>

#include "tc-export-protobuf.h"

enum wire_type {
	WIRE_VARINT = 0,
	WIRE_FIXED64 = 1,
	WIRE_LENGTH_DELIMITED = 2,
};

static void
raw_varint(GByteArray *out, uint64_t value)
{
	guint8 bytes[10];
	guint n = 0;

	do {
		bytes[n] = value & 0x7f;
		value >>= 7;
		if (value)
			bytes[n] |= 0x80;
		n++;
	} while (value);
	g_byte_array_append(out, bytes, n);
}

static void
tag(GByteArray *out, uint32_t field, enum wire_type type)
{
	raw_varint(out, ((uint64_t)field << 3) | type);
}

void
tc_pb_varint(GByteArray *out, uint32_t field, uint64_t value)
{
	tag(out, field, WIRE_VARINT);
	raw_varint(out, value);
}

void
tc_pb_fixed64(GByteArray *out, uint32_t field, uint64_t value)
{
	guint64 little = GUINT64_TO_LE(value);

	tag(out, field, WIRE_FIXED64);
	g_byte_array_append(out, (const guint8 *)&little, sizeof(little));
}

void
tc_pb_double(GByteArray *out, uint32_t field, double value)
{
	uint64_t bits;

	memcpy(&bits, &value, sizeof(bits));
	tc_pb_fixed64(out, field, bits);
}

void
tc_pb_bytes(GByteArray *out, uint32_t field, const void *data, gsize len)
{
	tag(out, field, WIRE_LENGTH_DELIMITED);
	raw_varint(out, len);
	g_byte_array_append(out, data, (guint)len);
}

void
tc_pb_string(GByteArray *out, uint32_t field, const char *text)
{
	tc_pb_bytes(out, field, text ? text : "", text ? strlen(text) : 0);
}

void
tc_pb_message(GByteArray *out, uint32_t field, GByteArray *message)
{
	tc_pb_bytes(out, field, message->data, message->len);
	g_byte_array_unref(message);
}
