/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The documents of a take read back (fuzz-export-documents.h): the OTLP/HTTP
 * protobuf by a reader of the wire format of its own, strict about what
 * the encoder may write; the OTLP/HTTP JSON and Zipkin's JSON by
 * json-glib, once the text is found to be UTF-8 without a raw control
 * character. Both OpenTelemetry encodings are read into one form and
 * checked alike; what they must hold is written again from
 * tc-export-model.h, tc-export-encode.h and the encoders' headers, not
 * taken from the encoders.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "fuzz-export-documents.h"
#include "tc-export-encode.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* --- The encodings, read back --- */

/* A span as an OpenTelemetry encoding gives it. */
struct otel_attr {
	GString *key;
	enum tc_export_attr_type type;
	int64_t integer;
	double real;
	GString *text;
};

/* A link as an OpenTelemetry encoding gives it. */
struct otel_link {
	GString *trace_id, *span_id; /* bytes */
	GString *trace_state;	     /* NULL if absent */
};

struct otel_span {
	GString *trace_id, *span_id, *parent_span_id; /* bytes; parent NULL if absent */
	GString *trace_state;			      /* NULL if absent */
	GString *name;
	int64_t kind;
	guint64 start, end;
	GPtrArray *attributes; /* struct otel_attr */
	GArray *event_times;   /* guint64 */
	GPtrArray *event_names; /* GString */
	GPtrArray *links;	/* struct otel_link */
	int64_t status_code;
	GString *status_message;
	guint resource;
};

struct otel_request {
	GPtrArray *resources; /* GPtrArray of struct otel_attr */
	GPtrArray *spans;     /* struct otel_span */
	guint scopes;
};

static void
gstring_free(GString *text)
{
	if (text)
		g_string_free(text, TRUE);
}

static void
otel_attr_free(struct otel_attr *attr)
{
	gstring_free(attr->key);
	gstring_free(attr->text);
	g_free(attr);
}

static GPtrArray *
otel_attrs_new(void)
{
	return g_ptr_array_new_with_free_func((GDestroyNotify)otel_attr_free);
}

static void
otel_link_free(struct otel_link *link)
{
	gstring_free(link->trace_id);
	gstring_free(link->span_id);
	gstring_free(link->trace_state);
	g_free(link);
}

static void
otel_span_free(struct otel_span *span)
{
	gstring_free(span->trace_id);
	gstring_free(span->span_id);
	gstring_free(span->parent_span_id);
	gstring_free(span->trace_state);
	gstring_free(span->name);
	gstring_free(span->status_message);
	g_ptr_array_unref(span->attributes);
	g_array_unref(span->event_times);
	g_ptr_array_unref(span->event_names);
	g_ptr_array_unref(span->links);
	g_free(span);
}

static struct otel_span *
otel_span_new(guint resource)
{
	struct otel_span *span = g_new0(struct otel_span, 1);

	span->attributes = otel_attrs_new();
	span->event_times = g_array_new(FALSE, FALSE, sizeof(guint64));
	span->event_names = g_ptr_array_new_with_free_func((GDestroyNotify)gstring_free);
	span->links = g_ptr_array_new_with_free_func((GDestroyNotify)otel_link_free);
	span->resource = resource;
	return span;
}

static void
otel_request_init(struct otel_request *request)
{
	request->resources = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
	request->spans = g_ptr_array_new_with_free_func((GDestroyNotify)otel_span_free);
	request->scopes = 0;
}

static void
otel_request_clear(struct otel_request *request)
{
	g_ptr_array_unref(request->resources);
	g_ptr_array_unref(request->spans);
}

/* The wire format of protocol buffers, read strictly: the encoder writes
 * varints, 64-bit and length-delimited fields only, each where it fits. */
struct pb_reader {
	const guint8 *at, *end;
	const char *what;
};

struct pb_field {
	guint32 number;
	guint wire;
	guint64 integer;
	struct pb_reader inner; /* length-delimited */
};

static guint64
pb_varint(struct pb_reader *reader)
{
	guint64 value = 0;

	for (guint shift = 0; shift < 64; shift += 7) {
		guint8 byte;

		if (reader->at >= reader->end)
			FAIL("protobuf %s: a varint runs past its end", reader->what);
		byte = *reader->at++;
		value |= (guint64)(byte & 0x7f) << shift;
		if (!(byte & 0x80))
			return value;
	}
	FAIL("protobuf %s: a varint longer than 10 bytes", reader->what);
}

/* The next field, or FALSE at the end of the message. */
static gboolean
pb_next(struct pb_reader *reader, struct pb_field *field)
{
	guint64 tag, length;

	if (reader->at == reader->end)
		return FALSE;
	tag = pb_varint(reader);
	field->number = (guint32)(tag >> 3);
	field->wire = tag & 7;
	switch (field->wire) {
	case 0:
		field->integer = pb_varint(reader);
		break;
	case 1:
		if (reader->end - reader->at < 8)
			FAIL("protobuf %s: a 64-bit field runs past its end", reader->what);
		memcpy(&field->integer, reader->at, 8);
		field->integer = GUINT64_FROM_LE(field->integer);
		reader->at += 8;
		break;
	case 2:
		length = pb_varint(reader);
		if (length > (guint64)(reader->end - reader->at))
			FAIL("protobuf %s: %" PRIu64 " bytes announced, %td left", reader->what,
			     length, reader->end - reader->at);
		field->inner = (struct pb_reader){reader->at, reader->at + length, reader->what};
		reader->at += length;
		break;
	default:
		FAIL("protobuf %s: field %u of wire type %u", reader->what, field->number,
		     field->wire);
	}
	return TRUE;
}

static void
pb_expect(const struct pb_field *field, guint wire, const char *message)
{
	if (field->wire != wire)
		FAIL("protobuf %s: field %u of wire type %u, not %u", message, field->number,
		     field->wire, wire);
}

