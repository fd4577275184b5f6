/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The wire ABI between an instrumented application (libtracectl-ust) and
 * tracectld, over the registration socket <rundir>/app.sock.
 *
 * The socket is AF_UNIX SOCK_SEQPACKET, so every message keeps its
 * boundaries: one message is one tracectl_msg_header followed by exactly
 * header.size - sizeof(header) bytes of the payload named by header.type.
 * Every message is at most TRACECTL_ABI_MSG_MAX bytes. Receivers check the
 * magic, the type, and that the datagram length equals header.size and the
 * payload size of that type; anything else ends the connection. Strings are
 * fixed arrays that must contain a NUL within their bounds.
 *
 * Conversation:
 *
 *   app                                   tracectld
 *   REGISTER ------------------------------>     (identity from SO_PEERCRED)
 *   ENUM (one or more per enumeration) ---->     (version 5 on)
 *   APP_CONTEXT (one per context) --------->     (version 6 on)
 *   EVENT (one per event) ----------------->
 *   EVENTS_END {batch} -------------------->
 *                 <------------------------ CHANNEL_ADD, CHANNEL_PERF_COUNTERS,
 *                 <------------------------ CHANNEL_APP_CONTEXTS,
 *                 <------------------------ STREAM_ADD (+1 fd),
 *                 <------------------------ EVENT_FILTER, EVENT_ENABLE,
 *                 <------------------------ SESSION_START, ...
 *                 <------------------------ NOTIFIER_ADD (+1 fd), EVENT_FILTER,
 *                 <------------------------ EVENT_ENABLE (event-rule triggers)
 *                 <------------------------ EVENTS_DONE {batch}
 *
 * After EVENTS_DONE the application's state reflects every session that
 * applied to it when the batch was processed; the library's constructor
 * waits for it (bounded by TRACECTL_UST_REGISTER_TIMEOUT). More batches may
 * follow when providers are loaded later (dlopen). Commands sent by the
 * service carry a non-zero seq; the application answers each with REPLY
 * carrying the same seq once the command has taken effect.
 *
 * An enumeration is described before the first event whose fields use it,
 * in the same batch or an earlier one, and is then used by any number of
 * fields of any number of events (TRACECTL_FIELD_ENUM).
 *
 * Versions. A service serves the applications of its own version and of
 * every version down to TRACECTL_ABI_VERSION_MIN whose messages are a
 * subset of its own and which read every command it sends; it refuses
 * the others at REGISTER, saying which version it speaks. Version 5 adds
 * enumerations (ENUM and TRACECTL_FIELD_ENUM) and nothing the service
 * sends, so it serves version 4 applications too. Version 6 adds
 * application contexts (APP_CONTEXT, and CHANNEL_APP_CONTEXTS) and
 * per-thread perf counters (CHANNEL_PERF_COUNTERS), commands the service
 * sends to version 6 applications only: an older one is not given a
 * channel that records either. Versions up to 4 each
 * added a command the application must read, and their services served
 * their own version only.
 *
 * All integers are in the host's byte order: both ends run on one machine.
 */
#ifndef TRACECTL_ABI_H
#define TRACECTL_ABI_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tc-filter-bytecode.h"

#define TRACECTL_ABI_MAGIC 0x54434131u /* "TCA1" */
#define TRACECTL_ABI_VERSION 6u
#define TRACECTL_ABI_VERSION_MIN 4u
#define TRACECTL_ABI_VERSION_ENUMS 5u        /* the first with ENUM messages */
#define TRACECTL_ABI_VERSION_APP_CONTEXTS 6u /* the first with application contexts */
#define TRACECTL_ABI_MSG_MAX 4096u

#define TRACECTL_ABI_EVENT_NAME_MAX 128u /* "provider:event" with its NUL */
#define TRACECTL_ABI_FIELD_NAME_MAX 48u
#define TRACECTL_ABI_FIELDS_MAX 32u
#define TRACECTL_ABI_PROCNAME_MAX 16u
#define TRACECTL_ABI_EVENTS_MAX 65536u /* per application */
#define TRACECTL_ABI_ENUMS_MAX 65536u  /* enumerations per application */
/* Log levels are LTTng's 0 (emergency) to 14 (debug): CTF readers refuse a
 * negative one and warn about a larger one. */
#define TRACECTL_ABI_LOGLEVEL_MAX 14

enum tracectl_msg_type {
	/* application -> service */
	TRACECTL_MSG_REGISTER = 1,
	TRACECTL_MSG_EVENT = 2,
	TRACECTL_MSG_EVENTS_END = 3,
	TRACECTL_MSG_REPLY = 4,
	TRACECTL_MSG_ENUM = 5,	      /* version 5 on */
	TRACECTL_MSG_APP_CONTEXT = 6, /* version 6 on */

