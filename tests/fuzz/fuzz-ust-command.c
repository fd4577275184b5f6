/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes libtracectl-ust's reading of the service's commands: the
 * listener's receive_command(), handle_command() and apply_command_locked()
 * (tc-ust-listener.c, included below so that its static functions run
 * unchanged, without its thread) and the tc_ust_state_* functions that
 * apply them (tc-ust-state.c, with the filter verifier, the ring buffer's
 * checks of a mapping and the tracepoint's fast path built in). The
 * service is another party: a delegated user or root may drive another
 * user's application, which must neither crash, nor leak, nor map what
 * its checks refuse, whatever it is sent.
 *
 * The harness plays tracectld over a real AF_UNIX SOCK_SEQPACKET pair. It
 * connects as the listener does (send_register() and the first batch of
 * send_pending_events(), read back and checked), then sends one datagram
 * per step of the input and has the listener receive and handle it; a
 * connection that ends is ended as the listener ends it
 * (connection_ended()), and the next step connects again. Three events
 * are registered once, as a provider's constructor does: fuzz_ust:request
 * (unsigned, signed and string fields) and fuzz_ust:sample (double and
 * bytes) for filters to load against, and fuzz_ust:unloaded, whose module
 * is gone. The harness's thread is pinned to its CPU, so that a
 * tracepoint's buffer is known.
 *
 * Input: steps, each an op byte (low four bits the kind; OP_TWIST: a twist
 * byte follows, OP_SEQ_ZERO: seq 0, OP_FDS: a descriptor count follows,
 * OP_EMIT: an emission follows), then the bytes of its kind:
 *   CHANNEL_ADD     session, channel, geometry, streams, contexts, stream id
 *   CHANNEL_REMOVE  session (bit 7 clear: the channel's own), channel
 *   STREAM_ADD      channel, cpu (0xff: 4 bytes follow), file shape,
 *                   message shape
 *   EVENT_ENABLE, EVENT_DISABLE  channel, index (0xff: 4 bytes), id
 *   EVENT_FILTER    channel, index, program, immediate
 *   NOTIFIER_ADD    channel, shape
 *   SESSION_START, SESSION_STOP  session;  EVENTS_DONE  batch
 *   RAW             type (bit 7: a good header), 2 bytes of length, bytes
 *   HANG_UP         the service closes its end
 *   RECLAIM         the listener's quiet period passes (reclaim())
 *   EMIT            burst, id, latency, path, value, blob length
 * A STREAM_ADD comes with its buffer (a memfd of a size around its
 * geometry's, its header right or wrong in one of a dozen ways, or an
 * eventfd) and its wake-up descriptor (a non-blocking eventfd, a pipe with
 * no reader, a memfd, a blocking eventfd whose counter is full); a
 * NOTIFIER_ADD with its page (a memfd sealed or not, of some size, or
 * another kind). OP_FDS sends 0 to 10 instead. A twist changes the magic,
 * the size field or the type, cuts or extends the datagram, flips a byte.
 *
 * The harness keeps a model of what the application must hold, written
 * from the ABI's documentation (tracectl-abi.h, tc-ust-state.h, tc-rb.h,
 * tc-filter-bytecode.h), not from the code under test. What must hold,
 * beside no error under AddressSanitizer and UBSan:
 *
 * - Framing: a datagram that is empty, longer than TRACECTL_ABI_MSG_MAX,
 *   with more than 8 descriptors, a wrong magic, a size field other than
 *   its length, a type the service does not send, a length other than its
 *   type's or a number of descriptors other than its type's (2 for
 *   STREAM_ADD, 1 for NOTIFIER_ADD, none else) ends the connection with
 *   -ECONNRESET or -EPROTO and no REPLY; any other is answered by one REPLY
 *   with its seq, unless its seq is 0, and by nothing else.
 * - Verdicts: the REPLY's status is the model's: 0 for a command that can
 *   be applied, else -EEXIST, -ENOENT, -EINVAL or -EBUSY as the rules say.
 *   Among the refusals: a buffer that is not a regular file, is shorter
 *   than its channel's geometry, or whose header (magic, version, flags,
 *   geometry, data offset, size, CPU) is not the channel's; a notifier
 *   page not sealed against shrinking; a filter program that breaks the
 *   verifier's rules, as the harness writes ones whose verdict it knows
 *   (a wrong magic, no RETURN, a stack underflow, a size off by one, a
 *   field of the wrong type or out of range). A program whose bytes a
 *   twist changed may be taken or refused; the model follows the REPLY.
 * - State: after each command, the channels, their streams (mapped from
 *   the file sent: same bytes, CPU and geometry), sessions and their
 *   activity, the bindings of events to channels (enabled, id, filter or
 *   refusal), each event's enabled word and the count of retired objects
 *   are the model's. A stream keeps its wake-up descriptor only when it
 *   is a non-blocking eventfd (tc_ust_state_stream_add()): writing into
 *   another kind could block a tracepoint or kill the process with
 *   SIGPIPE.
 * - Recording: an event emitted reaches (is written into, or counted as
 *   discarded by) the buffer of the harness's CPU of each channel of an
 *   active session where it is enabled and its filter passes, and no other
 *   buffer; a notifier's count grows by the number of emitted events
 *   enabled in it whose filters pass.
 * - Resources: after a reclaim no retired object is left, the mappings of
 *   the harness's memfds are those of the live streams and notifiers, and
 *   the descriptors open are the harness's plus one wake-up descriptor per
 *   live stream; once a connection ended the state is empty (no channel,
 *   session, binding, enabled word, retired object, mapping of the
 *   harness's memfds) and no descriptor of the input is left open. Both
 *   counts read /proc: the descriptors at those points of every input,
 *   the mappings at those points of one input in MAPS_EVERY, before it,
 *   and when the process exits (see MAPS_EVERY below).
 *
 * Built with libFuzzer it is a coverage-guided fuzzer, from the top of the
 * source tree (Debian's clang):
 *
 *   clang -g -O1 -D_GNU_SOURCE -DFUZZ_LIBFUZZER \
 *     -fsanitize=fuzzer,address,undefined -Itests/fuzz -Iprobes/lib \
 *     -Iprobes/include -Icommon/abi -Icommon/ringbuffer -Icommon/util \
 *     tests/fuzz/fuzz-ust-command.c probes/lib/tc-ust-state.c \
 *     probes/lib/tc-ust-filter.c probes/lib/tc-ust-context.c \
 *     probes/lib/tc-ust-rcu.c probes/lib/tc-ust-log.c probes/lib/tc-ust-wait.c \
 *     probes/lib/tc-ust-emit.c common/ringbuffer/tc-rb.c \
 *     common/util/tc-fd-passing.c common/util/tc-log-line.c -lpthread \
 *     -o fuzz-ust-command
 *   ./fuzz-ust-command -max_len=1024 tests/fuzz/corpus/fuzz-ust-command
 *
 * Otherwise fuzz-driver.c's main() mutates the seeds below:
 * `fuzz-ust-command --seed N --runs M`. With FUZZ_UST_COMMAND_MAPS_EVERY=1
 * the mappings are counted in every input.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz-driver.h"

/* The listener with its static functions; its thread is never started. */
#include "tc-ust-listener.c"

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		fprintf(stderr, "fuzz-ust-command: " __VA_ARGS__);                                 \
		fprintf(stderr, "\n");                                                             \
		abort();                                                                           \
	} while (0)

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define STEPS_MAX 32u
#define EVENTS 3u
#define EVENT_UNLOADED 2u
/* The listener receives 8 descriptors; the kernel cuts more (MSG_CTRUNC). */
#define LISTENER_FDS_MAX 8u
#define SENT_FDS_MAX 10u
/* The streams tc-ust-state.c takes per channel: a buffer per possible CPU. */
#define STREAMS_PER_CHANNEL_MAX 4096u
/* Files of larger geometries are made this long, and refused as short. */
#define FILE_SIZE_MAX (1u << 20)
#define RAW_MAX (TRACECTL_ABI_MSG_MAX + 64u)
#define PAGE_SIZE_BYTES 4096u
/* Names of the memfds whose mappings are counted in /proc/self/maps. */
#define MEMFD_PREFIX "fuzz-ust-"
/* The kernel writes /proc/self/maps anew for each count, a line for each
 * of the process's mappings (some 200, most of them AddressSanitizer's):
 * about 100 us of system time, several times an input, which was most of
 * an input's time. So one input in MAPS_EVERY has its mappings counted,
 * at the start (none may be left by the inputs since the last count) and
 * at each of its steps that checks them, and the process once it exits.
 * A mapping left for good is still found, within MAPS_EVERY inputs; one
 * held too long within an input, on the inputs counted. */
#define MAPS_EVERY 16u
#define MAPS_TEXT_MAX (1u << 20)
/* An emission burst that closes packets, so that wake-ups are written. */
#define BURST_LONG 256u

/* The op byte of a step. */
enum step_kind {
	STEP_CHANNEL_ADD,
	STEP_CHANNEL_REMOVE,
	STEP_STREAM_ADD,
	STEP_EVENT_ENABLE,
	STEP_EVENT_DISABLE,
	STEP_EVENT_FILTER,
	STEP_NOTIFIER_ADD,
	STEP_SESSION_START,
	STEP_SESSION_STOP,
	STEP_EVENTS_DONE,
	STEP_RAW,
	STEP_HANG_UP,
	STEP_RECLAIM,
	STEP_EMIT,
	STEP_STREAM_ADD_AGAIN, /* the commands a session needs most, twice as often */
	STEP_EVENT_ENABLE_AGAIN,
};
#define OP_TWIST 0x10u
#define OP_SEQ_ZERO 0x20u
#define OP_FDS 0x40u
#define OP_EMIT 0x80u

enum outcome {
	TAKEN,
	REFUSED,
	MALFORMED,
	WRONG_FDS,
	HUNG_UP,
	STREAM_MAPPED,
	STREAM_REFUSED,
	NOTIFIER_MAPPED,
	FILTER_LOADED,
	FILTER_REFUSED,
	RECORDED,
	COUNTED,
	RECLAIMED,
	RESET,
	OUTCOMES,
};
/* Named by the standalone driver only. */
static const char *const outcome_names[OUTCOMES] __attribute__((unused)) = {
    "taken",	     "refused",	       "malformed",	  "wrong fds",	   "hung up",
    "stream mapped", "stream refused", "notifier mapped", "filter loaded", "filter refused",
    "recorded",	     "counted",	       "reclaimed",	  "reset",
};
static unsigned long long outcomes[OUTCOMES];

/* The provider, registered once. */
static const struct tracectl_ust_field request_fields[] = {
    {"id", TRACECTL_UST_FIELD_UNSIGNED, 8},
    {"latency", TRACECTL_UST_FIELD_SIGNED, 4},
    {"path", TRACECTL_UST_FIELD_STRING, 0},
};
static const struct tracectl_ust_field sample_fields[] = {
    {"value", TRACECTL_UST_FIELD_DOUBLE, 8},
    {"blob", TRACECTL_UST_FIELD_BYTES, 0},
};
static struct tracectl_ust_event event_request = {
    .loglevel = TRACECTL_LOGLEVEL_INFO,
    .provider = "fuzz_ust",
    .name = "request",
    .fields = request_fields,
    .nr_fields = ARRAY_LEN(request_fields),
};
static struct tracectl_ust_event event_sample = {
    .loglevel = TRACECTL_LOGLEVEL_DEBUG,
    .provider = "fuzz_ust",
    .name = "sample",
    .fields = sample_fields,
    .nr_fields = ARRAY_LEN(sample_fields),
};
static struct tracectl_ust_event event_unloaded = {
    .loglevel = TRACECTL_LOGLEVEL_INFO,
    .provider = "fuzz_ust",
    .name = "unloaded",
    .fields = request_fields,
    .nr_fields = ARRAY_LEN(request_fields),
};
static struct tracectl_ust_event *const events[EVENTS] = {&event_request, &event_sample,
							  &event_unloaded};

/* Handles the input picks from: a few, so that they meet again. */
static const uint64_t channel_handles[] = {1, 2, 3, UINT64_MAX};
static const uint64_t session_handles[] = {100, 101, 0, TRACECTL_NOTIFIER_SESSION};
static const char *const literals[] = {"a", "/x", "", "ab"};
static const uint8_t int_compares[] = {TC_FILTER_OP_EQ, TC_FILTER_OP_NE, TC_FILTER_OP_LT,
				       TC_FILTER_OP_GT};
static const uint8_t double_compares[] = {TC_FILTER_OP_DEQ, TC_FILTER_OP_DNE, TC_FILTER_OP_DLT,
					  TC_FILTER_OP_DGT};

/* Filter programs the harness writes, whose verdicts it knows. */
enum program_kind {
	PROGRAM_NONE, /* size 0: the filter goes */
	PROGRAM_CONST,
	PROGRAM_INT_CMP,
	PROGRAM_DOUBLE_CMP,
	PROGRAM_STR_EQ,
	PROGRAM_BAD_MAGIC,
	PROGRAM_NO_RETURN,
	PROGRAM_UNDERFLOW,
	PROGRAM_SIZE_OFF,
	PROGRAM_TOO_BIG,
	PROGRAM_UNKNOWN, /* not as written: its verdict is not predicted */
};

struct program {
	enum program_kind kind;
	uint8_t field, compare;
	int64_t imm;
	double dimm;
	const char *literal;
};

/* Descriptors the harness sends, by what the rules make of them. */
enum fd_kind {
	FD_EVENTFD,	   /* non-blocking: a wake-up descriptor as the consumer makes it */
	FD_EVENTFD_FULL,   /* blocking, its counter full: a write would wait */
	FD_PIPE_NO_READER, /* a write would raise SIGPIPE */
	FD_MEMFD,
};

/* The model. */

struct model_stream {
	uint32_t cpu;
	int fd; /* the harness's copy of the buffer */
	bool holds_wake_fd;
};

struct model_channel {
	uint64_t handle, session;
	bool is_notifier;
	uint32_t nr_streams, subbuf_size, num_subbuf, contexts, stream_id;
	struct model_stream streams[STEPS_MAX];
	unsigned int n_streams;
	int page_fd; /* a notifier's page, the harness's copy */
};

struct model_binding {
	uint32_t index;
	uint64_t channel;
	bool is_enabled, is_refused;
	uint32_t id;
	struct program filter; /* PROGRAM_NONE: every event passes */
};

struct model_session {
	uint64_t handle;
	bool is_active;
};

struct model {
	bool is_connected;
	struct model_channel channels[STEPS_MAX];
	unsigned int n_channels;
	struct model_session sessions[STEPS_MAX];
	unsigned int n_sessions;
	struct model_binding bindings[STEPS_MAX];
	unsigned int n_bindings;
	/* Removed, waiting for a grace period: objects, and what their
	 * streams and pages hold (a mapping each, a descriptor for a stream
	 * that kept its wake-up descriptor). */
	uint32_t retired, retired_mappings, retired_wake_fds;
};

/* The model as it is, and as it becomes with the command under way. */
static struct model model, next_model;
static int pinned_cpu = -1;
/* /proc/self/maps, opened once; one input in maps_every is counted. */
static int maps_fd = -1;
static unsigned int maps_every = MAPS_EVERY;
static bool is_maps_counted;

/* One datagram, built in out: a command as the listener reads it, or
 * more bytes than it reads. */
static union {
	union message message;
	uint8_t bytes[RAW_MAX];
} out;

struct datagram {
	size_t len;
	int fds[SENT_FDS_MAX];
	enum fd_kind kinds[SENT_FDS_MAX];
	bool is_kept[SENT_FDS_MAX]; /* taken into the model: not closed once sent */
	unsigned int n_fds;
	struct program program; /* EVENT_FILTER as built */
	bool has_program;
};

/* What the listener must make of a datagram. */
struct verdict {
	int ret;	 /* receive_command()'s: 0, -EPROTO, -ECONNRESET */
	int status;	 /* the REPLY's */
	bool is_unknown; /* a changed filter program: 0 or -EINVAL */
	enum outcome outcome;
};

struct connection {
	int app_fd, service_fd;
	uint32_t seq;
};

struct payload {
	uint64_t id;
	int32_t latency;
	const char *path;
	double value;
	uint32_t blob_len;
	uint8_t blob[8];
};

/* Resources. */


/* Mappings of the harness's memfds, which only the application maps. */
static unsigned int
count_memfd_mappings(void)
{
	static const char needle[] = "/memfd:" MEMFD_PREFIX;
	static char text[MAPS_TEXT_MAX];
	const char *at = text, *end;
	unsigned int count = 0;
	size_t len = 0;
	ssize_t n = 0;

	if (lseek(maps_fd, 0, SEEK_SET) < 0)
		FAIL("lseek /proc/self/maps: %s", strerror(errno));
	while (len < sizeof(text) && (n = read(maps_fd, text + len, sizeof(text) - len)) > 0)
		len += (size_t)n;
	if (n < 0 || len == sizeof(text))
		FAIL("/proc/self/maps not read whole: %s", n < 0 ? strerror(errno) : "too long");
	for (end = text + len; (at = memmem(at, (size_t)(end - at), needle, sizeof(needle) - 1));
	     at++)
		count++;
	return count;
}

/* Whether this input is counted; if so, nothing may be mapped yet. */
static void
maps_count_begin(void)
{
	static unsigned long long inputs;
	unsigned int mapped;

	is_maps_counted = inputs++ % maps_every == 0;
	if (is_maps_counted && (mapped = count_memfd_mappings()) != 0)
		FAIL("%u mappings of the service's files left by one of the %u inputs before "
		     "this one (FUZZ_UST_COMMAND_MAPS_EVERY=1 counts each)",
		     mapped, maps_every - 1);
}

static void
maps_count_at_exit(void)
{
	unsigned int mapped = count_memfd_mappings();

	if (mapped != 0)
		FAIL("%u mappings of the service's files left at exit by an input since the "
		     "last count (FUZZ_UST_COMMAND_MAPS_EVERY=1 counts each)",
		     mapped);
}

static void
maps_count_set_up(void)
{
	const char *every = getenv("FUZZ_UST_COMMAND_MAPS_EVERY");

	if (every && strtoul(every, NULL, 10) > 0)
		maps_every = (unsigned int)strtoul(every, NULL, 10);
	maps_fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (maps_fd < 0)
		FAIL("open /proc/self/maps: %s", strerror(errno));
	atexit(maps_count_at_exit);
}

static void
close_fd(int fd)
{
	if (fd >= 0 && close(fd) < 0)
		FAIL("close %d: %s", fd, strerror(errno));
}

/* The rules, from the ABI's documentation, written again rather than
 * called, so that the code under test is compared with them. */

static bool
rule_is_power_of_two(uint64_t value)
{
	return value != 0 && (value & (value - 1)) == 0;
}

/* tc-rb.h: 4 KiB to 64 MiB sub-buffers, 2 to 1024 of them, powers of two. */
static bool
rule_geometry(uint64_t subbuf_size, uint64_t num_subbuf)
{
	return rule_is_power_of_two(subbuf_size) && rule_is_power_of_two(num_subbuf) &&
	       subbuf_size >= TC_RB_SUBBUF_SIZE_MIN && subbuf_size <= TC_RB_SUBBUF_SIZE_MAX &&
	       num_subbuf >= TC_RB_NUM_SUBBUF_MIN && num_subbuf <= TC_RB_NUM_SUBBUF_MAX;
}

/* The header page, a cache line of commit counts per sub-buffer, then the
 * sub-buffers from the next page on. */
static uint64_t
rule_data_offset(uint64_t num_subbuf)
{
	uint64_t end = TC_RB_HEADER_SIZE + num_subbuf * TC_RB_CACHELINE;

	return (end + PAGE_SIZE_BYTES - 1) / PAGE_SIZE_BYTES * PAGE_SIZE_BYTES;
}

static uint64_t
rule_shm_size(uint64_t subbuf_size, uint64_t num_subbuf)
{
	return rule_data_offset(num_subbuf) + subbuf_size * num_subbuf;
}

/* The size of each command (tracectl-abi.h), 0 for the other types: a
 * table rather than the listener's switch, so that the two are not the
 * same code. */
static size_t
rule_command_size(uint32_t type)
{
	static const size_t sizes[] = {
	    [TRACECTL_MSG_CHANNEL_ADD] = sizeof(struct tracectl_msg_channel),
	    [TRACECTL_MSG_CHANNEL_REMOVE] = sizeof(struct tracectl_msg_channel),
	    [TRACECTL_MSG_STREAM_ADD] = sizeof(struct tracectl_msg_stream),
	    [TRACECTL_MSG_EVENT_ENABLE] = sizeof(struct tracectl_msg_event_enable),
	    [TRACECTL_MSG_EVENT_DISABLE] = sizeof(struct tracectl_msg_event_enable),
	    [TRACECTL_MSG_EVENT_FILTER] = sizeof(struct tracectl_msg_event_filter),
	    [TRACECTL_MSG_SESSION_START] = sizeof(struct tracectl_msg_session),
	    [TRACECTL_MSG_SESSION_STOP] = sizeof(struct tracectl_msg_session),
	    [TRACECTL_MSG_EVENTS_DONE] = sizeof(struct tracectl_msg_batch),
	    [TRACECTL_MSG_NOTIFIER_ADD] = sizeof(struct tracectl_msg_notifier),
	    [TRACECTL_MSG_CHANNEL_APP_CONTEXTS] = sizeof(struct tracectl_msg_channel_app_contexts),
	    [TRACECTL_MSG_CHANNEL_PERF_COUNTERS] =
		sizeof(struct tracectl_msg_channel_perf_counters),
	};

	return type < ARRAY_LEN(sizes) ? sizes[type] : 0;
}

static unsigned int
rule_command_fds(uint32_t type)
{
	return type == TRACECTL_MSG_STREAM_ADD ? 2 : type == TRACECTL_MSG_NOTIFIER_ADD ? 1 : 0;
}

/* Whether the application may map fd as the buffer of cpu in channel. */
static bool
rule_buffer_acceptable(const struct model_channel *channel, uint32_t cpu, uint64_t shm_size, int fd)
{
	uint64_t expected = rule_shm_size(channel->subbuf_size, channel->num_subbuf);
	struct tc_rb_shm header;
	struct stat st;

	if (shm_size != expected || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size < expected)
		return false;
	if (pread(fd, &header, sizeof(header), 0) != (ssize_t)sizeof(header))
		FAIL("pread of a buffer's header: %s", strerror(errno));
	return (header.flags & ~TC_RB_FLAGS_KNOWN) == 0 && header.magic == TC_RB_MAGIC &&
	       header.version == TC_RB_VERSION &&
	       rule_geometry(header.subbuf_size, header.num_subbuf) &&
	       header.data_offset == rule_data_offset(header.num_subbuf) &&
	       header.shm_size == rule_shm_size(header.subbuf_size, header.num_subbuf) &&
	       header.shm_size == expected && header.subbuf_size == channel->subbuf_size &&
	       header.num_subbuf == channel->num_subbuf && header.cpu == cpu;
}

/* A notifier's page: a regular file of a page at least, sealed against
 * shrinking, mapped whole. */
static bool
rule_page_acceptable(uint64_t shm_size, int fd)
{
	int seals = fcntl(fd, F_GET_SEALS);
	struct stat st;

	return shm_size == TRACECTL_NOTIFIER_PAGE_SIZE && fstat(fd, &st) == 0 &&
	       S_ISREG(st.st_mode) && st.st_size >= (off_t)TRACECTL_NOTIFIER_PAGE_SIZE &&
	       seals >= 0 && (seals & F_SEAL_SHRINK) != 0;
}

/* tc-filter-bytecode.h: loads of a field of their own type, in range. */
static bool
rule_program_valid(const struct program *program, uint32_t index)
{
	const struct tracectl_ust_event *event = events[index];
	const struct tracectl_ust_field *field =
	    program->field < event->nr_fields ? &event->fields[program->field] : NULL;

	switch (program->kind) {
	case PROGRAM_NONE:
	case PROGRAM_CONST:
		return true;
	case PROGRAM_INT_CMP:
		return field && (field->type == TRACECTL_UST_FIELD_SIGNED ||
				 field->type == TRACECTL_UST_FIELD_UNSIGNED);
	case PROGRAM_DOUBLE_CMP:
		return field && field->type == TRACECTL_UST_FIELD_DOUBLE;
	case PROGRAM_STR_EQ:
		return field && field->type == TRACECTL_UST_FIELD_STRING;
	default:
		return false;
	}
}

/* Whether a valid program lets the event at index through with payload:
 * 1 or 0, or -1 when not predicted. */
static int
rule_program_passes(const struct program *program, uint32_t index, const struct payload *payload)
{
	int64_t value;

	switch (program->kind) {
	case PROGRAM_NONE:
		return 1;
	case PROGRAM_CONST:
		return program->imm != 0;
	case PROGRAM_INT_CMP:
		if (index != 0)
			return -1;
		value = program->field == 0 ? (int64_t)payload->id : payload->latency;
		switch (int_compares[program->compare]) {
		case TC_FILTER_OP_EQ:
			return value == program->imm;
		case TC_FILTER_OP_NE:
			return value != program->imm;
		case TC_FILTER_OP_LT:
			return value < program->imm;
		default:
			return value > program->imm;
		}
	case PROGRAM_DOUBLE_CMP:
		switch (double_compares[program->compare]) {
		case TC_FILTER_OP_DEQ:
			return payload->value == program->dimm;
		case TC_FILTER_OP_DNE:
			return payload->value != program->dimm;
		case TC_FILTER_OP_DLT:
			return payload->value < program->dimm;
		default:
			return payload->value > program->dimm;
		}
	case PROGRAM_STR_EQ:
		return strcmp(payload->path, program->literal) == 0;
	default:
		return -1;
	}
}

/* Programs. */

static void
put_slot(uint8_t *code, uint32_t *slot, uint8_t op, uint16_t arg16, uint32_t arg32)
{
	struct tc_filter_insn insn = {.op = op, .arg16 = arg16, .arg32 = arg32};

	memcpy(code + (*slot)++ * sizeof(insn), &insn, sizeof(insn));
}

static void
put_immediate(uint8_t *code, uint32_t *slot, const void *value)
{
	memcpy(code + (*slot)++ * sizeof(struct tc_filter_insn), value, sizeof(int64_t));
}

/* Writes the program into bytecode (zeroed); returns the size the message
 * gives it. */
static uint32_t
write_program(const struct program *p, uint8_t *bytecode)
{
	struct tc_filter_header header = {.magic = TC_FILTER_MAGIC, .version = TC_FILTER_VERSION};
	uint8_t *code = bytecode + sizeof(header);
	uint32_t slots = 0, strings = 0, size;

	switch (p->kind) {
	case PROGRAM_INT_CMP:
		put_slot(code, &slots, TC_FILTER_OP_LOAD_INT, p->field, 0);
		put_slot(code, &slots, TC_FILTER_OP_PUSH_INT, 0, 0);
		put_immediate(code, &slots, &p->imm);
		put_slot(code, &slots, int_compares[p->compare], 0, 0);
		break;
	case PROGRAM_DOUBLE_CMP:
		put_slot(code, &slots, TC_FILTER_OP_LOAD_DOUBLE, p->field, 0);
		put_slot(code, &slots, TC_FILTER_OP_PUSH_DOUBLE, 0, 0);
		put_immediate(code, &slots, &p->dimm);
		put_slot(code, &slots, double_compares[p->compare], 0, 0);
		break;
	case PROGRAM_STR_EQ:
		strings = (uint32_t)strlen(p->literal);
		put_slot(code, &slots, TC_FILTER_OP_LOAD_STR, p->field, 0);
		put_slot(code, &slots, TC_FILTER_OP_PUSH_STR, (uint16_t)strings, 0);
		put_slot(code, &slots, TC_FILTER_OP_STR_EQ, 0, 0);
		break;
	case PROGRAM_UNDERFLOW:
		put_slot(code, &slots, TC_FILTER_OP_EQ, 0, 0);
		break;
	default:
		put_slot(code, &slots, TC_FILTER_OP_PUSH_INT, 0, 0);
		put_immediate(code, &slots, &p->imm);
		break;
	}
	if (p->kind != PROGRAM_NO_RETURN)
		put_slot(code, &slots, TC_FILTER_OP_RETURN, 0, 0);
	memcpy(code + slots * sizeof(struct tc_filter_insn), p->literal, strings);
	header.nr_insns = (uint16_t)slots;
	header.strings_len = (uint16_t)strings;
	if (p->kind == PROGRAM_BAD_MAGIC)
		header.magic ^= 1u << 8;
	memcpy(bytecode, &header, sizeof(header));
	size = (uint32_t)(sizeof(header) + slots * sizeof(struct tc_filter_insn) + strings);
	if (p->kind == PROGRAM_SIZE_OFF)
		size++;
	if (p->kind == PROGRAM_TOO_BIG)
		size = TC_FILTER_BYTECODE_MAX + 1;
	return p->kind == PROGRAM_NONE ? 0 : size;
}

/* The program of an EVENT_FILTER as the model knows it: as built, none,
 * or unknown when the bytes are not the ones written. */
static struct program
program_as_sent(const struct datagram *d, const struct tracectl_msg_event_filter *msg)
{
	static uint8_t written[TC_FILTER_BYTECODE_MAX];
	struct program none = {.kind = PROGRAM_NONE}, unknown = {.kind = PROGRAM_UNKNOWN};
	uint32_t size;

	if (msg->size == 0)
		return none;
	if (!d->has_program)
		return unknown;
	memset(written, 0, sizeof(written));
	size = write_program(&d->program, written);
	if (size != msg->size || memcmp(written, msg->bytecode, size) != 0)
		return unknown;
	return d->program;
}

/* Model lookups and changes, from tc-ust-state.h's lifetimes. */

static struct model_channel *
model_channel(struct model *m, uint64_t handle)
{
	for (unsigned int i = 0; i < m->n_channels; i++)
		if (m->channels[i].handle == handle)
			return &m->channels[i];
	return NULL;
}

static struct model_stream *
model_stream(struct model_channel *channel, uint32_t cpu)
{
	for (unsigned int i = 0; i < channel->n_streams; i++)
		if (channel->streams[i].cpu == cpu)
			return &channel->streams[i];
	return NULL;
}

static struct model_session *
model_session(struct model *m, uint64_t handle)
{
	for (unsigned int i = 0; i < m->n_sessions; i++)
		if (m->sessions[i].handle == handle)
			return &m->sessions[i];
	return NULL;
}

/* Sessions are made inactive on their first mention. */
static struct model_session *
model_session_get(struct model *m, uint64_t handle)
{
	struct model_session *session = model_session(m, handle);

	if (session)
		return session;
	session = &m->sessions[m->n_sessions++];
	*session = (struct model_session){.handle = handle};
	return session;
}

/* Notifiers belong to a session of their own, never in the list. */
static void
model_session_retire_if_unused(struct model *m, uint64_t handle)
{
	struct model_session *session = model_session(m, handle);

	if (!session || session->is_active)
		return;
	for (unsigned int i = 0; i < m->n_channels; i++)
		if (!m->channels[i].is_notifier && m->channels[i].session == handle)
			return;
	*session = m->sessions[--m->n_sessions];
	m->retired++;
}

static struct model_binding *
model_binding(struct model *m, uint32_t index, uint64_t channel)
{
	for (unsigned int i = 0; i < m->n_bindings; i++)
		if (m->bindings[i].index == index && m->bindings[i].channel == channel)
			return &m->bindings[i];
	return NULL;
}

/* Disabled, without a filter, until the command that made it says. */
static struct model_binding *
model_binding_get(struct model *m, uint32_t index, uint64_t channel)
{
	struct model_binding *binding = model_binding(m, index, channel);

	if (binding)
		return binding;
	binding = &m->bindings[m->n_bindings++];
	*binding = (struct model_binding){.index = index, .channel = channel};
	return binding;
}

static bool
model_is_recording(struct model *m, const struct model_binding *binding)
{
	struct model_channel *channel = model_channel(m, binding->channel);
	struct model_session *session;

	if (!binding->is_enabled)
		return false;
	if (channel->is_notifier)
		return true;
	session = model_session(m, channel->session);
	return session && session->is_active;
}

/* The channel goes with its bindings, maybe its session; what its streams
 * and page hold waits for a grace period. */
static void
model_channel_retire(struct model *m, struct model_channel *channel)
{
	uint64_t session = channel->session;
	bool is_notifier = channel->is_notifier;

	for (unsigned int i = 0; i < m->n_bindings;) {
		if (m->bindings[i].channel != channel->handle) {
			i++;
			continue;
		}
		m->bindings[i] = m->bindings[--m->n_bindings];
		m->retired++;
	}
	m->retired++;
	for (unsigned int i = 0; i < channel->n_streams; i++) {
		m->retired_wake_fds += channel->streams[i].holds_wake_fd;
		close_fd(channel->streams[i].fd);
	}
	m->retired_mappings += channel->n_streams + is_notifier;
	close_fd(channel->page_fd);
	*channel = m->channels[--m->n_channels];
	if (!is_notifier)
		model_session_retire_if_unused(m, session);
}

/* The connection ended: the harness lets go of its copies too. */
static void
model_forget(struct model *m)
{
	for (unsigned int i = 0; i < m->n_channels; i++) {
		for (unsigned int j = 0; j < m->channels[i].n_streams; j++)
			close_fd(m->channels[i].streams[j].fd);
		close_fd(m->channels[i].page_fd);
	}
	memset(m, 0, sizeof(*m));
}

static unsigned int
model_held_fds(const struct model *m)
{
	unsigned int count = 0;

	for (unsigned int i = 0; i < m->n_channels; i++)
		count += m->channels[i].n_streams + m->channels[i].is_notifier;
	return count;
}

static unsigned int
model_wake_fds(const struct model *m)
{
	unsigned int count = m->retired_wake_fds;

	for (unsigned int i = 0; i < m->n_channels; i++)
		for (unsigned int j = 0; j < m->channels[i].n_streams; j++)
			count += m->channels[i].streams[j].holds_wake_fd;
	return count;
}

/* The model's verdict on each command, and its change. */

static struct verdict
verdict_end(int ret, enum outcome outcome)
{
	return (struct verdict){.ret = ret, .outcome = outcome};
}

static struct verdict
verdict_status(int status)
{
	return (struct verdict){.status = status, .outcome = status == 0 ? TAKEN : REFUSED};
}

static int
model_channel_add(struct model *m, const struct tracectl_msg_channel *msg)
{
	if (model_channel(m, msg->channel_handle))
		return -EEXIST;
	if (msg->nr_streams == 0 || msg->nr_streams > STREAMS_PER_CHANNEL_MAX ||
	    !rule_geometry(msg->subbuf_size, msg->num_subbuf) ||
	    (msg->contexts & ~TRACECTL_CONTEXT_ALL) != 0)
		return -EINVAL;
	model_session_get(m, msg->session_handle);
	m->channels[m->n_channels++] = (struct model_channel){
	    .handle = msg->channel_handle,
	    .session = msg->session_handle,
	    .nr_streams = msg->nr_streams,
	    .subbuf_size = (uint32_t)msg->subbuf_size,
	    .num_subbuf = (uint32_t)msg->num_subbuf,
	    .contexts = msg->contexts,
	    .stream_id = msg->stream_id,
	    .page_fd = -1,
	};
	return 0;
}

/*
 * CHANNEL_APP_CONTEXTS and CHANNEL_PERF_COUNTERS (version 6): the harness
 * builds neither, and a raw datagram of their size has zeros past its
 * header (no channel, count 0), so only refusals are reached: a known
 * channel with streams or a notifier is busy, a count of 0 or past the
 * bound and a bad name are invalid. The model has no such lists: one taken
 * would end the run, since its records would no longer be the model's.
 */
static int
model_channel_lists(struct model *m, uint64_t handle, uint32_t count, uint32_t max)
{
	struct model_channel *channel = model_channel(m, handle);

	if (!channel)
		return -ENOENT;
	if (channel->is_notifier || channel->n_streams > 0)
		return -EBUSY;
	if (count == 0 || count > max)
		return -EINVAL;
	return 1;
}

static int
model_channel_app_contexts(struct model *m,
			   const struct tracectl_msg_channel_app_contexts *msg)
{
	int ret = model_channel_lists(m, msg->channel_handle, msg->count,
				      TRACECTL_ABI_CHANNEL_APP_CONTEXTS_MAX);

	for (uint32_t i = 0; ret == 1 && i < msg->count; i++)
		if (!tracectl_abi_app_context_name_is_valid(msg->names[i], sizeof(msg->names[i])))
			ret = -EINVAL;
	if (ret == 1)
		FAIL("application contexts that the harness cannot model were taken");
	return ret;
}

static int
model_channel_perf_counters(struct model *m,
			    const struct tracectl_msg_channel_perf_counters *msg)
{
	int ret = model_channel_lists(m, msg->channel_handle, msg->count,
				      TRACECTL_ABI_CHANNEL_PERF_COUNTERS_MAX);

	if (ret == 1 && msg->reserved != 0)
		ret = -EINVAL;
	if (ret == 1)
		FAIL("perf counters that the harness cannot model were taken");
	return ret;
}

static int
model_channel_remove(struct model *m, const struct tracectl_msg_channel *msg)
{
	struct model_channel *channel = model_channel(m, msg->channel_handle);

	if (!channel || channel->session != msg->session_handle)
		return -ENOENT;
	model_channel_retire(m, channel);
	return 0;
}

static struct verdict
model_stream_add(struct model *m, const struct tracectl_msg_stream *msg, struct datagram *d)
{
	struct model_channel *channel = model_channel(m, msg->channel_handle);
	struct verdict verdict = verdict_status(-EINVAL);

	if (!channel)
		return verdict_status(-ENOENT);
	if (msg->cpu >= channel->nr_streams || model_stream(channel, msg->cpu))
		return verdict;
	if (!rule_buffer_acceptable(channel, msg->cpu, msg->shm_size, d->fds[0])) {
		verdict.outcome = STREAM_REFUSED;
		return verdict;
	}
	channel->streams[channel->n_streams++] = (struct model_stream){
	    .cpu = msg->cpu,
	    .fd = d->fds[0],
	    .holds_wake_fd = d->kinds[1] == FD_EVENTFD,
	};
	d->is_kept[0] = true;
	verdict = verdict_status(0);
	verdict.outcome = STREAM_MAPPED;
	return verdict;
}

static int
model_event_enable(struct model *m, const struct tracectl_msg_event_enable *msg, bool enable)
{
	struct model_binding *binding;

	/* Every event was sent when the connection began. */
	if (msg->index >= EVENTS)
		return -EINVAL;
	if (!model_channel(m, msg->channel_handle))
		return -ENOENT;
	binding = model_binding(m, msg->index, msg->channel_handle);
	if (!enable) {
		if (binding)
			binding->is_enabled = false;
		return 0;
	}
	if (binding && binding->is_refused)
		return -EINVAL;
	if (binding && binding->is_enabled && binding->id != msg->id)
		return -EBUSY;
	binding = model_binding_get(m, msg->index, msg->channel_handle);
	binding->id = msg->id;
	binding->is_enabled = true;
	return 0;
}

/* A filter taken replaces (and retires) the binding's; one refused leaves
 * the binding disabled, and refusing to be enabled, until one is taken. */
static struct verdict
model_filter_settle(struct model *m, const struct tracectl_msg_event_filter *msg,
		    const struct program *program, int status)
{
	struct model_binding *binding = model_binding(m, msg->index, msg->channel_handle);
	struct verdict verdict = verdict_status(status);

	if (status < 0) {
		binding->is_refused = true;
		binding->is_enabled = false;
		verdict.outcome = FILTER_REFUSED;
		return verdict;
	}
	m->retired += binding->filter.kind != PROGRAM_NONE;
	binding->filter = *program;
	binding->is_refused = false;
	if (program->kind != PROGRAM_NONE)
		verdict.outcome = FILTER_LOADED;
	return verdict;
}

static struct verdict
model_event_filter(struct model *m, const struct tracectl_msg_event_filter *msg,
		   const struct datagram *d)
{
	struct program program;
	struct verdict verdict;

	if (msg->index >= EVENTS || msg->size > sizeof(msg->bytecode))
		return verdict_status(-EINVAL);
	if (!model_channel(m, msg->channel_handle) || msg->index == EVENT_UNLOADED)
		return verdict_status(-ENOENT);
	model_binding_get(m, msg->index, msg->channel_handle);
	program = program_as_sent(d, msg);
	if (program.kind == PROGRAM_UNKNOWN) {
		/* Settled by model_filter_settle() once the REPLY says. */
		verdict = verdict_status(0);
		verdict.is_unknown = true;
		return verdict;
	}
	return model_filter_settle(m, msg, &program,
				   rule_program_valid(&program, msg->index) ? 0 : -EINVAL);
}

static struct verdict
model_notifier_add(struct model *m, const struct tracectl_msg_notifier *msg, struct datagram *d)
{
	struct verdict verdict;

	if (model_channel(m, msg->channel_handle))
		return verdict_status(-EEXIST);
	if (!rule_page_acceptable(msg->shm_size, d->fds[0]))
		return verdict_status(-EINVAL);
	m->channels[m->n_channels++] = (struct model_channel){
	    .handle = msg->channel_handle,
	    .session = TRACECTL_NOTIFIER_SESSION,
	    .is_notifier = true,
	    .page_fd = d->fds[0],
	};
	d->is_kept[0] = true;
	verdict = verdict_status(0);
	verdict.outcome = NOTIFIER_MAPPED;
	return verdict;
}

static int
model_session_stop(struct model *m, uint64_t handle)
{
	struct model_session *session = model_session(m, handle);

	/* Stopping a session not known changes nothing. */
	if (session) {
		session->is_active = false;
		model_session_retire_if_unused(m, handle);
	}
	return 0;
}

/* What the listener must do with the datagram in out, from its bytes and
 * descriptors; m becomes what the application then holds. */
static struct verdict
model_step(struct model *m, struct datagram *d)
{
	const struct tracectl_msg_header *header = &out.message.header;

	if (d->len == 0)
		return verdict_end(-ECONNRESET, MALFORMED);
	if (d->len > TRACECTL_ABI_MSG_MAX || d->n_fds > LISTENER_FDS_MAX)
		return verdict_end(-EPROTO, MALFORMED);
	if (d->len < sizeof(*header) || header->magic != TRACECTL_ABI_MAGIC ||
	    header->size != d->len || rule_command_size(header->type) != d->len)
		return verdict_end(-EPROTO, MALFORMED);
	if (d->n_fds != rule_command_fds(header->type))
		return verdict_end(-EPROTO, WRONG_FDS);
	switch (header->type) {
	case TRACECTL_MSG_CHANNEL_ADD:
		return verdict_status(model_channel_add(m, &out.message.channel));
	case TRACECTL_MSG_CHANNEL_REMOVE:
		return verdict_status(model_channel_remove(m, &out.message.channel));
	case TRACECTL_MSG_STREAM_ADD:
		return model_stream_add(m, &out.message.stream, d);
	case TRACECTL_MSG_EVENT_ENABLE:
	case TRACECTL_MSG_EVENT_DISABLE:
		return verdict_status(model_event_enable(
		    m, &out.message.event_enable, header->type == TRACECTL_MSG_EVENT_ENABLE));
	case TRACECTL_MSG_EVENT_FILTER:
		return model_event_filter(m, &out.message.event_filter, d);
	case TRACECTL_MSG_NOTIFIER_ADD:
		return model_notifier_add(m, &out.message.notifier, d);
	case TRACECTL_MSG_SESSION_START:
		model_session_get(m, out.message.session.session_handle)->is_active = true;
		return verdict_status(0);
	case TRACECTL_MSG_SESSION_STOP:
		return verdict_status(model_session_stop(m, out.message.session.session_handle));
	case TRACECTL_MSG_CHANNEL_APP_CONTEXTS:
		return verdict_status(model_channel_app_contexts(m, &out.message.app_contexts));
	case TRACECTL_MSG_CHANNEL_PERF_COUNTERS:
		return verdict_status(model_channel_perf_counters(m, &out.message.perf_counters));
	default: /* EVENTS_DONE */
		return verdict_status(0);
	}
}

/* Descriptors the harness sends. */

static int
make_eventfd(enum fd_kind kind)
{
	int fd = eventfd(0, EFD_CLOEXEC | (kind == FD_EVENTFD ? EFD_NONBLOCK : 0));

	if (fd < 0)
		FAIL("eventfd: %s", strerror(errno));
	if (kind == FD_EVENTFD_FULL && eventfd_write(fd, UINT64_MAX - 1) < 0)
		FAIL("eventfd_write: %s", strerror(errno));
	return fd;
}

static int
make_memfd(const char *name, unsigned int flags, off_t size)
{
	int fd = memfd_create(name, MFD_CLOEXEC | flags);

	if (fd < 0 || ftruncate(fd, size) < 0)
		FAIL("memfd of %lld bytes: %s", (long long)size, strerror(errno));
	return fd;
}

static int
make_fd(enum fd_kind kind)
{
	int pipe_fds[2];

	switch (kind) {
	case FD_PIPE_NO_READER:
		if (pipe2(pipe_fds, O_CLOEXEC) < 0)
			FAIL("pipe2: %s", strerror(errno));
		close_fd(pipe_fds[0]);
		return pipe_fds[1];
	case FD_MEMFD:
		return make_memfd("fuzz-wake", 0, 0);
	default:
		return make_eventfd(kind);
	}
}

static void
add_fd(struct datagram *d, int fd, enum fd_kind kind)
{
	d->fds[d->n_fds] = fd;
	d->kinds[d->n_fds++] = kind;
}

/*
 * A buffer for a channel of this geometry, as the consumer lays it out
 * (tc_rb_init_mode()), then of another size or with its header changed as
 * shape says: bits 0-2 the size, 3-6 the header, 7 an eventfd instead.
 */
static int
make_buffer(uint8_t shape, uint32_t subbuf_size, uint32_t num_subbuf, uint32_t cpu)
{
	static const uint8_t uuid[16] = {0};
	uint64_t size = rule_shm_size(subbuf_size, num_subbuf);
	struct tc_rb_shm header = {0};
	int fd;

	if (shape & 0x80)
		return make_eventfd(FD_EVENTFD);
	switch (shape % 8) {
	case 1:
		size += PAGE_SIZE_BYTES;
		break;
	case 2:
		size -= PAGE_SIZE_BYTES;
		break;
	case 3:
		size = 0;
		break;
	case 4:
		size--;
		break;
	}
	fd = make_memfd(MEMFD_PREFIX "buffer", 0,
			(off_t)(size < FILE_SIZE_MAX ? size : FILE_SIZE_MAX));
	if (size < sizeof(header))
		return fd;
	tc_rb_init_mode(&header, subbuf_size, num_subbuf, cpu, 0, uuid,
			(shape >> 3) % 16 == 1	 ? TC_RB_FLAG_OVERWRITE
			: (shape >> 3) % 16 == 2 ? TC_RB_FLAG_CLOCK_TSC
						 : 0);
	switch ((shape >> 3) % 16) {
	case 3:
		header.magic ^= 1;
		break;
	case 4:
		header.version++;
		break;
	case 5:
		header.flags |= TC_RB_FLAG_CLOCK_TSC << 1;
		break;
	case 6: /* the same size, other sub-buffers */
		if (num_subbuf >= 4 * TC_RB_NUM_SUBBUF_MIN)
			tc_rb_init(&header, subbuf_size * 2, num_subbuf / 2, cpu, 0, uuid);
		else
			tc_rb_init(&header, subbuf_size / 2, num_subbuf * 2, cpu, 0, uuid);
		break;
	case 7:
		header.cpu++;
		break;
	case 8:
		header.data_offset += PAGE_SIZE_BYTES;
		break;
	case 9:
		header.shm_size += PAGE_SIZE_BYTES;
		break;
	case 10:
		memset(&header, 0, sizeof(header));
		break;
	case 11:
		header.num_subbuf *= 2;
		break;
	}
	if (pwrite(fd, &header, sizeof(header), 0) != (ssize_t)sizeof(header))
		FAIL("pwrite of a buffer's header: %s", strerror(errno));
	return fd;
}

/* A notifier's page as shape says: bits 0-1 its size, 2 not sealed
 * against shrinking, 3 sealed against growing, 6-7 another kind. */
static int
make_page(uint8_t shape)
{
	static const off_t sizes[] = {TRACECTL_NOTIFIER_PAGE_SIZE, 2 * TRACECTL_NOTIFIER_PAGE_SIZE,
				      0, TRACECTL_NOTIFIER_PAGE_SIZE - 1};
	int seals = ((shape & 4) ? 0 : F_SEAL_SHRINK) | ((shape & 8) ? F_SEAL_GROW : 0);
	int fd;

	if ((shape >> 6) == 2)
		return make_eventfd(FD_EVENTFD);
	if ((shape >> 6) == 3)
		return make_fd(FD_PIPE_NO_READER);
	fd = make_memfd(MEMFD_PREFIX "page", MFD_ALLOW_SEALING, sizes[shape % 4]);
	if (seals && fcntl(fd, F_ADD_SEALS, seals) < 0)
		FAIL("F_ADD_SEALS: %s", strerror(errno));
	return fd;
}

/* Building the datagrams. */

static void
take_bytes(struct fuzz_input *in, void *to, size_t n)
{
	for (size_t i = 0; i < n; i++)
		((uint8_t *)to)[i] = fuzz_take_byte(in);
}

/* Context bits from one byte: the first four as they are, bit 4 two
 * ids, bit 5 two namespaces, bit 6 every context; bit 7 adds one the ABI
 * does not have. */
static uint32_t
channel_contexts(uint8_t byte)
{
	uint32_t contexts = byte & 0xfu;

	if (byte & 0x10)
		contexts |= TRACECTL_CONTEXT_VUID | TRACECTL_CONTEXT_VSGID;
	if (byte & 0x20)
		contexts |= TRACECTL_CONTEXT_CGROUP_NS | TRACECTL_CONTEXT_UTS_NS;
	if (byte & 0x40)
		contexts |= TRACECTL_CONTEXT_ALL;
	if (byte & 0x80)
		contexts |= (TRACECTL_CONTEXT_ALL + 1u) << (byte & 0x7);
	return contexts;
}

static uint32_t
build_channel_add(struct fuzz_input *in)
{
	/* The two last: TC_RB_SUBBUF_SIZE_MAX, and twice it. */
	static const uint64_t subbuf_sizes[] = {4096, 8192,  16384,	4096,
						2048, 12288, 64u << 20, 128u << 20};
	static const uint64_t nums[] = {2, 4, 2, 8, 1, 3, TC_RB_NUM_SUBBUF_MAX, 0};
	static const uint32_t nr_streams[] = {
	    1, 2, 4, 1, 0, STREAMS_PER_CHANNEL_MAX, STREAMS_PER_CHANNEL_MAX + 1, 3};
	struct tracectl_msg_channel *msg = &out.message.channel;
	uint8_t geometry, contexts;

	msg->session_handle = session_handles[fuzz_take_byte(in) % 4];
	msg->channel_handle = channel_handles[fuzz_take_byte(in) % 4];
	geometry = fuzz_take_byte(in);
	msg->subbuf_size = subbuf_sizes[geometry % 8] | (geometry & 0x80 ? 1ull << 32 : 0);
	msg->num_subbuf = nums[(geometry >> 3) % 8];
	msg->nr_streams = nr_streams[fuzz_take_byte(in) % 8];
	contexts = fuzz_take_byte(in);
	msg->contexts = channel_contexts(contexts);
	msg->stream_id = fuzz_take_byte(in);
	return TRACECTL_MSG_CHANNEL_ADD;
}

static uint32_t
build_channel_remove(struct fuzz_input *in)
{
	struct tracectl_msg_channel *msg = &out.message.channel;
	uint8_t session = fuzz_take_byte(in);
	struct model_channel *channel;

	msg->channel_handle = channel_handles[fuzz_take_byte(in) % 4];
	channel = model_channel(&model, msg->channel_handle);
	msg->session_handle =
	    (session & 0x80) || !channel ? session_handles[session % 4] : channel->session;
	return TRACECTL_MSG_CHANNEL_REMOVE;
}

static uint32_t
build_stream_add(struct fuzz_input *in, struct datagram *d)
{
	static const enum fd_kind wake_kinds[] = {FD_EVENTFD, FD_PIPE_NO_READER, FD_MEMFD,
						  FD_EVENTFD_FULL};
	struct tracectl_msg_stream *msg = &out.message.stream;
	struct model_channel *channel;
	uint32_t subbuf_size = 4096, num_subbuf = 2, nr_streams = 1;
	uint8_t cpu, file_shape, msg_shape;
	uint64_t size;

	msg->channel_handle = channel_handles[fuzz_take_byte(in) % 4];
	channel = model_channel(&model, msg->channel_handle);
	if (channel && !channel->is_notifier) {
		subbuf_size = channel->subbuf_size;
		num_subbuf = channel->num_subbuf;
		nr_streams = channel->nr_streams;
	}
	cpu = fuzz_take_byte(in);
	if (cpu < 0xf0)
		msg->cpu = cpu % 4;
	else if (cpu < 0xfe)
		msg->cpu = nr_streams - 1 + (cpu & 1);
	else
		msg->cpu = cpu == 0xfe ? STREAMS_PER_CHANNEL_MAX - 1 : fuzz_take_u32(in);
	file_shape = fuzz_take_byte(in);
	msg_shape = fuzz_take_byte(in);
	size = rule_shm_size(subbuf_size, num_subbuf);
	msg->shm_size = msg_shape % 4 == 1   ? size + PAGE_SIZE_BYTES
			: msg_shape % 4 == 2 ? 0
			: msg_shape % 4 == 3 ? size - PAGE_SIZE_BYTES
					     : size;
	add_fd(d, make_buffer(file_shape, subbuf_size, num_subbuf, msg->cpu), FD_MEMFD);
	add_fd(d, make_fd(wake_kinds[(msg_shape >> 2) % 4]), wake_kinds[(msg_shape >> 2) % 4]);
	return TRACECTL_MSG_STREAM_ADD;
}

static uint32_t
take_index(struct fuzz_input *in)
{
	uint8_t index = fuzz_take_byte(in);

	return index == 0xff ? fuzz_take_u32(in) : index % (EVENTS + 1);
}

static uint32_t
build_event_enable(struct fuzz_input *in, uint32_t type)
{
	struct tracectl_msg_event_enable *msg = &out.message.event_enable;

	msg->channel_handle = channel_handles[fuzz_take_byte(in) % 4];
	msg->index = take_index(in);
	msg->id = fuzz_take_byte(in);
	return type;
}

static uint32_t
build_event_filter(struct fuzz_input *in, struct datagram *d)
{
	/* Most often the ones that load, when their field fits. */
	static const enum program_kind kinds[16] = {
	    PROGRAM_NONE,     PROGRAM_CONST,	 PROGRAM_INT_CMP,   PROGRAM_DOUBLE_CMP,
	    PROGRAM_STR_EQ,   PROGRAM_BAD_MAGIC, PROGRAM_NO_RETURN, PROGRAM_UNDERFLOW,
	    PROGRAM_SIZE_OFF, PROGRAM_TOO_BIG,	 PROGRAM_INT_CMP,   PROGRAM_DOUBLE_CMP,
	    PROGRAM_STR_EQ,   PROGRAM_CONST,	 PROGRAM_INT_CMP,   PROGRAM_STR_EQ,
	};
	struct tracectl_msg_event_filter *msg = &out.message.event_filter;
	uint8_t pick, imm;

	msg->channel_handle = channel_handles[fuzz_take_byte(in) % 4];
	msg->index = take_index(in);
	pick = fuzz_take_byte(in);
	imm = fuzz_take_byte(in);
	d->program = (struct program){
	    .kind = kinds[pick % 16],
	    .field = (pick >> 4) % 4,
	    .compare = (pick >> 6) % 4,
	    .imm = (int8_t)imm,
	    .dimm = (int8_t)imm,
	    .literal = literals[imm % ARRAY_LEN(literals)],
	};
	d->has_program = true;
	msg->size = write_program(&d->program, msg->bytecode);
	return TRACECTL_MSG_EVENT_FILTER;
}

static uint32_t
build_notifier_add(struct fuzz_input *in, struct datagram *d)
{
	static const uint64_t shm_sizes[] = {TRACECTL_NOTIFIER_PAGE_SIZE,
					     2 * TRACECTL_NOTIFIER_PAGE_SIZE, 0,
					     TRACECTL_NOTIFIER_PAGE_SIZE};
	struct tracectl_msg_notifier *msg = &out.message.notifier;
	uint8_t shape;

	msg->channel_handle = channel_handles[fuzz_take_byte(in) % 4];
	shape = fuzz_take_byte(in);
	msg->shm_size = shm_sizes[(shape >> 4) % 4];
	add_fd(d, make_page(shape), FD_MEMFD);
	return TRACECTL_MSG_NOTIFIER_ADD;
}

/* Raw bytes: the first 16 from the input, zeros after them; with bit 7
 * of the type, a header that holds together. */
static void
build_raw(struct fuzz_input *in, struct datagram *d)
{
	uint8_t type = fuzz_take_byte(in);

	d->len = (fuzz_take_byte(in) | (size_t)fuzz_take_byte(in) << 8) % (RAW_MAX + 1);
	take_bytes(in, out.bytes,
		   d->len < sizeof(out.message.header) ? d->len : sizeof(out.message.header));
	if ((type & 0x80) && d->len >= sizeof(out.message.header)) {
		out.message.header.magic = TRACECTL_ABI_MAGIC;
		out.message.header.type = type & 0x1f;
		out.message.header.size = (uint32_t)d->len;
	}
}

/* Changes the datagram: bits 0-1 the magic, size field or type; bit 2
 * its length; bit 3 a byte flipped. */
static void
twist(struct fuzz_input *in, struct datagram *d)
{
	uint8_t how = fuzz_take_byte(in);

	if (d->len >= sizeof(out.message.header)) {
		switch (how % 4) {
		case 1:
			out.message.header.magic ^= 1u << (fuzz_take_byte(in) % 32);
			break;
		case 2:
			out.message.header.size += (int8_t)(fuzz_take_byte(in) | 1);
			break;
		case 3:
			out.message.header.type = fuzz_take_byte(in) % 32;
			break;
		}
	}
	if (how & 4) {
		int delta = (int8_t)(fuzz_take_byte(in) | 1);

		if ((int)d->len + delta >= 0 && d->len + delta <= RAW_MAX)
			d->len += delta;
	}
	if ((how & 8) && d->len > 0) {
		size_t at = (fuzz_take_byte(in) | (size_t)fuzz_take_byte(in) << 8) % d->len;

		out.bytes[at] ^= fuzz_take_byte(in) | 1;
	}
}

/* OP_FDS: 0 to SENT_FDS_MAX descriptors, the built ones first. */
static void
set_fd_count(struct fuzz_input *in, struct datagram *d)
{
	unsigned int n = fuzz_take_byte(in) % (SENT_FDS_MAX + 1);

	while (d->n_fds > n)
		close_fd(d->fds[--d->n_fds]);
	while (d->n_fds < n)
		add_fd(d, make_eventfd(FD_EVENTFD), FD_EVENTFD);
}

/* Commands carry a seq other than 0, which asks for no REPLY. */
static uint32_t
next_seq(struct connection *c)
{
	if (++c->seq == 0)
		c->seq = 1;
	return c->seq;
}

static void
build_datagram(struct fuzz_input *in, uint8_t op, struct connection *c, struct datagram *d)
{
	uint32_t type;

	memset(&out, 0, sizeof(out));
	switch (op % 16) {
	case STEP_CHANNEL_ADD:
		type = build_channel_add(in);
		break;
	case STEP_CHANNEL_REMOVE:
		type = build_channel_remove(in);
		break;
	case STEP_STREAM_ADD:
	case STEP_STREAM_ADD_AGAIN:
		type = build_stream_add(in, d);
		break;
	case STEP_EVENT_ENABLE:
	case STEP_EVENT_ENABLE_AGAIN:
		type = build_event_enable(in, TRACECTL_MSG_EVENT_ENABLE);
		break;
	case STEP_EVENT_DISABLE:
		type = build_event_enable(in, TRACECTL_MSG_EVENT_DISABLE);
		break;
	case STEP_EVENT_FILTER:
		type = build_event_filter(in, d);
		break;
	case STEP_NOTIFIER_ADD:
		type = build_notifier_add(in, d);
		break;
	case STEP_SESSION_START:
	case STEP_SESSION_STOP:
		out.message.session.session_handle = session_handles[fuzz_take_byte(in) % 4];
		type = op % 16 == STEP_SESSION_START ? TRACECTL_MSG_SESSION_START
						     : TRACECTL_MSG_SESSION_STOP;
		break;
	case STEP_EVENTS_DONE:
		out.message.batch.batch = fuzz_take_byte(in);
		type = TRACECTL_MSG_EVENTS_DONE;
		break;
	default:
		build_raw(in, d);
		type = 0;
	}
	if (type != 0) {
		d->len = rule_command_size(type);
		out.message.header = (struct tracectl_msg_header){
		    .magic = TRACECTL_ABI_MAGIC,
		    .type = type,
		    .size = (uint32_t)d->len,
		    .seq = (op & OP_SEQ_ZERO) ? 0 : next_seq(c),
		};
	}
	if (op & OP_TWIST)
		twist(in, d);
	if (op & OP_FDS)
		set_fd_count(in, d);
}

/* The application's state against the model. */

static void
check_streams(const struct tc_ust_channel *c, struct model_channel *m)
{
	unsigned int present = 0;

	for (uint32_t cpu = 0; cpu < c->nr_streams; cpu++) {
		const struct tc_rb *rb = c->streams[cpu];
		struct model_stream *stream;
		struct tc_rb_shm header;

		if (!rb)
			continue;
		present++;
		stream = model_stream(m, cpu);
		if (!stream)
			FAIL("channel %llu has a stream of CPU %u the model refused",
			     (unsigned long long)m->handle, cpu);
		if (rb->cpu != cpu || rb->subbuf_size != m->subbuf_size ||
		    rb->num_subbuf != m->num_subbuf || !rb->picks_by_cpu)
			FAIL("stream %u of channel %llu is not the one sent", cpu,
			     (unsigned long long)m->handle);
		if ((rb->wake_fd >= 0) != stream->holds_wake_fd)
			FAIL("stream %u of channel %llu %s its wake-up descriptor", cpu,
			     (unsigned long long)m->handle,
			     stream->holds_wake_fd ? "lost" : "kept a dangerous kind of");
		/* The mapping is of the file sent. */
		if (pread(stream->fd, &header, sizeof(header), 0) != (ssize_t)sizeof(header) ||
		    memcmp(&header, rb->shm, sizeof(header)) != 0)
			FAIL("stream %u of channel %llu maps another file", cpu,
			     (unsigned long long)m->handle);
	}
	if (present != m->n_streams)
		FAIL("channel %llu has %u streams, the model %u", (unsigned long long)m->handle,
		     present, m->n_streams);
}

static void
check_channel(const struct tc_ust_channel *c, struct model_channel *m)
{
	uint64_t count;

	if (__atomic_load_n(&c->dead, __ATOMIC_RELAXED) || (c->notifier != NULL) != m->is_notifier)
		FAIL("channel %llu is dead or not of its kind", (unsigned long long)m->handle);
	if (m->is_notifier) {
		if (c->session->handle != TRACECTL_NOTIFIER_SESSION || c->nr_streams != 0 ||
		    pread(m->page_fd, &count, sizeof(count), 0) != (ssize_t)sizeof(count) ||
		    count != c->notifier->count)
			FAIL("notifier %llu is not the one sent", (unsigned long long)m->handle);
		return;
	}
	if (c->session->handle != m->session || c->nr_streams != m->nr_streams ||
	    c->subbuf_size != m->subbuf_size || c->num_subbuf != m->num_subbuf ||
	    c->contexts != m->contexts || c->stream_id != m->stream_id)
		FAIL("channel %llu is not the one added", (unsigned long long)m->handle);
	check_streams(c, m);
}

static void
check_bindings(struct model *m)
{
	unsigned int total = 0;

	for (uint32_t i = 0; i < tc_ust_state.nr_entries; i++) {
		const struct tc_ust_entry *entry = tc_ust_state.entries[i];
		bool recording = false;

		for (const struct tc_ust_binding *b = entry->bindings; b; b = b->next) {
			struct model_binding *mb = model_binding(m, i, b->channel->handle);

			if (!mb || b->enabled != mb->is_enabled || b->id != mb->id ||
			    b->filter_refused != mb->is_refused ||
			    (b->filter != NULL) != (mb->filter.kind != PROGRAM_NONE))
				FAIL("event %u in channel %llu: enabled %u id %u refused %d "
				     "filter %d, not the model's",
				     i, (unsigned long long)b->channel->handle, b->enabled, b->id,
				     b->filter_refused, b->filter != NULL);
			recording |= model_is_recording(m, mb);
			total++;
		}
		if (entry->desc && entry->desc->enabled != (recording && i != EVENT_UNLOADED))
			FAIL("event %u's enabled word is %u", i, entry->desc->enabled);
	}
	if (total != m->n_bindings || event_unloaded.enabled != 0)
		FAIL("%u bindings, the model %u", total, m->n_bindings);
}

static void
check_state(struct model *m, const struct connection *c)
{
	unsigned int n = 0;

	if (tc_ust_state.connection != TC_UST_CONNECTED ||
	    tc_ust_state.connection_fd != c->app_fd || tc_ust_state.nr_sent != EVENTS)
		FAIL("the connection is not the harness's");
	for (const struct tc_ust_channel *channel = tc_ust_state.channels; channel;
	     channel = channel->next, n++) {
		struct model_channel *mc = model_channel(m, channel->handle);

		if (!mc)
			FAIL("channel %llu is not the model's",
			     (unsigned long long)channel->handle);
		check_channel(channel, mc);
	}
	if (n != m->n_channels)
		FAIL("%u channels, the model %u", n, m->n_channels);
	n = 0;
	for (const struct tc_ust_session *s = tc_ust_state.sessions; s; s = s->next, n++) {
		struct model_session *ms = model_session(m, s->handle);

		if (!ms || s->active != ms->is_active)
			FAIL("session %llu is not the model's", (unsigned long long)s->handle);
	}
	if (n != m->n_sessions)
		FAIL("%u sessions, the model %u", n, m->n_sessions);
	check_bindings(m);
	if (tc_ust_state.nr_retired != m->retired)
		FAIL("%u objects retired, the model %u", tc_ust_state.nr_retired, m->retired);
}

/* Descriptors: the harness's, and a wake-up descriptor per stream. */
static void
check_fds(const struct model *m, unsigned int baseline)
{
	unsigned int expected =
	    baseline + (m->is_connected ? 2 : 0) + model_held_fds(m) + model_wake_fds(m);
	unsigned int open_fds = fuzz_recount_open_fds();

	if (open_fds != expected)
		FAIL("%u descriptors open, %u expected (%u held by streams)", open_fds, expected,
		     model_wake_fds(m));
}

static void
check_mappings(const struct model *m)
{
	unsigned int expected = m->retired_mappings, mapped;

	if (!is_maps_counted)
		return;
	mapped = count_memfd_mappings();
	for (unsigned int i = 0; i < m->n_channels; i++)
		expected += m->channels[i].n_streams + m->channels[i].is_notifier;
	if (mapped != expected)
		FAIL("%u mappings of the service's files, %u expected", mapped, expected);
}

/* The connection. */

static void
receive_exactly(int fd, void *buf, size_t size, const char *what)
{
	ssize_t n = recv(fd, buf, size, MSG_DONTWAIT);

	if (n != (ssize_t)size)
		FAIL("%s: %zd bytes, not %zu (%s)", what, n, size, n < 0 ? strerror(errno) : "");
}

static void
check_nothing_pending(int fd, const char *after)
{
	uint8_t byte;

	if (recv(fd, &byte, sizeof(byte), MSG_DONTWAIT) >= 0 || errno != EAGAIN)
		FAIL("the application sent more than it should after %s", after);
}

/* Registration: REGISTER, every event, EVENTS_END of the batch. */
static void
read_registration(int fd)
{
	struct tracectl_msg_register registration;
	struct tracectl_msg_event event;
	struct tracectl_msg_batch end;

	receive_exactly(fd, &registration, sizeof(registration), "REGISTER");
	if (registration.header.type != TRACECTL_MSG_REGISTER ||
	    registration.abi_version != TRACECTL_ABI_VERSION || registration.pid != getpid())
		FAIL("REGISTER is not the process's");
	for (uint32_t i = 0; i < EVENTS; i++) {
		receive_exactly(fd, &event, sizeof(event), "EVENT");
		if (event.header.type != TRACECTL_MSG_EVENT || event.index != i ||
		    event.nr_fields != events[i]->nr_fields)
			FAIL("event %u was sent as index %u", i, event.index);
	}
	receive_exactly(fd, &end, sizeof(end), "EVENTS_END");
	if (end.header.type != TRACECTL_MSG_EVENTS_END || end.batch != tc_ust_state.last_batch)
		FAIL("EVENTS_END of batch %u, not %u", end.batch, tc_ust_state.last_batch);
	check_nothing_pending(fd, "the registration");
}

static void
connection_open(struct connection *c)
{
	int fds[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) < 0)
		FAIL("socketpair: %s", strerror(errno));
	c->app_fd = fds[0];
	c->service_fd = fds[1];
	c->seq = 0;
	if (send_register(c->app_fd) < 0 || send_pending_events(c->app_fd, true) < 0)
		FAIL("registration not sent");
	read_registration(c->service_fd);
	model.is_connected = true;
}

