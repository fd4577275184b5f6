/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Lock-less per-CPU ring buffer, in discard or overwrite mode (see tc-rb.h
 * for the layout and docs/ring-buffer.md), after Mathieu Desnoyers and
 * Michel R. Dagenais, "Lockless multi-core high-throughput buffering scheme
 * for kernel tracing", ACM SIGOPS Operating Systems Review 46(3), 2012,
 * sections 3-4.
 *
 * Writer protocol, for one reservation:
 *
 *   load write_offset -> read clock -> decide (open | append | close) -> CAS
 *
 *   open:   the offset is at a sub-buffer boundary. Refuse when the reader
 *           is a whole buffer behind (Buffer Full, equation 1), otherwise
 *           reserve packet header + record in one CAS, then write the
 *           packet's begin fields and commit the header bytes.
 *   append: the record fits in the current sub-buffer; reserve it.
 *   close:  it does not fit; move write_offset to the next boundary, write
 *           the end fields of the packet and commit the unused tail as
 *           padding, then retry (the retry opens the next sub-buffer).
 *
 * A reservation that ends exactly on a boundary closes its packet too: it
 * writes the end fields before returning, so that nobody else has to.
 *
 * Every byte of a sub-buffer is committed exactly once (header, records,
 * padding), in any order, so the sub-buffer of round r is complete when its
 * free-running commit count reaches (r + 1) * subbuf_size (equation 2).
 *
 * Overwrite mode changes only the opening of a sub-buffer and the reader:
 *
 *   open:   refuse when the previous round of the sub-buffer is not Fully
 *           Committed (equation 3: a reservation from a whole buffer ago is
 *           still being written), otherwise push the reader (CAS consumed
 *           past the sub-buffer if it is still unread), and only then CAS
 *           write_offset past the boundary. Pushing before any writer can
 *           write into the new round is what lets the reader detect a lap
 *           after its copy: once write_offset is past the boundary, other
 *           writers append there without looking at consumed. (Pushing
 *           after the CAS lost that race; tests/unit/ringbuffer/tc-rb-model-test.c
 *           found it.) A push whose CAS then fails is not wasted: whoever
 *           moved write_offset opened the same sub-buffer.
 *   get:    follow a pushed consumed, check Sub-buffer Ready (equation 2),
 *           copy, acquire fence, re-read consumed; moved means the copy may
 *           hold bytes of the next round: drop it.
 *   put:    CAS consumed forward, never backward over a writer's push.
 *
 * Counters are free-running and compared modulo 2^64 as in the paper; the
 * commit counts wrap num_subbuf times less often than write_offset, hence
 * the mask of equations (2) and (3) on the commit side.
 *
 * TC_RB_SCHED_POINT() marks every access to shared state that another
 * thread can interleave with. It is empty in the library; the exhaustive
 * interleaving test (tests/unit/ringbuffer/tc-rb-model-test.c) builds this file with
 * TC_RB_MODEL_CHECK to switch threads there.
 */
#include "tc-rb.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/sysinfo.h>
#include <time.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#ifdef TC_RB_MODEL_CHECK
#include "tc-rb-model.h"
#else
#define TC_RB_SCHED_POINT() do { } while (0)
#define TC_RB_REFUSING(rb, boundary) do { } while (0)
#endif

#define TC_RB_PAGE_SIZE 4096u
/* tc_rb_flush() competes with writers and with whatever the application
 * writes into write_offset; it gives up rather than spin forever. */
#define TC_RB_FLUSH_CAS_RETRIES 64
/* Overwrite mode: attempts of one get against writers that keep lapping the
 * reader, and of one put against an application rewriting consumed. */
#define TC_RB_READ_LAP_RETRIES 16
#define TC_RB_PUT_CAS_RETRIES 64

static_assert(TC_RB_HEADER_SIZE % TC_RB_PAGE_SIZE == 0, "header page");
static_assert(sizeof(struct tc_rb_commit) == TC_RB_CACHELINE, "commit counter layout");

static bool
is_power_of_two(uint64_t value)
{
	return value != 0 && (value & (value - 1)) == 0;
}

static bool
geometry_is_valid(uint32_t subbuf_size, uint32_t num_subbuf)
{
	return is_power_of_two(subbuf_size) && is_power_of_two(num_subbuf) &&
	       subbuf_size >= TC_RB_SUBBUF_SIZE_MIN && subbuf_size <= TC_RB_SUBBUF_SIZE_MAX &&
	       num_subbuf >= TC_RB_NUM_SUBBUF_MIN && num_subbuf <= TC_RB_NUM_SUBBUF_MAX;
}

static uint64_t
data_offset_for(uint32_t num_subbuf)
{
	uint64_t end = TC_RB_HEADER_SIZE + (uint64_t)num_subbuf * sizeof(struct tc_rb_commit);

	return (end + TC_RB_PAGE_SIZE - 1) & ~(uint64_t)(TC_RB_PAGE_SIZE - 1);
}

/*
 * Bytes of a buffer of this geometry, header page and commit counters
 * included. Returns 0 when the geometry is invalid.
 */
uint64_t
tc_rb_shm_size(uint32_t subbuf_size, uint32_t num_subbuf)
{
	if (!geometry_is_valid(subbuf_size, num_subbuf))
		return 0;
	return data_offset_for(num_subbuf) + (uint64_t)subbuf_size * num_subbuf;
}

int
tc_rb_init(void *mapping, uint32_t subbuf_size, uint32_t num_subbuf, uint32_t cpu,
	   uint32_t stream_id, const uint8_t uuid[16])
{
	return tc_rb_init_mode(mapping, subbuf_size, num_subbuf, cpu, stream_id, uuid, 0);
}

int
tc_rb_init_mode(void *mapping, uint32_t subbuf_size, uint32_t num_subbuf, uint32_t cpu,
		uint32_t stream_id, const uint8_t uuid[16], uint32_t flags)
{
	struct tc_rb_shm *shm = mapping;

	if (!mapping || !uuid || !geometry_is_valid(subbuf_size, num_subbuf) ||
	    (flags & ~TC_RB_FLAGS_KNOWN) != 0)
		return -EINVAL;
	shm->magic = TC_RB_MAGIC;
	shm->version = TC_RB_VERSION;
	shm->subbuf_size = subbuf_size;
	shm->num_subbuf = num_subbuf;
	shm->cpu = cpu;
	shm->stream_id = stream_id;
	shm->shm_size = tc_rb_shm_size(subbuf_size, num_subbuf);
	shm->data_offset = data_offset_for(num_subbuf);
	memcpy(shm->uuid, uuid, sizeof(shm->uuid));
	shm->flags = flags;
	shm->write_offset = 0;
	shm->consumed = 0;
	shm->events_discarded = 0;
	shm->packets_overwritten = 0;
	return 0;
}

