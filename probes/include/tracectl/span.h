/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracectl spans: one request followed across threads, processes and
 * machines, with the semantics of Dapper (Sigelman et al., "Dapper, a
 * Large-Scale Distributed Systems Tracing Infrastructure", Google technical
 * report, 2010): a trace id shared by every span of a request, a span id,
 * the parent's span id, timestamped annotations, key-value attributes and
 * endpoints. Link with libtracectl-span (pkg-config tracectl-span).
 *
 * A server that continues the caller's trace and calls a back end:
 *
 *   #include <tracectl/span.h>
 *
 *   struct tracectl_span_context remote;
 *   struct tracectl_span server, call;
 *   char traceparent[TRACECTL_TRACEPARENT_SIZE];
 *
 *   tracectl_span_set_endpoint("front-end", "127.0.0.1:8080");  // once
 *   if (tracectl_span_extract(&remote, header_traceparent, header_tracestate) == 0)
 *           tracectl_span_start_remote(&server, &remote, TRACECTL_SPAN_KIND_SERVER, "GET /");
 *   else
 *           tracectl_span_start_root(&server, TRACECTL_SPAN_KIND_SERVER, "GET /");
 *   tracectl_span_set_string(&server, "http.route", "/");
 *   tracectl_span_start_child(&call, &server, TRACECTL_SPAN_KIND_CLIENT, "lookup");
 *   tracectl_span_inject(&call, traceparent, NULL, 0);    // send it along
 *   ...
 *   tracectl_span_annotate(&call, "reply received");
 *   tracectl_span_end(&call);
 *   tracectl_span_end(&server);
 *
 * Recording. Spans are ordinary tracectl events of the provider
 * tracectl_span (start, tracestate, annotation, attr_int, attr_double,
 * attr_string, attr_bool, error, remote, link, end), recorded when a session
 * enabled them (tracectl enable-event -u 'tracectl_span:*') and the span is
 * sampled. Times are the events' timestamps: the start event's is the
 * span's start, the end event's its end, an annotation's its time. Only
 * the start event carries the trace id; the others name the span by its
 * span id. A span that continues a W3C tracestate (a remote parent's, as
 * tracectl_span_extract() kept it, and so every local descendant of that
 * span) records it in a tracestate event right after its start; a span
 * with none, every root among them, records no such event and costs
 * nothing more. The exporter sends it as OTLP's Span.trace_state (Zipkin
 * v2 has no place for it).
 *
 * Sampling. A root span is sampled by the process's sampler, configured by
 * TRACECTL_SPAN_SAMPLE (read once, when the library loads) or
 * tracectl_span_sampler_configure():
 *   "1/N"  each root span with probability 1/N (independent draws: each
 *          thread counts down a geometric number of roots to skip);
 *   "R/s"  at most R root spans per second in the whole process, evenly
 *          spaced (R may have a fraction, "0.5/s"); reads CLOCK_MONOTONIC;
 *   unset or invalid: "1/1", every root span.
 * tracectl_span_start_root_decided() bypasses the sampler. A child follows
 * its parent's decision, local or remote: every child of a sampled span is
 * sampled, no child of an unsampled one is.
 *
 * Cost. An unsampled span is a few stores and predicted branches: no
 * system call, lock, allocation or clock read, and no call for a root the
 * 1/N sampler skips (the start's decision and the operations after it are
 * inline). A sampled span makes no system call and takes no lock
 * either: each operation is one tracepoint.
 *
 * Ids. 128-bit trace ids and 64-bit span ids come from a per-thread
 * generator (splitmix64, seeded from getrandom() at the thread's first use
 * and again in a forked child); they are never zero. A span that is not
 * sampled draws no ids at its start: an unsampled root gets its ids when it
 * is first injected, so that the next hop still sees a valid traceparent.
 *
 * Lifetimes. struct tracectl_span belongs to the caller (usually on its
 * stack) and may be used from any thread, one at a time; strings passed in
 * are copied into the trace at once, except the tracestate a span borrows
 * from the struct tracectl_span_context it was started from (keep that
 * alive while the span and its children may be injected). End each span
 * once; a span that is never ended is exported as unfinished.
 *
 * W3C Trace Context (https://www.w3.org/TR/trace-context/). inject writes
 * version 00; extract accepts version 00 and later versions (not ff) as
 * the specification says, lower-case hex only, all-zero ids refused,
 * leading and trailing spaces and tabs ignored. A tracestate that breaks
 * the specification's grammar (keys, values, at most 32 members, no
 * duplicate keys) is dropped while the traceparent is kept; members that
 * would carry it over 512 characters are dropped from the end.
 */
#ifndef TRACECTL_SPAN_H
#define TRACECTL_SPAN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TRACECTL_SPAN_API __attribute__((visibility("default")))

/* The trace-flags bit of W3C Trace Context. */
#define TRACECTL_SPAN_FLAG_SAMPLED 0x01u

/* "00-" 32 hex "-" 16 hex "-" 2 hex, and the NUL. */
#define TRACECTL_TRACEPARENT_SIZE 56u
/* The tracestate length every vendor must propagate, and the NUL. */
#define TRACECTL_TRACESTATE_SIZE 513u