static GString *
pb_bytes(const struct pb_field *field, const char *message)
{
	pb_expect(field, 2, message);
	return g_string_new_len((const char *)field->inner.at, field->inner.end - field->inner.at);
}

/* Sets *slot once: a field the encoder writes once must come once. */
static void
pb_once(GString **slot, GString *value, const char *what)
{
	if (*slot)
		FAIL("protobuf: %s twice", what);
	*slot = value;
}

static void
pb_any_value(struct pb_reader reader, struct otel_attr *attr)
{
	struct pb_field field;
	guint values = 0;

	reader.what = "AnyValue";
	while (pb_next(&reader, &field)) {
		values++;
		switch (field.number) {
		case 1:
			attr->type = TC_EXPORT_ATTR_STRING;
			attr->text = pb_bytes(&field, reader.what);
			break;
		case 2:
			pb_expect(&field, 0, reader.what);
			attr->type = TC_EXPORT_ATTR_BOOL;
			attr->integer = (int64_t)field.integer;
			break;
		case 3:
			pb_expect(&field, 0, reader.what);
			attr->type = TC_EXPORT_ATTR_INT;
			attr->integer = (int64_t)field.integer;
			break;
		case 4:
			pb_expect(&field, 1, reader.what);
			attr->type = TC_EXPORT_ATTR_DOUBLE;
			memcpy(&attr->real, &field.integer, sizeof(attr->real));
			break;
		default:
			FAIL("protobuf AnyValue: field %u", field.number);
		}
	}
	if (values != 1)
		FAIL("protobuf AnyValue: %u values", values);
}

static void
pb_key_value(struct pb_reader reader, GPtrArray *attrs)
{
	struct otel_attr *attr = g_new0(struct otel_attr, 1);
	struct pb_field field;
	gboolean has_value = FALSE;

	g_ptr_array_add(attrs, attr);
	reader.what = "KeyValue";
	while (pb_next(&reader, &field)) {
		if (field.number == 1) {
			pb_once(&attr->key, pb_bytes(&field, reader.what), "KeyValue.key");
		} else if (field.number == 2 && !has_value) {
			pb_expect(&field, 2, reader.what);
			pb_any_value(field.inner, attr);
			has_value = TRUE;
		} else {
			FAIL("protobuf KeyValue: field %u", field.number);
		}
	}
	if (!attr->key || !has_value)
		FAIL("protobuf KeyValue without a key or value");
}

static void
pb_span_event(struct pb_reader reader, struct otel_span *span)
{
	struct pb_field field;
	GString *name = NULL;
	guint64 time = 0;
	gboolean has_time = FALSE;

	reader.what = "Span.Event";
	while (pb_next(&reader, &field)) {
		if (field.number == 1 && !has_time) {
			pb_expect(&field, 1, reader.what);
			time = field.integer;
			has_time = TRUE;
		} else if (field.number == 2) {
			pb_once(&name, pb_bytes(&field, reader.what), "Span.Event.name");
		} else {
			FAIL("protobuf Span.Event: field %u", field.number);
		}
	}
	g_array_append_val(span->event_times, time);
	g_ptr_array_add(span->event_names, name ? name : g_string_new(""));
}

/* Span.Link: the encoder writes no attributes and no flags. */
static void
pb_link(struct pb_reader reader, struct otel_span *span)
{
	struct otel_link *link = g_new0(struct otel_link, 1);
	struct pb_field field;

	g_ptr_array_add(span->links, link);
	reader.what = "Span.Link";
	while (pb_next(&reader, &field)) {
		if (field.number == 1)
			pb_once(&link->trace_id, pb_bytes(&field, reader.what), "Link.trace_id");
		else if (field.number == 2)
			pb_once(&link->span_id, pb_bytes(&field, reader.what), "Link.span_id");
		else if (field.number == 3)
			pb_once(&link->trace_state, pb_bytes(&field, reader.what),
				"Link.trace_state");
		else
			FAIL("protobuf Span.Link: field %u", field.number);
	}
}

static void
pb_status(struct pb_reader reader, struct otel_span *span)
{
	struct pb_field field;

	reader.what = "Status";
	while (pb_next(&reader, &field)) {
		if (field.number == 2) {
			pb_once(&span->status_message, pb_bytes(&field, reader.what),
				"Status.message");
		} else if (field.number == 3) {
			pb_expect(&field, 0, reader.what);
			span->status_code = (int64_t)field.integer;
		} else {
			FAIL("protobuf Status: field %u", field.number);
		}
	}
}

static void
pb_span_scalar(const struct pb_field *field, struct otel_span *span)
{
	switch (field->number) {
	case 1:
		pb_once(&span->trace_id, pb_bytes(field, "Span"), "Span.trace_id");
		break;
	case 2:
		pb_once(&span->span_id, pb_bytes(field, "Span"), "Span.span_id");
		break;
	case 3:
		pb_once(&span->trace_state, pb_bytes(field, "Span"), "Span.trace_state");
		break;
	case 4:
		pb_once(&span->parent_span_id, pb_bytes(field, "Span"), "Span.parent_span_id");
		break;
	case 5:
		pb_once(&span->name, pb_bytes(field, "Span"), "Span.name");
		break;
	case 6:
		pb_expect(field, 0, "Span");
		span->kind = (int64_t)field->integer;
		break;
	case 7:
		pb_expect(field, 1, "Span");
		span->start = field->integer;
		break;
	case 8:
		pb_expect(field, 1, "Span");
		span->end = field->integer;
		break;
	default:
		FAIL("protobuf Span: field %u", field->number);
	}
}

static void
pb_span(struct pb_reader reader, struct otel_request *request, guint resource)
{
	struct otel_span *span = otel_span_new(resource);
	struct pb_field field;

	g_ptr_array_add(request->spans, span);
	reader.what = "Span";
	while (pb_next(&reader, &field)) {
		if (field.number == 9) {
			pb_expect(&field, 2, reader.what);
			pb_key_value(field.inner, span->attributes);
		} else if (field.number == 11) {
			pb_expect(&field, 2, reader.what);
			pb_span_event(field.inner, span);
		} else if (field.number == 13) {
			pb_expect(&field, 2, reader.what);
			pb_link(field.inner, span);
		} else if (field.number == 15) {
			pb_expect(&field, 2, reader.what);
			pb_status(field.inner, span);
		} else {
			pb_span_scalar(&field, span);
		}
	}
	if (!span->name)
		span->name = g_string_new("");
}