#if defined(__x86_64__) && !defined(TC_RB_MODEL_CHECK)
#define CPU_CMPXCHG16B 0x1u
#define CPU_PREFETCHW 0x2u

/*
 * What the processor offers the writers, asked of it with CPUID, as clang's
 * __builtin_cpu_supports() does not know the names (the fuzz test builds
 * this file with clang's libFuzzer):
 * - cmpxchg16b (leaf 1, ECX), which tc_rb_cas_position() needs;
 * - prefetchw (leaf 0x80000001, ECX), tc_rb_prefetch_for_write(); the
 *   baseline x86-64 that Debian builds for has no such instruction.
 * Asked once: CPUID traps to the hypervisor on a virtual machine, which
 * takes microseconds, and every buffer of every CPU is attached.
 */
static unsigned int
cpu_features(void)
{
	static unsigned int known; /* 0: not asked yet; else features | 0x80 */
	unsigned int answer = __atomic_load_n(&known, __ATOMIC_RELAXED);
	unsigned int eax, ebx, ecx, edx;

	if (answer == 0) {
		answer = 0x80;
		if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_CMPXCHG16B))
			answer |= CPU_CMPXCHG16B;
		if (__get_cpuid(0x80000001, &eax, &ebx, &ecx, &edx) && (ecx & bit_PRFCHW))
			answer |= CPU_PREFETCHW;
		__atomic_store_n(&known, answer, __ATOMIC_RELAXED);
	}
	return answer;
}
#endif

/*
 * Validates the header of a mapping and fills rb with checked copies of the
 * geometry. The mapping may belong to another process (the consumer's memfd
 * in the application, or the application's scribbles in the consumer): every
 * value used later is checked here, and only the copies in rb are used.
 * Returns 0, -EINVAL, or -ENOTSUP (see tc-rb.h).
 */
int
tc_rb_attach(struct tc_rb *rb, void *mapping, uint64_t mapping_size)
{
	const struct tc_rb_shm *shm = mapping;
	uint32_t subbuf_size, num_subbuf, flags;
	uint64_t data_offset, shm_size;

	if (!rb || !mapping || ((uintptr_t)mapping % TC_RB_PAGE_SIZE) != 0)
		return -EINVAL;
#if defined(__x86_64__) && !defined(TC_RB_MODEL_CHECK)
	if (!(cpu_features() & CPU_CMPXCHG16B))
		return -ENOTSUP;
#endif
	if (mapping_size < TC_RB_HEADER_SIZE)
		return -EINVAL;
	/* Read each shared value once, then check the local copy. */
	subbuf_size = __atomic_load_n(&shm->subbuf_size, __ATOMIC_RELAXED);
	num_subbuf = __atomic_load_n(&shm->num_subbuf, __ATOMIC_RELAXED);
	data_offset = __atomic_load_n(&shm->data_offset, __ATOMIC_RELAXED);
	shm_size = __atomic_load_n(&shm->shm_size, __ATOMIC_RELAXED);
	flags = __atomic_load_n(&shm->flags, __ATOMIC_RELAXED);
	if ((flags & ~TC_RB_FLAGS_KNOWN) != 0)
		return -EINVAL;
	if (__atomic_load_n(&shm->magic, __ATOMIC_RELAXED) != TC_RB_MAGIC ||
	    __atomic_load_n(&shm->version, __ATOMIC_RELAXED) != TC_RB_VERSION)
		return -EINVAL;
	if (!geometry_is_valid(subbuf_size, num_subbuf))
		return -EINVAL;
	if (data_offset != data_offset_for(num_subbuf) || data_offset % TC_RB_PAGE_SIZE != 0)
		return -EINVAL;
	if (shm_size != tc_rb_shm_size(subbuf_size, num_subbuf) || shm_size != mapping_size)
		return -EINVAL;

	rb->shm = mapping;
	rb->commit = (struct tc_rb_commit *)((uint8_t *)mapping + TC_RB_HEADER_SIZE);
	rb->data = (uint8_t *)mapping + data_offset;
	rb->subbuf_size = subbuf_size;
	rb->num_subbuf = num_subbuf;
	rb->shm_size = shm_size;
	rb->subbuf_shift = (uint32_t)__builtin_ctz(subbuf_size);
	rb->buffer_mask = (uint64_t)subbuf_size * num_subbuf - 1;
	rb->wake_fd = -1;
	rb->flags = flags;
	rb->cpu = __atomic_load_n(&shm->cpu, __ATOMIC_RELAXED);
	rb->cpu_possible = rb->cpu < (uint32_t)get_nprocs_conf();
	rb->picks_by_cpu = rb->move_locally = false;
	rb->lock_out_raised = rb->remote_ready = false;
#if defined(__x86_64__) && !defined(TC_RB_MODEL_CHECK)
	rb->prefetch_write = (cpu_features() & CPU_PREFETCHW) != 0;
#endif
	return 0;
}

static inline uint64_t
buffer_size(const struct tc_rb *rb)
{
	return (uint64_t)rb->subbuf_size * rb->num_subbuf;
}

static inline uint64_t
offset_in_subbuf(const struct tc_rb *rb, uint64_t offset)
{
	return offset & (rb->subbuf_size - 1);
}

static inline bool
is_overwrite(const struct tc_rb *rb)
{
	return (rb->flags & TC_RB_FLAG_OVERWRITE) != 0;
}

/*
 * The commit count that sub-buffer subbuf_index(offset) holds when every
 * round before the one of offset is complete and nothing of this round is
 * committed: the left side of equations (2) and (3), (offset with the
 * in-buffer bits cleared) / num_subbuf.
 */
static inline uint64_t
commit_base(const struct tc_rb *rb, uint64_t offset)
{
	return (offset & ~(buffer_size(rb) - 1)) >> __builtin_ctz(rb->num_subbuf);
}

/* The mask of equations (2) and (3): commit counts wrap at
 * 2^(64 - log2(num_subbuf)) relative to write_offset. */
static inline uint64_t
commit_mask(const struct tc_rb *rb)
{
	return UINT64_MAX >> __builtin_ctz(rb->num_subbuf);
}

