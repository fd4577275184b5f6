/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzz target: tracectld's serving of an LTTng-UST application's notify
 * socket (tc_lttng_notify_serve(), apps/tc-lttng-notify.c), through the
 * real liblttng-ust-ctl, and the trace registry it fills
 * (apps/tc-lttng-trace.c) with the metadata it makes of what is kept.
 * The application may be anyone's program: every byte it sends is its.
 *
 * The harness plays the application on one end of a socket pair: it
 * writes the messages the input describes, as LTTng-UST 2.13 writes them
 * (a 4-byte command, then the fixed part of its ustcomm.h and what that
 * announces), hangs up, and calls the service once per message. The
 * consumer is a stand-in that keeps the metadata appended and takes every
 * request: its failures are not the application's to cause. The input is
 * records, each an op byte then its parameters (zeros past the end):
 *   op % 8 = 0: an event: session (bit 0 of a byte: another handle than
 *         the bound one; bit 6: a channel handle the application was not
 *         given; bit 1: the signature without its NUL), a name
 *         and a signature picked from tables, a log level (a byte: bit 7
 *         clear, 0 to 15; set, any 4 bytes that follow), a field count
 *         (0-3, bit 2: the last field 0 bits wide) and sizes, a URI pick
 *         (the longest signature and URI the service takes among them);
 *   1: a channel: session and channel handle (bits 0 and 6, likewise),
 *         0-1 context fields (bit 2: malformed);
 *   2: an enumeration: session, a name, 0-3 entries of 2 bytes each;
 *   3: an unknown command;
 *   4: an event announcing too much (a signature of 0 or more than 64 KiB,
 *         more than 1024 fields, a URI over 4 KiB), only its fixed part sent
 *         (and its signature when that is not what is too long);
 *   5: a channel or an enumeration announcing too much, likewise;
 *   6: any message above, cut at a byte the input picks, then the hang-up;
 *   7: the hang-up.
 * At most 16 messages; the first that breaks the protocol ends the input.
 *
 * WHAT MUST HOLD (beyond no sanitizer error), from what the harness sent:
 *   - no call waits a second (its time off the CPU and not waiting for one,
 *     so that a run starved in the idle class, beside builds, does not
 *     count as waiting); each message the protocol
 *     allows is answered (TRUE, one reply of its size), and the service
 *     drops the application (FALSE) at the first message that is cut,
 *     announces more than the bounds, or is unknown, and at the hang-up;
 *   - while serving a message announcing too much, no allocation reaches
 *     what it announced; no allocation ever exceeds 256 KiB;
 *   - an event is kept exactly when it names the bound session and the
 *     channel handle given to the application, its log
 *     level is 0 to 14, it is new
 *     by (name cut at 255 bytes, signature), its name is not empty and
 *     has no control byte, nor has its URI, its fields are well-formed,
 *     and fewer than MaxEventDescriptionsPerApplication (6 here) are
 *     kept; kept, it gets the next id (0, 1, ...); the same event again
 *     gets its id whatever its fields; a refused one is answered with an
 *     error and id 0, and changes nothing (the trace charges exactly its
 *     kept events);
 *   - a channel is answered with stream class 0 and large headers when it
 *     names the bound session and the channel handle given, and describes
 *     the context the service declared for it when it made the trace
 *     (none: a context field is refused); an enumeration is taken when it names the
 *     bound session, with the id of the same name and entries if any was
 *     taken, else the next one;
 *   - the metadata sent to the consumer balances its braces outside
 *     quoted strings, ends each line, gives log levels of 0 to 14 only
 *     (babeltrace2 refuses a trace with a negative one), declares the
 *     stream class first, and describes each kept event once with its id
 *     and no other;
 *   - once the application goes and its session's traces are dropped, no
 *     binding is left, as many descriptors are open as before and the
 *     user's whole events and metadata limits may be charged again.
 */
#include <errno.h>
#include <glib.h>
#include <lttng/ust-abi.h>
#include <lttng/ust-ctl.h>
#include <lttng/ust-sigbus.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fuzz-driver.h"
#include "tc-consumer.h"
#include "tc-consumer-lttng.h"
#include "tc-error.h"
#include "tc-lttng-app.h"
#include "tc-lttng-notify.h"
#include "tc-lttng-trace.h"
#include "tc-perf-counter.h"
#include "tc-session.h"
#include "tc-user-limits.h"

/* AddressSanitizer's, of gcc and of clang alike (gcc ships no header):
 * the hooks see every allocation, liblttng-ust-ctl's too. */
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
					      void (*free_hook)(const volatile void *));

/* liblttng-ust-ctl asks its executable for it. */
DEFINE_LTTNG_UST_SIGBUS_STATE();

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
/* Inputs run so far, the failing one included: how soon a fault shows.
 * The input itself is printed too: the standalone driver keeps none. */
static unsigned long long inputs_run;
static const uint8_t *input_data;
static size_t input_size;
static guint message_at;
#define FAIL(...)                                                                                  \
	do {                                                                                       \
		fprintf(stderr, "fuzz-lttng-notify: input %llu, message %u: ", inputs_run,         \
			message_at);                                                               \
		fprintf(stderr, __VA_ARGS__);                                                      \
		fprintf(stderr, "\ninput:");                                                       \
		for (size_t i_ = 0; i_ < input_size; i_++)                                         \
			fprintf(stderr, " %u", input_data[i_]);                                    \
		fprintf(stderr, "\n");                                                             \
		abort();                                                                           \
	} while (0)

