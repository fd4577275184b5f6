/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes what tracectl-consumerd reads back from lttng-relayd, a peer on
 * the network: every reply of the relay protocol (tc-consumerd-relay-wire.h) that
 * the relay connection parses, read by its own functions from a real
 * AF_UNIX stream socket. The connection's files (tc-consumerd-relay.c and
 * the tc-consumerd-relay-*.c it is cut into, which share
 * tc-consumerd-relay-private.h) are included into this file,
 * so that the harness hands it connected sockets where the consumer
 * would connect to the relay (relay_connect(), relay_reconnect(), the
 * first connection of a relay opened to connect later), and its static
 * functions run unchanged; it is built with AddressSanitizer and UBSan.
 *
 * The harness plays the relay. The consumer's poll() is the harness's
 * (a macro below): each time the consumer polls, the relay reads the
 * commands the consumer sent, checks their framing, answers each from the
 * input, and passes on its answers in pieces of a chosen size, so that
 * short reads are the rule rather than luck. A poll that would wait while
 * nothing is left to deliver is a timeout at once, and sleeps return at
 * once: the run is single-threaded and deterministic. The consumer's
 * actions (streams, packets, metadata, beacons, waits, rotations,
 * reconnections, close) come from the input too.
 *
 * Input: byte 0 the setup (reconnection generation, chunk, live, first
 * connection made later), byte 1 the size of the pieces the relay's
 * replies are delivered in (0: whole), byte 2 the number of actions, two
 * bytes per action, then the relay's side: for each command, a shape
 * byte (a well-formed reply of variant shape % 16 below 0xc0; else a
 * reply cut short, one with bytes added, no reply, a hang-up or raw
 * bytes) and the values some variants take. A relay side that ran out
 * reads as zeros: lttng-relayd 2.13's answer to a good command.
 *
 * What must hold, beside no error under the sanitizers:
 * - every call returns, and no wait outlasts the relay's answers (a
 *   bound on the polls that bring nothing new); every descriptor is closed at the end;
 * - the consumer's commands are framed as the protocol says;
 * - while every reply on the connection was as lttng-relayd gives it to a
 *   good command, the connection stays up, each stream has the handle the
 *   relay gave it, and the consumer never waits for a reply it was not
 *   owed;
 * - while every reply was well-formed (whatever its values), the bytes
 *   the consumer has not read after an action are exactly the replies it
 *   may leave unread (those of indexes): it never takes a reply of the
 *   wrong size.
 *
 * Built with libFuzzer it is a coverage-guided fuzzer, from the top of the
 * source tree (Debian's clang):
 *
 *   clang -g -O1 -D_GNU_SOURCE -DFUZZ_LIBFUZZER \
 *     -fsanitize=fuzzer,address,undefined -Itests/fuzz -Iservice/consumerd -Icommon/abi
 * -Icommon/ringbuffer \
 *     -Icommon/util tests/fuzz/fuzz-relay-reply.c \
 *     service/consumerd/tc-consumerd-relay-wire.c service/consumerd/tc-consumerd-relay-held.c \
 *     service/consumerd/tc-consumerd-resolve.c service/consumerd/tc-consumerd-log.c \
 *     service/consumerd/tc-consumerd-tunnel.c common/ringbuffer/tc-rb.c -o fuzz-relay-reply
 *   ./fuzz-relay-reply -max_len=2048 tests/fuzz/corpus/fuzz-relay-reply
 *
 * Otherwise fuzz-driver.c's main() mutates the seeds below:
 * `fuzz-relay-reply --seed N --runs M`.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fuzz-driver.h"
#include "tc-log-line.h"

#include "tc-rb.h"

static int fuzz_poll(struct pollfd *fds, nfds_t nfds, int timeout);
static int fuzz_nanosleep(const struct timespec *request, struct timespec *remaining);

/*
 * The consumer's clock, the harness's own: it moves only when the consumer
 * waits (a poll the relay lets time out, a sleep), by what it asked to
 * wait. Deadlines then pass exactly when the relay played here lets them,
 * whatever the machine does meanwhile: a run stopped or starved for an
 * hour sees no handshake time out, and a wait for a chunk's release takes
 * no real time.
 */
#define FUZZ_CLOCK_START_NS 1000000000000ull
#define FUZZ_WAIT_FOREVER_NS 3600000000000ull
static uint64_t fuzz_clock_ns = FUZZ_CLOCK_START_NS;

static uint64_t
fuzz_clock_now(void)
{
	return fuzz_clock_ns;
}

static void
fuzz_clock_wait_ms(int timeout)
{
	fuzz_clock_ns += timeout >= 0 ? (uint64_t)timeout * 1000000u : FUZZ_WAIT_FOREVER_NS;
}

/* The code under test, with its waits routed to the relay played here
 * and its clock to the harness's. <poll.h>, <time.h> and tc-rb.h are in
 * already, so only the calls are renamed. */
#define poll fuzz_poll
#define nanosleep fuzz_nanosleep
#define tc_rb_clock_now fuzz_clock_now
#include "tc-consumerd-relay-socket.c"
#include "tc-consumerd-relay-control.c"
#include "tc-consumerd-relay-announce.c"
#include "tc-consumerd-relay-packet.c"
#include "tc-consumerd-relay-ssh.c"
#include "tc-consumerd-relay.c"
#include "tc-consumerd-relay-chunk.c"
#undef poll
#undef nanosleep
#undef tc_rb_clock_now

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		fprintf(stderr, "fuzz-relay-reply: " __VA_ARGS__);                                 \
		fprintf(stderr, "\n");                                                             \
		abort();                                                                           \
	} while (0)

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define MIN_SIZE(a, b) ((a) < (b) ? (a) : (b))
#define ACTIONS_MAX 32u
#define STREAMS_MAX 4u
#define POLLS_MAX 20000u
#define OUT_MAX (64u << 10)
#define IN_MAX (64u << 10)
#define PACKET_MAX 1024u
#define CMD_HEADER_SIZE sizeof(struct tc_relay_cmd_header)
#define DATA_HEADER_SIZE sizeof(struct tc_relay_data_header)
#define GENERIC_SIZE sizeof(struct tc_relay_generic_reply)