/* As the listener's thread when serve_connection() returns, then what
 * must hold: nothing of the connection is left. */
static void
connection_close(struct connection *c, unsigned int fds_baseline)
{
	bool had_channels = tc_ust_state.channels != NULL;

	pthread_mutex_lock(&tc_ust_state.lock);
	tc_ust_state.connection_fd = -1;
	pthread_mutex_unlock(&tc_ust_state.lock);
	close_fd(c->app_fd);
	connection_ended();
	close_fd(c->service_fd);
	c->app_fd = c->service_fd = -1;
	model_forget(&model);
	if (tc_ust_state.channels || tc_ust_state.sessions || tc_ust_state.retired ||
	    tc_ust_state.nr_retired != 0 || tc_ust_state.nr_sent != 0 ||
	    tc_ust_state.connection != TC_UST_DISCONNECTED)
		FAIL("the state was not reset with the connection");
	for (uint32_t i = 0; i < tc_ust_state.nr_entries; i++)
		if (tc_ust_state.entries[i]->bindings || events[i]->enabled ||
		    tc_ust_state.entries[i]->sent_batch != 0)
			FAIL("event %u is still bound after the connection ended", i);
	check_mappings(&model);
	check_fds(&model, fds_baseline);
	outcomes[RESET] += had_channels;
}

