/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-lttng"

#include "tc-lttng-metadata.h"

#include <string.h>

#include "tc-error.h"

/*
 * One walk over a field array, front to back: every entry is read once,
 * by the field or compound it belongs to, so the work is linear in the
 * array (plus the enum entries printed). Names become CTF identifiers as
 * lttng-sessiond makes them, with a leading '_' (which babeltrace2 strips
 * again when it prints), and every byte that cannot be in an identifier
 * becomes '_'. Since two names may then meet, each struct (and each
 * variant, for its choices) keeps the identifiers declared so far, which
 * also serve to resolve a sequence's length and a variant's tag the way
 * a CTF reader does: the innermost struct first, then the enclosing ones.
 */

/* What an earlier field may be used as. */
typedef enum {
	TC_KIND_OTHER,
	TC_KIND_UNSIGNED, /* a sequence's length */
	TC_KIND_ENUM,	  /* a variant's tag */
} TcKind;

typedef struct {
	TcKind kind;
	TcLttngMetadataEnum enumeration; /* TC_KIND_ENUM */
} TcTypeInfo;

/* The identifiers declared in one struct or variant (char * -> TcTypeInfo *). */
typedef struct {
	GHashTable *by_ident;
	gboolean is_struct; /* a variant's choices are not looked up */
} TcFrame;

typedef struct {
	const struct lttng_ust_ctl_field *fields;
	gsize nr_fields, next;
	const TcLttngMetadataOptions *options;
	GString *out;
	gsize start; /* out->len when the call began */
	GPtrArray *frames; /* TcFrame *, innermost last */
} TcWalk;

static gboolean append_type(TcWalk *walk, guint depth, guint indent, GString *dims,
			    gboolean is_field, TcTypeInfo *info, GError **error);
static gboolean append_members(TcWalk *walk, guint32 count, guint depth, guint indent,
			       gboolean is_struct, const TcTypeInfo *tag, GError **error);

static gboolean
refuse(GError **error, const char *format, ...) G_GNUC_PRINTF(2, 3);

static gboolean
refuse(GError **error, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	g_propagate_error(error,
			  g_error_new_valist(TC_ERROR, TC_ERROR_INVALID_ARGUMENT, format, args));
	va_end(args);
	return FALSE;
}

static gboolean
is_terminated(const char *name)
{
	return memchr(name, '\0', LTTNG_UST_ABI_SYM_NAME_LEN) != NULL;
}

static void
append_mangled(GString *ident, const char *text)
{
	for (; *text != '\0'; text++)
		g_string_append_c(ident, g_ascii_isalnum(*text) ? *text : '_');
}

/* The identifier of name (NUL-terminated) followed by suffix. */
static char *
ident_new(const char *name, const char *suffix)
{
	GString *ident = g_string_new("_");

	append_mangled(ident, name);
	append_mangled(ident, suffix);
	return g_string_free(ident, FALSE);
}

/* A quoted TSDL string: '"' and '\' escaped. babeltrace2 drops \x
 * escapes, so a control byte cannot be written and is refused; bytes
 * from 0x80 (UTF-8) go as they are. */
static gboolean
append_quoted(GString *out, const char *text, GError **error)
{
	g_string_append_c(out, '"');
	for (const guchar *at = (const guchar *)text; *at != '\0'; at++) {
		if (*at < 0x20 || *at == 0x7f)
			return refuse(error, "control byte 0x%02x in \"%.*s\"", *at,
				      (int)(at - (const guchar *)text), text);
		if (*at == '"' || *at == '\\')
			g_string_append_c(out, '\\');
		g_string_append_c(out, (char)*at);
	}
	g_string_append_c(out, '"');
	return TRUE;
}

static void
append_indent(GString *out, guint indent)
{
	for (guint i = 0; i < indent; i++)
		g_string_append_c(out, '\t');
}

static const char *
byte_order(const TcWalk *walk, guint32 reverse_byte_order)
{
	if (!reverse_byte_order)
		return "";
	return walk->options->is_big_endian ? " byte_order = le;" : " byte_order = be;";
}