static inline uint32_t
subbuf_index(const struct tc_rb *rb, uint64_t offset)
{
	return (uint32_t)(offset >> __builtin_ctz(rb->subbuf_size)) & (rb->num_subbuf - 1);
}

/* The packet header of the sub-buffer holding offset. Offsets are free-running:
 * the masking keeps every access inside the data area whatever their value. */
static inline struct tc_packet_header *
packet_header_at(const struct tc_rb *rb, uint64_t offset)
{
	return (struct tc_packet_header *)(rb->data +
					   (uint64_t)subbuf_index(rb, offset) * rb->subbuf_size);
}

static inline void
commit_bytes(const struct tc_rb *rb, uint64_t offset, uint64_t bytes)
{
	struct tc_rb_commit *commit = &rb->commit[subbuf_index(rb, offset)];

	TC_RB_SCHED_POINT();
#ifdef TC_RB_MODEL_CHECK
	/* Into either counter, as threads on the buffer's CPU and elsewhere
	 * do, so that the interleavings of the readers' two loads with
	 * commits into each are explored. */
	__atomic_fetch_add((offset / 8) & 1 ? &commit->remote : &commit->count, bytes,
			   __ATOMIC_RELEASE);
#else
	tc_rb_commit_add(rb, commit, bytes);
#endif
}

/*
 * The commit count of sub-buffer idx: both counters, each with an acquire
 * load, so that the bytes of every commit counted are visible. The two
 * loads are not one snapshot: the sum lies between the count when the
 * first load ran and the count when the second did, which is all that
 * equations (2) and (3) need from a count that only grows.
 */
static inline uint64_t
commit_count(const struct tc_rb *rb, uint32_t idx)
{
	uint64_t local, remote;

	TC_RB_SCHED_POINT();
	local = __atomic_load_n(&rb->commit[idx].count, __ATOMIC_ACQUIRE);
	TC_RB_SCHED_POINT();
	remote = __atomic_load_n(&rb->commit[idx].remote, __ATOMIC_ACQUIRE);
	return local + remote;
}

static void
count_discarded(const struct tc_rb *rb)
{
	TC_RB_SCHED_POINT();
	__atomic_fetch_add(&rb->shm->events_discarded, 1, __ATOMIC_RELAXED);
}

/*
 * Writes the begin fields of the packet that starts at subbuf_start, which
 * the caller has just reserved, and commits the header's bytes. The end
 * fields belong to whoever closes the packet, possibly before this runs.
 */
static void
open_packet(const struct tc_rb *rb, uint64_t subbuf_start, uint64_t timestamp)
{
	struct tc_packet_header *header = packet_header_at(rb, subbuf_start);
	const struct tc_rb_shm *shm = rb->shm;

	TC_RB_SCHED_POINT();
	header->magic = TC_CTF_MAGIC;
	memcpy(header->uuid, shm->uuid, sizeof(header->uuid));
	header->stream_id = shm->stream_id;
	header->stream_instance_id = shm->cpu;
	header->cpu_id = shm->cpu;
	header->timestamp_begin = timestamp;
	header->packet_seq_num = subbuf_start / rb->subbuf_size;
	commit_bytes(rb, subbuf_start, sizeof(*header));
}

/*
 * The events_discarded of a packet: the buffer's count, read by whoever
 * is about to end the packet, after loading the position it will move to
 * the boundary and before that move. Packets end in the order of those
 * moves, so counts read before them are read in that order and never
 * step back from one packet to the next (docs/ring-buffer.md). Read after
 * the move, the count of a closer switched out in between would get ahead
 * of the next packets': others fill them, then drop records while its
 * unfinished packet holds the reader. The acquire load of the position,
 * and the move that orders the read before it (a release, a locked
 * instruction, or an x86 store, which follows earlier loads), make this
 * hold across threads and CPUs; drops counted between the read and the
 * move go to the next packet.
 */
static uint64_t
discarded_before_end(const struct tc_rb *rb)
{
	TC_RB_SCHED_POINT();
	return __atomic_load_n(&rb->shm->events_discarded, __ATOMIC_RELAXED);
}

/*
 * Writes the end fields of the packet holding the byte just before
 * end_offset, used bytes of which carry data, without committing anything.
 * timestamp was read after every reservation inside the packet succeeded,
 * so it is not older than any of their timestamps; discarded was read
 * before the move that ended the packet (discarded_before_end()).
 */
static void
finish_packet(const struct tc_rb *rb, uint64_t end_offset, uint64_t used, uint64_t timestamp,
	      uint64_t discarded)
{
	struct tc_packet_header *header = packet_header_at(rb, end_offset - 1);

	TC_RB_SCHED_POINT();
	header->timestamp_end = timestamp;
	header->content_size = used * 8;
	header->packet_size = (uint64_t)rb->subbuf_size * 8;
	header->events_discarded = discarded;
}

/*
 * Called after a CAS moved write_offset from old to the next sub-buffer
 * boundary: finishes the packet and commits its unused tail as padding.
 */
static void
close_packet(const struct tc_rb *rb, uint64_t old, uint64_t timestamp, uint64_t discarded)
{
	uint64_t used = offset_in_subbuf(rb, old);
	uint64_t boundary = old - used + rb->subbuf_size;

	finish_packet(rb, boundary, used, timestamp, discarded);
	commit_bytes(rb, old, rb->subbuf_size - used);
}

/* Reloads the position into *old and *last; true when the offset is not
 * *old any more. */
static bool
write_offset_moved(const struct tc_rb *rb, uint64_t *old, uint64_t *last)
{
	uint64_t now;

	TC_RB_SCHED_POINT();
	now = __atomic_load_n(&rb->shm->write_offset, __ATOMIC_ACQUIRE);
	*last = __atomic_load_n(&rb->shm->last_timestamp, __ATOMIC_RELAXED);
	if (now == *old)
		return false;
	*old = now;
	return true;
}

/* Loads the position: the offset, then its timestamp. Not one atomic
 * read; a torn pair makes the move that follows fail and retry, or, for
 * buffers whose clock is read in order, gives an older timestamp
 * (tc_rb_cas_position()). */
static inline uint64_t
load_position(const struct tc_rb *rb, uint64_t *last)
{
	uint64_t offset;

	TC_RB_SCHED_POINT();
	offset = __atomic_load_n(&rb->shm->write_offset, __ATOMIC_ACQUIRE);
	*last = __atomic_load_n(&rb->shm->last_timestamp, __ATOMIC_RELAXED);
	return offset;
}

/* A writer moves the position to new_offset with timestamp; see
 * tc_rb_move_position(). */