static void
hang_up(struct connection *c, unsigned int fds_baseline)
{
	int ret;

	close_fd(c->service_fd);
	c->service_fd = -1;
	ret = receive_command(c->app_fd);
	if (ret != -ECONNRESET)
		FAIL("the service hung up, the listener read %d", ret);
	outcomes[HUNG_UP]++;
	connection_close(c, fds_baseline);
}

/* The REPLY, or nothing, as the verdict says. */
static void
check_reply(const struct connection *c, const struct verdict *v, uint32_t seq, int *status)
{
	struct tracectl_msg_reply reply;

	*status = v->status;
	if (v->ret < 0 || seq == 0) {
		check_nothing_pending(c->service_fd, "a command without a REPLY");
		return;
	}
	receive_exactly(c->service_fd, &reply, sizeof(reply), "REPLY");
	check_nothing_pending(c->service_fd, "a REPLY");
	if (reply.header.magic != TRACECTL_ABI_MAGIC || reply.header.type != TRACECTL_MSG_REPLY ||
	    reply.header.size != sizeof(reply) || reply.header.seq != seq)
		FAIL("a REPLY with a bad header (type %u, seq %u for %u)", reply.header.type,
		     reply.header.seq, seq);
	if (v->is_unknown ? reply.status != 0 && reply.status != -EINVAL
			  : reply.status != v->status)
		FAIL("command type %u answered %d, expected %d", out.message.header.type,
		     reply.status, v->status);
	*status = reply.status;
}