/* Alignments are powers of two, at most 32,768 bits (4 KiB). */
static gboolean
check_alignment_bits(guint64 bits, GError **error)
{
	if (bits == 0 || (bits & (bits - 1)) != 0 || bits > 32768)
		return refuse(error, "alignment of %" G_GUINT64_FORMAT
				     " bits is not a power of two up to 32768",
			      bits);
	return TRUE;
}

static gboolean
check_flag(guint32 value, const char *what, GError **error)
{
	if (value > 1)
		return refuse(error, "%s %u is neither 0 nor 1", what, value);
	return TRUE;
}

static const char *
encoding_name(gint32 encoding)
{
	switch (encoding) {
	case lttng_ust_ctl_encode_none:
		return "none";
	case lttng_ust_ctl_encode_UTF8:
		return "UTF8";
	case lttng_ust_ctl_encode_ASCII:
		return "ASCII";
	default:
		return NULL;
	}
}

static gboolean
check_integer(const struct lttng_ust_ctl_integer_type *integer, GError **error)
{
	if (integer->size == 0 || integer->size > 64)
		return refuse(error, "integer of %u bits (1 to 64)", integer->size);
	if (!check_flag(integer->signedness, "signedness", error) ||
	    !check_flag(integer->reverse_byte_order, "reverse_byte_order", error))
		return FALSE;
	if (integer->base != 2 && integer->base != 8 && integer->base != 10 &&
	    integer->base != 16)
		return refuse(error, "integer base %u (2, 8, 10 or 16)", integer->base);
	if (encoding_name(integer->encoding) == NULL)
		return refuse(error, "unknown encoding %d", integer->encoding);
	/* Text is made of bytes: babeltrace2 reads 8-bit elements as characters. */
	if (integer->encoding != lttng_ust_ctl_encode_none && integer->size != 8)
		return refuse(error, "encoded integer of %u bits (8)", integer->size);
	return check_alignment_bits(integer->alignment, error);
}

static void
append_integer_text(TcWalk *walk, const struct lttng_ust_ctl_integer_type *integer)
{
	g_string_append_printf(walk->out,
			       "integer { size = %u; align = %u; signed = %u; encoding = %s; "
			       "base = %u;%s }",
			       integer->size, integer->alignment, integer->signedness,
			       encoding_name(integer->encoding), integer->base,
			       byte_order(walk, integer->reverse_byte_order));
}

static gboolean
append_integer(TcWalk *walk, const struct lttng_ust_ctl_integer_type *integer, TcTypeInfo *info,
	       GError **error)
{
	if (!check_integer(integer, error))
		return FALSE;
	append_integer_text(walk, integer);
	info->kind = integer->signedness ? TC_KIND_OTHER : TC_KIND_UNSIGNED;
	return TRUE;
}

static gboolean
append_float(TcWalk *walk, const struct lttng_ust_ctl_float_type *value, GError **error)
{
	gboolean is_binary32 = value->exp_dig == 8 && value->mant_dig == 24;
	gboolean is_binary64 = value->exp_dig == 11 && value->mant_dig == 53;

	if (!is_binary32 && !is_binary64)
		return refuse(error, "float of %u exponent and %u mantissa digits (8 and 24, or "
				     "11 and 53)",
			      value->exp_dig, value->mant_dig);
	if (!check_flag(value->reverse_byte_order, "reverse_byte_order", error) ||
	    !check_alignment_bits(value->alignment, error))
		return FALSE;
	g_string_append_printf(walk->out, "floating_point { exp_dig = %u; mant_dig = %u; align = %u;%s }",
			       value->exp_dig, value->mant_dig, value->alignment,
			       byte_order(walk, value->reverse_byte_order));
	return TRUE;
}

static gboolean
append_string(TcWalk *walk, gint32 encoding, GError **error)
{
	if (encoding_name(encoding) == NULL)
		return refuse(error, "unknown string encoding %d", encoding);
	/* A string is UTF-8 unless said otherwise, as lttng-sessiond has it. */
	g_string_append(walk->out, encoding == lttng_ust_ctl_encode_ASCII
					   ? "string { encoding = ASCII; }"
					   : "string");
	return TRUE;
}

