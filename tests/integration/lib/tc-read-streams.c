// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The babeltrace2 sink sink.tctest.streams: every message of a trace
 * written on standard output as the one JSON object tracelib.read_streams()
 * returns, {"events": [...], "discarded": {stream id: count}, "packets_lost":
 * N}, each event with its name, stream id, CPU (the packet context's
 * cpu_id), clock value ("ts"; with the parameter with-ns=yes also "ns",
 * nanoseconds from the clock's origin), payload fields (but those whose
 * name starts with '_') and common context fields ("ctx_" + name). With the
 * parameter pairs=yes it writes what tracelib.read_trace() returns instead:
 * a list of [name, {payload fields}], with ["<discarded>", {"count": N}]
 * where events were discarded, in the order of the messages.
 *
 * It exists for speed: babeltrace2's Python bindings take tens of
 * microseconds an event, minutes for the millions of events of the ring
 * buffer's stress tests, where this takes seconds. It reads what the
 * Python reader reads, the same way: the babeltrace2 CLI gives it the
 * trace's auto-discovered sources through the same muxer. A field of a
 * type the Python reader could not turn into a number, a string or a list
 * of numbers is an error here too, never a value made up.
 */

#include <babeltrace2/babeltrace.h>
#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

struct reader {
	bt_message_iterator *iterator;
	gboolean with_ns;
	gboolean pairs; /* read_trace()'s list of [name, payload] */
	gboolean first_event;
	/* Events discarded per stream id (gint64 keys and values). */
	GHashTable *discarded;
	guint64 packets_lost;
	GString *line;
};

static void
put_string(GString *out, const char *text)
{
	g_string_append_c(out, '"');
	for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
		if (*c == '"' || *c == '\\')
			g_string_append_printf(out, "\\%c", *c);
		else if (*c < 0x20)
			g_string_append_printf(out, "\\u%04x", *c);
		else
			g_string_append_c(out, (char)*c);
	}
	g_string_append_c(out, '"');
}

static void
put_real(GString *out, double value)
{
	/* Python's json writes these three so, and reads them back. */
	if (isnan(value))
		g_string_append(out, "NaN");
	else if (isinf(value))
		g_string_append(out, value > 0 ? "Infinity" : "-Infinity");
	else
		g_string_append_printf(out, "%.17g", value);
}

/* An integer, an enumeration or a boolean as a number; FALSE for any other. */
static gboolean
put_number(GString *out, const bt_field *field)
{
	bt_field_class_type type = bt_field_get_class_type(field);

	if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		g_string_append_printf(out, "%" PRId64, bt_field_integer_signed_get_value(field));
	else if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		g_string_append_printf(out, "%" PRIu64, bt_field_integer_unsigned_get_value(field));
	else if (type == BT_FIELD_CLASS_TYPE_BOOL)
		g_string_append(out, bt_field_bool_get_value(field) ? "1" : "0");
	else
		return FALSE;
	return TRUE;
}

static gboolean put_value(GString *out, const bt_field *field);

/* An array or a sequence of numbers (integers or reals). */
static gboolean
put_array(GString *out, const bt_field *field)
{
	uint64_t length = bt_field_array_get_length(field);

	g_string_append_c(out, '[');
	for (uint64_t i = 0; i < length; i++) {
		if (i > 0)
			g_string_append_c(out, ',');
		const bt_field *element = bt_field_array_borrow_element_field_by_index_const(field, i);

		if (bt_field_class_type_is(bt_field_get_class_type(element),
					   BT_FIELD_CLASS_TYPE_ARRAY) ||
		    !put_value(out, element))
			return FALSE;
	}
	g_string_append_c(out, ']');
	return TRUE;
}