/* Shapes of a reply (the relay side's byte per command). */
#define SHAPE_CUT 0xc0u
#define SHAPE_LONG 0xd0u
#define SHAPE_SILENT 0xe0u
#define SHAPE_HANG_UP 0xe8u
#define SHAPE_RAW 0xf0u

enum outcome {
	HANDSHAKE_UP,
	HANDSHAKE_REFUSED,
	STREAM_ADDED,
	PACKET_SENT,
	PACKET_HELD,
	METADATA_SENT,
	WAIT_RECEIVED,
	ROTATED,
	ROTATE_REFUSED,
	RECONNECTED,
	RELAY_LOST,
	SHORT_READ,
	TIMED_OUT,
	OWED_CHECKED,
	OUTCOMES,
};
static const char *const outcome_names[OUTCOMES] = {
    "handshake up",  "handshake refused", "stream added", "packet sent",    "packet held",
    "metadata sent", "wait received",	  "rotated",	  "rotate refused", "reconnected",
    "relay lost",    "short read",	  "timed out",	  "owed checked",
};
static unsigned long long outcomes[OUTCOMES];

/* The relay's side of one connection. */
struct relay_side {
	struct fuzz_input in; /* its answers */
	size_t chunk;	      /* bytes delivered per poll, 0: all */
	int control, data;    /* its ends, -1 when closed */
	int consumer_control; /* the consumer's end of the control connection */
	uint8_t out[OUT_MAX]; /* answers not delivered yet */
	size_t out_len, out_pos;
	uint8_t cmd[IN_MAX]; /* a command being received */
	size_t cmd_len;
	uint8_t data_buf[DATA_HEADER_SIZE]; /* a data header being received */
	size_t data_len, data_left;
	bool is_well_formed;  /* every reply had the protocol's size */
	bool is_default;      /* and every one was a good command's answer */
	bool is_silent;	      /* a command had no answer */
	bool hang_up;	      /* shut down once the answers are out */
	uint64_t next_handle; /* given to the next ADD_STREAM */
	uint64_t last_handle;
	size_t delivered; /* bytes, on every connection */
	unsigned int idle_polls;
};

static struct relay_side side;

/* ---- the relay ---- */

static void
out_put(const void *bytes, size_t len)
{
	if (side.out_len + len > sizeof(side.out))
		FAIL("the relay's answers overflow (%zu bytes)", side.out_len + len);
	memcpy(side.out + side.out_len, bytes, len);
	side.out_len += len;
}

static void
put_be32(uint32_t value)
{
	value = htobe32(value);
	out_put(&value, sizeof(value));
}

static void
put_be64(uint64_t value)
{
	value = htobe64(value);
	out_put(&value, sizeof(value));
}

static uint64_t
take_u64(struct fuzz_input *in)
{
	return (uint64_t)fuzz_take_u32(in) << 32 | fuzz_take_u32(in);
}

/* A path reply's length and bytes (variants shared by CREATE_SESSION and
 * CLOSE_TRACE_CHUNK): 0 the relay's path; then a length of 0, the
 * largest allowed (with its NUL, then without), one past it, a path
 * without its NUL, one with a NUL inside, a length and bytes from the
 * input, 2^32 - 1. */
