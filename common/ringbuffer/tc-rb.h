/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The per-CPU ring buffer shared by an application (the writer) and the
 * session owner's tracectl-consumerd (the reader), in discard or overwrite
 * (flight recorder) mode, after sections 3-4 of Mathieu Desnoyers and
 * Michel R. Dagenais, "Lockless multi-core high-throughput buffering
 * scheme for kernel tracing", ACM SIGOPS Operating Systems Review 46(3),
 * 2012. docs/ring-buffer.md describes the design.
 *
 * One buffer lives in one memfd that the consumer creates:
 *
 *   [ struct tc_rb_shm (one page) | commit counters | sub-buffers ... ]
 *
 * - write_offset is the free-running write count (wcnt). Writers reserve
 *   with a compare-and-swap loop; the slot is theirs once the CAS succeeds.
 *   On the buffer's CPU the swap is a restartable sequence without a
 *   locked instruction, unless locked_moves says someone elsewhere moves
 *   the position too (tc_rb_move_position()).
 * - consumed is the free-running read count (rcnt), written by the reader
 *   only, with release ordering once a sub-buffer's bytes are out.
 * - commit[i] is the free-running commit count of sub-buffer i, the sum of
 *   two counters (tc-rb-rseq.h): every byte reserved in it is eventually
 *   committed (event slots, the packet header, the end padding), so
 *   sub-buffer i of round r is complete when its count reaches
 *   (r + 1) * subbuf_size (equation 2 of the paper). Commits are adds
 *   that cannot be torn (a restartable sequence on the buffer's CPU, a
 *   locked add elsewhere) and may land in any order, so an event written
 *   from a signal handler that interrupted another event's write is fine.
 * - A sub-buffer is one CTF packet: struct tc_packet_header at its start,
 *   written by the writer that opens it (begin fields) and by whoever
 *   closes it (end fields), then event records, then padding.
 *
 * - In discard mode consumed is written by the reader only and a writer that
 *   finds the reader a whole buffer behind drops its event (Buffer Full,
 *   equation 1). In overwrite mode (TC_RB_FLAG_OVERWRITE) the writer that
 *   opens a sub-buffer still holding unread data pushes the reader instead:
 *   it moves consumed past that sub-buffer with a CAS before writing a byte
 *   of it, so the newest data survives. Such a writer only opens a
 *   sub-buffer whose previous round is Fully Committed (equation 3), or
 *   drops its event. The reader copies a sub-buffer out, then re-reads
 *   consumed: if a writer pushed it meanwhile the copy may be torn and is
 *   thrown away (the seqlock pattern). Lost sub-buffers show as gaps in
 *   packet_seq_num, which babeltrace2 reports as discarded packets.
 *
 * The reader treats all of this memory as hostile: the application can
 * write anything into it. It copies a complete sub-buffer out before
 * checking it and never uses a size or offset from shared memory unchecked.
 */
#ifndef TC_RB_H
#define TC_RB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <assert.h>

#include "tc-rb-rseq.h"

#define TC_RB_MAGIC 0x54435242u /* "TCRB" */
#define TC_RB_VERSION 5u /* 2: last_timestamp; 3: moved with write_offset;
			   4: local and remote commit counts; 5: locked_moves */
#define TC_RB_HEADER_SIZE 4096u
#define TC_RB_CACHELINE 64u

#define TC_RB_SUBBUF_SIZE_MIN 4096u
#define TC_RB_SUBBUF_SIZE_MAX (64u << 20)
#define TC_RB_NUM_SUBBUF_MIN 2u
#define TC_RB_NUM_SUBBUF_MAX 1024u

#define TC_CTF_MAGIC 0xC1FC1FC1u

/* tc_rb_shm.flags, set by the consumer at creation. 0 is discard mode. */
#define TC_RB_FLAG_OVERWRITE 0x1u /* flight recorder: writers push the reader */
/* Timestamps are the x86 time-stamp counter (tc_rb_tsc()), not
 * CLOCK_MONOTONIC nanoseconds: the session's trace clock. */
#define TC_RB_FLAG_CLOCK_TSC 0x2u
#define TC_RB_FLAGS_KNOWN (TC_RB_FLAG_OVERWRITE | TC_RB_FLAG_CLOCK_TSC)

/* The CTF packet header and context at the start of every sub-buffer. */
struct tc_packet_header {
	/* trace.packet.header */
	uint32_t magic;
	uint8_t uuid[16];
	uint32_t stream_id;
	uint64_t stream_instance_id; /* the CPU */
	/* stream.packet.context */
	uint64_t timestamp_begin;
	uint64_t timestamp_end;
	uint64_t content_size;     /* bits */
	uint64_t packet_size;      /* bits */
	uint64_t packet_seq_num;   /* sub-buffer number since the stream began */
	/* Free-running count for the stream, never below the packet before's:
	 * read before the move that ends the packet (tc-rb.c). */
	uint64_t events_discarded;
	uint32_t cpu_id;
} __attribute__((packed));