static void
pb_scope_spans(struct pb_reader reader, struct otel_request *request, guint resource)
{
	struct pb_field field;
	struct pb_reader scope;
	struct pb_field scope_field;
	gboolean named = FALSE;

	reader.what = "ScopeSpans";
	while (pb_next(&reader, &field)) {
		pb_expect(&field, 2, reader.what);
		if (field.number == 2) {
			pb_span(field.inner, request, resource);
			continue;
		}
		if (field.number != 1)
			FAIL("protobuf ScopeSpans: field %u", field.number);
		scope = field.inner;
		scope.what = "InstrumentationScope";
		while (pb_next(&scope, &scope_field)) {
			g_autoptr(GString) name = pb_bytes(&scope_field, scope.what);

			if (scope_field.number != 1 || strcmp(name->str, "tracectl") != 0)
				FAIL("protobuf InstrumentationScope: field %u '%s'",
				     scope_field.number, name->str);
			named = TRUE;
		}
	}
	if (!named)
		FAIL("protobuf ScopeSpans without its scope's name");
	request->scopes++;
}

static void
pb_resource_spans(struct pb_reader reader, struct otel_request *request)
{
	GPtrArray *attrs = otel_attrs_new();
	guint resource = request->resources->len;
	struct pb_field field, inner;
	struct pb_reader resource_reader;

	g_ptr_array_add(request->resources, attrs);
	reader.what = "ResourceSpans";
	while (pb_next(&reader, &field)) {
		pb_expect(&field, 2, reader.what);
		if (field.number == 2) {
			pb_scope_spans(field.inner, request, resource);
			continue;
		}
		if (field.number != 1)
			FAIL("protobuf ResourceSpans: field %u", field.number);
		resource_reader = field.inner;
		resource_reader.what = "Resource";
		while (pb_next(&resource_reader, &inner)) {
			if (inner.number != 1)
				FAIL("protobuf Resource: field %u", inner.number);
			pb_expect(&inner, 2, resource_reader.what);
			pb_key_value(inner.inner, attrs);
		}
	}
}

static void
pb_request(GBytes *body, struct otel_request *request)
{
	gsize size;
	const guint8 *data = g_bytes_get_data(body, &size);
	struct pb_reader reader = {data, data ? data + size : NULL, "ExportTraceServiceRequest"};
	struct pb_field field;

	while (pb_next(&reader, &field)) {
		if (field.number != 1)
			FAIL("protobuf ExportTraceServiceRequest: field %u", field.number);
		pb_expect(&field, 2, reader.what);
		pb_resource_spans(field.inner, request);
	}
}

/* JSON as a receiver reads it: UTF-8, no raw control character (the
 * compact generator writes no white space), and json-glib takes it. */
static JsonNode *
json_read(GBytes *body, const char *encoding)
{
	gsize size;
	const char *text = g_bytes_get_data(body, &size);
	g_autoptr(JsonParser) parser = json_parser_new();
	g_autoptr(GError) error = NULL;

	if (!g_utf8_validate(text, (gssize)size, NULL))
		FAIL("%s: not UTF-8", encoding);
	for (gsize i = 0; i < size; i++)
		if ((guint8)text[i] < 0x20)
			FAIL("%s: a raw control character 0x%02x at %zu", encoding, (guint8)text[i],
			     i);
	if (!json_parser_load_from_data(parser, text, (gssize)size, &error))
		FAIL("%s does not parse: %s", encoding, error->message);
	return json_node_ref(json_parser_get_root(parser));
}

static JsonNode *
json_need(JsonObject *object, const char *member, JsonNodeType type, const char *where)
{
	JsonNode *node = object ? json_object_get_member(object, member) : NULL;

	if (!node || json_node_get_node_type(node) != type)
		FAIL("%s: no %s of the right type", where, member);
	return node;
}

static const char *
json_need_string(JsonObject *object, const char *member, const char *where)
{
	JsonNode *node = json_need(object, member, JSON_NODE_VALUE, where);

	if (json_node_get_value_type(node) != G_TYPE_STRING)
		FAIL("%s: %s is not a string", where, member);
	return json_node_get_string(node);
}

static int64_t
json_need_int(JsonObject *object, const char *member, const char *where)
{
	JsonNode *node = json_need(object, member, JSON_NODE_VALUE, where);

	if (json_node_get_value_type(node) != G_TYPE_INT64)
		FAIL("%s: %s is not an integer", where, member);
	return json_node_get_int(node);
}

static JsonArray *
json_need_array(JsonObject *object, const char *member, const char *where)
{
	return json_node_get_array(json_need(object, member, JSON_NODE_ARRAY, where));
}

static JsonObject *
json_element_object(JsonArray *array, guint i, const char *where)
{
	JsonNode *node = json_array_get_element(array, i);

	if (json_node_get_node_type(node) != JSON_NODE_OBJECT)
		FAIL("%s: element %u is not an object", where, i);
	return json_node_get_object(node);
}

/* An id written in lower-case hex, as its bytes. */
static GString *
json_hex(const char *text, gsize bytes, const char *what)
{
	GString *out = g_string_new(NULL);

	if (strlen(text) != 2 * bytes)
		FAIL("OTLP JSON: %s '%s' is not %zu bytes of hex", what, text, bytes);
	for (gsize i = 0; i < bytes; i++) {
		int hi = g_ascii_xdigit_value(text[2 * i]), lo = g_ascii_xdigit_value(text[2 * i + 1]);

		if (hi < 0 || lo < 0 || g_ascii_isupper(text[2 * i]) || g_ascii_isupper(text[2 * i + 1]))
			FAIL("OTLP JSON: %s '%s' is not lower-case hex", what, text);
		g_string_append_c(out, (char)(hi << 4 | lo));
	}
	return out;
}