static void
put_path(unsigned int variant, const char *path)
{
	size_t len = strlen(path) + 1;

	switch (variant) {
	case 0:
		put_be32((uint32_t)len);
		out_put(path, len);
		break;
	case 1:
		put_be32(0);
		break;
	case 2:
	case 3:
	case 4: {
		/* The largest path, with its NUL; the same without; one past. */
		static char big[TC_RELAY_PATH_MAX + 1];

		memset(big, 'p', sizeof(big));
		if (variant != 3)
			big[TC_RELAY_PATH_MAX - 1 + (variant == 4)] = '\0';
		put_be32(TC_RELAY_PATH_MAX + (variant == 4));
		out_put(big, TC_RELAY_PATH_MAX + (variant == 4));
		break;
	}
	case 8:
		put_be32(UINT32_MAX);
		break;
	case 5:
		put_be32((uint32_t)len - 1);
		out_put(path, len - 1);
		break;
	case 6:
		put_be32((uint32_t)len + 4);
		out_put(path, len);
		out_put("abc", 4);
		break;
	default: {
		uint32_t n = fuzz_take_u32(&side.in), given = fuzz_take_byte(&side.in);

		put_be32(n);
		for (uint32_t i = 0; i < given; i++) {
			uint8_t byte = fuzz_take_byte(&side.in);

			out_put(&byte, 1);
		}
		side.is_well_formed &= n == given;
	}
	}
}

static void
answer_version(unsigned int variant)
{
	static const uint32_t versions[][2] = {{2, 13}, {2, 11}, {2, 12}, {2, 15},
					       {2, 10}, {3, 0},	 {1, 99}};

	if (variant < ARRAY_LEN(versions)) {
		put_be32(versions[variant][0]);
		put_be32(versions[variant][1]);
	} else {
		put_be32(fuzz_take_u32(&side.in));
		put_be32(fuzz_take_u32(&side.in));
	}
}

static void
answer_create_session(unsigned int variant)
{
	put_be64(variant == 8 ? take_u64(&side.in) : 7);
	put_be32(variant == 1 ? 38 : TC_RELAY_LTTNG_OK);
	if (variant == 1) {
		put_be32(0);
		return;
	}
	put_path(variant < 2 ? 0 : variant - 1, "/var/lib/lttng-relayd/host/fuzz-20261201-000000");
}

static void
answer_add_stream(unsigned int variant)
{
	side.last_handle = variant == 2	  ? take_u64(&side.in)
			   : variant == 3 ? UINT64_MAX
					  : side.next_handle++;
	put_be64(side.last_handle);
	put_be32(variant == 1 ? 38 : TC_RELAY_LTTNG_OK);
}

/* A generic reply: good is the answer to a good command. */
static void
answer_generic(unsigned int variant, uint32_t good)
{
	static const uint32_t codes[] = {0, 1, TC_RELAY_LTTNG_OK, 31};

	put_be32(variant == 0 ? good : variant < 4 ? codes[variant] : fuzz_take_u32(&side.in));
}

static void
answer_close_chunk(unsigned int variant)
{
	if (variant == 1 || variant == 9) {
		put_be32(38);
		put_be32(0);
		return;
	}
	put_be32(TC_RELAY_LTTNG_OK);
	if (variant == 8)
		put_path(0, "/var/lib/lttng-relayd/host/fuzz-20261201-000000");
	else
		put_path(variant < 2 ? 0 : variant - 1,
			 "/var/lib/lttng-relayd/host/fuzz-20261201-000000/archives/"
			 "20261201T000000+0000-20261201T000100+0000-0");
}

static void
answer_chunk_exists(unsigned int variant)
{
	uint8_t exists = variant == 1	? 1
			 : variant == 2 ? 2
			 : variant == 4 ? fuzz_take_byte(&side.in)
					: 0;

	put_be32(variant == 3 ? 38 : TC_RELAY_LTTNG_OK);
	out_put(&exists, 1);
}

static void
answer_configuration(unsigned int variant)
{
	put_be32(variant == 2 ? 38 : TC_RELAY_LTTNG_OK);
	put_be64(variant == 1	? 0
		 : variant == 3 ? take_u64(&side.in)
				: TC_RELAY_CONFIGURATION_CLEAR_ALLOWED);
}

/* The well-formed answer to cmd, of the variant. */
static void
answer_well_formed(uint32_t cmd, unsigned int variant)
{
	switch (cmd) {
	case TC_RELAY_VERSION:
		answer_version(variant);
		break;
	case TC_RELAY_CREATE_SESSION:
		answer_create_session(variant);
		break;
	case TC_RELAY_ADD_STREAM:
		answer_add_stream(variant);
		break;
	case TC_RELAY_DATA_PENDING:
	case TC_RELAY_END_DATA_PENDING:
		answer_generic(variant, 0);
		break;
	case TC_RELAY_CLOSE_TRACE_CHUNK:
		answer_close_chunk(variant);
		break;
	case TC_RELAY_TRACE_CHUNK_EXISTS:
		answer_chunk_exists(variant);
		break;
	case TC_RELAY_GET_CONFIGURATION:
		answer_configuration(variant);
		break;
	case TC_RELAY_SEND_METADATA:
		break; /* no reply */
	default:
		answer_generic(variant, TC_RELAY_LTTNG_OK);
	}
}

