/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <lttng/ust-ctl.h>

/*
 * CTF 1.8 metadata (TSDL) for what an LTTng-UST 2.13 application
 * describes on its notify socket: the fields of an event
 * (lttng_ust_ctl_recv_register_event()) and a channel's context fields
 * (lttng_ust_ctl_recv_register_channel()), as lttng-sessiond writes them.
 *
 * The application may be anyone's program and every byte of a field
 * array is its choice, so nothing is trusted: names must end in a NUL
 * within their buffer, a compound's count must fit in what is left of
 * the array, nesting is bounded, integers are 1 to 64 bits of base 2, 8,
 * 10 or 16 with a power-of-two alignment, floats are binary32 or
 * binary64, enums are the caller's, a sequence's length and a variant's
 * tag name an earlier field of the right kind, and quoted text carries no
 * control byte. Anything else is refused with an error naming the field
 * and why, and nothing is appended: text that is appended is valid TSDL
 * that babeltrace2 reads.
 *
 * No I/O and no global state: any thread may call these, each call with
 * its own output and options.
 *
 * Layout of a field array (LTTng-UST 2.13's flattening): a field of
 * type enum_nestable is followed by its integer container; array_nestable
 * and sequence_nestable by their element's type (one entry, or more when
 * the element is itself a compound); struct_nestable by its nr_fields
 * members; variant_nestable by its nr_choices choices. The legacy types
 * of ABI 8 (enum, array, sequence) carry their basic types inside the
 * entry; legacy struct and variant are followed by their members as the
 * nestable ones are.
 */

/* Nesting of compound types below a top-level field. */
#define TC_LTTNG_METADATA_DEPTH_MAX 16
/* Text one call may append; more is refused (an application could
 * otherwise make megabytes of metadata from one enum used many times). */
#define TC_LTTNG_METADATA_BYTES_MAX (1024 * 1024)

/* An enum's entries, as lttng_ust_ctl_recv_register_enum() gave them. */
typedef struct {
	const struct lttng_ust_ctl_enum_entry *entries;
	gsize nr_entries;
} TcLttngMetadataEnum;

/* Finds the enum an application registered as name (NUL-terminated)
 * with the id the service replied; FALSE when there is none. The entries
 * must stay valid until the call that asked returns. */
typedef gboolean (*TcLttngMetadataEnumLookup)(const char *name, guint64 id,
					      TcLttngMetadataEnum *found, gpointer user_data);

typedef struct {
	/* The application's byte order, the trace's native one: a field
	 * with reverse_byte_order gets the other, explicitly. */
	gboolean is_big_endian;
	TcLttngMetadataEnumLookup lookup_enum; /* NULL: no enum is known */
	gpointer user_data;
} TcLttngMetadataOptions;

/* Appends to out the member declarations of a struct holding fields
 * (the body of an event's `fields := struct { ... };` or of a stream's
 * `event.context := struct { ... };`), one a line, each indented by
 * indent tabs. FALSE with error (TC_ERROR_INVALID_ARGUMENT, naming the
 * field) when the fields cannot be described; out is then as it was. */
gboolean tc_lttng_metadata_append_fields(GString *out, const struct lttng_ust_ctl_field *fields,
					 gsize nr_fields, guint indent,
					 const TcLttngMetadataOptions *options, GError **error);

/* What lttng_ust_ctl_recv_register_event() gave, with the ids the
 * service chose. */
typedef struct {
	const char *name; /* LTTNG_UST_ABI_SYM_NAME_LEN bytes, a NUL among them */
	guint32 id, stream_id;
	gint loglevel;
	const char *model_emf_uri; /* NUL-terminated; NULL when none */
	const struct lttng_ust_ctl_field *fields;
	gsize nr_fields;
} TcLttngMetadataEvent;

/* Appends the event class `event { name = ...; ... fields := struct {
 * ... }; };`. FALSE with error when its name, URI or fields cannot be
 * described; out is then as it was. */
gboolean tc_lttng_metadata_append_event(GString *out, const TcLttngMetadataEvent *event,
					const TcLttngMetadataOptions *options, GError **error);