#define USER 1000
#define HANDLE 3
/* The application's handle of the session's one channel. */
#define CHANNEL_HANDLE 7
#define EVENTS_PER_APP_MAX 6
#define EVENTS_MAX 1000
#define METADATA_BYTES_MAX (16 * 1024 * 1024)
#define MESSAGES_MAX 16
#define ALLOCATION_MAX (256 * 1024)
#define CALL_MAX_US G_USEC_PER_SEC
#define URI_MAX 4096
#define ENUM_ENTRIES_MAX 4096
#define FIELD_SIZE sizeof(struct lttng_ust_ctl_field)
#define ENTRY_SIZE sizeof(struct lttng_ust_ctl_enum_entry)
/* Each reply: the 4-byte command it answers, then ustcomm.h's reply. */
#define EVENT_REPLY_SIZE (4 + 40)
#define CHANNEL_REPLY_SIZE (4 + 44)
#define ENUM_REPLY_SIZE (4 + 44)

enum outcome {
	EVENT_KEPT,
	EVENT_AGAIN,
	EVENT_REFUSED,
	CHANNEL_TAKEN,
	CHANNEL_REFUSED,
	ENUM_TAKEN,
	ENUM_REFUSED,
	DROPPED_BOUND,
	DROPPED_CUT,
	DROPPED_OTHER,
	OUTCOMES,
};
static const char *const outcome_names[OUTCOMES] __attribute__((unused)) = {
    [EVENT_KEPT] = "event kept",
    [EVENT_AGAIN] = "event again",
    [EVENT_REFUSED] = "event refused",
    [CHANNEL_TAKEN] = "channel taken",
    [CHANNEL_REFUSED] = "channel refused",
    [ENUM_TAKEN] = "enum taken",
    [ENUM_REFUSED] = "enum refused",
    [DROPPED_BOUND] = "dropped, too large",
    [DROPPED_CUT] = "dropped, cut",
    [DROPPED_OTHER] = "dropped, other",
};
static unsigned long long outcomes[OUTCOMES];

/* NULL: 256 bytes without a NUL, which the service cuts at 255. */
static const char *const names[] = {
    "p:a", "p:b", "p:c", "p:d", "p:e", "p:f", "p:g", "", "p:a\nx", "p:\x01", "q\"uote", NULL,
};
/* The last of each table stands for the longest the service takes: a
 * signature of 64 KiB and a URI of 4 KiB, their NUL included. */
static const char *const signatures[] = {"int a", "x\ny", "y", "", "long b, int c", NULL};
static const char *const uris[] = {NULL, "http://example.org/model", "u\"ri", "u\nri", ""};
static char longest_signature[TC_LTTNG_NOTIFY_SIGNATURE_MAX + 1];
static char longest_uri[URI_MAX];

/* ---- The stand-ins of the consumer and the session. ---- */

struct _TcConsumer {
	int unused;
};
static TcConsumer consumer;
static GString *metadata;
static guint64 metadata_consumer_id;

TcConsumer *
tc_consumer_get(uid_t uid, GError **error)
{
	return &consumer;
}

void
tc_consumer_unref(TcConsumer *unused)
{
}

gboolean
tc_consumer_create_session(TcConsumer *unused, guint64 session_id, const char *trace_dir,
			   gboolean snapshot, const struct tc_consumer_relay_output *relay,
			   GError **error)
{
	metadata_consumer_id = session_id;
	g_string_truncate(metadata, 0);
	return TRUE;
}

gboolean
tc_consumer_append_metadata(TcConsumer *unused, guint64 session_id, const char *text, gsize len,
			    GError **error)
{
	if (session_id != metadata_consumer_id)
		FAIL("metadata sent to consumer session %" G_GUINT64_FORMAT, session_id);
	g_string_append_len(metadata, text, (gssize)len);
	return TRUE;
}

gboolean
tc_consumer_destroy_session(TcConsumer *unused, guint64 session_id, GError **error)
{
	return TRUE;
}

TcConsumerLttngChannel *
tc_consumer_lttng_channel_new(TcConsumer *unused, guint64 session_id, guint64 channel_id,
			      guint32 chan_id, const TcChannelConfig *config, const guint8 uuid[16],
			      const char *name, guint nr_streams, GError **error)
{
	return g_new0(TcConsumerLttngChannel, 1);
}

void
tc_consumer_lttng_channel_free(TcConsumerLttngChannel *channel)
{
	g_free(channel);
}

static TcChannel default_channel = {.name = "channel0"};

/* ---- Allocations while the service serves a message. ---- */

static gboolean is_watching;
static size_t largest_allocation;

static void
malloc_hook(const volatile void *ptr, size_t size)
{
	if (is_watching && size > largest_allocation)
		largest_allocation = size;
}

static void
free_hook(const volatile void *ptr)
{
}

/* ---- The application's messages and what the service must answer. ---- */

typedef enum {
	EXPECT_EVENT,
	EXPECT_CHANNEL,
	EXPECT_ENUM,
	EXPECT_DROP,
} ExpectKind;

typedef struct {
	ExpectKind kind;
	gboolean is_refused;
	guint64 id;
	enum outcome outcome;
	gsize announced; /* a message announcing too much: its smallest excess */
} Expect;

