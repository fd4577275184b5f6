/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracectl tracepoints: the public API of libtracectl-ust.
 *
 * A provider header declares events:
 *
 *   #include <tracectl/tracepoint.h>
 *   TRACECTL_EVENT(example, all_types,
 *           TRACECTL_ARGS(uint64_t, i, const char *, msg),
 *           TRACECTL_FIELDS(
 *                   tracectl_field_integer(uint64_t, seq, i),
 *                   tracectl_field_double(half, i * 0.5),
 *                   tracectl_field_string(str, msg)))
 *
 * Exactly one .c file of each module (executable or shared object) defines
 * TRACECTL_CREATE_PROBES before including its provider headers (and before
 * any other include of this header). That file holds the event descriptors
 * and the probe functions, and registers them with libtracectl-ust from a
 * constructor. Every file may then call:
 *
 *   tracectl_tracepoint(example, all_types, i, "hello");
 *
 * An enumeration names an integer's values and ranges of values once per
 * provider, before the events that use it; fields of any of the module's
 * events then record a value of it, at the cost of an integer field:
 *
 *   TRACECTL_ENUM(example, state,
 *           TRACECTL_ENUM_VALUES(
 *                   tracectl_enum_value("idle", 0),
 *                   tracectl_enum_range("busy", 1, 5),
 *                   tracectl_enum_auto("done")))
 *   TRACECTL_EVENT(example, transition,
 *           TRACECTL_ARGS(int, from, int, to),
 *           TRACECTL_FIELDS(
 *                   tracectl_field_enum(example, state, uint8_t, from, from),
 *                   tracectl_field_enum(example, state, int64_t, to, to)))
 *
 * A disabled tracepoint costs one load and one predicted branch; its
 * argument expressions are not evaluated. Enabled, the probe evaluates the
 * field expressions and writes one record into each channel that enabled
 * the event, without locks, system calls or allocation.
 *
 * Limits: 1 to 10 (type, name) argument pairs, 1 to TRACECTL_FIELDS_MAX
 * fields, field names [A-Za-z][A-Za-z0-9_]* (unique within the event),
 * provider and event names [A-Za-z0-9_]+ ("provider:event" shorter than 128
 * bytes). Events that break the naming rules are not registered.
 *
 * Field kinds:
 *   tracectl_field_integer(type, name, expr)  int8_t..int64_t, uint8_t..uint64_t
 *   tracectl_field_integer_hex(type, name, expr), tracectl_field_integer_oct(...)
 *                                             the same, shown in base 16 or 8
 *   tracectl_field_integer_network(type, name, expr), ..._network_hex(...)
 *                                             stored in network byte order
 *                                             (filters cannot read these)
 *   tracectl_field_float(name, expr)          IEEE 754 binary32
 *   tracectl_field_double(name, expr)         IEEE 754 binary64
 *   tracectl_field_string(name, expr)         NUL-terminated; NULL gives "(null)"
 *   tracectl_field_string_max(name, expr, max)  at most max bytes of it (a
 *                                             constant, 1 to 4096), cut at a
 *                                             byte, not a character
 *   tracectl_field_bytes(name, ptr, len)      uint32 length, then the bytes;
 *                                             len is capped at TRACECTL_BYTES_LENGTH_MAX
 *   tracectl_field_array(type, name, src, length)
 *                                             length (a constant, 1 to
 *                                             TRACECTL_ARRAY_LENGTH_MAX) integers
 *                                             of type read from src
 *   tracectl_field_array_hex(...), tracectl_field_array_oct(...)
 *                                             the same, shown in base 16 or 8
 *   tracectl_field_array_network(...), ..._network_hex(...)
 *                                             integers src holds in network
 *                                             byte order, recorded as they are
 *   tracectl_field_array_text(type, name, src, length)
 *                                             length bytes (type: char, int8_t or
 *                                             uint8_t) shown as UTF-8 text, up to
 *                                             the first NUL
 *   tracectl_field_array_double(name, src, length), ..._array_float(...)
 *                                             length doubles or floats
 *   tracectl_field_sequence(type, name, src, length), and _hex, _oct,
 *   _network, _network_hex, _text, _double, _float as for arrays
 *                                             uint32 length, then that many
 *                                             elements; length is given at the
 *                                             call and capped at
 *                                             TRACECTL_SEQUENCE_LENGTH_MAX; a NULL
 *                                             src gives an empty sequence
 *   tracectl_field_enum(provider, enum, type, name, expr)
 *                                             a value of the enumeration
 *                                             provider:enum (TRACECTL_ENUM),
 *                                             stored as an integer of type
 *                                             (int8_t..uint64_t), which must hold
 *                                             each of its ranges; readers show it
 *                                             by the labels of the ranges that hold
 *                                             it, and a value in none without one
 * Enumeration entries (TRACECTL_ENUM_VALUES, 1 to TRACECTL_ENUM_ENTRIES_MAX
 * of them, in a list as fields are):
 *   tracectl_enum_value(label, value)         one value
 *   tracectl_enum_range(label, begin, end)    begin to end, both included
 *   tracectl_enum_auto(label)                 the value after the previous
 *                                             entry's end (0 first), as a C enum
 * Values are integer constants, negative ones read as int64_t and the others
 * as uint64_t; a range's begin is at most its end (a range the wrong way
 * round fails to compile: "size of array is negative"). Labels are
 * UTF-8 without control characters, 1 to TRACECTL_ENUM_LABEL_MAX bytes;
 * they need not be unique, and ranges may overlap. An enumeration or an
 * event that breaks these rules, or whose field's type cannot hold an
 * entry, is not registered.
 * An array's src must point at length elements. A record larger than a
 * sub-buffer is not written but counted as discarded.
 * Record layout in the ring buffer: the event header (id, timestamp), then
 * every field in order, packed.
 *
 * SDT probes. A file built with TRACECTL_SDT defined (before it includes
 * this header; -DTRACECTL_SDT for a whole program) gives each of its
 * tracepoint call sites a SystemTap SDT probe too, provider PROVIDER and
 * name NAME as LTTng-UST names its own, carrying the tracepoint's
 * arguments as the event declares them, so that perf (`perf probe -x
 * PROGRAM sdt_PROVIDER:NAME`), bpftrace (`usdt:PROGRAM:PROVIDER:NAME`),
 * SystemTap and gdb (`info probes`) attach where tracectl records, whether
 * tracectl records the event or not. It needs <sys/sdt.h> (Debian:
 * systemtap-sdt-dev). A probe is a nop and an ELF note. Each argument is
 * evaluated once, and the probe sees the values tracectl records from;
 * but it is evaluated at every pass, recorded or not, since the probe's
 * operands must hold it. Defining _SDT_HAS_SEMAPHORES too, before any
 * include (sys/sdt.h's own switch: the file's other SDT probes then need
 * semaphores as well), gives each probe a semaphore that the tools raise
 * while attached: a tracepoint then evaluates its arguments only while a
 * tool is attached or tracectl records the event, and
 * tracectl_tracepoint_enabled() is true in both cases; a tool that does not
 * raise semaphores sees no call. An event's argument types must be scalars
 * (integers, floating point, pointers). Without TRACECTL_SDT nothing of it
 * is compiled.
 */
#ifndef TRACECTL_TRACEPOINT_H
#define TRACECTL_TRACEPOINT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef TRACECTL_SDT
#include <sys/sdt.h> /* outside extern "C": its C++ part holds templates */
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
#define _TRACECTL_STATIC_ASSERT(_condition, _message) static_assert(_condition, _message)
#else
#define _TRACECTL_STATIC_ASSERT(_condition, _message) _Static_assert(_condition, _message)
#endif

