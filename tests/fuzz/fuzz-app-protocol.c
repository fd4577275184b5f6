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
 * kind (REGISTER of version 4, 5, 6 or another, ENUM, APP_CONTEXT, EVENT,
 * EVENTS_END, REPLY) whose fields the input picks, valid or not, or as raw bytes;
 * then, sometimes, file descriptors are attached, its length is changed
 * or some of its bytes are flipped. What must hold:
 *
 * - For a message the harness did not flip bytes of, the service decides
 *   as the wire ABI (common/abi/tracectl-abi.h) says, which the harness
 *   knows from what it built: a wrong length or attached descriptors end
 *   the connection, an event description is taken exactly when its name,
 *   log level, fields and index follow the rules, an enumeration's
 *   entries exactly when they open or continue it in order and each
 *   follows the rules, an application context exactly when a version 6
 *   application sends the next index, a declared type and a name of the
 *   rules not registered yet, an enumeration field exactly when it names a
 *   complete enumeration whose every range its container holds, and so
 *   on.
 * - Whatever it was sent, every event and enumeration the service keeps
 *   follows those rules, and is kept as it was sent.
 * - Descriptors sent along a message are all closed.
 * - An answer to a pending command wakes its waiter once.
 * - The CTF metadata of the events the service kept opens in babeltrace2
 *   without an error or a warning (checked every METADATA_BATCH events
 *   and at the end of a run): application strings, enumeration labels
 *   among them, end up in it.
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
#include "tc-channel-config.h"
#include "tc-channel.h"
#include "tc-metadata.h"
#include "tc-perf-counter.h"
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
	ENUM_ENTRIES_KEPT,
	ENUM_COMPLETE,
	ENUM_FIELD_KEPT,
	APP_CONTEXT_KEPT,
	OUTCOMES,
};
/* Named by the standalone driver only. */
static const char *const outcome_names[OUTCOMES] __attribute__((unused)) = {
	"dropped at read", "refused", "registered", "later batch", "event kept",
	"reply woke", "fds closed", "predicted", "metadata read", "enum entries kept",
	"enum complete", "enum field kept", "app context kept",
};
static unsigned long long outcomes[OUTCOMES];

/* The enumerations a conversation can hold: each takes a message. */
#define ENUMS_MAX DATAGRAMS_MAX

/* What the harness knows of an enumeration the service kept: how far it
 * came, and the least and the greatest value of its ranges, for the
 * containers that may hold them. */
struct model_enum {
	char name[TRACECTL_ABI_EVENT_NAME_MAX];
	guint32 nr_entries, received;
	__int128 min, max;
};