static void
reclaim_step(unsigned int fds_baseline)
{
	bool had_retired = model.retired > 0;

	reclaim();
	if (tc_ust_state.retired || tc_ust_state.nr_retired != 0)
		FAIL("objects retired are left after a reclaim");
	model.retired = model.retired_mappings = model.retired_wake_fds = 0;
	check_mappings(&model);
	check_fds(&model, fds_baseline);
	outcomes[RECLAIMED] += had_retired;
}

static void
command_step(struct fuzz_input *in, uint8_t op, struct connection *c, unsigned int fds_baseline)
{
	struct datagram d = {0};
	struct verdict verdict;
	ssize_t sent;
	int ret, status;

	build_datagram(in, op, c, &d);
	next_model = model;
	verdict = model_step(&next_model, &d);
	sent = tc_fd_send(c->service_fd, out.bytes, d.len, d.fds, d.n_fds, MSG_DONTWAIT);
	if (sent != (ssize_t)d.len)
		FAIL("sendmsg of %zu bytes: %zd", d.len, sent);
	for (unsigned int i = 0; i < d.n_fds; i++)
		if (!d.is_kept[i])
			close_fd(d.fds[i]);
	ret = receive_command(c->app_fd);
	if (ret != verdict.ret)
		FAIL("a datagram of %zu bytes with %u descriptors (type %u): the listener "
		     "returned %d, not %d",
		     d.len, d.n_fds,
		     d.len >= sizeof(out.message.header) ? out.message.header.type : 0, ret,
		     verdict.ret);
	check_reply(c, &verdict, d.len >= sizeof(out.message.header) ? out.message.header.seq : 0,
		    &status);
	if (verdict.is_unknown)
		verdict = model_filter_settle(&next_model, &out.message.event_filter,
					      &(struct program){.kind = PROGRAM_UNKNOWN}, status);
	outcomes[verdict.outcome]++;
	model = next_model;
	if (ret < 0) {
		connection_close(c, fds_baseline);
		return;
	}
	if (out.message.header.type == TRACECTL_MSG_EVENTS_DONE &&
	    tc_ust_state.done_batch != out.message.batch.batch)
		FAIL("EVENTS_DONE of batch %u left %u", out.message.batch.batch,
		     tc_ust_state.done_batch);
	check_state(&model, c);
	/* As the listener does after each command. */
	if (count_retired() >= TC_UST_RETIRED_MAX)
		reclaim_step(fds_baseline);
}

