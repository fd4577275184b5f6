/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The events of the tracectl_span provider: the recorded form of
 * tracectl/span.h, read back by the exporter. The field names and types
 * are a format: the exporter and the tests depend on them, change them only
 * by adding events. kind is OpenTelemetry's SpanKind, status its
 * Status.code; flags the W3C trace-flags.
 */
#ifndef TC_SPAN_TP_H
#define TC_SPAN_TP_H

#include <stdint.h>
#include <tracectl/tracepoint.h>

TRACECTL_EVENT_LOGLEVEL(tracectl_span, start, TRACECTL_LOGLEVEL_INFO,
	TRACECTL_ARGS(uint64_t, trace_id_hi, uint64_t, trace_id_lo, uint64_t, span_id,
		      uint64_t, parent_span_id, uint8_t, kind, uint8_t, flags,
		      const char *, name, const char *, service, const char *, address),
	TRACECTL_FIELDS(
		tracectl_field_integer(uint64_t, trace_id_hi, trace_id_hi),
		tracectl_field_integer(uint64_t, trace_id_lo, trace_id_lo),
		tracectl_field_integer(uint64_t, span_id, span_id),
		tracectl_field_integer(uint64_t, parent_span_id, parent_span_id),
		tracectl_field_integer(uint8_t, kind, kind),
		tracectl_field_integer(uint8_t, flags, flags),
		tracectl_field_string(name, name),
		tracectl_field_string(service, service),
		tracectl_field_string(address, address)))

TRACECTL_EVENT_LOGLEVEL(tracectl_span, annotation, TRACECTL_LOGLEVEL_INFO,
	TRACECTL_ARGS(uint64_t, span_id, const char *, message),
	TRACECTL_FIELDS(
		tracectl_field_integer(uint64_t, span_id, span_id),
		tracectl_field_string(message, message)))

TRACECTL_EVENT_LOGLEVEL(tracectl_span, attr_int, TRACECTL_LOGLEVEL_INFO,
	TRACECTL_ARGS(uint64_t, span_id, const char *, key, int64_t, value),
	TRACECTL_FIELDS(
		tracectl_field_integer(uint64_t, span_id, span_id),
		tracectl_field_string(key, key),
		tracectl_field_integer(int64_t, value, value)))

TRACECTL_EVENT_LOGLEVEL(tracectl_span, attr_double, TRACECTL_LOGLEVEL_INFO,
	TRACECTL_ARGS(uint64_t, span_id, const char *, key, double, value),
	TRACECTL_FIELDS(
		tracectl_field_integer(uint64_t, span_id, span_id),
		tracectl_field_string(key, key),
		tracectl_field_double(value, value)))

TRACECTL_EVENT_LOGLEVEL(tracectl_span, attr_string, TRACECTL_LOGLEVEL_INFO,
	TRACECTL_ARGS(uint64_t, span_id, const char *, key, const char *, value),
	TRACECTL_FIELDS(
		tracectl_field_integer(uint64_t, span_id, span_id),
		tracectl_field_string(key, key),
		tracectl_field_string(value, value)))

TRACECTL_EVENT_LOGLEVEL(tracectl_span, attr_bool, TRACECTL_LOGLEVEL_INFO,
	TRACECTL_ARGS(uint64_t, span_id, const char *, key, int, value),
	TRACECTL_FIELDS(
		tracectl_field_integer(uint64_t, span_id, span_id),
		tracectl_field_string(key, key),
		tracectl_field_integer(uint8_t, value, value != 0)))

TRACECTL_EVENT_LOGLEVEL(tracectl_span, error, TRACECTL_LOGLEVEL_INFO,
	TRACECTL_ARGS(uint64_t, span_id, const char *, message),
	TRACECTL_FIELDS(
		tracectl_field_integer(uint64_t, span_id, span_id),
		tracectl_field_string(message, message)))

TRACECTL_EVENT_LOGLEVEL(tracectl_span, remote, TRACECTL_LOGLEVEL_INFO,
	TRACECTL_ARGS(uint64_t, span_id, const char *, service, const char *, address),
	TRACECTL_FIELDS(
		tracectl_field_integer(uint64_t, span_id, span_id),
		tracectl_field_string(service, service),
		tracectl_field_string(address, address)))

/* The W3C tracestate a span continues, recorded just after its start and
 * only when it is not empty, so that a span without one (every root, and
 * most children) costs no more than its start event (docs/performance.md,
 * "Spans"). A trace recorded before this event existed has spans without. */
TRACECTL_EVENT_LOGLEVEL(tracectl_span, tracestate, TRACECTL_LOGLEVEL_INFO,
	TRACECTL_ARGS(uint64_t, span_id, const char *, tracestate),
	TRACECTL_FIELDS(
		tracectl_field_integer(uint64_t, span_id, span_id),
		tracectl_field_string(tracestate, tracestate)))

/* A link from the span to another span's context (OpenTelemetry's
 * Span.Link): a batch's consumer to each message's producer, a retry to the
 * first attempt. The linked context's tracestate is recorded with it, "" when
 * none. */
TRACECTL_EVENT_LOGLEVEL(tracectl_span, link, TRACECTL_LOGLEVEL_INFO,
	TRACECTL_ARGS(uint64_t, span_id, uint64_t, trace_id_hi, uint64_t, trace_id_lo,
		      uint64_t, linked_span_id, uint8_t, flags, const char *, tracestate),
	TRACECTL_FIELDS(
		tracectl_field_integer(uint64_t, span_id, span_id),
		tracectl_field_integer(uint64_t, trace_id_hi, trace_id_hi),
		tracectl_field_integer(uint64_t, trace_id_lo, trace_id_lo),
		tracectl_field_integer(uint64_t, linked_span_id, linked_span_id),
		tracectl_field_integer(uint8_t, flags, flags),
		tracectl_field_string(tracestate, tracestate)))

TRACECTL_EVENT_LOGLEVEL(tracectl_span, end, TRACECTL_LOGLEVEL_INFO,
	TRACECTL_ARGS(uint64_t, span_id, uint8_t, status),
	TRACECTL_FIELDS(
		tracectl_field_integer(uint64_t, span_id, span_id),
		tracectl_field_integer(uint8_t, status, status)))

#endif /* TC_SPAN_TP_H */