/* The values of OpenTelemetry's SpanKind. */
enum tracectl_span_kind {
	TRACECTL_SPAN_KIND_INTERNAL = 1,
	TRACECTL_SPAN_KIND_SERVER = 2,
	TRACECTL_SPAN_KIND_CLIENT = 3,
	TRACECTL_SPAN_KIND_PRODUCER = 4,
	TRACECTL_SPAN_KIND_CONSUMER = 5,
};

/* The values of OpenTelemetry's Status.code. */
enum tracectl_span_status {
	TRACECTL_SPAN_STATUS_UNSET = 0,
	TRACECTL_SPAN_STATUS_OK = 1,
	TRACECTL_SPAN_STATUS_ERROR = 2,
};

/* A span context received from another process (tracectl_span_extract). */
struct tracectl_span_context {
	uint64_t trace_id_hi;
	uint64_t trace_id_lo;
	uint64_t span_id;
	uint8_t flags;
	char tracestate[TRACECTL_TRACESTATE_SIZE];
};

/* A span of this process. The fields are readable; set them only through
 * the functions below. */
struct tracectl_span {
	uint64_t trace_id_hi;
	uint64_t trace_id_lo;
	uint64_t span_id;
	uint64_t parent_span_id; /* 0 for a root */
	uint8_t flags;
	uint8_t kind;
	uint8_t status;
	const char *tracestate; /* borrowed, NULL or "" when none */
};

/*
 * Configures the sampler of root spans ("1/N" or "R/s", see above).
 * Returns 0, or -EINVAL (the sampler is unchanged) for anything else,
 * N < 1 or R not positive and finite.
 */
TRACECTL_SPAN_API int tracectl_span_sampler_configure(const char *spec);

/* The process's endpoint, recorded in the start event of every later span:
 * the service name and an address ("host:port"; NULL for none). Copied,
 * truncated to 127 bytes each. Call before the spans start (not
 * concurrently with them). Until then the service name is the program's. */
TRACECTL_SPAN_API void tracectl_span_set_endpoint(const char *service, const char *address);

/* A root span sampled when sample is non-zero, not sampled otherwise. */
TRACECTL_SPAN_API void tracectl_span_start_root_decided(struct tracectl_span *span,
							enum tracectl_span_kind kind,
							const char *name, int sample);
/* A span of the process called from remote, whose decision it follows. */
TRACECTL_SPAN_API void tracectl_span_start_remote(struct tracectl_span *span,
						  const struct tracectl_span_context *remote,
						  enum tracectl_span_kind kind, const char *name);

/*
 * Writes the span's context: traceparent (TRACECTL_TRACEPARENT_SIZE bytes,
 * version 00) and, when tracestate is not NULL, the tracestate the span
 * carries ("" when none) into tracestate_size bytes. Returns 0, or -ENOSPC
 * when the tracestate does not fit (written empty then).
 */
TRACECTL_SPAN_API int tracectl_span_inject(struct tracectl_span *span, char *traceparent,
					   char *tracestate, size_t tracestate_size);
/*
 * Parses received headers into remote. tracestate may be NULL. Returns 0,
 * or -EINVAL when traceparent is NULL or invalid (remote is zeroed: start
 * a root span instead).
 */
TRACECTL_SPAN_API int tracectl_span_extract(struct tracectl_span_context *remote,
					    const char *traceparent, const char *tracestate);

/* The sampled paths of the inline functions below; call those instead. */
TRACECTL_SPAN_API void tracectl_span__start_child(struct tracectl_span *span,
						  const struct tracectl_span *parent,
						  enum tracectl_span_kind kind, const char *name);
TRACECTL_SPAN_API void tracectl_span__annotate(const struct tracectl_span *span,
					       const char *message);
TRACECTL_SPAN_API void tracectl_span__set_int(const struct tracectl_span *span, const char *key,
					      int64_t value);
TRACECTL_SPAN_API void tracectl_span__set_double(const struct tracectl_span *span,
						 const char *key, double value);
TRACECTL_SPAN_API void tracectl_span__set_string(const struct tracectl_span *span,
						 const char *key, const char *value);
TRACECTL_SPAN_API void tracectl_span__set_bool(const struct tracectl_span *span, const char *key,
					       int value);
TRACECTL_SPAN_API void tracectl_span__set_error(struct tracectl_span *span, const char *message);
TRACECTL_SPAN_API void tracectl_span__set_remote_endpoint(const struct tracectl_span *span,
							  const char *service,
							  const char *address);
TRACECTL_SPAN_API void tracectl_span__link(const struct tracectl_span *span,
					   const struct tracectl_span_context *linked);
TRACECTL_SPAN_API void tracectl_span__end(const struct tracectl_span *span);

static inline int
tracectl_span_is_sampled(const struct tracectl_span *span)
{
	return __builtin_expect(span->flags & TRACECTL_SPAN_FLAG_SAMPLED, 0) != 0;
}

