/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes what tracectld reads from an application's registration socket:
 * the input is a conversation of datagrams, sent over a real AF_UNIX
 * SOCK_SEQPACKET pair and read one at a time by
 * tc_app_protocol_read_message() and tc_app_protocol_handle_message(), as
 * the registration workers and the listener do. tc-app-protocol.c,
 * tc-validate.c and tc-metadata.c are built into the program with
 * AddressSanitizer and UBSan.
 *
 * Each datagram is built from the input as a well-formed message of some
 * kind (REGISTER, EVENT, EVENTS_END, REPLY) whose fields the input picks,
 * valid or not, or as raw bytes; then, sometimes, file descriptors are
 * attached, its length is changed or some of its bytes are flipped. What
 * must hold:
 *
 * - For a message the harness did not flip bytes of, the service decides
 *   as the wire ABI (common/abi/tracectl-abi.h) says, which the harness
 *   knows from what it built: a wrong length or attached descriptors end
 *   the connection, an event description is taken exactly when its name,
 *   log level, fields and index follow the rules, and so on.
 * - Whatever it was sent, every event the service keeps follows those
 *   rules, and is kept as it was sent.
 * - Descriptors sent along a message are all closed.
 * - An answer to a pending command wakes its waiter once.
 * - The CTF metadata of the events the service kept opens in babeltrace2
 *   without an error or a warning (checked every METADATA_BATCH events
 *   and at the end of a run): application strings end up in it.
 *
 * Built with libFuzzer it is a coverage-guided fuzzer, from the top of the
 * source tree once `build` is built (Debian's clang-14):
 *
 *   clang -g -O1 -DFUZZ_LIBFUZZER -fsanitize=fuzzer,address,undefined \
 *     -Itests/fuzz -Iservice/tracectld -Icommon/abi -Icommon/ringbuffer \
 *     -Icommon/util -Ibuild -Ibuild/data -D_GNU_SOURCE $(pkg-config --cflags \
 *     glib-2.0 gio-unix-2.0 polkit-gobject-1 liburcu-cds) \
 *     tests/fuzz/fuzz-app-protocol.c service/tracectld/tc-app-protocol.c \
 *     service/tracectld/tc-validate.c service/tracectld/tc-metadata.c \
 *     build/data/tc-dbus-generated.c build/service/tracectld/libtracectld.a \
 *     build/common/libtc-session-file.a build/common/libtc-util.a \
 *     build/common/libtc-rb.a $(pkg-config --libs glib-2.0 gio-unix-2.0 \
 *     polkit-gobject-1 liburcu-cds liburcu libsystemd json-glib-1.0 \
 *     libxml-2.0) -lm -o fuzz-app-protocol
 *   ./fuzz-app-protocol -max_len=4096 -max_total_time=300 CORPUS_DIR
 *
 * Otherwise fuzz-driver.c's main() runs it on random inputs:
 * `fuzz-app-protocol --seed N --runs M`.
 */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz-driver.h"
#include "tc-ack-waiter.h"
#include "tc-app-protocol.h"
#include "tc-app.h"
#include "tc-channel.h"
#include "tc-metadata.h"
#include "tc-session.h"

#define DATAGRAMS_MAX 24u
#define RAW_MAX (TRACECTL_ABI_MSG_MAX + 64u)
#define FDS_MAX 6u /* the service takes 4: more are cut by the kernel */
#define PENDING_SEQ 7u
#define METADATA_BATCH 4096u

#define FAIL(...)                                                                           \
	do {                                                                                \
		fprintf(stderr, "fuzz-app-protocol: " __VA_ARGS__);                          \
		fprintf(stderr, "\n");                                                       \
		abort();                                                                    \
	} while (0)

enum outcome {
	DROPPED_AT_READ,
	REFUSED,
	REGISTERED,
	LATER_BATCH,
	EVENT_KEPT,
	REPLY_WOKE,
	FDS_CLOSED,
	PREDICTED,
	METADATA_READ,
	OUTCOMES,
};
/* Named by the standalone driver only. */
static const char *const outcome_names[OUTCOMES] __attribute__((unused)) = {
	"dropped at read", "refused", "registered", "later batch", "event kept",
	"reply woke", "fds closed", "predicted", "metadata read",
};
static unsigned long long outcomes[OUTCOMES];

/* What the harness knows of the conversation, as the ABI describes it. */
struct model {
	gboolean greeted, registered;
	guint n_events;
};

/* One datagram, and what the service must make of it. */
enum verdict { TAKEN, REFUSED_BY_HANDLER, DROPPED_BY_READ, UNKNOWN };

struct datagram {
	union {
		TcAppMessage message;
		uint8_t bytes[RAW_MAX];
	};
	size_t len;
	unsigned int n_fds;
	enum verdict verdict;
};

/* The metadata of the events kept, across inputs, for the metadata check:
 * their text, made as they are kept, in a buffer made once. Keeping the
 * events themselves from one input to the next left more allocations
 * than frees after most inputs, and libFuzzer then looks for a leak in
 * the whole heap, which took most of the run. */
#define METADATA_TEXT_SIZE (4u << 20)
static GString *metadata_text;
static guint metadata_count;

/* Names. The rules (tc-validate.h) are written out again here, from the
 * ABI's documentation, so that the service's checks are compared with
 * them rather than with themselves. */

/* Letters first, then what only follows them, then what event names
 * allow besides: field names take the first 63. */
static const char name_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";
#define LETTERS 52u
#define FIELD_CHARS 63u
static const char bad_chars[] = " \"\\:/{};\n\t\x7f\x80\xc3";

static gboolean
is_event_part_char(char c)
{
	return g_ascii_isalnum(c) || c == '_' || c == '.' || c == '-';
}

static gboolean
rule_event_name(const char *name, size_t size)
{
	const char *end = memchr(name, '\0', size), *colon;

	if (end == NULL || end == name)
		return FALSE;
	colon = memchr(name, ':', (size_t)(end - name));
	if (colon == NULL || colon == name || colon + 1 == end)
		return FALSE;
	for (const char *c = name; c < end; c++)
		if (c != colon && !is_event_part_char(*c))
			return FALSE;
	return TRUE;
}

static gboolean
rule_field_name(const char *name, size_t size)
{
	const char *end = memchr(name, '\0', size);

	if (end == NULL || end == name || !g_ascii_isalpha(name[0]))
		return FALSE;
	for (const char *c = name + 1; c < end; c++)
		if (!g_ascii_isalnum(*c) && *c != '_')
			return FALSE;
	return TRUE;
}

/* The sizes each field kind allows, as bits, and the attribute words
 * (the type word's bits above the kind) it allows: tables rather than
 * the service's switch, so that the two are not the same code. */
static const uint32_t allowed_sizes[] = {
	[TRACECTL_FIELD_SIGNED] = 1u << 1 | 1u << 2 | 1u << 4 | 1u << 8,
	[TRACECTL_FIELD_UNSIGNED] = 1u << 1 | 1u << 2 | 1u << 4 | 1u << 8,
	[TRACECTL_FIELD_DOUBLE] = 1u << 8,
	[TRACECTL_FIELD_STRING] = 1u << 0,
	[TRACECTL_FIELD_BYTES] = 1u << 0,
	[TRACECTL_FIELD_FLOAT] = 1u << 4,
};
/* An integer's attribute words: none, hex, oct, network, network hex,
 * network oct. */
static const uint32_t integer_attributes[] = {0x000, 0x100, 0x200, 0x400, 0x500, 0x600};

static gboolean
rule_attributes(uint32_t kind, uint32_t attributes)
{
	if (attributes == 0)
		return TRUE;
	if (kind != TRACECTL_FIELD_SIGNED && kind != TRACECTL_FIELD_UNSIGNED)
		return FALSE;
	for (guint i = 0; i < G_N_ELEMENTS(integer_attributes); i++)
		if (attributes == integer_attributes[i])
			return TRUE;
	return FALSE;
}

/* An array's or a sequence's element, from its type word: kind in bits
 * 16 to 23, bytes in 24 to 31, an integer's attributes or text (0x800,
 * one byte only) in 8 to 15. */
static gboolean
rule_element(uint32_t type)
{
	uint32_t kind = type >> 16 & 0xff, size = type >> 24, attributes = type & 0xff00;

	switch (kind) {
	case TRACECTL_FIELD_SIGNED:
	case TRACECTL_FIELD_UNSIGNED:
		if (attributes == 0x800)
			return size == 1;
		return size < 32 && (allowed_sizes[kind] >> size & 1u) &&
		       rule_attributes(kind, attributes);
	case TRACECTL_FIELD_DOUBLE:
	case TRACECTL_FIELD_FLOAT:
		return size < 32 && (allowed_sizes[kind] >> size & 1u) && attributes == 0;
	default:
		return FALSE;
	}
}

static gboolean
rule_field(const struct tracectl_abi_field *field)
{
	uint32_t kind = field->type & 0xff;

	if (kind == 7) /* array: 1 to 65536 elements */
		return rule_field_name(field->name, sizeof(field->name)) &&
		       rule_element(field->type) && field->size >= 1 && field->size <= 65536;
	if (kind == 8) /* sequence: its length is in the record */
		return rule_field_name(field->name, sizeof(field->name)) &&
		       rule_element(field->type) && field->size == 0;
	return rule_field_name(field->name, sizeof(field->name)) &&
	       kind < G_N_ELEMENTS(allowed_sizes) && field->size < 32 &&
	       (allowed_sizes[kind] >> field->size & 1u) &&
	       rule_attributes(kind, field->type & ~0xffu);
}

static gboolean
rule_event(const char *name, int32_t loglevel, uint32_t nr_fields,
	   const struct tracectl_abi_field *fields)
{
	if (!rule_event_name(name, TRACECTL_ABI_EVENT_NAME_MAX) || loglevel < 0 ||
	    loglevel > TRACECTL_ABI_LOGLEVEL_MAX || nr_fields > TRACECTL_ABI_FIELDS_MAX)
		return FALSE;
	for (uint32_t i = 0; i < nr_fields; i++) {
		if (!rule_field(&fields[i]))
			return FALSE;
		for (uint32_t j = 0; j < i; j++)
			if (strcmp(fields[i].name, fields[j].name) == 0)
				return FALSE;
	}
	return TRUE;
}

/* Writes a name of 1 to 12 characters (rarely size, with no NUL), from
 * good but for a rare character from bad. */
static void
take_name(struct fuzz_input *in, char *out, size_t size, const char *good, size_t n_good)
{
	uint8_t shape = fuzz_take_byte(in);
	size_t len = shape == 255 ? size : 1u + shape % 12u;

	if (len > size)
		len = size;
	for (size_t i = 0; i < len; i++) {
		uint8_t pick = fuzz_take_byte(in);

		out[i] = pick == 255 ? bad_chars[fuzz_take_byte(in) % (sizeof(bad_chars) - 1)]
				     : good[pick % n_good];
	}
	if (len < size)
		memset(out + len, 0, size - len);
}

static void
take_event_name(struct fuzz_input *in, char *name)
{
	char part[2][24];
	uint8_t shape = fuzz_take_byte(in);

	if (shape % 32 == 0) {
		take_name(in, name, TRACECTL_ABI_EVENT_NAME_MAX, name_chars,
			  sizeof(name_chars) - 1);
		return;
	}
	take_name(in, part[0], sizeof(part[0]) - 1, name_chars, sizeof(name_chars) - 1);
	take_name(in, part[1], sizeof(part[1]) - 1, name_chars, sizeof(name_chars) - 1);
	part[0][sizeof(part[0]) - 1] = part[1][sizeof(part[1]) - 1] = '\0';
	memset(name, 0, TRACECTL_ABI_EVENT_NAME_MAX);
	snprintf(name, TRACECTL_ABI_EVENT_NAME_MAX, "%s%s%s", shape % 32 == 1 ? "" : part[0],
		 shape % 32 == 2 ? "" : ":", shape % 32 == 3 ? "" : part[1]);
}

/* An array's or a sequence's element and length, mostly valid. */
static void
take_container(struct fuzz_input *in, struct tracectl_abi_field *field)
{
	/* kind, bytes: the valid ones, then a string, a kind of 0, bad sizes */
	static const uint32_t elements[][2] = {
		{1, 1}, {1, 2}, {1, 4}, {1, 8}, {2, 1}, {2, 2}, {2, 4}, {2, 8},
		{3, 8}, {6, 4}, {4, 0}, {0, 4}, {1, 3}, {3, 4}, {6, 8}, {2, 16}};
	/* none, hex, oct, network, network hex, text, both bases, a bit no
	 * element has */
	static const uint32_t attributes[] = {0x000, 0x100, 0x200, 0x400,
					      0x500, 0x800, 0x300, 0x1000};
	static const uint32_t lengths[] = {1, 16, 65536, 65537, 0, 3, 255, 100000};
	uint8_t shape = fuzz_take_byte(in);
	uint8_t pick = fuzz_take_byte(in);

	field->type |= elements[shape % 16][0] << 16 | elements[shape % 16][1] << 24;
	/* Mostly no attribute; text on bytes mostly. */
	if (shape >= 128)
		field->type |= attributes[pick % 8];
	else if (shape % 16 < 8 && elements[shape % 16][1] == 1 && pick % 4 == 0)
		field->type |= 0x800;
	/* The length, from the pick's other bits: mostly one of the table's
	 * for an array, none for a sequence. */
	if ((field->type & 0xff) == 8)
		field->size = pick >= 248 ? lengths[pick / 8 % 8] : 0;
	else
		field->size = pick >= 248 ? fuzz_take_u32(in) : lengths[pick / 8 % 8];
}

static void
take_field(struct fuzz_input *in, struct tracectl_abi_field *fields, uint32_t i)
{
	static const uint32_t sizes[] = {0, 1, 2, 4, 8, 3, 16};
	struct tracectl_abi_field *field = &fields[i];
	uint8_t shape = fuzz_take_byte(in);

	if (shape % 32 == 0 && i > 0) {
		memcpy(field->name, fields[shape % i].name, sizeof(field->name));
	} else if (shape % 32 == 1) { /* starting with a digit, '_', '.' or '-' */
		take_name(in, field->name, sizeof(field->name), name_chars + LETTERS,
			  sizeof(name_chars) - 1 - LETTERS);
	} else {
		take_name(in, field->name, sizeof(field->name), name_chars,
			  shape % 32 == 2 ? sizeof(name_chars) - 1 : FIELD_CHARS);
		field->name[0] = name_chars[shape % LETTERS];
	}
	shape = fuzz_take_byte(in);
	field->type = shape < 240 ? 1 + shape % 8 : shape % 10; /* 0 and 9 are not kinds */
	if (field->type == 7 || field->type == 8) {
		take_container(in, field);
		return;
	}
	shape = fuzz_take_byte(in);
	if (shape % 32 == 0) {
		field->size = sizes[fuzz_take_byte(in) % G_N_ELEMENTS(sizes)];
	} else {
		/* The shape's top bits: an integer's attributes, both bases, or
		 * a bit no kind has (on any kind). */
		static const uint32_t attributes[] = {0x000, 0x100, 0x200, 0x400,
						      0x500, 0x600, 0x300, 0x800};

		field->type |= attributes[shape >> 5];
		switch (field->type & 0xff) {
		case TRACECTL_FIELD_SIGNED:
		case TRACECTL_FIELD_UNSIGNED:
			field->size = 1u << (fuzz_take_byte(in) % 4);
			break;
		case TRACECTL_FIELD_DOUBLE:
			field->size = 8;
			break;
		case TRACECTL_FIELD_FLOAT:
			field->size = 4;
			break;
		default:
			field->size = 0;
		}
	}
}

/* Messages. */

static void
set_header(struct datagram *d, uint32_t type, size_t size)
{
	d->message.header = (struct tracectl_msg_header){
		.magic = TRACECTL_ABI_MAGIC, .type = type, .size = (uint32_t)size};
	d->len = size;
}

static void
build_register(struct fuzz_input *in, struct datagram *d, const struct model *model)
{
	struct tracectl_msg_register *msg = &d->message.registration;
	uint8_t shape = fuzz_take_byte(in);

	set_header(d, TRACECTL_MSG_REGISTER, sizeof(*msg));
	msg->abi_version = shape % 16 == 0 ? fuzz_take_u32(in) : TRACECTL_ABI_VERSION;
	msg->bits_per_long = shape % 16 == 1 ? 32 : sizeof(long) * 8;
	msg->tracer_major = fuzz_take_byte(in);
	msg->tracer_minor = fuzz_take_byte(in);
	/* Lies about identity are logged, not refused. */
	msg->pid = shape % 4 == 2 ? (int32_t)fuzz_take_u32(in) : getpid();
	msg->uid = shape % 4 == 3 ? fuzz_take_u32(in) : getuid();
	for (size_t i = 0; i < sizeof(msg->procname); i++)
		msg->procname[i] = (char)fuzz_take_byte(in);
	d->verdict = !model->greeted && !model->registered &&
				     msg->abi_version == TRACECTL_ABI_VERSION &&
				     msg->bits_per_long == sizeof(long) * 8
			     ? TAKEN
			     : REFUSED_BY_HANDLER;
}

static void
build_event(struct fuzz_input *in, struct datagram *d, const struct model *model)
{
	struct tracectl_msg_event *msg = &d->message.event;
	uint8_t shape = fuzz_take_byte(in);
	uint32_t filled;

	set_header(d, TRACECTL_MSG_EVENT, sizeof(*msg));
	msg->index = shape % 16 == 0 ? fuzz_take_byte(in) : model->n_events;
	msg->loglevel = shape % 8 == 1 ? (int8_t)fuzz_take_byte(in)
				       : fuzz_take_byte(in) % (TRACECTL_ABI_LOGLEVEL_MAX + 1);
	msg->nr_fields = shape % 4 == 3 ? fuzz_take_byte(in) % (TRACECTL_ABI_FIELDS_MAX + 4)
					 : fuzz_take_byte(in) % 5;
	msg->reserved = shape % 16 == 2 ? fuzz_take_u32(in) : 0;
	take_event_name(in, msg->name);
	filled = MIN(msg->nr_fields, TRACECTL_ABI_FIELDS_MAX);
	for (uint32_t i = 0; i < filled; i++)
		take_field(in, msg->fields, i);
	/* What lies past nr_fields is not the service's business. */
	for (size_t i = filled * sizeof(msg->fields[0]); i < sizeof(msg->fields); i++)
		((uint8_t *)msg->fields)[i] = shape % 2 ? 0xa5 : 0;
	d->verdict = model->greeted && msg->index == model->n_events &&
				     model->n_events < TRACECTL_ABI_EVENTS_MAX &&
				     rule_event(msg->name, msg->loglevel, msg->nr_fields, msg->fields)
			     ? TAKEN
			     : REFUSED_BY_HANDLER;
}

static void
build_events_end(struct fuzz_input *in, struct datagram *d, const struct model *model)
{
	set_header(d, TRACECTL_MSG_EVENTS_END, sizeof(struct tracectl_msg_batch));
	d->message.batch.batch = fuzz_take_u32(in);
	d->verdict = model->greeted ? TAKEN : REFUSED_BY_HANDLER;
}

static void
build_reply(struct fuzz_input *in, struct datagram *d, const struct model *model)
{
	uint8_t shape = fuzz_take_byte(in);

	set_header(d, TRACECTL_MSG_REPLY, sizeof(struct tracectl_msg_reply));
	d->message.header.seq = shape % 2 ? PENDING_SEQ : fuzz_take_u32(in);
	d->message.reply.status = shape % 4 < 2 ? 0 : -(int32_t)(fuzz_take_byte(in) % 140);
	d->verdict = model->registered ? TAKEN : REFUSED_BY_HANDLER;
}

static void
build_raw(struct fuzz_input *in, struct datagram *d)
{
	uint8_t shape = fuzz_take_byte(in);

	d->len = (fuzz_take_byte(in) * 17u + fuzz_take_byte(in)) % RAW_MAX;
	for (size_t i = 0; i < d->len; i++)
		d->bytes[i] = fuzz_take_byte(in);
	if (shape % 2 && d->len >= sizeof(d->message.header)) {
		d->message.header.magic = TRACECTL_ABI_MAGIC;
		d->message.header.type = 1 + shape / 2 % 5;
		d->message.header.size = (uint32_t)d->len;
	}
	d->verdict = UNKNOWN;
}

/* Changes the built message as the input says: descriptors, length,
 * flipped bytes. A changed length or descriptors are refused at read. */
static void
tamper(struct fuzz_input *in, struct datagram *d)
{
	uint8_t how = fuzz_take_byte(in);

	if (how % 8 == 7) {
		d->n_fds = 1 + fuzz_take_byte(in) % FDS_MAX;
		d->verdict = DROPPED_BY_READ;
	}
	if (how / 8 % 8 == 7) {
		int delta = (int8_t)fuzz_take_byte(in);

		delta = delta ? delta : 1;
		if ((int)d->len + delta >= 0 && d->len + delta <= RAW_MAX) {
			if (delta > 0)
				memset(d->bytes + d->len, fuzz_take_byte(in), (size_t)delta);
			d->len += delta;
			d->verdict = DROPPED_BY_READ;
		}
	}
	for (unsigned int flips = how >= 224 ? 1 + how % 3 : 0; flips > 0 && d->len > 0; flips--) {
		size_t at = (fuzz_take_byte(in) | (size_t)fuzz_take_byte(in) << 8) % d->len;

		d->bytes[at] ^= fuzz_take_byte(in) | 1;
		if (d->verdict != DROPPED_BY_READ)
			d->verdict = UNKNOWN;
	}
}

/* Mostly what comes next in a conversation, sometimes anything. */
static unsigned int
take_kind(struct fuzz_input *in, const struct model *model)
{
	uint8_t pick = fuzz_take_byte(in);

	if (pick < 16)
		return pick % 6;
	if (!model->greeted)
		return 0;
	if (!model->registered)
		return pick % 8 == 0 ? 3 : 1;
	return 1 + pick % 4;
}

static void
build_datagram(struct fuzz_input *in, struct datagram *d, const struct model *model)
{
	memset(d, 0, sizeof(*d));
	switch (take_kind(in, model)) {
	case 0:
		build_register(in, d, model);
		break;
	case 1:
	case 2:
		build_event(in, d, model);
		break;
	case 3:
		build_events_end(in, d, model);
		break;
	case 4:
		build_reply(in, d, model);
		break;
	default:
		build_raw(in, d);
	}
	tamper(in, d);
}

/* Sending, with descriptors: the read end of a pipe per descriptor is
 * kept, to see later that every copy of its write end was closed. */
static void
send_datagram(int fd, const struct datagram *d, int *pipe_readers, unsigned int *n_readers)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * FDS_MAX)];
		struct cmsghdr align;
	} control;
	struct iovec iov = {.iov_base = (void *)d->bytes, .iov_len = d->len};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	int writers[FDS_MAX];

	if (d->n_fds > 0) {
		struct cmsghdr *cmsg;

		memset(&control, 0, sizeof(control));
		for (unsigned int i = 0; i < d->n_fds; i++) {
			int p[2];

			if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
				FAIL("pipe2: %s", g_strerror(errno));
			pipe_readers[(*n_readers)++] = p[0];
			writers[i] = p[1];
		}
		mh.msg_control = control.buf;
		mh.msg_controllen = CMSG_SPACE(d->n_fds * sizeof(int));
		cmsg = CMSG_FIRSTHDR(&mh);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(d->n_fds * sizeof(int));
		memcpy(CMSG_DATA(cmsg), writers, d->n_fds * sizeof(int));
	}
	if (sendmsg(fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)d->len)
		FAIL("sendmsg of %zu bytes: %s", d->len, g_strerror(errno));
	for (unsigned int i = 0; i < d->n_fds; i++)
		close(writers[i]);
}

