/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes how tracectld takes an LTTng-UST channel from a consumer:
 * tc_consumer_lttng_channel_new() (tc-consumer-lttng.c), which asks for
 * the channel (TC_CONSUMER_LTTNG_CHANNEL) and checks the answer, with
 * every message of that answer routed by tc_consumer_route()
 * (tc-consumer-route.c) to its request. The consumer runs as the session
 * owner, who may replace it with any program: its messages and the
 * descriptors that come with them are the owner's choice, and tracectld
 * hands what it takes to applications unchanged.
 *
 * The harness plays the link of tc-consumer.c and the consumer. Its
 * tc_consumer_request_streams() does what the link's does (the request
 * registered under an id, its answer descriptor and streams set to -1, then
 * each message received handed to tc_consumer_route(); on a fault every
 * waiting request is failed as consumer_break() does; a consumer that stops
 * answering fails the request as the link's deadline does) and checks the
 * request tracectld built. The input's first byte picks the number of
 * streams (1 to 4) and the channel id, the next four the request id; then
 * come up to MESSAGES_MAX messages, each a head byte (low bits: what it is
 * built as, a datum, the next stream, a reply, raw bytes, or the rest of a
 * well-formed answer; FLAG_* bits: bytes follow that change its values, its
 * descriptors, its framing) then those bytes. A datum may be cut to its
 * header, 1 to TC_CONSUMER_LTTNG_CHANNEL_DATA_MAX bytes long or one byte
 * more, name another channel or another number of streams; a stream may be
 * out of order, one too many, cut or grown, announce a size its memfd does
 * not have; a reply may refuse or be mis-sized; any message may have a bad
 * magic, size field or request id; each may come with no descriptor, one
 * or two, in either place, each a pipe, a memfd, an eventfd or /dev/null.
 *
 * What must hold, beside no error under the sanitizers:
 * - The request tracectld sends is the one asked: its type, size, ids,
 *   geometry, uuid and name.
 * - Each message's verdict is the ABI's (common/abi/tc-consumer-abi.h),
 *   written again below from what the harness built: a message is taken
 *   when its header is sound, it names the request, and it is the datum
 *   (once, of the channel asked, its number of streams, 1 to 4096 bytes,
 *   with at most one descriptor, in the first place), the next stream
 *   (with its two descriptors) or a well-sized reply without descriptors;
 *   anything else breaks the consumer and fails the request.
 * - A channel is made exactly when the reply said 0 after one datum with
 *   its descriptor and every stream, each shm a regular file of the size
 *   the last stream announced (not 0) and each wake-up descriptor a pipe;
 *   it then holds what was sent: the datum's bytes and type, the very
 *   descriptors (by inode), the size. Otherwise there is an error.
 * - No descriptor is left open: the ones not taken are closed by the
 *   route, the ones taken by the failure or the channel's free.
 *
 * Built with libFuzzer it is a coverage-guided fuzzer (tests/fuzz/meson.build
 * has its sources): `ninja -C build-fuzz tests/fuzz/fuzz-consumer-lttng`,
 * then `build-fuzz/tests/fuzz/fuzz-consumer-lttng -max_len=512 CORPUS`.
 * Otherwise fuzz-driver.c's main() mutates the seeds at the end of this
 * file: `fuzz-consumer-lttng --seed N --runs M`.
 */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz-driver.h"
#include "tc-consumer-lttng.h"
#include "tc-consumer-route.h"
#include "tc-error.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define STREAMS_MAX 4u
#define MESSAGES_MAX 24u
#define SESSION_ID 7u
#define CHAN_ID 3u
#define SHM_SIZE 8192u /* what a well-formed stream's memfd holds */
#define DATA_MAX TC_CONSUMER_LTTNG_CHANNEL_DATA_MAX

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		fprintf(stderr, "fuzz-consumer-lttng: " __VA_ARGS__);                              \
		fprintf(stderr, "\n");                                                             \
		abort();                                                                           \
	} while (0)