/* Answers one command as the relay side's next shape byte says. */
static void
answer(uint32_t cmd)
{
	uint8_t shape = fuzz_take_byte(&side.in);
	size_t start = side.out_len;

	if (side.is_silent || side.hang_up)
		return; /* a relay that stopped answering does not start again */
	if (shape < SHAPE_CUT) {
		answer_well_formed(cmd, shape % 16u);
		side.is_default &= shape % 16u == 0;
		return;
	}
	side.is_default = false;
	if (shape < SHAPE_LONG) {
		size_t cut = 1 + shape % 8u;

		answer_well_formed(cmd, 0);
		side.out_len -= side.out_len - start < cut ? side.out_len - start : cut;
		side.is_well_formed = false;
	} else if (shape < SHAPE_SILENT) {
		uint8_t extra[8];

		answer_well_formed(cmd, 0);
		memset(extra, fuzz_take_byte(&side.in), sizeof(extra));
		out_put(extra, 1 + shape % 8u);
		side.is_well_formed = false;
	} else if (shape < SHAPE_HANG_UP) {
		side.is_silent = true;
	} else if (shape < SHAPE_RAW) {
		side.hang_up = true;
	} else {
		for (unsigned int n = fuzz_take_byte(&side.in); n > 0; n--) {
			uint8_t byte = fuzz_take_byte(&side.in);

			out_put(&byte, 1);
		}
		side.is_well_formed = false;
	}
}

/* The payload size of each command, as tc-consumerd-relay-wire.h lays them out:
 * exact, or at least that much when the command carries names or data. */
static bool
command_framed(uint32_t cmd, uint64_t size)
{
	switch (cmd) {
	case TC_RELAY_VERSION:
		return size == sizeof(struct tc_relay_version);
	case TC_RELAY_CREATE_SESSION:
		return size > sizeof(struct tc_relay_create_session) && size <= COMMAND_MAX;
	case TC_RELAY_ADD_STREAM:
		return size > sizeof(struct tc_relay_add_stream) && size <= COMMAND_MAX;
	case TC_RELAY_SEND_METADATA:
		return size >= sizeof(struct tc_relay_metadata_payload) +
				   sizeof(struct tc_ctf_metadata_packet_header);
	case TC_RELAY_CLOSE_STREAM:
	case TC_RELAY_DATA_PENDING:
		return size == sizeof(struct tc_relay_stream_seq);
	case TC_RELAY_BEGIN_DATA_PENDING:
	case TC_RELAY_END_DATA_PENDING:
		return size == sizeof(struct tc_relay_session_ref);
	case TC_RELAY_SEND_INDEX:
		return size == sizeof(struct tc_relay_index);
	case TC_RELAY_STREAMS_SENT:
		return size == 0;
	case TC_RELAY_ROTATE_STREAMS:
		return size > sizeof(struct tc_relay_rotate_streams) &&
		       (size - sizeof(struct tc_relay_rotate_streams)) %
			       sizeof(struct tc_relay_stream_rotation_position) ==
			   0;
	case TC_RELAY_CREATE_TRACE_CHUNK:
		return size == sizeof(struct tc_relay_create_trace_chunk);
	case TC_RELAY_CLOSE_TRACE_CHUNK:
		return size == sizeof(struct tc_relay_close_trace_chunk);
	case TC_RELAY_TRACE_CHUNK_EXISTS:
		return size == sizeof(struct tc_relay_trace_chunk_exists);
	case TC_RELAY_GET_CONFIGURATION:
		return size == sizeof(struct tc_relay_get_configuration);
	default:
		return false;
	}
}

/* Reads what the consumer sent on the control connection and answers
 * every whole command. */
static void
read_commands(void)
{
	for (;;) {
		struct tc_relay_cmd_header header;
		uint64_t size;
		ssize_t n;

		if (side.cmd_len >= CMD_HEADER_SIZE) {
			memcpy(&header, side.cmd, sizeof(header));
			size = be64toh(header.data_size);
			if (!command_framed(be32toh(header.cmd), size) ||
			    size > IN_MAX - CMD_HEADER_SIZE)
				FAIL("command %" PRIu32 " sent with %" PRIu64 " bytes",
				     be32toh(header.cmd), size);
			if (side.cmd_len >= CMD_HEADER_SIZE + size) {
				size_t whole = CMD_HEADER_SIZE + size;

				answer(be32toh(header.cmd));
				memmove(side.cmd, side.cmd + whole, side.cmd_len - whole);
				side.cmd_len -= whole;
				continue;
			}
		}
		n = recv(side.control, side.cmd + side.cmd_len, sizeof(side.cmd) - side.cmd_len,
			 MSG_DONTWAIT);
		if (n <= 0)
			return;
		side.cmd_len += (size_t)n;
	}
}