/* Version 2: string pieces come with TRACECTL_UST_PIECE_STRING for a
 * length. Version 3: events end with field_enums. A library accepts the
 * versions it knows; an older one refuses a newer module's events, which
 * then stay untraced. */
#define TRACECTL_UST_API_VERSION 3u
#define TRACECTL_FIELDS_MAX 32u
#define TRACECTL_BYTES_LENGTH_MAX 65536u
/* Element counts of arrays and sequences, as bytes' length is bounded. */
#define TRACECTL_ARRAY_LENGTH_MAX 65536u
#define TRACECTL_SEQUENCE_LENGTH_MAX 65536u
/* An enumeration's entries, and the bytes of a label without its NUL. */
#define TRACECTL_ENUM_ENTRIES_MAX 1024u
#define TRACECTL_ENUM_LABEL_MAX 63u

/* Log levels: syslog's 0..7, then finer debug levels as in LTTng. */
enum tracectl_loglevel {
	TRACECTL_LOGLEVEL_EMERG = 0,
	TRACECTL_LOGLEVEL_ALERT = 1,
	TRACECTL_LOGLEVEL_CRIT = 2,
	TRACECTL_LOGLEVEL_ERR = 3,
	TRACECTL_LOGLEVEL_WARNING = 4,
	TRACECTL_LOGLEVEL_NOTICE = 5,
	TRACECTL_LOGLEVEL_INFO = 6,
	TRACECTL_LOGLEVEL_DEBUG_SYSTEM = 7,
	TRACECTL_LOGLEVEL_DEBUG_PROGRAM = 8,
	TRACECTL_LOGLEVEL_DEBUG_PROCESS = 9,
	TRACECTL_LOGLEVEL_DEBUG_MODULE = 10,
	TRACECTL_LOGLEVEL_DEBUG_UNIT = 11,
	TRACECTL_LOGLEVEL_DEBUG_FUNCTION = 12,
	TRACECTL_LOGLEVEL_DEBUG_LINE = 13,
	TRACECTL_LOGLEVEL_DEBUG = 14,
};
#define TRACECTL_LOGLEVEL_DEFAULT TRACECTL_LOGLEVEL_DEBUG_LINE

/* The values of enum tracectl_field_type of the wire ABI. */
enum tracectl_ust_field_type {
	TRACECTL_UST_FIELD_SIGNED = 1,
	TRACECTL_UST_FIELD_UNSIGNED = 2,
	TRACECTL_UST_FIELD_DOUBLE = 3,
	TRACECTL_UST_FIELD_STRING = 4,
	TRACECTL_UST_FIELD_BYTES = 5,
	TRACECTL_UST_FIELD_FLOAT = 6,
	TRACECTL_UST_FIELD_ARRAY = 7,
	TRACECTL_UST_FIELD_SEQUENCE = 8,
	TRACECTL_UST_FIELD_ENUM = 9,
};

/* Attributes of an integer field, above its kind in its type word. */
#define TRACECTL_UST_FIELD_HEX 0x100u        /* shown in base 16 */
#define TRACECTL_UST_FIELD_OCT 0x200u        /* shown in base 8 */
#define TRACECTL_UST_FIELD_BIG_ENDIAN 0x400u /* stored in network byte order */
#define TRACECTL_UST_FIELD_TEXT 0x800u       /* one-byte elements shown as text */
/* An array's or a sequence's element, in its type word: kind and bytes. */
#define TRACECTL_UST_FIELD_ELEMENT(kind, size)                                              \
	((uint32_t)(kind) << 16 | (uint32_t)(size) << 24)

struct tracectl_ust_field {
	const char *name;
	/* enum tracectl_ust_field_type, with integer attributes; an array's,
	 * a sequence's element and an enumeration's container in
	 * TRACECTL_UST_FIELD_ELEMENT() */
	uint32_t type;
	/* bytes for integers, float and double, an array's element count, 0
	 * otherwise */
	uint32_t size;
};

/* An enumeration entry's flags. */
#define TRACECTL_UST_ENUM_SIGNED 0x1u /* begin and end are int64_t's bits */
#define TRACECTL_UST_ENUM_AUTO 0x2u   /* the value after the previous entry's end */

struct tracectl_ust_enum_entry {
	const char *label;
	uint64_t begin;
	uint64_t end;
	uint32_t flags;
};

/* An enumeration, defined (hidden) in the module's TRACECTL_CREATE_PROBES
 * file; read by libtracectl-ust only. */
struct tracectl_ust_enum {
	const char *provider;
	const char *name;
	const struct tracectl_ust_enum_entry *entries;
	uint32_t nr_entries;
};

/*
 * An event descriptor, defined (hidden) in the module's TRACECTL_CREATE_PROBES
 * file. enabled is written by libtracectl-ust only: non-zero while at least
 * one channel of an active session records the event. priv belongs to the
 * library.
 */
struct tracectl_ust_event {
	uint32_t enabled;
	int32_t loglevel;
	const char *provider;
	const char *name;
	const struct tracectl_ust_field *fields;
	uint32_t nr_fields;
	void *priv;
	/* Version 3 on: the enumeration of each field, NULL but for
	 * tracectl_field_enum() fields (nr_fields of them). */
	const struct tracectl_ust_enum *const *field_enums;
};

/* One contiguous piece of a record's payload. */
struct tracectl_ust_piece {
	const void *data;
	size_t len;
};

/*
 * The length of a string field's piece as the probe gives it: data is
 * NUL-terminated and its length is not known yet. A filter that rejects
 * the event then costs no strlen(): it compares the string bounded by its
 * literal; the library measures the string (and its NUL) only once the
 * event is to be recorded.
 */
#define TRACECTL_UST_PIECE_STRING ((size_t)-1)

#define TRACECTL_UST_EXPORT __attribute__((visibility("default")))

/*
 * Writes one record of event, made of the pieces in order, into every
 * channel that enabled it. Called by the generated probe functions only.
 * Lock-free, async-signal-safe, never fails visibly: losses are counted in
 * the buffers. Replaces each TRACECTL_UST_PIECE_STRING length with the
 * string's length and NUL when a record is written.
 */
TRACECTL_UST_EXPORT void tracectl_ust_emit(struct tracectl_ust_event *event,
					   struct tracectl_ust_piece *pieces,
					   unsigned int nr_pieces);
/* The same, with ip, the address the tracepoint's call returns to, for
 * the ip context; what the probes of this header call. */
TRACECTL_UST_EXPORT void tracectl_ust_emit_ip(struct tracectl_ust_event *event,
					      struct tracectl_ust_piece *pieces,
					      unsigned int nr_pieces, const void *ip);
/*
 * Tell the library that the process's user or group ids changed
 * (setresuid(), setgid()...), or that the calling thread's namespaces did
 * (setns(), unshare()): each thread reads them again at its next event
 * that records them. libtracectl-ust-setid calls them from its wrappers
 * of these functions; a program that does not load it calls them itself
 * after such a change. Lock-free and async-signal-safe.
 */
TRACECTL_UST_EXPORT void tracectl_ust_ids_changed(void);
TRACECTL_UST_EXPORT void tracectl_ust_namespaces_changed(void);
/*
 * Adds events to the library's table and, when the service is there, waits
 * until it has applied its sessions to them (at most
 * TRACECTL_UST_REGISTER_TIMEOUT ms). Called from module constructors.
 * Returns 0, or a negative errno (-EINVAL for an API version mismatch,
 * -ETIMEDOUT when the wait timed out); events stay untraced on failure.
 */