static inline enum tc_rb_move
cas_write_offset(struct tc_rb *rb, uint64_t *old, uint64_t *last, uint64_t new_offset,
		 uint64_t timestamp)
{
	TC_RB_SCHED_POINT();
	return tc_rb_move_position(rb, old, last, new_offset, timestamp);
}

/* The same with the locked swap, for the reader (tc_rb_flush()), which
 * locks the writers' plain moves out around it (lock_out_begin()). */
static inline bool
cas_write_offset_locked(const struct tc_rb *rb, uint64_t *old, uint64_t *last,
			uint64_t new_offset, uint64_t timestamp)
{
	TC_RB_SCHED_POINT();
	return tc_rb_cas_position(rb->shm, old, last, new_offset, timestamp,
				  tc_rb_unordered_clock(rb));
}

/*
 * Locking the writers' plain moves out (tc_rb_move_position()). A writer
 * on the buffer's CPU checks locked_moves inside the restartable sequence
 * that moves the position; one that read 0 may still store its move after
 * locked_moves was raised, until the kernel next switches that CPU to
 * another thread, which restarts the sequence if it was not done. So once
 * the raising thread has itself run on that CPU after raising it, no
 * plain move is in flight there, and every later one sees the lock-out.
 * A CPU the machine cannot have runs nothing.
 */
#if defined(TC_RB_HAVE_RSEQ) || defined(TC_RB_MODEL_CHECK)
#ifdef TC_RB_MODEL_CHECK
/* The test's CPUs: tasks that visit one count as a switch there. */
#define current_cpu() tc_rb_model_cpu()
#define visit_cpu(cpu) tc_rb_model_visit(cpu)
#define cpu_offline(cpu) false
#else
#define current_cpu() sched_getcpu()

/* Runs the calling thread on cpu for a moment, then gives it back its
 * CPUs. False when it cannot run there (offline, not in its cpuset). */
static bool
visit_cpu(uint32_t cpu)
{
	cpu_set_t saved, only;
	bool there;

	if (cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof(saved), &saved) < 0)
		return false;
	CPU_ZERO(&only);
	CPU_SET(cpu, &only);
	if (sched_setaffinity(0, sizeof(only), &only) < 0)
		return false;
	there = sched_getcpu() == (int)cpu;
	sched_setaffinity(0, sizeof(saved), &saved);
	return there;
}

/* Is cpu offline? Then nothing runs there: a thread that was inside a
 * sequence there when it went down was migrated, which restarts it. */
static bool
cpu_offline(uint32_t cpu)
{
	char path[64], state = '1';
	int fd;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%" PRIu32 "/online", cpu);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false; /* CPU 0 often has no such file: it cannot go down */
	if (read(fd, &state, 1) != 1)
		state = '1';
	close(fd);
	return state == '0';
}
#endif

/* Has the lock-out, raised before the call, taken hold on rb's CPU? Only
 * threads that may be moved look for it there (visit). */
static bool
lock_out_took_hold(const struct tc_rb *rb, bool visit)
{
	if (!rb->cpu_possible || current_cpu() == (int)rb->cpu)
		return true;
	return visit && (visit_cpu(rb->cpu) || cpu_offline(rb->cpu));
}

