/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Zipkin v2 JSON (tc-export-encode.h): a list of spans, times and durations
 * in microseconds since the Unix epoch, tags as strings. Zipkin has no
 * resource: the host, process and unfinished mark become tags, the error
 * message the "error" tag as Zipkin's UI expects. An address "ip:port" or
 * "[ipv6]:port" becomes an endpoint's ipv4/ipv6 and port; any other (a
 * socket path, a host name) the tag tracectl.address.
 */
#include <arpa/inet.h>
#include <json-glib/json-glib.h>
#include <stdlib.h>
#include <string.h>

#include "tc-export-encode.h"
#include "tc-export-json.h"
#include "tc-export-spans.h"

static const char *const kind_names[] = { NULL, NULL, "SERVER", "CLIENT", "PRODUCER",
					  "CONSUMER" };

/* Splits "ip:port" or "[ipv6]:port"; false when address is neither. */
static gboolean
parse_address(const char *address, char host[INET6_ADDRSTRLEN], gboolean *v6, long *port)
{
	const char *colon = address ? strrchr(address, ':') : NULL;
	const char *start = address;
	size_t length;
	unsigned char binary[16];
	char *end;

	if (!colon)
		return FALSE;
	length = (size_t)(colon - address);
	if (address[0] == '[' && length >= 2 && colon[-1] == ']') {
		start++;
		length -= 2;
	}
	if (length == 0 || length >= INET6_ADDRSTRLEN)
		return FALSE;
	memcpy(host, start, length);
	host[length] = '\0';
	*port = strtol(colon + 1, &end, 10);
	if (*end != '\0' || *port < 0 || *port > 65535)
		return FALSE;
	if (inet_pton(AF_INET, host, binary) == 1)
		*v6 = FALSE;
	else if (inet_pton(AF_INET6, host, binary) == 1)
		*v6 = TRUE;
	else
		return FALSE;
	return TRUE;
}

/* Returns FALSE when the address did not fit an endpoint. */
static gboolean
add_endpoint(JsonBuilder *builder, const char *member_name, const char *service,
	     const char *address)
{
	char host[INET6_ADDRSTRLEN];
	gboolean v6, parsed;
	long port;

	parsed = parse_address(address, host, &v6, &port);
	json_builder_set_member_name(builder, member_name);
	json_builder_begin_object(builder);
	if (service && *service) {
		json_builder_set_member_name(builder, "serviceName");
		json_builder_add_string_value(builder, service);
	}
	if (parsed) {
		json_builder_set_member_name(builder, v6 ? "ipv6" : "ipv4");
		json_builder_add_string_value(builder, host);
		if (port > 0) {
			json_builder_set_member_name(builder, "port");
			json_builder_add_int_value(builder, port);
		}
	}
	json_builder_end_object(builder);
	return parsed || !address || !*address;
}

static void
add_tag(JsonBuilder *builder, const char *key, const char *value)
{
	json_builder_set_member_name(builder, key);
	json_builder_add_string_value(builder, value ? value : "");
}

static void
add_attribute_tag(JsonBuilder *builder, const struct tc_export_attr *attr)
{
	char number[G_ASCII_DTOSTR_BUF_SIZE];
	g_autofree char *integer = NULL;
	/* An attribute event without a key string has none: "", as in OTLP. */
	const char *key = attr->key ? attr->key : "";

	switch (attr->type) {
	case TC_EXPORT_ATTR_INT:
		integer = g_strdup_printf("%" G_GINT64_FORMAT, attr->int_value);
		add_tag(builder, key, integer);
		break;
	case TC_EXPORT_ATTR_DOUBLE:
		add_tag(builder, key, g_ascii_dtostr(number, sizeof(number), attr->double_value));
		break;
	case TC_EXPORT_ATTR_STRING:
		add_tag(builder, key, attr->string_value);
		break;
	case TC_EXPORT_ATTR_BOOL:
		add_tag(builder, key, attr->int_value ? "true" : "false");
		break;
	}
}