static gboolean
put_value(GString *out, const bt_field *field)
{
	bt_field_class_type type = bt_field_get_class_type(field);

	if (type == BT_FIELD_CLASS_TYPE_STRING) {
		put_string(out, bt_field_string_get_value(field));
		return TRUE;
	}
	if (bt_field_class_type_is(type, BT_FIELD_CLASS_TYPE_ARRAY))
		return put_array(out, field);
	if (type == BT_FIELD_CLASS_TYPE_DOUBLE_PRECISION_REAL) {
		put_real(out, bt_field_real_double_precision_get_value(field));
		return TRUE;
	}
	if (type == BT_FIELD_CLASS_TYPE_SINGLE_PRECISION_REAL) {
		put_real(out, bt_field_real_single_precision_get_value(field));
		return TRUE;
	}
	return put_number(out, field);
}

/* The members of a structure as "prefix+name": value pairs, each after a comma. */
static gboolean
put_members(GString *out, const bt_field *structure, const char *prefix, gboolean skip_private)
{
	const bt_field_class *class = bt_field_borrow_class_const(structure);
	uint64_t count = bt_field_class_structure_get_member_count(class);

	for (uint64_t i = 0; i < count; i++) {
		const char *name = bt_field_class_structure_member_get_name(
		    bt_field_class_structure_borrow_member_by_index_const(class, i));

		/* The length of a sequence, as the Python reader leaves it. */
		if (skip_private && name[0] == '_')
			continue;
		g_string_append_c(out, ',');
		g_autofree char *key = g_strconcat(prefix, name, NULL);
		put_string(out, key);
		g_string_append_c(out, ':');
		if (!put_value(
			out, bt_field_structure_borrow_member_field_by_index_const(structure, i))) {
			fprintf(stderr,
				"sink.tctest.streams: field %s is of a type read_streams "
				"does not read\n",
				key);
			return FALSE;
		}
	}
	return TRUE;
}

static gboolean
put_cpu(GString *out, const bt_event *event)
{
	const bt_packet *packet = bt_event_borrow_packet_const(event);
	const bt_field *context = packet ? bt_packet_borrow_context_field_const(packet) : NULL;
	const bt_field *cpu =
	    context ? bt_field_structure_borrow_member_field_by_name_const(context, "cpu_id")
		    : NULL;

	g_string_append(out, ",\"cpu\":");
	if (cpu && put_number(out, cpu))
		return TRUE;
	fprintf(stderr, "sink.tctest.streams: an event without a packet context's cpu_id\n");
	return FALSE;
}

static gboolean
put_time(struct reader *reader, const bt_message *message)
{
	const bt_clock_snapshot *snapshot =
	    bt_message_event_borrow_default_clock_snapshot_const(message);
	int64_t ns;

	g_string_append_printf(reader->line, ",\"ts\":%" PRIu64,
			       bt_clock_snapshot_get_value(snapshot));
	if (!reader->with_ns)
		return TRUE;
	if (bt_clock_snapshot_get_ns_from_origin(snapshot, &ns) !=
	    BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK) {
		fprintf(stderr, "sink.tctest.streams: a time beyond 64 bits of nanoseconds\n");
		return FALSE;
	}
	g_string_append_printf(reader->line, ",\"ns\":%" PRId64, ns);
	return TRUE;
}

/* One [name, {fields}] of read_trace()'s list; fields written by
 * put_members(), which puts a comma before each, or NULL for none. */
static gboolean
put_pair(struct reader *reader, const char *name, const bt_field *fields, const char *count_member)
{
	GString *line = reader->line;
	gsize members;

	g_string_truncate(line, 0);
	g_string_append(line, reader->first_event ? "\n[" : ",\n[");
	if (name)
		put_string(line, name);
	else
		g_string_append(line, "null");
	g_string_append(line, ",{");
	members = line->len;
	if (count_member)
		g_string_append(line, count_member);
	else if (fields && !put_members(line, fields, "", TRUE))
		return FALSE;
	if (line->len > members)
		g_string_erase(line, (gssize)members, 1); /* the first member's comma */
	g_string_append(line, "}]");
	fwrite(line->str, 1, line->len, stdout);
	reader->first_event = FALSE;
	return TRUE;
}