TRACECTL_UST_EXPORT int tracectl_ust_register_provider(uint32_t api_version,
						       struct tracectl_ust_event *const *events,
						       size_t nr_events);
/* Forgets events whose module is going away (dlclose). */
TRACECTL_UST_EXPORT void tracectl_ust_unregister_provider(struct tracectl_ust_event *const *events,
							  size_t nr_events);

/* Preprocessor helpers. */
#define _TRACECTL_EXPAND(...) __VA_ARGS__

#define _TRACECTL_NARGS(...) _TRACECTL_NARGS_(__VA_ARGS__, 64, 63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)
#define _TRACECTL_NARGS_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29, _30, _31, _32, _33, _34, _35, _36, _37, _38, _39, _40, _41, _42, _43, _44, _45, _46, _47, _48, _49, _50, _51, _52, _53, _54, _55, _56, _57, _58, _59, _60, _61, _62, _63, _64, n, ...) n
#define _TRACECTL_CAT(a, b) _TRACECTL_CAT_(a, b)
#define _TRACECTL_CAT_(a, b) a##b

/* _TRACECTL_FOR_EACH(m, x, a, b, ...): m(x, a) m(x, b) ..., up to 32 items. */
#define _TRACECTL_FOR_EACH(m, x, ...) \
	_TRACECTL_CAT(_TRACECTL_FE_, _TRACECTL_NARGS(__VA_ARGS__))(m, x, __VA_ARGS__)
#define _TRACECTL_FE_1(m, x, a) m(x, a)
#define _TRACECTL_FE_2(m, x, a, ...) m(x, a) _TRACECTL_FE_1(m, x, __VA_ARGS__)
#define _TRACECTL_FE_3(m, x, a, ...) m(x, a) _TRACECTL_FE_2(m, x, __VA_ARGS__)
#define _TRACECTL_FE_4(m, x, a, ...) m(x, a) _TRACECTL_FE_3(m, x, __VA_ARGS__)
#define _TRACECTL_FE_5(m, x, a, ...) m(x, a) _TRACECTL_FE_4(m, x, __VA_ARGS__)
#define _TRACECTL_FE_6(m, x, a, ...) m(x, a) _TRACECTL_FE_5(m, x, __VA_ARGS__)
#define _TRACECTL_FE_7(m, x, a, ...) m(x, a) _TRACECTL_FE_6(m, x, __VA_ARGS__)
#define _TRACECTL_FE_8(m, x, a, ...) m(x, a) _TRACECTL_FE_7(m, x, __VA_ARGS__)
#define _TRACECTL_FE_9(m, x, a, ...) m(x, a) _TRACECTL_FE_8(m, x, __VA_ARGS__)
#define _TRACECTL_FE_10(m, x, a, ...) m(x, a) _TRACECTL_FE_9(m, x, __VA_ARGS__)
#define _TRACECTL_FE_11(m, x, a, ...) m(x, a) _TRACECTL_FE_10(m, x, __VA_ARGS__)
#define _TRACECTL_FE_12(m, x, a, ...) m(x, a) _TRACECTL_FE_11(m, x, __VA_ARGS__)
#define _TRACECTL_FE_13(m, x, a, ...) m(x, a) _TRACECTL_FE_12(m, x, __VA_ARGS__)
#define _TRACECTL_FE_14(m, x, a, ...) m(x, a) _TRACECTL_FE_13(m, x, __VA_ARGS__)
#define _TRACECTL_FE_15(m, x, a, ...) m(x, a) _TRACECTL_FE_14(m, x, __VA_ARGS__)
#define _TRACECTL_FE_16(m, x, a, ...) m(x, a) _TRACECTL_FE_15(m, x, __VA_ARGS__)
#define _TRACECTL_FE_17(m, x, a, ...) m(x, a) _TRACECTL_FE_16(m, x, __VA_ARGS__)
#define _TRACECTL_FE_18(m, x, a, ...) m(x, a) _TRACECTL_FE_17(m, x, __VA_ARGS__)
#define _TRACECTL_FE_19(m, x, a, ...) m(x, a) _TRACECTL_FE_18(m, x, __VA_ARGS__)
#define _TRACECTL_FE_20(m, x, a, ...) m(x, a) _TRACECTL_FE_19(m, x, __VA_ARGS__)
#define _TRACECTL_FE_21(m, x, a, ...) m(x, a) _TRACECTL_FE_20(m, x, __VA_ARGS__)
#define _TRACECTL_FE_22(m, x, a, ...) m(x, a) _TRACECTL_FE_21(m, x, __VA_ARGS__)
#define _TRACECTL_FE_23(m, x, a, ...) m(x, a) _TRACECTL_FE_22(m, x, __VA_ARGS__)
#define _TRACECTL_FE_24(m, x, a, ...) m(x, a) _TRACECTL_FE_23(m, x, __VA_ARGS__)
#define _TRACECTL_FE_25(m, x, a, ...) m(x, a) _TRACECTL_FE_24(m, x, __VA_ARGS__)
#define _TRACECTL_FE_26(m, x, a, ...) m(x, a) _TRACECTL_FE_25(m, x, __VA_ARGS__)
#define _TRACECTL_FE_27(m, x, a, ...) m(x, a) _TRACECTL_FE_26(m, x, __VA_ARGS__)
#define _TRACECTL_FE_28(m, x, a, ...) m(x, a) _TRACECTL_FE_27(m, x, __VA_ARGS__)
#define _TRACECTL_FE_29(m, x, a, ...) m(x, a) _TRACECTL_FE_28(m, x, __VA_ARGS__)
#define _TRACECTL_FE_30(m, x, a, ...) m(x, a) _TRACECTL_FE_29(m, x, __VA_ARGS__)
#define _TRACECTL_FE_31(m, x, a, ...) m(x, a) _TRACECTL_FE_30(m, x, __VA_ARGS__)
#define _TRACECTL_FE_32(m, x, a, ...) m(x, a) _TRACECTL_FE_31(m, x, __VA_ARGS__)

/* Argument lists: (type, name, ...) pairs, up to 10 pairs. */
#define _TRACECTL_PROTO(...) _TRACECTL_CAT(_TRACECTL_PR_, _TRACECTL_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define _TRACECTL_PR_2(t, n) t n
#define _TRACECTL_PR_4(t, n, ...) t n, _TRACECTL_PR_2(__VA_ARGS__)
#define _TRACECTL_PR_6(t, n, ...) t n, _TRACECTL_PR_4(__VA_ARGS__)
#define _TRACECTL_PR_8(t, n, ...) t n, _TRACECTL_PR_6(__VA_ARGS__)
#define _TRACECTL_PR_10(t, n, ...) t n, _TRACECTL_PR_8(__VA_ARGS__)
#define _TRACECTL_PR_12(t, n, ...) t n, _TRACECTL_PR_10(__VA_ARGS__)
#define _TRACECTL_PR_14(t, n, ...) t n, _TRACECTL_PR_12(__VA_ARGS__)
#define _TRACECTL_PR_16(t, n, ...) t n, _TRACECTL_PR_14(__VA_ARGS__)
#define _TRACECTL_PR_18(t, n, ...) t n, _TRACECTL_PR_16(__VA_ARGS__)
#define _TRACECTL_PR_20(t, n, ...) t n, _TRACECTL_PR_18(__VA_ARGS__)