/* An enum value as a signed 65-bit number: negative, and magnitude. */
typedef struct {
	gboolean is_negative;
	guint64 magnitude;
} TcValue;

static TcValue
value_of(const struct lttng_ust_ctl_enum_value *value)
{
	gint64 as_signed = (gint64)value->value;

	if (value->signedness && as_signed < 0)
		return (TcValue){TRUE, -(guint64)value->value};
	return (TcValue){FALSE, value->value};
}

static gboolean
value_fits(TcValue value, const struct lttng_ust_ctl_integer_type *container)
{
	guint64 max;

	if (!container->signedness) {
		max = container->size == 64 ? G_MAXUINT64 : (G_GUINT64_CONSTANT(1) << container->size) - 1;
		return !value.is_negative && value.magnitude <= max;
	}
	max = G_GUINT64_CONSTANT(1) << (container->size - 1); /* the magnitude of the minimum */
	return value.is_negative ? value.magnitude <= max : value.magnitude < max;
}

static gboolean
value_is_less(TcValue a, TcValue b)
{
	if (a.is_negative != b.is_negative)
		return a.is_negative;
	return a.is_negative ? a.magnitude > b.magnitude : a.magnitude < b.magnitude;
}

static void
append_value(GString *out, TcValue value)
{
	g_string_append_printf(out, "%s%" G_GUINT64_FORMAT, value.is_negative ? "-" : "",
			       value.magnitude);
}

/* One entry: "label" = start[ ... end], or "label" alone for an automatic
 * one, whose value is the previous entry's end plus one (0 first). next
 * is where an automatic entry would start, updated. */
static gboolean
append_enum_entry(TcWalk *walk, const struct lttng_ust_ctl_enum_entry *entry,
		  const struct lttng_ust_ctl_integer_type *container, TcValue *next,
		  gboolean *is_next_valid, GError **error)
{
	gboolean is_auto = (entry->u.extra.options & LTTNG_UST_CTL_UST_ENUM_ENTRY_OPTION_IS_AUTO) != 0;
	TcValue start = value_of(&entry->start), end = value_of(&entry->end);

	if (!is_terminated(entry->string) || entry->string[0] == '\0')
		return refuse(error, "enum label empty or without a NUL");
	if (is_auto) {
		if (!*is_next_valid)
			return refuse(error, "automatic enum value past the previous one's end");
		start = end = *next;
	}
	if (!value_fits(start, container) || !value_fits(end, container) ||
	    value_is_less(end, start))
		return refuse(error, "enum label \"%s\": range does not fit its container",
			      entry->string);
	if (!append_quoted(walk->out, entry->string, error))
		return FALSE;
	if (!is_auto) {
		g_string_append(walk->out, " = ");
		append_value(walk->out, start);
		if (value_is_less(start, end)) {
			g_string_append(walk->out, " ... ");
			append_value(walk->out, end);
		}
	}
	g_string_append(walk->out, ",\n");
	/* The next automatic value is end + 1, which may not exist. */
	*is_next_valid = end.is_negative ? TRUE : end.magnitude != G_MAXUINT64;
	if (end.is_negative)
		*next = end.magnitude == 1 ? (TcValue){FALSE, 0} : (TcValue){TRUE, end.magnitude - 1};
	else
		*next = (TcValue){FALSE, end.magnitude + 1};
	return TRUE;
}

static gboolean
append_enum(TcWalk *walk, const char *name, guint64 id,
	    const struct lttng_ust_ctl_integer_type *container, guint indent, TcTypeInfo *info,
	    GError **error)
{
	TcLttngMetadataEnum found = {0};
	TcValue next = {FALSE, 0};
	gboolean is_next_valid = TRUE;

	if (!is_terminated(name))
		return refuse(error, "enum name without a NUL");
	if (!check_integer(container, error))
		return FALSE;
	if (container->encoding != lttng_ust_ctl_encode_none)
		return refuse(error, "enum container with an encoding");
	if (walk->options->lookup_enum == NULL ||
	    !walk->options->lookup_enum(name, id, &found, walk->options->user_data))
		return refuse(error, "unknown enum \"%s\" (id %" G_GUINT64_FORMAT ")", name, id);
	if (found.nr_entries == 0 || found.entries == NULL)
		return refuse(error, "enum \"%s\" has no entry", name);
	g_string_append(walk->out, "enum : ");
	append_integer_text(walk, container);
	g_string_append(walk->out, " {\n");
	for (gsize i = 0; i < found.nr_entries; i++) {
		append_indent(walk->out, indent + 1);
		if (!append_enum_entry(walk, &found.entries[i], container, &next, &is_next_valid,
				       error)) {
			g_prefix_error(error, "enum \"%s\": ", name);
			return FALSE;
		}
	}
	append_indent(walk->out, indent);
	g_string_append_c(walk->out, '}');
	info->kind = TC_KIND_ENUM;
	info->enumeration = found;
	return TRUE;
}

