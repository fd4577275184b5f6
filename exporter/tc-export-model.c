/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The attribute lists shared by the OpenTelemetry encodings (tc-export-model.h). */
#include "tc-export-model.h"

GPtrArray *
tc_export_resources_of(GPtrArray *spans)
{
	GPtrArray *resources = g_ptr_array_new();

	for (guint i = 0; i < spans->len; i++) {
		const struct tc_export_span *span = g_ptr_array_index(spans, i);

		if (!g_ptr_array_find(resources, span->resource, NULL))
			g_ptr_array_add(resources, (gpointer)span->resource);
	}
	return resources;
}

static void
add_string(GArray *attrs, const char *key, const char *value)
{
	struct tc_export_attr attr = {
		.key = (char *)key,
		.type = TC_EXPORT_ATTR_STRING,
		.string_value = (char *)(value ? value : ""),
	};

	g_array_append_val(attrs, attr);
}

static void
add_integer(GArray *attrs, const char *key, enum tc_export_attr_type type, int64_t value)
{
	struct tc_export_attr attr = { .key = (char *)key, .type = type, .int_value = value };

	g_array_append_val(attrs, attr);
}

GArray *
tc_export_resource_attrs(const struct tc_export_resource *resource)
{
	GArray *attrs = g_array_new(FALSE, FALSE, sizeof(struct tc_export_attr));

	add_string(attrs, "service.name", resource->service_name);
	add_string(attrs, "host.name", resource->host_name);
	if (resource->process_name)
		add_string(attrs, "process.executable.name", resource->process_name);
	if (resource->pid >= 0)
		add_integer(attrs, "process.pid", TC_EXPORT_ATTR_INT, resource->pid);
	return attrs;
}

/* The application's attributes, then what tracectl knows of the span. */
GArray *
tc_export_span_attrs(const struct tc_export_span *span)
{
	GArray *attrs = g_array_new(FALSE, FALSE, sizeof(struct tc_export_attr));

	for (guint i = 0; i < span->attributes->len; i++) {
		struct tc_export_attr attr =
			*(const struct tc_export_attr *)g_ptr_array_index(span->attributes, i);

		if (!attr.key)
			attr.key = (char *)"";
		if (attr.type == TC_EXPORT_ATTR_STRING && !attr.string_value)
			attr.string_value = (char *)"";
		g_array_append_val(attrs, attr);
	}
	if (span->address && *span->address)
		add_string(attrs, "tracectl.address", span->address);
	if (span->remote_service && *span->remote_service)
		add_string(attrs, "peer.service", span->remote_service);
	if (span->remote_address && *span->remote_address)
		add_string(attrs, "network.peer.address", span->remote_address);
	if (span->unfinished)
		add_integer(attrs, "tracectl.unfinished", TC_EXPORT_ATTR_BOOL, 1);
	return attrs;
}

const char *
tc_export_span_trace_state(const struct tc_export_span *span)
{
	return span->trace_state && *span->trace_state ? span->trace_state : NULL;
}

const char *
tc_export_link_trace_state(const struct tc_export_link *link)
{
	return link->trace_state && *link->trace_state ? link->trace_state : NULL;
}
