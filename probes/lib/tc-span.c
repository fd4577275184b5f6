/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The span API of tracectl/span.h: starts, ends and the rest of a sampled
 * span as tracectl_span events; the sampler's configuration; W3C Trace
 * Context in and out. Nothing here locks or makes a system call after the
 * library's constructor, except the rate sampler's clock read (vDSO) and a
 * thread's first draw of an id (getrandom(), once).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tracectl/span.h>

#include "tc-span-random.h"
#include "tc-span-sampler.h"
#include "tc-span-tp.h"
#include "tc-span-w3c.h"

#define ENDPOINT_MAX 128

/* Every root span sampled until configured otherwise. */
static struct tc_span_sampler sampler = { .threshold = UINT64_MAX };
static char endpoint_service[ENDPOINT_MAX];
static char endpoint_address[ENDPOINT_MAX];

static void
copy_truncated(char *out, const char *in)
{
	size_t length = in ? strnlen(in, ENDPOINT_MAX - 1) : 0;

	memcpy(out, in ? in : "", length);
	out[length] = '\0';
}

void TRACECTL_SPAN_API
tracectl_span_set_endpoint(const char *service, const char *address)
{
	copy_truncated(endpoint_service, service);
	copy_truncated(endpoint_address, address);
}

int TRACECTL_SPAN_API
tracectl_span_sampler_configure(const char *spec)
{
	struct tc_span_sampler parsed = { 0 };
	int ret = tc_span_sampler_parse(&parsed, spec);

	if (ret < 0)
		return ret;
	__atomic_store_n(&sampler.next_ns, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&sampler.interval_ns, parsed.interval_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&sampler.threshold, parsed.threshold, __ATOMIC_RELAXED);
	__atomic_add_fetch(&tracectl_span__generation, 1, __ATOMIC_RELAXED);
	return 0;
}

static void __attribute__((constructor))
span_library_init(void)
{
	const char *spec = secure_getenv("TRACECTL_SPAN_SAMPLE");

	if (spec && *spec)
		tracectl_span_sampler_configure(spec);
	copy_truncated(endpoint_service, program_invocation_short_name);
}

static uint64_t
monotonic_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now); /* vDSO */
	return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* A thread's first root, or the first since the sampler changed: the
 * countdown starts over. Then, at a sampled root, the next skip. */
static __attribute__((noinline)) int
countdown_restart(struct tracectl_span__countdown *countdown, uint64_t threshold,
		  uint64_t generation)
{
	if (countdown->generation != generation) {
		countdown->generation = generation;
		countdown->skip = tc_span_sampler_draw_skip(threshold);
		if (countdown->skip > 0) {
			countdown->skip--;
			return 0;
		}
	}
	countdown->skip = tc_span_sampler_draw_skip(threshold);
	return 1;
}

static inline int
sampler_decides(void)
{
	uint64_t threshold = __atomic_load_n(&sampler.threshold, __ATOMIC_RELAXED);

	if (__builtin_expect(threshold != 0, 1)) {
		struct tracectl_span__countdown *countdown = &tracectl_span__countdown_tls;
		uint64_t generation = __atomic_load_n(&tracectl_span__generation, __ATOMIC_RELAXED);

		if (threshold == UINT64_MAX)
			return 1;
		if (__builtin_expect(countdown->generation == generation && countdown->skip > 0, 1)) {
			countdown->skip--;
			return 0;
		}
		return countdown_restart(countdown, threshold, generation);
	}
	if (__atomic_load_n(&sampler.interval_ns, __ATOMIC_RELAXED) == 0)
		return 0;
	return tc_span_sampler_decide_rate(&sampler, monotonic_ns());
}

static void
record_start(const struct tracectl_span *span, const char *name)
{
	tracectl_tracepoint(tracectl_span, start, span->trace_id_hi, span->trace_id_lo,
			    span->span_id, span->parent_span_id, span->kind, span->flags, name,
			    endpoint_service, endpoint_address);
}

/* Only a child can continue a tracestate: a root has none, so its start
 * path does not even test for one. */
static void
record_tracestate(const struct tracectl_span *span)
{
	tracectl_tracepoint(tracectl_span, tracestate, span->span_id, span->tracestate);
}

static void
set_unsampled(struct tracectl_span *span, enum tracectl_span_kind kind)
{
	*span = (struct tracectl_span){ .kind = (uint8_t)kind };
}

/* Static, so that the exported entry points reach it without a PLT jump. */
static void
start_sampled_root(struct tracectl_span *span, enum tracectl_span_kind kind, const char *name)
{
	do {
		span->trace_id_hi = tc_span_random_next();
		span->trace_id_lo = tc_span_random_next();
	} while (__builtin_expect((span->trace_id_hi | span->trace_id_lo) == 0, 0));
	span->span_id = tc_span_random_id();
	span->parent_span_id = 0;
	span->flags = TRACECTL_SPAN_FLAG_SAMPLED;
	span->kind = (uint8_t)kind;
	span->status = TRACECTL_SPAN_STATUS_UNSET;
	span->tracestate = NULL;
	record_start(span, name);
}

void TRACECTL_SPAN_API
tracectl_span_start_root_decided(struct tracectl_span *span, enum tracectl_span_kind kind,
				 const char *name, int sample)
{
	if (sample)
		start_sampled_root(span, kind, name);
	else
		set_unsampled(span, kind);
}

void TRACECTL_SPAN_API
tracectl_span__start_root(struct tracectl_span *span, enum tracectl_span_kind kind,
			  const char *name)
{
	if (sampler_decides())
		start_sampled_root(span, kind, name);
	else
		set_unsampled(span, kind);
}

