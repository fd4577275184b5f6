/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tracepoint fast path: no lock, no system call, no allocation. What
 * it reads of the state it reads in a read-side section (tc-ust-rcu.h),
 * so that removed channels, bindings and filters are freed only once it
 * is done with them.
 * The CPU number comes from the thread's rseq area (glibc >= 2.35), and
 * the ring buffer reads its clock through the vDSO or with rdtsc.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>

#include "tc-rb.h"
#include "tc-ust-app-context.h"
#include "tc-ust-context.h"
#include "tc-ust-perf-channel.h"
#include "tc-ust-rcu.h"
#include "tc-ust-state.h"

/* A tracepoint may run in a signal handler that interrupted another
 * tracepoint of the same thread; deeper nesting means recursion (a
 * tracepoint inside something the tracer calls) and is dropped. */
#define TC_UST_NESTING_MAX 4
/* Buffers tried for one record: a thread migrates between its choice of
 * buffer and its reservation rarely, twice in a row hardly ever. */
#define TC_UST_PICK_ATTEMPTS 4

/* initial-exec: no __tls_get_addr (which may allocate) on the fast path. */
static __thread unsigned int tc_ust_nesting __attribute__((tls_model("initial-exec")));

/* One record as the probe gave it: its payload's pieces and their bytes
 * (once measured), and the tracepoint's call site for the ip context. */
struct record {
	struct tracectl_ust_piece *pieces;
	unsigned int nr_pieces;
	uint32_t payload;
	uint64_t ip;
};

/* Any CPU number will do if the kernel will not say: it only picks a
 * buffer. */
static int
current_cpu(void)
{
	int cpu;

#ifdef TC_RB_HAVE_RSEQ
	cpu = tc_rb_rseq_cpu();
	if (__builtin_expect(cpu >= 0, 1))
		return cpu;
#endif
	cpu = sched_getcpu();
	return cpu >= 0 ? cpu : 0;
}

/* Measures the strings the probe left unmeasured (TRACECTL_UST_PIECE_STRING),
 * now that the record is to be written, and sums the pieces. */
static size_t
payload_size(struct tracectl_ust_piece *pieces, unsigned int nr_pieces)
{
	size_t total = 0;

	for (unsigned int i = 0; i < nr_pieces; i++) {
		if (pieces[i].len == TRACECTL_UST_PIECE_STRING)
			pieces[i].len = strlen(pieces[i].data) + 1;
		if (__builtin_expect(pieces[i].len > UINT32_MAX - total, 0))
			return UINT32_MAX;
		total += pieces[i].len;
	}
	return total;
}

/* The buffer of this CPU in a binding's channel, or NULL when it is not
 * recording or its buffer has not arrived yet. */
static struct tc_rb *
binding_buffer(const struct tc_ust_binding *binding, unsigned int cpu)
{
	const struct tc_ust_channel *channel = binding->channel;

	if (!__atomic_load_n(&binding->enabled, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&channel->dead, __ATOMIC_ACQUIRE) ||
	    !__atomic_load_n(&channel->session->active, __ATOMIC_ACQUIRE))
		return NULL;
	/* One stream per possible CPU: the division is for CPUs that appeared
	 * after the channel was made, and stays off the common path. */
	if (__builtin_expect(cpu >= channel->nr_streams, 0))
		cpu %= channel->nr_streams;
	return __atomic_load_n(&channel->streams[cpu], __ATOMIC_ACQUIRE);
}

/*
 * Writes the record header, compact or extended (the layout the metadata
 * declares, tc_metadata_append_stream()): one 32-bit word holding the id
 * in its low 5 bits and the low 27 bits of the timestamp above them, or
 * the id 31 in one byte followed by the 32-bit id and the 64-bit timestamp.
 * Returns the header's size.
 */