enum outcome {
	CHANNEL_MADE,
	DATUM_TAKEN,
	STREAM_TAKEN,
	REFUSED,
	BROKEN,
	TIMED_OUT,
	INCOMPLETE,
	WRONG_KIND,
	OUTCOMES,
};
/* Named by the standalone driver only. */
static const char *const outcome_names[OUTCOMES] __attribute__((unused)) = {
    "channel made", "datum taken", "stream taken", "refused",
    "broken",	    "timed out",   "incomplete",   "wrong kind",
};
static unsigned long long outcomes[OUTCOMES];

/* What a message is built as (the low bits of its head byte). */
enum kind { K_DATUM, K_STREAM, K_REPLY, K_RAW, K_REST, KINDS };
#define KIND_MASK 0x07u
#define FLAG_VALUES 0x08u /* a byte follows: the message's values */
#define FLAG_FDS 0x10u	  /* a byte follows: its descriptors */
#define FLAG_TWIST 0x20u  /* a byte follows: its framing */

/* The descriptors the harness sends, by what they are. */
enum fd_kind { FD_NONE, FD_PIPE, FD_MEMFD, FD_EVENT, FD_NULL };

/* One message as built: its bytes in out, its descriptors. */
struct built {
	gsize len;
	enum fd_kind kinds[2];
	guint64 memfd_size; /* of a memfd among them */
	int fds[2];
	ino_t inodes[2];
};

/* What the harness knows of the answer so far, as the ABI reads it. */
struct model {
	guint32 request_id;
	guint64 channel_id;
	guint nr_streams;
	gboolean has_datum, has_wakeup, is_done, is_broken;
	gint32 status, chan_type;
	guint streams;
	guint64 shm_size;
	gboolean kinds_ok; /* every descriptor taken is of its kind so far */
	guint8 data[DATA_MAX];
	gsize data_len;
	ino_t wakeup_inode, stream_inodes[2 * STREAMS_MAX];
	enum fd_kind stream_kinds[2 * STREAMS_MAX];
	guint64 stream_memfd_sizes[STREAMS_MAX];
};

static union {
	struct tc_consumer_header header;
	guint64 align;
	guint8 bytes[TC_CONSUMER_MSG_MAX];
} out;

static struct fuzz_input *input;
static struct model model;
static const TcChannelConfig asked_config = {
    .subbuf_size = 4096, .num_subbuf = 4, .overwrite = 1, .switch_timer_us = 1000000};
