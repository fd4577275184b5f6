/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes how tracectld routes what a consumer sends back to the requests
 * waiting for it (tc-consumer-route.c). The consumer runs as the session
 * owner, who may replace it with any program, so the messages and the
 * descriptors that come with them are the owner's choice.
 *
 * Three requests wait, as the link registers them (tc-consumer.c): a
 * plain one that takes its reply only, a CREATE_CHANNEL that takes one to
 * four streams (two descriptors each) before its reply, and one made with
 * tc_consumer_request_answers() that takes any number of SESSION_FILE
 * answers (through a callback that refuses some) before its reply. Their
 * ids come from the input. The rest of the input is a sequence of
 * messages, each built as a reply, a stream, an answer or raw bytes of a
 * type the input picks, for one of the requests or any id, with or without
 * fake descriptors (eventfds) in the two places a message may bring them,
 * sometimes with a bad magic, size or type, or a length that is off. Each
 * goes to tc_consumer_route() as the link's reader hands it; on a fault the
 * harness fails every waiting request as consumer_break() does, and routes
 * nothing more; between messages it may let the done requests go, as their
 * waiters do. What must hold whatever the input, beside no error under the
 * sanitizers:
 *
 * - The verdict is the ABI's (common/abi/tc-consumer-abi.h), which the
 *   harness knows from what it built: a message is taken exactly when its
 *   header is sound and it is the next stream, an answer the callback
 *   accepts or a well-sized reply of a request that waits on it; the
 *   culprit of a fault is the request the message named, if it waits.
 * - A message changes its own request only, and only one that is not done
 *   yet: a request completes at most once, with the reply that carried its
 *   id, byte for byte, and the reply's refusal as its error.
 * - After a fault every request that was waiting has ended with an error.
 * - Every descriptor that came with a message is closed, but a stream's
 *   two, which are in their request's array; no descriptor is left open.
 *
 * Built with libFuzzer it is a coverage-guided fuzzer, from the top of the
 * source tree once `build` is built (Debian's clang-14):
 *
 *   clang -g -O1 -DFUZZ_LIBFUZZER -fsanitize=fuzzer,address,undefined \
 *     -Itests/fuzz -Iservice/tracectld/base -Iservice/tracectld/consumer -Icommon/abi -D_GNU_SOURCE \
 *     $(pkg-config --cflags glib-2.0) tests/fuzz/fuzz-consumer-route.c \
 *     service/tracectld/consumer/tc-consumer-route.c service/tracectld/base/tc-error.c \
 *     $(pkg-config --libs glib-2.0 gio-2.0) -o fuzz-consumer-route
 *   ./fuzz-consumer-route -max_len=1024 -max_total_time=300 CORPUS_DIR
 *
 * Otherwise fuzz-driver.c's main() mutates the seeds below:
 * `fuzz-consumer-route --seed N --runs M`.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "fuzz-driver.h"
#include "tc-consumer-route.h"
#include "tc-error.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define REQUESTS 3u
#define STREAMS_MAX 4u
#define MESSAGES_MAX 32u
#define CONSUMER_UID 1000u
#define CONSUMER_PID 4242

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		fprintf(stderr, "fuzz-consumer-route: " __VA_ARGS__);                              \
		fprintf(stderr, "\n");                                                             \
		abort();                                                                           \
	} while (0)

enum outcome {
	REPLY_TAKEN,
	REFUSAL_TAKEN,
	STREAM_TAKEN,
	ANSWER_TAKEN,
	BAD_HEADER,
	NOT_WAITING,
	BAD_STREAM,
	FDS_WITH_ANSWER,
	BAD_REPLY,
	ANSWER_REFUSED,
	UNEXPECTED_TYPE,
	OTHERS_FAILED,
	DONE_LET_GO,
	OUTCOMES,
};
/* Named by the standalone driver only. */
static const char *const outcome_names[OUTCOMES] __attribute__((unused)) = {
    "reply taken",     "refusal taken", "stream taken",	   "answer taken", "bad header",
    "not waiting",     "bad stream",	"fds with answer", "bad reply",	   "answer refused",
    "unexpected type", "others failed", "done let go",
};
static unsigned long long outcomes[OUTCOMES];

