/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Spans rebuilt from tracectl_span events (tc-export-spans.h). */
#include <string.h>

#include "tc-export-spans.h"

#define SPAN_PREFIX "tracectl_span:"

/* A span's events all come from the process that started it, so from one
 * trace: the trace and the span id name it, whatever other traces hold. */
struct span_key {
	const bt_trace *trace;
	uint64_t span_id;
};

struct tc_export_spans {
	GHashTable *by_id;      /* struct span_key * -> struct tc_export_span */
	GHashTable *resources;  /* key text -> struct tc_export_resource */
	GHashTable *last_event; /* const bt_trace * -> int64_t * ns */
	GPtrArray *order;       /* spans by arrival, not yet taken */
	guint finished;         /* spans in order that have ended */
	uint64_t orphan_events;
};

static void
resource_free(struct tc_export_resource *resource)
{
	g_free(resource->host_name);
	g_free(resource->service_name);
	g_free(resource->process_name);
	g_free(resource);
}

static void
attr_free(struct tc_export_attr *attr)
{
	g_free(attr->key);
	g_free(attr->string_value);
	g_free(attr);
}

static void
annotation_free(struct tc_export_annotation *annotation)
{
	g_free(annotation->message);
	g_free(annotation);
}

static void
link_free(struct tc_export_link *link)
{
	g_free(link->trace_state);
	g_free(link);
}

static guint
span_key_hash(gconstpointer key)
{
	const struct span_key *k = key;

	return g_direct_hash(k->trace) ^ (guint)k->span_id ^ (guint)(k->span_id >> 32);
}

static gboolean
span_key_equal(gconstpointer a, gconstpointer b)
{
	const struct span_key *x = a, *y = b;

	return x->trace == y->trace && x->span_id == y->span_id;
}

static void
span_free(struct tc_export_span *span)
{
	g_free(span->name);
	g_free(span->address);
	g_free(span->remote_service);
	g_free(span->remote_address);
	g_free(span->error_message);
	g_free(span->trace_state);
	g_ptr_array_unref(span->attributes);
	g_ptr_array_unref(span->annotations);
	g_ptr_array_unref(span->links);
	g_free(span);
}

struct tc_export_spans *
tc_export_spans_new(void)
{
	struct tc_export_spans *spans = g_new0(struct tc_export_spans, 1);

	spans->by_id = g_hash_table_new_full(span_key_hash, span_key_equal, g_free, NULL);
	spans->resources = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
						 (GDestroyNotify)resource_free);
	spans->last_event = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	spans->order = g_ptr_array_new_with_free_func((GDestroyNotify)span_free);
	return spans;
}

void
tc_export_spans_free(struct tc_export_spans *spans)
{
	g_hash_table_unref(spans->by_id);
	g_ptr_array_unref(spans->order);
	g_hash_table_unref(spans->resources);
	g_hash_table_unref(spans->last_event);
	g_free(spans);
}

/* Payload or context member name of struct field, or NULL. */
static const bt_field *
member(const bt_field *structure, const char *name)
{
	if (!structure || bt_field_get_class_type(structure) != BT_FIELD_CLASS_TYPE_STRUCTURE)
		return NULL;
	return bt_field_structure_borrow_member_field_by_name_const(structure, name);
}

static int64_t
integer_of(const bt_field *field, int64_t fallback)
{
	bt_field_class_type type;

	if (!field)
		return fallback;
	type = bt_field_get_class_type(field);
	if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		return bt_field_integer_signed_get_value(field);
	if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		return (int64_t)bt_field_integer_unsigned_get_value(field);
	return fallback;
}

/* A copy of text as UTF-8, each invalid sequence replaced by U+FFFD. An
 * application may write any bytes, and every document the spans go into
 * wants UTF-8: a receiver refuses a whole request for one bad string. */
static char *
utf8_copy(const char *text, gsize length)
{
	g_autofree char *copy = NULL;

	if (g_utf8_validate(text, (gssize)length, NULL))
		return g_strndup(text, length);
	copy = g_strndup(text, length);
	return g_utf8_make_valid(copy, -1);
}