static const guint8 asked_uuid[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

/* --- Descriptors ---------------------------------------------------------- */

static ino_t
inode_of(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		FAIL("fstat: %s", strerror(errno));
	return st.st_ino;
}

static int
open_fd(enum fd_kind kind, guint64 memfd_size)
{
	int pipe_fds[2], fd = -1;

	switch (kind) {
	case FD_PIPE:
		if (pipe2(pipe_fds, O_CLOEXEC) < 0)
			FAIL("pipe2: %s", strerror(errno));
		close(pipe_fds[0]);
		return pipe_fds[1];
	case FD_MEMFD:
		fd = memfd_create("fuzz-consumer-lttng", MFD_CLOEXEC);
		if (fd < 0 || ftruncate(fd, (off_t)memfd_size) < 0)
			FAIL("memfd: %s", strerror(errno));
		return fd;
	case FD_EVENT:
		fd = eventfd(0, EFD_CLOEXEC);
		break;
	case FD_NULL:
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		break;
	default:
		return -1;
	}
	if (fd < 0)
		FAIL("cannot open a descriptor: %s", strerror(errno));
	return fd;
}

/* --- Building messages ---------------------------------------------------- */

static void
header(guint32 type, gsize len)
{
	out.header = (struct tc_consumer_header){.magic = TC_CONSUMER_MAGIC,
						 .type = type,
						 .size = (guint32)len,
						 .request_id = model.request_id};
}

/* The datum: values bits 0-2 its length, 3 another channel, 4-5 another
 * number of streams, 6-7 its type. */
static void
build_datum(struct built *b, guint8 v)
{
	static const gsize lengths[8] = {16, 1, 64, DATA_MAX, DATA_MAX + 1, 0, 300, 8};
	struct tc_consumer_lttng_channel_data *d = (void *)out.bytes;
	gsize n = lengths[v & 7u];

	b->len = sizeof(*d) + n;
	header(TC_CONSUMER_LTTNG_CHANNEL_DATA, b->len);
	d->channel_id = model.channel_id + (v & 8 ? 1 : 0);
	d->nr_streams = model.nr_streams + (v & 0x10 ? 1 : 0) - (v & 0x20 ? 1 : 0);
	d->chan_type = (gint32)(v >> 6);
	for (gsize i = 0; i < n; i++)
		out.bytes[sizeof(*d) + i] = (guint8)(fuzz_take_byte(input) ^ i);
	b->kinds[0] = FD_PIPE;
}

/* The next stream: values bits 0-1 its place, 2-3 the size it announces,
 * 4 a memfd half as long. */
static void
build_stream(struct built *b, guint8 v)
{
	static const guint64 sizes[4] = {SHM_SIZE, 0, SHM_SIZE + 1, SHM_SIZE / 2};
	struct tc_consumer_stream *s = (void *)out.bytes;
	guint32 places[4] = {model.streams, model.streams + 1, model.streams - 1, G_MAXUINT32};

	b->len = sizeof(*s);
	header(TC_CONSUMER_STREAM, b->len);
	s->channel_id = model.channel_id;
	s->cpu = places[v & 3u];
	s->shm_size = sizes[(v >> 2) & 3u];
	b->kinds[0] = FD_MEMFD;
	b->kinds[1] = FD_PIPE;
	b->memfd_size = v & 0x10 ? SHM_SIZE / 2 : SHM_SIZE;
}

/* The reply: values bits 0-1 its status, a message with a refusal. */
static void
build_reply(struct built *b, guint8 v)
{
	static const gint32 statuses[4] = {0, -EINVAL, -EEXIST, 5};
	struct tc_consumer_reply *r = (void *)out.bytes;

	b->len = sizeof(*r);
	header(TC_CONSUMER_REPLY, b->len);
	r->status = statuses[v & 3u];
	if (r->status < 0 && (v & 4))
		memset(r->message, 'x', sizeof(r->message)); /* unterminated */
}

/* Raw bytes of a type the values pick. */
static void
build_raw(struct built *b, guint8 v)
{
	gsize n = fuzz_take_byte(input);

	b->len = sizeof(out.header) + n;
	header(v, b->len);
	for (gsize i = 0; i < n; i++)
		out.bytes[sizeof(out.header) + i] = fuzz_take_byte(input);
}

/* The descriptors: bits 0-2 the first place's, 3-5 the second's. */
static void
change_fds(struct built *b, guint8 f)
{
	static const enum fd_kind kinds[8] = {FD_NONE, FD_PIPE, FD_MEMFD, FD_EVENT,
					      FD_NULL, FD_NONE, FD_PIPE,  FD_MEMFD};

	b->kinds[0] = kinds[f & 7u];
	b->kinds[1] = kinds[(f >> 3) & 7u];
}

/* The framing: 1 a bit of the magic, 2 the size field off, 3 another
 * request id, 4 cut by one byte, 5 grown by eight, 6 cut to the header. */
static void
twist(struct built *b, guint8 t)
{
	switch (t & 7u) {
	case 1:
		out.header.magic ^= 1u << (t >> 3);
		break;
	case 2:
		out.header.size += 1u + (t >> 3);
		break;
	case 3:
		out.header.request_id += 1u + (t >> 3);
		break;
	case 4:
		b->len = b->len > sizeof(out.header) ? b->len - 1 : b->len;
		out.header.size = (guint32)b->len;
		break;
	case 5:
		b->len += 8;
		out.header.size = (guint32)b->len;
		break;
	case 6:
		b->len = sizeof(out.header) - (t >> 6);
		break;
	default:
		break;
	}
}

static void
build_message(struct built *b, enum kind kind, guint8 head)
{
	guint8 v = head & FLAG_VALUES ? fuzz_take_byte(input) : 0;
	guint8 f = head & FLAG_FDS ? fuzz_take_byte(input) : 0;
	guint8 t = head & FLAG_TWIST ? fuzz_take_byte(input) : 0;

	memset(out.bytes, 0, sizeof(struct tc_consumer_reply) + DATA_MAX + 64);
	*b = (struct built){.fds = {-1, -1}, .memfd_size = SHM_SIZE};
	if (kind == K_DATUM)
		build_datum(b, v);
	else if (kind == K_STREAM)
		build_stream(b, v);
	else if (kind == K_REPLY)
		build_reply(b, v);
	else
		build_raw(b, v);
	if (head & FLAG_FDS)
		change_fds(b, f);
	twist(b, t);
	for (int i = 0; i < 2; i++) {
		b->fds[i] = open_fd(b->kinds[i], b->memfd_size);
		b->inodes[i] = b->fds[i] >= 0 ? inode_of(b->fds[i]) : 0;
	}
}

/* --- The ABI's verdict on a message --------------------------------------- */

static gboolean
datum_is_taken(const struct built *b)
{
	const struct tc_consumer_lttng_channel_data *d = (const void *)out.bytes;

	return b->len > sizeof(*d) && b->len - sizeof(*d) <= DATA_MAX && !model.has_datum &&
	       d->channel_id == model.channel_id && d->nr_streams == model.nr_streams;
}

/* Applies the message to the model; FALSE: it breaks the consumer. */
static gboolean
expect_datum(const struct built *b)
{
	const struct tc_consumer_lttng_channel_data *d = (const void *)out.bytes;
	gboolean with_fd = b->fds[0] >= 0 && b->fds[1] < 0 && !model.has_wakeup;

	if (!with_fd && (b->fds[0] >= 0 || b->fds[1] >= 0))
		return FALSE;
	if (!datum_is_taken(b))
		return FALSE;
	model.has_datum = TRUE;
	model.chan_type = d->chan_type;
	model.data_len = b->len - sizeof(*d);
	memcpy(model.data, d + 1, model.data_len);
	if (with_fd) {
		model.has_wakeup = TRUE;
		model.wakeup_inode = b->inodes[0];
		model.kinds_ok &= b->kinds[0] == FD_PIPE;
	}
	outcomes[DATUM_TAKEN]++;
	return TRUE;
}

static gboolean
expect_stream(const struct built *b)
{
	const struct tc_consumer_stream *s = (const void *)out.bytes;
	guint i = model.streams;

	if (b->len != sizeof(*s) || b->fds[0] < 0 || b->fds[1] < 0 || i >= model.nr_streams ||
	    s->cpu != i)
		return FALSE;
	model.stream_inodes[2 * i] = b->inodes[0];
	model.stream_inodes[2 * i + 1] = b->inodes[1];
	model.stream_kinds[2 * i] = b->kinds[0];
	model.stream_kinds[2 * i + 1] = b->kinds[1];
	model.stream_memfd_sizes[i] = b->memfd_size;
	model.shm_size = s->shm_size;
	model.streams++;
	outcomes[STREAM_TAKEN]++;
	return TRUE;
}

static gboolean
expect_reply(const struct built *b)
{
	if (b->fds[0] >= 0 || b->fds[1] >= 0 || b->len != sizeof(struct tc_consumer_reply))
		return FALSE;
	model.is_done = TRUE;
	model.status = ((const struct tc_consumer_reply *)out.bytes)->status;
	return TRUE;
}

static gboolean
expect_message(const struct built *b)
{
	if (b->len < sizeof(out.header) || out.header.magic != TC_CONSUMER_MAGIC ||
	    out.header.size != b->len || out.header.request_id != model.request_id)
		return FALSE;
	switch (out.header.type) {
	case TC_CONSUMER_LTTNG_CHANNEL_DATA:
		return expect_datum(b);
	case TC_CONSUMER_STREAM:
		return expect_stream(b);
	case TC_CONSUMER_REPLY:
		return expect_reply(b);
	default:
		return FALSE;
	}
}

/* --- The link, as tc-consumer.c runs a request ----------------------------- */

static void
check_asked(const void *msg, guint32 type, guint32 size)
{
	const struct tc_consumer_lttng_channel *m = msg;

	if (type != TC_CONSUMER_LTTNG_CHANNEL || size != sizeof(*m) ||
	    m->session_id != SESSION_ID || m->channel_id != model.channel_id ||
	    m->chan_id != CHAN_ID || memcmp(&m->geometry, &asked_config, sizeof(asked_config)) ||
	    memcmp(m->uuid, asked_uuid, sizeof(asked_uuid)) || strcmp(m->name, "channel0") != 0)
		FAIL("tracectld asked for another LTTng-UST channel (type %u, %u bytes)",
		     (unsigned)type, (unsigned)size);
}

/* One message: built, its verdict foreseen, routed as the link's reader
 * hands it; FALSE once the request is over. */
static gboolean
route_one(GHashTable *pending, TcConsumerRequest *request, guint n)
{
	guint8 head = fuzz_take_byte(input);
	enum kind kind = (enum kind)((head & KIND_MASK) % KINDS);
	TcConsumerRequest *culprit = NULL;
	g_autoptr(GError) error = NULL;
	struct built b;
	gboolean expected, ok;

	if (kind == K_REST) {
		/* The rest of a well-formed answer, message by message. */
		kind = !model.has_datum			  ? K_DATUM
		       : model.streams < model.nr_streams ? K_STREAM
							  : K_REPLY;
		head &= (guint8) ~(FLAG_FDS | FLAG_TWIST);
	}
	build_message(&b, kind, head);
	expected = expect_message(&b);
	ok = tc_consumer_route(pending, out.bytes, (gssize)b.len, b.fds, &culprit, &error);
	if (b.fds[0] != -1 || b.fds[1] != -1)
		FAIL("message %u: the route left its descriptors", n);
	if (ok != expected || (ok && error) || (!ok && !error))
		FAIL("message %u (type %u, %zu bytes, descriptors %d %d): %s, not %s", n,
		     (unsigned)out.header.type, b.len, (int)b.kinds[0], (int)b.kinds[1],
		     ok ? "taken" : error->message, expected ? "taken" : "refused");
	if (!ok) {
		/* consumer_break(): every waiting request fails. */
		tc_consumer_route_fail_all(pending, culprit, error, 1000, 4242);
		model.is_broken = TRUE;
		outcomes[BROKEN]++;
	}
	if (request->is_done != (model.is_done || model.is_broken))
		FAIL("message %u: the request is %sdone", n, request->is_done ? "" : "not ");
	return !request->is_done;
}

/* The link's tc_consumer_request_streams(): the request registered, its
 * descriptors -1, then what the consumer sends routed until the request is
 * done, or failed when the consumer stops answering. */
gboolean
tc_consumer_request_streams(TcConsumer *consumer, void *msg, guint32 type, guint32 size,
			    guint32 answer_type, TcConsumerAnswerFunc func, gpointer user_data,
			    int *answer_fd, int *fds, guint max_streams, guint64 *shm_size,
			    GError **error)
{
	struct tc_consumer_reply reply = {0};
	TcConsumerRequest request = {
	    .id = model.request_id,
	    .answer_type = answer_type,
	    .func = func,
	    .user_data = user_data,
	    .answer_fd = answer_fd,
	    .fds = fds,
	    .max_streams = max_streams,
	    .shm_size = shm_size,
	    .reply = &reply,
	};
	GHashTable *pending = g_hash_table_new(NULL, NULL);
	guint n = 0;

	check_asked(msg, type, size);
	if (answer_type != TC_CONSUMER_LTTNG_CHANNEL_DATA || max_streams != model.nr_streams)
		FAIL("tracectld waits for %u streams and answers of type %u", max_streams,
		     (unsigned)answer_type);
	*answer_fd = -1;
	for (guint i = 0; i < 2 * max_streams; i++)
		fds[i] = -1;
	*shm_size = 0;
	g_hash_table_insert(pending, GUINT_TO_POINTER(request.id), &request);
	while (n < MESSAGES_MAX && input->pos < input->size && route_one(pending, &request, n))
		n++;
	if (!request.is_done) {
		g_autoptr(GError) late =
		    g_error_new(TC_ERROR, TC_ERROR_FAILED, "The consumer did not answer");

		tc_consumer_route_fail_all(pending, &request, late, 1000, 4242);
		model.is_broken = TRUE;
		outcomes[TIMED_OUT]++;
	}
	g_hash_table_destroy(pending);
	if (request.error) {
		g_propagate_error(error, request.error);
		return FALSE;
	}
	return TRUE;
}

/* --- What tracectld must have made of it ----------------------------------- */

/* Whether a channel must be made from what was taken. */
static gboolean
expect_channel(void)
{
	if (model.is_broken)
		return FALSE;
	/* A reply's status is 0 or a negative errno; the route takes any
	 * other as a success. */
	if (model.status < 0) {
		outcomes[REFUSED]++;
		return FALSE;
	}
	if (!model.has_datum || !model.has_wakeup || model.streams != model.nr_streams ||
	    model.shm_size == 0) {
		outcomes[INCOMPLETE]++;
		return FALSE;
	}
	for (guint i = 0; i < model.nr_streams; i++)
		model.kinds_ok &= model.stream_kinds[2 * i] == FD_MEMFD &&
				  model.stream_memfd_sizes[i] == model.shm_size &&
				  model.stream_kinds[2 * i + 1] == FD_PIPE;
	if (!model.kinds_ok)
		outcomes[WRONG_KIND]++;
	return model.kinds_ok;
}

static void
check_channel(const TcConsumerLttngChannel *channel)
{
	gsize len = 0;
	const guint8 *data = g_bytes_get_data(channel->data, &len);

	if (channel->channel_id != model.channel_id || channel->nr_streams != model.nr_streams ||
	    channel->chan_type != model.chan_type || channel->stream_size != model.shm_size ||
	    len != model.data_len || memcmp(data, model.data, len) != 0)
		FAIL("the channel holds %zu bytes of type %d, size %" G_GUINT64_FORMAT
		     ", not what was sent",
		     len, (int)channel->chan_type, channel->stream_size);
	if (inode_of(channel->wakeup_fd) != model.wakeup_inode)
		FAIL("the channel's wake-up descriptor is not the one sent");
	for (guint i = 0; i < 2 * model.nr_streams; i++)
		if (inode_of(channel->stream_fds[i]) != model.stream_inodes[i])
			FAIL("descriptor %u of the streams is not the one sent", i);
	outcomes[CHANNEL_MADE]++;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = {data, size, 0};
	g_autoptr(GError) error = NULL;
	TcConsumerLttngChannel *channel;
	int fds_before = fuzz_count_open_fds();
	guint8 setup = fuzz_take_byte(&in);
	guint32 id = fuzz_take_u32(&in);

	input = &in;
	memset(&model, 0, sizeof(model));
	model.nr_streams = 1 + (setup & 3u);
	model.channel_id = setup & 4 ? G_MAXUINT64 : 0;
	model.request_id = id != 0 ? id : 1;
	model.kinds_ok = TRUE;
	channel = tc_consumer_lttng_channel_new(NULL, SESSION_ID, model.channel_id, CHAN_ID,
						&asked_config, asked_uuid, "channel0",
						model.nr_streams, &error);
	if ((channel != NULL) != expect_channel() || (channel == NULL) != (error != NULL))
		FAIL("a channel %s, %s", channel ? "made" : "refused",
		     error ? error->message : "no error");
	if (channel) {
		check_channel(channel);
		tc_consumer_lttng_channel_free(channel);
	}
	if (fuzz_count_open_fds() != fds_before)
		FAIL("%d descriptors open before the input, %d after", fds_before,
		     fuzz_count_open_fds());
	return 0;
}

#ifndef FUZZ_LIBFUZZER
/* An input: the setup byte (streams - 1 in bits 0-1, bit 2 another
 * channel id), the request id (4 bytes, little-endian), then messages: a
 * head byte (K_* | FLAG_*), then its values, descriptors and framing bytes
 * when flagged (see build_*(), change_fds(), twist()), then a datum's
 * bytes or a raw message's length and bytes. */
#define SEED(...)                                                                                  \
	{                                                                                          \
		(const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__})             \
	}