/* _TRACECTL_APPLY(mode, (kind, ...)) -> _TRACECTL_<mode>_<kind>(...) */
#define _TRACECTL_APPLY(mode, tuple) _TRACECTL_APPLY_(mode, _TRACECTL_EXPAND tuple)
#define _TRACECTL_APPLY_(mode, ...) _TRACECTL_APPLY__(mode, __VA_ARGS__)
#define _TRACECTL_APPLY__(mode, kind, ...) _TRACECTL_##mode##_##kind(__VA_ARGS__)
#define _TRACECTL_FOR_EACH_FIELD(mode, fields) \
	_TRACECTL_FOR_EACH(_TRACECTL_APPLY, mode, _TRACECTL_EXPAND fields)

/* Field constructors: tuples that the modes below take apart. */
#define tracectl_field_integer(type, name, expr) (_tc_integer, type, name, expr, 0)
#define tracectl_field_integer_hex(type, name, expr)                                      \
	(_tc_integer, type, name, expr, TRACECTL_UST_FIELD_HEX)
#define tracectl_field_integer_oct(type, name, expr)                                      \
	(_tc_integer, type, name, expr, TRACECTL_UST_FIELD_OCT)
#define tracectl_field_integer_network(type, name, expr)                                  \
	(_tc_integer, type, name, expr, TRACECTL_UST_FIELD_BIG_ENDIAN)
#define tracectl_field_integer_network_hex(type, name, expr)                              \
	(_tc_integer, type, name, expr, TRACECTL_UST_FIELD_BIG_ENDIAN | TRACECTL_UST_FIELD_HEX)
#define tracectl_field_float(name, expr) (_tc_float, name, expr)
#define tracectl_field_double(name, expr) (_tc_double, name, expr)
#define tracectl_field_string(name, expr) (_tc_string, name, expr)
#define tracectl_field_string_max(name, expr, max) (_tc_string_max, name, expr, max)
#define tracectl_field_bytes(name, ptr, len) (_tc_bytes, name, ptr, len)
#define tracectl_field_array(type, name, src, length) (_tc_array, type, name, src, length, 0)
#define tracectl_field_array_hex(type, name, src, length)                                 \
	(_tc_array, type, name, src, length, TRACECTL_UST_FIELD_HEX)
#define tracectl_field_array_oct(type, name, src, length)                                 \
	(_tc_array, type, name, src, length, TRACECTL_UST_FIELD_OCT)
#define tracectl_field_array_network(type, name, src, length)                             \
	(_tc_array, type, name, src, length, TRACECTL_UST_FIELD_BIG_ENDIAN)
#define tracectl_field_array_network_hex(type, name, src, length)                         \
	(_tc_array, type, name, src, length, TRACECTL_UST_FIELD_BIG_ENDIAN | TRACECTL_UST_FIELD_HEX)
#define tracectl_field_array_text(type, name, src, length)                                \
	(_tc_array, type, name, src, length, TRACECTL_UST_FIELD_TEXT)
#define tracectl_field_array_double(name, src, length)                                    \
	(_tc_array_real, double, name, src, length, TRACECTL_UST_FIELD_DOUBLE)
#define tracectl_field_array_float(name, src, length)                                     \
	(_tc_array_real, float, name, src, length, TRACECTL_UST_FIELD_FLOAT)
#define tracectl_field_sequence(type, name, src, length)                                  \
	(_tc_sequence, type, name, src, length, 0)
#define tracectl_field_sequence_hex(type, name, src, length)                              \
	(_tc_sequence, type, name, src, length, TRACECTL_UST_FIELD_HEX)
#define tracectl_field_sequence_oct(type, name, src, length)                              \
	(_tc_sequence, type, name, src, length, TRACECTL_UST_FIELD_OCT)
#define tracectl_field_sequence_network(type, name, src, length)                          \
	(_tc_sequence, type, name, src, length, TRACECTL_UST_FIELD_BIG_ENDIAN)
#define tracectl_field_sequence_network_hex(type, name, src, length)                      \
	(_tc_sequence, type, name, src, length,                                             \
	 TRACECTL_UST_FIELD_BIG_ENDIAN | TRACECTL_UST_FIELD_HEX)
#define tracectl_field_sequence_text(type, name, src, length)                             \
	(_tc_sequence, type, name, src, length, TRACECTL_UST_FIELD_TEXT)
#define tracectl_field_sequence_double(name, src, length)                                 \
	(_tc_sequence_real, double, name, src, length, TRACECTL_UST_FIELD_DOUBLE)
#define tracectl_field_sequence_float(name, src, length)                                  \
	(_tc_sequence_real, float, name, src, length, TRACECTL_UST_FIELD_FLOAT)
#define tracectl_field_enum(provider, enum_name, type, name, expr)                        \
	(_tc_enum, provider, enum_name, type, name, expr)

/* The longest cap of tracectl_field_string_max(): the string is copied on
 * the probe's stack. */
#define TRACECTL_STRING_MAX_CAP 4096u

/* strnlen(), which C does not have. */
static inline size_t
_tracectl_strnlen(const char *string, size_t max)
{
	const char *nul = (const char *)memchr(string, '\0', max);

	return nul ? (size_t)(nul - string) : max;
}

/* An integer's bytes turned to network order (most significant first) in
 * place, on a machine that stores the least significant first. */
static inline void
_tracectl_to_network_order(void *value, size_t size)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	unsigned char *bytes = (unsigned char *)value;

	for (size_t i = 0; i < size / 2; i++) {
		unsigned char byte = bytes[i];

		bytes[i] = bytes[size - 1 - i];
		bytes[size - 1 - i] = byte;
	}
#else
	(void)value;
	(void)size;
#endif
}

#define TRACECTL_ARGS(...) (__VA_ARGS__)
#define TRACECTL_FIELDS(...) (__VA_ARGS__)

#define _TRACECTL_IS_SIGNED(type) ((type)-1 < (type)1)

/* Mode DESC: one struct tracectl_ust_field per field. */
#define _TRACECTL_DESC__tc_integer(type, name, expr, attributes)                          \
	{ #name,                                                                          \
	  (_TRACECTL_IS_SIGNED(type) ? TRACECTL_UST_FIELD_SIGNED : TRACECTL_UST_FIELD_UNSIGNED) | \
		  (attributes),                                                           \
	  sizeof(type) },
#define _TRACECTL_DESC__tc_float(name, expr) { #name, TRACECTL_UST_FIELD_FLOAT, sizeof(float) },
#define _TRACECTL_DESC__tc_double(name, expr) { #name, TRACECTL_UST_FIELD_DOUBLE, sizeof(double) },
#define _TRACECTL_DESC__tc_string(name, expr) { #name, TRACECTL_UST_FIELD_STRING, 0 },
#define _TRACECTL_DESC__tc_string_max(name, expr, max) { #name, TRACECTL_UST_FIELD_STRING, 0 },
#define _TRACECTL_DESC__tc_bytes(name, ptr, len) { #name, TRACECTL_UST_FIELD_BYTES, 0 },
#define _TRACECTL_INTEGER_ELEMENT(type)                                                    \
	TRACECTL_UST_FIELD_ELEMENT(_TRACECTL_IS_SIGNED(type) ? TRACECTL_UST_FIELD_SIGNED         \
							     : TRACECTL_UST_FIELD_UNSIGNED,      \
				   sizeof(type))
#define _TRACECTL_DESC__tc_array(type, name, src, length, attributes)                     \
	{ #name, TRACECTL_UST_FIELD_ARRAY | _TRACECTL_INTEGER_ELEMENT(type) | (attributes),  \
	  (uint32_t)(length) },
#define _TRACECTL_DESC__tc_array_real(type, name, src, length, kind)                      \
	{ #name, TRACECTL_UST_FIELD_ARRAY | TRACECTL_UST_FIELD_ELEMENT(kind, sizeof(type)),  \
	  (uint32_t)(length) },