/* A copy of a string field, or NULL. By its length, not its terminator:
 * babeltrace2 2.0's CTF reader leaves an empty string's buffer as the
 * last string decoded into that field object (a recycled event), with
 * only the length set to 0. */
static char *
string_copy(const bt_field *field)
{
	if (!field || bt_field_get_class_type(field) != BT_FIELD_CLASS_TYPE_STRING)
		return NULL;
	return utf8_copy(bt_field_string_get_value(field), bt_field_string_get_length(field));
}

/* Each precision has its own getter: reading a single-precision field
 * as a double breaks a precondition that babeltrace2 checks only in its
 * developer mode. */
static double
double_of(const bt_field *field)
{
	if (!field)
		return 0;
	switch (bt_field_get_class_type(field)) {
	case BT_FIELD_CLASS_TYPE_DOUBLE_PRECISION_REAL:
		return bt_field_real_double_precision_get_value(field);
	case BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL:
		return bt_field_real_single_precision_get_value(field);
	default:
		return 0;
	}
}

/* The resource's values as one text that no other values share: each
 * text after its length (an application's texts may hold any separator),
 * the process name's absence apart from an empty one. */
static char *
resource_key(const char *host_name, const char *service, const char *process_name, int64_t pid)
{
	return g_strdup_printf("%zu:%s%zu:%s%c%zu:%s%" G_GINT64_FORMAT, strlen(host_name),
			       host_name, strlen(service), service, process_name ? '+' : '-',
			       process_name ? strlen(process_name) : 0,
			       process_name ? process_name : "", pid);
}

static const struct tc_export_resource *
resource_of(struct tc_export_spans *spans, const bt_event *event, const char *service)
{
	const bt_trace *trace = bt_stream_borrow_trace_const(bt_event_borrow_stream_const(event));
	const bt_value *host = bt_trace_borrow_environment_entry_value_by_name_const(trace,
										    "hostname");
	const bt_field *context = bt_event_borrow_common_context_field_const(event);
	g_autofree char *process_name = string_copy(member(context, "procname"));
	int64_t pid = integer_of(member(context, "vpid"), -1);
	g_autofree char *host_name = host && bt_value_is_string(host)
					     ? utf8_copy(bt_value_string_get(host),
							 strlen(bt_value_string_get(host)))
					     : g_strdup("");
	char *key = resource_key(host_name, service, process_name, pid);
	struct tc_export_resource *resource = g_hash_table_lookup(spans->resources, key);

	if (resource) {
		g_free(key);
		return resource;
	}
	resource = g_new0(struct tc_export_resource, 1);
	resource->host_name = g_strdup(host_name);
	resource->service_name = g_strdup(service);
	resource->process_name = g_strdup(process_name);
	resource->pid = pid;
	g_hash_table_insert(spans->resources, key, resource);
	return resource;
}

static void
add_start(struct tc_export_spans *spans, const bt_event *event, const bt_field *payload,
	  int64_t time_ns)
{
	struct tc_export_span *span = g_new0(struct tc_export_span, 1);
	g_autofree char *service = string_copy(member(payload, "service"));
	struct span_key *key;

	span->trace_id_hi = (uint64_t)integer_of(member(payload, "trace_id_hi"), 0);
	span->trace_id_lo = (uint64_t)integer_of(member(payload, "trace_id_lo"), 0);
	span->span_id = (uint64_t)integer_of(member(payload, "span_id"), 0);
	span->parent_span_id = (uint64_t)integer_of(member(payload, "parent_span_id"), 0);
	span->kind = (uint8_t)integer_of(member(payload, "kind"), 1);
	span->name = string_copy(member(payload, "name"));
	span->address = string_copy(member(payload, "address"));
	span->resource = resource_of(spans, event, service ? service : "");
	span->trace = bt_stream_borrow_trace_const(bt_event_borrow_stream_const(event));
	span->start_ns = time_ns;
	span->unfinished = true;
	span->attributes = g_ptr_array_new_with_free_func((GDestroyNotify)attr_free);
	span->annotations = g_ptr_array_new_with_free_func((GDestroyNotify)annotation_free);
	span->links = g_ptr_array_new_with_free_func((GDestroyNotify)link_free);
	key = g_new(struct span_key, 1);
	key->trace = span->trace;
	key->span_id = span->span_id;
	g_ptr_array_add(spans->order, span);
	g_hash_table_replace(spans->by_id, key, span);
}