/* The harness's own registry, as the code promises it. */
typedef struct {
	GHashTable *events; /* "name\0signature" as GBytes -> id + 1 */
	GHashTable *enums;  /* name and entries as GBytes -> id + 1 */
	guint next_event_id;
	gboolean has_longest_signature;
} Model;

static void
put_u32(GByteArray *wire, guint32 value)
{
	g_byte_array_append(wire, (const guint8 *)&value, 4);
}

static void
put_zeros(GByteArray *wire, gsize count)
{
	static const guint8 zeros[64];

	while (count > 0) {
		gsize now = MIN(count, sizeof(zeros));

		g_byte_array_append(wire, zeros, (guint)now);
		count -= now;
	}
}

static void
put_name(GByteArray *wire, const char *name, char cut[LTTNG_UST_ABI_SYM_NAME_LEN])
{
	char buffer[LTTNG_UST_ABI_SYM_NAME_LEN];

	if (name == NULL)
		memset(buffer, 'x', sizeof(buffer));
	else
		g_strlcpy(buffer, name, sizeof(buffer));
	g_byte_array_append(wire, (const guint8 *)buffer, sizeof(buffer));
	memcpy(cut, buffer, sizeof(buffer));
	cut[LTTNG_UST_ABI_SYM_NAME_LEN - 1] = '\0';
}

/* count integer fields f0, f1...; the last is 0 bits wide if is_malformed. */
static void
put_fields(GByteArray *wire, struct fuzz_input *in, guint count, gboolean is_malformed)
{
	static const guint32 sizes[] = {8, 16, 32, 64};

	for (guint i = 0; i < count; i++) {
		struct lttng_ust_ctl_field field;
		guint8 pick = fuzz_take_byte(in);

		memset(&field, 0, sizeof(field));
		g_snprintf(field.name, sizeof(field.name), "f%u", i);
		field.type.atype = lttng_ust_ctl_atype_integer;
		field.type.u.integer.size =
		    is_malformed && i == count - 1 ? 0 : sizes[pick % ARRAY_LEN(sizes)];
		field.type.u.integer.signedness = (pick >> 2) & 1;
		field.type.u.integer.base = 10;
		field.type.u.integer.alignment = 8;
		g_byte_array_append(wire, (const guint8 *)&field, sizeof(field));
	}
}

static gboolean
has_control_byte(const char *text)
{
	for (const guchar *at = (const guchar *)text; *at != '\0'; at++)
		if (*at < 0x20 || *at == 0x7f)
			return TRUE;
	return FALSE;
}

static void
expect_event(GByteArray *wire, struct fuzz_input *in, Model *model, Expect *expect)
{
	guint8 flags = fuzz_take_byte(in);
	const char *name = names[fuzz_take_byte(in) % ARRAY_LEN(names)];
	guint8 signature_pick = fuzz_take_byte(in) % ARRAY_LEN(signatures);
	/* One longest signature an input at most: all of it must fit in the
	 * socket's buffer, the service reading only once it is written. */
	const char *signature = signatures[signature_pick] != NULL ? signatures[signature_pick]
				: model->has_longest_signature	   ? signatures[0]
								   : longest_signature;
	guint8 level_pick = fuzz_take_byte(in);
	gint32 loglevel = level_pick & 0x80 ? (gint32)fuzz_take_u32(in) : level_pick % 16;
	guint8 shape = fuzz_take_byte(in);
	guint8 uri_pick = fuzz_take_byte(in) % ARRAY_LEN(uris);
	const char *uri = uri_pick == ARRAY_LEN(uris) - 1 ? longest_uri : uris[uri_pick];
	guint nr_fields = shape % 4;
	gboolean is_malformed = nr_fields > 0 && (shape & 4);
	gboolean has_nul = !(flags & 2);
	gsize signature_len = strlen(signature) + has_nul;
	char cut[LTTNG_UST_ABI_SYM_NAME_LEN];
	/* liblttng-ust-ctl writes a NUL over the last byte sent. */
	g_autofree char *kept_signature =
	    g_strndup(signature, signature_len > 0 ? signature_len - 1 : 0);
	g_autoptr(GByteArray) key = g_byte_array_new();
	g_autoptr(GBytes) key_bytes = NULL;
	gpointer known;

	model->has_longest_signature |= signature == longest_signature;
	put_u32(wire, LTTNG_UST_CTL_NOTIFY_CMD_EVENT);
	put_u32(wire, (flags & 1) ? HANDLE + 1 : HANDLE);
	put_u32(wire, (flags & 0x40) ? CHANNEL_HANDLE + 1 : CHANNEL_HANDLE);
	put_name(wire, name, cut);
	put_u32(wire, (guint32)loglevel);
	put_u32(wire, (guint32)signature_len);
	put_u32(wire, nr_fields * FIELD_SIZE);
	put_u32(wire, uri ? strlen(uri) + 1 : 0);
	put_zeros(wire, 32);
	g_byte_array_append(wire, (const guint8 *)signature, (guint)signature_len);
	put_fields(wire, in, nr_fields, is_malformed);
	if (uri)
		g_byte_array_append(wire, (const guint8 *)uri, strlen(uri) + 1);

	expect->kind = EXPECT_EVENT;
	if (signature_len == 0) {
		/* A signature has its NUL at least: the service refuses it
		 * before liblttng-ust-ctl reads 0 bytes as a hang-up. */
		expect->kind = EXPECT_DROP;
		expect->outcome = DROPPED_BOUND;
		expect->announced = G_MAXSIZE;
		return;
	}
	g_byte_array_append(key, (const guint8 *)cut, strlen(cut) + 1);
	g_byte_array_append(key, (const guint8 *)kept_signature, strlen(kept_signature));
	key_bytes = g_bytes_new(key->data, key->len);
	known = g_hash_table_lookup(model->events, key_bytes);
	if ((flags & 0x41) || loglevel < 0 || loglevel > TC_LTTNG_NOTIFY_LOGLEVEL_MAX) {
		expect->is_refused = TRUE;
	} else if (known != NULL) {
		expect->id = GPOINTER_TO_UINT(known) - 1;
		expect->outcome = EVENT_AGAIN;
		return;
	} else if (cut[0] == '\0' || has_control_byte(cut) || is_malformed ||
		   (uri && has_control_byte(uri)) ||
		   g_hash_table_size(model->events) >= EVENTS_PER_APP_MAX) {
		expect->is_refused = TRUE;
	} else {
		expect->id = model->next_event_id++;
		g_hash_table_insert(model->events, g_bytes_ref(key_bytes),
				    GUINT_TO_POINTER(expect->id + 1));
		expect->outcome = EVENT_KEPT;
		return;
	}
	expect->outcome = EVENT_REFUSED;
}