/* What each message is built as (the low bits of its first byte). */
enum kind { KIND_REPLY, KIND_STREAM, KIND_ANSWER, KIND_RAW };
#define FLAG_FD0 0x04u
#define FLAG_FD1 0x08u
#define FLAG_TWIST 0x10u  /* a byte follows: bad magic, size, type */
#define FLAG_LET_GO 0x20u /* the done requests leave the table after it */
#define FLAG_RESIZE 0x40u /* a byte follows: the length changed by it */

/* A request as its requester holds it, and what the harness knows of it. */
struct fake_request {
	TcConsumerRequest request;
	struct tc_consumer_reply reply;
	int fds[2 * STREAMS_MAX];
	guint64 shm_size;
	gboolean in_table;
	guint answers; /* calls of its callback */
	const void *answer_msg;
	gsize answer_len;
};

/* What one request looked like, to compare before and after a message. */
struct snapshot {
	gboolean is_done;
	GError *error;
	guint n_streams, answers;
	guint64 shm_size;
	struct tc_consumer_reply reply;
};

enum verdict { TAKE_REPLY, TAKE_STREAM, TAKE_ANSWER, BREAK };

struct expectation {
	enum verdict verdict;
	enum outcome outcome;
	struct fake_request *target; /* the culprit of a fault, or who takes it */
};

/* The longest message the harness builds. */
#define MESSAGE_MAX 1024
G_STATIC_ASSERT(sizeof(struct tc_consumer_reply) < MESSAGE_MAX);
G_STATIC_ASSERT(MESSAGE_MAX <= TC_CONSUMER_MSG_MAX);

static struct fake_request requests[REQUESTS];
/* Where the link's reader receives: aligned for the ABI's structs. */
static guint64 buffer[TC_CONSUMER_MSG_MAX / sizeof(guint64)];

static gboolean
fd_is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0 || errno != EBADF;
}

/* The callback of the answers request: refuses an answer whose first byte
 * after the header is odd, as a real one refuses what it cannot take. */
static gboolean
answer_cb(const void *msg, gsize len, gpointer user_data, GError **error)
{
	struct fake_request *fake = user_data;

	if (fake->request.is_done)
		FAIL("request %u given an answer after its end", fake->request.id);
	fake->answers++;
	fake->answer_msg = msg;
	fake->answer_len = len;
	if (len > sizeof(struct tc_consumer_header) &&
	    (((const guint8 *)msg)[sizeof(struct tc_consumer_header)] & 1)) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "answer refused");
		return FALSE;
	}
	return TRUE;
}

/* Three distinct ids, never 0, as request_register() picks them. */
static void
requests_register(GHashTable *pending, struct fuzz_input *in)
{
	guint8 setup = fuzz_take_byte(in);
	guint32 base = fuzz_take_u32(in);

	memset(requests, 0, sizeof(requests));
	for (guint i = 0; i < REQUESTS; i++) {
		struct fake_request *fake = &requests[i];
		guint32 id = base + i;

		fake->request.id = id != 0 ? id : base + REQUESTS;
		fake->request.reply = &fake->reply;
		for (guint j = 0; j < ARRAY_LEN(fake->fds); j++)
			fake->fds[j] = -1;
		fake->in_table = TRUE;
		g_hash_table_insert(pending, GUINT_TO_POINTER(fake->request.id), &fake->request);
	}
	requests[1].request.fds = requests[1].fds;
	requests[1].request.max_streams = 1 + (setup & 3u);
	requests[1].request.shm_size = &requests[1].shm_size;
	requests[2].request.answer_type = TC_CONSUMER_SESSION_FILE;
	requests[2].request.func = answer_cb;
	requests[2].request.user_data = &requests[2];
}

static void
take_bytes(struct fuzz_input *in, void *to, size_t n)
{
	for (size_t i = 0; i < n; i++)
		((guint8 *)to)[i] = fuzz_take_byte(in);
}