/* What the service kept. */

static void
check_kept_event(const TcApp *app, const struct datagram *d)
{
	const struct tracectl_msg_event *msg = &d->message.event;
	const TcAppEvent *event = g_ptr_array_index(app->events, app->events->len - 1);
	g_autofree char *signature = NULL;

	if (!rule_event(event->name, event->loglevel, event->nr_fields, event->fields))
		FAIL("the service kept event '%.128s' that breaks the ABI's rules", event->name);
	if (d->message.header.type != TRACECTL_MSG_EVENT || d->len != sizeof(*msg))
		FAIL("an event was kept from a message of type %u", d->message.header.type);
	if (memcmp(event->name, msg->name, sizeof(msg->name)) != 0 ||
	    event->loglevel != msg->loglevel || event->nr_fields != msg->nr_fields ||
	    memcmp(event->fields, msg->fields, msg->nr_fields * sizeof(msg->fields[0])) != 0)
		FAIL("event '%s' was not kept as it was sent", event->name);
	signature = tc_metadata_signature(event);
	if (g_strcmp0(signature, event->signature) != 0)
		FAIL("event '%s' has signature '%s', not '%s'", event->name, event->signature,
		     signature);
}

static void
keep_for_metadata(const TcAppEvent *event)
{
	tc_metadata_append_event(metadata_text, 0, metadata_count++, event);
}