static void
expect_channel(GByteArray *wire, struct fuzz_input *in, Model *model, Expect *expect)
{
	guint8 flags = fuzz_take_byte(in);
	guint nr_fields = (flags >> 1) & 1;
	gboolean is_malformed = nr_fields > 0 && (flags & 4);

	put_u32(wire, LTTNG_UST_CTL_NOTIFY_CMD_CHANNEL);
	put_u32(wire, (flags & 1) ? HANDLE + 1 : HANDLE);
	put_u32(wire, (flags & 0x40) ? CHANNEL_HANDLE + 1 : CHANNEL_HANDLE);
	put_u32(wire, nr_fields * FIELD_SIZE);
	put_zeros(wire, 32);
	put_fields(wire, in, nr_fields, is_malformed);
	expect->kind = EXPECT_CHANNEL;
	(void)model;
	(void)is_malformed;
	/* The service declared the stream class when it made the trace, from
	 * the channel's contexts (none): a context field is not that. */
	expect->is_refused = (flags & 0x41) || nr_fields > 0;
	expect->outcome = expect->is_refused ? CHANNEL_REFUSED : CHANNEL_TAKEN;
}

static void
expect_enum(GByteArray *wire, struct fuzz_input *in, Model *model, Expect *expect)
{
	guint8 flags = fuzz_take_byte(in);
	const char *name = names[fuzz_take_byte(in) % ARRAY_LEN(names)];
	guint nr_entries = (flags >> 1) % 4;
	char cut[LTTNG_UST_ABI_SYM_NAME_LEN];
	g_autoptr(GByteArray) key = g_byte_array_new();
	g_autoptr(GBytes) key_bytes = NULL;
	gpointer known;

	put_u32(wire, LTTNG_UST_CTL_NOTIFY_CMD_ENUM);
	put_u32(wire, (flags & 1) ? HANDLE + 1 : HANDLE);
	put_name(wire, name, cut);
	put_u32(wire, nr_entries * ENTRY_SIZE);
	put_zeros(wire, 32);
	g_byte_array_append(key, (const guint8 *)cut, strlen(cut) + 1);
	for (guint i = 0; i < nr_entries; i++) {
		struct lttng_ust_ctl_enum_entry entry;

		memset(&entry, 0, sizeof(entry));
		entry.start.value = fuzz_take_byte(in);
		entry.end.value = entry.start.value + fuzz_take_byte(in) % 4;
		g_snprintf(entry.string, sizeof(entry.string), "v%u", i);
		g_byte_array_append(wire, (const guint8 *)&entry, sizeof(entry));
		g_byte_array_append(key, (const guint8 *)&entry, sizeof(entry));
	}
	expect->kind = EXPECT_ENUM;
	expect->outcome = ENUM_TAKEN;
	if (flags & 1) {
		expect->is_refused = TRUE;
		expect->outcome = ENUM_REFUSED;
		return;
	}
	key_bytes = g_bytes_new(key->data, key->len);
	known = g_hash_table_lookup(model->enums, key_bytes);
	if (known != NULL) {
		expect->id = GPOINTER_TO_UINT(known) - 1;
		return;
	}
	expect->id = g_hash_table_size(model->enums);
	g_hash_table_insert(model->enums, g_bytes_ref(key_bytes), GUINT_TO_POINTER(expect->id + 1));
}

/* A message whose fixed part announces more than the service takes: the
 * smallest excess of each length it bounds, plus what the input adds. */