	/* service -> application */
	TRACECTL_MSG_CHANNEL_ADD = 16,
	TRACECTL_MSG_STREAM_ADD = 17, /* carries one memfd in SCM_RIGHTS */
	TRACECTL_MSG_CHANNEL_REMOVE = 18,
	TRACECTL_MSG_EVENT_ENABLE = 19,
	TRACECTL_MSG_EVENT_DISABLE = 20,
	TRACECTL_MSG_SESSION_START = 21,
	TRACECTL_MSG_SESSION_STOP = 22,
	TRACECTL_MSG_EVENTS_DONE = 23,
	TRACECTL_MSG_EVENT_FILTER = 24,
	TRACECTL_MSG_NOTIFIER_ADD = 25, /* carries one memfd in SCM_RIGHTS */
	TRACECTL_MSG_CHANNEL_APP_CONTEXTS = 26, /* version 6 on */
	TRACECTL_MSG_CHANNEL_PERF_COUNTERS = 27, /* version 6 on */
};

struct tracectl_msg_header {
	uint32_t magic;
	uint32_t type; /* enum tracectl_msg_type */
	uint32_t size; /* whole message, header included */
	uint32_t seq;  /* service commands: non-zero, echoed by REPLY */
};

/* Field kinds of an event payload, as laid out in the ring buffer. */
enum tracectl_field_type {
	TRACECTL_FIELD_SIGNED = 1,   /* size: 1, 2, 4 or 8 bytes */
	TRACECTL_FIELD_UNSIGNED = 2, /* size: 1, 2, 4 or 8 bytes */
	TRACECTL_FIELD_DOUBLE = 3,   /* size: 8, IEEE 754 binary64 */
	TRACECTL_FIELD_STRING = 4,   /* NUL-terminated UTF-8, size 0 */
	TRACECTL_FIELD_BYTES = 5,    /* uint32_t length then bytes, size 0 */
	TRACECTL_FIELD_FLOAT = 6,    /* size: 4, IEEE 754 binary32 */
	/* size: the length, 1 to TRACECTL_ABI_ARRAY_LENGTH_MAX elements,
	 * packed, of the element the type word describes (below) */
	TRACECTL_FIELD_ARRAY = 7,
	/* size 0: uint32_t length (at most TRACECTL_ABI_SEQUENCE_LENGTH_MAX),
	 * then that many elements, packed */
	TRACECTL_FIELD_SEQUENCE = 8,
	/* laid out as its container, a signed or unsigned integer of 1, 2, 4
	 * or 8 bytes that the type word describes as an array's element, with
	 * no attribute; size: the application's index of the enumeration
	 * (TRACECTL_MSG_ENUM) that names its values. Version 5 on. */
	TRACECTL_FIELD_ENUM = 9,
};

/*
 * A field's type word is its kind in the low byte; an integer's may carry
 * above it how readers show it and how it is stored. Types of version 1
 * and 2 providers have none of these bits: their meaning is unchanged.
 */
#define TRACECTL_FIELD_KIND_MASK 0xffu
#define TRACECTL_FIELD_HEX 0x100u        /* shown in base 16 */
#define TRACECTL_FIELD_OCT 0x200u        /* shown in base 8 */
#define TRACECTL_FIELD_BIG_ENDIAN 0x400u /* stored most significant byte first */
#define TRACECTL_FIELD_INTEGER_ATTRIBUTES                                                  \
	(TRACECTL_FIELD_HEX | TRACECTL_FIELD_OCT | TRACECTL_FIELD_BIG_ENDIAN)

/*
 * An array's or a sequence's type word describes its element too: the
 * element's kind (signed, unsigned, double or float) in bits 16 to 23, its
 * size in bytes (1, 2, 4 or 8, as for the same kind alone) in bits 24 to
 * 31, and an integer element's attributes above the kind as for an integer
 * field. TRACECTL_FIELD_TEXT marks elements of one byte that readers show
 * as UTF-8 text (CTF encoding = UTF8), with no other attribute. The
 * elements' bytes are as the application holds them: a network-order
 * element was written in network order by the application.
 */
#define TRACECTL_FIELD_TEXT 0x800u
#define TRACECTL_FIELD_ELEMENT_KIND_SHIFT 16u
#define TRACECTL_FIELD_ELEMENT_SIZE_SHIFT 24u
#define TRACECTL_FIELD_ELEMENT(kind, size)                                                 \
	((uint32_t)(kind) << TRACECTL_FIELD_ELEMENT_KIND_SHIFT |                            \
	 (uint32_t)(size) << TRACECTL_FIELD_ELEMENT_SIZE_SHIFT)