/* The metadata of the kept events, in one stream of a session of ours,
 * must open in babeltrace2 without a word on stderr. */
static int
check_metadata(void)
{
	g_autofree char *dir = NULL, *path = NULL, *err = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(GString) text = g_string_new(NULL);
	g_autoptr(TcSession) session = NULL;
	TcChannel channel = {.stream_id = 0, .contexts = TRACECTL_CONTEXT_ALL};
	const char *argv[] = {"babeltrace2", NULL, NULL};
	int status;

	if (metadata_count == 0)
		return 0;
	dir = g_dir_make_tmp("fuzz-app-protocol-XXXXXX", &error);
	if (dir == NULL)
		FAIL("%s", error->message);
	session = tc_session_new("fuzz", getuid(), dir);
	tc_metadata_append_header(text, session, getuid(), session->uuid);
	tc_metadata_append_stream(text, &channel);
	g_string_append_len(text, metadata_text->str, (gssize)metadata_text->len);
	path = g_build_filename(dir, "metadata", NULL);
	if (!g_file_set_contents(path, text->str, (gssize)text->len, &error))
		FAIL("%s", error->message);
	argv[1] = dir;
	if (!g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL,
			  NULL, NULL, NULL, &err, &status, &error)) {
		fprintf(stderr, "fuzz-app-protocol: metadata not checked: %s\n", error->message);
		return 0; /* "metadata read" stays at 0, which fails a full run */
	}
	if (!g_spawn_check_wait_status(status, NULL) || err[0] != '\0') {
		fprintf(stderr, "babeltrace2 on the metadata of %u events (kept in %s):\n%s",
			metadata_count, dir, err);
		abort();
	}
	g_unlink(path);
	g_rmdir(dir);
	outcomes[METADATA_READ]++;
	g_string_truncate(metadata_text, 0);
	metadata_count = 0;
	return 0;
}