/* Tracepoints. */

static void
emit_request(const struct payload *p)
{
	struct tracectl_ust_piece pieces[] = {
	    {&p->id, sizeof(p->id)},
	    {&p->latency, sizeof(p->latency)},
	    {p->path, TRACECTL_UST_PIECE_STRING},
	};

	tracectl_ust_emit(&event_request, pieces, ARRAY_LEN(pieces));
}

static void
emit_sample(const struct payload *p)
{
	struct tracectl_ust_piece pieces[] = {
	    {&p->value, sizeof(p->value)},
	    {&p->blob_len, sizeof(p->blob_len)},
	    {p->blob, p->blob_len},
	};

	tracectl_ust_emit(&event_sample, pieces, ARRAY_LEN(pieces));
}

/* How far a buffer went: its writes and its losses. */
static uint64_t
buffer_progress(int fd)
{
	struct tc_rb_shm header;

	if (pread(fd, &header, sizeof(header), 0) != (ssize_t)sizeof(header))
		FAIL("pread of a buffer's header: %s", strerror(errno));
	return header.write_offset + header.events_discarded;
}

static uint64_t
page_count(int fd)
{
	uint64_t count;

	if (pread(fd, &count, sizeof(count), 0) != (ssize_t)sizeof(count))
		FAIL("pread of a notifier's page: %s", strerror(errno));
	return count;
}