void TRACECTL_SPAN_API
tracectl_span__start_child(struct tracectl_span *span, const struct tracectl_span *parent,
			   enum tracectl_span_kind kind, const char *name)
{
	span->trace_id_hi = parent->trace_id_hi;
	span->trace_id_lo = parent->trace_id_lo;
	span->span_id = tc_span_random_id();
	span->parent_span_id = parent->span_id;
	span->flags = parent->flags;
	span->kind = (uint8_t)kind;
	span->status = TRACECTL_SPAN_STATUS_UNSET;
	span->tracestate = parent->tracestate;
	if (tracectl_span_is_sampled(span)) {
		record_start(span, name);
		if (__builtin_expect(span->tracestate && *span->tracestate, 0))
			record_tracestate(span);
	}
}

/* The remote span is a parent of this process's span: its ids and flags
 * carry on, a fresh span id is drawn even when unsampled, so that the next
 * hop sees this span and not the caller's as its parent. */
void TRACECTL_SPAN_API
tracectl_span_start_remote(struct tracectl_span *span, const struct tracectl_span_context *remote,
			   enum tracectl_span_kind kind, const char *name)
{
	const struct tracectl_span parent = {
		.trace_id_hi = remote->trace_id_hi,
		.trace_id_lo = remote->trace_id_lo,
		.span_id = remote->span_id,
		.flags = remote->flags & TRACECTL_SPAN_FLAG_SAMPLED,
		.tracestate = remote->tracestate,
	};

	tracectl_span__start_child(span, &parent, kind, name);
}

void TRACECTL_SPAN_API
tracectl_span__annotate(const struct tracectl_span *span, const char *message)
{
	tracectl_tracepoint(tracectl_span, annotation, span->span_id, message);
}

void TRACECTL_SPAN_API
tracectl_span__set_int(const struct tracectl_span *span, const char *key, int64_t value)
{
	tracectl_tracepoint(tracectl_span, attr_int, span->span_id, key, value);
}

void TRACECTL_SPAN_API
tracectl_span__set_double(const struct tracectl_span *span, const char *key, double value)
{
	tracectl_tracepoint(tracectl_span, attr_double, span->span_id, key, value);
}

void TRACECTL_SPAN_API
tracectl_span__set_string(const struct tracectl_span *span, const char *key, const char *value)
{
	tracectl_tracepoint(tracectl_span, attr_string, span->span_id, key, value);
}

void TRACECTL_SPAN_API
tracectl_span__set_bool(const struct tracectl_span *span, const char *key, int value)
{
	tracectl_tracepoint(tracectl_span, attr_bool, span->span_id, key, value);
}

void TRACECTL_SPAN_API
tracectl_span__set_error(struct tracectl_span *span, const char *message)
{
	tracectl_tracepoint(tracectl_span, error, span->span_id, message);
}

void TRACECTL_SPAN_API
tracectl_span__set_remote_endpoint(const struct tracectl_span *span, const char *service,
				   const char *address)
{
	tracectl_tracepoint(tracectl_span, remote, span->span_id, service ? service : "",
			    address ? address : "");
}

void TRACECTL_SPAN_API
tracectl_span__link(const struct tracectl_span *span, const struct tracectl_span_context *linked)
{
	/* The context may come from anywhere: its tracestate is bounded as
	 * tracectl_span_extract() leaves it. */
	char tracestate[TRACECTL_TRACESTATE_SIZE];

	memcpy(tracestate, linked->tracestate, sizeof(tracestate));
	tracestate[sizeof(tracestate) - 1] = '\0';
	tracectl_tracepoint(tracectl_span, link, span->span_id, linked->trace_id_hi,
			    linked->trace_id_lo, linked->span_id, linked->flags, tracestate);
}

void TRACECTL_SPAN_API
tracectl_span__end(const struct tracectl_span *span)
{
	tracectl_tracepoint(tracectl_span, end, span->span_id, span->status);
}

/* An unsampled span without ids (tracectl/span.h, "Ids") gets them now. */
static void
draw_missing_ids(struct tracectl_span *span)
{
	if ((span->trace_id_hi | span->trace_id_lo) == 0) {
		span->trace_id_hi = tc_span_random_next();
		span->trace_id_lo = tc_span_random_id();
	}
	if (span->span_id == 0)
		span->span_id = tc_span_random_id();
}

int TRACECTL_SPAN_API
tracectl_span_inject(struct tracectl_span *span, char *traceparent, char *tracestate,
		     size_t tracestate_size)
{
	struct tc_span_traceparent out;
	const char *state = span->tracestate ? span->tracestate : "";

	draw_missing_ids(span);
	out = (struct tc_span_traceparent){ span->trace_id_hi, span->trace_id_lo, span->span_id,
					    (uint8_t)(span->flags & TRACECTL_SPAN_FLAG_SAMPLED) };
	tc_span_traceparent_format(&out, traceparent);
	if (!tracestate || tracestate_size == 0)
		return tracestate && *state ? -ENOSPC : 0;
	if (strlen(state) >= tracestate_size) {
		tracestate[0] = '\0';
		return -ENOSPC;
	}
	strcpy(tracestate, state);
	return 0;
}

int TRACECTL_SPAN_API
tracectl_span_extract(struct tracectl_span_context *remote, const char *traceparent,
		      const char *tracestate)
{
	struct tc_span_traceparent in;

	memset(remote, 0, sizeof(*remote));
	if (tc_span_traceparent_parse(traceparent, &in) < 0)
		return -EINVAL;
	remote->trace_id_hi = in.trace_id_hi;
	remote->trace_id_lo = in.trace_id_lo;
	remote->span_id = in.parent_id;
	remote->flags = in.flags;
	/* An invalid tracestate is dropped; the traceparent still holds. */
	tc_span_tracestate_normalize(tracestate, remote->tracestate, sizeof(remote->tracestate));
	return 0;
}