/* The conversation. */

struct conversation {
	int app_fd, service_fd;
	TcApp *app;
	struct model model;
	TcAckWaiter waiter;
	gboolean waiter_woken;
	int pipe_readers[DATAGRAMS_MAX * FDS_MAX];
	unsigned int n_readers;
};

static void
conversation_start(struct conversation *c)
{
	int fds[2];

	memset(c, 0, sizeof(*c));
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) < 0)
		FAIL("socketpair: %s", g_strerror(errno));
	c->app_fd = fds[0];
	c->service_fd = fds[1];
	c->app = tc_app_new(c->service_fd, getpid(), getuid(), getgid());
	/* A command waiting for its answer, as tc-app-sync.c leaves it. */
	tc_ack_waiter_init(&c->waiter, c->app->uid);
	c->waiter.remaining_owner = 1;
	c->app->pending = g_hash_table_new(g_direct_hash, g_direct_equal);
	g_hash_table_insert(c->app->pending, GUINT_TO_POINTER(PENDING_SEQ), &c->waiter);
}

/* The model follows what the service did with a message it could not
 * predict; the checks of what it kept still apply. */
static void
model_follow(struct conversation *c, TcAppHandled handled)
{
	c->model.greeted = c->app->is_greeted;
	c->model.n_events = c->app->events->len;
	if (handled == TC_APP_BATCH_ENDED)
		c->model.registered = TRUE;
}