static void
expect_too_large(GByteArray *wire, struct fuzz_input *in, guint8 op, Expect *expect)
{
	guint8 which = fuzz_take_byte(in);
	guint32 more = fuzz_take_byte(in);
	char cut[LTTNG_UST_ABI_SYM_NAME_LEN];
	guint32 signature_len = 1, fields_len = 0, uri_len = 0;

	expect->kind = EXPECT_DROP;
	expect->outcome = DROPPED_BOUND;
	if (op == 4) {
		switch (which % 4) {
		case 0:
			signature_len = TC_LTTNG_NOTIFY_SIGNATURE_MAX + 2 + more;
			expect->announced = signature_len;
			break;
		case 1:
			signature_len = 0;
			expect->announced = G_MAXSIZE;
			break;
		case 2:
			fields_len = (TC_LTTNG_NOTIFY_FIELDS_MAX + 1 + more) * FIELD_SIZE;
			expect->announced = fields_len;
			break;
		default:
			uri_len = URI_MAX + 1 + more;
			expect->announced = uri_len;
			break;
		}
		put_u32(wire, LTTNG_UST_CTL_NOTIFY_CMD_EVENT);
		put_u32(wire, HANDLE);
		put_u32(wire, 7);
		put_name(wire, "p:a", cut);
		put_u32(wire, 0);
		put_u32(wire, signature_len);
		put_u32(wire, fields_len);
		put_u32(wire, uri_len);
		put_zeros(wire, 32);
		/* liblttng-ust-ctl reads the signature before it allocates the
		 * fields and the URI: an unbounded length would be allocated. */
		if (signature_len == 1)
			put_zeros(wire, 1);
	} else if (which & 1) {
		expect->announced = (TC_LTTNG_NOTIFY_FIELDS_MAX + 1 + more) * FIELD_SIZE;
		put_u32(wire, LTTNG_UST_CTL_NOTIFY_CMD_CHANNEL);
		put_u32(wire, HANDLE);
		put_u32(wire, 7);
		put_u32(wire, (guint32)expect->announced);
		put_zeros(wire, 32);
	} else {
		expect->announced = (ENUM_ENTRIES_MAX + 1 + more) * ENTRY_SIZE;
		put_u32(wire, LTTNG_UST_CTL_NOTIFY_CMD_ENUM);
		put_u32(wire, HANDLE);
		put_name(wire, "e", cut);
		put_u32(wire, (guint32)expect->announced);
		put_zeros(wire, 32);
	}
}

/* The messages of the input, on wire, and what each must get. */
static guint
expect_all(struct fuzz_input *in, GByteArray *wire, Model *model, Expect *expects)
{
	guint count = 0;

	while (count < MESSAGES_MAX && in->pos < in->size) {
		guint8 op = fuzz_take_byte(in);
		Expect *expect = &expects[count++];

		memset(expect, 0, sizeof(*expect));
		switch (op % 8) {
		case 0:
			expect_event(wire, in, model, expect);
			break;
		case 1:
			expect_channel(wire, in, model, expect);
			break;
		case 2:
			expect_enum(wire, in, model, expect);
			break;
		case 3:
			put_u32(wire, 3 + fuzz_take_byte(in));
			expect->kind = EXPECT_DROP;
			expect->outcome = DROPPED_OTHER;
			break;
		case 4:
		case 5:
			expect_too_large(wire, in, op % 8, expect);
			break;
		case 6: {
			/* A whole message, then cut: its model must not count. */
			Model scratch = *model;
			g_autoptr(GByteArray) whole = g_byte_array_new();
			guint8 kind = fuzz_take_byte(in) % 3;
			guint8 at = fuzz_take_byte(in);

			scratch.events = g_hash_table_new_full(g_bytes_hash, g_bytes_equal,
							       (GDestroyNotify)g_bytes_unref, NULL);
			scratch.enums = g_hash_table_new_full(g_bytes_hash, g_bytes_equal,
							      (GDestroyNotify)g_bytes_unref, NULL);
			if (kind == 0)
				expect_event(whole, in, &scratch, expect);
			else if (kind == 1)
				expect_channel(whole, in, &scratch, expect);
			else
				expect_enum(whole, in, &scratch, expect);
			g_hash_table_unref(scratch.events);
			g_hash_table_unref(scratch.enums);
			memset(expect, 0, sizeof(*expect));
			g_byte_array_append(wire, whole->data, (guint)(at * whole->len / 256));
			expect->kind = EXPECT_DROP;
			expect->outcome = DROPPED_CUT;
			return count;
		}
		default:
			expect->kind = EXPECT_DROP;
			expect->outcome = DROPPED_OTHER;
			return count;
		}
		if (expect->kind == EXPECT_DROP)
			return count;
	}
	/* The hang-up after the last message. */
	memset(&expects[count], 0, sizeof(expects[count]));
	expects[count].kind = EXPECT_DROP;
	expects[count].outcome = DROPPED_OTHER;
	return count + 1;
}

/* ---- Checks. ---- */

/* The service logs every refusal: keep the output for real failures. */
static GLogWriterOutput
quiet_writer(GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer data)
{
	if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL))
		return g_log_writer_standard_streams(level, fields, n_fields, data);
	return G_LOG_WRITER_HANDLED;
}

