/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * OTLP/HTTP protobuf (tc-export-encode.h): an ExportTraceServiceRequest in
 * the binary encoding, the default of OTLP/HTTP. Field numbers are those of
 * opentelemetry-proto's collector/trace/v1, trace/v1, resource/v1 and
 * common/v1 messages; the tests decode the result with the published
 * definitions.
 */
#include <string.h>

#include "tc-export-encode.h"
#include "tc-export-model.h"
#include "tc-export-protobuf.h"

enum {
	REQUEST_RESOURCE_SPANS = 1,
	RESOURCE_SPANS_RESOURCE = 1,
	RESOURCE_SPANS_SCOPE_SPANS = 2,
	RESOURCE_ATTRIBUTES = 1,
	SCOPE_SPANS_SCOPE = 1,
	SCOPE_SPANS_SPANS = 2,
	SCOPE_NAME = 1,
	SPAN_TRACE_ID = 1,
	SPAN_SPAN_ID = 2,
	SPAN_TRACE_STATE = 3,
	SPAN_PARENT_SPAN_ID = 4,
	SPAN_NAME = 5,
	SPAN_KIND = 6,
	SPAN_START_TIME = 7,
	SPAN_END_TIME = 8,
	SPAN_ATTRIBUTES = 9,
	SPAN_EVENTS = 11,
	SPAN_LINKS = 13,
	SPAN_STATUS = 15,
	LINK_TRACE_ID = 1,
	LINK_SPAN_ID = 2,
	LINK_TRACE_STATE = 3,
	EVENT_TIME = 1,
	EVENT_NAME = 2,
	STATUS_MESSAGE = 2,
	STATUS_CODE = 3,
	KEY_VALUE_KEY = 1,
	KEY_VALUE_VALUE = 2,
	ANY_STRING = 1,
	ANY_BOOL = 2,
	ANY_INT = 3,
	ANY_DOUBLE = 4,
};

static GByteArray *
any_value(const struct tc_export_attr *attr)
{
	GByteArray *value = g_byte_array_new();

	switch (attr->type) {
	case TC_EXPORT_ATTR_INT:
		tc_pb_varint(value, ANY_INT, (uint64_t)attr->int_value);
		break;
	case TC_EXPORT_ATTR_DOUBLE:
		tc_pb_double(value, ANY_DOUBLE, attr->double_value);
		break;
	case TC_EXPORT_ATTR_STRING:
		tc_pb_string(value, ANY_STRING, attr->string_value);
		break;
	case TC_EXPORT_ATTR_BOOL:
		tc_pb_varint(value, ANY_BOOL, attr->int_value != 0);
		break;
	}
	return value;
}

/* Consumes attrs. */
static void
add_attributes(GByteArray *out, uint32_t field, GArray *attrs)
{
	for (guint i = 0; i < attrs->len; i++) {
		const struct tc_export_attr *attr = &g_array_index(attrs, struct tc_export_attr, i);
		GByteArray *key_value = g_byte_array_new();

		tc_pb_string(key_value, KEY_VALUE_KEY, attr->key);
		tc_pb_message(key_value, KEY_VALUE_VALUE, any_value(attr));
		tc_pb_message(out, field, key_value);
	}
	g_array_unref(attrs);
}

static void
add_id(GByteArray *out, uint32_t field, const uint64_t *words, guint count)
{
	guint8 bytes[16];

	/* Ids are sent big-endian, as their hex form reads. */
	for (guint i = 0; i < count; i++) {
		guint64 big = GUINT64_TO_BE(words[i]);

		memcpy(bytes + 8 * i, &big, sizeof(big));
	}
	tc_pb_bytes(out, field, bytes, 8 * count);
}

/* Span.links; not the W3C flags of OTLP's later Link.flags, which the
 * definitions the receivers of this encoding were checked against lack. */