/* The JSON mapping's 64-bit integers: decimal strings. */
static guint64
json_decimal(const char *text, gboolean is_signed, const char *what)
{
	guint64 value = 0;
	gint64 signed_value = 0;
	g_autoptr(GError) error = NULL;
	gboolean ok = is_signed ? g_ascii_string_to_signed(text, 10, G_MININT64, G_MAXINT64,
							   &signed_value, &error)
				: g_ascii_string_to_unsigned(text, 10, 0, G_MAXUINT64, &value, &error);

	if (!ok)
		FAIL("OTLP JSON: %s '%s' is not a decimal integer", what, text);
	return is_signed ? (guint64)signed_value : value;
}

static void
json_otel_attrs(JsonObject *object, GPtrArray *attrs, const char *where)
{
	JsonArray *array = json_need_array(object, "attributes", where);

	for (guint i = 0; i < json_array_get_length(array); i++) {
		JsonObject *key_value = json_element_object(array, i, where);
		JsonObject *value =
		    json_node_get_object(json_need(key_value, "value", JSON_NODE_OBJECT, where));
		struct otel_attr *attr = g_new0(struct otel_attr, 1);
		JsonNode *real;

		g_ptr_array_add(attrs, attr);
		attr->key = g_string_new(json_need_string(key_value, "key", where));
		if (json_object_get_size(value) != 1)
			FAIL("%s: an AnyValue of %u members", where, json_object_get_size(value));
		if (json_object_has_member(value, "stringValue")) {
			attr->type = TC_EXPORT_ATTR_STRING;
			attr->text = g_string_new(json_need_string(value, "stringValue", where));
		} else if (json_object_has_member(value, "intValue")) {
			attr->type = TC_EXPORT_ATTR_INT;
			attr->integer = (int64_t)json_decimal(
			    json_need_string(value, "intValue", where), TRUE, "intValue");
		} else if (json_object_has_member(value, "boolValue")) {
			attr->type = TC_EXPORT_ATTR_BOOL;
			attr->integer = json_object_get_boolean_member(value, "boolValue");
		} else {
			attr->type = TC_EXPORT_ATTR_DOUBLE;
			real = json_need(value, "doubleValue", JSON_NODE_VALUE, where);
			if (json_node_get_value_type(real) == G_TYPE_STRING) {
				/* proto3's JSON mapping of the reals JSON has no number for */
				const char *text = json_node_get_string(real);

				attr->real = strcmp(text, "NaN") == 0	   ? NAN
					     : strcmp(text, "Infinity") == 0  ? INFINITY
					     : strcmp(text, "-Infinity") == 0 ? -INFINITY
									      : 0;
				if (!isnan(attr->real) && !isinf(attr->real))
					FAIL("%s: doubleValue '%s'", where, text);
			} else {
				attr->real = json_node_get_double(real);
			}
		}
	}
}

/* "links" is left out when there are none, as an encoder of proto3 JSON
 * leaves an empty repeated field out. */
static void
json_otel_links(JsonObject *object, struct otel_span *span, const char *where)
{
	JsonArray *links;

	if (!json_object_has_member(object, "links"))
		return;
	links = json_need_array(object, "links", where);
	if (json_array_get_length(links) == 0)
		FAIL("%s: an empty links", where);
	for (guint i = 0; i < json_array_get_length(links); i++) {
		JsonObject *element = json_element_object(links, i, where);
		struct otel_link *link = g_new0(struct otel_link, 1);

		g_ptr_array_add(span->links, link);
		link->trace_id = json_hex(json_need_string(element, "traceId", where), 16, "traceId");
		link->span_id = json_hex(json_need_string(element, "spanId", where), 8, "spanId");
		if (json_object_has_member(element, "traceState"))
			link->trace_state =
			    g_string_new(json_need_string(element, "traceState", where));
	}
}

static void
json_otel_span(JsonObject *object, struct otel_request *request, guint resource)
{
	const char *where = "OTLP JSON span";
	struct otel_span *span = otel_span_new(resource);
	JsonArray *events = json_need_array(object, "events", where);
	JsonObject *status =
	    json_node_get_object(json_need(object, "status", JSON_NODE_OBJECT, where));

	g_ptr_array_add(request->spans, span);
	span->trace_id = json_hex(json_need_string(object, "traceId", where), 16, "traceId");
	span->span_id = json_hex(json_need_string(object, "spanId", where), 8, "spanId");
	if (json_object_has_member(object, "parentSpanId"))
		span->parent_span_id =
		    json_hex(json_need_string(object, "parentSpanId", where), 8, "parentSpanId");
	if (json_object_has_member(object, "traceState"))
		span->trace_state = g_string_new(json_need_string(object, "traceState", where));
	span->name = g_string_new(json_need_string(object, "name", where));
	span->kind = json_need_int(object, "kind", where);
	span->start = json_decimal(json_need_string(object, "startTimeUnixNano", where), FALSE,
				   "startTimeUnixNano");
	span->end = json_decimal(json_need_string(object, "endTimeUnixNano", where), FALSE,
				 "endTimeUnixNano");
	json_otel_attrs(object, span->attributes, where);
	json_otel_links(object, span, where);
	for (guint i = 0; i < json_array_get_length(events); i++) {
		JsonObject *event = json_element_object(events, i, where);
		guint64 time = json_decimal(json_need_string(event, "timeUnixNano", where), FALSE,
					    "timeUnixNano");

		g_array_append_val(span->event_times, time);
		g_ptr_array_add(span->event_names,
				g_string_new(json_need_string(event, "name", where)));
	}
	span->status_code = json_need_int(status, "code", where);
	if (json_object_has_member(status, "message"))
		span->status_message = g_string_new(json_need_string(status, "message", where));
}

