/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The few protocol-buffers wire types an OTLP request needs (varint,
 * 64-bit, length-delimited), written into a GByteArray. A nested message
 * is built in a buffer of its own and then appended with its length, so
 * nothing is patched after the fact.
 */
#ifndef TC_EXPORT_PROTOBUF_H
#define TC_EXPORT_PROTOBUF_H

#include <glib.h>
#include <stdint.h>

void tc_pb_varint(GByteArray *out, uint32_t field, uint64_t value);
void tc_pb_fixed64(GByteArray *out, uint32_t field, uint64_t value);
void tc_pb_double(GByteArray *out, uint32_t field, double value);
void tc_pb_bytes(GByteArray *out, uint32_t field, const void *data, gsize len);
/* Strings are written as they are: UTF-8 is the producer's business. */
void tc_pb_string(GByteArray *out, uint32_t field, const char *text);
/* Appends message as a length-delimited field, and frees it. */
void tc_pb_message(GByteArray *out, uint32_t field, GByteArray *message);

#endif /* TC_EXPORT_PROTOBUF_H */