static void
check_handled(const struct datagram *d, TcAppHandled handled, const GError *error)
{
	gboolean taken = handled != TC_APP_REFUSED;

	if (d->verdict == DROPPED_BY_READ)
		FAIL("a message of %zu bytes with %u descriptors was read", d->len, d->n_fds);
	if (d->verdict == UNKNOWN)
		return;
	outcomes[PREDICTED]++;
	if (taken != (d->verdict == TAKEN))
		FAIL("message type %u was %s: %s", d->message.header.type,
		     taken ? "taken, against the ABI's rules" : "refused, though valid",
		     error ? error->message : "no error");
	if (!taken && error == NULL)
		FAIL("message type %u was refused without a reason", d->message.header.type);
}

/* Fills the receive buffer past any message with valid field
 * descriptions: a read past the datagram's end (say, one field too many)
 * then looks valid, and shows as a verdict against the rules. */
static void
poison(TcAppMessage *message)
{
	const struct tracectl_abi_field padding = {
		.name = "zzpadding", .type = TRACECTL_FIELD_UNSIGNED, .size = 4};
	struct tracectl_abi_field *fields = message->event.fields;
	size_t room = sizeof(*message) - offsetof(struct tracectl_msg_event, fields);

	for (size_t i = 0; i < room / sizeof(padding); i++)
		memcpy(&fields[i], &padding, sizeof(padding));
}