/* A basic type of ABI 8's legacy arrays and sequences. */
static gboolean
append_basic(TcWalk *walk, const struct lttng_ust_ctl_basic_type *basic, guint indent,
	     TcTypeInfo *info, GError **error)
{
	const union _lttng_ust_ctl_basic_type *u = &basic->u.basic;

	switch (basic->atype) {
	case lttng_ust_ctl_atype_integer:
		return append_integer(walk, &u->integer, info, error);
	case lttng_ust_ctl_atype_float:
		return append_float(walk, &u->_float, error);
	case lttng_ust_ctl_atype_string:
		return append_string(walk, u->string.encoding, error);
	case lttng_ust_ctl_atype_enum:
		return append_enum(walk, u->enumeration.name, u->enumeration.id,
				   &u->enumeration.container_type, indent, info, error);
	default:
		return refuse(error, "basic type %d", (int)basic->atype);
	}
}

/* The innermost earlier field of a struct in scope named ident. */
static const TcTypeInfo *
lookup(const TcWalk *walk, const char *ident)
{
	for (guint i = walk->frames->len; i > 0; i--) {
		const TcFrame *frame = g_ptr_array_index(walk->frames, i - 1);
		const TcTypeInfo *info;

		if (!frame->is_struct)
			continue;
		info = g_hash_table_lookup(frame->by_ident, ident);
		if (info != NULL)
			return info;
	}
	return NULL;
}

static gboolean
check_reference(const TcWalk *walk, const char *name, TcKind kind, const TcTypeInfo **found,
		GError **error)
{
	g_autofree char *ident = NULL;

	if (!is_terminated(name))
		return refuse(error, "reference without a NUL");
	ident = ident_new(name, "");
	*found = lookup(walk, ident);
	if (*found == NULL || (*found)->kind != kind)
		return refuse(error, "\"%s\" is not an earlier %s field in scope", name,
			      kind == TC_KIND_ENUM ? "enum" : "unsigned integer");
	return TRUE;
}

static const struct lttng_ust_ctl_field *
take_entry(TcWalk *walk, GError **error)
{
	if (walk->next >= walk->nr_fields) {
		refuse(error, "ends before its type is complete");
		return NULL;
	}
	return &walk->fields[walk->next++];
}

/* Byte alignments of compounds: 0 (none) or a power of two up to 4 KiB. */
static gboolean
check_alignment_bytes(guint32 bytes, GError **error)
{
	return bytes == 0 || check_alignment_bits((guint64)bytes * 8, error);
}

static gboolean
append_struct(TcWalk *walk, guint32 nr_fields, guint32 alignment, guint depth, guint indent,
	      GError **error)
{
	if (!check_alignment_bytes(alignment, error))
		return FALSE;
	g_string_append(walk->out, "struct {\n");
	if (!append_members(walk, nr_fields, depth, indent + 1, TRUE, NULL, error))
		return FALSE;
	append_indent(walk->out, indent);
	g_string_append_c(walk->out, '}');
	if (alignment != 0)
		g_string_append_printf(walk->out, " align(%u)", alignment * 8);
	return TRUE;
}

