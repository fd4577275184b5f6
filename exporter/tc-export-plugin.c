/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The babeltrace2 plugin "tracectl": sink components that rebuild the spans
 * of the tracectl_span events they read and export them,
 *   sink.tracectl.otlp    OTLP/HTTP, an ExportTraceServiceRequest in the
 *                         protobuf encoding, or JSON with encoding="json";
 *   sink.tracectl.zipkin  Zipkin v2 JSON (a span list).
 * Parameters: url (POST there, e.g. http://127.0.0.1:4318/v1/traces or
 * http://127.0.0.1:9411/api/v2/spans) or path (write there, "-" for
 * standard output); attempts (default 5) and backoff-ms (default 200,
 * doubled after each failure) for url; batch-size (default 512) for url.
 *
 *   babeltrace2 --plugin-path=DIR TRACE... -c sink.tracectl.otlp \
 *           -p 'url="http://127.0.0.1:4318/v1/traces"'
 *
 * Every trace given is read through one muxer, so spans join by trace id
 * across processes and machines. With url, ended spans are sent in batches
 * as soon as batch-size of them are in, or when the source has nothing
 * more for now (a live session from lttng-relayd), so that a live export
 * does not wait for the session's end; spans still going on when the input
 * ends are sent with tracectl.unfinished=true. With path, one document
 * holds every span. A batch that cannot be delivered is reported with its
 * span count and fails the component, which makes babeltrace2 exit with an
 * error: nothing is dropped silently.
 */
#include <babeltrace2/babeltrace.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tc-export-encode.h"
#include "tc-export-send.h"
#include "tc-export-spans.h"

#define ATTEMPTS_DEFAULT 5
#define BATCH_SIZE_DEFAULT 512
#define BACKOFF_MS_DEFAULT 200
#define TIMEOUT_MS 10000

typedef GBytes *(*encode_fn)(GPtrArray *spans);

struct exporter {
	const char *component_name; /* "tracectl.otlp" or "tracectl.zipkin" */
	encode_fn encode;
	const char *content_type;
	char *url;
	char *path;
	struct tc_export_send_options send;
	guint batch_size;
	guint64 delivered; /* spans sent so far */
	bt_message_iterator *iterator;
	struct tc_export_spans *spans;
};

static void
exporter_free(struct exporter *exporter)
{
	if (!exporter)
		return;
	bt_message_iterator_put_ref(exporter->iterator);
	if (exporter->spans)
		tc_export_spans_free(exporter->spans);
	g_free(exporter->url);
	g_free(exporter->path);
	g_free(exporter);
}

static char *
string_param(const bt_value *params, const char *name)
{
	const bt_value *value = bt_value_map_borrow_entry_value_const(params, name);

	return value && bt_value_is_string(value) ? g_strdup(bt_value_string_get(value)) : NULL;
}

/* A positive integer parameter, fallback when absent; -1 when invalid. */
static int64_t
count_param(const bt_value *params, const char *name, int64_t fallback)
{
	const bt_value *value = bt_value_map_borrow_entry_value_const(params, name);
	int64_t number;

	if (!value)
		return fallback;
	if (bt_value_is_signed_integer(value))
		number = bt_value_integer_signed_get(value);
	else if (bt_value_is_unsigned_integer(value))
		number = (int64_t)MIN(bt_value_integer_unsigned_get(value), (uint64_t)G_MAXINT);
	else
		return -1;
	return number >= 1 && number <= G_MAXINT ? number : -1;
}

/* sink.tracectl.otlp's encoding parameter; NULL when it is invalid. */
static const char *
read_encoding(struct exporter *exporter, const bt_value *params)
{
	g_autofree char *encoding = string_param(params, "encoding");

	if (!encoding || strcmp(encoding, "protobuf") == 0) {
		exporter->encode = tc_export_otlp_protobuf;
		exporter->content_type = "application/x-protobuf";
	} else if (strcmp(encoding, "json") == 0) {
		exporter->encode = tc_export_otlp_json;
		exporter->content_type = "application/json";
	} else {
		return "encoding must be \"protobuf\" or \"json\"";
	}
	return NULL;
}

