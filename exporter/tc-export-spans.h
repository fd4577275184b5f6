/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Spans rebuilt from tracectl_span events (probes/lib/tc-span-tp.h) of
 * every trace a sink reads: one table keyed by trace and span id, times in ns since
 * the Unix epoch, resources from the trace environment and the events'
 * contexts. Every text is UTF-8: bytes that are not become U+FFFD. A trace
 * recorded before the tracestate event existed reads as spans without one.
 */
#ifndef TC_EXPORT_SPANS_H
#define TC_EXPORT_SPANS_H

#include <babeltrace2/babeltrace.h>
#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

/* Where spans ran: what OpenTelemetry calls a resource. */
struct tc_export_resource {
	char *host_name;
	char *service_name;
	char *process_name; /* NULL unless the procname context was recorded */
	int64_t pid;        /* -1 unless the vpid context was recorded */
};

enum tc_export_attr_type {
	TC_EXPORT_ATTR_INT,
	TC_EXPORT_ATTR_DOUBLE,
	TC_EXPORT_ATTR_STRING,
	TC_EXPORT_ATTR_BOOL,
};

struct tc_export_attr {
	char *key;
	enum tc_export_attr_type type;
	int64_t int_value; /* also the boolean */
	double double_value;
	char *string_value;
};

struct tc_export_annotation {
	int64_t time_ns;
	char *message;
};

/* A link to another span's context (OpenTelemetry's Span.Link). */
struct tc_export_link {
	uint64_t trace_id_hi, trace_id_lo, span_id;
	char *trace_state; /* NULL or "" when none */
};

struct tc_export_span {
	uint64_t trace_id_hi, trace_id_lo, span_id, parent_span_id;
	uint8_t kind, status;
	char *name;
	char *address;        /* local endpoint, "" when none */
	char *remote_service; /* NULL when none */
	char *remote_address;
	char *error_message;  /* NULL when none */
	char *trace_state;    /* the W3C tracestate it continues, NULL when none */
	int64_t start_ns, end_ns;
	bool unfinished;      /* never ended: end_ns is its trace's last event */
	const struct tc_export_resource *resource;
	const bt_trace *trace;
	GPtrArray *attributes;  /* struct tc_export_attr */
	GPtrArray *annotations; /* struct tc_export_annotation */
	GPtrArray *links;       /* struct tc_export_link, in the order recorded */
};

struct tc_export_spans;

struct tc_export_spans *tc_export_spans_new(void);
void tc_export_spans_free(struct tc_export_spans *spans);
/* Takes in one message of any kind; only events matter. */
void tc_export_spans_add_message(struct tc_export_spans *spans, const bt_message *message);
/* Spans that have ended since the last take. */
guint tc_export_spans_finished_count(const struct tc_export_spans *spans);
/* The spans that have ended, by start time, now owned by the caller: they
 * can be sent while the others are still going on (a live session). */
GPtrArray *tc_export_spans_take_finished(struct tc_export_spans *spans);
/* Once every message is in: ends the unfinished spans at their trace's last
 * event and returns every span not taken yet, by start time (owned by the
 * caller), and how many events named a span whose start was never seen. */
GPtrArray *tc_export_spans_take_all(struct tc_export_spans *spans, uint64_t *orphan_events);

#endif /* TC_EXPORT_SPANS_H */