static void
json_otel_request(JsonNode *root, struct otel_request *request)
{
	const char *where = "OTLP JSON";
	JsonObject *top = JSON_NODE_HOLDS_OBJECT(root) ? json_node_get_object(root) : NULL;
	JsonArray *resource_spans = json_need_array(top, "resourceSpans", where);

	for (guint r = 0; r < json_array_get_length(resource_spans); r++) {
		JsonObject *object = json_element_object(resource_spans, r, where);
		JsonObject *resource =
		    json_node_get_object(json_need(object, "resource", JSON_NODE_OBJECT, where));
		JsonArray *scopes = json_need_array(object, "scopeSpans", where);
		GPtrArray *attrs = otel_attrs_new();

		g_ptr_array_add(request->resources, attrs);
		json_otel_attrs(resource, attrs, where);
		for (guint s = 0; s < json_array_get_length(scopes); s++) {
			JsonObject *scope_spans = json_element_object(scopes, s, where);
			JsonObject *scope = json_node_get_object(
			    json_need(scope_spans, "scope", JSON_NODE_OBJECT, where));
			JsonArray *spans = json_need_array(scope_spans, "spans", where);

			if (strcmp(json_need_string(scope, "name", where), "tracectl") != 0)
				FAIL("OTLP JSON: scope '%s'", json_object_get_string_member(scope, "name"));
			for (guint i = 0; i < json_array_get_length(spans); i++)
				json_otel_span(json_element_object(spans, i, where), request, r);
			request->scopes++;
		}
	}
}

/* --- What the OpenTelemetry encodings must hold --- */

/* The attributes OpenTelemetry gives a span: the application's (a missing
 * key or text as ""), then the address, the peer's and the unfinished mark. */
static GArray *
want_span_attrs(const struct model_span *span)
{
	GArray *attrs = g_array_new(FALSE, TRUE, sizeof(struct model_attr));
	struct model_attr extra[] = {
	    {"tracectl.address", TC_EXPORT_ATTR_STRING, 0, 0, span->address},
	    {"peer.service", TC_EXPORT_ATTR_STRING, 0, 0, span->remote_service},
	    {"network.peer.address", TC_EXPORT_ATTR_STRING, 0, 0, span->remote_address},
	};

	for (guint i = 0; i < span->attributes->len; i++) {
		struct model_attr attr = g_array_index(span->attributes, struct model_attr, i);

		attr.key = attr.key ? attr.key : "";
		if (attr.type == TC_EXPORT_ATTR_STRING && !attr.text)
			attr.text = "";
		g_array_append_val(attrs, attr);
	}
	for (guint i = 0; i < ARRAY_LEN(extra); i++)
		if (extra[i].text && *extra[i].text)
			g_array_append_val(attrs, extra[i]);
	if (span->unfinished) {
		struct model_attr unfinished = {"tracectl.unfinished", TC_EXPORT_ATTR_BOOL, 1, 0, NULL};

		g_array_append_val(attrs, unfinished);
	}
	return attrs;
}

static GArray *
want_resource_attrs(const struct model_span *span)
{
	GArray *attrs = g_array_new(FALSE, TRUE, sizeof(struct model_attr));
	struct model_attr service = {"service.name", TC_EXPORT_ATTR_STRING, 0, 0,
				     span->service_name};
	struct model_attr host = {"host.name", TC_EXPORT_ATTR_STRING, 0, 0, span->host_name};
	struct model_attr process = {"process.executable.name", TC_EXPORT_ATTR_STRING, 0, 0,
				     span->process_name};
	struct model_attr pid = {"process.pid", TC_EXPORT_ATTR_INT, span->pid, 0, NULL};

	g_array_append_val(attrs, service);
	g_array_append_val(attrs, host);
	if (span->process_name)
		g_array_append_val(attrs, process);
	if (span->pid >= 0)
		g_array_append_val(attrs, pid);
	return attrs;
}

static gboolean
same_bytes(const GString *got, const char *want)
{
	return got && got->len == strlen(want) && memcmp(got->str, want, got->len) == 0;
}

/* An absent text and a missing one both read as "". */
static gboolean
same_bytes_or_empty(const GString *got, const char *want)
{
	return got ? same_bytes(got, want ? want : "") : !want || !*want;
}

static void
check_otel_attrs(const char *encoding, GPtrArray *got, GArray *want, const char *what,
		 guint index)
{
	if (got->len != want->len)
		FAIL("%s: %s %u has %u attributes, not %u", encoding, what, index, got->len,
		     want->len);
	for (guint i = 0; i < want->len; i++) {
		const struct otel_attr *attr = g_ptr_array_index(got, i);
		const struct model_attr *expected = &g_array_index(want, struct model_attr, i);
		gboolean same;

		switch (expected->type) {
		case TC_EXPORT_ATTR_DOUBLE:
			same = isnan(expected->real) ? isnan(attr->real)
						     : attr->real == expected->real;
			break;
		case TC_EXPORT_ATTR_STRING:
			same = same_bytes(attr->text, expected->text);
			break;
		case TC_EXPORT_ATTR_BOOL:
			same = (attr->integer != 0) == (expected->integer != 0);
			break;
		default:
			same = attr->integer == expected->integer;
			break;
		}
		if (attr->type != expected->type || !same_bytes(attr->key, expected->key) || !same)
			FAIL("%s: %s %u, attribute %u ('%s') is not as taken", encoding, what, index,
			     i, expected->key);
	}
	g_array_unref(want);
}

static void
check_id(const char *encoding, const GString *got, const guint64 *words, guint n_words,
	 const char *what, guint index)
{
	guint8 bytes[16];

	for (guint i = 0; i < n_words; i++)
		for (guint b = 0; b < 8; b++)
			bytes[8 * i + b] = (guint8)(words[i] >> (56 - 8 * b));
	if (!got || got->len != 8 * n_words || memcmp(got->str, bytes, got->len) != 0)
		FAIL("%s: span %u's %s is not its id", encoding, index, what);
}