static uint32_t
write_record_header(const struct tc_rb_ctx *ctx, uint32_t id)
{
	struct tc_event_header_extended extended;
	uint32_t compact;

	if (id >= TC_EVENT_ID_EXTENDED || ctx->full_timestamp) {
		extended.tag = TC_EVENT_EXTENDED_TAG;
		extended.id = id;
		extended.timestamp = ctx->timestamp;
		tc_rb_write(ctx, 0, &extended, sizeof(extended));
		return sizeof(extended);
	}
	compact = tc_event_compact_pack(id, ctx->timestamp);
	tc_rb_write(ctx, 0, &compact, sizeof(compact));
	return sizeof(compact);
}

/* The channel's perf counters follow its other contexts, then its
 * application contexts: the counters are read and the application's
 * callbacks run before the reservation, never while a slot is held. */
static int
write_record(struct tc_rb *rb, uint32_t id, const struct tc_ust_channel *channel,
	     const struct record *record)
{
	const uint32_t extra = sizeof(struct tc_event_header_extended) - sizeof(uint32_t);
	uint8_t context[TC_UST_CONTEXT_MAX + TC_UST_PERF_CHANNEL_BYTES_MAX +
			TC_UST_APP_CONTEXT_BYTES_MAX];
	uint32_t context_size = 0, pos, len;
	struct tc_rb_ctx ctx;
	int ret;

	if (__builtin_expect(channel->contexts != 0, 0))
		context_size = tc_ust_context_fill(channel->contexts, record->ip, context);
	if (__builtin_expect(channel->nr_perf_counters != 0, 0))
		context_size += tc_ust_perf_channel_fill(channel, context + context_size);
	if (__builtin_expect(channel->nr_app_contexts != 0, 0))
		context_size += tc_ust_app_context_fill(channel, context + context_size);
	/* A payload too big for any sub-buffer goes on to be counted. */
	len = record->payload >
		      UINT32_MAX - sizeof(struct tc_event_header_extended) - sizeof(context)
		  ? UINT32_MAX
		  : (uint32_t)sizeof(uint32_t) + context_size + record->payload;
	/* -ENOBUFS and -EMSGSIZE are counted in the buffer's discarded count. */
	if (__builtin_expect(id >= TC_EVENT_ID_EXTENDED, 0))
		ret = tc_rb_reserve(rb, &ctx, len == UINT32_MAX ? len : len + extra);
	else
		ret = tc_rb_reserve_ts(rb, &ctx, len, extra);
	if (ret < 0)
		return ret;
	pos = write_record_header(&ctx, id);
	if (context_size) {
		tc_rb_write(&ctx, pos, context, context_size);
		pos += context_size;
	}
	for (unsigned int i = 0; i < record->nr_pieces; i++) {
		tc_rb_write(&ctx, pos, record->pieces[i].data, (uint32_t)record->pieces[i].len);
		pos += (uint32_t)record->pieces[i].len;
	}
	tc_rb_commit(&ctx);
	if (__builtin_expect(ctx.closed_packet, 0))
		tc_rb_wake_reader(rb);
	return 0;
}

/*
 * Writes the record into the binding's buffer of the CPU the thread runs
 * on. A thread that left that CPU before its reservation was done picks
 * the buffer of its new one (-EAGAIN, tc_rb_move_position()); one that
 * keeps doing so, or runs on a CPU whose buffer is another's (more CPUs
 * than the channel has buffers), loses its event, counted.
 */
static void
write_to_binding(const struct tc_ust_binding *binding, int cpu, const struct record *record)
{
	struct tc_rb *rb = NULL;

	for (int attempt = 0; attempt < TC_UST_PICK_ATTEMPTS; attempt++) {
		if (attempt > 0)
			cpu = current_cpu();
		rb = binding_buffer(binding, (unsigned int)cpu);
		if (!rb)
			return;
		if (write_record(rb, __atomic_load_n(&binding->id, __ATOMIC_RELAXED),
				 binding->channel, record) != -EAGAIN)
			return;
	}
	tc_rb_discard(rb);
}