static gboolean
append_variant(TcWalk *walk, const char *tag_name, guint32 nr_choices, guint depth,
	       guint indent, GError **error)
{
	const TcTypeInfo *tag;
	g_autofree char *ident = NULL;

	if (!check_reference(walk, tag_name, TC_KIND_ENUM, &tag, error)) {
		g_prefix_error(error, "variant tag: ");
		return FALSE;
	}
	if (nr_choices == 0)
		return refuse(error, "variant without a choice");
	ident = ident_new(tag_name, "");
	g_string_append_printf(walk->out, "variant <%s> {\n", ident);
	if (!append_members(walk, nr_choices, depth, indent + 1, FALSE, tag, error))
		return FALSE;
	append_indent(walk->out, indent);
	g_string_append_c(walk->out, '}');
	return TRUE;
}

/* An array's or sequence's element: its dimension goes before the
 * element's own (C's order: a[2][3] is two arrays of three). */
static gboolean
append_element(TcWalk *walk, guint depth, guint indent, GString *dims, GError **error)
{
	TcTypeInfo element = {TC_KIND_OTHER};

	if (!append_type(walk, depth + 1, indent, dims, FALSE, &element, error)) {
		g_prefix_error(error, "element: ");
		return FALSE;
	}
	return TRUE;
}

static gboolean
append_sequence(TcWalk *walk, const struct lttng_ust_ctl_type *type, guint depth, guint indent,
		GString *dims, GError **error)
{
	const TcTypeInfo *length;
	g_autofree char *ident = NULL;

	if (!check_reference(walk, type->u.sequence_nestable.length_name, TC_KIND_UNSIGNED,
			     &length, error)) {
		g_prefix_error(error, "sequence length: ");
		return FALSE;
	}
	ident = ident_new(type->u.sequence_nestable.length_name, "");
	g_string_append_printf(dims, "[ %s ]", ident);
	return append_element(walk, depth, indent, dims, error);
}

/*
 * The type of the entry at walk->next (and of those that follow it when
 * it is a compound), written to walk->out as a type specifier; array
 * dimensions go to dims, after the declarator. is_field: the entry is a
 * field of a struct or variant, whose alignment padding, if any, its
 * caller wrote; below a field, alignments that need padding are refused.
 */
static gboolean
append_type(TcWalk *walk, guint depth, guint indent, GString *dims, gboolean is_field,
	    TcTypeInfo *info, GError **error)
{
	const struct lttng_ust_ctl_field *entry;
	const struct lttng_ust_ctl_type *type;

	if (depth > TC_LTTNG_METADATA_DEPTH_MAX)
		return refuse(error, "nested deeper than %d", TC_LTTNG_METADATA_DEPTH_MAX);
	entry = take_entry(walk, error);
	if (entry == NULL)
		return FALSE;
	type = &entry->type;
	info->kind = TC_KIND_OTHER;
	switch (type->atype) {
	case lttng_ust_ctl_atype_integer:
		return append_integer(walk, &type->u.integer, info, error);
	case lttng_ust_ctl_atype_float:
		return append_float(walk, &type->u._float, error);
	case lttng_ust_ctl_atype_string:
		return append_string(walk, type->u.string.encoding, error);
	case lttng_ust_ctl_atype_enum:
		return append_enum(walk, type->u.legacy.basic.enumeration.name,
				   type->u.legacy.basic.enumeration.id,
				   &type->u.legacy.basic.enumeration.container_type, indent, info,
				   error);
	case lttng_ust_ctl_atype_enum_nestable: {
		const struct lttng_ust_ctl_field *container = take_entry(walk, error);

		if (container == NULL)
			return FALSE;
		if (container->type.atype != lttng_ust_ctl_atype_integer)
			return refuse(error, "enum container of type %d", (int)container->type.atype);
		return append_enum(walk, type->u.enum_nestable.name, type->u.enum_nestable.id,
				   &container->type.u.integer, indent, info, error);
	}
	case lttng_ust_ctl_atype_array: {
		TcTypeInfo element = {TC_KIND_OTHER};

		g_string_append_printf(dims, "[%u]", type->u.legacy.array.length);
		return append_basic(walk, &type->u.legacy.array.elem_type, indent, &element, error);
	}
	case lttng_ust_ctl_atype_array_nestable:
		if (!is_field && type->u.array_nestable.alignment != 0)
			return refuse(error, "aligned array below a field");
		if (!check_alignment_bytes(type->u.array_nestable.alignment, error))
			return FALSE;
		g_string_append_printf(dims, "[%u]", type->u.array_nestable.length);
		return append_element(walk, depth, indent, dims, error);
	case lttng_ust_ctl_atype_sequence_nestable:
		if (!is_field && type->u.sequence_nestable.alignment != 0)
			return refuse(error, "aligned sequence below a field");
		if (!check_alignment_bytes(type->u.sequence_nestable.alignment, error))
			return FALSE;
		return append_sequence(walk, type, depth, indent, dims, error);
	case lttng_ust_ctl_atype_struct:
		return append_struct(walk, type->u.legacy._struct.nr_fields, 0, depth, indent, error);
	case lttng_ust_ctl_atype_struct_nestable:
		return append_struct(walk, type->u.struct_nestable.nr_fields,
				     type->u.struct_nestable.alignment, depth, indent, error);
	case lttng_ust_ctl_atype_variant:
		return append_variant(walk, type->u.legacy.variant.tag_name,
				      type->u.legacy.variant.nr_choices, depth, indent, error);
	case lttng_ust_ctl_atype_variant_nestable:
		if (!is_field && type->u.variant_nestable.alignment != 0)
			return refuse(error, "aligned variant below a field");
		if (!check_alignment_bytes(type->u.variant_nestable.alignment, error))
			return FALSE;
		return append_variant(walk, type->u.variant_nestable.tag_name,
				      type->u.variant_nestable.nr_choices, depth, indent, error);
	case lttng_ust_ctl_atype_sequence:
		/* Its length is a field of its own: only a struct's field may be one. */
		return refuse(error, "legacy sequence below a field");
	default:
		return refuse(error, "unknown type %d", (int)type->atype);
	}
}