/* Bounds of an array's and a sequence's element count; with elements of 8
 * bytes at most, a field holds at most 512 KiB, and count * size never
 * overflows 32 bits. */
#define TRACECTL_ABI_ARRAY_LENGTH_MAX 65536u
#define TRACECTL_ABI_SEQUENCE_LENGTH_MAX 65536u

struct tracectl_abi_field {
	char name[TRACECTL_ABI_FIELD_NAME_MAX];
	uint32_t type; /* enum tracectl_field_type, with integer attributes */
	/* bytes, for integers, float and double; an array's element count;
	 * 0 otherwise */
	uint32_t size;
};

static inline uint32_t
tracectl_abi_field_kind(uint32_t type)
{
	return type & TRACECTL_FIELD_KIND_MASK;
}

/* An array's or a sequence's element: its kind and size in bytes. */
static inline uint32_t
tracectl_abi_field_element_kind(uint32_t type)
{
	return type >> TRACECTL_FIELD_ELEMENT_KIND_SHIFT & 0xffu;
}

static inline uint32_t
tracectl_abi_field_element_size(uint32_t type)
{
	return type >> TRACECTL_FIELD_ELEMENT_SIZE_SHIFT;
}

/* Whether an integer (a field or an element) of size bytes may have these
 * attributes: an integer's only, one base at most, 1, 2, 4 or 8 bytes. */
static inline bool
tracectl_abi_integer_is_valid(uint32_t attributes, uint32_t size)
{
	return (attributes & ~TRACECTL_FIELD_INTEGER_ATTRIBUTES) == 0 &&
	       (attributes & (TRACECTL_FIELD_HEX | TRACECTL_FIELD_OCT)) !=
		       (TRACECTL_FIELD_HEX | TRACECTL_FIELD_OCT) &&
	       (size == 1 || size == 2 || size == 4 || size == 8);
}

/* Whether an array's or a sequence's type word describes a valid element:
 * a signed or unsigned integer of 1, 2, 4 or 8 bytes with an integer's
 * attributes (one base at most), or text of one byte; a double of 8 or a
 * float of 4 bytes with none. Bits 12 to 15 are clear. */
static inline bool
tracectl_abi_field_element_is_valid(uint32_t type)
{
	uint32_t attributes = type & 0xff00u;
	uint32_t size = tracectl_abi_field_element_size(type);

	switch (tracectl_abi_field_element_kind(type)) {
	case TRACECTL_FIELD_SIGNED:
	case TRACECTL_FIELD_UNSIGNED:
		if (attributes == TRACECTL_FIELD_TEXT)
			return size == 1;
		return tracectl_abi_integer_is_valid(attributes, size);
	case TRACECTL_FIELD_DOUBLE:
		return attributes == 0 && size == 8;
	case TRACECTL_FIELD_FLOAT:
		return attributes == 0 && size == 4;
	default:
		return false;
	}
}

/* Whether an enumeration field's type word describes a valid container:
 * a signed or unsigned integer of 1, 2, 4 or 8 bytes, without attributes
 * (its values are shown by their labels, in no base). */
static inline bool
tracectl_abi_enum_container_is_valid(uint32_t type)
{
	uint32_t kind = tracectl_abi_field_element_kind(type);
	uint32_t size = tracectl_abi_field_element_size(type);

	return (kind == TRACECTL_FIELD_SIGNED || kind == TRACECTL_FIELD_UNSIGNED) &&
	       (type & 0xff00u) == 0 && (size == 1 || size == 2 || size == 4 || size == 8);
}

/* Whether a field of this type word may have this size: a known kind, the
 * attributes of an integer on integers only, one base at most; an array of
 * 1 to TRACECTL_ABI_ARRAY_LENGTH_MAX valid elements, a sequence of valid
 * elements; an enumeration of a valid container whose index is below
 * TRACECTL_ABI_ENUMS_MAX (the receiver checks that it names one). */