/* Reads the data connection: headers and the packets' content. */
static void
read_data(void)
{
	uint8_t buf[4096];

	for (;;) {
		size_t want = side.data_left ? MIN_SIZE(side.data_left, sizeof(buf))
					     : DATA_HEADER_SIZE - side.data_len;
		ssize_t n = recv(side.data, side.data_left ? buf : side.data_buf + side.data_len,
				 want, MSG_DONTWAIT);

		if (n <= 0)
			return;
		if (side.data_left) {
			side.data_left -= (size_t)n;
			continue;
		}
		side.data_len += (size_t)n;
		if (side.data_len == DATA_HEADER_SIZE) {
			struct tc_relay_data_header header;

			memcpy(&header, side.data_buf, sizeof(header));
			side.data_left = be32toh(header.data_size);
			side.data_len = 0;
			if (side.data_left == 0 || side.data_left > PACKET_MAX ||
			    be32toh(header.data_size) + be32toh(header.padding_size) > PACKET_MAX)
				FAIL("a data packet sent with %" PRIu32 " + %" PRIu32 " bytes",
				     be32toh(header.data_size), be32toh(header.padding_size));
		}
	}
}

/* Delivers the next piece of the answers. */
static void
deliver(void)
{
	size_t left = side.out_len - side.out_pos,
	       len = side.chunk ? MIN_SIZE(side.chunk, left) : left;
	ssize_t n;

	if (len > 0) {
		n = send(side.control, side.out + side.out_pos, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0) {
			side.out_pos += (size_t)n;
			side.delivered += (size_t)n;
			outcomes[SHORT_READ] += (size_t)n < left;
		}
	}
	if (side.out_pos == side.out_len) {
		side.out_pos = side.out_len = 0;
		if (side.hang_up)
			shutdown(side.control, SHUT_WR);
	}
}

static void
relay_pump(void)
{
	if (side.control < 0)
		return;
	read_data();
	read_commands();
}

static int
fuzz_poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	size_t delivered_before = side.delivered;
	int ready;

	if (nfds == 0) {
		fuzz_clock_wait_ms(timeout); /* a sleep */
		return 0;
	}
	relay_pump();
	if (side.control >= 0)
		deliver();
	/* Polls that bring nothing new: a loop of them would spin. */
	if (side.delivered == delivered_before && ++side.idle_polls > POLLS_MAX)
		FAIL("more than %u polls with nothing new: the consumer does not stop waiting",
		     POLLS_MAX);
	ready = poll(fds, nfds, 0);
	if (ready != 0 || timeout == 0)
		return ready;
	/* Nothing will come: the relay only acts here. */
	if (side.is_default && !side.is_silent && side.control >= 0 &&
	    fds[0].fd == side.consumer_control)
		FAIL("the consumer waits for a reply the relay does not owe");
	outcomes[TIMED_OUT]++;
	fuzz_clock_wait_ms(timeout);
	return 0;
}

static int
fuzz_nanosleep(const struct timespec *request, struct timespec *remaining)
{
	(void)remaining;
	fuzz_clock_ns += (uint64_t)request->tv_sec * 1000000000u + (uint64_t)request->tv_nsec;
	return 0;
}

static void
side_close(void)
{
	if (side.control >= 0) {
		close(side.control);
		close(side.data);
	}
	side.control = side.data = side.consumer_control = -1;
}

/* A new connection: the relay's ends of two socket pairs; the
 * consumer's ends in *control, *data. */
static void
side_connect(int *control, int *data)
{
	int c[2], d[2];

	side_close();
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, c) < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, d) < 0)
		FAIL("socketpair: %s", strerror(errno));
	side.control = c[0];
	side.data = d[0];
	side.consumer_control = *control = c[1];
	*data = d[1];
	side.out_len = side.out_pos = side.cmd_len = side.data_len = side.data_left = 0;
	side.is_well_formed = side.is_default = true;
	side.is_silent = side.hang_up = false;
	side.next_handle = 100;
}

/* ---- the consumer ---- */

struct harness {
	struct tc_consumerd_relay *relay;
	struct tc_consumerd_relay_stream streams[STREAMS_MAX];
	bool registered[STREAMS_MAX];
	uint64_t packet_seq;
};

/* Tells the relay side that the consumer closed its connection. */
static void
follow_connection(struct harness *h)
{
	if (side.control >= 0 && h->relay->control_fd != side.consumer_control)
		side_close();
}