static TcFrame *
frame_new(gboolean is_struct)
{
	TcFrame *frame = g_new0(TcFrame, 1);

	frame->by_ident = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	frame->is_struct = is_struct;
	return frame;
}

static void
frame_free(gpointer data)
{
	TcFrame *frame = data;

	g_hash_table_destroy(frame->by_ident);
	g_free(frame);
}

/* Declares ident in the innermost frame, unless it is there already or
 * is a TSDL keyword (the only ones that start with '_'). Takes ident. */
static gboolean
declare(TcWalk *walk, char *ident, const TcTypeInfo *info, GError **error)
{
	static const char *const keywords[] = {"_Bool", "_Complex", "_Imaginary"};
	TcFrame *frame = g_ptr_array_index(walk->frames, walk->frames->len - 1);

	for (gsize i = 0; i < G_N_ELEMENTS(keywords); i++)
		if (strcmp(ident, keywords[i]) == 0) {
			refuse(error, "its identifier %s is a TSDL keyword", ident);
			g_free(ident);
			return FALSE;
		}
	if (g_hash_table_contains(frame->by_ident, ident)) {
		refuse(error, "its identifier %s is already declared here", ident);
		g_free(ident);
		return FALSE;
	}
	g_hash_table_insert(frame->by_ident, ident, g_memdup2(info, sizeof(*info)));
	return TRUE;
}

/* A variant's choice must be named after a label of its tag: babeltrace2
 * matches them by text (and aborts on a choice with no label). */
static gboolean
check_choice(const TcTypeInfo *tag, const char *ident, GError **error)
{
	for (gsize i = 0; i < tag->enumeration.nr_entries; i++)
		if (strncmp(tag->enumeration.entries[i].string, ident,
			    LTTNG_UST_ABI_SYM_NAME_LEN) == 0)
			return TRUE;
	return refuse(error, "no label %s in its variant's tag", ident);
}

/* A padding field, before an aligned array, sequence or variant, as
 * lttng-sessiond writes it; only a struct can hold one. */