/* The tracestate as taken, and none written when it is empty: proto3
 * leaves a default out, and a receiver reads "" and absent alike. */
static void
check_trace_state(const char *encoding, const GString *got, const char *want, guint index)
{
	if (want && !*want)
		want = NULL;
	if ((got != NULL) != (want != NULL))
		FAIL("%s: span %u's traceState is %s", encoding, index, got ? "there" : "missing");
	if (want && !same_bytes(got, want))
		FAIL("%s: span %u's traceState is not '%s'", encoding, index, want);
}

static void
check_otel_links(const char *encoding, const struct otel_span *got,
		 const struct model_span *want, guint index)
{
	if (got->links->len != want->links->len)
		FAIL("%s: span %u has %u links, not %u", encoding, index, got->links->len,
		     want->links->len);
	for (guint i = 0; i < want->links->len; i++) {
		const struct otel_link *link = g_ptr_array_index(got->links, i);
		const struct model_link *expected = &g_array_index(want->links, struct model_link, i);
		const guint64 trace_id[2] = {expected->trace_id_hi, expected->trace_id_lo};

		check_id(encoding, link->trace_id, trace_id, 2, "link's trace id", index);
		check_id(encoding, link->span_id, &expected->span_id, 1, "link's span id", index);
		check_trace_state(encoding, link->trace_state, expected->trace_state, index);
	}
}

static void
check_otel_span(const char *encoding, const struct otel_span *got,
		const struct model_span *want, guint index)
{
	const guint64 trace_id[2] = {want->trace_id_hi, want->trace_id_lo};

	check_id(encoding, got->trace_id, trace_id, 2, "trace id", index);
	check_id(encoding, got->span_id, &want->span_id, 1, "span id", index);
	if ((got->parent_span_id != NULL) != (want->parent_span_id != 0))
		FAIL("%s: span %u's parent is %s", encoding, index,
		     got->parent_span_id ? "there" : "missing");
	if (want->parent_span_id)
		check_id(encoding, got->parent_span_id, &want->parent_span_id, 1, "parent", index);
	if (!same_bytes(got->name, want->name ? want->name : "") || got->kind != want->kind ||
	    got->start != (guint64)want->start_ns || got->end != (guint64)want->end_ns)
		FAIL("%s: span %u's name, kind or times are not as taken", encoding, index);
	if (got->status_code != want->status ||
	    !same_bytes_or_empty(got->status_message, want->error_message))
		FAIL("%s: span %u's status is not as taken", encoding, index);
	check_trace_state(encoding, got->trace_state, want->trace_state, index);
	check_otel_links(encoding, got, want, index);
	check_otel_attrs(encoding, got->attributes, want_span_attrs(want), "span", index);
	if (got->event_times->len != want->annotations->len)
		FAIL("%s: span %u has %u events, not %u", encoding, index, got->event_times->len,
		     want->annotations->len);
	for (guint i = 0; i < want->annotations->len; i++) {
		const struct model_annotation *annotation =
		    &g_array_index(want->annotations, struct model_annotation, i);

		if (g_array_index(got->event_times, guint64, i) != (guint64)annotation->time_ns ||
		    !same_bytes(g_ptr_array_index(got->event_names, i),
				annotation->message ? annotation->message : ""))
			FAIL("%s: span %u's event %u is not as taken", encoding, index, i);
	}
}

static gboolean
same_resource(const struct model_span *a, const struct model_span *b)
{
	return strcmp(a->host_name, b->host_name) == 0 &&
	       strcmp(a->service_name, b->service_name) == 0 &&
	       g_strcmp0(a->process_name, b->process_name) == 0 && a->pid == b->pid;
}

/* One ResourceSpans per resource, in the order of their first span, each
 * with the spans of its resource in the take's order: each span once. */
static void
check_otel(const char *encoding, const struct otel_request *got, GPtrArray *want)
{
	g_autoptr(GPtrArray) firsts = g_ptr_array_new();
	guint at = 0;

	for (guint i = 0; i < want->len; i++) {
		const struct model_span *span = g_ptr_array_index(want, i);
		gboolean seen = FALSE;

		for (guint r = 0; r < firsts->len && !seen; r++)
			seen = same_resource(g_ptr_array_index(firsts, r), span);
		if (!seen)
			g_ptr_array_add(firsts, (gpointer)span);
	}
	if (got->resources->len != firsts->len || got->scopes != firsts->len ||
	    got->spans->len != want->len)
		FAIL("%s: %u resources, %u scopes and %u spans, not %u, %u and %u", encoding,
		     got->resources->len, got->scopes, got->spans->len, firsts->len, firsts->len,
		     want->len);
	for (guint r = 0; r < firsts->len; r++) {
		const struct model_span *first = g_ptr_array_index(firsts, r);

		check_otel_attrs(encoding, g_ptr_array_index(got->resources, r),
				 want_resource_attrs(first), "resource", r);
		for (guint i = 0; i < want->len; i++) {
			const struct model_span *span = g_ptr_array_index(want, i);
			const struct otel_span *decoded;

			if (!same_resource(first, span))
				continue;
			decoded = g_ptr_array_index(got->spans, at);
			if (decoded->resource != r)
				FAIL("%s: span %u under resource %u, not %u", encoding, i,
				     decoded->resource, r);
			check_otel_span(encoding, decoded, span, i);
			at++;
		}
	}
}

/* --- What Zipkin's JSON must hold --- */

static const char *
zipkin_kind(guint8 kind)
{
	static const char *const names[] = {NULL, NULL, "SERVER", "CLIENT", "PRODUCER",
					    "CONSUMER"};

	return kind < ARRAY_LEN(names) ? names[kind] : NULL;
}

/* An address an endpoint takes: "ip:port" or "[ip]:port", a port of one
 * to five digits up to 65535. */
