/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What every OpenTelemetry encoding of the spans shares: the resources in
 * the order of their first span, and the attribute lists of a resource and
 * of a span with their semantic-convention keys, so that the JSON and the
 * protobuf encodings cannot drift apart.
 */
#ifndef TC_EXPORT_MODEL_H
#define TC_EXPORT_MODEL_H

#include <glib.h>

#include "tc-export-spans.h"

/* The instrumentation scope every span is reported under. */
#define TC_EXPORT_SCOPE_NAME "tracectl"

/* const struct tc_export_resource * of spans, each once. */
GPtrArray *tc_export_resources_of(GPtrArray *spans);
/* struct tc_export_attr whose strings are borrowed from their source. */
GArray *tc_export_resource_attrs(const struct tc_export_resource *resource);
GArray *tc_export_span_attrs(const struct tc_export_span *span);
/* The span's Span.trace_state, borrowed, or NULL when it has none: an empty
 * one is proto3's default, which neither encoding writes. */
const char *tc_export_span_trace_state(const struct tc_export_span *span);
/* The link's trace_state, likewise. */
const char *tc_export_link_trace_state(const struct tc_export_link *link);

#endif /* TC_EXPORT_MODEL_H */