bool
tc_rb_enter_remote(struct tc_rb *rb)
{
	/* Raised before the flag says so: a thread that sees the flag knows
	 * the lock-out is up. Two threads may both raise it; it is never
	 * lowered, so that does not matter. */
	if (!__atomic_load_n(&rb->lock_out_raised, __ATOMIC_ACQUIRE)) {
		TC_RB_SCHED_POINT();
		__atomic_fetch_add(&rb->shm->locked_moves, 1, __ATOMIC_SEQ_CST);
		__atomic_store_n(&rb->lock_out_raised, true, __ATOMIC_RELEASE);
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	/* A tracepoint's thread is never moved: it picks the buffer of the
	 * CPU it runs on again instead. */
	if (!lock_out_took_hold(rb, !rb->picks_by_cpu))
		return false;
	__atomic_store_n(&rb->remote_ready, true, __ATOMIC_RELEASE);
	return true;
}

/* Waits, in the consumer, for a plain move that missed the lock-out. */
static void
wait_ns(uint64_t ns)
{
#ifdef TC_RB_MODEL_CHECK
	(void)ns;
#else
	struct timespec delay = {.tv_sec = (time_t)(ns / 1000000000u),
				 .tv_nsec = (long)(ns % 1000000000u)};

	while (nanosleep(&delay, &delay) < 0 && errno == EINTR)
		;
#endif
}

/* For the duration of one flush. When the caller cannot visit the
 * buffer's CPU, it waits unreachable_wait ns instead (tc_rb_flush_status());
 * with 0, false, with nothing held. */
static bool
lock_out_begin(const struct tc_rb *rb, uint64_t unreachable_wait)
{
	if (tc_rb_unordered_clock(rb))
		return true; /* TSC buffers move with a locked swap only */
	TC_RB_SCHED_POINT();
	__atomic_fetch_add(&rb->shm->locked_moves, 1, __ATOMIC_SEQ_CST);
	if (lock_out_took_hold(rb, true))
		return true;
	if (unreachable_wait) {
		wait_ns(unreachable_wait);
		return true;
	}
	__atomic_fetch_sub(&rb->shm->locked_moves, 1, __ATOMIC_RELEASE);
	return false;
}

static void
lock_out_end(const struct tc_rb *rb)
{
	if (tc_rb_unordered_clock(rb))
		return;
	TC_RB_SCHED_POINT();
	__atomic_fetch_sub(&rb->shm->locked_moves, 1, __ATOMIC_RELEASE);
}
#else
static bool
lock_out_begin(const struct tc_rb *rb, uint64_t unreachable_wait)
{
	(void)rb;
	(void)unreachable_wait;
	return true;
}

static void
lock_out_end(const struct tc_rb *rb)
{
	(void)rb;
}
#endif

void
tc_rb_discard(const struct tc_rb *rb)
{
	count_discarded(rb);
}

/*
 * May the sub-buffer starting at boundary be opened? Discard mode: not when
 * the reader is a whole buffer behind (Buffer Full, equation 1). Overwrite
 * mode: not when the previous round of that sub-buffer is not Fully
 * Committed (equation 3), which only happens when reservations of a whole
 * buffer's worth nested over (or overtook) one that is still uncommitted;
 * a full buffer is not a reason, the reader gets pushed after the CAS.
 * The acquire loads order the caller's later writes into the sub-buffer
 * after the reader's put (discard) or the last commit into it (overwrite).
 */
static bool
subbuf_can_open(const struct tc_rb *rb, uint64_t boundary)
{
	uint64_t consumed, count;

	TC_RB_SCHED_POINT();
	if (!is_overwrite(rb)) {
		consumed = __atomic_load_n(&rb->shm->consumed, __ATOMIC_ACQUIRE);
		/* Signed: a reader ahead of the writers (it skipped sub-buffers
		 * the application scribbled on) must not look a buffer behind. */
		return (int64_t)(boundary - consumed) < (int64_t)buffer_size(rb);
	}
	count = commit_count(rb, subbuf_index(rb, boundary));
	return ((count - commit_base(rb, boundary)) & commit_mask(rb)) == 0;
}

/*
 * Overwrite mode, right after the CAS that opened the sub-buffer at boundary
 * and before anything is written into it: if the reader has not released
 * that sub-buffer's previous round (consumed <= boundary - buffer size),
 * move consumed to the sub-buffer after it. Acquire-release: the header and
 * record stores that follow cannot be seen before the push, so a reader that
 * copied any of them sees consumed moved when it re-reads it (tc-rb.h).
 * Lock-free: a failed CAS means the reader or another writer moved consumed
 * forward, and the loop re-evaluates.
 */
static void
push_reader(const struct tc_rb *rb, uint64_t boundary)
{
	uint64_t target = boundary - buffer_size(rb) + rb->subbuf_size;
	uint64_t consumed;

	TC_RB_SCHED_POINT();
	consumed = __atomic_load_n(&rb->shm->consumed, __ATOMIC_ACQUIRE);
	while ((int64_t)(target - consumed) > 0) {
		TC_RB_SCHED_POINT();
		if (__atomic_compare_exchange_n(&rb->shm->consumed, &consumed, target, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			__atomic_fetch_add(&rb->shm->packets_overwritten,
					   (target - consumed) / rb->subbuf_size, __ATOMIC_RELAXED);
			break;
		}
	}
}

/*
 * Reserves len bytes (event header included); see tc-rb.h.
 *
 * Why timestamps of physically consecutive records never go back: every
 * move of write_offset (a reservation, the close of a packet, a flush)
 * stores its timestamp with it in one CAS of the position, and takes a
 * timestamp no older than the one it found there (tc_rb_clamp_timestamp()).
 * The CAS succeeds only if the position is still what was loaded, so the
 * timestamp compared with is exactly that of the move just before in the
 * buffer. This holds whatever the clock read does (on x86-64 a bare rdtsc,
 * which may run ahead of the load of the position); where the position is
 * swapped in two steps (not x86-64), the clock is read in order after the
 * load (clock_gettime()), as the comparison alone would not be enough
 * there. A retry (failed CAS, or a close) reads the clock again. The begin
 * and end times in packet headers are the timestamps of the moves that
 * opened and closed the packet.
 *
 * Compact headers (full_ts_extra): the reference a CTF reader restores the
 * left-out bits from is the timestamp of the record just before (or the
 * packet's timestamp_begin, the first record's own): the last timestamp of
 * a successful CAS. A scribbled last timestamp only makes full headers
 * more likely.
 *
 * A move that ends a packet (a close, or a record that fits exactly) reads
 * the packet's discarded count just before it (discarded_before_end()).
 *
 * Returns 0, -ENOBUFS when the buffer is full, -EMSGSIZE when len can never
 * fit in a sub-buffer (both counted in events_discarded), -EINVAL when len
 * is 0.
 */
int
tc_rb_reserve_slow(struct tc_rb *rb, struct tc_rb_ctx *ctx, uint32_t len, uint32_t full_ts_extra)
{
	const uint64_t header_size = sizeof(struct tc_packet_header);
	uint64_t old, used, timestamp, record, last, discarded = 0;
	enum tc_rb_move moved;
	uint32_t slot_size;
	bool closed = false, full;

	if (__builtin_expect(len == 0, 0))
		return -EINVAL;
	if (__builtin_expect(len > rb->subbuf_size - header_size ||
				     full_ts_extra > rb->subbuf_size - header_size - len,
			     0)) {
		count_discarded(rb);
		return -EMSGSIZE;
	}

	old = load_position(rb, &last);
	for (;;) {
		timestamp = tc_rb_clamp_timestamp(tc_rb_timestamp(rb), last);
		full = full_ts_extra != 0 && tc_rb_needs_full_timestamp(timestamp, last);
		slot_size = full ? len + full_ts_extra : len;
		used = offset_in_subbuf(rb, old);
		if (__builtin_expect((used ? used : header_size) + slot_size >= rb->subbuf_size, 0))
			discarded = discarded_before_end(rb);
		if (__builtin_expect(used == 0, 0)) {
			if (!subbuf_can_open(rb, old)) {
				/* Overwrite mode: a writer that nested over us (a
				 * signal handler) or ran beside us may have opened
				 * this sub-buffer since we loaded old; its commits
				 * then make the round look unfinished. Not a reason
				 * to drop: go on from where write_offset is now. */
				if (is_overwrite(rb) && write_offset_moved(rb, &old, &last))
					continue;
				TC_RB_REFUSING(rb, old);
				count_discarded(rb);
				return -ENOBUFS;
			}
			/* Push before the CAS: once write_offset is past the
			 * boundary, any writer may write into this sub-buffer. */
			if (is_overwrite(rb))
				push_reader(rb, old);
			moved = cas_write_offset(rb, &old, &last, old + header_size + slot_size,
						 timestamp);
			if (moved == TC_RB_MOVE_ELSEWHERE)
				return -EAGAIN;
			if (moved != TC_RB_MOVED)
				continue;
			open_packet(rb, old, timestamp);
			record = old + header_size;
			break;
		}
		if (__builtin_expect(used + slot_size > rb->subbuf_size, 0)) {
			moved = cas_write_offset(rb, &old, &last, old - used + rb->subbuf_size,
						 timestamp);
			if (moved == TC_RB_MOVED) {
				close_packet(rb, old, timestamp, discarded);
				old = old - used + rb->subbuf_size;
				last = timestamp;
				closed = true;
			}
		} else {
			moved = cas_write_offset(rb, &old, &last, old + slot_size, timestamp);
			if (moved == TC_RB_MOVED) {
				record = old;
				break;
			}
		}
		/* A packet this call closed is complete (its padding is
		 * committed); the reader's timer finds it without a wake-up. */
		if (moved == TC_RB_MOVE_ELSEWHERE)
			return -EAGAIN;
	}
	ctx->rb = rb;
	ctx->offset = record;
	ctx->slot_size = slot_size;
	ctx->timestamp = timestamp;
	ctx->full_timestamp = full;
	ctx->slot = rb->data + (record & (buffer_size(rb) - 1));
	ctx->commit = &rb->commit[subbuf_index(rb, record)];
	/* A record ending exactly on the boundary closes its packet (no padding). */
	if (__builtin_expect(offset_in_subbuf(rb, ctx->offset + slot_size) == 0, 0)) {
		finish_packet(rb, ctx->offset + slot_size, rb->subbuf_size, timestamp, discarded);
		closed = true;
	}
	ctx->closed_packet = closed;
	return 0;
}

#ifdef TC_RB_MODEL_CHECK
void
tc_rb_write(const struct tc_rb_ctx *ctx, uint32_t pos, const void *src, uint32_t len)
{
	if (pos > ctx->slot_size || len > ctx->slot_size - pos)
		return;
	TC_RB_SCHED_POINT();
	memcpy(ctx->slot + pos, src, len);
}

void
tc_rb_commit(const struct tc_rb_ctx *ctx)
{
	commit_bytes(ctx->rb, ctx->offset, ctx->slot_size);
}
#endif

static bool
flush_locked(struct tc_rb *rb, uint64_t old, uint64_t last)
{
	uint64_t used, timestamp, discarded;

	for (int attempt = 0; attempt < TC_RB_FLUSH_CAS_RETRIES; attempt++) {
		timestamp = tc_rb_clamp_timestamp(tc_rb_timestamp(rb), last);
		used = offset_in_subbuf(rb, old);
		if (used == 0)
			return false;
		discarded = discarded_before_end(rb);
		if (cas_write_offset_locked(rb, &old, &last, old - used + rb->subbuf_size,
					    timestamp)) {
			close_packet(rb, old, timestamp, discarded);
			return true;
		}
	}
	return false;
}

/*
 * Closes the current sub-buffer if it holds data. Used by the consumer at
 * stop/flush time and by the application: write_offset may be anything the
 * application wrote, hence the bounded number of attempts. A sub-buffer
 * with data is closed with the writers' plain moves locked out, which
 * takes a visit to the buffer's CPU (lock_out_begin()); false when the
 * caller cannot go there.
 */
int
tc_rb_flush_status(struct tc_rb *rb, uint64_t unreachable_wait)
{
	uint64_t last, old = load_position(rb, &last);
	bool closed;

	/* Nothing to close: no need to go to the buffer's CPU. */
	if (offset_in_subbuf(rb, old) == 0)
		return 0;
	if (!lock_out_begin(rb, unreachable_wait))
		return -EAGAIN;
	old = load_position(rb, &last);
	closed = flush_locked(rb, old, last);
	lock_out_end(rb);
	return closed ? 1 : 0;
}

bool
tc_rb_flush(struct tc_rb *rb)
{
	return tc_rb_flush_status(rb, 0) == 1;
}

/*
 * Opens and closes a packet holding only its header at the current
 * sub-buffer boundary, so that events discarded after the last packet was
 * closed are reported somewhere (babeltrace2 reports discards in the packet
 * whose count grew). Only at a boundary: call tc_rb_flush() first.
 */
static bool
close_empty_packet_locked(struct tc_rb *rb)
{
	const uint64_t header_size = sizeof(struct tc_packet_header);
	uint64_t old, last, timestamp, discarded;
	int attempt;

	old = load_position(rb, &last);
	for (attempt = 0; attempt < TC_RB_FLUSH_CAS_RETRIES; attempt++) {
		timestamp = tc_rb_clamp_timestamp(tc_rb_timestamp(rb), last);
		if (offset_in_subbuf(rb, old) != 0 || !subbuf_can_open(rb, old))
			return false;
		if (is_overwrite(rb))
			push_reader(rb, old);
		discarded = discarded_before_end(rb);
		if (!cas_write_offset_locked(rb, &old, &last, old + rb->subbuf_size, timestamp))
			continue;
		open_packet(rb, old, timestamp);
		finish_packet(rb, old + rb->subbuf_size, header_size, timestamp, discarded);
		commit_bytes(rb, old, rb->subbuf_size - header_size);
		return true;
	}
	return false;
}

/* The same with the writers' plain moves locked out (tc_rb_flush()). */
bool
tc_rb_close_empty_packet(struct tc_rb *rb)
{
	bool written;

	if (!lock_out_begin(rb, TC_RB_UNREACHABLE_WAIT_NS))
		return false;
	written = close_empty_packet_locked(rb);
	lock_out_end(rb);
	return written;
}

int
tc_rb_reader_init(struct tc_rb_reader *reader, void *mapping, uint64_t mapping_size,
		  uint32_t stream_id, uint32_t cpu, const uint8_t uuid[16])
{
	int ret;

	if (!reader || !uuid)
		return -EINVAL;
	memset(reader, 0, sizeof(*reader));
	ret = tc_rb_attach(&reader->rb, mapping, mapping_size);
	if (ret < 0)
		return ret;
	reader->stream_id = stream_id;
	reader->cpu = cpu;
	/* The reader's own commits (flush, empty packet) trust its copy. */
	reader->rb.cpu = cpu;
	memcpy(reader->uuid, uuid, sizeof(reader->uuid));
	return 0;
}

/* Has write_offset moved past the sub-buffer starting at subbuf_start? */
static bool
writers_passed(const struct tc_rb *rb, uint64_t subbuf_start)
{
	uint64_t written;

	TC_RB_SCHED_POINT();
	written = __atomic_load_n(&rb->shm->write_offset, __ATOMIC_ACQUIRE);

	return (int64_t)(written - subbuf_start) >= (int64_t)rb->subbuf_size;
}

/* Checks a packet copied out of shared memory. Returns true when it is sane. */
static bool
packet_is_valid(const struct tc_rb_reader *reader, const struct tc_packet_header *header,
		uint64_t position)
{
	uint64_t packet_bits = (uint64_t)reader->rb.subbuf_size * 8;

	if (header->magic != TC_CTF_MAGIC || header->stream_id != reader->stream_id ||
	    header->stream_instance_id != reader->cpu || header->cpu_id != reader->cpu ||
	    memcmp(header->uuid, reader->uuid, sizeof(header->uuid)) != 0)
		return false;
	if (header->packet_size != packet_bits)
		return false;
	if (header->content_size < sizeof(*header) * 8 || header->content_size > packet_bits ||
	    header->content_size % 8 != 0)
		return false;
	if (header->packet_seq_num != position / reader->rb.subbuf_size)
		return false;
	return header->timestamp_begin <= header->timestamp_end;
}

/*
 * Moves the read count past the sub-buffer at reader->consumed. Release: our
 * reads of the sub-buffer are done before writers reuse it. In overwrite
 * mode writers move consumed too, so it only ever moves forward by CAS; an
 * application that keeps rewriting it gets a bounded number of attempts.
 */
static void
release_subbuf(struct tc_rb_reader *reader)
{
	uint64_t *shared = &reader->rb.shm->consumed;
	uint64_t next = reader->consumed + reader->rb.subbuf_size;
	uint64_t current;

	reader->consumed = next;
	TC_RB_SCHED_POINT();
	if (!is_overwrite(&reader->rb)) {
		__atomic_store_n(shared, next, __ATOMIC_RELEASE);
		return;
	}
	current = __atomic_load_n(shared, __ATOMIC_RELAXED);
	for (int attempt = 0; attempt < TC_RB_PUT_CAS_RETRIES; attempt++) {
		/* A writer already pushed it here or further: leave it. */
		if ((int64_t)(next - current) <= 0)
			return;
		TC_RB_SCHED_POINT();
		if (__atomic_compare_exchange_n(shared, &current, next, false, __ATOMIC_RELEASE,
						__ATOMIC_RELAXED))
			return;
	}
}

/*
 * Overwrite mode: loads consumed and, when writers pushed it ahead of the
 * reader, moves the reader there, counting the sub-buffers it lost. A value
 * behind the reader can only come from the application scribbling; it is
 * ignored.
 */
static void
follow_pushed_reader(struct tc_rb_reader *reader)
{
	uint64_t shared;

	TC_RB_SCHED_POINT();
	shared = __atomic_load_n(&reader->rb.shm->consumed, __ATOMIC_ACQUIRE);
	shared &= ~(uint64_t)(reader->rb.subbuf_size - 1);
	if ((int64_t)(shared - reader->consumed) > 0) {
		reader->packets_overwritten += (shared - reader->consumed) / reader->rb.subbuf_size;
		reader->consumed = shared;
	}
}

/* Overwrite mode, after a copy: did a writer push the reader meanwhile? */
static bool
reader_was_pushed(const struct tc_rb_reader *reader)
{
	/* Orders the copy's loads before the load of consumed: a copy that saw
	 * a byte a writer stored after its push also sees the push. */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	TC_RB_SCHED_POINT();
	return __atomic_load_n(&reader->rb.shm->consumed, __ATOMIC_RELAXED) != reader->consumed;
}

/* The model-check build copies in two halves, with a thread switch between. */
static void
copy_subbuf(const struct tc_rb *rb, uint32_t idx, void *out)
{
	const uint8_t *src = rb->data + (uint64_t)idx * rb->subbuf_size;

	TC_RB_SCHED_POINT();
#ifdef TC_RB_MODEL_CHECK
	memcpy(out, src, rb->subbuf_size / 2);
	TC_RB_SCHED_POINT();
	memcpy((uint8_t *)out + rb->subbuf_size / 2, src + rb->subbuf_size / 2,
	       rb->subbuf_size / 2);
#else
	memcpy(out, src, rb->subbuf_size);
#endif
}

/* What the writers committed to the sub-buffer at consumed in its round:
 * subbuf_size when it is ready (Sub-buffer Ready, equation 2), less while
 * it is being written, more only if a writer is a round ahead. The commit
 * count is loaded with acquire, which orders the reads of the packet. */
static uint64_t
committed_this_round(const struct tc_rb *rb, uint64_t consumed)
{
	uint64_t count = commit_count(rb, subbuf_index(rb, consumed));

	return (count - commit_base(rb, consumed)) & commit_mask(rb);
}

/*
 * See tc-rb.h. Sub-buffer idx of round r holds a commit count in
 * [r * subbuf_size, (r + 1) * subbuf_size] as long as the application plays
 * by the rules: a discard-mode writer cannot be a round ahead, since it
 * refuses to open a sub-buffer that was not consumed. In overwrite mode a
 * writer can be a round ahead only after pushing consumed, which the reader
 * re-reads before calling it corruption. Anything else was written by
 * someone else and the sub-buffer is skipped.
 */
int
tc_rb_reader_get(struct tc_rb_reader *reader, void *out)
{
	const struct tc_rb *rb = &reader->rb;
	const bool overwrite = is_overwrite(rb);
	uint64_t filled;

	for (int attempt = 0; attempt < TC_RB_READ_LAP_RETRIES; attempt++) {
		if (overwrite)
			follow_pushed_reader(reader);
		/* Never judge a sub-buffer the writers have not left yet: a
		 * scribbled count there would make the reader skip ahead of them. */
		if (!writers_passed(rb, reader->consumed))
			return 0;
		filled = committed_this_round(rb, reader->consumed);
		if (filled < rb->subbuf_size)
			return 0;
		if (filled > rb->subbuf_size) {
			/* A round ahead: legitimate only after a push. */
			if (overwrite && reader_was_pushed(reader))
				continue;
			goto corrupted;
		}

		/* Copy first, then check only the copy: the application may still be
		 * writing into the shared sub-buffer. */
		copy_subbuf(rb, subbuf_index(rb, reader->consumed), out);
		/* Lapped while copying: the copy may mix two rounds. The next
		 * attempt follows consumed and counts this sub-buffer as lost. */
		if (overwrite && reader_was_pushed(reader))
			continue;
		if (!packet_is_valid(reader, out, reader->consumed))
			goto corrupted;
		reader->events_discarded_seen =
			((const struct tc_packet_header *)out)->events_discarded;
		return 1;
	}
	/* Writers keep lapping the reader (or the application keeps rewriting
	 * consumed): nothing stable to read right now. */
	return 0;

corrupted:
	reader->packets_corrupted++;
	release_subbuf(reader);
	return -EBADMSG;
}

/*
 * See tc-rb.h. Discard mode only: a writer that plays by the rules cannot
 * open the sub-buffer again before the put, so the checks and the send
 * may read it where it is. One that does not is of the consumer's uid
 * (the caller's rule), and what it can change after the checks is values,
 * never where the checks read: every length they use is read once.
 */
int
tc_rb_reader_get_in_place(struct tc_rb_reader *reader, uint8_t **packet)
{
	const struct tc_rb *rb = &reader->rb;
	struct tc_packet_header *header;
	uint64_t filled;

	if (is_overwrite(rb))
		return -EINVAL;
	if (!writers_passed(rb, reader->consumed))
		return 0;
	filled = committed_this_round(rb, reader->consumed);
	if (filled < rb->subbuf_size)
		return 0;
	if (filled > rb->subbuf_size)
		goto corrupted;
	/* The acquire load of the commit count orders the reads below. */
	header = (struct tc_packet_header *)(rb->data + (uint64_t)subbuf_index(rb, reader->consumed) *
					     rb->subbuf_size);
	if (!packet_is_valid(reader, header, reader->consumed))
		goto corrupted;
	reader->events_discarded_seen = header->events_discarded;
	*packet = (uint8_t *)header;
	return 1;

corrupted:
	reader->packets_corrupted++;
	release_subbuf(reader);
	return -EBADMSG;
}

bool
tc_rb_reader_ready(const struct tc_rb_reader *reader)
{
	const struct tc_rb *rb = &reader->rb;

	if (!writers_passed(rb, reader->consumed))
		return false;
	if (is_overwrite(rb)) /* pushed or not, get finds one */
		return true;
	return committed_this_round(rb, reader->consumed) >= rb->subbuf_size;
}

void
tc_rb_reader_put(struct tc_rb_reader *reader)
{
	release_subbuf(reader);
}

void
tc_rb_reader_snapshot_range(const struct tc_rb_reader *reader, uint64_t *begin, uint64_t *end)
{
	const struct tc_rb *rb = &reader->rb;
	uint64_t mask = ~(uint64_t)(rb->subbuf_size - 1);
	uint64_t written = __atomic_load_n(&rb->shm->write_offset, __ATOMIC_ACQUIRE) & mask;
	uint64_t consumed = __atomic_load_n(&rb->shm->consumed, __ATOMIC_ACQUIRE) & mask;
	uint64_t oldest = written >= buffer_size(rb) ? written - buffer_size(rb) : 0;

	/* Both values come from shared memory: never more than a buffer. */
	*begin = (int64_t)(consumed - oldest) > 0 && (int64_t)(written - consumed) >= 0 ? consumed
										      : oldest;
	*end = written;
}

/*
 * See tc-rb.h. Like get, without consuming: the sub-buffer must be complete
 * for the round of position (equation 2), and, in overwrite mode, no writer
 * may have pushed the read count past it by the end of the copy, since a
 * writer pushes before it writes a byte of the next round.
 */
int
tc_rb_reader_peek(struct tc_rb_reader *reader, uint64_t position, void *out)
{
	const struct tc_rb *rb = &reader->rb;
	uint32_t idx = subbuf_index(rb, position);
	uint64_t count, consumed;

	if (offset_in_subbuf(rb, position) != 0 || !writers_passed(rb, position))
		return 0;
	count = commit_count(rb, idx);
	if (((count - commit_base(rb, position)) & commit_mask(rb)) != rb->subbuf_size)
		return 0;
	copy_subbuf(rb, idx, out);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	consumed = __atomic_load_n(&rb->shm->consumed, __ATOMIC_RELAXED);
	if (is_overwrite(rb) && (int64_t)(consumed - position) > 0)
		return 0;
	if (!packet_is_valid(reader, out, position)) {
		reader->packets_corrupted++;
		return -EBADMSG;
	}
	return 1;
}

/* Sub-buffers are powers of two from TC_RB_SUBBUF_SIZE_MIN: whole units. */
static_assert(TC_RB_SUBBUF_SIZE_MIN % TC_RB_PACKET_UNIT == 0, "packet unit");

uint32_t
tc_rb_reader_trim(const struct tc_rb_reader *reader, void *out)
{
	struct tc_packet_header *header = out;
	uint32_t subbuf_size = reader->rb.subbuf_size;
	uint64_t bytes = header->content_size / 8;

	bytes = (bytes + TC_RB_PACKET_UNIT - 1) & ~(uint64_t)(TC_RB_PACKET_UNIT - 1);
	/* Checked by get and peek already; kept so that no caller can write
	 * past the copy. */
	if (bytes > subbuf_size)
		bytes = subbuf_size;
	header->packet_size = bytes * 8;
	return (uint32_t)bytes;
}

uint64_t
tc_rb_bytes_used(const struct tc_rb *rb)
{
	uint64_t written = __atomic_load_n(&rb->shm->write_offset, __ATOMIC_RELAXED);
	uint64_t consumed = __atomic_load_n(&rb->shm->consumed, __ATOMIC_RELAXED);
	int64_t used = (int64_t)(written - consumed);

	/* Scribbled values must not make a nonsense figure. */
	if (used < 0)
		return 0;
	return (uint64_t)used > buffer_size(rb) ? buffer_size(rb) : (uint64_t)used;
}

/* The unread bytes at which a writer wakes the reader: all but three
 * quarters of the buffer or TC_RB_WAKE_ROOM, whichever leaves more, and
 * one sub-buffer at least. */
static uint64_t
wake_threshold(const struct tc_rb *rb)
{
	uint64_t room = buffer_size(rb) / 4 * 3;
	uint64_t unread;

	if (room > TC_RB_WAKE_ROOM)
		room = TC_RB_WAKE_ROOM;
	unread = buffer_size(rb) - room;
	return unread > rb->subbuf_size ? unread : rb->subbuf_size;
}

uint32_t
tc_rb_wake_packets(const struct tc_rb *rb)
{
	return (uint32_t)((wake_threshold(rb) + rb->subbuf_size - 1) / rb->subbuf_size);
}

void
tc_rb_wake_reader(const struct tc_rb *rb)
{
	uint64_t unread;

	if (rb->wake_fd < 0)
		return;
	/* Batches: until the room left falls to three quarters of the buffer,
	 * or to TC_RB_WAKE_ROOM in a bigger one, and one sub-buffer is
	 * unread at least, the reader's timer collects the closed
	 * sub-buffers, so that a burst does not wake the reader onto a CPU
	 * the writers need and the reader copies more per wake-up. */
	unread = __atomic_load_n(&rb->shm->write_offset, __ATOMIC_RELAXED) -
		 __atomic_load_n(&rb->shm->consumed, __ATOMIC_RELAXED);
	if (unread < wake_threshold(rb))
		return;
	/* Non-blocking: a full counter means the reader has a wake-up pending
	 * anyway. */
	eventfd_write(rb->wake_fd, 1);
}