static void
check_reply(int app_fd, const Expect *expect)
{
	static const guint32 commands[] = {
	    [EXPECT_EVENT] = LTTNG_UST_CTL_NOTIFY_CMD_EVENT,
	    [EXPECT_CHANNEL] = LTTNG_UST_CTL_NOTIFY_CMD_CHANNEL,
	    [EXPECT_ENUM] = LTTNG_UST_CTL_NOTIFY_CMD_ENUM,
	};
	static const gsize sizes[] = {
	    [EXPECT_EVENT] = EVENT_REPLY_SIZE,
	    [EXPECT_CHANNEL] = CHANNEL_REPLY_SIZE,
	    [EXPECT_ENUM] = ENUM_REPLY_SIZE,
	};
	guint8 whole[64];
	const guint8 *reply = whole + 4;
	ssize_t n = recv(app_fd, whole, sizeof(whole), MSG_DONTWAIT);
	gint32 ret_code;
	guint32 command, id32, header;
	guint64 id64;

	if (n != (ssize_t)sizes[expect->kind])
		FAIL("a reply of %zd bytes, expected %zu", n, sizes[expect->kind]);
	memcpy(&command, whole, 4);
	if (command != commands[expect->kind])
		FAIL("a reply to command %u, expected %u", command, commands[expect->kind]);
	memcpy(&ret_code, reply, 4);
	if ((ret_code < 0) != expect->is_refused)
		FAIL("message %s (%d), expected %s", ret_code < 0 ? "refused" : "taken", ret_code,
		     expect->is_refused ? "a refusal" : "it taken");
	switch (expect->kind) {
	case EXPECT_EVENT:
		memcpy(&id32, reply + 4, 4);
		if (id32 != (expect->is_refused ? 0 : expect->id))
			FAIL("event id %u, expected %" G_GUINT64_FORMAT, id32, expect->id);
		break;
	case EXPECT_CHANNEL:
		memcpy(&id32, reply + 4, 4);
		memcpy(&header, reply + 8, 4);
		if (!expect->is_refused &&
		    (id32 != 0 || header != LTTNG_UST_CTL_CHANNEL_HEADER_LARGE))
			FAIL("channel answered with stream class %u, header %u", id32, header);
		break;
	default:
		memcpy(&id64, reply + 4, 8);
		if (id64 != (expect->is_refused ? 0 : expect->id))
			FAIL("enumeration id %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT,
			     id64, expect->id);
		break;
	}
}

/* Braces balanced outside quoted strings, every line ended, and the
 * events described once each, with the ids kept. */
static void
check_metadata(const Model *model)
{
	const char *text = metadata->str;
	g_autofree guint8 *seen = g_malloc0(model->next_event_id + 1);
	gboolean is_quoted = FALSE;
	int depth = 0;
	guint described = 0;

	for (gsize i = 0; i < metadata->len; i++) {
		char c = text[i];

		if (is_quoted) {
			if (c == '\\')
				i++;
			else if (c == '"')
				is_quoted = FALSE;
			else if ((guchar)c < 0x20)
				FAIL("control byte in a quoted string of the metadata");
			continue;
		}
		if (c == '"')
			is_quoted = TRUE;
		else if (c == '{')
			depth++;
		else if (c == '}' && --depth < 0)
			FAIL("metadata closes a brace it did not open");
	}
	if (is_quoted || depth != 0 || (metadata->len > 0 && text[metadata->len - 1] != '\n'))
		FAIL("metadata unbalanced or unended");
	{
		const char *stream_at = strstr(text, "\nstream {\n\tid = 0;");
		const char *event_at = strstr(text, "\nevent {");

		if (stream_at == NULL || (event_at != NULL && event_at < stream_at))
			FAIL("metadata without stream class 0 before its events");
	}
	for (const char *at = strstr(text, "\nevent {"); at; at = strstr(at + 1, "\nevent {")) {
		const char *id_at = strstr(at, "\n\tid = ");
		const char *level_at = strstr(at, "\n\tloglevel = ");
		guint64 id;
		gint64 level;

		if (id_at == NULL || level_at == NULL)
			FAIL("an event without an id or a log level in the metadata");
		id = g_ascii_strtoull(id_at + 7, NULL, 10);
		level = g_ascii_strtoll(level_at + 13, NULL, 10);
		if (level < 0 || level > TC_LTTNG_NOTIFY_LOGLEVEL_MAX)
			FAIL("log level %" G_GINT64_FORMAT " in the metadata", level);
		if (id >= model->next_event_id || seen[id]++)
			FAIL("event id %" G_GUINT64_FORMAT " described unkept or twice", id);
		described++;
	}
	if (described != model->next_event_id)
		FAIL("%u events described, %u kept", described, model->next_event_id);
}

/* With FUZZ_LTTNG_NOTIFY_TRACES set to a directory, the metadata of each
 * input is kept in DIR/<input>/metadata,
 * a trace without streams that babeltrace2 opens (docs/testing.md). */
static void
keep_metadata(const Model *model)
{
	const char *dir = g_getenv("FUZZ_LTTNG_NOTIFY_TRACES");
	g_autofree char *trace_dir = NULL;
	g_autofree char *path = NULL;
	g_autoptr(GError) error = NULL;

	if (dir == NULL)
		return;
	trace_dir = g_strdup_printf("%s/%llu", dir, inputs_run);
	path = g_build_filename(trace_dir, "metadata", NULL);
	if (g_mkdir_with_parents(trace_dir, 0755) < 0 ||
	    !g_file_set_contents(path, metadata->str, (gssize)metadata->len, &error))
		FAIL("cannot keep the metadata in %s", trace_dir);
}

static void
check_limits_free(void)
{
	g_autoptr(GError) error = NULL;
	TcUserCharge probe;

	tc_user_limits_charge_init(&probe, USER);
	if (!tc_user_limits_charge(&probe, TC_LIMIT_EVENTS, EVENTS_MAX, &error) ||
	    !tc_user_limits_charge(&probe, TC_LIMIT_METADATA_BYTES, METADATA_BYTES_MAX, &error))
		FAIL("charges left once the application and its trace went: %s", error->message);
	tc_user_limits_release(&probe);
}