/* The message's body after its header; returns its length. */
static gssize
build_body(struct fuzz_input *in, enum kind kind, struct tc_consumer_header *header)
{
	guint8 n;

	switch (kind) {
	case KIND_REPLY: {
		struct tc_consumer_reply *reply = (void *)header;

		header->type = TC_CONSUMER_REPLY;
		reply->status = (gint8)fuzz_take_byte(in);
		n = fuzz_take_byte(in);
		if (n == 0xff) /* unterminated */
			memset(reply->message, 'A', sizeof(reply->message));
		else
			take_bytes(in, reply->message, n);
		reply->packets_written = fuzz_take_byte(in);
		return sizeof(*reply);
	}
	case KIND_STREAM: {
		struct tc_consumer_stream *stream = (void *)header;

		header->type = TC_CONSUMER_STREAM;
		stream->cpu = fuzz_take_byte(in);
		stream->shm_size = fuzz_take_u32(in);
		return sizeof(*stream);
	}
	case KIND_ANSWER:
		header->type = TC_CONSUMER_SESSION_FILE;
		n = fuzz_take_byte(in);
		take_bytes(in, header + 1, n);
		return (gssize)sizeof(*header) + n;
	default:
		header->type = fuzz_take_byte(in);
		n = fuzz_take_byte(in);
		take_bytes(in, header + 1, n);
		return (gssize)sizeof(*header) + n;
	}
}

/* Builds the next message into buffer, as the input says; returns its
 * length (1 to TC_CONSUMER_MSG_MAX) and which descriptors come with it. */
static gssize
build_message(struct fuzz_input *in, guint8 flags, gboolean *with_fd)
{
	struct tc_consumer_header *header = (void *)buffer;
	guint8 target = fuzz_take_byte(in);
	guint8 twist = flags & FLAG_TWIST ? fuzz_take_byte(in) : 0;
	gint8 resize = flags & FLAG_RESIZE ? (gint8)fuzz_take_byte(in) : 0;
	gssize len;

	memset(buffer, 0, MESSAGE_MAX);
	header->magic = TC_CONSUMER_MAGIC;
	header->request_id =
	    target % 4 < REQUESTS ? requests[target % 4].request.id : fuzz_take_u32(in);
	len = build_body(in, (enum kind)(flags & 3u), header);
	len = CLAMP(len + resize, 1, MESSAGE_MAX);
	header->size = (guint32)len;
	if (twist & 1)
		header->magic ^= 1u << (twist >> 5);
	if (twist & 2)
		header->size += (gint8)twist >> 2;
	if (twist & 4)
		header->type = twist >> 3;
	with_fd[0] = (flags & FLAG_FD0) != 0;
	with_fd[1] = (flags & FLAG_FD1) != 0;
	return len;
}

static struct fake_request *
waiting_request(guint32 id)
{
	for (guint i = 0; i < REQUESTS; i++)
		if (requests[i].in_table && requests[i].request.id == id)
			return &requests[i];
	return NULL;
}

/* What the ABI says of the message in buffer, written out again from its
 * documentation rather than from the code under test. */
static struct expectation
expect(gssize len, const gboolean with_fd[2])
{
	const struct tc_consumer_header *header = (const void *)buffer;
	struct expectation e = {BREAK, BAD_HEADER, NULL};
	struct fake_request *fake;

	if (len < (gssize)sizeof(*header) || header->magic != TC_CONSUMER_MAGIC ||
	    header->size != (guint32)len)
		return e;
	fake = waiting_request(header->request_id);
	e.outcome = NOT_WAITING;
	if (fake == NULL || fake->request.is_done)
		return e;
	e.target = fake;
	if (header->type == TC_CONSUMER_STREAM && fake->request.max_streams > 0) {
		const struct tc_consumer_stream *stream = (const void *)buffer;
		gboolean next = len == sizeof(*stream) && with_fd[0] && with_fd[1] &&
				fake->request.n_streams < fake->request.max_streams &&
				stream->cpu == fake->request.n_streams;

		e.verdict = next ? TAKE_STREAM : BREAK;
		e.outcome = next ? STREAM_TAKEN : BAD_STREAM;
	} else if (with_fd[0] || with_fd[1]) {
		e.outcome = FDS_WITH_ANSWER;
	} else if (header->type == TC_CONSUMER_REPLY) {
		e.verdict = len == sizeof(struct tc_consumer_reply) ? TAKE_REPLY : BREAK;
		e.outcome = e.verdict == TAKE_REPLY ? REPLY_TAKEN : BAD_REPLY;
	} else if (fake->request.answer_type != 0 && header->type == fake->request.answer_type) {
		gboolean refused = len > (gssize)sizeof(*header) &&
				   (((const guint8 *)buffer)[sizeof(*header)] & 1);

		e.verdict = refused ? BREAK : TAKE_ANSWER;
		e.outcome = refused ? ANSWER_REFUSED : ANSWER_TAKEN;
	} else {
		e.outcome = UNEXPECTED_TYPE;
	}
	return e;
}