/* Sends and handles one datagram; FALSE once the service dropped the
 * application. */
static gboolean
converse(struct conversation *c, const struct datagram *d)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *why = NULL;
	TcAppMessage message;
	TcAppHandled handled;
	guint events_before = c->app->events->len;

	poison(&message);
	send_datagram(c->app_fd, d, c->pipe_readers, &c->n_readers);
	switch (tc_app_protocol_read_message(c->service_fd, &message, &why)) {
	case TC_APP_READ_NOTHING:
		FAIL("a datagram of %zu bytes was sent but nothing read", d->len);
	case TC_APP_READ_GONE:
		if (d->verdict == TAKEN || d->verdict == REFUSED_BY_HANDLER)
			FAIL("a well-framed message type %u was dropped at read: %s",
			     d->message.header.type, why);
		outcomes[DROPPED_AT_READ]++;
		outcomes[PREDICTED] += d->verdict == DROPPED_BY_READ;
		return FALSE;
	case TC_APP_READ_MESSAGE:
		break;
	}
	if (memcmp(&message, d->bytes, d->len) != 0)
		FAIL("the message read is not the one sent");
	handled = tc_app_protocol_handle_message(c->app, &message, &error);
	check_handled(d, handled, error);
	if (handled == TC_APP_REFUSED) {
		outcomes[REFUSED]++;
		return FALSE;
	}
	if (c->app->events->len != events_before) {
		check_kept_event(c->app, d);
		keep_for_metadata(g_ptr_array_index(c->app->events, c->app->events->len - 1));
		outcomes[EVENT_KEPT]++;
	}
	if (handled == TC_APP_BATCH_ENDED) {
		if (c->app->batch_start != c->app->events->len)
			FAIL("a batch ended with %u events, %u in the batches", c->app->events->len,
			     c->app->batch_start);
		outcomes[c->model.registered ? LATER_BATCH : REGISTERED]++;
		/* What registration_complete() does to a registering app. */
		c->app->state = TC_APP_REGISTERED;
	}
	c->waiter_woken |= message.header.type == TRACECTL_MSG_REPLY &&
			   message.header.seq == PENDING_SEQ;
	model_follow(c, handled);
	return TRUE;
}