/* The thread's CPU time and time waiting for a CPU, in ns. */
static unsigned long long
thread_scheduled_ns(void)
{
	unsigned long long on_cpu_ns = 0, runnable_ns = 0;
	FILE *file = fopen("/proc/thread-self/schedstat", "re");
	int scanned = file ? fscanf(file, "%llu %llu", &on_cpu_ns, &runnable_ns) : 0;

	if (file)
		fclose(file);
	if (scanned != 2)
		FAIL("cannot read /proc/thread-self/schedstat");
	return on_cpu_ns + runnable_ns;
}

static gint64
monotonic_us(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (gint64)now.tv_sec * G_USEC_PER_SEC + now.tv_nsec / 1000;
}

/* The microseconds the calling thread has slept, blocked in a call, since
 * it started: its age less its time on a CPU and its time waiting for one
 * (/proc/thread-self/schedstat). A bound on a call's wall time alone
 * failed in runs starved by other work, inputs that replay in 60 ms. The
 * clock is read on both sides of the counters, and again when the thread
 * lost its CPU in between: that time would count as slept on one side
 * only. */
static gint64
thread_blocked_us(void)
{
	for (;;) {
		gint64 before = monotonic_us();
		unsigned long long scheduled_ns = thread_scheduled_ns();
		gint64 after = monotonic_us();

		if (after - before < 1000)
			return after - (gint64)(scheduled_ns / 1000);
	}
}

static void
serve_all(TcLttngApp *app, int app_fd, const Expect *expects, guint count)
{
	for (guint i = 0; i < count; i++) {
		const Expect *expect = &expects[i];
		g_autoptr(GError) error = NULL;
		gint64 start = thread_blocked_us();
		gboolean is_served;

		message_at = i;
		largest_allocation = 0;
		is_watching = TRUE;
		is_served = tc_lttng_notify_serve(app, &error);
		is_watching = FALSE;
		if (thread_blocked_us() - start > CALL_MAX_US)
			FAIL("blocked %" G_GINT64_FORMAT " us serving it", thread_blocked_us() - start);
		if (largest_allocation > ALLOCATION_MAX ||
		    (expect->announced > 0 && largest_allocation >= expect->announced))
			FAIL("%zu bytes allocated, %zu announced", largest_allocation,
			     expect->announced);
		if (is_served != (expect->kind != EXPECT_DROP))
			FAIL("%s", is_served ? "served, though it must drop the application"
					     : "dropped the application, though it must be served");
		if (!is_served && error == NULL)
			FAIL("dropped without an error");
		outcomes[expect->outcome]++;
		if (!is_served)
			return;
		check_reply(app_fd, expect);
	}
	FAIL("the service went on past the hang-up");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static guint64 session_id;
	struct fuzz_input in = {.data = data, .size = size};
	g_autoptr(GByteArray) wire = g_byte_array_new();
	g_autoptr(GError) error = NULL;
	Expect expects[MESSAGES_MAX + 1];
	Model model = {
	    .events = g_hash_table_new_full(g_bytes_hash, g_bytes_equal,
					    (GDestroyNotify)g_bytes_unref, NULL),
	    .enums = g_hash_table_new_full(g_bytes_hash, g_bytes_equal,
					   (GDestroyNotify)g_bytes_unref, NULL),
	};
	struct _TcSession session = {
	    .id = ++session_id, .name = "s", .owner_uid = USER, .output_directory = "/nonexistent"};
	struct timeval timeout = {.tv_sec = 2};
	TcUserCharge charge;
	TcLttngTrace *trace;
	TcLttngApp *app;
	guint count;
	int open_before, fds[2];

	inputs_run++;
	input_data = data;
	input_size = size;
	message_at = 0;
	if (metadata == NULL) {
		metadata = g_string_new(NULL);
		memset(longest_signature, 's', sizeof(longest_signature) - 1);
		memset(longest_uri, 'u', sizeof(longest_uri) - 1);
		/* The channel's perf counters (none), kept for every run. */
		default_channel.perf_counters =
		    g_array_new(FALSE, FALSE, sizeof(struct tc_perf_counter));
		g_log_set_writer_func(quiet_writer, NULL, NULL);
		g_log_set_always_fatal(G_LOG_LEVEL_CRITICAL);
		tc_user_limits_set_default(TC_LIMIT_EVENTS_PER_APPLICATION, EVENTS_PER_APP_MAX);
		tc_user_limits_set_default(TC_LIMIT_EVENTS, EVENTS_MAX);
		tc_user_limits_set_default(TC_LIMIT_METADATA_BYTES, METADATA_BYTES_MAX);
		__sanitizer_install_malloc_and_free_hooks(malloc_hook, free_hook);
	}
	count = expect_all(&in, wire, &model, expects);
	open_before = fuzz_count_open_fds();
	g_mutex_init(&session.lock);
	session.channels = g_ptr_array_new();
	g_ptr_array_add(session.channels, &default_channel);
	tc_user_limits_charge_init(&charge, USER);
	app = tc_lttng_app_new(-1, getpid(), USER, USER, &charge);
	trace = tc_lttng_trace_ensure_locked(&session, app, &error);
	if (trace == NULL)
		FAIL("no trace: %s", error->message);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0)
		FAIL("socketpair: %s", strerror(errno));
	setsockopt(fds[0], SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
	app->notify_fd = fds[0];
	if (!tc_lttng_trace_bind(trace, app->id, HANDLE))
		FAIL("a new application already bound");
	tc_lttng_trace_set_channel_handle(trace, g_ptr_array_index(trace->channels, 0), app->id,
					  CHANNEL_HANDLE);
	/* All of it, then the hang-up: a cut message is read short at once. */
	if (wire->len > 0 &&
	    send(fds[1], wire->data, wire->len, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)wire->len)
		FAIL("the harness's %u bytes not sent whole: %s", wire->len, strerror(errno));
	shutdown(fds[1], SHUT_WR);
	serve_all(app, fds[1], expects, count);
	if (trace->charge.held[TC_LIMIT_EVENTS] != model.next_event_id)
		FAIL("%" G_GUINT64_FORMAT " events charged, %u kept",
		     trace->charge.held[TC_LIMIT_EVENTS], model.next_event_id);
	check_metadata(&model);
	keep_metadata(&model);

	/* The application goes, then its session's traces. */
	tc_lttng_trace_unbind_app(app->id);
	if (tc_lttng_trace_find_bound(app->id, HANDLE) != NULL)
		FAIL("a binding left to a gone application");
	tc_lttng_app_unref(app);
	close(fds[1]);
	g_ptr_array_unref(tc_lttng_trace_forget(session.id));
	tc_lttng_trace_unref(trace);
	g_mutex_clear(&session.lock);
	g_ptr_array_unref(session.channels);
	check_limits_free();
	if (fuzz_count_open_fds() != open_before)
		FAIL("%d descriptors open before, %d after", open_before, fuzz_count_open_fds());
	g_hash_table_unref(model.events);
	g_hash_table_unref(model.enums);
	return 0;
}