static void
make_relay(struct harness *h, uint8_t setup)
{
	struct tc_consumer_relay_output out = {
	    .family = AF_UNSPEC,
	    .control_port = 5342,
	    .data_port = 5343,
	    .live_timer_us = setup & 1 ? 100000 : 0,
	    .creation_time = 1764547200,
	    .sessiond_uuid = {1, 2, 3, 4, 5, 6, 0x47, 8, 0x89, 10, 11, 12, 13, 14, 15, 16},
	    .sessiond_session_id = 3,
	    .chunk_id = (setup >> 1) % 3,
	};
	struct tc_consumerd_relay *relay = calloc(1, sizeof(*relay));

	if (!relay)
		FAIL("out of memory");
	strcpy(out.host, "127.0.0.1");
	strcpy(out.hostname, "host");
	strcpy(out.session_name, "fuzz");
	/* As tc_consumerd_relay_open() does, but for the host's lookup. */
	relay->out = out;
	relay->session_id = 1;
	relay->control_fd = relay->data_fd = relay->probe_fd = relay->probe_data_fd = -1;
	relay->chunk_id = out.chunk_id;
	relay->chunk_created = out.creation_time;
	relay->chunk_created_before = out.creation_time - 60;
	relay->chunk_closed_before = out.creation_time - 1;
	relay->chunk_before_archived = setup & 8;
	relay->generation = setup >> 4 & 1;
	tc_consumerd_relay_held_init(&relay->held);
	set_identity(relay, &out, 1);
	h->relay = relay;
}

/* The first connection: now, as a creation makes it, or later, as the
 * probe of a relay opened with TC_CONSUMER_RELAY_CONNECT_LATER. */
static void
first_connection(struct harness *h, uint8_t setup)
{
	int control, data;

	if (setup & 0x20) {
		h->relay->first_probe = true;
		return;
	}
	side_connect(&control, &data);
	if (relay_connect(h->relay, control, data, false,
			  fuzz_clock_now() + CONSUMERD_RELAY_OPEN_TIMEOUT_MS * 1000000ull) == 0) {
		outcomes[HANDSHAKE_UP]++;
	} else {
		outcomes[HANDSHAKE_REFUSED]++;
		if (side.is_default)
			FAIL("the handshake failed with a relay that answered as lttng-relayd");
	}
	follow_connection(h);
}

/* A connection made again, VERSION sent by the probe first. */
static void
act_connect(struct harness *h)
{
	int control, data;

	if (h->relay->up)
		return;
	side_connect(&control, &data);
	if (tc_consumerd_relay_control_send_version(control) < 0)
		FAIL("sending VERSION on a fresh connection");
	if (h->relay->first_probe) {
		first_probe_connected(h->relay, control, data);
	} else {
		relay_reconnect(h->relay, control, data, fuzz_clock_now());
	}
	if (h->relay->up)
		outcomes[RECONNECTED]++;
	else if (side.is_default)
		FAIL("a reconnection failed with a relay that answered as lttng-relayd");
	follow_connection(h);
}

static void
act_add_stream(struct harness *h, uint8_t arg, bool is_metadata)
{
	static const char *const names[] = {"chan_0", "chan_1", "metadata",
					    "a_name_of_200_characters_"};
	unsigned int i = arg % STREAMS_MAX;
	struct tc_consumerd_relay_stream *s = &h->streams[i];
	char name[256];

	if (h->registered[i])
		return;
	if (i == 3)
		snprintf(name, sizeof(name), "%.*s%0*d", 25, names[3], 175, 0);
	else
		snprintf(name, sizeof(name), "%s", names[i]);
	memset(s, 0, sizeof(*s));
	if (tc_consumerd_relay_stream_add(h->relay, s, name, "ust/uid/1000/64-bit", is_metadata) <
	    0)
		return;
	h->registered[i] = true;
	if (s->added) {
		outcomes[STREAM_ADDED]++;
		if (side.is_default && s->handle != side.last_handle)
			FAIL("stream %s has handle %" PRIu64 ", the relay gave %" PRIu64, name,
			     s->handle, side.last_handle);
	}
}

static struct tc_consumerd_relay_stream *
pick_stream(struct harness *h, uint8_t arg)
{
	unsigned int i = arg % STREAMS_MAX;

	return h->registered[i] ? &h->streams[i] : NULL;
}

static void
act_send_packet(struct harness *h, uint8_t arg)
{
	struct tc_consumerd_relay_stream *s = pick_stream(h, arg);
	uint8_t packet[PACKET_MAX];
	struct tc_packet_header header = {.magic = 0xc1fc1fc1, .stream_id = 1, .cpu_id = 0};
	uint32_t size = 128u << (arg >> 2 & 3);
	int ret;

	if (!s || s->is_metadata)
		return;
	memset(packet, 0x5a, sizeof(packet));
	header.packet_size = (uint64_t)size * 8;
	header.content_size =
	    arg & 0x40 ? (uint64_t)size * 8 + 8 : (uint64_t)(size - (arg & 0x30)) * 8;
	header.timestamp_begin = 1000 * h->packet_seq;
	header.timestamp_end = 1000 * h->packet_seq + 999;
	header.packet_seq_num = h->packet_seq++;
	memcpy(packet, &header, sizeof(header));
	ret = tc_consumerd_relay_send_packet(h->relay, s, packet, size);
	if ((arg & 0x40) && ret >= 0)
		FAIL("a packet whose content is larger than itself was taken (%d)", ret);
	outcomes[PACKET_SENT] += ret == 0;
	outcomes[PACKET_HELD] += ret == 1;
}