/* Kernel event records (tracectl-consumerd's kernel streams) start with
 * this header, then their payload, packed. */
struct tc_event_header {
	uint32_t id;
	uint64_t timestamp;
} __attribute__((packed));

/*
 * User-space event records start with a compact header, one 32-bit word:
 * the id in bits 0-4 and the low TC_RB_COMPACT_TS_BITS bits of the
 * timestamp in bits 5-31; or, for ids from 31 up and for records that need
 * their full timestamp, this extended header. Then the payload, packed.
 */
#define TC_EVENT_ID_BITS 5u
/* A record whose timestamp is less than 2^27 clock ticks after the one
 * before it in the stream (134 ms in ns, 52 ms of a 2.6 GHz TSC) can carry
 * only those low bits; CTF readers restore the rest. */
#define TC_RB_COMPACT_TS_BITS 27u
#define TC_EVENT_ID_EXTENDED 31u /* the tag of the extended header */

struct tc_event_header_extended {
	uint8_t tag; /* TC_EVENT_EXTENDED_TAG */
	uint32_t id;
	uint64_t timestamp;
} __attribute__((packed));

/* CTF packs bit fields from the least significant bit of the first byte
 * in little-endian traces and from the most significant one in big-endian
 * traces: the id is the first field of both headers. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TC_EVENT_EXTENDED_TAG ((uint8_t)TC_EVENT_ID_EXTENDED)
static inline uint32_t
tc_event_compact_pack(uint32_t id, uint64_t timestamp)
{
	return id | (uint32_t)(timestamp << TC_EVENT_ID_BITS);
}

static inline uint32_t
tc_event_compact_id(uint32_t word)
{
	return word & ((1u << TC_EVENT_ID_BITS) - 1);
}

static inline uint32_t
tc_event_compact_timestamp(uint32_t word)
{
	return word >> TC_EVENT_ID_BITS;
}
#else
#define TC_EVENT_EXTENDED_TAG ((uint8_t)(TC_EVENT_ID_EXTENDED << 3))
static inline uint32_t
tc_event_compact_pack(uint32_t id, uint64_t timestamp)
{
	return id << TC_RB_COMPACT_TS_BITS |
	       ((uint32_t)timestamp & ((1u << TC_RB_COMPACT_TS_BITS) - 1));
}

static inline uint32_t
tc_event_compact_id(uint32_t word)
{
	return word >> TC_RB_COMPACT_TS_BITS;
}

static inline uint32_t
tc_event_compact_timestamp(uint32_t word)
{
	return word & ((1u << TC_RB_COMPACT_TS_BITS) - 1);
}
#endif

/*
 * The timestamp a CTF reader restores from the low bits of a compact
 * header, given the stream's clock before the record (the record before
 * it, or the packet's timestamp_begin): the same high bits, plus one wrap
 * of the low ones when they went back.
 */
static inline uint64_t
tc_event_compact_restore(uint64_t clock, uint32_t low_bits)
{
	const uint64_t mask = (1ull << TC_RB_COMPACT_TS_BITS) - 1;
	uint64_t timestamp = (clock & ~mask) | low_bits;

	return timestamp < clock ? timestamp + mask + 1 : timestamp;
}

/* A sub-buffer's commit count is count + remote (tc-rb-rseq.h). */
struct tc_rb_commit {
	uint64_t count;  /* added to on the buffer's CPU only, by rseq */
	uint64_t remote; /* added to from anywhere, locked */
	uint8_t pad[TC_RB_CACHELINE - 2 * sizeof(uint64_t)];
};

/* Header page of one buffer. Fields above the first cache line are set
 * by the consumer at creation and never change. */
struct tc_rb_shm {
	uint32_t magic;
	uint32_t version;
	uint32_t subbuf_size; /* power of two */
	uint32_t num_subbuf;  /* power of two */
	uint32_t cpu;
	uint32_t stream_id;
	uint64_t shm_size;    /* whole mapping */
	uint64_t data_offset; /* of sub-buffer 0, page aligned */
	uint8_t uuid[16];
	uint32_t flags; /* TC_RB_FLAG_*; was padding (0) before overwrite mode */
	uint8_t pad0[TC_RB_CACHELINE - 60];

	/* The position: write_offset and the timestamp of the reservation
	 * that moved it last, swapped together (tc_rb_cas_position()). */
	uint64_t write_offset;
	uint64_t last_timestamp;
	/* Non-zero while someone may move the position with a locked swap
	 * from any CPU (tc_rb_move_position()): writers on the buffer's CPU
	 * then swap with a locked instruction too. In the position's cache
	 * line, which every reservation holds anyway. */
	uint32_t locked_moves;
	uint8_t pad1[TC_RB_CACHELINE - 20];
	uint64_t consumed;
	uint8_t pad2[TC_RB_CACHELINE - 8];
	uint64_t events_discarded;
	/* Overwrite mode: sub-buffers writers pushed the reader past, unread.
	 * Informative only (monitoring); the reader counts its own. */
	uint64_t packets_overwritten;
	uint8_t pad3[TC_RB_CACHELINE - 16];
};

