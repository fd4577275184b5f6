/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The anchor of bench-spans: a span as BlkKin records it with LTTng-UST
 * in its library (Marios Kogias, the BlkKin diploma thesis, National
 * Technical University of Athens, School of Electrical and Computer
 * Engineering): every timestamp and key-value annotation is one
 * tracepoint carrying the trace name, the endpoint (service, IP, port) and
 * the three ids.
 */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER zipkin

#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./span-lttng-tp.h"

#if !defined(SPAN_LTTNG_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define SPAN_LTTNG_TP_H

#include <lttng/tracepoint.h>

TRACEPOINT_EVENT(zipkin, timestamp,
	TP_ARGS(const char *, trace_name, const char *, service_name, int, port_no,
		const char *, ip, uint64_t, trace_id, uint64_t, span_id,
		uint64_t, parent_span_id, const char *, event),
	TP_FIELDS(
		ctf_string(trace_name, trace_name)
		ctf_string(service_name, service_name)
		ctf_integer(int, port_no, port_no)
		ctf_string(ip, ip)
		ctf_integer(uint64_t, trace_id, trace_id)
		ctf_integer(uint64_t, span_id, span_id)
		ctf_integer(uint64_t, parent_span_id, parent_span_id)
		ctf_string(event, event)))

TRACEPOINT_EVENT(zipkin, keyval_integer,
	TP_ARGS(const char *, trace_name, const char *, service_name, int, port_no,
		const char *, ip, uint64_t, trace_id, uint64_t, span_id,
		uint64_t, parent_span_id, const char *, key, int64_t, val),
	TP_FIELDS(
		ctf_string(trace_name, trace_name)
		ctf_string(service_name, service_name)
		ctf_integer(int, port_no, port_no)
		ctf_string(ip, ip)
		ctf_integer(uint64_t, trace_id, trace_id)
		ctf_integer(uint64_t, span_id, span_id)
		ctf_integer(uint64_t, parent_span_id, parent_span_id)
		ctf_string(key, key)
		ctf_integer(int64_t, val, val)))

#endif

#include <lttng/tracepoint-event.h>