/*
 * The 1/N sampler's per-thread state, read inline below so that an
 * unsampled root costs a decrement and a few stores, with no call: how
 * many roots to skip before the next sampled one, drawn for the sampler
 * configuration whose generation it names. Not an API: only the library
 * changes them.
 */
struct tracectl_span__countdown {
	uint64_t skip;
	uint64_t generation;
};
extern TRACECTL_SPAN_API __thread struct tracectl_span__countdown tracectl_span__countdown_tls;
extern TRACECTL_SPAN_API uint64_t tracectl_span__generation;
/* The decision and the sampled path of tracectl_span_start_root(). */
TRACECTL_SPAN_API void tracectl_span__start_root(struct tracectl_span *span,
						 enum tracectl_span_kind kind, const char *name);

/* A root span: a new trace when the sampler samples it. */
static inline void
tracectl_span_start_root(struct tracectl_span *span, enum tracectl_span_kind kind,
			 const char *name)
{
	struct tracectl_span__countdown *countdown = &tracectl_span__countdown_tls;

	if (__builtin_expect(countdown->skip != 0 &&
				     countdown->generation ==
					     __atomic_load_n(&tracectl_span__generation,
							     __ATOMIC_RELAXED),
			     1)) {
		countdown->skip--;
		span->trace_id_hi = 0;
		span->trace_id_lo = 0;
		span->span_id = 0;
		span->parent_span_id = 0;
		span->flags = 0;
		span->kind = (uint8_t)kind;
		span->status = TRACECTL_SPAN_STATUS_UNSET;
		span->tracestate = NULL;
		return;
	}
	tracectl_span__start_root(span, kind, name);
}

/* A child of parent in this process, sampled when the parent is. */
static inline void
tracectl_span_start_child(struct tracectl_span *span, const struct tracectl_span *parent,
			  enum tracectl_span_kind kind, const char *name)
{
	if (tracectl_span_is_sampled(parent)) {
		tracectl_span__start_child(span, parent, kind, name);
		return;
	}
	/* Unsampled: same trace (ids may still be 0), nothing recorded. */
	span->trace_id_hi = parent->trace_id_hi;
	span->trace_id_lo = parent->trace_id_lo;
	span->span_id = 0;
	span->parent_span_id = parent->span_id;
	span->flags = 0;
	span->kind = (uint8_t)kind;
	span->status = TRACECTL_SPAN_STATUS_UNSET;
	span->tracestate = parent->tracestate;
}

/* An annotation (Dapper's timestamped text) at the current time. */
static inline void
tracectl_span_annotate(const struct tracectl_span *span, const char *message)
{
	if (tracectl_span_is_sampled(span))
		tracectl_span__annotate(span, message);
}

/* Typed attributes; a key set twice keeps its last value at export. */
static inline void
tracectl_span_set_int(const struct tracectl_span *span, const char *key, int64_t value)
{
	if (tracectl_span_is_sampled(span))
		tracectl_span__set_int(span, key, value);
}

static inline void
tracectl_span_set_double(const struct tracectl_span *span, const char *key, double value)
{
	if (tracectl_span_is_sampled(span))
		tracectl_span__set_double(span, key, value);
}

static inline void
tracectl_span_set_string(const struct tracectl_span *span, const char *key, const char *value)
{
	if (tracectl_span_is_sampled(span))
		tracectl_span__set_string(span, key, value);
}

static inline void
tracectl_span_set_bool(const struct tracectl_span *span, const char *key, int value)
{
	if (tracectl_span_is_sampled(span))
		tracectl_span__set_bool(span, key, value);
}

/* Marks the span failed (status ERROR) with a message, recorded at once. */
static inline void
tracectl_span_set_error(struct tracectl_span *span, const char *message)
{
	span->status = TRACECTL_SPAN_STATUS_ERROR;
	if (tracectl_span_is_sampled(span))
		tracectl_span__set_error(span, message);
}

/* The other side of a client or producer span (Zipkin's remoteEndpoint). */
static inline void
tracectl_span_set_remote_endpoint(const struct tracectl_span *span, const char *service,
				  const char *address)
{
	if (tracectl_span_is_sampled(span))
		tracectl_span__set_remote_endpoint(span, service, address);
}

/*
 * Links the span to another span's context, as OpenTelemetry's span links:
 * the span of a batch to the context each message carried, a retry to the
 * first attempt's. linked is one tracectl_span_extract() filled (to link a
 * span of this process, inject it and extract what was written); its
 * tracestate goes with the link. Exported as OTLP's Span.links (Zipkin v2
 * has no links: they are left out of its documents).
 */
static inline void
tracectl_span_link(const struct tracectl_span *span, const struct tracectl_span_context *linked)
{
	if (tracectl_span_is_sampled(span))
		tracectl_span__link(span, linked);
}

/* Ends the span: its duration runs from the start event to this one. */
static inline void
tracectl_span_end(const struct tracectl_span *span)
{
	if (tracectl_span_is_sampled(span))
		tracectl_span__end(span);
}

#ifdef __cplusplus
}
#endif

#endif /* TRACECTL_SPAN_H */