static gboolean
address_is_endpoint(const char *address)
{
	const char *colon = address ? strrchr(address, ':') : NULL;
	g_autofree char *host = NULL;
	guint8 binary[16];
	guint64 port;

	if (!colon || !g_ascii_string_to_unsigned(colon + 1, 10, 0, 65535, &port, NULL) ||
	    strlen(colon + 1) > 5 || !g_ascii_isdigit(colon[1]))
		return FALSE;
	host = g_strndup(address, colon - address);
	if (host[0] == '[' && strlen(host) >= 2 && host[strlen(host) - 1] == ']') {
		memmove(host, host + 1, strlen(host) - 2);
		host[strlen(host) - 2] = '\0';
	}
	return inet_pton(AF_INET, host, binary) == 1 || inet_pton(AF_INET6, host, binary) == 1;
}

/* An endpoint's address is the span's: its ip, then its port, are the
 * address's parts. Returns whether it has an ip. */
static gboolean
check_endpoint(JsonObject *endpoint, const char *service, const char *address, guint index)
{
	const char *where = "Zipkin endpoint";
	const char *ip = NULL;
	const char *colon;
	guint8 binary[16];
	int64_t port = 0;
	guint members = 0;

	if ((service && *service) !=
	    (json_object_has_member(endpoint, "serviceName") &&
	     strcmp(json_need_string(endpoint, "serviceName", where), service) == 0))
		FAIL("Zipkin: span %u's endpoint has not its service", index);
	members += service && *service;
	if (json_object_has_member(endpoint, "ipv4") || json_object_has_member(endpoint, "ipv6")) {
		gboolean v6 = json_object_has_member(endpoint, "ipv6");

		ip = json_need_string(endpoint, v6 ? "ipv6" : "ipv4", where);
		if (inet_pton(v6 ? AF_INET6 : AF_INET, ip, binary) != 1)
			FAIL("Zipkin: span %u's endpoint ip '%s' is not one", index, ip);
		members++;
	}
	if (json_object_has_member(endpoint, "port")) {
		port = json_need_int(endpoint, "port", where);
		members++;
		if (!ip || port <= 0 || port > 65535)
			FAIL("Zipkin: span %u's endpoint port %" PRId64, index, port);
	}
	if (json_object_get_size(endpoint) != members)
		FAIL("Zipkin: span %u's endpoint has other members", index);
	if (!ip)
		return FALSE;
	colon = address ? strrchr(address, ':') : NULL;
	if (!colon || strtol(colon + 1, NULL, 10) != port ||
	    !(((size_t)(colon - address) == strlen(ip) && strncmp(address, ip, strlen(ip)) == 0) ||
	      ((size_t)(colon - address) == strlen(ip) + 2 && address[0] == '[' &&
	       strncmp(address + 1, ip, strlen(ip)) == 0)))
		FAIL("Zipkin: span %u's endpoint %s port %" PRId64 " is not its address '%s'",
		     index, ip, port, address ? address : "(none)");
	return TRUE;
}

static void
want_tag(GHashTable *tags, const char *key, const char *value)
{
	g_hash_table_insert(tags, g_strdup(key), g_strdup(value ? value : ""));
}

/* The tags Zipkin gives a span: the attributes as texts (a later one of a
 * key replacing an earlier), then the resource's, the address when it is
 * no endpoint, the error, the unfinished mark. */
static GHashTable *
want_zipkin_tags(const struct model_span *span, gboolean address_as_tag)
{
	GHashTable *tags = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	char number[G_ASCII_DTOSTR_BUF_SIZE];

	for (guint i = 0; i < span->attributes->len; i++) {
		const struct model_attr *attr = &g_array_index(span->attributes, struct model_attr, i);
		g_autofree char *integer = g_strdup_printf("%" PRId64, attr->integer);
		const char *key = attr->key ? attr->key : "";

		if (attr->type == TC_EXPORT_ATTR_INT)
			want_tag(tags, key, integer);
		else if (attr->type == TC_EXPORT_ATTR_DOUBLE)
			want_tag(tags, key, g_ascii_dtostr(number, sizeof(number), attr->real));
		else if (attr->type == TC_EXPORT_ATTR_STRING)
			want_tag(tags, key, attr->text);
		else
			want_tag(tags, key, attr->integer ? "true" : "false");
	}
	want_tag(tags, "host.name", span->host_name);
	if (span->process_name)
		want_tag(tags, "process.executable.name", span->process_name);
	if (span->pid >= 0) {
		g_autofree char *pid = g_strdup_printf("%" PRId64, span->pid);

		want_tag(tags, "process.pid", pid);
	}
	if (address_as_tag)
		want_tag(tags, "tracectl.address", span->address);
	if (span->status == 2)
		want_tag(tags, "error", span->error_message ? span->error_message : "true");
	if (span->unfinished)
		want_tag(tags, "tracectl.unfinished", "true");
	return tags;
}

static void
check_zipkin_tags(JsonObject *object, const struct model_span *want, gboolean address_as_tag,
		  guint index)
{
	g_autoptr(GHashTable) tags = want_zipkin_tags(want, address_as_tag);
	JsonObject *got = json_node_get_object(json_need(object, "tags", JSON_NODE_OBJECT, "Zipkin"));
	GHashTableIter iter;
	gpointer key, value;

	if (json_object_get_size(got) != g_hash_table_size(tags))
		FAIL("Zipkin: span %u has %u tags, not %u", index, json_object_get_size(got),
		     g_hash_table_size(tags));
	g_hash_table_iter_init(&iter, tags);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		JsonNode *tag = json_object_get_member(got, key);

		if (!tag || json_node_get_value_type(tag) != G_TYPE_STRING ||
		    strcmp(json_node_get_string(tag), value) != 0)
			FAIL("Zipkin: span %u's tag '%s' is not '%s'", index, (const char *)key,
			     (const char *)value);
	}
}

/* The local endpoint (the span's address) and the remote one (the
 * peer's); *address_as_tag when the span's address made no endpoint.
 * Returns how many of them have an ip. */