static inline bool
tracectl_abi_field_is_valid(uint32_t type, uint32_t size)
{
	uint32_t attributes = type & ~TRACECTL_FIELD_KIND_MASK;

	switch (tracectl_abi_field_kind(type)) {
	case TRACECTL_FIELD_SIGNED:
	case TRACECTL_FIELD_UNSIGNED:
		return tracectl_abi_integer_is_valid(attributes, size);
	case TRACECTL_FIELD_DOUBLE:
		return attributes == 0 && size == 8;
	case TRACECTL_FIELD_FLOAT:
		return attributes == 0 && size == 4;
	case TRACECTL_FIELD_STRING:
	case TRACECTL_FIELD_BYTES:
		return attributes == 0 && size == 0;
	case TRACECTL_FIELD_ARRAY:
		return tracectl_abi_field_element_is_valid(type) && size >= 1 &&
		       size <= TRACECTL_ABI_ARRAY_LENGTH_MAX;
	case TRACECTL_FIELD_SEQUENCE:
		return tracectl_abi_field_element_is_valid(type) && size == 0;
	case TRACECTL_FIELD_ENUM:
		return tracectl_abi_enum_container_is_valid(type) && size < TRACECTL_ABI_ENUMS_MAX;
	default:
		return false;
	}
}

/* Whether a filter reads the field's value as stored: integers in the
 * machine's byte order, whatever their base, and enumerations, which
 * compare as their container. */
static inline bool
tracectl_abi_field_is_native_integer(uint32_t type)
{
	uint32_t kind = tracectl_abi_field_kind(type);

	return ((kind == TRACECTL_FIELD_SIGNED || kind == TRACECTL_FIELD_UNSIGNED) &&
		!(type & TRACECTL_FIELD_BIG_ENDIAN)) ||
	       kind == TRACECTL_FIELD_ENUM;
}

/* The integer a valid field holds: its bytes and whether it is signed, an
 * enumeration's being its container's. 0 bytes for other kinds. */
static inline uint32_t
tracectl_abi_field_integer_size(uint32_t type, uint32_t size)
{
	switch (tracectl_abi_field_kind(type)) {
	case TRACECTL_FIELD_SIGNED:
	case TRACECTL_FIELD_UNSIGNED:
		return size;
	case TRACECTL_FIELD_ENUM:
		return tracectl_abi_field_element_size(type);
	default:
		return 0;
	}
}

static inline bool
tracectl_abi_field_integer_is_signed(uint32_t type)
{
	uint32_t kind = tracectl_abi_field_kind(type);

	return kind == TRACECTL_FIELD_SIGNED ||
	       (kind == TRACECTL_FIELD_ENUM &&
		tracectl_abi_field_element_kind(type) == TRACECTL_FIELD_SIGNED);
}

/* The bytes a valid field takes in a record when its type fixes them
 * (integers, enumerations, float, double, arrays), 0 when the record
 * holds its length (strings, bytes, sequences). */
static inline uint32_t
tracectl_abi_field_fixed_size(uint32_t type, uint32_t size)
{
	switch (tracectl_abi_field_kind(type)) {
	case TRACECTL_FIELD_STRING:
	case TRACECTL_FIELD_BYTES:
	case TRACECTL_FIELD_SEQUENCE:
		return 0;
	case TRACECTL_FIELD_ARRAY:
		return size * tracectl_abi_field_element_size(type);
	case TRACECTL_FIELD_ENUM:
		return tracectl_abi_field_element_size(type);
	default:
		return size;
	}
}

/*
 * Enumerations (version 5 on). An application describes each with one
 * or more ENUM messages: the first (first == 0) opens enumeration index
 * (the next one, counted from 0), the others continue the last one with
 * the same index, name and nr_entries, first being the number of entries
 * sent so far; it is complete once nr_entries were sent, and only a
 * complete one may be named by a field, whose container every entry must
 * fit (tracectl_abi_enum_entry_fits()). Entries past count in a message
 * are not read. Labels need not be unique and ranges may overlap, as in
 * CTF; a value outside every range is recorded all the same, without a
 * label.
 */
#define TRACECTL_ABI_ENUM_LABEL_MAX 64u      /* with its NUL */
#define TRACECTL_ABI_ENUM_ENTRIES_MAX 1024u  /* per enumeration */
#define TRACECTL_ABI_ENUM_ENTRIES_PER_MSG 44u
/* begin and end are the bits of int64_t values; unsigned (uint64_t)
 * without it */
#define TRACECTL_ENUM_ENTRY_SIGNED 0x1u

/* One label and the range of values it names, begin <= end. */
struct tracectl_abi_enum_entry {
	char label[TRACECTL_ABI_ENUM_LABEL_MAX]; /* tracectl_abi_label_is_valid() */
	uint64_t begin;
	uint64_t end;
	uint32_t flags; /* TRACECTL_ENUM_ENTRY_SIGNED or 0 */
	uint32_t reserved; /* 0 */
};