static gboolean
put_event(struct reader *reader, const bt_message *message)
{
	const bt_event *event = bt_message_event_borrow_event_const(message);
	const bt_event_class *class = bt_event_borrow_class_const(event);
	const bt_stream *stream = bt_event_borrow_stream_const(event);
	const bt_field *payload = bt_event_borrow_payload_field_const(event);
	const bt_field *context = bt_event_borrow_common_context_field_const(event);
	const char *name = bt_event_class_get_name(class);
	GString *line = reader->line;

	if (reader->pairs)
		return put_pair(reader, name, payload, NULL);
	if (!bt_stream_class_borrow_default_clock_class_const(
		bt_stream_borrow_class_const(stream))) {
		fprintf(stderr, "sink.tctest.streams: a stream without a clock\n");
		return FALSE;
	}
	g_string_truncate(line, 0);
	g_string_append(line, reader->first_event ? "\n{\"name\":" : ",\n{\"name\":");
	if (name)
		put_string(line, name);
	else
		g_string_append(line, "null");
	g_string_append_printf(line, ",\"stream\":%" PRIu64, bt_stream_get_id(stream));
	if (!put_cpu(line, event) || !put_time(reader, message))
		return FALSE;
	if (payload && !put_members(line, payload, "", TRUE))
		return FALSE;
	if (context && !put_members(line, context, "ctx_", FALSE))
		return FALSE;
	g_string_append_c(line, '}');
	fwrite(line->str, 1, line->len, stdout);
	reader->first_event = FALSE;
	return TRUE;
}

static gboolean
count_discarded_events(struct reader *reader, const bt_message *message)
{
	const bt_stream *stream = bt_message_discarded_events_borrow_stream_const(message);
	gint64 id = (gint64)bt_stream_get_id(stream);
	gint64 *total = g_hash_table_lookup(reader->discarded, &id);
	uint64_t count;

	if (bt_message_discarded_events_get_count(message, &count) !=
	    BT_PROPERTY_AVAILABILITY_AVAILABLE) {
		fprintf(stderr, "sink.tctest.streams: discarded events of no count\n");
		return FALSE;
	}
	if (reader->pairs) {
		g_autofree char *member = g_strdup_printf(",\"count\":%" PRIu64, count);

		return put_pair(reader, "<discarded>", NULL, member);
	}
	if (!total) {
		gint64 *key = g_new(gint64, 1);

		*key = id;
		total = g_new0(gint64, 1);
		g_hash_table_insert(reader->discarded, key, total);
	}
	*total += (gint64)count;
	return TRUE;
}

static void
count_discarded_packets(struct reader *reader, const bt_message *message)
{
	uint64_t count;

	if (bt_message_discarded_packets_get_count(message, &count) ==
	    BT_PROPERTY_AVAILABILITY_AVAILABLE)
		reader->packets_lost += count;
	else
		reader->packets_lost += 1;
}

static gboolean
take_message(struct reader *reader, const bt_message *message)
{
	switch (bt_message_get_type(message)) {
	case BT_MESSAGE_TYPE_EVENT:
		return put_event(reader, message);
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		return count_discarded_events(reader, message);
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		count_discarded_packets(reader, message);
		return TRUE;
	default:
		return TRUE;
	}
}

static void
put_end(struct reader *reader)
{
	GHashTableIter iter;
	gpointer key, value;
	const char *separator = "";

	if (reader->pairs) {
		printf("]\n");
		return;
	}
	printf("],\n\"discarded\":{");
	g_hash_table_iter_init(&iter, reader->discarded);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		printf("%s\"%" G_GINT64_FORMAT "\":%" G_GINT64_FORMAT, separator, *(gint64 *)key,
		       *(gint64 *)value);
		separator = ",";
	}
	printf("},\n\"packets_lost\":%" G_GUINT64_FORMAT "}\n", reader->packets_lost);
}