#define _TRACECTL_DESC__tc_sequence(type, name, src, length, attributes)                  \
	{ #name, TRACECTL_UST_FIELD_SEQUENCE | _TRACECTL_INTEGER_ELEMENT(type) | (attributes), 0 },
#define _TRACECTL_DESC__tc_sequence_real(type, name, src, length, kind)                   \
	{ #name, TRACECTL_UST_FIELD_SEQUENCE | TRACECTL_UST_FIELD_ELEMENT(kind, sizeof(type)), 0 },
#define _TRACECTL_DESC__tc_enum(provider, enum_name, type, name, expr)                      \
	{ #name, TRACECTL_UST_FIELD_ENUM | _TRACECTL_INTEGER_ELEMENT(type), 0 },

/* Mode ENUMS: each field's enumeration, NULL but for enumerations. */
#define _TRACECTL_ENUMS__tc_integer(type, name, expr, attributes) NULL,
#define _TRACECTL_ENUMS__tc_float(name, expr) NULL,
#define _TRACECTL_ENUMS__tc_double(name, expr) NULL,
#define _TRACECTL_ENUMS__tc_string(name, expr) NULL,
#define _TRACECTL_ENUMS__tc_string_max(name, expr, max) NULL,
#define _TRACECTL_ENUMS__tc_bytes(name, ptr, len) NULL,
#define _TRACECTL_ENUMS__tc_array(type, name, src, length, attributes) NULL,
#define _TRACECTL_ENUMS__tc_array_real(type, name, src, length, kind) NULL,
#define _TRACECTL_ENUMS__tc_sequence(type, name, src, length, attributes) NULL,
#define _TRACECTL_ENUMS__tc_sequence_real(type, name, src, length, kind) NULL,
#define _TRACECTL_ENUMS__tc_enum(provider, enum_name, type, name, expr)                     \
	&_TRACECTL_ENUM_SYMBOL(provider, enum_name),

/* Mode CHECK: compile-time checks of each field's type. */
#define _TRACECTL_CHECK__tc_integer(type, name, expr, attributes)                         \
	_TRACECTL_STATIC_ASSERT(sizeof(type) == 1 || sizeof(type) == 2 || sizeof(type) == 4 ||  \
					sizeof(type) == 8,                                       \
				"tracectl: integer field " #name " must be 1, 2, 4 or 8 bytes"); \
	_TRACECTL_STATIC_ASSERT((type)0.5 == (type)0,                                       \
				"tracectl: field " #name " is not an integer");
#define _TRACECTL_CHECK__tc_float(name, expr)                                             \
	_TRACECTL_STATIC_ASSERT(sizeof(float) == 4, "tracectl: float is not binary32");
#define _TRACECTL_CHECK__tc_double(name, expr)
#define _TRACECTL_CHECK__tc_string(name, expr)
#define _TRACECTL_CHECK__tc_string_max(name, expr, max)                                   \
	_TRACECTL_STATIC_ASSERT((max) >= 1 && (max) <= TRACECTL_STRING_MAX_CAP,             \
				"tracectl: string field " #name "'s cap must be 1 to 4096");
#define _TRACECTL_CHECK__tc_bytes(name, ptr, len)
#define _TRACECTL_CHECK__tc_array(type, name, src, length, attributes)                    \
	_TRACECTL_CHECK__tc_integer(type, name, 0, attributes)                             \
	_TRACECTL_STATIC_ASSERT((length) >= 1 && (length) <= TRACECTL_ARRAY_LENGTH_MAX,      \
				"tracectl: array field " #name "'s length must be 1 to 65536"); \
	_TRACECTL_STATIC_ASSERT(!((attributes) & TRACECTL_UST_FIELD_TEXT) || sizeof(type) == 1, \
				"tracectl: text field " #name " must have 1-byte elements");
#define _TRACECTL_CHECK__tc_array_real(type, name, src, length, kind)                     \
	_TRACECTL_STATIC_ASSERT(sizeof(float) == 4, "tracectl: float is not binary32");     \
	_TRACECTL_STATIC_ASSERT((length) >= 1 && (length) <= TRACECTL_ARRAY_LENGTH_MAX,      \
				"tracectl: array field " #name "'s length must be 1 to 65536");
#define _TRACECTL_CHECK__tc_sequence(type, name, src, length, attributes)                 \
	_TRACECTL_CHECK__tc_integer(type, name, 0, attributes)                             \
	_TRACECTL_STATIC_ASSERT(!((attributes) & TRACECTL_UST_FIELD_TEXT) || sizeof(type) == 1, \
				"tracectl: text field " #name " must have 1-byte elements");
#define _TRACECTL_CHECK__tc_sequence_real(type, name, src, length, kind)                  \
	_TRACECTL_STATIC_ASSERT(sizeof(float) == 4, "tracectl: float is not binary32");
#define _TRACECTL_CHECK__tc_enum(provider, enum_name, type, name, expr)                     \
	_TRACECTL_CHECK__tc_integer(type, name, expr, 0)

/* Mode PIECES: evaluate each field once, point a payload piece at it.
 * Strings are measured later, if at all (TRACECTL_UST_PIECE_STRING); a
 * capped one is copied, cut, to the stack, so that its piece holds the
 * NUL-terminated string the record holds. */
#define _TRACECTL_PIECES__tc_integer(type, name, expr, attributes)                        \
	type _tc_value_##name = (type)(expr);                                              \
	if ((attributes) & TRACECTL_UST_FIELD_BIG_ENDIAN)                                  \
		_tracectl_to_network_order(&_tc_value_##name, sizeof(type));               \
	_tc_pieces[_tc_count++] = (struct tracectl_ust_piece){ &_tc_value_##name, sizeof(type) };
#define _TRACECTL_PIECES__tc_float(name, expr)                                            \
	float _tc_value_##name = (float)(expr);                                            \
	_tc_pieces[_tc_count++] = (struct tracectl_ust_piece){ &_tc_value_##name, sizeof(float) };
#define _TRACECTL_PIECES__tc_string_max(name, expr, max)                                  \
	const char *_tc_source_##name = (expr);                                            \
	char _tc_string_##name[(max) + 1];                                                 \
	size_t _tc_length_##name;                                                          \
	if (!_tc_source_##name)                                                            \
		_tc_source_##name = "(null)";                                              \
	_tc_length_##name = _tracectl_strnlen(_tc_source_##name, (max));                  \
	memcpy(_tc_string_##name, _tc_source_##name, _tc_length_##name);                   \
	_tc_string_##name[_tc_length_##name] = '\0';                                       \
	_tc_pieces[_tc_count++] =                                                          \
		(struct tracectl_ust_piece){ _tc_string_##name, _tc_length_##name + 1 };
#define _TRACECTL_PIECES__tc_double(name, expr)                                           \
	double _tc_value_##name = (double)(expr);                                          \
	_tc_pieces[_tc_count++] = (struct tracectl_ust_piece){ &_tc_value_##name, sizeof(double) };
#define _TRACECTL_PIECES__tc_string(name, expr)                                           \
	const char *_tc_string_##name = (expr);                                            \
	if (!_tc_string_##name)                                                            \
		_tc_string_##name = "(null)";                                              \
	_tc_pieces[_tc_count++] =                                                          \
		(struct tracectl_ust_piece){ _tc_string_##name, TRACECTL_UST_PIECE_STRING };
#define _TRACECTL_PIECES__tc_bytes(name, ptr, len)                                        \
	const void *_tc_bytes_##name = (ptr);                                              \
	size_t _tc_size_##name = (size_t)(len);                                            \
	uint32_t _tc_length_##name;                                                        \
	if (!_tc_bytes_##name)                                                             \
		_tc_size_##name = 0;                                                       \
	if (_tc_size_##name > TRACECTL_BYTES_LENGTH_MAX)                                   \
		_tc_size_##name = TRACECTL_BYTES_LENGTH_MAX;                               \
	_tc_length_##name = (uint32_t)_tc_size_##name;                                     \
	_tc_pieces[_tc_count++] =                                                          \
		(struct tracectl_ust_piece){ &_tc_length_##name, sizeof(uint32_t) };       \
	_tc_pieces[_tc_count++] = (struct tracectl_ust_piece){ _tc_bytes_##name, _tc_size_##name };

/* Arrays: one piece, the caller's elements as they are. Sequences: their
 * capped length, then the elements, as bytes are. */
#define _TRACECTL_PIECES__tc_array(type, name, src, length, attributes)                   \
	const type *_tc_array_##name = (src);                                              \
	_tc_pieces[_tc_count++] =                                                          \
		(struct tracectl_ust_piece){ _tc_array_##name, (size_t)(length) * sizeof(type) };
#define _TRACECTL_PIECES__tc_array_real(type, name, src, length, kind)                    \
	_TRACECTL_PIECES__tc_array(type, name, src, length, 0)
#define _TRACECTL_PIECES__tc_sequence(type, name, src, length, attributes)                \
	const type *_tc_sequence_##name = (src);                                           \
	size_t _tc_elements_##name = (size_t)(length);                                     \
	uint32_t _tc_length_##name;                                                        \
	if (!_tc_sequence_##name)                                                          \
		_tc_elements_##name = 0;                                                   \
	if (_tc_elements_##name > TRACECTL_SEQUENCE_LENGTH_MAX)                            \
		_tc_elements_##name = TRACECTL_SEQUENCE_LENGTH_MAX;                        \
	_tc_length_##name = (uint32_t)_tc_elements_##name;                                 \
	_tc_pieces[_tc_count++] =                                                          \
		(struct tracectl_ust_piece){ &_tc_length_##name, sizeof(uint32_t) };       \
	_tc_pieces[_tc_count++] = (struct tracectl_ust_piece){                             \
		_tc_sequence_##name, _tc_elements_##name * sizeof(type) };
#define _TRACECTL_PIECES__tc_sequence_real(type, name, src, length, kind)                 \
	_TRACECTL_PIECES__tc_sequence(type, name, src, length, 0)
/* An enumeration's value is its container integer's: the same code, no
 * lookup of its label (readers find it in the metadata). */
#define _TRACECTL_PIECES__tc_enum(provider, enum_name, type, name, expr)                    \
	_TRACECTL_PIECES__tc_integer(type, name, expr, 0)

/* Enumerations. An entry's values are kept as uint64_t bits, with
 * TRACECTL_UST_ENUM_SIGNED when its begin is negative (both are then read
 * as int64_t). _TRACECTL_IS_NEGATIVE() tests a constant of any type
 * without comparing an unsigned one with 0, which compilers warn of. A
 * range the wrong way round, or a negative begin before an end past
 * INT64_MAX, or a label longer than TRACECTL_ENUM_LABEL_MAX makes an
 * array of negative size: C has no assertion inside an initializer. */
#define _TRACECTL_IS_NEGATIVE(value) ((value) < 1 && (value) != 0)
#define _TRACECTL_ENUM_RANGE_IS_VALID(begin, end)                                           \
	(_TRACECTL_IS_NEGATIVE(begin)                                                        \
		 ? (_TRACECTL_IS_NEGATIVE(end) || (uint64_t)(end) <= (uint64_t)INT64_MAX) &&   \
			   (int64_t)(begin) <= (int64_t)(end)                                \
		 : !_TRACECTL_IS_NEGATIVE(end) && (uint64_t)(begin) <= (uint64_t)(end))
#define _TRACECTL_ENUM_CHECKED(value, is_valid)                                             \
	((uint64_t)(value) + 0 * sizeof(char[(is_valid) ? 1 : -1]))
#define tracectl_enum_range(label, begin, end)                                              \
	{ (label), (uint64_t)(begin),                                                       \
	  _TRACECTL_ENUM_CHECKED(end, _TRACECTL_ENUM_RANGE_IS_VALID(begin, end) &&            \
					      sizeof(label) <= TRACECTL_ENUM_LABEL_MAX + 1),  \
	  _TRACECTL_IS_NEGATIVE(begin) ? TRACECTL_UST_ENUM_SIGNED : 0u }
#define tracectl_enum_value(label, value) tracectl_enum_range(label, value, value)
#define tracectl_enum_auto(label)                                                           \
	{ (label), _TRACECTL_ENUM_CHECKED(0, sizeof(label) <= TRACECTL_ENUM_LABEL_MAX + 1), 0, \
	  TRACECTL_UST_ENUM_AUTO }
#define TRACECTL_ENUM_VALUES(...) (__VA_ARGS__)

#define _TRACECTL_ENUM_SYMBOL(_provider, _name) __tracectl_enum__##_provider##__##_name
#define _TRACECTL_ENUM_DECLARE(_provider, _name)                                             \
	extern const struct tracectl_ust_enum _TRACECTL_ENUM_SYMBOL(_provider, _name)           \
		__attribute__((visibility("hidden")));

#ifdef TRACECTL_SDT
/*
 * SDT probes (TRACECTL_SDT), and why they are where they are.
 *
 * Not in the probe function (__tracectl_probe__*): tracectl calls it only
 * while it records the event, and it is one place for all the calls. Nor
 * STAP_PROBEn of the call's own expressions beside the enabled check, as
 * LTTng-UST's tracepoint() has it: sys/sdt.h computes a probe's operands
 * in place, so an argument would be evaluated once for the probe and once
 * more for the probe function while the event is recorded, and each would
 * be typed by its expression (a literal 42 is an int) instead of by the
 * event's declaration.
 *
 * So every file that includes a provider header gets, per event, an
 * always-inlined function __tracectl_sdt__PROVIDER__NAME of the event's
 * declared arguments. Calling it converts and evaluates each argument
 * once, as calling the probe function does; its body puts the probe on
 * those values, then does with them what a tracepoint without SDT does
 * (_TRACECTL_TRACEPOINT). Inlined, each call site has its own nop and
 * note, where the tools put their breakpoints. Events have at most 10
 * arguments, within the 12 sys/sdt.h takes; STAP_PROBEn is picked by
 * their count, as STAP_PROBEV exists only where SDT_USE_VARIADIC was
 * defined before <sys/sdt.h> was first included, which a program's own
 * includes may have done otherwise.
 *
 * Semaphores, when the file defines _SDT_HAS_SEMAPHORES (sys/sdt.h's
 * switch, which holds for all the probes of the file): each note names
 * PROVIDER_NAME_semaphore, the name sys/sdt.h and dtrace give it, which
 * the tools raise while attached (perf through the kernel's uprobe
 * reference counters, Linux 4.20 and later; bpftrace, SystemTap, gdb). The
 * call site calls the function only when the semaphore or the enabled
 * flag is set, so that a tracepoint nobody is attached to and tracectl
 * does not record evaluates nothing, as without SDT. Each file defines the
 * semaphore weak and hidden: the files of a module share one, whichever
 * of them are built with the defines, and no file has to define it. It
 * lies in section .probes, where perf looks for semaphores to find their
 * offset in the file. Two events whose names join the same way (a_b:c and
 * a:b_c) share one, which costs the other an evaluation of its arguments
 * while a tool is attached, no more. LTTng-UST's probes have no semaphore.
 */
#define _TRACECTL_SDT_SYMBOL(_provider, _name) __tracectl_sdt__##_provider##__##_name
#define _TRACECTL_SDT_PROBE(provider, name, ...) \
	_TRACECTL_CAT(STAP_PROBE, _TRACECTL_NARGS(__VA_ARGS__))(provider, name, __VA_ARGS__)

/* The function's parameters: the event's types with names of ours, so
 * that an argument's own name can shadow nothing of the including file.
 * _TRACECTL_SDT_PARAMS(t1, n1, t2, n2) is "t1 _tc_arg_2, t2 _tc_arg_1",
 * _TRACECTL_SDT_NAMES(t1, n1, t2, n2) is "_tc_arg_2, _tc_arg_1". */
#define _TRACECTL_SDT_PARAMS(...) \
	_TRACECTL_CAT(_TRACECTL_SP_, _TRACECTL_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define _TRACECTL_SP_2(t, n) t _tc_arg_1
#define _TRACECTL_SP_4(t, n, ...) t _tc_arg_2, _TRACECTL_SP_2(__VA_ARGS__)
#define _TRACECTL_SP_6(t, n, ...) t _tc_arg_3, _TRACECTL_SP_4(__VA_ARGS__)
#define _TRACECTL_SP_8(t, n, ...) t _tc_arg_4, _TRACECTL_SP_6(__VA_ARGS__)
#define _TRACECTL_SP_10(t, n, ...) t _tc_arg_5, _TRACECTL_SP_8(__VA_ARGS__)
#define _TRACECTL_SP_12(t, n, ...) t _tc_arg_6, _TRACECTL_SP_10(__VA_ARGS__)
#define _TRACECTL_SP_14(t, n, ...) t _tc_arg_7, _TRACECTL_SP_12(__VA_ARGS__)
#define _TRACECTL_SP_16(t, n, ...) t _tc_arg_8, _TRACECTL_SP_14(__VA_ARGS__)
#define _TRACECTL_SP_18(t, n, ...) t _tc_arg_9, _TRACECTL_SP_16(__VA_ARGS__)
#define _TRACECTL_SP_20(t, n, ...) t _tc_arg_10, _TRACECTL_SP_18(__VA_ARGS__)
#define _TRACECTL_SDT_NAMES(...) \
	_TRACECTL_CAT(_TRACECTL_SN_, _TRACECTL_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define _TRACECTL_SN_2(t, n) _tc_arg_1
#define _TRACECTL_SN_4(t, n, ...) _tc_arg_2, _TRACECTL_SN_2(__VA_ARGS__)
#define _TRACECTL_SN_6(t, n, ...) _tc_arg_3, _TRACECTL_SN_4(__VA_ARGS__)
#define _TRACECTL_SN_8(t, n, ...) _tc_arg_4, _TRACECTL_SN_6(__VA_ARGS__)
#define _TRACECTL_SN_10(t, n, ...) _tc_arg_5, _TRACECTL_SN_8(__VA_ARGS__)
#define _TRACECTL_SN_12(t, n, ...) _tc_arg_6, _TRACECTL_SN_10(__VA_ARGS__)
#define _TRACECTL_SN_14(t, n, ...) _tc_arg_7, _TRACECTL_SN_12(__VA_ARGS__)
#define _TRACECTL_SN_16(t, n, ...) _tc_arg_8, _TRACECTL_SN_14(__VA_ARGS__)
#define _TRACECTL_SN_18(t, n, ...) _tc_arg_9, _TRACECTL_SN_16(__VA_ARGS__)
#define _TRACECTL_SN_20(t, n, ...) _tc_arg_10, _TRACECTL_SN_18(__VA_ARGS__)

#ifdef _SDT_HAS_SEMAPHORES
#define _TRACECTL_SDT_SEMAPHORE(_provider, _name) _provider##_##_name##_semaphore
#define _TRACECTL_SDT_SEMAPHORE_DEFINE(_provider, _name)                                      \
	unsigned short _TRACECTL_SDT_SEMAPHORE(_provider, _name)                              \
		__attribute__((weak, visibility("hidden"), section(".probes")));
/* Non-zero while a tool is attached to the probe. */
#define _TRACECTL_SDT_ATTACHED(provider, name)                                             \
	__builtin_expect(                                                                  \
		__atomic_load_n(&_TRACECTL_SDT_SEMAPHORE(provider, name), __ATOMIC_RELAXED), 0)
#define _TRACECTL_SDT_GUARD(provider, name)                                                \
	(_TRACECTL_SDT_ATTACHED(provider, name) || _TRACECTL_ENABLED(provider, name))
#else
#define _TRACECTL_SDT_SEMAPHORE_DEFINE(_provider, _name)
#define _TRACECTL_SDT_GUARD(provider, name) 1
#endif

#define _TRACECTL_SDT_DEFINE(_provider, _name, _args)                                         \
	_TRACECTL_SDT_SEMAPHORE_DEFINE(_provider, _name)                                      \
	static inline __attribute__((always_inline, unused)) void                             \
	_TRACECTL_SDT_SYMBOL(_provider, _name)(_TRACECTL_SDT_PARAMS _args)                      \
	{                                                                                   \
		_TRACECTL_SDT_PROBE(_provider, _name, _TRACECTL_SDT_NAMES _args);           \
		_TRACECTL_TRACEPOINT(_provider, _name, _TRACECTL_SDT_NAMES _args);          \
	}
#else
#define _TRACECTL_SDT_DEFINE(_provider, _name, _args)
#endif

#define _TRACECTL_EVENT_SYMBOL(_provider, _name) __tracectl_event__##_provider##__##_name
#define _TRACECTL_PROBE_SYMBOL(_provider, _name) __tracectl_probe__##_provider##__##_name

/* Declarations, in every file that includes a provider header. */
#define _TRACECTL_EVENT_DECLARE(_provider, _name, _args)                                     \
	extern struct tracectl_ust_event _TRACECTL_EVENT_SYMBOL(_provider, _name)             \
		__attribute__((visibility("hidden")));                                      \
	void _TRACECTL_PROBE_SYMBOL(_provider, _name)(_TRACECTL_PROTO _args)                    \
		__attribute__((visibility("hidden"), noinline));

/*
 * The ip context: the probe's return address, the instruction after the
 * tracepoint's call, as LTTng-UST's. The probe is never inlined, and the
 * tracepoint's call is never the last thing its function does (a tail
 * call's return address would be the caller's). A module that records
 * events for its caller (tracef) defines TRACECTL_TP_IP_PARAM, before it
 * includes this header, to the name of a probe argument holding the
 * caller's address, as LTTNG_UST_TP_IP_PARAM does.
 */
#ifdef TRACECTL_TP_IP_PARAM
#define _TRACECTL_IP() ((const void *)(TRACECTL_TP_IP_PARAM))
#else
#define _TRACECTL_IP() __builtin_return_address(0)
#endif

#ifdef TRACECTL_CREATE_PROBES
/* An enumeration's entries and descriptor, found through the events whose
 * fields use it. */
#define _TRACECTL_ENUM_DEFINE(_provider, _name, _values)                                     \
	static const struct tracectl_ust_enum_entry                                          \
		__tracectl_enum_entries__##_provider##__##_name[] = { _TRACECTL_EXPAND _values }; \
	_TRACECTL_STATIC_ASSERT(sizeof(__tracectl_enum_entries__##_provider##__##_name) /       \
						sizeof(struct tracectl_ust_enum_entry) <=    \
					TRACECTL_ENUM_ENTRIES_MAX,                               \
				"tracectl: enumeration " #_provider ":" #_name              \
				" has more than 1024 entries");                             \
	const struct tracectl_ust_enum _TRACECTL_ENUM_SYMBOL(_provider, _name) = {              \
		#_provider,                                                                  \
		#_name,                                                                      \
		__tracectl_enum_entries__##_provider##__##_name,                              \
		sizeof(__tracectl_enum_entries__##_provider##__##_name) /                     \
			sizeof(struct tracectl_ust_enum_entry),                               \
	};

/* The descriptor, its section entry (found by the constructor below) and
 * the probe function that serializes the fields. A log level out of range
 * would be refused at registration, so it is refused at build time. */
#define _TRACECTL_EVENT_DEFINE(_provider, _name, _level, _args, _fields)                       \
	_TRACECTL_STATIC_ASSERT((_level) >= TRACECTL_LOGLEVEL_EMERG &&                          \
					(_level) <= TRACECTL_LOGLEVEL_DEBUG,                     \
				"log level of " #_provider ":" #_name " out of 0 to 14");   \
	static const struct tracectl_ust_field __tracectl_fields__##_provider##__##_name[] = { \
		_TRACECTL_FOR_EACH_FIELD(DESC, _fields)                                      \
	};                                                                                  \
	static const struct tracectl_ust_enum *const                                         \
		__tracectl_field_enums__##_provider##__##_name[] = {                         \
			_TRACECTL_FOR_EACH_FIELD(ENUMS, _fields)                             \
		};                                                                          \
	struct tracectl_ust_event _TRACECTL_EVENT_SYMBOL(_provider, _name) = {                \
		.enabled = 0,                                                                \
		.loglevel = (_level),                                                        \
		.provider = #_provider,                                                      \
		.name = #_name,                                                              \
		.fields = __tracectl_fields__##_provider##__##_name,                          \
		.nr_fields = sizeof(__tracectl_fields__##_provider##__##_name) /              \
			     sizeof(struct tracectl_ust_field),                             \
		.priv = NULL,                                                                \
		.field_enums = __tracectl_field_enums__##_provider##__##_name,                \
	};                                                                                  \
	static struct tracectl_ust_event *const __tracectl_entry__##_provider##__##_name      \
		__attribute__((used, section("__tracectl_events"))) =                       \
			&_TRACECTL_EVENT_SYMBOL(_provider, _name);                            \
	void _TRACECTL_PROBE_SYMBOL(_provider, _name)(_TRACECTL_PROTO _args)                    \
	{                                                                                   \
		struct tracectl_ust_piece _tc_pieces[2 * TRACECTL_FIELDS_MAX];              \
		unsigned int _tc_count = 0;                                                 \
		_TRACECTL_FOR_EACH_FIELD(CHECK, _fields)                                     \
		_TRACECTL_FOR_EACH_FIELD(PIECES, _fields)                                    \
		tracectl_ust_emit_ip(&_TRACECTL_EVENT_SYMBOL(_provider, _name), _tc_pieces,   \
				     _tc_count, _TRACECTL_IP());                            \
	}
#else
#define _TRACECTL_ENUM_DEFINE(_provider, _name, _values)
#define _TRACECTL_EVENT_DEFINE(_provider, _name, _level, _args, _fields)
#endif

/* Declares (and, in the TRACECTL_CREATE_PROBES file, defines) an
 * enumeration of the provider, before the events that use it. */
#define TRACECTL_ENUM(_provider, _name, _values)                                               \
	_TRACECTL_ENUM_DECLARE(_provider, _name)                                               \
	_TRACECTL_ENUM_DEFINE(_provider, _name, _values)

/* Declares (and, in the TRACECTL_CREATE_PROBES file, defines) an event. */
#define TRACECTL_EVENT_LOGLEVEL(_provider, _name, _level, _args, _fields)                      \
	_TRACECTL_EVENT_DECLARE(_provider, _name, _args)                                       \
	_TRACECTL_EVENT_DEFINE(_provider, _name, _level, _args, _fields)                       \
	_TRACECTL_SDT_DEFINE(_provider, _name, _args)
#define TRACECTL_EVENT(_provider, _name, _args, _fields)                                      \
	TRACECTL_EVENT_LOGLEVEL(_provider, _name, TRACECTL_LOGLEVEL_DEFAULT, _args, _fields)

#define _TRACECTL_ENABLED(provider, name)                                                  \
	__builtin_expect(__atomic_load_n(&_TRACECTL_EVENT_SYMBOL(provider, name).enabled,   \
					 __ATOMIC_RELAXED), 0)

/* Records an event when it is enabled; otherwise the arguments are not
 * evaluated. The relaxed atomic load keeps the compiler from hoisting the
 * check out of loops, and costs what a plain load costs. */
#define _TRACECTL_TRACEPOINT(provider, name, ...)                                         \
	do {                                                                                \
		if (__builtin_expect(__atomic_load_n(&_TRACECTL_EVENT_SYMBOL(provider, name).enabled, \
						     __ATOMIC_RELAXED), 0)) {               \
			_TRACECTL_PROBE_SYMBOL(provider, name)(__VA_ARGS__);                \
			__asm__ __volatile__("");  /* no tail call: the ip context */       \
		}                                                                           \
	} while (0)

/* The tracepoint. With TRACECTL_SDT, its SDT probe and then the same, each
 * argument evaluated once (see the SDT probes above). */
#ifdef TRACECTL_SDT
#define tracectl_tracepoint(provider, name, ...)                                          \
	do {                                                                                \
		if (_TRACECTL_SDT_GUARD(provider, name))                                    \
			_TRACECTL_SDT_SYMBOL(provider, name)(__VA_ARGS__);                  \
	} while (0)
#else
#define tracectl_tracepoint(provider, name, ...) _TRACECTL_TRACEPOINT(provider, name, __VA_ARGS__)
#endif

/* True when the event is being recorded, to guard costly argument set-up;
 * with SDT semaphores, also while a tool is attached to its probe. */
#if defined(TRACECTL_SDT) && defined(_SDT_HAS_SEMAPHORES)
#define tracectl_tracepoint_enabled(provider, name) _TRACECTL_SDT_GUARD(provider, name)
#else
#define tracectl_tracepoint_enabled(provider, name) _TRACECTL_ENABLED(provider, name)
#endif

#ifdef TRACECTL_CREATE_PROBES
/*
 * Registration of the module's events: the linker gathers the descriptor
 * pointers of this module in section __tracectl_events and defines its
 * bounds (hidden, so each module sees its own). The library's constructor
 * has run already: it is a dependency of this module.
 */
extern struct tracectl_ust_event *const __start___tracectl_events[]
	__attribute__((weak, visibility("hidden")));
extern struct tracectl_ust_event *const __stop___tracectl_events[]
	__attribute__((weak, visibility("hidden")));

static void __attribute__((constructor)) __tracectl_register_probes(void)
{
	if (&__stop___tracectl_events[0] > &__start___tracectl_events[0])
		tracectl_ust_register_provider(TRACECTL_UST_API_VERSION, __start___tracectl_events,
					       (size_t)(__stop___tracectl_events -
							__start___tracectl_events));
}

static void __attribute__((destructor)) __tracectl_unregister_probes(void)
{
	if (&__stop___tracectl_events[0] > &__start___tracectl_events[0])
		tracectl_ust_unregister_provider(__start___tracectl_events,
						 (size_t)(__stop___tracectl_events -
							  __start___tracectl_events));
}
#endif /* TRACECTL_CREATE_PROBES */

#ifdef __cplusplus
}
#endif

#endif /* TRACECTL_TRACEPOINT_H */