static void
add_attr(struct tc_export_span *span, const bt_field *payload, enum tc_export_attr_type type)
{
	struct tc_export_attr *attr = g_new0(struct tc_export_attr, 1);
	const bt_field *value = member(payload, "value");

	attr->key = string_copy(member(payload, "key"));
	attr->type = type;
	if (type == TC_EXPORT_ATTR_DOUBLE)
		attr->double_value = double_of(value);
	else if (type == TC_EXPORT_ATTR_STRING)
		attr->string_value = string_copy(value);
	else
		attr->int_value = integer_of(value, 0);
	g_ptr_array_add(span->attributes, attr);
}

static void
add_link(struct tc_export_span *span, const bt_field *payload)
{
	struct tc_export_link *link = g_new0(struct tc_export_link, 1);

	link->trace_id_hi = (uint64_t)integer_of(member(payload, "trace_id_hi"), 0);
	link->trace_id_lo = (uint64_t)integer_of(member(payload, "trace_id_lo"), 0);
	link->span_id = (uint64_t)integer_of(member(payload, "linked_span_id"), 0);
	link->trace_state = string_copy(member(payload, "tracestate"));
	g_ptr_array_add(span->links, link);
}

static void
add_to_span(struct tc_export_spans *spans, struct tc_export_span *span, const char *what,
	    const bt_field *payload, int64_t time_ns)
{
	if (strcmp(what, "annotation") == 0) {
		struct tc_export_annotation *annotation = g_new0(struct tc_export_annotation, 1);

		annotation->time_ns = time_ns;
		annotation->message = string_copy(member(payload, "message"));
		g_ptr_array_add(span->annotations, annotation);
	} else if (strcmp(what, "attr_int") == 0) {
		add_attr(span, payload, TC_EXPORT_ATTR_INT);
	} else if (strcmp(what, "attr_double") == 0) {
		add_attr(span, payload, TC_EXPORT_ATTR_DOUBLE);
	} else if (strcmp(what, "attr_string") == 0) {
		add_attr(span, payload, TC_EXPORT_ATTR_STRING);
	} else if (strcmp(what, "attr_bool") == 0) {
		add_attr(span, payload, TC_EXPORT_ATTR_BOOL);
	} else if (strcmp(what, "error") == 0) {
		g_free(span->error_message);
		span->error_message = string_copy(member(payload, "message"));
		span->status = 2;
	} else if (strcmp(what, "remote") == 0) {
		g_free(span->remote_service);
		g_free(span->remote_address);
		span->remote_service = string_copy(member(payload, "service"));
		span->remote_address = string_copy(member(payload, "address"));
	} else if (strcmp(what, "tracestate") == 0) {
		/* Traces recorded before this event existed have none: the span
		 * is exported without a tracestate, as one that continued none. */
		g_free(span->trace_state);
		span->trace_state = string_copy(member(payload, "tracestate"));
	} else if (strcmp(what, "link") == 0) {
		add_link(span, payload);
	} else if (strcmp(what, "end") == 0 && span->unfinished) {
		spans->finished++;
		span->end_ns = time_ns;
		span->status = (uint8_t)integer_of(member(payload, "status"), span->status);
		span->unfinished = false;
	}
}