/* An event-rule trigger's match: one atomic add in the shared page, which
 * the service reads; no system call. */
static void
count_in_notifiers(const struct tc_ust_entry *entry, const struct record *record)
{
	for (struct tc_ust_binding *b = __atomic_load_n(&entry->bindings, __ATOMIC_ACQUIRE); b;
	     b = __atomic_load_n(&b->next, __ATOMIC_ACQUIRE)) {
		const struct tc_ust_channel *channel = b->channel;
		const struct tc_ust_filter *filter = __atomic_load_n(&b->filter, __ATOMIC_ACQUIRE);

		if (channel->notifier == NULL || !__atomic_load_n(&b->enabled, __ATOMIC_ACQUIRE) ||
		    __atomic_load_n(&channel->dead, __ATOMIC_ACQUIRE) ||
		    (filter && !tc_ust_filter_run(filter, record->pieces, record->nr_pieces,
						   record->ip)))
			continue;
		__atomic_fetch_add(&channel->notifier->count, 1, __ATOMIC_RELAXED);
	}
}

/* The records of the event's bindings, filtered, then its notifiers'
 * counts. */
static void
emit(struct tracectl_ust_event *event, struct record *record)
{
	struct tc_ust_entry *entry = __atomic_load_n(&event->priv, __ATOMIC_ACQUIRE);
	int cpu = -1;
	unsigned int nr_notifiers = 0;
	uint32_t phase;

	if (__builtin_expect(!entry || tc_ust_nesting >= TC_UST_NESTING_MAX, 0))
		return;
	tc_ust_nesting++;
	/* A signal handler of this thread must see the increment. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	phase = tc_ust_rcu_read_lock();

	for (struct tc_ust_binding *b = __atomic_load_n(&entry->bindings, __ATOMIC_ACQUIRE); b;
	     b = __atomic_load_n(&b->next, __ATOMIC_ACQUIRE)) {
		const struct tc_ust_filter *filter;

		if (__builtin_expect(b->channel->notifier != NULL, 0)) {
			nr_notifiers++;
			continue;
		}
		filter = __atomic_load_n(&b->filter, __ATOMIC_ACQUIRE);
		/* First of all: an event its filter rejects costs neither the
		 * CPU number, nor the payload's size (its strings are not even
		 * measured), nor buffer space, and is not counted as
		 * discarded. */
		if (filter &&
		    !tc_ust_filter_run(filter, record->pieces, record->nr_pieces, record->ip))
			continue;
		if (cpu < 0) {
			record->payload =
			    (uint32_t)payload_size(record->pieces, record->nr_pieces);
			cpu = current_cpu();
		}
		write_to_binding(b, cpu, record);
	}
	/* Counted once recorded, so that a trigger that snapshots the
	 * session finds the event in its buffers. */
	if (__builtin_expect(nr_notifiers > 0, 0))
		count_in_notifiers(entry, record);

	tc_ust_rcu_read_unlock(phase);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	tc_ust_nesting--;
}

void TRACECTL_UST_EXPORT
tracectl_ust_emit_ip(struct tracectl_ust_event *event, struct tracectl_ust_piece *pieces,
		     unsigned int nr_pieces, const void *ip)
{
	struct record record = {pieces, nr_pieces, 0, (uint64_t)(uintptr_t)ip};

	emit(event, &record);
}

/* The probes of modules built before tracectl_ust_emit_ip(): the call
 * site they do not give is taken as the address in their probe function,
 * which names the event's module and probe, if not the line. */
void TRACECTL_UST_EXPORT
tracectl_ust_emit(struct tracectl_ust_event *event, struct tracectl_ust_piece *pieces,
		  unsigned int nr_pieces)
{
	struct record record = {pieces, nr_pieces, 0,
				(uint64_t)(uintptr_t)__builtin_return_address(0)};

	emit(event, &record);
}