/* The records each event makes in channel (both emitted once), or -1 when
 * a filter's verdict is not predicted. */
static int
records_expected(struct model_channel *channel, const struct payload *p)
{
	int records = 0;

	for (uint32_t i = 0; i < EVENT_UNLOADED; i++) {
		struct model_binding *binding = model_binding(&model, i, channel->handle);
		int passes;

		if (!binding || !model_is_recording(&model, binding))
			continue;
		passes = rule_program_passes(&binding->filter, i, p);
		if (passes < 0)
			return -1;
		records += passes;
	}
	return records;
}

static void
check_emitted(struct model_channel *channel, const uint64_t *before, const struct payload *p,
	      unsigned int burst)
{
	int records = records_expected(channel, p);

	if (records < 0)
		return;
	if (channel->is_notifier) {
		uint64_t counted = page_count(channel->page_fd) - before[0];

		if (counted != (uint64_t)records * burst)
			FAIL("notifier %llu counted %llu events, not %u",
			     (unsigned long long)channel->handle, (unsigned long long)counted,
			     records * burst);
		outcomes[COUNTED] += counted > 0;
		return;
	}
	if (pinned_cpu < 0)
		return;
	for (unsigned int i = 0; i < channel->n_streams; i++) {
		struct model_stream *stream = &channel->streams[i];
		bool moved = buffer_progress(stream->fd) != before[i];
		bool expected =
		    records > 0 && stream->cpu == (uint32_t)pinned_cpu % channel->nr_streams;

		if (moved != expected)
			FAIL("stream %u of channel %llu %s records", stream->cpu,
			     (unsigned long long)channel->handle, moved ? "took" : "missed");
		outcomes[RECORDED] += moved;
	}
}