struct tracectl_msg_enum {
	struct tracectl_msg_header header;
	uint32_t index;      /* the application's own index, 0.. in sending order */
	uint32_t nr_entries; /* of the whole enumeration, 1..TRACECTL_ABI_ENUM_ENTRIES_MAX */
	uint32_t first;      /* the enumeration's index of entries[0] */
	uint32_t count;      /* 1..TRACECTL_ABI_ENUM_ENTRIES_PER_MSG */
	char name[TRACECTL_ABI_EVENT_NAME_MAX]; /* "provider:enum", as an event's */
	struct tracectl_abi_enum_entry entries[TRACECTL_ABI_ENUM_ENTRIES_PER_MSG];
};

/* Whether label is a NUL-terminated string within size bytes, not empty,
 * of UTF-8 (no overlong form, surrogate or code point past U+10FFFF)
 * without control characters (C0, DEL, C1): it is quoted in the CTF
 * metadata, where readers drop what an escape could say of a control. */
static inline bool
tracectl_abi_label_is_valid(const char *label, size_t size)
{
	const unsigned char *at = (const unsigned char *)label;
	const unsigned char *end = (const unsigned char *)memchr(label, '\0', size);

	if (end == NULL || end == at)
		return false;
	while (at < end) {
		uint32_t code = *at, more;

		if (code < 0x80) {
			if (code < 0x20 || code == 0x7f)
				return false;
			at++;
			continue;
		}
		if (code >= 0xc2 && code <= 0xdf)
			more = 1, code &= 0x1f;
		else if (code >= 0xe0 && code <= 0xef)
			more = 2, code &= 0x0f;
		else if (code >= 0xf0 && code <= 0xf4)
			more = 3, code &= 0x07;
		else
			return false;
		if ((size_t)(end - at) <= more)
			return false;
		for (uint32_t i = 1; i <= more; i++) {
			if ((at[i] & 0xc0) != 0x80)
				return false;
			code = code << 6 | (at[i] & 0x3fu);
		}
		if ((more == 2 && code < 0x800) || (more == 3 && (code < 0x10000 || code > 0x10ffff)) ||
		    (code >= 0xd800 && code <= 0xdfff) || code <= 0x9f)
			return false;
		at += more + 1;
	}
	return true;
}

/* An entry's bound as the signed value it stands for. */
static inline int64_t
tracectl_abi_enum_signed(uint64_t bits)
{
	int64_t value;

	memcpy(&value, &bits, sizeof(value));
	return value;
}

/* Whether an entry is valid: its label, its flags, begin <= end read with
 * its signedness, reserved 0. */
static inline bool
tracectl_abi_enum_entry_is_valid(const struct tracectl_abi_enum_entry *entry)
{
	if (!tracectl_abi_label_is_valid(entry->label, sizeof(entry->label)) ||
	    (entry->flags & ~TRACECTL_ENUM_ENTRY_SIGNED) != 0 || entry->reserved != 0)
		return false;
	if (entry->flags & TRACECTL_ENUM_ENTRY_SIGNED)
		return tracectl_abi_enum_signed(entry->begin) <= tracectl_abi_enum_signed(entry->end);
	return entry->begin <= entry->end;
}

/* Whether one bound fits a valid enumeration container (the type word of
 * a TRACECTL_FIELD_ENUM field). */
static inline bool
tracectl_abi_enum_value_fits(uint64_t bits, bool is_signed, uint32_t container)
{
	uint32_t width = tracectl_abi_field_element_size(container) * 8;
	bool is_negative = is_signed && tracectl_abi_enum_signed(bits) < 0;

	if (tracectl_abi_field_element_kind(container) == TRACECTL_FIELD_UNSIGNED)
		return !is_negative && (width == 64 || bits >> width == 0);
	if (!is_negative)
		return bits <= (uint64_t)INT64_MAX >> (64 - width);
	/* -2^(width - 1) <= value: the bits above width - 1 all set. */
	return width == 64 || (~bits) >> (width - 1) == 0;
}

/* Whether a valid entry's whole range fits a valid container. */
static inline bool
tracectl_abi_enum_entry_fits(const struct tracectl_abi_enum_entry *entry, uint32_t container)
{
	bool is_signed = (entry->flags & TRACECTL_ENUM_ENTRY_SIGNED) != 0;

	return tracectl_abi_enum_value_fits(entry->begin, is_signed, container) &&
	       tracectl_abi_enum_value_fits(entry->end, is_signed, container);
}

struct tracectl_msg_register {
	struct tracectl_msg_header header;
	uint32_t abi_version; /* TRACECTL_ABI_VERSION */
	uint32_t bits_per_long;
	uint32_t tracer_major;
	uint32_t tracer_minor;
	/*
	 * Informational only: the service takes pid and uid from SO_PEERCRED
	 * and the process name from /proc, never from here.
	 */
	int32_t pid;
	uint32_t uid;
	char procname[TRACECTL_ABI_PROCNAME_MAX];
};