static struct reader *
reader_of(bt_self_component_sink *self)
{
	return bt_self_component_get_data(bt_self_component_sink_as_self_component(self));
}

static bt_component_class_initialize_method_status
streams_initialize(bt_self_component_sink *self, bt_self_component_sink_configuration *config,
		   const bt_value *params, void *data)
{
	struct reader *reader = g_new0(struct reader, 1);
	const bt_value *with_ns = bt_value_map_borrow_entry_value_const(params, "with-ns");
	const bt_value *pairs = bt_value_map_borrow_entry_value_const(params, "pairs");

	reader->with_ns = with_ns && bt_value_is_bool(with_ns) && bt_value_bool_get(with_ns);
	reader->pairs = pairs && bt_value_is_bool(pairs) && bt_value_bool_get(pairs);
	reader->first_event = TRUE;
	reader->discarded = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
	reader->line = g_string_new(NULL);
	bt_self_component_set_data(bt_self_component_sink_as_self_component(self), reader);
	if (bt_self_component_sink_add_input_port(self, "in", NULL, NULL) !=
	    BT_SELF_COMPONENT_ADD_PORT_STATUS_OK)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static void
streams_finalize(bt_self_component_sink *self)
{
	struct reader *reader = reader_of(self);

	BT_MESSAGE_ITERATOR_PUT_REF_AND_RESET(reader->iterator);
	g_hash_table_destroy(reader->discarded);
	g_string_free(reader->line, TRUE);
	g_free(reader);
}

static bt_component_class_sink_graph_is_configured_method_status
streams_graph_is_configured(bt_self_component_sink *self)
{
	struct reader *reader = reader_of(self);
	bt_self_component_port_input *port =
	    bt_self_component_sink_borrow_input_port_by_index(self, 0);

	if (bt_message_iterator_create_from_sink_component(self, port, &reader->iterator) !=
	    BT_MESSAGE_ITERATOR_CREATE_FROM_SINK_COMPONENT_STATUS_OK)
		return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
	printf(reader->pairs ? "[" : "{\"events\":[");
	return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_OK;
}

static bt_component_class_sink_consume_method_status
streams_consume(bt_self_component_sink *self)
{
	struct reader *reader = reader_of(self);
	bt_message_array_const messages;
	uint64_t count;
	gboolean taken = TRUE;

	switch (bt_message_iterator_next(reader->iterator, &messages, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		BT_MESSAGE_ITERATOR_PUT_REF_AND_RESET(reader->iterator);
		put_end(reader);
		return fflush(stdout) == 0 ? BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END
					   : BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_MEMORY_ERROR;
	default:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
	for (uint64_t i = 0; i < count; i++) {
		taken = taken && take_message(reader, messages[i]);
		bt_message_put_ref(messages[i]);
	}
	return taken ? BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK
		     : BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
}

BT_PLUGIN_MODULE();
BT_PLUGIN(tctest);
BT_PLUGIN_DESCRIPTION("tracectl's integration tests: traces read as tracelib's JSON");
BT_PLUGIN_LICENSE("LGPL-2.1-or-later");

BT_PLUGIN_SINK_COMPONENT_CLASS(streams, streams_consume);
BT_PLUGIN_SINK_COMPONENT_CLASS_DESCRIPTION(streams,
					   "Events, discarded events and lost packets as JSON");
BT_PLUGIN_SINK_COMPONENT_CLASS_INITIALIZE_METHOD(streams, streams_initialize);
BT_PLUGIN_SINK_COMPONENT_CLASS_FINALIZE_METHOD(streams, streams_finalize);
BT_PLUGIN_SINK_COMPONENT_CLASS_GRAPH_IS_CONFIGURED_METHOD(streams, streams_graph_is_configured);