/* Emits both events (and the unloaded one, which must not matter) burst
 * times with a payload of the input's, then checks where they went. */
static void
emit_step(struct fuzz_input *in)
{
	static uint64_t before[STEPS_MAX][STEPS_MAX];
	uint8_t burst_pick = fuzz_take_byte(in);
	unsigned int burst = burst_pick >= 0xf0 ? BURST_LONG : 1u + burst_pick % 4u;
	struct payload p = {
	    .id = fuzz_take_byte(in),
	    .latency = (int8_t)fuzz_take_byte(in),
	    .path = literals[fuzz_take_byte(in) % ARRAY_LEN(literals)],
	    .value = (int8_t)fuzz_take_byte(in),
	    .blob_len = fuzz_take_byte(in) % 9,
	    .blob = "blobdata",
	};

	for (unsigned int i = 0; i < model.n_channels; i++) {
		struct model_channel *channel = &model.channels[i];

		if (channel->is_notifier)
			before[i][0] = page_count(channel->page_fd);
		for (unsigned int j = 0; j < channel->n_streams; j++)
			before[i][j] = buffer_progress(channel->streams[j].fd);
	}
	for (unsigned int n = 0; n < burst; n++) {
		emit_request(&p);
		emit_sample(&p);
		tracectl_ust_emit(&event_unloaded, NULL, 0);
	}
	for (unsigned int i = 0; i < model.n_channels; i++)
		check_emitted(&model.channels[i], before[i], &p, burst);
}

/* Once: the provider registered as its constructor would, one event's
 * module unloaded, the thread pinned to its CPU, /proc/self/maps open. */