#ifndef FUZZ_LIBFUZZER
#define SEED(...)                                                                                  \
	{                                                                                          \
		(const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__})             \
	}
/* An event: flags, name, signature, log level 6, shape (shape % 4 field
 * bytes follow), URI. */
#define EVENT(flags, name, signature, shape, uri) 0, flags, name, signature, 6, shape, uri
static const struct fuzz_seed seeds[] = {
    /* Events before the channel, one again with other fields, the
     * channel with a context field, one more after, the first name with
     * another signature. */
    SEED(EVENT(0, 0, 0, 0, 0), EVENT(0, 1, 0, 2, 1), 2, 1, EVENT(0, 0, 0, 1, 0), 3, 1, 2, 1,
	 EVENT(0, 2, 4, 3, 1), 0, 1, 2, EVENT(0, 0, 2, 0, 0)),
    /* The channel first; an enumeration of two entries, twice, then of
     * one; an event of another session, one without a name, one with a
     * control byte; an enumeration of another session. */
    SEED(1, 0, 2, 4, 5, 1, 2, 3, 0, 2, 4, 5, 1, 2, 3, 0, 2, 2, 5, 1, 2, EVENT(1, 3, 0, 0, 0),
	 EVENT(0, 7, 0, 0, 0), EVENT(0, 9, 0, 0, 0), 2, 1, 0),
    /* Keys that could clash (a newline in a name, in a signature); a name
     * of 256 bytes; a signature without its NUL; a malformed field; a
     * URI with a quote. */
    SEED(1, 0, EVENT(0, 0, 1, 0, 0), EVENT(0, 8, 2, 0, 0), EVENT(0, 11, 0, 0, 0),
	 EVENT(2, 1, 0, 0, 0), EVENT(0, 3, 0, 5, 0), 1, EVENT(0, 4, 0, 0, 2)),
    /* The longest signature and URI the service takes; a URI with a
     * control byte; log levels of -1, 15, then 14. */
    SEED(1, 0, EVENT(0, 5, 5, 0, 4), EVENT(0, 6, 0, 0, 3), EVENT(0, 5, 5, 0, 4), 0, 0, 6, 0, 0x80,
	 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 6, 0, 15, 0, 0, 0, 0, 6, 0, 14, 0, 0),
    /* More events than MaxEventDescriptionsPerApplication, then one again. */
    SEED(1, 0, EVENT(0, 0, 0, 0, 0), EVENT(0, 1, 0, 0, 0), EVENT(0, 2, 0, 0, 0),
	 EVENT(0, 3, 0, 0, 0), EVENT(0, 4, 0, 0, 0), EVENT(0, 5, 0, 0, 0), EVENT(0, 6, 0, 0, 0),
	 EVENT(0, 10, 0, 0, 0), EVENT(0, 0, 0, 0, 0)),
    /* Announcing too much: a signature over 64 KiB, of 0 bytes, fields
     * over 1024, a URI over 4 KiB, a channel's context, enum entries. */
    SEED(EVENT(0, 0, 0, 0, 0), 4, 0, 0),
    SEED(4, 1, 0),
    SEED(4, 2, 9),
    SEED(4, 3, 1),
    SEED(5, 1, 3),
    SEED(5, 0, 0),
    /* Cut: an event, an enumeration, a channel. */
    SEED(6, 0, 100, 0, 1, 2, 6, 2, 0, 1, 2),
    SEED(1, 0, 6, 2, 200, 4, 0, 1, 2, 3, 4),
    SEED(6, 1, 128, 2, 1),
    /* An unknown command; a hang-up. */
    SEED(3, 0),
    SEED(7),
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