static void
add_links(GByteArray *out, const struct tc_export_span *span)
{
	for (guint i = 0; i < span->links->len; i++) {
		const struct tc_export_link *link = g_ptr_array_index(span->links, i);
		const uint64_t trace_id[2] = { link->trace_id_hi, link->trace_id_lo };
		const char *trace_state = tc_export_link_trace_state(link);
		GByteArray *message = g_byte_array_new();

		add_id(message, LINK_TRACE_ID, trace_id, 2);
		add_id(message, LINK_SPAN_ID, &link->span_id, 1);
		if (trace_state)
			tc_pb_string(message, LINK_TRACE_STATE, trace_state);
		tc_pb_message(out, SPAN_LINKS, message);
	}
}

static GByteArray *
span_message(const struct tc_export_span *span)
{
	GByteArray *out = g_byte_array_new();
	GByteArray *status = g_byte_array_new();
	const uint64_t trace_id[2] = { span->trace_id_hi, span->trace_id_lo };
	const char *trace_state = tc_export_span_trace_state(span);

	add_id(out, SPAN_TRACE_ID, trace_id, 2);
	add_id(out, SPAN_SPAN_ID, &span->span_id, 1);
	if (trace_state)
		tc_pb_string(out, SPAN_TRACE_STATE, trace_state);
	if (span->parent_span_id)
		add_id(out, SPAN_PARENT_SPAN_ID, &span->parent_span_id, 1);
	tc_pb_string(out, SPAN_NAME, span->name);
	tc_pb_varint(out, SPAN_KIND, span->kind);
	tc_pb_fixed64(out, SPAN_START_TIME, (uint64_t)span->start_ns);
	tc_pb_fixed64(out, SPAN_END_TIME, (uint64_t)span->end_ns);
	add_attributes(out, SPAN_ATTRIBUTES, tc_export_span_attrs(span));
	for (guint i = 0; i < span->annotations->len; i++) {
		const struct tc_export_annotation *annotation = g_ptr_array_index(span->annotations, i);
		GByteArray *event = g_byte_array_new();

		tc_pb_fixed64(event, EVENT_TIME, (uint64_t)annotation->time_ns);
		tc_pb_string(event, EVENT_NAME, annotation->message);
		tc_pb_message(out, SPAN_EVENTS, event);
	}
	add_links(out, span);
	if (span->error_message)
		tc_pb_string(status, STATUS_MESSAGE, span->error_message);
	if (span->status)
		tc_pb_varint(status, STATUS_CODE, span->status);
	tc_pb_message(out, SPAN_STATUS, status);
	return out;
}

static GByteArray *
resource_spans_message(GPtrArray *spans, const struct tc_export_resource *resource)
{
	GByteArray *out = g_byte_array_new();
	GByteArray *resource_message = g_byte_array_new();
	GByteArray *scope_spans = g_byte_array_new();
	GByteArray *scope = g_byte_array_new();

	add_attributes(resource_message, RESOURCE_ATTRIBUTES, tc_export_resource_attrs(resource));
	tc_pb_message(out, RESOURCE_SPANS_RESOURCE, resource_message);
	tc_pb_string(scope, SCOPE_NAME, TC_EXPORT_SCOPE_NAME);
	tc_pb_message(scope_spans, SCOPE_SPANS_SCOPE, scope);
	for (guint i = 0; i < spans->len; i++) {
		const struct tc_export_span *span = g_ptr_array_index(spans, i);

		if (span->resource == resource)
			tc_pb_message(scope_spans, SCOPE_SPANS_SPANS, span_message(span));
	}
	tc_pb_message(out, RESOURCE_SPANS_SCOPE_SPANS, scope_spans);
	return out;
}

GBytes *
tc_export_otlp_protobuf(GPtrArray *spans)
{
	GByteArray *request = g_byte_array_new();
	g_autoptr(GPtrArray) resources = tc_export_resources_of(spans);

	for (guint i = 0; i < resources->len; i++)
		tc_pb_message(request, REQUEST_RESOURCE_SPANS,
			      resource_spans_message(spans, g_ptr_array_index(resources, i)));
	return g_byte_array_free_to_bytes(request);
}