static void
set_up(void)
{
	int cpu = sched_getcpu();
	cpu_set_t set;

	maps_count_set_up();

	CPU_ZERO(&set);
	if (cpu >= 0) {
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) == 0)
			pinned_cpu = cpu;
	}
	pthread_mutex_lock(&tc_ust_state.lock);
	for (uint32_t i = 0; i < EVENTS; i++) {
		struct tc_ust_entry *entry = tc_ust_state_add_event(events[i], TRACECTL_UST_API_VERSION);

		if (!entry || entry->index != i)
			FAIL("event %u not registered as %u", i, i);
	}
	tc_ust_state_remove_event(&event_unloaded);
	pthread_mutex_unlock(&tc_ust_state.lock);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool is_set_up;
	struct fuzz_input in = {data, size, 0};
	struct connection c = {-1, -1, 0};
	unsigned int fds_baseline;

	if (!is_set_up) {
		set_up();
		is_set_up = true;
	}
	fds_baseline = fuzz_recount_open_fds();
	maps_count_begin();
	for (unsigned int n = 0; n < STEPS_MAX && in.pos < in.size; n++) {
		uint8_t op = fuzz_take_byte(&in);

		if (!model.is_connected)
			connection_open(&c);
		switch (op % 16) {
		case STEP_HANG_UP:
			hang_up(&c, fds_baseline);
			continue;
		case STEP_RECLAIM:
			reclaim_step(fds_baseline);
			break;
		case STEP_EMIT:
			emit_step(&in);
			break;
		default:
			command_step(&in, op, &c, fds_baseline);
		}
		if ((op & OP_EMIT) && model.is_connected)
			emit_step(&in);
	}
	if (model.is_connected)
		hang_up(&c, fds_baseline);
	check_fds(&model, fds_baseline);
	return 0;
}

#ifndef FUZZ_LIBFUZZER
/* Conversations; the step macros below give each kind's bytes. Sessions
 * 0 and 1 are 100 and 101, 3 the notifiers'; channels 0 to 3 are 1, 2, 3
 * and UINT64_MAX. */
#define SEED(...)                                                                                  \
	{                                                                                          \
		(const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__})             \
	}
/* session, channel; 4 KiB x 2, one stream, no context */
#define ADD(s, c) STEP_CHANNEL_ADD, s, c, 0x00, 0x00, 0x00, 7
#define ADD_SHAPED(s, c, geometry, streams, contexts)                                              \
	STEP_CHANNEL_ADD, s, c, geometry, streams, contexts, 7
#define REMOVE(c) STEP_CHANNEL_REMOVE, 0x00, c
#define REMOVE_AS(s, c) STEP_CHANNEL_REMOVE, 0x80 | (s), c
/* channel, cpu, file shape, message shape */
#define STREAM(c, cpu) STEP_STREAM_ADD, c, cpu, 0x00, 0x00
#define STREAM_SHAPED(c, cpu, file, msg) STEP_STREAM_ADD, c, cpu, file, msg
#define ENABLE(c, index, id) STEP_EVENT_ENABLE, c, index, id
#define DISABLE(c, index) STEP_EVENT_DISABLE, c, index, 0
/* program: kind % 16 | field << 4 | compare << 6 */
#define FILTER(c, index, program, imm) STEP_EVENT_FILTER, c, index, program, imm
#define NOTIFIER(c, shape) STEP_NOTIFIER_ADD, c, shape
#define START(s) STEP_SESSION_START, s
#define STOP(s) STEP_SESSION_STOP, s
#define DONE(batch) STEP_EVENTS_DONE, batch
/* burst, id, latency, path, value, blob length */
#define EMIT(burst, id, latency, path) STEP_EMIT, burst, id, latency, path, 3, 4
#define HANG STEP_HANG_UP
#define RECLAIM STEP_RECLAIM
#define HEADER_BYTES 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
static const struct fuzz_seed seeds[] = {
    /* A session recording both events, a filter on each, stopped,
     * removed and reclaimed. */
    SEED(ADD(0, 0), STREAM(0, 0), START(0), ENABLE(0, 0, 1), ENABLE(0, 1, 2), EMIT(0, 5, 1, 0),
	 FILTER(0, 0, 0x02, 5), EMIT(1, 5, 1, 0), EMIT(0, 6, 1, 0), FILTER(0, 1, 0x83, 4),
	 EMIT(0, 1, 1, 0), STOP(0), EMIT(0, 1, 1, 0), REMOVE(0), RECLAIM, DONE(1)),
    /* A notifier counting request events whose path is "a". */
    SEED(NOTIFIER(1, 0x00), FILTER(1, 0, 0x24, 0), ENABLE(1, 0, 0), EMIT(2, 1, 1, 0),
	 EMIT(0, 1, 1, 1), ENABLE(1, 1, 0), EMIT(0, 1, 1, 0), REMOVE_AS(3, 1), RECLAIM),
    /* Channels of other geometries and contexts, streams on several CPUs
     * (and one whose header has the size but not the sub-buffers of its
     * channel), both sessions, a filter replaced and removed. */
    SEED(ADD_SHAPED(0, 0, 0x09, 0x02, 0x0f), STREAM(0, 0), STREAM(0, 1), STREAM(0, 3),
	 STREAM_SHAPED(0, 2, 0x30, 0x00), ADD_SHAPED(1, 1, 0x01, 0x01, 0x05), STREAM(1, 0),
	 START(0), START(1), ENABLE(0, 0, 3), ENABLE(1, 0, 4), FILTER(0, 0, 0x01, 1),
	 EMIT(3, 9, 0xff, 2), FILTER(0, 0, 0x00, 0), FILTER(1, 0, 0x42, 0x80), EMIT(0, 9, 0xff, 2),
	 RECLAIM, REMOVE(1), REMOVE(0), RECLAIM),
    /* Refusals: a channel twice, bad geometries, streams and contexts,
     * streams of a missing channel, CPU or of bad files, events out of
     * range, an id changed under an enabled event. */
    SEED(ADD(0, 0), ADD(1, 0), ADD_SHAPED(0, 1, 0x04, 0x00, 0x00),
	 ADD_SHAPED(0, 1, 0x28, 0x00, 0x00), ADD_SHAPED(0, 1, 0x80, 0x00, 0x00),
	 ADD_SHAPED(0, 1, 0x00, 0x04, 0x00), ADD_SHAPED(0, 1, 0x00, 0x06, 0x00),
	 ADD_SHAPED(0, 1, 0x00, 0x00, 0x90), ADD_SHAPED(0, 2, 0x00, 0x05, 0x00), STREAM(2, 0xfe),
	 STREAM(1, 0), STREAM(0, 1), STREAM(0, 0xf1), STREAM_SHAPED(0, 0, 0x02, 0x00),
	 STREAM_SHAPED(0, 0, 0x18, 0x00), STREAM_SHAPED(0, 0, 0x38, 0x00),
	 STREAM_SHAPED(0, 0, 0x48, 0x00), STREAM_SHAPED(0, 0, 0x80, 0x00),
	 STREAM_SHAPED(0, 0, 0x00, 0x01), STREAM(0, 0), STREAM(0, 0), ENABLE(0, 3, 1),
	 ENABLE(1, 0, 1), ENABLE(0, 0, 1), ENABLE(0, 0, 2), DISABLE(0, 0), ENABLE(0, 0, 2),
	 ENABLE(0, 2, 5), FILTER(0, 2, 0x01, 1)),
    /* Filters the verifier refuses, and an event that then cannot be
     * enabled until one loads. */
    SEED(ADD(0, 0), STREAM(0, 0), START(0), FILTER(0, 0, 0x05, 1), ENABLE(0, 0, 1),
	 FILTER(0, 0, 0x06, 1), FILTER(0, 0, 0x07, 1), FILTER(0, 0, 0x08, 1), FILTER(0, 0, 0x09, 1),
	 FILTER(0, 1, 0x02, 1), FILTER(0, 0, 0x23, 1), FILTER(0, 0, 0x34, 1), FILTER(0, 0, 0x01, 1),
	 ENABLE(0, 0, 1), EMIT(0, 1, 1, 1)),
    /* Notifier pages: unsealed, short, an eventfd, a bad size, sealed
     * against growing too, a handle taken. */
    SEED(NOTIFIER(0, 0x04), NOTIFIER(0, 0x03), NOTIFIER(0, 0x80), NOTIFIER(0, 0x10),
	 NOTIFIER(0, 0x09), NOTIFIER(0, 0x00), ADD(0, 0), REMOVE(0), REMOVE_AS(3, 0)),
    /* Wake-up descriptors of every kind, then packets closed. */
    SEED(ADD(0, 0), STREAM_SHAPED(0, 0, 0x00, 0x04), ADD(0, 1), STREAM_SHAPED(1, 0, 0x00, 0x08),
	 ADD(0, 2), STREAM_SHAPED(2, 0, 0x00, 0x0c), START(0), ENABLE(0, 0, 1), ENABLE(1, 0, 1),
	 ENABLE(2, 0, 1), EMIT(0xff, 1, 1, 1), EMIT(0xff, 1, 1, 1), RECLAIM),
    /* Malformed: a command of seq 0, then a bad magic, size field, a type
     * changed, a cut datagram, descriptors where none or two go. */
    SEED(STEP_CHANNEL_ADD | OP_SEQ_ZERO, 0, 0, 0, 0, 0, 7, START(0), STEP_SESSION_STOP | OP_TWIST,
	 0, 0x01, 3, ADD(0, 0), STEP_SESSION_START | OP_TWIST, 0, 0x02, 4,
	 STEP_EVENT_ENABLE | OP_TWIST, 0, 0, 1, 0x03, 20, STEP_EVENT_ENABLE | OP_TWIST, 0, 0, 1,
	 0x04, 0xfc, STEP_EVENTS_DONE | OP_FDS, 1, 1, STEP_STREAM_ADD | OP_FDS, 0, 0, 0, 0, 1),
    /* Raw datagrams: empty, short, a type never sent, too long, too many
     * descriptors. */
    SEED(STEP_RAW, 0, 0, 0, STEP_RAW, 0, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8, STEP_RAW, 0x84, 24, 0,
	 HEADER_BYTES, STEP_RAW, 0x80, 0x40, 0x10, HEADER_BYTES, STEP_RAW | OP_FDS, 0x90, 24, 0,
	 HEADER_BYTES, 9),
    /* A reset with everything in place, then a session again. */
    SEED(ADD(0, 0), STREAM(0, 0), NOTIFIER(1, 0x00), START(0), ENABLE(0, 0, 1), ENABLE(1, 1, 0),
	 FILTER(0, 1, 0x03, 2), HANG, ADD(0, 0), STREAM(0, 0), START(0), ENABLE(0, 1, 1),
	 EMIT(0, 1, 1, 1)),
    /* A channel's handle and session taken again after removal, sessions
     * started and stopped without channels, an emission after a command. */
    SEED(ADD(0, 0), ENABLE(0, 0, 1), REMOVE_AS(1, 0), REMOVE(0), ADD(1, 0), STREAM(0, 0), START(1),
	 STOP(1), STOP(0), START(0), STOP(0), STEP_EVENT_ENABLE | OP_EMIT, 0, 0, 2, 0, 1, 1, 1, 1,
	 1),
};

const struct fuzz_harness fuzz_harness = {
    .seeds = seeds,
    .nr_seeds = ARRAY_LEN(seeds),
    .input_max = 1024,
    .outcome_names = outcome_names,
    .outcomes = outcomes,
    .nr_outcomes = OUTCOMES,
};
#endif