static_assert(sizeof(struct tc_rb_shm) == 4 * TC_RB_CACHELINE, "shm header layout");
static_assert(offsetof(struct tc_rb_shm, write_offset) % 16 == 0 &&
		      offsetof(struct tc_rb_shm, last_timestamp) ==
			      offsetof(struct tc_rb_shm, write_offset) + 8,
	      "the position is one aligned 16-byte unit");
static_assert(sizeof(struct tc_packet_header) == 84, "packet header layout");
static_assert(sizeof(struct tc_event_header) == 12, "event header layout");
static_assert(sizeof(struct tc_event_header_extended) == 13, "extended header layout");
static_assert(TC_EVENT_ID_BITS + TC_RB_COMPACT_TS_BITS == 32, "compact header layout");

/* A mapped buffer, private to the process that mapped it. */
struct tc_rb {
	struct tc_rb_shm *shm;
	struct tc_rb_commit *commit;
	uint8_t *data;
	uint32_t subbuf_size; /* validated copies, never re-read from shm */
	uint32_t num_subbuf;
	uint64_t shm_size;
	uint32_t flags; /* TC_RB_FLAG_*, checked copy */
	uint32_t subbuf_shift; /* log2(subbuf_size) */
	uint64_t buffer_mask;  /* subbuf_size * num_subbuf - 1 */
	/* The reader's eventfd, written when a reservation closes a
	 * sub-buffer (tc_rb_wake_reader()); -1 for none. Not shared. */
	int wake_fd;
	/* The CPU whose writers commit locally (tc-rb-rseq.h): shm->cpu for
	 * writers, the reader's own copy for the reader. */
	uint32_t cpu;
	/* The processor has prefetchw (tc_rb_prefetch_for_write()). */
	bool prefetch_write;
	/* Writers of this process pick the buffer of the CPU they run on, and
	 * pick again on -EAGAIN (tc_rb_move_position()); they are never moved
	 * to another CPU (tc_rb_enter_remote()). */
	bool picks_by_cpu;
	/* And they move the position in restartable sequences on cpu. Both
	 * set by the caller after tc_rb_attach(), which leaves them false. */
	bool move_locally;
	/* This process has raised shm->locked_moves for good (once), and seen
	 * it take hold on cpu: its locked moves are safe (tc_rb_enter_remote()). */
	bool lock_out_raised;
	bool remote_ready;
	/* cpu is a CPU this machine can have: nothing ever runs on another. */
	bool cpu_possible;
};

/* Both sides. */
uint64_t tc_rb_shm_size(uint32_t subbuf_size, uint32_t num_subbuf);
/* Checks a mapping against its size and fills rb (geometry and mode).
 * Returns 0 or -EINVAL (unknown flags included); on x86-64, -ENOTSUP on a
 * processor without cmpxchg16b (tc_rb_cas_position()). */
int tc_rb_attach(struct tc_rb *rb, void *mapping, uint64_t mapping_size);

/* Consumer: lays out a fresh buffer in a zeroed mapping of
 * tc_rb_shm_size() bytes, in discard mode. Returns 0 or -EINVAL for bad
 * geometry. Same as tc_rb_init_mode(..., 0). */
int tc_rb_init(void *mapping, uint32_t subbuf_size, uint32_t num_subbuf, uint32_t cpu,
	       uint32_t stream_id, const uint8_t uuid[16]);
/* Same, with flags: 0 (discard) or TC_RB_FLAG_OVERWRITE (flight recorder).
 * Returns 0, or -EINVAL for bad geometry or unknown flags. The mode is fixed
 * for the life of the buffer. */
int tc_rb_init_mode(void *mapping, uint32_t subbuf_size, uint32_t num_subbuf, uint32_t cpu,
		    uint32_t stream_id, const uint8_t uuid[16], uint32_t flags);

/* Writer: a reservation in progress. */
struct tc_rb_ctx {
	struct tc_rb *rb;
	uint64_t offset;    /* of the first byte of the record */
	uint32_t slot_size; /* bytes to commit, record included */
	uint64_t timestamp;
	uint8_t *slot;          /* the record's first byte in the mapping */
	struct tc_rb_commit *commit; /* of the record's sub-buffer */
	bool closed_packet;     /* this reservation closed a sub-buffer */
	/* The record needs its full timestamp: tc_rb_reserve_ts() added
	 * full_ts_extra bytes to it. */
	bool full_timestamp;
};

/*
 * Reserves len bytes (event header included) and reads the timestamp
 * inside the reservation loop. No lock, no system call.
 * Returns 0, -ENOBUFS when the buffer is full in discard mode, or in
 * overwrite mode when the sub-buffer to reuse still has a reservation in
 * progress from a whole buffer ago (the loss is counted in events_discarded),
 * -EMSGSIZE when len cannot fit a sub-buffer (counted too), -EINVAL when
 * len is 0, -EAGAIN when the calling thread does not run on the buffer's
 * CPU and must pick the buffer of its own (move_locally; not counted).
 */
