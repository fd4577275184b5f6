/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * OTLP/HTTP JSON (tc-export-encode.h). The JSON mapping of the protobuf
 * messages: ids in lower-case hex, 64-bit integers and times as decimal
 * strings, enums as numbers, reals as numbers but NaN and the infinities,
 * which JSON has none for, as "NaN", "Infinity" and "-Infinity". Times are
 * fixed64: one before the epoch is written as the protobuf encoding
 * writes it, never with a minus sign, which a receiver refuses. One
 * ResourceSpans per resource, one ScopeSpans (scope "tracectl") in each.
 */
#include <json-glib/json-glib.h>
#include <math.h>

#include "tc-export-encode.h"
#include "tc-export-json.h"
#include "tc-export-model.h"

static void
add_value(JsonBuilder *builder, const char *key, const struct tc_export_attr *attr)
{
	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "key");
	json_builder_add_string_value(builder, key);
	json_builder_set_member_name(builder, "value");
	json_builder_begin_object(builder);
	switch (attr->type) {
	case TC_EXPORT_ATTR_INT: {
		g_autofree char *text = g_strdup_printf("%" G_GINT64_FORMAT, attr->int_value);

		json_builder_set_member_name(builder, "intValue");
		json_builder_add_string_value(builder, text);
		break;
	}
	case TC_EXPORT_ATTR_DOUBLE:
		json_builder_set_member_name(builder, "doubleValue");
		/* json-glib would write "nan.0", which no parser takes. */
		if (isnan(attr->double_value))
			json_builder_add_string_value(builder, "NaN");
		else if (isinf(attr->double_value))
			json_builder_add_string_value(builder, attr->double_value > 0 ? "Infinity"
										: "-Infinity");
		else
			json_builder_add_double_value(builder, attr->double_value);
		break;
	case TC_EXPORT_ATTR_STRING:
		json_builder_set_member_name(builder, "stringValue");
		json_builder_add_string_value(builder, attr->string_value ? attr->string_value : "");
		break;
	case TC_EXPORT_ATTR_BOOL:
		json_builder_set_member_name(builder, "boolValue");
		json_builder_add_boolean_value(builder, attr->int_value != 0);
		break;
	}
	json_builder_end_object(builder);
	json_builder_end_object(builder);
}

/* Consumes attrs. */
static void
add_attributes(JsonBuilder *builder, GArray *attrs)
{
	json_builder_set_member_name(builder, "attributes");
	json_builder_begin_array(builder);
	for (guint i = 0; i < attrs->len; i++) {
		const struct tc_export_attr *attr = &g_array_index(attrs, struct tc_export_attr, i);

		add_value(builder, attr->key, attr);
	}
	json_builder_end_array(builder);
	g_array_unref(attrs);
}

static void
add_resource(JsonBuilder *builder, const struct tc_export_resource *resource)
{
	json_builder_set_member_name(builder, "resource");
	json_builder_begin_object(builder);
	add_attributes(builder, tc_export_resource_attrs(resource));
	json_builder_end_object(builder);
}

static void
add_member_text(JsonBuilder *builder, const char *name, const char *format, ...)
	G_GNUC_PRINTF(3, 4);

static void
add_member_text(JsonBuilder *builder, const char *name, const char *format, ...)
{
	g_autofree char *text = NULL;
	va_list args;

	va_start(args, format);
	text = g_strdup_vprintf(format, args);
	va_end(args);
	json_builder_set_member_name(builder, name);
	json_builder_add_string_value(builder, text);
}

static void
add_events(JsonBuilder *builder, const struct tc_export_span *span)
{
	json_builder_set_member_name(builder, "events");
	json_builder_begin_array(builder);
	for (guint i = 0; i < span->annotations->len; i++) {
		const struct tc_export_annotation *annotation = g_ptr_array_index(span->annotations, i);

		json_builder_begin_object(builder);
		add_member_text(builder, "timeUnixNano", "%" G_GUINT64_FORMAT,
				(guint64)annotation->time_ns);
		json_builder_set_member_name(builder, "name");
		json_builder_add_string_value(builder, annotation->message ? annotation->message : "");
		json_builder_end_object(builder);
	}
	json_builder_end_array(builder);
}