static void
note_last_event(struct tc_export_spans *spans, const bt_event *event, int64_t time_ns)
{
	const bt_trace *trace = bt_stream_borrow_trace_const(bt_event_borrow_stream_const(event));
	int64_t *last = g_hash_table_lookup(spans->last_event, trace);

	if (!last) {
		last = g_new(int64_t, 1);
		*last = time_ns;
		g_hash_table_insert(spans->last_event, (gpointer)trace, last);
	} else if (time_ns > *last) {
		*last = time_ns;
	}
}

void
tc_export_spans_add_message(struct tc_export_spans *spans, const bt_message *message)
{
	const bt_event *event;
	const char *name;
	const bt_field *payload;
	int64_t time_ns = 0;

	if (bt_message_get_type(message) != BT_MESSAGE_TYPE_EVENT)
		return;
	event = bt_message_event_borrow_event_const(message);
	if (bt_message_event_borrow_stream_class_default_clock_class_const(message))
		bt_clock_snapshot_get_ns_from_origin(
			bt_message_event_borrow_default_clock_snapshot_const(message), &time_ns);
	note_last_event(spans, event, time_ns);
	name = bt_event_class_get_name(bt_event_borrow_class_const(event));
	if (!name || !g_str_has_prefix(name, SPAN_PREFIX))
		return;
	name += strlen(SPAN_PREFIX);
	payload = bt_event_borrow_payload_field_const(event);
	if (strcmp(name, "start") == 0) {
		add_start(spans, event, payload, time_ns);
	} else {
		struct span_key key = {
			.trace = bt_stream_borrow_trace_const(bt_event_borrow_stream_const(event)),
			.span_id = (uint64_t)integer_of(member(payload, "span_id"), 0),
		};
		struct tc_export_span *span = g_hash_table_lookup(spans->by_id, &key);

		if (span)
			add_to_span(spans, span, name, payload, time_ns);
		else
			spans->orphan_events++;
	}
}

static gint
by_start_time(gconstpointer a, gconstpointer b)
{
	const struct tc_export_span *x = *(struct tc_export_span *const *)a;
	const struct tc_export_span *y = *(struct tc_export_span *const *)b;

	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

guint
tc_export_spans_finished_count(const struct tc_export_spans *spans)
{
	return spans->finished;
}

/* Moves the spans that match from order to a new array, by start time. A
 * taken span is forgotten: an event naming it later counts as orphaned.
 * A span started again under the same id holds the id from then on, and
 * keeps it when the earlier one is taken. */
static GPtrArray *
take_spans(struct tc_export_spans *spans, gboolean all)
{
	GPtrArray *taken = g_ptr_array_new_with_free_func((GDestroyNotify)span_free);
	GPtrArray *kept = g_ptr_array_new_with_free_func((GDestroyNotify)span_free);

	for (guint i = 0; i < spans->order->len; i++) {
		struct tc_export_span *span = g_ptr_array_index(spans->order, i);
		struct span_key key = { .trace = span->trace, .span_id = span->span_id };

		if (all || !span->unfinished) {
			if (g_hash_table_lookup(spans->by_id, &key) == span)
				g_hash_table_remove(spans->by_id, &key);
			g_ptr_array_add(taken, span);
		} else {
			g_ptr_array_add(kept, span);
		}
	}
	g_ptr_array_set_free_func(spans->order, NULL);
	g_ptr_array_unref(spans->order);
	spans->order = kept;
	spans->finished = 0;
	g_ptr_array_sort(taken, by_start_time);
	return taken;
}

GPtrArray *
tc_export_spans_take_finished(struct tc_export_spans *spans)
{
	return take_spans(spans, FALSE);
}

GPtrArray *
tc_export_spans_take_all(struct tc_export_spans *spans, uint64_t *orphan_events)
{
	for (guint i = 0; i < spans->order->len; i++) {
		struct tc_export_span *span = g_ptr_array_index(spans->order, i);
		const int64_t *last = g_hash_table_lookup(spans->last_event, span->trace);

		if (span->unfinished)
			span->end_ns = last ? *last : span->start_ns;
	}
	*orphan_events = spans->orphan_events;
	return take_spans(spans, TRUE);
}