static gboolean
append_padding(TcWalk *walk, const struct lttng_ust_ctl_field *field, guint indent,
	       const TcFrame *frame, GError **error)
{
	const struct lttng_ust_ctl_type *type = &field->type;
	TcTypeInfo info = {TC_KIND_OTHER};
	guint32 alignment;

	if (type->atype == lttng_ust_ctl_atype_array_nestable)
		alignment = type->u.array_nestable.alignment;
	else if (type->atype == lttng_ust_ctl_atype_sequence_nestable)
		alignment = type->u.sequence_nestable.alignment;
	else if (type->atype == lttng_ust_ctl_atype_variant_nestable)
		alignment = type->u.variant_nestable.alignment;
	else
		return TRUE;
	if (alignment == 0)
		return TRUE;
	if (!frame->is_struct)
		return refuse(error, "aligned choice of a variant");
	if (!check_alignment_bytes(alignment, error) ||
	    !declare(walk, ident_new(field->name, "_padding"), &info, error))
		return FALSE;
	append_indent(walk->out, indent);
	g_string_append_printf(walk->out, "struct { } align(%u) _", alignment * 8);
	append_mangled(walk->out, field->name);
	g_string_append(walk->out, "_padding;\n");
	return TRUE;
}

/* ABI 8's sequence: its length field, then the sequence, both written
 * here as lttng-sessiond writes them (the length is _NAME_length). */
static gboolean
append_legacy_sequence(TcWalk *walk, const struct lttng_ust_ctl_field *field, guint indent,
		       const TcFrame *frame, GError **error)
{
	TcTypeInfo length = {TC_KIND_OTHER}, element = {TC_KIND_OTHER};
	g_autofree char *length_ident = ident_new(field->name, "_length");

	walk->next++;
	if (!frame->is_struct)
		return refuse(error, "legacy sequence as a choice of a variant");
	append_indent(walk->out, indent);
	if (!append_basic(walk, &field->type.u.legacy.sequence.length_type, indent, &length, error))
		return FALSE;
	if (length.kind != TC_KIND_UNSIGNED)
		return refuse(error, "sequence length not an unsigned integer");
	if (!declare(walk, g_strconcat("_", length_ident, NULL), &length, error))
		return FALSE;
	g_string_append_printf(walk->out, " _%s;\n", length_ident);
	append_indent(walk->out, indent);
	if (!append_basic(walk, &field->type.u.legacy.sequence.elem_type, indent, &element, error))
		return FALSE;
	if (!declare(walk, ident_new(field->name, ""), &element, error))
		return FALSE;
	g_string_append(walk->out, " _");
	append_mangled(walk->out, field->name);
	g_string_append_printf(walk->out, "[ _%s ];\n", length_ident);
	return TRUE;
}

/* The field at walk->next, a member of the innermost frame; tag is its
 * variant's tag when the frame is a variant's. */
static gboolean
append_field(TcWalk *walk, guint depth, guint indent, const TcTypeInfo *tag, GError **error)
{
	const struct lttng_ust_ctl_field *field = &walk->fields[walk->next];
	const TcFrame *frame = g_ptr_array_index(walk->frames, walk->frames->len - 1);
	g_autoptr(GString) dims = g_string_new(NULL);
	TcTypeInfo info = {TC_KIND_OTHER};
	char *ident;

	if (!is_terminated(field->name))
		return refuse(error, "field #%" G_GSIZE_FORMAT ": name without a NUL", walk->next);
	if (field->name[0] == '\0')
		return refuse(error, "field #%" G_GSIZE_FORMAT ": empty name", walk->next);
	ident = ident_new(field->name, "");
	if (tag != NULL && !check_choice(tag, ident, error))
		goto refused;
	if (field->type.atype == lttng_ust_ctl_atype_sequence) {
		if (!append_legacy_sequence(walk, field, indent, frame, error))
			goto refused;
	} else {
		if (!append_padding(walk, field, indent, frame, error))
			goto refused;
		append_indent(walk->out, indent);
		if (!append_type(walk, depth, indent, dims, TRUE, &info, error))
			goto refused;
		g_string_append_printf(walk->out, " %s%s;\n", ident, dims->str);
		if (!declare(walk, g_strdup(ident), &info, error))
			goto refused;
	}
	if (walk->out->len - walk->start > TC_LTTNG_METADATA_BYTES_MAX) {
		refuse(error, "metadata longer than %d bytes", TC_LTTNG_METADATA_BYTES_MAX);
		goto refused;
	}
	g_free(ident);
	return TRUE;

refused:
	g_prefix_error(error, "field '%s': ", ident + 1);
	g_free(ident);
	return FALSE;
}

