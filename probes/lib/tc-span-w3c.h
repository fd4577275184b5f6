/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * W3C Trace Context text ("Trace Context", W3C Recommendation, 2021): the
 * traceparent and tracestate headers, parsed and written.
 */
#ifndef TC_SPAN_W3C_H
#define TC_SPAN_W3C_H

#include <stddef.h>
#include <stdint.h>

struct tc_span_traceparent {
	uint64_t trace_id_hi;
	uint64_t trace_id_lo;
	uint64_t parent_id;
	uint8_t flags;
};

/* Returns 0, or -EINVAL when text is not a valid traceparent. */
int tc_span_traceparent_parse(const char *text, struct tc_span_traceparent *out);
/* Writes version 00 in 55 characters and a NUL. */
void tc_span_traceparent_format(const struct tc_span_traceparent *in, char out[56]);
/*
 * Copies the valid tracestate text into out (size bytes, at least 1) with
 * the optional white space and empty members removed, dropping members
 * from the end that do not fit. Returns 0, or -EINVAL (out empty) when text
 * breaks the grammar, has more than 32 members or a key twice.
 */
int tc_span_tracestate_normalize(const char *text, char *out, size_t size);

#endif /* TC_SPAN_W3C_H */