/* What the harness knows of the conversation, as the ABI describes it. */
struct model {
	gboolean greeted, registered;
	guint32 version;
	guint n_events;
	guint n_enums; /* the last one may be incomplete */
	struct model_enum enums[ENUMS_MAX];
	guint n_app_contexts;
	char app_contexts[DATAGRAMS_MAX][TRACECTL_ABI_APP_CONTEXT_NAME_MAX];
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
/* Application contexts kept, of distinct CTF field names (as a channel
 * takes them), for the metadata check's stream. */
static GPtrArray *metadata_app_contexts;

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

/* Enumerations, from the ABI's documentation too. */

/* The enumeration still waiting for entries, or NULL. */
static const struct model_enum *
model_open_enum(const struct model *model)
{
	const struct model_enum *last = model->n_enums ? &model->enums[model->n_enums - 1] : NULL;

	return last && last->received < last->nr_entries ? last : NULL;
}

/* A label: a NUL within its bytes, not first, and before it UTF-8 (as
 * GLib reads it: no overlong form, surrogate or code point past
 * U+10FFFF) without a C0 or C1 control or DEL. */
static gboolean
rule_label(const char *label, size_t size)
{
	const char *end = memchr(label, '\0', size);

	if (end == NULL || end == label || !g_utf8_validate(label, end - label, NULL))
		return FALSE;
	for (const char *c = label; c < end; c = g_utf8_next_char(c)) {
		gunichar u = g_utf8_get_char(c);

		if (u < 0x20 || (u >= 0x7f && u <= 0x9f))
			return FALSE;
	}
	return TRUE;
}

/* A bound as the value it stands for: int64_t's bits with the signed
 * flag (bit 0), uint64_t's without. */
static __int128
entry_value(uint64_t bits, uint32_t flags)
{
	return flags & 1 ? (__int128)(int64_t)bits : (__int128)bits;
}

static gboolean
rule_entry(const struct tracectl_abi_enum_entry *entry)
{
	return rule_label(entry->label, sizeof(entry->label)) && entry->flags <= 1 &&
	       entry->reserved == 0 &&
	       entry_value(entry->begin, entry->flags) <= entry_value(entry->end, entry->flags);
}

/* An ENUM message opens the next enumeration from entry 0 or continues
 * the open one where it stopped, under the same name and count, with 1
 * to 44 valid entries of 1 to 1024, from a version 5 application. */
static gboolean
rule_enum(const struct tracectl_msg_enum *msg, const struct model *model)
{
	const struct model_enum *open = model_open_enum(model);

	if (!model->greeted || model->version < 5 || !rule_event_name(msg->name, sizeof(msg->name)) ||
	    msg->nr_entries < 1 || msg->nr_entries > 1024 || msg->count < 1 || msg->count > 44 ||
	    (uint64_t)msg->first + msg->count > msg->nr_entries)
		return FALSE;
	if (open ? msg->index != model->n_enums - 1 || msg->first != open->received ||
			   msg->nr_entries != open->nr_entries || strcmp(msg->name, open->name) != 0
		 : msg->index != model->n_enums || msg->first != 0 || model->n_enums >= 65536)
		return FALSE;
	for (uint32_t i = 0; i < msg->count; i++)
		if (!rule_entry(&msg->entries[i]))
			return FALSE;
	return TRUE;
}

/* An enumeration field's container, in the element bits: a signed or
 * unsigned integer of 1, 2, 4 or 8 bytes with nothing in bits 8 to 15;
 * the values it holds. */
static gboolean
rule_container(uint32_t type, __int128 *min, __int128 *max)
{
	uint32_t kind = type >> 16 & 0xff, size = type >> 24;

	if ((type & 0xff00) != 0 || (kind != TRACECTL_FIELD_SIGNED && kind != TRACECTL_FIELD_UNSIGNED) ||
	    size >= 32 || !(allowed_sizes[kind] >> size & 1u))
		return FALSE;
	*min = kind == TRACECTL_FIELD_SIGNED ? -((__int128)1 << (8 * size - 1)) : 0;
	*max = kind == TRACECTL_FIELD_SIGNED ? ((__int128)1 << (8 * size - 1)) - 1
					     : ((__int128)1 << (8 * size)) - 1;
	return TRUE;
}

/* A field naming enumeration size: complete, each range in the container. */
static gboolean
rule_enum_field(const struct tracectl_abi_field *field, const struct model *model)
{
	const struct model_enum *e = field->size < model->n_enums ? &model->enums[field->size] : NULL;
	__int128 min, max;

	return rule_container(field->type, &min, &max) && e && e->received == e->nr_entries &&
	       e->min >= min && e->max <= max;
}

static gboolean
rule_field(const struct tracectl_abi_field *field, const struct model *model)
{
	uint32_t kind = field->type & 0xff;

	if (kind == 9) /* enumeration: its size is the enumeration's index */
		return rule_field_name(field->name, sizeof(field->name)) &&
		       rule_enum_field(field, model);
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
	   const struct tracectl_abi_field *fields, const struct model *model)
{
	if (!rule_event_name(name, TRACECTL_ABI_EVENT_NAME_MAX) || loglevel < 0 ||
	    loglevel > TRACECTL_ABI_LOGLEVEL_MAX || nr_fields > TRACECTL_ABI_FIELDS_MAX)
		return FALSE;
	for (uint32_t i = 0; i < nr_fields; i++) {
		if (!rule_field(&fields[i], model))
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

/* An enumeration field's container, mostly valid, and the enumeration it
 * names, mostly one there is. */
static void
take_enum_field(struct fuzz_input *in, struct tracectl_abi_field *field, const struct model *model)
{
	/* kind, bytes: the valid ones, then a double, bad sizes, no kind */
	static const uint32_t containers[][2] = {
		{1, 1}, {1, 2}, {1, 4}, {1, 8}, {2, 1}, {2, 2}, {2, 4}, {2, 8},
		{3, 8}, {1, 3}, {2, 16}, {0, 4}};
	/* hex, network, text, a bit no container has */
	static const uint32_t attributes[] = {0x100, 0x400, 0x800, 0x1000};
	uint8_t shape = fuzz_take_byte(in);
	uint8_t pick = fuzz_take_byte(in);

	field->type |= containers[shape % 12][0] << 16 | containers[shape % 12][1] << 24;
	if (shape >= 240)
		field->type |= attributes[pick % 4];
	if (pick >= 248)
		field->size = fuzz_take_u32(in);
	else if (pick >= 224 || model->n_enums == 0)
		field->size = pick % (model->n_enums + 1);
	else
		field->size = pick % model->n_enums;
}

static void
take_field(struct fuzz_input *in, struct tracectl_abi_field *fields, uint32_t i,
	   const struct model *model)
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
	field->type = shape < 240 ? 1 + shape % 9 : shape % 11; /* 0 and 10 are not kinds */
	/* Enumerations more often where there are some to name. */
	if (model->n_enums > 0 && shape % 4 == 3)
		field->type = 9;
	if (field->type == 7 || field->type == 8) {
		take_container(in, field);
		return;
	}
	if (field->type == 9) {
		take_enum_field(in, field, model);
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
	/* Mostly the service's version; its older one, the one before, the
	 * one after, or any. */
	switch (shape % 16) {
	case 0:
		msg->abi_version = fuzz_take_u32(in);
		break;
	case 3:
	case 4:
		msg->abi_version = 4;
		break;
	case 5:
		msg->abi_version = 3;
		break;
	case 6:
		msg->abi_version = TRACECTL_ABI_VERSION + 1;
		break;
	case 7:
		msg->abi_version = 5;
		break;
	default:
		msg->abi_version = TRACECTL_ABI_VERSION;
	}
	msg->bits_per_long = shape % 16 == 1 ? 32 : sizeof(long) * 8;
	msg->tracer_major = fuzz_take_byte(in);
	msg->tracer_minor = fuzz_take_byte(in);
	/* Lies about identity are logged, not refused. */
	msg->pid = shape % 4 == 2 ? (int32_t)fuzz_take_u32(in) : getpid();
	msg->uid = shape % 4 == 3 ? fuzz_take_u32(in) : getuid();
	for (size_t i = 0; i < sizeof(msg->procname); i++)
		msg->procname[i] = (char)fuzz_take_byte(in);
	d->verdict = !model->greeted && !model->registered && msg->abi_version >= 4 &&
				     msg->abi_version <= 6 &&
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
		take_field(in, msg->fields, i, model);
	/* What lies past nr_fields is not the service's business. */
	for (size_t i = filled * sizeof(msg->fields[0]); i < sizeof(msg->fields); i++)
		((uint8_t *)msg->fields)[i] = shape % 2 ? 0xa5 : 0;
	d->verdict = model->greeted && !model_open_enum(model) && msg->index == model->n_events &&
				     model->n_events < TRACECTL_ABI_EVENTS_MAX &&
				     rule_event(msg->name, msg->loglevel, msg->nr_fields, msg->fields,
						model)
			     ? TAKEN
			     : REFUSED_BY_HANDLER;
}

static void
build_events_end(struct fuzz_input *in, struct datagram *d, const struct model *model)
{
	set_header(d, TRACECTL_MSG_EVENTS_END, sizeof(struct tracectl_msg_batch));
	d->message.batch.batch = fuzz_take_u32(in);
	d->verdict = model->greeted && !model_open_enum(model) ? TAKEN : REFUSED_BY_HANDLER;
}

/* "provider:name", the ABI's rule written out again: a NUL within size,
 * one ':' with 1 or more of [A-Za-z0-9_] on each side. */
static gboolean
rule_app_context_name(const char *name, size_t size)
{
	const char *end = memchr(name, '\0', size);
	const char *colon;

	if (end == NULL || (colon = strchr(name, ':')) == NULL || colon == name ||
	    colon + 1 == end || strchr(colon + 1, ':') != NULL)
		return FALSE;
	for (const char *at = name; at < end; at++)
		if (at != colon && memchr(name_chars, *at, FIELD_CHARS) == NULL)
			return FALSE;
	return TRUE;
}

static gboolean
model_has_app_context(const struct model *model, const char *name)
{
	for (guint i = 0; i < model->n_app_contexts; i++)
		if (strcmp(model->app_contexts[i], name) == 0)
			return TRUE;
	return FALSE;
}

/* Mostly two parts of field characters around a ':'; sometimes an empty
 * part, no ':' or two, the characters event names allow besides, or a
 * name of the whole array without a NUL. */
static void
take_app_context_name(struct fuzz_input *in, char *name)
{
	char part[2][24];
	uint8_t shape = fuzz_take_byte(in);
	size_t n_good = shape % 8 == 5 ? sizeof(name_chars) - 1 : FIELD_CHARS;

	if (shape % 16 == 0) {
		take_name(in, name, TRACECTL_ABI_APP_CONTEXT_NAME_MAX, name_chars,
			  sizeof(name_chars) - 1);
		return;
	}
	take_name(in, part[0], sizeof(part[0]) - 1, name_chars, n_good);
	take_name(in, part[1], sizeof(part[1]) - 1, name_chars, n_good);
	part[0][sizeof(part[0]) - 1] = part[1][sizeof(part[1]) - 1] = '\0';
	memset(name, 0, TRACECTL_ABI_APP_CONTEXT_NAME_MAX);
	snprintf(name, TRACECTL_ABI_APP_CONTEXT_NAME_MAX, "%s%s%s", shape % 8 == 1 ? "" : part[0],
		 shape % 8 == 2 ? "" : shape % 8 == 4 ? "::" : ":", shape % 8 == 3 ? "" : part[1]);
}

/* An APP_CONTEXT message: mostly the next index, a declared type and a
 * name of the rules; sometimes another index, type or name, or one
 * registered already. */
static void
build_app_context(struct fuzz_input *in, struct datagram *d, const struct model *model)
{
	struct tracectl_msg_app_context *msg = &d->message.app_context;
	uint8_t shape = fuzz_take_byte(in);

	set_header(d, TRACECTL_MSG_APP_CONTEXT, sizeof(*msg));
	msg->index = shape % 16 == 15 ? fuzz_take_byte(in) : model->n_app_contexts;
	msg->type = shape / 16 % 8 == 7 ? fuzz_take_u32(in) : 1u + fuzz_take_byte(in) % 3u;
	if (shape / 16 % 8 == 6 && model->n_app_contexts > 0)
		memcpy(msg->name, model->app_contexts[model->n_app_contexts - 1],
		       sizeof(msg->name));
	else
		take_app_context_name(in, msg->name);
	d->verdict = model->greeted && model->version >= TRACECTL_ABI_VERSION_APP_CONTEXTS &&
				     msg->index == model->n_app_contexts &&
				     model->n_app_contexts < TRACECTL_ABI_APP_CONTEXTS_MAX &&
				     msg->type >= 1 && msg->type <= 3 &&
				     rule_app_context_name(msg->name, sizeof(msg->name)) &&
				     !model_has_app_context(model, msg->name)
			     ? TAKEN
			     : REFUSED_BY_HANDLER;
}

/* A label of pieces, mostly good (letters, digits, spaces, quotes and
 * backslashes, which the metadata escapes, UTF-8 of 2 to 4 bytes), rarely
 * one bad (a control, DEL, C1, a cut sequence, a surrogate, an overlong
 * form, a byte UTF-8 has not, past U+10FFFF), empty, or without a NUL. */
static void
take_label(struct fuzz_input *in, char *label)
{
	static const char *const pieces[] = {
		"a", "Z", "9", "_", " ", "\"", "\\", "\xc3\xa9", "\xe6\x97\xa5", "\xf0\x9f\x98\x80",
		"-", ".", "\n", "\x7f", "\xc2\x85", "\xc3", "\xed\xa0\x80", "\xc0\xaf", "\xff",
		"\xf4\x90\x80\x80"};
	uint8_t shape = fuzz_take_byte(in);
	size_t length = 0;

	memset(label, 0, TRACECTL_ABI_ENUM_LABEL_MAX);
	if (shape == 255) {
		memset(label, 'a', TRACECTL_ABI_ENUM_LABEL_MAX);
		return;
	}
	for (uint8_t n = shape % 32 == 0 ? 0 : 1 + shape % 8; n > 0; n--) {
		uint8_t pick = fuzz_take_byte(in);
		const char *piece = pick < 248 ? pieces[pick % 12] : pieces[12 + pick % 8];

		if (length + strlen(piece) >= TRACECTL_ABI_ENUM_LABEL_MAX)
			break;
		memcpy(label + length, piece, strlen(piece));
		length += strlen(piece);
	}
}

/* Bounds at the edges of each container, as bits. */
static const uint64_t enum_values[] = {
	0, 1, 5, 127, 128, 255, 256, 32767, 32768, 65535, 65536, 0x7fffffff, 0x80000000,
	0xffffffff, 0x100000000, INT64_MAX, (uint64_t)INT64_MAX + 1, UINT64_MAX,
	(uint64_t)-128, (uint64_t)-129, (uint64_t)-32768, (uint64_t)-32769,
	(uint64_t)(int64_t)INT32_MIN, (uint64_t)INT64_MIN, (uint64_t)-2,
};

/* A bound: mostly small, every container holds it; else at an edge. */
static uint64_t
take_enum_value(struct fuzz_input *in)
{
	uint8_t pick = fuzz_take_byte(in);

	if (pick < 160)
		return pick % 32;
	if (pick < 192)
		return (uint64_t)-1 - pick % 8;
	return enum_values[pick % G_N_ELEMENTS(enum_values)];
}

/* An entry, mostly valid: a value or a range, signed when it begins
 * below 0; sometimes the wrong way round, with the other signedness, an
 * unknown flag or a reserved word. */
static void
take_entry(struct fuzz_input *in, struct tracectl_abi_enum_entry *entry)
{
	uint8_t shape = fuzz_take_byte(in);

	take_label(in, entry->label);
	entry->begin = take_enum_value(in);
	switch (shape % 16) {
	case 0 ... 7:
		entry->end = entry->begin;
		break;
	case 8 ... 11:
		entry->end = entry->begin + fuzz_take_byte(in) % 8;
		break;
	case 12 ... 14:
		entry->end = take_enum_value(in);
		break;
	default:
		entry->end = entry->begin - 1;
	}
	entry->flags = (int64_t)entry->begin < 0 ? TRACECTL_ENUM_ENTRY_SIGNED : 0;
	if (shape >= 248)
		entry->flags = fuzz_take_byte(in) % 4;
	entry->reserved = shape == 247 ? fuzz_take_u32(in) : 0;
}

/* An ENUM message: mostly the open enumeration's next entries, or a new
 * one of 1 to 4 entries; sometimes of a count at or past a bound, out of
 * order or under another name. */
static void
build_enum(struct fuzz_input *in, struct datagram *d, const struct model *model)
{
	static const uint32_t counts[] = {1, 2, 44, 45, 88, 100, 1024, 1025, 0, 0xffffffffu};
	struct tracectl_msg_enum *msg = &d->message.enumeration;
	const struct model_enum *open = model_open_enum(model);
	uint8_t shape = fuzz_take_byte(in);
	uint32_t filled;

	set_header(d, TRACECTL_MSG_ENUM, sizeof(*msg));
	if (open && shape % 8 != 0) {
		msg->index = model->n_enums - 1;
		memcpy(msg->name, open->name, sizeof(msg->name));
		msg->nr_entries = open->nr_entries;
		msg->first = open->received;
	} else {
		msg->index = model->n_enums;
		take_event_name(in, msg->name);
		msg->nr_entries = shape % 4 == 3 ? counts[fuzz_take_byte(in) % G_N_ELEMENTS(counts)]
						 : 1u + fuzz_take_byte(in) % 4u;
	}
	msg->count = msg->first < msg->nr_entries
			     ? MIN(msg->nr_entries - msg->first, TRACECTL_ABI_ENUM_ENTRIES_PER_MSG)
			     : 0;
	switch (shape / 8 % 16) {
	case 1:
		msg->count = fuzz_take_byte(in) % 50;
		break;
	case 2:
		msg->index = fuzz_take_byte(in);
		break;
	case 3:
		msg->first = fuzz_take_byte(in);
		break;
	case 4:
		msg->name[0] = (char)fuzz_take_byte(in);
		break;
	default:
		break;
	}
	filled = MIN(msg->count, TRACECTL_ABI_ENUM_ENTRIES_PER_MSG);
	for (uint32_t i = 0; i < filled; i++)
		take_entry(in, &msg->entries[i]);
	/* What lies past count is not the service's business. */
	for (size_t i = filled * sizeof(msg->entries[0]); i < sizeof(msg->entries); i++)
		((uint8_t *)msg->entries)[i] = shape % 2 ? 0xa5 : 0;
	d->verdict = rule_enum(msg, model) ? TAKEN : REFUSED_BY_HANDLER;
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
		return pick % 8;
	if (!model->greeted)
		return 0;
	if (model_open_enum(model))
		return pick % 8 == 0 ? 1 : 6;
	if (!model->registered)
		return pick % 8 == 0 ? 3 : pick % 4 == 1 ? 6 : 1;
	if (pick % 16 == 15)
		return 7;
	return pick % 5 == 0 ? 6 : 1 + pick % 4;
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
	case 6:
		build_enum(in, d, model);
		break;
	case 7:
		build_app_context(in, d, model);
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
check_kept_event(const TcApp *app, const struct datagram *d, const struct model *model)
{
	const struct tracectl_msg_event *msg = &d->message.event;
	const TcAppEvent *event = g_ptr_array_index(app->events, app->events->len - 1);
	g_autofree char *signature = NULL;

	if (!rule_event(event->name, event->loglevel, event->nr_fields, event->fields, model))
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
	for (guint i = 0; i < event->nr_fields; i++) {
		if ((event->fields[i].type & 0xff) != 9)
			continue;
		if (event->enums == NULL ||
		    event->enums[i] != g_ptr_array_index(app->enums, event->fields[i].size))
			FAIL("event '%s' field %u does not point at enumeration %u", event->name, i,
			     event->fields[i].size);
		outcomes[ENUM_FIELD_KEPT]++;
	}
}

/* The entries an ENUM message brought, kept as sent, in the enumeration
 * it opened or continued, and every entry kept so far by the rules. */
static void
check_kept_enum(const TcApp *app, const struct datagram *d)
{
	const struct tracectl_msg_enum *msg = &d->message.enumeration;
	const TcAppEnum *e = g_ptr_array_index(app->enums, app->enums->len - 1);

	if (d->message.header.type != TRACECTL_MSG_ENUM || d->len != sizeof(*msg))
		FAIL("enumeration entries were kept from a message of type %u",
		     d->message.header.type);
	if (app->enums->len - 1 != msg->index || strcmp(e->name, msg->name) != 0 ||
	    !rule_event_name(e->name, sizeof(e->name)) || e->nr_entries != msg->nr_entries ||
	    e->nr_received != msg->first + msg->count ||
	    memcmp(&e->entries[msg->first], msg->entries, msg->count * sizeof(msg->entries[0])) != 0)
		FAIL("enumeration %u '%s' was not kept as it was sent", msg->index, e->name);
	for (guint i = 0; i < e->nr_received; i++)
		if (!rule_entry(&e->entries[i]))
			FAIL("the service kept entry %u of '%s' that breaks the ABI's rules", i, e->name);
	if ((e->digest != NULL) != (e->nr_received == e->nr_entries))
		FAIL("enumeration '%s' has %u of %u entries and %s digest", e->name, e->nr_received,
		     e->nr_entries, e->digest ? "a" : "no");
	outcomes[ENUM_ENTRIES_KEPT]++;
	outcomes[ENUM_COMPLETE] += e->nr_received == e->nr_entries;
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
	g_autoptr(GArray) no_perf_counters = g_array_new(FALSE, FALSE, sizeof(struct tc_perf_counter));
	TcChannel channel = {.stream_id = 0,
			     .contexts = TRACECTL_CONTEXT_ALL,
			     .perf_counters = no_perf_counters,
			     .app_contexts = metadata_app_contexts};
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
	c->model.version = c->app->abi_version;
	c->model.n_events = c->app->events->len;
	if (c->app->enums->len > ENUMS_MAX)
		FAIL("%u enumerations from %u messages at most", c->app->enums->len, DATAGRAMS_MAX);
	c->model.n_enums = c->app->enums->len;
	if (c->app->app_contexts->len > DATAGRAMS_MAX)
		FAIL("%u application contexts from %u messages at most", c->app->app_contexts->len,
		     DATAGRAMS_MAX);
	c->model.n_app_contexts = c->app->app_contexts->len;
	for (guint i = 0; i < c->model.n_app_contexts; i++)
		memcpy(c->model.app_contexts[i],
		       g_array_index(c->app->app_contexts, TcAppContext, i).name,
		       sizeof(c->model.app_contexts[i]));
	for (guint i = 0; i < c->model.n_enums; i++) {
		const TcAppEnum *e = g_ptr_array_index(c->app->enums, i);
		struct model_enum *m = &c->model.enums[i];

		memcpy(m->name, e->name, sizeof(m->name));
		m->nr_entries = e->nr_entries;
		m->received = e->nr_received;
		m->min = m->max = 0;
		for (guint j = 0; j < e->nr_received; j++) {
			__int128 begin = entry_value(e->entries[j].begin, e->entries[j].flags);
			__int128 end = entry_value(e->entries[j].end, e->entries[j].flags);

			m->min = j == 0 || begin < m->min ? begin : m->min;
			m->max = j == 0 || end > m->max ? end : m->max;
		}
	}
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

/* The context kept is the one sent, of the rules, and its field name is
 * kept for the metadata check unless another kept has it. */
static void
check_kept_app_context(const TcApp *app, const struct datagram *d)
{
	const struct tracectl_msg_app_context *msg = &d->message.app_context;
	const TcAppContext *kept =
		&g_array_index(app->app_contexts, TcAppContext, app->app_contexts->len - 1);
	g_autofree char *field = NULL;

	if (d->message.header.type != TRACECTL_MSG_APP_CONTEXT || d->len != sizeof(*msg) ||
	    memcmp(kept->name, msg->name, sizeof(kept->name)) != 0 || kept->type != msg->type)
		FAIL("an application context was kept that is not the one sent");
	if (!rule_app_context_name(kept->name, sizeof(kept->name)) || kept->type < 1 ||
	    kept->type > 3)
		FAIL("application context '%.128s' of type %u kept against the rules", kept->name,
		     kept->type);
	outcomes[APP_CONTEXT_KEPT]++;
	field = tc_channel_config_app_context_field(kept->name);
	for (guint i = 0; i < metadata_app_contexts->len; i++) {
		g_autofree char *other =
			tc_channel_config_app_context_field(g_ptr_array_index(metadata_app_contexts, i));

		if (g_str_equal(other, field))
			return;
	}
	if (metadata_app_contexts->len < TRACECTL_ABI_CHANNEL_APP_CONTEXTS_MAX)
		g_ptr_array_add(metadata_app_contexts, g_strdup(kept->name));
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
	guint enum_entries_before =
		c->app->enums->len ? ((const TcAppEnum *)g_ptr_array_index(
					      c->app->enums, c->app->enums->len - 1))->nr_received
				   : 0;
	guint enums_before = c->app->enums->len;
	guint app_contexts_before = c->app->app_contexts->len;

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
	if (c->app->enums->len != enums_before ||
	    (enums_before && ((const TcAppEnum *)g_ptr_array_index(c->app->enums, enums_before - 1))
					     ->nr_received != enum_entries_before))
		check_kept_enum(c->app, d);
	if (c->app->app_contexts->len != app_contexts_before)
		check_kept_app_context(c->app, d);
	if (c->app->events->len != events_before) {
		check_kept_event(c->app, d, &c->model);
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
		metadata_app_contexts = g_ptr_array_new_with_free_func(g_free);
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