static struct snapshot
snapshot_of(const struct fake_request *fake)
{
	return (struct snapshot){
	    .is_done = fake->request.is_done,
	    .error = fake->request.error,
	    .n_streams = fake->request.n_streams,
	    .answers = fake->answers,
	    .shm_size = fake->shm_size,
	    .reply = fake->reply,
	};
}

static gboolean
snapshot_equal(const struct snapshot *a, const struct snapshot *b)
{
	return a->is_done == b->is_done && a->error == b->error && a->n_streams == b->n_streams &&
	       a->answers == b->answers && a->shm_size == b->shm_size &&
	       memcmp(&a->reply, &b->reply, sizeof(a->reply)) == 0;
}

/* The reply ended its request as the ABI says: its bytes, and its refusal
 * (status < 0) as the error, its text terminated. */
static void
check_reply_taken(const struct fake_request *fake)
{
	const struct tc_consumer_reply *sent = (const void *)buffer;
	const GError *error = fake->request.error;

	if (!fake->request.is_done || memcmp(&fake->reply, sent, sizeof(*sent)) != 0)
		FAIL("request %u did not take its reply as sent", fake->request.id);
	if ((sent->status < 0) != (error != NULL))
		FAIL("request %u: status %d, error %s", fake->request.id, (int)sent->status,
		     error ? error->message : "none");
	if (error == NULL)
		return;
	if (strlen(error->message) >= TC_CONSUMER_ERROR_MAX ||
	    (error->code == TC_ERROR_ALREADY_EXISTS) !=
		(sent->status == -EEXIST || sent->status == -ENOTEMPTY))
		FAIL("request %u: refusal %d taken as '%s' (code %d)", fake->request.id,
		     (int)sent->status, error->message, error->code);
	outcomes[REFUSAL_TAKEN]++;
}

/* The target changed as the verdict says and nobody else changed. */
static void
check_requests(const struct expectation *e, const struct snapshot before[REQUESTS], gssize len,
	       const int sent_fds[2])
{
	for (guint i = 0; i < REQUESTS; i++) {
		struct fake_request *fake = &requests[i];
		struct snapshot after = snapshot_of(fake), expected = before[i];

		if (fake == e->target) {
			expected.answers +=
			    e->outcome == ANSWER_TAKEN || e->outcome == ANSWER_REFUSED;
			if (e->verdict == TAKE_STREAM) {
				expected.n_streams++;
				expected.shm_size =
				    ((const struct tc_consumer_stream *)buffer)->shm_size;
				if (fake->fds[2 * before[i].n_streams] != sent_fds[0] ||
				    fake->fds[2 * before[i].n_streams + 1] != sent_fds[1])
					FAIL("stream %u of request %u has the wrong descriptors",
					     before[i].n_streams, fake->request.id);
			}
			if (expected.answers != before[i].answers &&
			    (fake->answer_msg != buffer || fake->answer_len != (gsize)len))
				FAIL("request %u's callback was not given the message",
				     fake->request.id);
			if (e->verdict == TAKE_REPLY) {
				check_reply_taken(fake);
				continue;
			}
		}
		if (!snapshot_equal(&after, &expected))
			FAIL("request %u changed by a message that was not its own (verdict %d)",
			     fake->request.id, (int)e->outcome);
	}
}

/* As consumer_break(): every request still waiting ends with an error,
 * the culprit's the fault itself; those that ended before keep their end. */