static const char *
read_params(struct exporter *exporter, const bt_value *params)
{
	int64_t attempts = count_param(params, "attempts", ATTEMPTS_DEFAULT);
	int64_t backoff_ms = count_param(params, "backoff-ms", BACKOFF_MS_DEFAULT);
	int64_t batch_size = count_param(params, "batch-size", BATCH_SIZE_DEFAULT);
	const char *problem;

	exporter->url = string_param(params, "url");
	exporter->path = string_param(params, "path");
	if (!exporter->url == !exporter->path)
		return "give one string parameter: url or path";
	if (attempts < 0 || attempts > 100)
		return "attempts must be an integer from 1 to 100";
	if (backoff_ms < 0 || backoff_ms > 60000)
		return "backoff-ms must be an integer from 1 to 60000";
	if (batch_size < 0 || batch_size > 1000000)
		return "batch-size must be an integer from 1 to 1000000";
	if (exporter->encode == NULL) {
		problem = read_encoding(exporter, params);
		if (problem)
			return problem;
	} else if (bt_value_map_has_entry(params, "encoding")) {
		return "encoding applies to sink.tracectl.otlp only";
	}
	exporter->batch_size = (guint)batch_size;
	exporter->send.attempts = (unsigned int)attempts;
	exporter->send.first_backoff_ms = (unsigned int)backoff_ms;
	exporter->send.timeout_ms = TIMEOUT_MS;
	return NULL;
}

