/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The documents spans are exported as: an ExportTraceServiceRequest
 * (OpenTelemetry protocol, opentelemetry-proto trace/v1) in the OTLP/HTTP
 * protobuf or JSON encoding, and a Zipkin v2 span list (Zipkin API v2,
 * zipkin2-api.yaml). spans: struct tc_export_span.
 */
#ifndef TC_EXPORT_ENCODE_H
#define TC_EXPORT_ENCODE_H

#include <glib.h>

GBytes *tc_export_otlp_protobuf(GPtrArray *spans);
GBytes *tc_export_otlp_json(GPtrArray *spans);
GBytes *tc_export_zipkin_json(GPtrArray *spans);

#endif /* TC_EXPORT_ENCODE_H */