static void
fail_all(struct fake_request *culprit, const GError *why, GHashTable *pending)
{
	struct snapshot before[REQUESTS];
	guint others = 0;

	for (guint i = 0; i < REQUESTS; i++)
		before[i] = snapshot_of(&requests[i]);
	tc_consumer_route_fail_all(pending, culprit ? &culprit->request : NULL, why, CONSUMER_UID,
				   CONSUMER_PID);
	for (guint i = 0; i < REQUESTS; i++) {
		struct fake_request *fake = &requests[i];
		const GError *error = fake->request.error;

		if (!fake->request.is_done)
			FAIL("request %u did not end when the consumer broke", fake->request.id);
		if (before[i].is_done) {
			if (error != before[i].error)
				FAIL("request %u, ended before, failed again", fake->request.id);
			continue;
		}
		if (error == NULL)
			FAIL("request %u ended without an error", fake->request.id);
		if (fake == culprit || culprit == NULL) {
			if (strcmp(error->message, why->message) != 0)
				FAIL("request %u failed with '%s', not the fault '%s'",
				     fake->request.id, error->message, why->message);
		} else if (strstr(error->message, "another request") == NULL ||
			   strstr(error->message, why->message) == NULL) {
			FAIL("request %u failed with '%s' for another's fault '%s'",
			     fake->request.id, error->message, why->message);
		} else {
			others++;
		}
	}
	outcomes[OTHERS_FAILED] += others > 0;
}

/* Routes one message; returns FALSE once the consumer is broken. */
static gboolean
route_one(struct fuzz_input *in, GHashTable *pending, gboolean *let_go)
{
	static TcConsumerRequest unset; /* tc_consumer_route() must set the culprit */
	guint8 flags = fuzz_take_byte(in);
	gboolean with_fd[2];
	gssize len = build_message(in, flags, with_fd);
	struct expectation e = expect(len, with_fd);
	struct snapshot before[REQUESTS];
	int fds[2] = {-1, -1}, sent[2];
	g_autoptr(GError) error = NULL;
	TcConsumerRequest *culprit = &unset;
	gboolean ok;

	*let_go = (flags & FLAG_LET_GO) != 0;

	for (guint i = 0; i < 2; i++)
		if (with_fd[i] && (fds[i] = eventfd(0, EFD_CLOEXEC)) < 0)
			FAIL("eventfd: %s", strerror(errno));
	memcpy(sent, fds, sizeof(sent));
	for (guint i = 0; i < REQUESTS; i++)
		before[i] = snapshot_of(&requests[i]);
	ok = tc_consumer_route(pending, buffer, len, fds, &culprit, &error);
	if (fds[0] != -1 || fds[1] != -1)
		FAIL("descriptors left to the caller");
	for (guint i = 0; i < 2; i++)
		if (sent[i] >= 0 && fd_is_open(sent[i]) != (e.verdict == TAKE_STREAM))
			FAIL("descriptor %d of a message %s", sent[i],
			     e.verdict == TAKE_STREAM ? "taken as a stream's is closed"
						      : "not taken is left open");
	if (ok != (e.verdict != BREAK) || (ok == (error != NULL)) ||
	    (ok ? culprit != &e.target->request
		: culprit != (e.target ? &e.target->request : NULL)))
		FAIL("message of %zd bytes: routed %s (%s), expected outcome %d", len,
		     ok ? "fine" : "as a fault", error ? error->message : "no error",
		     (int)e.outcome);
	outcomes[e.outcome]++;
	check_requests(&e, before, len, sent);
	if (!ok)
		fail_all(e.target, error, pending);
	return ok;
}

/* As the waiters of the requests that ended: they leave the table. */
static void
let_done_go(GHashTable *pending)
{
	for (guint i = 0; i < REQUESTS; i++) {
		struct fake_request *fake = &requests[i];

		if (!fake->in_table || !fake->request.is_done)
			continue;
		g_hash_table_remove(pending, GUINT_TO_POINTER(fake->request.id));
		fake->in_table = FALSE;
		outcomes[DONE_LET_GO]++;
	}
}