#define ID 0x01, 0x00, 0x00, 0x00
#define DATUM16 K_DATUM, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16
#define STREAM K_STREAM
#define OK K_REPLY
static const struct fuzz_seed seeds[] = {
    /* Well-formed: one stream, then four, another channel id. */
    SEED(0x00, ID, DATUM16, STREAM, OK),
    SEED(0x07, ID, DATUM16, STREAM, STREAM, STREAM, STREAM, OK),
    /* The rest of an answer, message by message; a refusal. */
    SEED(0x01, ID, K_REST, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, K_REST, K_REST,
	 K_REST),
    SEED(0x01, ID, DATUM16, STREAM, K_REPLY | FLAG_VALUES, 0x06),
    /* Datums: too long, empty, another channel, streams, a second one. */
    SEED(0x00, ID, K_DATUM | FLAG_VALUES, 0x04),
    SEED(0x00, ID, K_DATUM | FLAG_VALUES, 0x05),
    SEED(0x00, ID, K_DATUM | FLAG_VALUES, 0x08, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
    SEED(0x01, ID, K_DATUM | FLAG_VALUES, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
    SEED(0x00, ID, DATUM16, DATUM16),
    /* Datums without a descriptor, with two, with an eventfd. */
    SEED(0x00, ID, K_DATUM | FLAG_FDS, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, STREAM,
	 OK),
    SEED(0x00, ID, K_DATUM | FLAG_FDS, 0x09, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
    SEED(0x00, ID, K_DATUM | FLAG_FDS, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, STREAM,
	 OK),
    /* Streams: too few, too many, out of order, sizes, memfds too short,
     * descriptors missing or of the wrong kind. */
    SEED(0x01, ID, DATUM16, STREAM, OK),
    SEED(0x00, ID, DATUM16, STREAM, STREAM, OK),
    SEED(0x01, ID, DATUM16, K_STREAM | FLAG_VALUES, 0x01),
    SEED(0x00, ID, DATUM16, K_STREAM | FLAG_VALUES, 0x04, OK),
    SEED(0x00, ID, DATUM16, K_STREAM | FLAG_VALUES, 0x10, OK),
    SEED(0x01, ID, DATUM16, STREAM, K_STREAM | FLAG_VALUES, 0x1c, OK),
    SEED(0x00, ID, DATUM16, K_STREAM | FLAG_FDS, 0x02),
    SEED(0x00, ID, DATUM16, K_STREAM | FLAG_FDS, 0x0b, OK),
    SEED(0x00, ID, DATUM16, K_STREAM | FLAG_FDS, 0x21, OK),
    SEED(0x00, ID, DATUM16, K_STREAM | FLAG_FDS, 0x14, OK),
    /* Framing: bad magic, size field, request id, cut, grown, a reply
     * with a descriptor, raw bytes, the consumer silent. */
    SEED(0x00, ID, K_DATUM | FLAG_TWIST, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
    SEED(0x00, ID, DATUM16, K_STREAM | FLAG_TWIST, 0x02),
    SEED(0x00, ID, DATUM16, K_STREAM | FLAG_TWIST, 0x03),
    SEED(0x00, ID, DATUM16, K_STREAM | FLAG_TWIST, 0x04),
    SEED(0x00, ID, DATUM16, STREAM, K_REPLY | FLAG_TWIST, 0x05),
    SEED(0x00, ID, DATUM16, STREAM, K_REPLY | FLAG_TWIST, 0x06),
    SEED(0x00, ID, DATUM16, STREAM, K_REPLY | FLAG_FDS, 0x01),
    SEED(0x00, ID, K_RAW | FLAG_VALUES, 0x19, 4, 1, 2, 3, 4),
    SEED(0x00, ID, DATUM16, STREAM),
};

const struct fuzz_harness fuzz_harness = {
    .seeds = seeds,
    .nr_seeds = ARRAY_LEN(seeds),
    .input_max = 512,
    .outcome_names = outcome_names,
    .outcomes = outcomes,
    .nr_outcomes = OUTCOMES,
};
#endif