static void
act_send_metadata(struct harness *h, uint8_t arg)
{
	static const char *const texts[] = {
	    "/* CTF 1.8 */\ntrace {\n\tuuid = \"01020304-0506-4708-890a-0b0c0d0e0f10\";\n};\n",
	    "event {\n\tname = \"a:b\";\n\tid = 1;\n};\n",
	    "trace { uuid = \"zz\"; };\n",
	    "uuid = \"0102",
	};
	struct tc_consumerd_relay_stream *s = pick_stream(h, arg);
	const char *text = texts[arg >> 2 & 3];

	if (!s || !s->is_metadata)
		return;
	if (tc_consumerd_relay_send_metadata(h->relay, s, text, strlen(text)) == 0 && s->added)
		outcomes[METADATA_SENT]++;
}

static void
act_rotate(struct harness *h, uint8_t arg)
{
	static const uint32_t commands[] = {TC_RELAY_CHUNK_MOVE_TO_COMPLETED, TC_RELAY_CHUNK_DELETE,
					    TC_RELAY_CHUNK_NO_OPERATION};
	char path[TC_RELAY_PATH_MAX + 128];
	uint32_t steps = 1 + arg % 3u;
	int ret;

	if (arg & 4)
		steps |= CONSUMERD_RELAY_CHUNK_NO_WAIT;
	ret = tc_consumerd_relay_chunk_rotate(h->relay, commands[(arg >> 3) % 3u], steps,
					      1764547260, path, sizeof(path));
	if (ret == 0)
		outcomes[ROTATED]++;
	else if (h->relay->up || ret == -EPROTO)
		outcomes[ROTATE_REFUSED]++;
	if (strnlen(path, sizeof(path)) == sizeof(path))
		FAIL("the chunk's path has no end");
}

static void
act(struct harness *h, uint8_t what, uint8_t arg)
{
	bool connecting = h->relay->first_probe;

	switch (what % 12u) {
	case 0:
	case 1:
		act_add_stream(h, arg, false);
		break;
	case 2:
		act_add_stream(h, 2, true);
		break;
	case 3:
		if (!connecting)
			tc_consumerd_relay_streams_sent(h->relay);
		break;
	case 4:
	case 5:
		act_send_packet(h, arg);
		break;
	case 6:
		act_send_metadata(h, arg);
		break;
	case 7: {
		struct tc_consumerd_relay_stream *s = pick_stream(h, arg);

		if (s && !connecting)
			tc_consumerd_relay_send_beacon(h->relay, s, 1, 5000);
		break;
	}
	case 8:
		/* While connecting, a wait would start the host's lookup. */
		if (!connecting && tc_consumerd_relay_wait_received(h->relay, 2000) == 0)
			outcomes[WAIT_RECEIVED]++;
		break;
	case 9:
		if (!connecting)
			act_rotate(h, arg);
		break;
	case 10:
		/* Only while up: retrying would look the host up. */
		if (h->relay->up && !tc_consumerd_relay_is_up(h->relay, 0) && side.is_default)
			FAIL("a relay that answered as lttng-relayd counts as hung up");
		if (!h->relay->up)
			act_connect(h);
		break;
	default: {
		struct tc_consumerd_relay_stream *s = pick_stream(h, arg);

		if (s) {
			tc_consumerd_relay_stream_remove(h->relay, s);
			h->registered[arg % STREAMS_MAX] = false;
		}
	}
	}
}

/* After an action: what the consumer left unread is what it may leave
 * unread, when the replies had their sizes. */
static void
check_after(struct harness *h, uint8_t what)
{
	int unread = 0;
	size_t owed;

	follow_connection(h);
	if (side.control < 0)
		return;
	relay_pump();
	if (!h->relay->up)
		return;
	if (!side.is_well_formed || side.is_silent || side.hang_up)
		return;
	if (ioctl(side.consumer_control, FIONREAD, &unread) < 0)
		FAIL("FIONREAD: %s", strerror(errno));
	owed = (size_t)unread + side.out_len - side.out_pos;
	if (owed != h->relay->pending_replies * GENERIC_SIZE)
		FAIL("after action %u, %zu bytes of replies are unread, %" PRIu32
		     " index replies pending",
		     what % 12u, owed, h->relay->pending_replies);
	outcomes[OWED_CHECKED]++;
}

/* The consumer's logs: formatted, so that what they print of the
 * relay's replies is read, but not written out (each loss and every
 * stream would fill the output). Replaces common/util/tc-log-line.c. */
void
tc_log_line_write(const char *prefix, const char *format, va_list args)
{
	char line[1024];

	(void)prefix;
	vsnprintf(line, sizeof(line), format, args);
}