static bt_component_class_initialize_method_status
exporter_initialize(bt_self_component_sink *self, const bt_value *params, const char *name,
		    encode_fn encode)
{
	struct exporter *exporter = g_new0(struct exporter, 1);
	bt_self_component *component = bt_self_component_sink_as_self_component(self);
	const char *problem;

	exporter->component_name = name;
	exporter->encode = encode;
	exporter->content_type = "application/json";
	problem = read_params(exporter, params);
	if (problem) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(component, "%s: %s", name,
								     problem);
		exporter_free(exporter);
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	if (bt_self_component_sink_add_input_port(self, "in", NULL, NULL) !=
	    BT_SELF_COMPONENT_ADD_PORT_STATUS_OK) {
		exporter_free(exporter);
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	}
	exporter->spans = tc_export_spans_new();
	bt_self_component_set_data(component, exporter);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static bt_component_class_initialize_method_status
otlp_initialize(bt_self_component_sink *self, bt_self_component_sink_configuration *configuration,
		const bt_value *params, void *data)
{
	return exporter_initialize(self, params, "tracectl.otlp", NULL);
}

static bt_component_class_initialize_method_status
zipkin_initialize(bt_self_component_sink *self,
		  bt_self_component_sink_configuration *configuration, const bt_value *params,
		  void *data)
{
	return exporter_initialize(self, params, "tracectl.zipkin", tc_export_zipkin_json);
}

static struct exporter *
exporter_of(bt_self_component_sink *self)
{
	return bt_self_component_get_data(bt_self_component_sink_as_self_component(self));
}

static void
exporter_finalize(bt_self_component_sink *self)
{
	exporter_free(exporter_of(self));
}

static bt_component_class_sink_graph_is_configured_method_status
exporter_graph_is_configured(bt_self_component_sink *self)
{
	struct exporter *exporter = exporter_of(self);
	bt_self_component_port_input *port = bt_self_component_sink_borrow_input_port_by_index(self,
											      0);

	if (bt_message_iterator_create_from_sink_component(self, port, &exporter->iterator) !=
	    BT_MESSAGE_ITERATOR_CREATE_FROM_SINK_COMPONENT_STATUS_OK)
		return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
	return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_OK;
}

static unsigned int
count_unfinished(GPtrArray *spans)
{
	unsigned int count = 0;

	for (guint i = 0; i < spans->len; i++)
		count += ((const struct tc_export_span *)g_ptr_array_index(spans, i))->unfinished;
	return count;
}

/* Encodes and delivers spans (consumed); FALSE once the failure is reported. */
static gboolean
deliver(struct exporter *exporter, bt_self_component_sink *self, GPtrArray *spans)
{
	g_autoptr(GBytes) body = NULL;
	g_autofree char *why = NULL;
	const char *where = exporter->url ? exporter->url : exporter->path;
	gboolean delivered;

	if (spans->len == 0 && exporter->url) {
		g_ptr_array_unref(spans);
		return TRUE;
	}
	body = exporter->encode(spans);
	if (exporter->url)
		delivered = tc_export_post(exporter->url, body, exporter->content_type,
					   &exporter->send, &why);
	else
		delivered = tc_export_write(exporter->path, body, &why);
	if (delivered) {
		exporter->delivered += spans->len;
	} else {
		fprintf(stderr, "%s: could not deliver %u spans to %s (%" PRIu64 " delivered "
			"before): %s\n", exporter->component_name, spans->len, where,
			exporter->delivered, why);
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(
			bt_self_component_sink_as_self_component(self),
			"%s: could not deliver %u spans to %s: %s", exporter->component_name,
			spans->len, where, why);
	}
	g_ptr_array_unref(spans);
	return delivered;
}

/* Sends the spans that have ended, when there are enough of them or when
 * the source has nothing else for now; only with url. */
static gboolean
deliver_finished(struct exporter *exporter, bt_self_component_sink *self, gboolean idle)
{
	guint finished = tc_export_spans_finished_count(exporter->spans);

	if (!exporter->url || finished == 0 || (!idle && finished < exporter->batch_size))
		return TRUE;
	return deliver(exporter, self, tc_export_spans_take_finished(exporter->spans));
}

/* The input ended: every span left, ended or not. */
static gboolean
deliver_all(struct exporter *exporter, bt_self_component_sink *self)
{
	uint64_t orphans;
	GPtrArray *spans = tc_export_spans_take_all(exporter->spans, &orphans);
	unsigned int unfinished = count_unfinished(spans);

	if (orphans)
		fprintf(stderr, "%s: %" PRIu64 " span events name a span whose start is not in "
			"the trace: not exported\n", exporter->component_name, orphans);
	if (unfinished)
		fprintf(stderr, "%s: %u of %" PRIu64 " spans never ended: exported with "
			"tracectl.unfinished=true\n", exporter->component_name, unfinished,
			exporter->delivered + spans->len);
	return deliver(exporter, self, spans);
}

static bt_component_class_sink_consume_method_status
exporter_consume(bt_self_component_sink *self)
{
	struct exporter *exporter = exporter_of(self);
	bt_message_array_const messages;
	uint64_t count;

	switch (bt_message_iterator_next(exporter->iterator, &messages, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		BT_MESSAGE_ITERATOR_PUT_REF_AND_RESET(exporter->iterator);
		return deliver_all(exporter, self) ? BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END
						   : BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return deliver_finished(exporter, self, TRUE)
			       ? BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_AGAIN
			       : BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_MEMORY_ERROR;
	default:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
	for (uint64_t i = 0; i < count; i++) {
		tc_export_spans_add_message(exporter->spans, messages[i]);
		bt_message_put_ref(messages[i]);
	}
	return deliver_finished(exporter, self, FALSE)
		       ? BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK
		       : BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
}

BT_PLUGIN_MODULE();
BT_PLUGIN(tracectl);
BT_PLUGIN_DESCRIPTION("tracectl spans to OpenTelemetry (OTLP/HTTP) and Zipkin v2 JSON");
BT_PLUGIN_LICENSE("LGPL-2.1-or-later");

BT_PLUGIN_SINK_COMPONENT_CLASS(otlp, exporter_consume);
BT_PLUGIN_SINK_COMPONENT_CLASS_DESCRIPTION(otlp, "Export tracectl spans as OTLP/HTTP (protobuf or JSON)");
BT_PLUGIN_SINK_COMPONENT_CLASS_INITIALIZE_METHOD(otlp, otlp_initialize);
BT_PLUGIN_SINK_COMPONENT_CLASS_FINALIZE_METHOD(otlp, exporter_finalize);
BT_PLUGIN_SINK_COMPONENT_CLASS_GRAPH_IS_CONFIGURED_METHOD(otlp, exporter_graph_is_configured);

BT_PLUGIN_SINK_COMPONENT_CLASS(zipkin, exporter_consume);
BT_PLUGIN_SINK_COMPONENT_CLASS_DESCRIPTION(zipkin, "Export tracectl spans as Zipkin v2 JSON");
BT_PLUGIN_SINK_COMPONENT_CLASS_INITIALIZE_METHOD(zipkin, zipkin_initialize);
BT_PLUGIN_SINK_COMPONENT_CLASS_FINALIZE_METHOD(zipkin, exporter_finalize);
BT_PLUGIN_SINK_COMPONENT_CLASS_GRAPH_IS_CONFIGURED_METHOD(zipkin, exporter_graph_is_configured);