/* Links are written only when there are some, as an OTLP/JSON encoder
 * leaves out an empty repeated field. */
static void
add_links(JsonBuilder *builder, const struct tc_export_span *span)
{
	if (span->links->len == 0)
		return;
	json_builder_set_member_name(builder, "links");
	json_builder_begin_array(builder);
	for (guint i = 0; i < span->links->len; i++) {
		const struct tc_export_link *link = g_ptr_array_index(span->links, i);
		const char *trace_state = tc_export_link_trace_state(link);

		json_builder_begin_object(builder);
		add_member_text(builder, "traceId",
				"%016" G_GINT64_MODIFIER "x%016" G_GINT64_MODIFIER "x",
				link->trace_id_hi, link->trace_id_lo);
		add_member_text(builder, "spanId", "%016" G_GINT64_MODIFIER "x", link->span_id);
		if (trace_state) {
			json_builder_set_member_name(builder, "traceState");
			json_builder_add_string_value(builder, trace_state);
		}
		json_builder_end_object(builder);
	}
	json_builder_end_array(builder);
}

static void
add_span(JsonBuilder *builder, const struct tc_export_span *span)
{
	const char *trace_state = tc_export_span_trace_state(span);

	json_builder_begin_object(builder);
	add_member_text(builder, "traceId", "%016" G_GINT64_MODIFIER "x%016" G_GINT64_MODIFIER "x",
			span->trace_id_hi, span->trace_id_lo);
	add_member_text(builder, "spanId", "%016" G_GINT64_MODIFIER "x", span->span_id);
	if (trace_state) {
		json_builder_set_member_name(builder, "traceState");
		json_builder_add_string_value(builder, trace_state);
	}
	if (span->parent_span_id)
		add_member_text(builder, "parentSpanId", "%016" G_GINT64_MODIFIER "x",
				span->parent_span_id);
	json_builder_set_member_name(builder, "name");
	json_builder_add_string_value(builder, span->name ? span->name : "");
	json_builder_set_member_name(builder, "kind");
	json_builder_add_int_value(builder, span->kind);
	add_member_text(builder, "startTimeUnixNano", "%" G_GUINT64_FORMAT, (guint64)span->start_ns);
	add_member_text(builder, "endTimeUnixNano", "%" G_GUINT64_FORMAT, (guint64)span->end_ns);
	add_attributes(builder, tc_export_span_attrs(span));
	add_events(builder, span);
	add_links(builder, span);
	json_builder_set_member_name(builder, "status");
	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "code");
	json_builder_add_int_value(builder, span->status);
	if (span->error_message) {
		json_builder_set_member_name(builder, "message");
		json_builder_add_string_value(builder, span->error_message);
	}
	json_builder_end_object(builder);
	json_builder_end_object(builder);
}

static void
add_resource_spans(JsonBuilder *builder, GPtrArray *spans,
		   const struct tc_export_resource *resource)
{
	json_builder_begin_object(builder);
	add_resource(builder, resource);
	json_builder_set_member_name(builder, "scopeSpans");
	json_builder_begin_array(builder);
	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "scope");
	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "name");
	json_builder_add_string_value(builder, TC_EXPORT_SCOPE_NAME);
	json_builder_end_object(builder);
	json_builder_set_member_name(builder, "spans");
	json_builder_begin_array(builder);
	for (guint i = 0; i < spans->len; i++) {
		const struct tc_export_span *span = g_ptr_array_index(spans, i);

		if (span->resource == resource)
			add_span(builder, span);
	}
	json_builder_end_array(builder);
	json_builder_end_object(builder);
	json_builder_end_array(builder);
	json_builder_end_object(builder);
}

GBytes *
tc_export_otlp_json(GPtrArray *spans)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();
	g_autoptr(GPtrArray) resources = tc_export_resources_of(spans);

	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "resourceSpans");
	json_builder_begin_array(builder);
	for (guint i = 0; i < resources->len; i++)
		add_resource_spans(builder, spans, g_ptr_array_index(resources, i));
	json_builder_end_array(builder);
	json_builder_end_object(builder);
	return tc_export_json_text(builder);
}