struct tracectl_msg_event {
	struct tracectl_msg_header header;
	uint32_t index; /* the application's own index, 0.. in sending order */
	int32_t loglevel;   /* 0..TRACECTL_ABI_LOGLEVEL_MAX */
	uint32_t nr_fields; /* <= TRACECTL_ABI_FIELDS_MAX */
	uint32_t reserved;
	char name[TRACECTL_ABI_EVENT_NAME_MAX]; /* "provider:event" */
	struct tracectl_abi_field fields[TRACECTL_ABI_FIELDS_MAX];
};

struct tracectl_msg_batch {
	struct tracectl_msg_header header;
	uint32_t batch; /* EVENTS_END and EVENTS_DONE */
	uint32_t reserved;
};

struct tracectl_msg_reply {
	struct tracectl_msg_header header; /* seq of the command answered */
	int32_t status;                    /* 0 or a negative errno */
	uint32_t reserved;
};

/*
 * Context fields a channel adds to every event, right after the event
 * header, packed, in the order of these bits whatever the order they were
 * added in (the stream's event.context in the CTF metadata). A library
 * that does not know a bit refuses the channel (-EINVAL), so a bit added
 * here needs no new ABI version: an older application is left out of the
 * sessions that ask for it rather than writing records of another layout.
 */
#define TRACECTL_CONTEXT_VPID 0x1u       /* int32_t, getpid() */
#define TRACECTL_CONTEXT_VTID 0x2u       /* int32_t, gettid() */
#define TRACECTL_CONTEXT_PROCNAME 0x4u   /* char[16], the thread's name */
#define TRACECTL_CONTEXT_PTHREAD_ID 0x8u /* uint64_t, pthread_self() */
/* int32_t each: the process's real, effective and saved ids, as its user
 * namespace sees them (getresuid(), getresgid()). */
#define TRACECTL_CONTEXT_VUID 0x10u
#define TRACECTL_CONTEXT_VEUID 0x20u
#define TRACECTL_CONTEXT_VSUID 0x40u
#define TRACECTL_CONTEXT_VGID 0x80u
#define TRACECTL_CONTEXT_VEGID 0x100u
#define TRACECTL_CONTEXT_VSGID 0x200u
#define TRACECTL_CONTEXT_IDS 0x3f0u
/* uint64_t each: the inode number of the thread's namespace of that kind
 * (/proc/thread-self/ns/), 0 where the kernel has none. */
#define TRACECTL_CONTEXT_CGROUP_NS 0x400u
#define TRACECTL_CONTEXT_IPC_NS 0x800u
#define TRACECTL_CONTEXT_MNT_NS 0x1000u
#define TRACECTL_CONTEXT_NET_NS 0x2000u
#define TRACECTL_CONTEXT_PID_NS 0x4000u
#define TRACECTL_CONTEXT_TIME_NS 0x8000u
#define TRACECTL_CONTEXT_USER_NS 0x10000u
#define TRACECTL_CONTEXT_UTS_NS 0x20000u
#define TRACECTL_CONTEXT_NAMESPACES 0x3fc00u
/* uint64_t: the address the tracepoint's call returns to in the
 * application, as LTTng-UST's ip context holds it. */
#define TRACECTL_CONTEXT_IP 0x40000u
#define TRACECTL_CONTEXT_ALL 0x7ffffu
#define TRACECTL_CONTEXT_PROCNAME_LEN 16u

static inline uint32_t
tracectl_context_size(uint32_t contexts)
{
	return ((contexts & TRACECTL_CONTEXT_VPID) ? 4u : 0u) +
	       ((contexts & TRACECTL_CONTEXT_VTID) ? 4u : 0u) +
	       ((contexts & TRACECTL_CONTEXT_PROCNAME) ? TRACECTL_CONTEXT_PROCNAME_LEN : 0u) +
	       ((contexts & TRACECTL_CONTEXT_PTHREAD_ID) ? 8u : 0u) +
	       4u * (uint32_t)__builtin_popcount(contexts & TRACECTL_CONTEXT_IDS) +
	       8u * (uint32_t)__builtin_popcount(contexts & TRACECTL_CONTEXT_NAMESPACES) +
	       ((contexts & TRACECTL_CONTEXT_IP) ? 8u : 0u);
}