static guint
check_zipkin_endpoints(JsonObject *object, const struct model_span *want, guint index,
		       gboolean *address_as_tag)
{
	const char *where = "Zipkin span";
	gboolean local, remote = FALSE;

	local = check_endpoint(
	    json_node_get_object(json_need(object, "localEndpoint", JSON_NODE_OBJECT, where)),
	    want->service_name, want->address, index);
	if (!local && address_is_endpoint(want->address))
		FAIL("Zipkin: span %u's address '%s' is no endpoint", index, want->address);
	if (json_object_has_member(object, "remoteEndpoint") !=
	    (want->remote_service || want->remote_address))
		FAIL("Zipkin: span %u's remote endpoint is %s", index,
		     json_object_has_member(object, "remoteEndpoint") ? "there" : "missing");
	if (json_object_has_member(object, "remoteEndpoint")) {
		remote = check_endpoint(json_node_get_object(json_need(object, "remoteEndpoint",
								       JSON_NODE_OBJECT, where)),
					want->remote_service, want->remote_address, index);
		if (!remote && address_is_endpoint(want->remote_address))
			FAIL("Zipkin: span %u's remote address '%s' is no endpoint", index,
			     want->remote_address);
	}
	*address_as_tag = !local && want->address && *want->address;
	return local + remote;
}

static void
check_zipkin_annotations(JsonObject *object, const struct model_span *want, guint index)
{
	const char *where = "Zipkin span";
	JsonArray *annotations = json_need_array(object, "annotations", where);

	if (json_array_get_length(annotations) != want->annotations->len)
		FAIL("Zipkin: span %u has %u annotations, not %u", index,
		     json_array_get_length(annotations), want->annotations->len);
	for (guint i = 0; i < want->annotations->len; i++) {
		const struct model_annotation *annotation =
		    &g_array_index(want->annotations, struct model_annotation, i);
		JsonObject *got = json_element_object(annotations, i, where);

		if (json_need_int(got, "timestamp", where) != annotation->time_ns / 1000 ||
		    strcmp(json_need_string(got, "value", where),
			   annotation->message ? annotation->message : "") != 0)
			FAIL("Zipkin: span %u's annotation %u is not as taken", index, i);
	}
}

/* Returns how many of the span's endpoints have an ip. */
static guint
check_zipkin_span(JsonObject *object, const struct model_span *want, guint index)
{
	const char *where = "Zipkin span";
	g_autofree char *trace_id = g_strdup_printf("%016" PRIx64 "%016" PRIx64, want->trace_id_hi,
						    want->trace_id_lo);
	g_autofree char *span_id = g_strdup_printf("%016" PRIx64, want->span_id);
	g_autofree char *parent_id = g_strdup_printf("%016" PRIx64, want->parent_span_id);
	/* Zipkin's duration is at least 1 us; it fits: end >= start. */
	int64_t duration_us = want->end_ns > want->start_ns
				  ? (int64_t)(((guint64)want->end_ns - (guint64)want->start_ns) / 1000)
				  : 0;
	const char *kind = zipkin_kind(want->kind);
	gboolean address_as_tag;
	guint endpoints;

	if (json_object_has_member(object, "links"))
		FAIL("Zipkin: span %u has links, which Zipkin v2 does not define", index);
	if (strcmp(json_need_string(object, "traceId", where), trace_id) != 0 ||
	    strcmp(json_need_string(object, "id", where), span_id) != 0 ||
	    json_object_has_member(object, "parentId") != (want->parent_span_id != 0) ||
	    (want->parent_span_id &&
	     strcmp(json_need_string(object, "parentId", where), parent_id) != 0))
		FAIL("Zipkin: span %u's ids are not %s/%s", index, trace_id, span_id);
	if (strcmp(json_need_string(object, "name", where), want->name ? want->name : "") != 0 ||
	    json_object_has_member(object, "kind") != (kind != NULL) ||
	    (kind && strcmp(json_need_string(object, "kind", where), kind) != 0))
		FAIL("Zipkin: span %u's name or kind is not as taken", index);
	if (json_need_int(object, "timestamp", where) != want->start_ns / 1000 ||
	    json_need_int(object, "duration", where) != MAX(duration_us, 1))
		FAIL("Zipkin: span %u's timestamp or duration is not %" PRId64 " + %" PRId64,
		     index, want->start_ns / 1000, MAX(duration_us, 1));
	endpoints = check_zipkin_endpoints(object, want, index, &address_as_tag);
	check_zipkin_annotations(object, want, index);
	check_zipkin_tags(object, want, address_as_tag, index);
	return endpoints;
}

static guint
check_zipkin(GBytes *body, GPtrArray *want)
{
	g_autoptr(JsonNode) root = json_read(body, "Zipkin JSON");
	JsonArray *spans;
	guint endpoints = 0;

	if (!JSON_NODE_HOLDS_ARRAY(root))
		FAIL("Zipkin JSON is not a list");
	spans = json_node_get_array(root);
	if (json_array_get_length(spans) != want->len)
		FAIL("Zipkin JSON: %u spans, not %u", json_array_get_length(spans), want->len);
	for (guint i = 0; i < want->len; i++)
		endpoints += check_zipkin_span(json_element_object(spans, i, "Zipkin JSON"),
					       g_ptr_array_index(want, i), i);
	return endpoints;
}

guint
fuzz_export_documents_check(GPtrArray *taken, GPtrArray *want)
{
	g_autoptr(GBytes) protobuf = tc_export_otlp_protobuf(taken);
	g_autoptr(GBytes) otlp_json = tc_export_otlp_json(taken);
	g_autoptr(GBytes) zipkin = tc_export_zipkin_json(taken);
	g_autoptr(JsonNode) root = json_read(otlp_json, "OTLP JSON");
	struct otel_request request;

	otel_request_init(&request);
	pb_request(protobuf, &request);
	check_otel("OTLP protobuf", &request, want);
	otel_request_clear(&request);
	otel_request_init(&request);
	json_otel_request(root, &request);
	check_otel("OTLP JSON", &request, want);
	otel_request_clear(&request);
	return check_zipkin(zipkin, want);
}