int tc_rb_reserve_slow(struct tc_rb *rb, struct tc_rb_ctx *ctx, uint32_t len,
		       uint32_t full_ts_extra);
/* CLOCK_MONOTONIC in ns: the trace clock of buffers without
 * TC_RB_FLAG_CLOCK_TSC, and the consumer's clock for its own timers.
 * Inline: the tracepoint calls it for every record. The model test
 * provides its own. */
#ifdef TC_RB_MODEL_CHECK
uint64_t tc_rb_clock_now(void);
#else
static inline uint64_t
tc_rb_clock_now(void)
{
	struct timespec now;

	/* vDSO on Linux: no system call. */
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}
#endif

/*
 * The time-stamp counter as the writers read it: a bare rdtsc, which may
 * run ahead of the loads before it, by the depth of the processor's
 * out-of-order window. The fence that would prevent it costs as much as
 * the rest of a reservation (docs/performance.md);
 * tc_rb_clamp_timestamp() repairs what it can break. A third of the cost of
 * clock_gettime(), which reads the same counter through the vDSO, fenced,
 * and converts it. Only on x86-64, where the service sets
 * TC_RB_FLAG_CLOCK_TSC.
 */
static inline uint64_t
tc_rb_tsc_unordered(void)
{
#if defined(__x86_64__)
	uint32_t low, high;

	__asm__ volatile("rdtsc" : "=a"(low), "=d"(high) : : "memory");
	return (uint64_t)high << 32 | low;
#else
	return tc_rb_clock_now();
#endif
}

/* The same, ordered after the loads before it (lfence): for pairing it
 * with another clock (the service's trace clock description). */
static inline uint64_t
tc_rb_tsc(void)
{
#if defined(__x86_64__)
	__asm__ volatile("lfence" : : : "memory");
#endif
	return tc_rb_tsc_unordered();
}

/* A timestamp on the buffer's trace clock. */
static inline uint64_t
tc_rb_timestamp(const struct tc_rb *rb)
{
#ifdef TC_RB_MODEL_CHECK
	(void)rb;
	return tc_rb_clock_now();
#else
	return (rb->flags & TC_RB_FLAG_CLOCK_TSC) ? tc_rb_tsc_unordered() : tc_rb_clock_now();
#endif
}

/*
 * How far behind the buffer's last timestamp a clock reading may be and
 * still be taken for the same instant: far more than an out-of-order
 * window (a few hundred instructions), far less than a scribbled value.
 */
#define TC_RB_CLOCK_SLACK (1ull << 16)

/*
 * The timestamp for a move of the position whose last timestamp is last.
 * A clock read that ran ahead of the load of the position can be older than
 * the reservation that moved the position there, on another CPU; it then
 * takes that reservation's timestamp, so that physically consecutive
 * records never go back in time. Compared with the exact timestamp of the
 * reservation before, because the position and its timestamp move together
 * (tc_rb_cas_position()). A reading far older than last (an application
 * that scribbled on its buffer) is left alone; the record then takes a
 * full timestamp.
 */
static inline uint64_t
tc_rb_clamp_timestamp(uint64_t timestamp, uint64_t last)
{
	if (__builtin_expect(timestamp < last && last - timestamp <= TC_RB_CLOCK_SLACK, 0))
		return last;
	return timestamp;
}

/*
 * Moves the position from (*offset, *timestamp) to (new_offset,
 * new_timestamp) if it is still there; otherwise loads the current one
 * into *offset and *timestamp and returns false. Acquire-release.
 *
 * exact (buffers on the TSC, read without a fence; x86-64): one lock
 * cmpxchg16b, so that a reservation that succeeds knows the exact
 * timestamp of the one before it, which tc_rb_clamp_timestamp() needs.
 *
 * Otherwise (CLOCK_MONOTONIC, read in order by clock_gettime(), whose
 * vDSO fences the counter read; and every buffer off x86-64): the offset
 * alone is swapped, and the timestamp stored after it, relaxed. It can be
 * seen late, hence older than the record before: harmless, an older last
 * only makes full timestamps more likely. It is never newer than the
 * record before for a move that succeeds: a newer one was stored after
 * the offset had moved on, so the swap fails. Cheaper than the
 * double-width swap.
 *
 * The exhaustive interleaving test checks both, each with its clock: read
 * ahead of the loads for the first, in order for the second.
 */
#ifdef TC_RB_MODEL_CHECK
void tc_rb_model_yield(void); /* tests/unit/ringbuffer/tc-rb-model.h */
#endif