/*
 * Application contexts (version 6 on): values an application's own
 * callback gives for each event, added to a channel by name
 * ("$app.provider:name" in the API). An application describes each context
 * it registers with one APP_CONTEXT message (index: the next one, counted
 * from 0; type: the type it declares, for listings). A channel records its
 * application contexts right after the TRACECTL_CONTEXT_* fields, in the
 * order CHANNEL_APP_CONTEXTS names them, each in a slot of
 * TRACECTL_APP_CONTEXT_SLOT_SIZE bytes: a one-byte tag
 * (enum tracectl_abi_app_context_tag) then 8 bytes, the value's as the tag
 * says, all zero for TRACECTL_APP_CONTEXT_NONE. The slot's size does not
 * depend on the tag, so that the records of applications that declare
 * other types, or none, share one layout (a CTF variant). An application
 * that has no context of that name records NONE.
 */
#define TRACECTL_ABI_APP_CONTEXTS_MAX 32u	 /* registered per application */
#define TRACECTL_ABI_CHANNEL_APP_CONTEXTS_MAX 8u /* recorded per channel */
#define TRACECTL_ABI_APP_CONTEXT_NAME_MAX 128u	 /* "provider:name" with its NUL */
#define TRACECTL_APP_CONTEXT_SLOT_SIZE 9u

/* Tags of a slot; the public API's enum tracectl_app_context_type has the
 * same values. */
enum tracectl_abi_app_context_tag {
	TRACECTL_ABI_APP_CONTEXT_NONE = 0,   /* no value: 8 zero bytes */
	TRACECTL_ABI_APP_CONTEXT_INT64 = 1,  /* int64_t */
	TRACECTL_ABI_APP_CONTEXT_UINT64 = 2, /* uint64_t */
	TRACECTL_ABI_APP_CONTEXT_DOUBLE = 3, /* IEEE 754 binary64 */
	TRACECTL_ABI_APP_CONTEXT_TAG_MAX = 3,
};

struct tracectl_msg_app_context {
	struct tracectl_msg_header header;
	uint32_t index; /* the application's own index, 0.. in sending order */
	uint32_t type;	/* the tag it declares: INT64, UINT64 or DOUBLE */
	char name[TRACECTL_ABI_APP_CONTEXT_NAME_MAX]; /* "provider:name", as an event's */
};

/*
 * Per-thread perf counters (version 6 on, the perf:thread: contexts): a
 * channel's, sent after its CHANNEL_ADD and before its first STREAM_ADD
 * when it has any. Each thread of the application opens each counter at
 * its first event in the channel and records its count, a uint64_t, right
 * after the TRACECTL_CONTEXT_* fields, in the order of counters[] (the
 * application contexts come after them). A counter the thread cannot open
 * records 0.
 */
#define TRACECTL_ABI_CHANNEL_PERF_COUNTERS_MAX 16u

struct tracectl_abi_perf_counter {
	uint32_t type; /* perf_event_attr's: hardware, software, cache or raw */
	uint32_t reserved;
	uint64_t config;
};

struct tracectl_msg_channel_perf_counters {
	struct tracectl_msg_header header;
	uint64_t channel_handle;
	uint32_t count; /* 1..TRACECTL_ABI_CHANNEL_PERF_COUNTERS_MAX */
	uint32_t reserved;
	struct tracectl_abi_perf_counter counters[TRACECTL_ABI_CHANNEL_PERF_COUNTERS_MAX];
};

/* Whether name is a NUL-terminated "provider:name" within size bytes,
 * each part 1 or more of [A-Za-z0-9_] (it becomes part of a CTF field
 * name, _app_provider_name). */
static inline bool
tracectl_abi_app_context_name_is_valid(const char *name, size_t size)
{
	const char *end = (const char *)memchr(name, '\0', size);
	const char *colon = (const char *)memchr(name, ':', size);

	if (end == NULL || colon == NULL || colon > end || colon == name || colon + 1 == end)
		return false;
	for (const char *at = name; at < end; at++) {
		char c = *at;

		if (at != colon && !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				     (c >= '0' && c <= '9') || c == '_'))
			return false;
	}
	return true;
}

/* The application contexts of a channel, sent after its CHANNEL_ADD and
 * before its first STREAM_ADD, when it has any. */
struct tracectl_msg_channel_app_contexts {
	struct tracectl_msg_header header;
	uint64_t channel_handle;
	uint32_t count; /* 1..TRACECTL_ABI_CHANNEL_APP_CONTEXTS_MAX */
	uint32_t reserved;
	char names[TRACECTL_ABI_CHANNEL_APP_CONTEXTS_MAX][TRACECTL_ABI_APP_CONTEXT_NAME_MAX];
};

struct tracectl_msg_channel {
	struct tracectl_msg_header header;
	uint64_t session_handle;
	uint64_t channel_handle;
	uint32_t stream_id;   /* CTF stream class id of the channel */
	uint32_t nr_streams;  /* one per possible CPU */
	uint64_t subbuf_size; /* for CHANNEL_ADD; 0 in CHANNEL_REMOVE */
	uint64_t num_subbuf;
	uint32_t contexts;    /* TRACECTL_CONTEXT_* bits */
	uint32_t reserved;
};