static void
requests_end(void)
{
	for (guint i = 0; i < REQUESTS; i++) {
		struct fake_request *fake = &requests[i];

		for (guint j = 0; j < ARRAY_LEN(fake->fds); j++)
			if (fake->fds[j] >= 0 && close(fake->fds[j]) < 0)
				FAIL("a stream's descriptor %d was closed under its request",
				     fake->fds[j]);
		g_clear_error(&fake->request.error);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = {data, size, 0};
	GHashTable *pending = g_hash_table_new(g_direct_hash, g_direct_equal);
	int open_before = fuzz_count_open_fds();

	requests_register(pending, &in);
	for (guint n = 0; n < MESSAGES_MAX && in.pos < in.size; n++) {
		gboolean let_go;

		if (!route_one(&in, pending, &let_go))
			break;
		if (let_go)
			let_done_go(pending);
	}
	requests_end();
	g_hash_table_unref(pending);
	if (fuzz_count_open_fds() != open_before)
		FAIL("%d descriptors open before the messages, %d after", open_before,
		     fuzz_count_open_fds());
	return 0;
}

#ifndef FUZZ_LIBFUZZER
/* Conversations: the setup (streams of the channel - 1, then the base id),
 * then messages: flags (kind | FLAG_*), target (0 to 2, or 3 and an id),
 * then by kind: reply (status, text length, text, packets), stream (cpu,
 * shm_size), answer (length, bytes), raw (type, length, bytes). */
#define SEED(...)                                                                                  \
	{                                                                                          \
		(const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__})             \
	}
#define REPLY(target) 0x20, target, 0, 0, 1
#define STREAM(cpu) 0x0d, 1, cpu, 0x00, 0x10, 0, 0
#define ANSWER(byte) 0x02, 2, 3, byte, 'a', 'b'
static const struct fuzz_seed seeds[] = {
    /* Each request answered in turn: streams, answers, replies. */
    SEED(0x01, 1, 0, 0, 0, REPLY(0), STREAM(0), STREAM(1), REPLY(1), ANSWER(2), ANSWER(4),
	 REPLY(2)),
    /* Two requests' answers interleaved, then their replies crossed. */
    SEED(0x03, 0xfe, 0xff, 0xff, 0xff, STREAM(0), ANSWER(0), STREAM(1), ANSWER(2), STREAM(2),
	 ANSWER(6), STREAM(3), REPLY(2), REPLY(1), REPLY(0)),
    /* Refusals: EEXIST with a text, ENOENT without, an unterminated one. */
    SEED(0x00, 7, 0, 0, 0, 0x00, 0, 0xef, 5, 'h', 'e', 'l', 'l', 'o', 0, 0x00, 1, 0xfe, 0, 0, 0x00,
	 2, 0xfb, 0xff, 0),
    /* A reply to a request already answered and let go. */
    SEED(0x00, 1, 0, 0, 0, REPLY(0), REPLY(0)),
    /* A reply to an id nobody waits on. */
    SEED(0x00, 1, 0, 0, 0, 0x00, 3, 0x99, 0, 0, 0, 0, 0, 0),
    /* A stream without its descriptors, one of the wrong CPU. */
    SEED(0x01, 1, 0, 0, 0, 0x01, 1, 0, 0, 0x10, 0, 0),
    SEED(0x01, 1, 0, 0, 0, STREAM(1)),
    /* More streams than CPUs. */
    SEED(0x00, 1, 0, 0, 0, STREAM(0), STREAM(1)),
    /* An answer with a descriptor, a refused one, one to the wrong request. */
    SEED(0x00, 1, 0, 0, 0, 0x06, 2, 1, 'x'),
    SEED(0x00, 1, 0, 0, 0, ANSWER(1)),
    SEED(0x00, 1, 0, 0, 0, 0x02, 0, 1, 0),
    /* An answer after its request's reply. */
    SEED(0x00, 1, 0, 0, 0, REPLY(2), ANSWER(0)),
    /* A reply one byte short, one with its size off, a bad magic. */
    SEED(0x00, 1, 0, 0, 0, 0x40, 0, 0xff, 0, 0, 0),
    SEED(0x00, 1, 0, 0, 0, 0x10, 0, 0x42, 0, 0, 0),
    SEED(0x00, 1, 0, 0, 0, 0x10, 1, 0x61, 0, 0, 0),
    /* Raw messages: a short one, a reply type of the wrong size. */
    SEED(0x00, 1, 0, 0, 0, 0x43, 0, 0xf4, 17, 0),
    SEED(0x00, 1, 0, 0, 0, 0x03, 1, 17, 8, 1, 2, 3, 4, 5, 6, 7, 8),
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