/* The lowest descriptor free: the same after an input as before it
 * when every one opened meanwhile was closed. */
static int
next_free_fd(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		FAIL("open: %s", strerror(errno));
	close(fd);
	return fd;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = {data, size, 0};
	struct harness h = {0};
	uint8_t setup = fuzz_take_byte(&in), chunk = fuzz_take_byte(&in);
	unsigned int n_actions = fuzz_take_byte(&in) % (ACTIONS_MAX + 1);
	size_t relay_start = MIN_SIZE(size, 3 + 2 * (size_t)n_actions);
	bool was_lost = false;

	int first_free = next_free_fd();

	fuzz_clock_ns = FUZZ_CLOCK_START_NS; /* each input from the same time */
	memset(&side, 0, sizeof(side));
	side.control = side.data = side.consumer_control = -1;
	side.in = (struct fuzz_input){data + relay_start, size - relay_start, 0};
	side.chunk = chunk;
	make_relay(&h, setup);
	first_connection(&h, setup);
	for (unsigned int i = 0; i < n_actions; i++) {
		uint8_t what = fuzz_take_byte(&in), arg = fuzz_take_byte(&in);
		bool was_up = h.relay->up;

		act(&h, what, arg);
		check_after(&h, what);
		if (was_up && !h.relay->up) {
			was_lost = true;
			if (side.is_default && side.control >= 0)
				FAIL("action %u lost a relay that answered as lttng-relayd",
				     what % 12u);
		}
	}
	outcomes[RELAY_LOST] += was_lost;
	while (h.relay->streams)
		tc_consumerd_relay_stream_remove(h.relay, h.relay->streams);
	tc_consumerd_relay_close(h.relay);
	side_close();
	if (next_free_fd() != first_free)
		FAIL("a descriptor is left open after the relay's close");
	return 0;
}

#ifndef FUZZ_LIBFUZZER
/* Conversations as tracectl-consumerd has them with lttng-relayd 2.13:
 * actions (two bytes each), then the relay's side. */
#define SEED(...)                                                                                  \
	{                                                                                          \
		(const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__})             \
	}
static const struct fuzz_seed seeds[] = {
    /* A session: streams, metadata, packets, a wait, close. */
    SEED(0x00, 0, 9, 0, 0, 1, 1, 2, 2, 3, 0, 6, 2, 4, 0, 5, 1, 8, 0, 7, 0),
    /* The same in pieces of 3 bytes, live. */
    SEED(0x01, 3, 9, 0, 0, 1, 1, 2, 2, 3, 0, 6, 2, 4, 0, 5, 1, 8, 0, 7, 0),
    /* Rotations: archive, delete, begin then close, no wait. */
    SEED(0x00, 0, 8, 0, 0, 2, 2, 3, 0, 4, 0, 9, 0, 9, 9, 9, 1, 9, 0x06),
    /* A relay that speaks 2.11, then a refused index and data pending. */
    SEED(0x00, 0, 4, 0, 0, 3, 0, 4, 0, 8, 0, 0x01, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x01,
	 0x00, 0x00, 0x00, 0x00, 0x00, 0x00),
    /* A reconnection into chunk 1 after an archive, streams added again. */
    SEED(0x1a, 1, 5, 0, 0, 2, 2, 4, 0, 10, 0, 8, 0, 0xe8),
    /* A first connection made later: packets held, then sent. */
    SEED(0x20, 0, 5, 0, 0, 4, 0, 4, 4, 10, 0, 8, 0),
    /* The relay refuses the session. */
    SEED(0x00, 0, 1, 0, 0, 0x00, 0x01),
    /* The chunk is still held twice, then released; clear not allowed. */
    SEED(0x00, 0, 4, 0, 0, 4, 0, 9, 0, 9, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x01, 0x00, 0x00,
	 0x00, 0x00, 0x01),
    /* A path at the limit and one past it. */
    SEED(0x00, 7, 2, 0, 0, 9, 0, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04),
    /* A reply cut short, one too long, silence, raw bytes. */
    SEED(0x00, 0, 4, 0, 0, 0, 1, 3, 0, 8, 0, 0x00, 0x00, 0x00, 0xc2, 0xd3, 0x41),
    SEED(0x00, 2, 3, 0, 0, 4, 0, 8, 0, 0x00, 0x00, 0x00, 0x00, 0x00, 0xe0),
    SEED(0x00, 0, 2, 0, 0, 3, 0, 0x00, 0x00, 0x00, 0xf0, 5, 0, 0, 0, 10, 1),
};

const struct fuzz_harness fuzz_harness = {
    .seeds = seeds,
    .nr_seeds = ARRAY_LEN(seeds),
    .input_max = 2048,
    .outcome_names = outcome_names,
    .outcomes = outcomes,
    .nr_outcomes = OUTCOMES,
};
#endif