struct tracectl_msg_stream {
	struct tracectl_msg_header header;
	uint64_t channel_handle;
	uint32_t cpu;
	uint32_t reserved;
	uint64_t shm_size; /* bytes to map from the passed memfd */
};

struct tracectl_msg_event_enable {
	struct tracectl_msg_header header;
	uint64_t channel_handle;
	uint32_t index; /* application's event index */
	uint32_t id;    /* CTF event id in the channel's stream class */
};

/*
 * The filter of an event in a channel (tc-filter-bytecode.h), replacing
 * the one it had; size 0 removes it. Sent before the EVENT_ENABLE it
 * applies to, or alone to change the filter of an enabled event. The
 * application verifies the program against the event's fields and
 * answers -EINVAL when it breaks any rule.
 */
struct tracectl_msg_event_filter {
	struct tracectl_msg_header header;
	uint64_t channel_handle;
	uint32_t index; /* application's event index */
	uint32_t size;  /* bytes of bytecode used, <= TC_FILTER_BYTECODE_MAX */
	uint8_t bytecode[TC_FILTER_BYTECODE_MAX];
};

struct tracectl_msg_session {
	struct tracectl_msg_header header;
	uint64_t session_handle;
};

/*
 * A notifier: a channel without buffers, for an event-rule trigger. The
 * service enables events in it with EVENT_FILTER and EVENT_ENABLE (id 0)
 * like in any channel; an enabled event that passes its filter adds one to
 * the count of the shared page instead of being recorded, with no system
 * call, and the service reads the count. The memfd is sealed against
 * shrinking and holds at least TRACECTL_NOTIFIER_PAGE_SIZE bytes. The
 * notifier belongs to no session: CHANNEL_REMOVE names it with
 * TRACECTL_NOTIFIER_SESSION, and it is never started nor stopped.
 */
#define TRACECTL_NOTIFIER_PAGE_SIZE 4096u
#define TRACECTL_NOTIFIER_SESSION UINT64_MAX

struct tracectl_notifier_page {
	uint64_t count; /* atomic; any value, the service only sees it change */
};

struct tracectl_msg_notifier {
	struct tracectl_msg_header header;
	uint64_t channel_handle;
	uint64_t shm_size; /* TRACECTL_NOTIFIER_PAGE_SIZE */
};

/*
 * <rundir>/wait: the passive wait of applications started before the
 * service (§3.5.2 and figures 3.3-3.5 of David Goulet, "Unified
 * Kernel/User-Space Efficient Linux Tracing Architecture", Master's thesis,
 * École Polytechnique de Montréal, 2012). One page, created by the
 * service (or by systemd-tmpfiles), writable only by it. state holds
 * (generation << 1) | ready. When the service is ready it bumps the
 * generation, sets ready and wakes every waiter (FUTEX_WAKE); when it exits
 * it bumps the generation and clears ready. An application that cannot
 * connect reads state and, when ready is clear, sleeps in FUTEX_WAIT on
 * that value: no polling, and no lost wake-up, because any change of the
 * value makes FUTEX_WAIT return at once. ready set with a failed connect
 * means the service died without clearing it: the application then falls
 * back to retrying once a second.
 */
#define TRACECTL_WAIT_FILE "wait"
#define TRACECTL_WAIT_READY 1u

struct tracectl_wait_page {
	uint32_t state;
};

static_assert(sizeof(struct tracectl_msg_event) <= TRACECTL_ABI_MSG_MAX, "event message too big");
static_assert(sizeof(struct tracectl_msg_event_filter) <= TRACECTL_ABI_MSG_MAX,
	      "filter message too big");
static_assert(sizeof(struct tracectl_msg_enum) <= TRACECTL_ABI_MSG_MAX, "enum message too big");
static_assert(sizeof(struct tracectl_msg_channel_app_contexts) <= TRACECTL_ABI_MSG_MAX,
	      "application contexts message too big");
static_assert(sizeof(struct tracectl_msg_app_context) == 152, "ABI size changed");
static_assert(sizeof(struct tracectl_msg_channel_perf_counters) == 16 + 16 + 16 * 16,
	      "ABI size changed");
static_assert(sizeof(struct tracectl_abi_enum_entry) == 88, "ABI size changed");
static_assert(sizeof(struct tracectl_msg_register) == 56, "ABI size changed");
static_assert(sizeof(struct tracectl_abi_field) == 56, "ABI size changed");

#endif /* TRACECTL_ABI_H */