/* count fields (a struct's members, or a variant's choices), each one
 * or more entries, in a frame of their own. */
static gboolean
append_members(TcWalk *walk, guint32 count, guint depth, guint indent, gboolean is_struct,
	       const TcTypeInfo *tag, GError **error)
{
	gboolean is_done = TRUE;

	/* Every member takes an entry at least. */
	if (count > walk->nr_fields - walk->next)
		return refuse(error, "claims %u members where %" G_GSIZE_FORMAT " entries are left",
			      count, walk->nr_fields - walk->next);
	if (depth + 1 > TC_LTTNG_METADATA_DEPTH_MAX)
		return refuse(error, "nested deeper than %d", TC_LTTNG_METADATA_DEPTH_MAX);
	g_ptr_array_add(walk->frames, frame_new(is_struct));
	for (guint32 i = 0; i < count && is_done; i++) {
		if (walk->next >= walk->nr_fields)
			is_done = refuse(error, "ends before member %u of %u", i + 1, count);
		else
			is_done = append_field(walk, depth + 1, indent, tag, error);
	}
	g_ptr_array_remove_index(walk->frames, walk->frames->len - 1);
	return is_done;
}

gboolean
tc_lttng_metadata_append_fields(GString *out, const struct lttng_ust_ctl_field *fields,
				gsize nr_fields, guint indent, const TcLttngMetadataOptions *options,
				GError **error)
{
	TcWalk walk = {
	    .fields = fields,
	    .nr_fields = nr_fields,
	    .options = options,
	    .out = out,
	    .start = out->len,
	    .frames = g_ptr_array_new_with_free_func(frame_free),
	};
	gboolean is_done = TRUE;

	g_return_val_if_fail(fields != NULL || nr_fields == 0, FALSE);
	g_return_val_if_fail(options != NULL, FALSE);
	g_ptr_array_add(walk.frames, frame_new(TRUE));
	while (walk.next < nr_fields && is_done)
		is_done = append_field(&walk, 0, indent, NULL, error);
	g_ptr_array_unref(walk.frames);
	if (!is_done)
		g_string_truncate(out, walk.start);
	return is_done;
}

static gboolean
append_event_head(GString *out, const TcLttngMetadataEvent *event, GError **error)
{
	if (event->name == NULL || !is_terminated(event->name) || event->name[0] == '\0')
		return refuse(error, "event name empty or without a NUL");
	g_string_append(out, "event {\n\tname = ");
	if (!append_quoted(out, event->name, error))
		return FALSE;
	g_string_append_printf(out, ";\n\tid = %u;\n\tstream_id = %u;\n\tloglevel = %d;\n",
			       event->id, event->stream_id, event->loglevel);
	if (event->model_emf_uri != NULL) {
		if (strlen(event->model_emf_uri) > TC_LTTNG_METADATA_BYTES_MAX)
			return refuse(error, "model.emf.uri longer than %d bytes",
				      TC_LTTNG_METADATA_BYTES_MAX);
		g_string_append(out, "\tmodel.emf.uri = ");
		if (!append_quoted(out, event->model_emf_uri, error)) {
			g_prefix_error(error, "model.emf.uri: ");
			return FALSE;
		}
		g_string_append(out, ";\n");
	}
	return TRUE;
}

gboolean
tc_lttng_metadata_append_event(GString *out, const TcLttngMetadataEvent *event,
			       const TcLttngMetadataOptions *options, GError **error)
{
	gsize start = out->len;

	g_return_val_if_fail(event != NULL && options != NULL, FALSE);
	if (!append_event_head(out, event, error))
		goto refused;
	g_string_append(out, "\tfields := struct {\n");
	if (!tc_lttng_metadata_append_fields(out, event->fields, event->nr_fields, 2, options,
					     error))
		goto refused;
	g_string_append(out, "\t};\n};\n\n");
	return TRUE;

refused:
	g_string_truncate(out, start);
	g_prefix_error(error, "event #%u: ", event->id);
	return FALSE;
}
