/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Spans as JSON: the OTLP/HTTP JSON encoding of an
 * ExportTraceServiceRequest (OpenTelemetry protocol, opentelemetry-proto
 * trace/v1), and a Zipkin v2 span list (Zipkin API v2, zipkin2-api.yaml).
 */
#ifndef TC_EXPORT_JSON_H
#define TC_EXPORT_JSON_H

#include <glib.h>

/* Both return a NUL-terminated document; spans: struct tc_export_span. */
char *tc_export_otlp_json(GPtrArray *spans);
char *tc_export_zipkin_json(GPtrArray *spans);

#endif /* TC_EXPORT_JSON_H */
