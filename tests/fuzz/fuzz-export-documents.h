/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What fuzz-export-spans.c expects of the spans a take gives (its model's
 * spans), and the check of the documents the exporter makes of a take
 * (fuzz-export-documents.c).
 */
#pragma once

#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tc-export-spans.h"

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		fprintf(stderr, "fuzz-export-spans: " __VA_ARGS__);                                \
		fprintf(stderr, "\n");                                                             \
		abort();                                                                           \
	} while (0)

struct model_attr {
	const char *key;
	enum tc_export_attr_type type;
	int64_t integer;
	double real;
	const char *text;
};

struct model_annotation {
	int64_t time_ns;
	const char *message;
};

struct model_link {
	guint64 trace_id_hi, trace_id_lo, span_id;
	const char *trace_state; /* NULL when the member is missing or not a string */
};

/* Texts borrow the plan's, which outlives the model. */
struct model_span {
	guint trace;
	guint64 trace_id_hi, trace_id_lo, span_id, parent_span_id;
	guint8 kind, status;
	const char *name, *address, *remote_service, *remote_address, *error_message;
	const char *trace_state; /* the last tracestate event's, NULL when none */
	const char *host_name, *service_name, *process_name;
	int64_t pid;
	int64_t start_ns, end_ns;
	gboolean unfinished;
	GArray *attributes;  /* struct model_attr */
	GArray *annotations; /* struct model_annotation */
	GArray *links;       /* struct model_link, in the order recorded */
};

/* Encodes taken (struct tc_export_span) as OTLP/HTTP protobuf, OTLP/HTTP
 * JSON and Zipkin v2 JSON, reads each back and aborts unless each holds
 * the spans of want (struct model_span, in taken's order) as
 * fuzz-export-spans.c says. Returns how many endpoints of Zipkin's
 * document had an ip. */
guint fuzz_export_documents_check(GPtrArray *taken, GPtrArray *want);