static void
conversation_end(struct conversation *c)
{
	gboolean pending = g_hash_table_contains(c->app->pending, GUINT_TO_POINTER(PENDING_SEQ));

	if (c->waiter.remaining_owner != (c->waiter_woken ? 0u : 1u) ||
	    pending == c->waiter_woken)
		FAIL("the waiter has %u answers to wait for (woken: %d, still pending: %d)",
		     c->waiter.remaining_owner, c->waiter_woken, pending);
	outcomes[REPLY_WOKE] += c->waiter_woken;
	close(c->app_fd);
	close(c->service_fd);
	tc_app_unref(c->app);
	g_mutex_clear(&c->waiter.lock);
	g_cond_clear(&c->waiter.cond);
	for (unsigned int i = 0; i < c->n_readers; i++) {
		char byte;

		/* EOF: no copy of the write end is open anywhere. */
		if (read(c->pipe_readers[i], &byte, 1) != 0)
			FAIL("a descriptor sent to the service is still open (%u readers)", c->n_readers);
		close(c->pipe_readers[i]);
	}
	outcomes[FDS_CLOSED] += c->n_readers > 0;
}

/* The service logs every refusal: keep the output for real failures. */
static GLogWriterOutput
quiet_writer(GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer data)
{
	if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL))
		return g_log_writer_standard_streams(level, fields, n_fields, data);
	return G_LOG_WRITER_HANDLED;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = {data, size, 0};
	struct conversation c;

	if (metadata_text == NULL) {
		g_log_set_writer_func(quiet_writer, NULL, NULL);
		g_log_set_always_fatal(G_LOG_LEVEL_CRITICAL);
		metadata_text = g_string_sized_new(METADATA_TEXT_SIZE);
	}
	conversation_start(&c);
	for (unsigned int i = 0; i < DATAGRAMS_MAX && in.pos < in.size; i++) {
		struct datagram d;

		build_datagram(&in, &d, &c.model);
		if (!converse(&c, &d))
			break;
	}
	conversation_end(&c);
	if (metadata_count >= METADATA_BATCH)
		check_metadata();
	return 0;
}

#ifndef FUZZ_LIBFUZZER
const struct fuzz_harness fuzz_harness = {
	.seeds = NULL, /* the harness gives random bytes their shape */
	.input_max = 1024,
	.outcome_names = outcome_names,
	.outcomes = outcomes,
	.nr_outcomes = OUTCOMES,
	.finish = check_metadata,
};
#endif