static inline bool
tc_rb_cas_position(struct tc_rb_shm *shm, uint64_t *offset, uint64_t *timestamp,
		   uint64_t new_offset, uint64_t new_timestamp, bool exact)
{
#if defined(TC_RB_MODEL_CHECK)
	/* The same two protocols, in plain C (the exhaustive test runs one
	 * coroutine at a time), with a scheduling point between the offset's
	 * move and the timestamp's store of the single-width one. */
	if (shm->write_offset != *offset || (exact && shm->last_timestamp != *timestamp)) {
		*offset = shm->write_offset;
		*timestamp = shm->last_timestamp;
		return false;
	}
	shm->write_offset = new_offset;
	if (!exact)
		tc_rb_model_yield();
	shm->last_timestamp = new_timestamp;
	return true;
#else
#if defined(__x86_64__)
	if (exact) {
		bool moved;

		__asm__ volatile("lock cmpxchg16b %1"
				 : "=@ccz"(moved),
				   "+m"(*(volatile unsigned __int128 *)&shm->write_offset),
				   "+a"(*offset), "+d"(*timestamp)
				 : "b"(new_offset), "c"(new_timestamp)
				 : "memory");
		return moved;
	}
#else
	(void)exact;
#endif
	if (!__atomic_compare_exchange_n(&shm->write_offset, offset, new_offset, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		*timestamp = __atomic_load_n(&shm->last_timestamp, __ATOMIC_RELAXED);
		return false;
	}
	__atomic_store_n(&shm->last_timestamp, new_timestamp, __ATOMIC_RELAXED);
	return true;
#endif
}

/* Are the buffer's timestamps read without a fence (tc_rb_cas_position())? */
static inline bool
tc_rb_unordered_clock(const struct tc_rb *rb)
{
	return (rb->flags & TC_RB_FLAG_CLOCK_TSC) != 0;
}

/* What tc_rb_move_position() did. */
enum tc_rb_move {
	TC_RB_MOVED,
	TC_RB_MOVE_CHANGED,   /* the position was elsewhere, now loaded */
	TC_RB_MOVE_ELSEWHERE, /* wrong CPU for this buffer: pick it again */
};

/*
 * Writers of this process that cannot move rb's position in a restartable
 * sequence on its CPU (no rseq area, a CPU that is not the buffer's, or
 * move_locally unset) lock such moves out for good, then wait until the
 * lock-out has taken hold on the buffer's CPU. Returns false when it could
 * not see it take hold (the caller's thread is not on that CPU and cannot
 * go there); the caller then picks a buffer again. Out of line: once per
 * process and buffer.
 */
bool tc_rb_enter_remote(struct tc_rb *rb);

/*
 * Moves the position of a writer's buffer; see tc_rb_cas_position() for
 * the two protocols and their timestamps.
 *
 * Buffers whose clock is read in order (CLOCK_MONOTONIC), written by
 * threads that run on the buffer's CPU (move_locally) while nobody else
 * moves the position (shm->locked_moves is 0): a compare-then-store in a
 * restartable sequence on that CPU, as the paper's per-CPU local_cmpxchg()
 * in the kernel. A locked swap waits for the stores of the record before
 * to drain; this does not (docs/performance.md has the difference).
 *
 * A thread elsewhere gets TC_RB_MOVE_ELSEWHERE and picks the buffer of its
 * CPU. A thread without an rseq area takes the locked swap, once its
 * process has locked the plain moves out (tc_rb_enter_remote()). TSC
 * buffers keep the double-width swap, locked, from every CPU.
 */
#ifdef TC_RB_MODEL_CHECK
/* The restartable sequence of tc_rb_rseq_move(), modelled by the
 * exhaustive interleaving test (tests/unit/ringbuffer/tc-rb-model-test.c). */
enum tc_rb_move tc_rb_model_move_locally(struct tc_rb *rb, uint64_t *offset,
					 uint64_t *timestamp, uint64_t new_offset,
					 uint64_t new_timestamp);
#endif

static inline enum tc_rb_move
tc_rb_move_position(struct tc_rb *rb, uint64_t *offset, uint64_t *timestamp,
		    uint64_t new_offset, uint64_t new_timestamp)
{
	const bool exact = tc_rb_unordered_clock(rb);

#ifdef TC_RB_MODEL_CHECK
	if (rb->move_locally && !exact)
		return tc_rb_model_move_locally(rb, offset, timestamp, new_offset, new_timestamp);
	if (!exact && !rb->remote_ready && !tc_rb_enter_remote(rb))
		return TC_RB_MOVE_ELSEWHERE;
#endif
#ifdef TC_RB_HAVE_RSEQ
	if (__builtin_expect(rb->move_locally && !exact, 1)) {
		enum tc_rb_rseq_move moved = tc_rb_rseq_move(&rb->shm->write_offset,
							     &rb->shm->locked_moves, offset,
							     new_offset, rb->cpu);

		if (__builtin_expect(moved == TC_RB_RSEQ_LOCKED, 0))
			moved = tc_rb_rseq_move_locked(&rb->shm->write_offset, offset, new_offset,
						       rb->cpu);
		if (__builtin_expect(moved == TC_RB_RSEQ_MOVED, 1)) {
			__atomic_store_n(&rb->shm->last_timestamp, new_timestamp,
					 __ATOMIC_RELAXED);
			return TC_RB_MOVED;
		}
		if (moved == TC_RB_RSEQ_CHANGED) {
			*timestamp = __atomic_load_n(&rb->shm->last_timestamp, __ATOMIC_RELAXED);
			return TC_RB_MOVE_CHANGED;
		}
		if (tc_rb_rseq_cpu() >= 0)
			return TC_RB_MOVE_ELSEWHERE;
	}
	if (!exact && !__atomic_load_n(&rb->remote_ready, __ATOMIC_ACQUIRE) &&
	    !tc_rb_enter_remote(rb))
		return TC_RB_MOVE_ELSEWHERE;
#endif
	return tc_rb_cas_position(rb->shm, offset, timestamp, new_offset, new_timestamp, exact)
		       ? TC_RB_MOVED
		       : TC_RB_MOVE_CHANGED;
}

/* Counts an event the caller gave up on in the buffer's discarded count
 * (a writer that kept landing on another CPU's buffer, -EAGAIN). */
void tc_rb_discard(const struct tc_rb *rb);

/* Does a record at timestamp need its full timestamp after last? */
static inline bool
tc_rb_needs_full_timestamp(uint64_t timestamp, uint64_t last)
{
	return last == 0 || timestamp < last || (timestamp - last) >> TC_RB_COMPACT_TS_BITS != 0;
}

/*
 * Same as tc_rb_reserve(), for records whose header can be compact: len is
 * the size with a compact header; when the timestamp read inside the
 * reservation is 2^TC_RB_COMPACT_TS_BITS ticks or more after the buffer's
 * last_timestamp (or there is none yet), full_ts_extra more bytes are
 * reserved and ctx->full_timestamp is set, so that the caller writes the
 * full timestamp. last_timestamp is only ever older than or equal to the
 * timestamp of the record just before in the buffer, so a compact header
 * is never chosen wrongly; see tc_rb_reserve_slow().
 */
#ifdef TC_RB_MODEL_CHECK
#define tc_rb_reserve_ts tc_rb_reserve_slow
#else
/*
 * The common case inline: appending to the open sub-buffer without
 * reaching its end, with the same load -> clock -> CAS order as the full
 * algorithm (tc_rb_reserve_slow(), which handles everything else).
 */
#define TC_RB_PREFETCH_AHEAD 256u

/*
 * Fetches the cache line at addr in the exclusive state when the processor
 * can (prefetchw): the consumer read the line on its own CPU a lap ago, and
 * a read prefetch (what __builtin_prefetch(addr, 1) is on baseline x86-64)
 * leaves it shared, so the store still waits for the other copy to be
 * invalidated, which limits the sustained rate (docs/performance.md).
 */
static inline void
tc_rb_prefetch_for_write(const struct tc_rb *rb, const uint8_t *addr)
{
#if defined(__x86_64__)
	if (__builtin_expect(rb->prefetch_write, 1)) {
		__asm__ volatile("prefetchw %0" : : "m"(*addr));
		return;
	}
#endif
	__builtin_prefetch(addr, 1, 3);
}

static inline int
tc_rb_reserve_ts(struct tc_rb *rb, struct tc_rb_ctx *ctx, uint32_t len, uint32_t full_ts_extra)
{
	uint64_t old = __atomic_load_n(&rb->shm->write_offset, __ATOMIC_ACQUIRE);
	uint64_t last = __atomic_load_n(&rb->shm->last_timestamp, __ATOMIC_RELAXED);
	uint64_t used = old & (rb->subbuf_size - 1);
	uint64_t timestamp;
	bool full;

	/* The cache lines of the records to come are fetched for writing
	 * while the clock is read, so that the locked instruction of the next
	 * reservation, which waits for this record's stores, finds them
	 * there. A prefetch never faults. */
	tc_rb_prefetch_for_write(rb, rb->data + ((old + TC_RB_PREFETCH_AHEAD) & rb->buffer_mask));
	timestamp = tc_rb_clamp_timestamp(tc_rb_timestamp(rb), last);
	full = full_ts_extra != 0 && tc_rb_needs_full_timestamp(timestamp, last);
	if (full)
		len += full_ts_extra;

	if (__builtin_expect(used != 0 && len != 0 && used + len < rb->subbuf_size, 1) &&
	    tc_rb_move_position(rb, &old, &last, old + len, timestamp) == TC_RB_MOVED) {
		ctx->rb = rb;
		ctx->offset = old;
		ctx->slot_size = len;
		ctx->timestamp = timestamp;
		ctx->slot = rb->data + (old & rb->buffer_mask);
		ctx->commit = &rb->commit[(old >> rb->subbuf_shift) & (rb->num_subbuf - 1)];
		ctx->closed_packet = false;
		ctx->full_timestamp = full;
		return 0;
	}
	return tc_rb_reserve_slow(rb, ctx, full ? len - full_ts_extra : len, full_ts_extra);
}
#endif

static inline int
tc_rb_reserve(struct tc_rb *rb, struct tc_rb_ctx *ctx, uint32_t len)
{
	return tc_rb_reserve_ts(rb, ctx, len, 0);
}
#ifdef TC_RB_MODEL_CHECK
/* Out of line, with scheduling points, for tests/unit/ringbuffer/tc-rb-model-test.c. */
void tc_rb_write(const struct tc_rb_ctx *ctx, uint32_t pos, const void *src, uint32_t len);
void tc_rb_commit(const struct tc_rb_ctx *ctx);
#else
/* Copies len bytes at byte offset pos within the reserved record. Inline,
 * with the small sizes of integer fields copied without a call. */
static inline void
tc_rb_write(const struct tc_rb_ctx *ctx, uint32_t pos, const void *src, uint32_t len)
{
	uint8_t *dst = ctx->slot + pos;

	/* Never write outside the slot, whatever the caller computed. */
	if (__builtin_expect(pos > ctx->slot_size || len > ctx->slot_size - pos, 0))
		return;
	switch (len) {
	case 8:
		__builtin_memcpy(dst, src, 8);
		break;
	case 4:
		__builtin_memcpy(dst, src, 4);
		break;
	case 2:
		__builtin_memcpy(dst, src, 2);
		break;
	case 1:
		*dst = *(const uint8_t *)src;
		break;
	default:
		__builtin_memcpy(dst, src, len);
	}
}

/* Adds bytes to a sub-buffer's commit count: release, so that a reader
 * whose acquire loads see the count including them sees what was written
 * before. Locally when the thread runs on the buffer's CPU (no locked
 * instruction, tc-rb-rseq.h), otherwise to the remote counter. */
static inline void
tc_rb_commit_add(const struct tc_rb *rb, struct tc_rb_commit *commit, uint64_t bytes)
{
#ifdef TC_RB_HAVE_RSEQ
	if (__builtin_expect(tc_rb_rseq_add(&commit->count, bytes, rb->cpu), 1))
		return;
#endif
	__atomic_fetch_add(&commit->remote, bytes, __ATOMIC_RELEASE);
}

/* Publishes the record. */
static inline void
tc_rb_commit(const struct tc_rb_ctx *ctx)
{
	tc_rb_commit_add(ctx->rb, ctx->commit, ctx->slot_size);
}
#endif

/* Reader (consumer). */
struct tc_rb_reader {
	struct tc_rb rb;
	uint64_t consumed;          /* private copy of the read count */
	uint64_t packets_corrupted; /* dropped because they failed checks */
	uint32_t stream_id;
	uint32_t cpu;
	uint8_t uuid[16];
	/* Overwrite mode: sub-buffers lost because writers pushed the reader
	 * past them, before or while they were being copied. */
	uint64_t packets_overwritten;
	/* events_discarded of the last valid packet returned. */
	uint64_t events_discarded_seen;
};

/*
 * Attaches reader->rb to a mapping (as tc_rb_attach()) and starts reading
 * at sub-buffer 0. stream_id, cpu and uuid are the reader's own copies of
 * what the packets must carry; they are never taken from shared memory.
 * Returns 0 or -EINVAL.
 */
int tc_rb_reader_init(struct tc_rb_reader *reader, void *mapping, uint64_t mapping_size,
		      uint32_t stream_id, uint32_t cpu, const uint8_t uuid[16]);

/*
 * Copies the next complete sub-buffer into out (subbuf_size bytes) and
 * checks it. Returns 1 when a valid packet is in out, 0 when none is ready,
 * -EBADMSG when a complete sub-buffer failed the checks (it is skipped and
 * counted in packets_corrupted). Then the caller calls tc_rb_reader_put().
 *
 * Precisely: after 1 the caller writes out, then calls tc_rb_reader_put().
 * After -EBADMSG the sub-buffer has already been released (the read count
 * moved past it); the caller must not call tc_rb_reader_put() and simply
 * calls tc_rb_reader_get() again. A commit count outside the range that a
 * writer can produce is reported as -EBADMSG too.
 *
 * Overwrite mode: get first follows consumed if writers pushed it (counting
 * the skipped sub-buffers in packets_overwritten), and after copying checks
 * that no writer pushed it meanwhile; a copy that a writer may have lapped
 * is thrown away, counted in packets_overwritten, and get tries the next
 * sub-buffer. It returns 0 if writers keep lapping it. The return codes are
 * the same as in discard mode.
 */
int tc_rb_reader_get(struct tc_rb_reader *reader, void *out);
/*
 * Like tc_rb_reader_get(), without the copy: *packet points at the
 * sub-buffer in the mapping, which the caller reads (and may trim) until
 * tc_rb_reader_put(). Discard mode only (-EINVAL otherwise: overwrite
 * mode detects laps on a copy). The sub-buffer is not private: use it
 * only where every writer is trusted as much as the reader's own uid,
 * and read each length in it once.
 */
int tc_rb_reader_get_in_place(struct tc_rb_reader *reader, uint8_t **packet);
/* Whether tc_rb_reader_get() would find a sub-buffer to copy now: a hint,
 * for a caller that needs a buffer for the copy before it can get (the
 * writers may still have the sub-buffer, or a copy may fail the checks). */
bool tc_rb_reader_ready(const struct tc_rb_reader *reader);
/* Releases the sub-buffer got last, so that writers can reuse it. In
 * overwrite mode a writer may already have pushed the reader past it; the
 * release then leaves consumed where the writer put it. */
void tc_rb_reader_put(struct tc_rb_reader *reader);
/*
 * Closes the current sub-buffer if it holds data, so that the next get
 * returns it once its writers commit (the stop/destroy flush).
 * Returns true when a sub-buffer was closed.
 */
bool tc_rb_flush(struct tc_rb *rb);
/*
 * The same, saying why nothing was closed: 1 when a sub-buffer was, 0 when
 * there was nothing to close (or the position kept moving), -EAGAIN when
 * the writers' plain moves could not be locked out because the caller
 * cannot run on the buffer's CPU (its affinity or cpuset) and
 * unreachable_wait is 0. Otherwise, in that case, it waits that many ns
 * instead of the visit, then closes the sub-buffer.
 *
 * The wait: a writer that read locked_moves as 0 before it was raised
 * stores its move within a few instructions, unless its CPU switches to
 * another thread in between, which restarts its sequence, or the
 * hypervisor stops that virtual CPU. TC_RB_UNREACHABLE_WAIT_NS covers
 * such a stop up to its length; after a longer one, the move lands over
 * the close, and the reader's checks drop that packet as corrupt
 * (counted). Only for closes that must not be skipped: the stop flush and
 * snapshots (tc_rb_close_empty_packet() always waits).
 */
#define TC_RB_UNREACHABLE_WAIT_NS 20000000ull
int tc_rb_flush_status(struct tc_rb *rb, uint64_t unreachable_wait);
/*
 * At a sub-buffer boundary, writes a packet holding only its header, so
 * that events discarded since the last packet are reported (the final
 * flush, when shm->events_discarded is ahead of the reader's
 * events_discarded_seen). Returns true when it wrote one.
 */
bool tc_rb_close_empty_packet(struct tc_rb *rb);

/*
 * Snapshots read without consuming. [*begin, *end) are the sub-buffer
 * aligned positions that may hold complete packets now: at most a buffer
 * ending at the write position (call tc_rb_flush() first).
 */
void tc_rb_reader_snapshot_range(const struct tc_rb_reader *reader, uint64_t *begin,
				 uint64_t *end);
/*
 * Copies the packet at position into out, checked as tc_rb_reader_get()
 * does. Returns 1 for a valid packet, 0 when there is none complete there
 * (or a writer overwrote it during the copy), -EBADMSG when it failed the
 * checks (counted in packets_corrupted). Never moves the read count.
 */
int tc_rb_reader_peek(struct tc_rb_reader *reader, uint64_t position, void *out);
/*
 * A packet closed before its sub-buffer filled (a flush: live timer,
 * switch timer, stop, rotation, snapshot) carries the whole sub-buffer as
 * its packet_size, most of it padding. LTTng writes such a packet cut to
 * its content rounded up to a page; so does the reader here, to
 * TC_RB_PACKET_UNIT bytes whatever the page size: the smallest sub-buffer
 * and the alignment of direct I/O, so a cut packet still fits both.
 * Sets packet_size in out, a packet that get or peek just returned
 * (checked: content_size within the sub-buffer), and returns the bytes
 * to write, a multiple of TC_RB_PACKET_UNIT no larger than the sub-buffer.
 * Only the reader's private copy changes: what the application wrote in
 * shared memory is never trusted beyond those checks.
 */
#define TC_RB_PACKET_UNIT 4096u
uint32_t tc_rb_reader_trim(const struct tc_rb_reader *reader, void *out);
/* Bytes written and not yet read, for monitoring. */
uint64_t tc_rb_bytes_used(const struct tc_rb *rb);

/*
 * The room a writer leaves the reader when it wakes it, in buffers of more
 * than 16/3 MiB (smaller ones keep three quarters): enough for the fastest
 * writer of one CPU to go on for several times the reader's wake-up
 * latency on a loaded virtual machine (docs/performance.md).
 */
#define TC_RB_WAKE_ROOM (4ull << 20)

/*
 * Writer, after the commit of a reservation that closed a sub-buffer
 * (ctx->closed_packet): wakes the reader once the room left is three
 * quarters of the buffer or TC_RB_WAKE_ROOM, whichever is less, and one
 * sub-buffer at least is unread: a system call per sub-buffer at most,
 * never per event; below, the reader's read timer collects. Nothing when
 * there is no wake_fd.
 */
void tc_rb_wake_reader(const struct tc_rb *rb);

/* The closed sub-buffers a reader finds, at least, when a writer's wake-up
 * reaches it at once (1 for buffers of up to 16/3 MiB). */
uint32_t tc_rb_wake_packets(const struct tc_rb *rb);


#endif /* TC_RB_H */