static void
add_tags(JsonBuilder *builder, const struct tc_export_span *span, gboolean address_as_tag)
{
	const struct tc_export_resource *resource = span->resource;
	g_autofree char *pid = NULL;

	json_builder_set_member_name(builder, "tags");
	json_builder_begin_object(builder);
	for (guint i = 0; i < span->attributes->len; i++)
		add_attribute_tag(builder, g_ptr_array_index(span->attributes, i));
	add_tag(builder, "host.name", resource->host_name);
	if (resource->process_name)
		add_tag(builder, "process.executable.name", resource->process_name);
	if (resource->pid >= 0) {
		pid = g_strdup_printf("%" G_GINT64_FORMAT, resource->pid);
		add_tag(builder, "process.pid", pid);
	}
	if (address_as_tag)
		add_tag(builder, "tracectl.address", span->address);
	if (span->status == 2)
		add_tag(builder, "error", span->error_message ? span->error_message : "true");
	if (span->unfinished)
		add_tag(builder, "tracectl.unfinished", "true");
	json_builder_end_object(builder);
}

static void
add_annotations(JsonBuilder *builder, const struct tc_export_span *span)
{
	json_builder_set_member_name(builder, "annotations");
	json_builder_begin_array(builder);
	for (guint i = 0; i < span->annotations->len; i++) {
		const struct tc_export_annotation *annotation = g_ptr_array_index(span->annotations, i);

		json_builder_begin_object(builder);
		json_builder_set_member_name(builder, "timestamp");
		json_builder_add_int_value(builder, annotation->time_ns / 1000);
		json_builder_set_member_name(builder, "value");
		json_builder_add_string_value(builder, annotation->message ? annotation->message : "");
		json_builder_end_object(builder);
	}
	json_builder_end_array(builder);
}

static void
add_text(JsonBuilder *builder, const char *name, char *text)
{
	json_builder_set_member_name(builder, name);
	json_builder_add_string_value(builder, text);
	g_free(text);
}

static void
add_span(JsonBuilder *builder, const struct tc_export_span *span)
{
	int64_t duration_us = (span->end_ns - span->start_ns) / 1000;
	gboolean address_as_tag;

	json_builder_begin_object(builder);
	add_text(builder, "traceId",
		 g_strdup_printf("%016" G_GINT64_MODIFIER "x%016" G_GINT64_MODIFIER "x",
				 span->trace_id_hi, span->trace_id_lo));
	add_text(builder, "id", g_strdup_printf("%016" G_GINT64_MODIFIER "x", span->span_id));
	if (span->parent_span_id)
		add_text(builder, "parentId",
			 g_strdup_printf("%016" G_GINT64_MODIFIER "x", span->parent_span_id));
	add_text(builder, "name", g_strdup(span->name ? span->name : ""));
	if (span->kind < G_N_ELEMENTS(kind_names) && kind_names[span->kind]) {
		json_builder_set_member_name(builder, "kind");
		json_builder_add_string_value(builder, kind_names[span->kind]);
	}
	json_builder_set_member_name(builder, "timestamp");
	json_builder_add_int_value(builder, span->start_ns / 1000);
	/* Zipkin reads a duration of 0 as "unknown": 1 us at least. */
	json_builder_set_member_name(builder, "duration");
	json_builder_add_int_value(builder, duration_us > 0 ? duration_us : 1);
	address_as_tag = !add_endpoint(builder, "localEndpoint", span->resource->service_name,
				       span->address);
	if (span->remote_service || span->remote_address)
		add_endpoint(builder, "remoteEndpoint", span->remote_service, span->remote_address);
	add_annotations(builder, span);
	add_tags(builder, span, address_as_tag);
	json_builder_end_object(builder);
}

GBytes *
tc_export_zipkin_json(GPtrArray *spans)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();

	json_builder_begin_array(builder);
	for (guint i = 0; i < spans->len; i++)
		add_span(builder, g_ptr_array_index(spans, i));
	json_builder_end_array(builder);
	return tc_export_json_text(builder);
}
