/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests of the CTF metadata of LTTng-UST applications' fields
 * (apps/tc-lttng-metadata.c): field arrays built by hand as LTTng-UST
 * 2.13 flattens them, the TSDL text of each type, the refusals; then
 * traces of those fields read by babeltrace2 itself (skipped without
 * it): a metadata file with the generator's event class and a stream of
 * one packet holding one event encoded here, whose printed values must
 * be the encoded ones.
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "tc-error.h"
#include "tc-lttng-metadata.h"

/* Field arrays, built one entry at a time. */
typedef GArray Fields;

static struct lttng_ust_ctl_field *
add(Fields *fields, const char *name, enum lttng_ust_ctl_abstract_types atype)
{
	struct lttng_ust_ctl_field field = {0};

	g_strlcpy(field.name, name, sizeof(field.name));
	field.type.atype = atype;
	g_array_append_val(fields, field);
	return &g_array_index(fields, struct lttng_ust_ctl_field, fields->len - 1);
}

static void
set_integer(struct lttng_ust_ctl_integer_type *integer, guint size, gboolean is_signed,
	    guint base, guint alignment)
{
	integer->size = size;
	integer->signedness = is_signed;
	integer->base = base;
	integer->alignment = alignment;
}

static struct lttng_ust_ctl_field *
add_integer(Fields *fields, const char *name, guint size, gboolean is_signed, guint base,
	    guint alignment)
{
	struct lttng_ust_ctl_field *field = add(fields, name, lttng_ust_ctl_atype_integer);

	set_integer(&field->type.u.integer, size, is_signed, base, alignment);
	return field;
}

static struct lttng_ust_ctl_field *
add_float(Fields *fields, const char *name, gboolean is_double)
{
	struct lttng_ust_ctl_field *field = add(fields, name, lttng_ust_ctl_atype_float);

	field->type.u._float.exp_dig = is_double ? 11 : 8;
	field->type.u._float.mant_dig = is_double ? 53 : 24;
	field->type.u._float.alignment = is_double ? 64 : 32;
	return field;
}

static void
add_string(Fields *fields, const char *name, gint32 encoding)
{
	add(fields, name, lttng_ust_ctl_atype_string)->type.u.string.encoding = encoding;
}

/* An enum_nestable and its container. */
static void
add_enum(Fields *fields, const char *name, const char *enum_name, guint size, gboolean is_signed)
{
	struct lttng_ust_ctl_field *field = add(fields, name, lttng_ust_ctl_atype_enum_nestable);

	g_strlcpy(field->type.u.enum_nestable.name, enum_name,
		  sizeof(field->type.u.enum_nestable.name));
	field->type.u.enum_nestable.id = 7;
	add_integer(fields, "", size, is_signed, 10, 8);
}

static void
add_array(Fields *fields, const char *name, guint32 length, guint32 alignment)
{
	struct lttng_ust_ctl_field *field = add(fields, name, lttng_ust_ctl_atype_array_nestable);

	field->type.u.array_nestable.length = length;
	field->type.u.array_nestable.alignment = alignment;
}

static void
add_sequence(Fields *fields, const char *name, const char *length_name, guint32 alignment)
{
	struct lttng_ust_ctl_field *field =
	    add(fields, name, lttng_ust_ctl_atype_sequence_nestable);

	g_strlcpy(field->type.u.sequence_nestable.length_name, length_name,
		  sizeof(field->type.u.sequence_nestable.length_name));
	field->type.u.sequence_nestable.alignment = alignment;
}

static void
add_struct(Fields *fields, const char *name, guint32 nr_fields, guint32 alignment)
{
	struct lttng_ust_ctl_field *field = add(fields, name, lttng_ust_ctl_atype_struct_nestable);

	field->type.u.struct_nestable.nr_fields = nr_fields;
	field->type.u.struct_nestable.alignment = alignment;
}

static void
add_variant(Fields *fields, const char *name, const char *tag, guint32 nr_choices)
{
	struct lttng_ust_ctl_field *field =
	    add(fields, name, lttng_ust_ctl_atype_variant_nestable);

	field->type.u.variant_nestable.nr_choices = nr_choices;
	g_strlcpy(field->type.u.variant_nestable.tag_name, tag,
		  sizeof(field->type.u.variant_nestable.tag_name));
}

static void
set_basic_integer(struct lttng_ust_ctl_basic_type *basic, guint size, gboolean is_signed)
{
	basic->atype = lttng_ust_ctl_atype_integer;
	set_integer(&basic->u.basic.integer, size, is_signed, 10, 8);
}

/* The enums the tests know, by name. */
#define ENTRY(label, start_, end_)                                                                 \
	{                                                                                          \
		.start = {.value = (guint64)(start_), .signedness = (start_) < 0},                 \
		.end = {.value = (guint64)(end_), .signedness = (end_) < 0}, .string = label,      \
	}
static const struct lttng_ust_ctl_enum_entry colours[] = {
    ENTRY("red", 0, 0),
    ENTRY("green", 1, 3),
    {.string = "blue", .u.extra.options = LTTNG_UST_CTL_UST_ENUM_ENTRY_OPTION_IS_AUTO},
};
static const struct lttng_ust_ctl_enum_entry temperatures[] = {
    ENTRY("cold", -40, -1),
    ENTRY("say \"hi\"\\", 0, 0),
    ENTRY("hot", 1, 100),
};
static const struct lttng_ust_ctl_enum_entry kinds[] = {
    ENTRY("_number", 1, 1),
    ENTRY("_text", 2, 2),
};
static const struct lttng_ust_ctl_enum_entry with_newline[] = {ENTRY("a\nb", 0, 0)};

static gboolean
lookup_enum(const char *name, guint64 id, TcLttngMetadataEnum *found, gpointer user_data)
{
	static const struct {
		const char *name;
		const struct lttng_ust_ctl_enum_entry *entries;
		gsize nr_entries;
	} known[] = {
	    {"colours", colours, G_N_ELEMENTS(colours)},
	    {"temperatures", temperatures, G_N_ELEMENTS(temperatures)},
	    {"kinds", kinds, G_N_ELEMENTS(kinds)},
	    {"with_newline", with_newline, G_N_ELEMENTS(with_newline)},
	    {"empty", colours, 0},
	};

	g_assert_null(user_data);
	if (id != 7)
		return FALSE;
	for (gsize i = 0; i < G_N_ELEMENTS(known); i++)
		if (strcmp(known[i].name, name) == 0) {
			found->entries = known[i].entries;
			found->nr_entries = known[i].nr_entries;
			return TRUE;
		}
	return FALSE;
}

static const TcLttngMetadataOptions options = {.lookup_enum = lookup_enum};

static Fields *
fields_new(void)
{
	return g_array_new(FALSE, TRUE, sizeof(struct lttng_ust_ctl_field));
}

static char *
describe(Fields *fields, const TcLttngMetadataOptions *with, GError **error)
{
	GString *out = g_string_new("");
	gboolean is_done = tc_lttng_metadata_append_fields(
	    out, (const struct lttng_ust_ctl_field *)fields->data, fields->len, 1, with, error);

	if (!is_done) {
		g_assert_cmpuint(out->len, ==, 0);
		g_string_free(out, TRUE);
		return NULL;
	}
	return g_string_free(out, FALSE);
}

static void
assert_text(Fields *fields, const char *expected)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *text = describe(fields, &options, &error);

	g_assert_no_error(error);
	g_assert_cmpstr(text, ==, expected);
	g_array_unref(fields);
}

static void
assert_refused(Fields *fields, const char *message)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *text = describe(fields, &options, &error);

	g_assert_null(text);
	g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
	if (strstr(error->message, message) == NULL)
		g_error("refused with \"%s\", expected \"%s\" in it", error->message, message);
	g_array_unref(fields);
}

static void
test_integers(void)
{
	Fields *fields = fields_new();

	add_integer(fields, "u8", 8, FALSE, 10, 8);
	add_integer(fields, "s64", 64, TRUE, 16, 64);
	add_integer(fields, "bit", 1, FALSE, 2, 1);
	add_integer(fields, "odd", 27, FALSE, 8, 1)->type.u.integer.reverse_byte_order = 1;
	assert_text(fields,
		    "\tinteger { size = 8; align = 8; signed = 0; encoding = none; base = 10; } _u8;\n"
		    "\tinteger { size = 64; align = 64; signed = 1; encoding = none; base = 16; } _s64;\n"
		    "\tinteger { size = 1; align = 1; signed = 0; encoding = none; base = 2; } _bit;\n"
		    "\tinteger { size = 27; align = 1; signed = 0; encoding = none; base = 8; "
		    "byte_order = be; } _odd;\n");
}

static void
test_byte_order(void)
{
	static const TcLttngMetadataOptions big = {.is_big_endian = TRUE};
	g_autoptr(GError) error = NULL;
	g_autofree char *text = NULL;
	Fields *fields = fields_new();

	add_float(fields, "f", FALSE)->type.u._float.reverse_byte_order = 1;
	text = describe(fields, &big, &error);
	g_assert_no_error(error);
	g_assert_cmpstr(text, ==,
			"\tfloating_point { exp_dig = 8; mant_dig = 24; align = 32; byte_order = le; "
			"} _f;\n");
	g_array_unref(fields);
}

static void
test_floats_strings(void)
{
	Fields *fields = fields_new();

	add_float(fields, "f32", FALSE);
	add_float(fields, "f64", TRUE);
	add_string(fields, "utf8", lttng_ust_ctl_encode_UTF8);
	add_string(fields, "ascii", lttng_ust_ctl_encode_ASCII);
	add_string(fields, "plain", lttng_ust_ctl_encode_none);
	assert_text(fields, "\tfloating_point { exp_dig = 8; mant_dig = 24; align = 32; } _f32;\n"
			    "\tfloating_point { exp_dig = 11; mant_dig = 53; align = 64; } _f64;\n"
			    "\tstring _utf8;\n"
			    "\tstring { encoding = ASCII; } _ascii;\n"
			    "\tstring _plain;\n");
}

static void
test_enums(void)
{
	Fields *fields = fields_new();
	struct lttng_ust_ctl_field *legacy;

	add_enum(fields, "colour", "colours", 8, FALSE);
	legacy = add(fields, "temp", lttng_ust_ctl_atype_enum);
	g_strlcpy(legacy->type.u.legacy.basic.enumeration.name, "temperatures",
		  LTTNG_UST_ABI_SYM_NAME_LEN);
	legacy->type.u.legacy.basic.enumeration.id = 7;
	set_integer(&legacy->type.u.legacy.basic.enumeration.container_type, 16, TRUE, 10, 16);
	assert_text(fields,
		    "\tenum : integer { size = 8; align = 8; signed = 0; encoding = none; base = 10; } {\n"
		    "\t\t\"red\" = 0,\n"
		    "\t\t\"green\" = 1 ... 3,\n"
		    "\t\t\"blue\",\n"
		    "\t} _colour;\n"
		    "\tenum : integer { size = 16; align = 16; signed = 1; encoding = none; base = 10; } {\n"
		    "\t\t\"cold\" = -40 ... -1,\n"
		    "\t\t\"say \\\"hi\\\"\\\\\" = 0,\n"
		    "\t\t\"hot\" = 1 ... 100,\n"
		    "\t} _temp;\n");
}

static void
test_arrays_sequences(void)
{
	Fields *fields = fields_new();
	struct lttng_ust_ctl_field *legacy;

	add_array(fields, "text", 4, 0);
	add_integer(fields, "", 8, TRUE, 10, 8)->type.u.integer.encoding = lttng_ust_ctl_encode_UTF8;
	add_integer(fields, "_values_length", 32, FALSE, 10, 32);
	add_sequence(fields, "values", "_values_length", 8);
	add_float(fields, "", TRUE);
	add_array(fields, "matrix", 2, 0);
	add_array(fields, "", 3, 0);
	add_string(fields, "", lttng_ust_ctl_encode_UTF8);
	legacy = add(fields, "old", lttng_ust_ctl_atype_sequence);
	set_basic_integer(&legacy->type.u.legacy.sequence.length_type, 32, FALSE);
	set_basic_integer(&legacy->type.u.legacy.sequence.elem_type, 16, TRUE);
	legacy = add(fields, "old_array", lttng_ust_ctl_atype_array);
	legacy->type.u.legacy.array.length = 5;
	set_basic_integer(&legacy->type.u.legacy.array.elem_type, 8, FALSE);
	assert_text(fields,
		    "\tinteger { size = 8; align = 8; signed = 1; encoding = UTF8; base = 10; } _text[4];\n"
		    "\tinteger { size = 32; align = 32; signed = 0; encoding = none; base = 10; } "
		    "__values_length;\n"
		    "\tstruct { } align(64) _values_padding;\n"
		    "\tfloating_point { exp_dig = 11; mant_dig = 53; align = 64; } "
		    "_values[ __values_length ];\n"
		    "\tstring _matrix[2][3];\n"
		    "\tinteger { size = 32; align = 8; signed = 0; encoding = none; base = 10; } "
		    "__old_length;\n"
		    "\tinteger { size = 16; align = 8; signed = 1; encoding = none; base = 10; } "
		    "_old[ __old_length ];\n"
		    "\tinteger { size = 8; align = 8; signed = 0; encoding = none; base = 10; } "
		    "_old_array[5];\n");
}

static void
test_structs_variants(void)
{
	Fields *fields = fields_new();

	add_struct(fields, "empty", 0, 0);
	add_struct(fields, "point", 2, 8);
	add_integer(fields, "x", 32, TRUE, 10, 32);
	add_integer(fields, "y", 32, TRUE, 10, 32);
	add_enum(fields, "kind", "kinds", 8, FALSE);
	add_variant(fields, "value", "kind", 2);
	add_integer(fields, "number", 64, TRUE, 10, 64);
	add_string(fields, "text", lttng_ust_ctl_encode_UTF8);
	assert_text(fields,
		    "\tstruct {\n"
		    "\t} _empty;\n"
		    "\tstruct {\n"
		    "\t\tinteger { size = 32; align = 32; signed = 1; encoding = none; base = 10; } _x;\n"
		    "\t\tinteger { size = 32; align = 32; signed = 1; encoding = none; base = 10; } _y;\n"
		    "\t} align(64) _point;\n"
		    "\tenum : integer { size = 8; align = 8; signed = 0; encoding = none; base = 10; } {\n"
		    "\t\t\"_number\" = 1,\n"
		    "\t\t\"_text\" = 2,\n"
		    "\t} _kind;\n"
		    "\tvariant <_kind> {\n"
		    "\t\tinteger { size = 64; align = 64; signed = 1; encoding = none; base = 10; } _number;\n"
		    "\t\tstring _text;\n"
		    "\t} _value;\n");
}

static void
test_names(void)
{
	Fields *fields = fields_new();

	add_integer(fields, "ns:a.b$c", 8, FALSE, 10, 8);
	add_integer(fields, "9lives", 8, FALSE, 10, 8);
	assert_text(fields,
		    "\tinteger { size = 8; align = 8; signed = 0; encoding = none; base = 10; } _ns_a_b_c;\n"
		    "\tinteger { size = 8; align = 8; signed = 0; encoding = none; base = 10; } _9lives;\n");
}

static void
test_event(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GString) out = g_string_new("/* before */\n");
	Fields *fields = fields_new();
	char name[LTTNG_UST_ABI_SYM_NAME_LEN] = "provider:say_\"hi\"\\";
	TcLttngMetadataEvent event = {
	    .name = name,
	    .id = 3,
	    .stream_id = 1,
	    .loglevel = -1,
	    .model_emf_uri = "http://example.org/model",
	};

	add_string(fields, "msg", lttng_ust_ctl_encode_UTF8);
	event.fields = (const struct lttng_ust_ctl_field *)fields->data;
	event.nr_fields = fields->len;
	g_assert_true(tc_lttng_metadata_append_event(out, &event, &options, &error));
	g_assert_no_error(error);
	g_assert_cmpstr(out->str, ==,
			"/* before */\n"
			"event {\n"
			"\tname = \"provider:say_\\\"hi\\\"\\\\\";\n"
			"\tid = 3;\n"
			"\tstream_id = 1;\n"
			"\tloglevel = -1;\n"
			"\tmodel.emf.uri = \"http://example.org/model\";\n"
			"\tfields := struct {\n"
			"\t\tstring _msg;\n"
			"\t};\n"
			"};\n\n");

	/* Refused events leave the text as it was. */
	g_string_assign(out, "/* before */\n");
	name[4] = '\n';
	g_assert_false(tc_lttng_metadata_append_event(out, &event, &options, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
	g_assert_nonnull(strstr(error->message, "control byte 0x0a"));
	g_clear_error(&error);
	memset(name, 'a', sizeof(name));
	g_assert_false(tc_lttng_metadata_append_event(out, &event, &options, &error));
	g_assert_nonnull(strstr(error->message, "without a NUL"));
	g_clear_error(&error);
	g_strlcpy(name, "ok", sizeof(name));
	event.model_emf_uri = "a\x7f";
	g_assert_false(tc_lttng_metadata_append_event(out, &event, &options, &error));
	g_assert_nonnull(strstr(error->message, "model.emf.uri"));
	g_assert_cmpstr(out->str, ==, "/* before */\n");
	g_array_unref(fields);
}

/* One refusal: fields made by build, a piece of the message. */
typedef struct {
	const char *path;
	void (*build)(Fields *fields);
	const char *message;
} Refusal;

static void
bad_size(Fields *f)
{
	add_integer(f, "zero", 0, FALSE, 10, 8);
}
static void
big_size(Fields *f)
{
	add_integer(f, "wide", 65, FALSE, 10, 8);
}
static void
bad_base(Fields *f)
{
	add_integer(f, "b", 8, FALSE, 3, 8);
}
static void
bad_alignment(Fields *f)
{
	add_integer(f, "a", 8, FALSE, 10, 12);
}
static void
zero_alignment(Fields *f)
{
	add_integer(f, "a", 8, FALSE, 10, 0);
}
static void
bad_signedness(Fields *f)
{
	add_integer(f, "s", 8, 2, 10, 8);
}
static void
bad_encoding(Fields *f)
{
	add_integer(f, "e", 8, FALSE, 10, 8)->type.u.integer.encoding = 3;
}
static void
wide_text(Fields *f)
{
	add_integer(f, "e", 16, FALSE, 10, 16)->type.u.integer.encoding = 1;
}
static void
bad_float(Fields *f)
{
	add_float(f, "f", FALSE)->type.u._float.mant_dig = 23;
}
static void
bad_string(Fields *f)
{
	add_string(f, "s", 9);
}
static void
unknown_enum(Fields *f)
{
	add_enum(f, "e", "nobody", 8, FALSE);
}
static void
empty_enum(Fields *f)
{
	add_enum(f, "e", "empty", 8, FALSE);
}
static void
enum_overflow(Fields *f)
{
	add_enum(f, "e", "temperatures", 8, FALSE); /* -40 in an unsigned container */
}
static void
enum_label_newline(Fields *f)
{
	add_enum(f, "e", "with_newline", 8, FALSE);
}
static void
enum_no_container(Fields *f)
{
	add(f, "e", lttng_ust_ctl_atype_enum_nestable);
}
static void
enum_float_container(Fields *f)
{
	g_strlcpy(add(f, "e", lttng_ust_ctl_atype_enum_nestable)->type.u.enum_nestable.name,
		  "colours", LTTNG_UST_ABI_SYM_NAME_LEN);
	add_float(f, "", FALSE);
}
static void
array_no_element(Fields *f)
{
	add_array(f, "a", 3, 0);
}
static void
array_bad_alignment(Fields *f)
{
	add_array(f, "a", 3, 3);
	add_integer(f, "", 8, FALSE, 10, 8);
}
static void
nested_aligned_array(Fields *f)
{
	add_array(f, "a", 3, 0);
	add_array(f, "", 3, 8);
	add_integer(f, "", 8, FALSE, 10, 8);
}
static void
sequence_unknown_length(Fields *f)
{
	add_sequence(f, "s", "n", 0);
	add_integer(f, "", 8, FALSE, 10, 8);
}
static void
sequence_signed_length(Fields *f)
{
	add_integer(f, "n", 32, TRUE, 10, 32);
	add_sequence(f, "s", "n", 0);
	add_integer(f, "", 8, FALSE, 10, 8);
}
static void
sequence_later_length(Fields *f)
{
	add_sequence(f, "s", "n", 0);
	add_integer(f, "", 8, FALSE, 10, 8);
	add_integer(f, "n", 32, FALSE, 10, 32);
}
static void
sequence_length_in_struct(Fields *f)
{
	add_struct(f, "inner", 1, 0);
	add_integer(f, "n", 32, FALSE, 10, 32);
	add_sequence(f, "s", "n", 0);
	add_integer(f, "", 8, FALSE, 10, 8);
}
static void
struct_claims_too_much(Fields *f)
{
	add_struct(f, "s", 2, 0);
	add_array(f, "a", 1, 0); /* two entries for one member */
	add_integer(f, "", 8, FALSE, 10, 8);
}
static void
struct_huge_claim(Fields *f)
{
	add_struct(f, "s", G_MAXUINT32, 0);
}
static void
too_deep(Fields *f)
{
	for (int i = 0; i < 40; i++)
		add_struct(f, i == 0 ? "s" : "t", 1, 0);
	add_integer(f, "x", 8, FALSE, 10, 8);
}
static void
too_deep_arrays(Fields *f)
{
	for (int i = 0; i < 40; i++)
		add_array(f, i == 0 ? "a" : "", 1, 0);
	add_integer(f, "", 8, FALSE, 10, 8);
}
static void
variant_no_tag(Fields *f)
{
	add_variant(f, "v", "kind", 1);
	add_string(f, "text", 0);
}
static void
variant_integer_tag(Fields *f)
{
	add_integer(f, "kind", 8, FALSE, 10, 8);
	add_variant(f, "v", "kind", 1);
	add_string(f, "text", 0);
}
static void
variant_unlabelled_choice(Fields *f)
{
	add_enum(f, "kind", "kinds", 8, FALSE);
	add_variant(f, "v", "kind", 1);
	add_string(f, "other", 0);
}
static void
variant_no_choice(Fields *f)
{
	add_enum(f, "kind", "kinds", 8, FALSE);
	add_variant(f, "v", "kind", 0);
}
static void
name_clash(Fields *f)
{
	add_integer(f, "a.b", 8, FALSE, 10, 8);
	add_integer(f, "a_b", 8, FALSE, 10, 8);
}
static void
padding_clash(Fields *f)
{
	add_integer(f, "a_padding", 8, FALSE, 10, 8);
	add_array(f, "a", 3, 8);
	add_integer(f, "", 8, FALSE, 10, 8);
}
static void
keyword(Fields *f)
{
	add_integer(f, "Bool", 8, FALSE, 10, 8);
}
static void
empty_name(Fields *f)
{
	add_integer(f, "", 8, FALSE, 10, 8);
}
static void
unterminated_name(Fields *f)
{
	struct lttng_ust_ctl_field *field = add_integer(f, "x", 8, FALSE, 10, 8);

	memset(field->name, 'x', sizeof(field->name));
}
static void
unknown_type(Fields *f)
{
	add(f, "x", NR_LTTNG_UST_CTL_ABSTRACT_TYPES);
}
static void
legacy_sequence_signed_length(Fields *f)
{
	struct lttng_ust_ctl_field *legacy = add(f, "old", lttng_ust_ctl_atype_sequence);

	set_basic_integer(&legacy->type.u.legacy.sequence.length_type, 32, TRUE);
	set_basic_integer(&legacy->type.u.legacy.sequence.elem_type, 16, TRUE);
}
static void
huge_metadata(Fields *f)
{
	char name[16];

	/* Over a megabyte of text from a few thousand entries: refused. */
	for (int i = 0; i < 20000; i++) {
		g_snprintf(name, sizeof(name), "f%d", i);
		add_enum(f, name, "temperatures", 16, TRUE);
	}
}

static const Refusal refusals[] = {
    {"integer-size-0", bad_size, "integer of 0 bits"},
    {"integer-size-65", big_size, "integer of 65 bits"},
    {"integer-base", bad_base, "base 3"},
    {"integer-alignment", bad_alignment, "alignment of 12 bits"},
    {"integer-alignment-0", zero_alignment, "alignment of 0 bits"},
    {"integer-signedness", bad_signedness, "signedness 2"},
    {"integer-encoding", bad_encoding, "unknown encoding 3"},
    {"integer-wide-text", wide_text, "encoded integer of 16 bits"},
    {"float-digits", bad_float, "float of 8 exponent and 23 mantissa"},
    {"string-encoding", bad_string, "unknown string encoding 9"},
    {"enum-unknown", unknown_enum, "unknown enum \"nobody\""},
    {"enum-empty", empty_enum, "has no entry"},
    {"enum-range", enum_overflow, "range does not fit"},
    {"enum-label-control", enum_label_newline, "control byte 0x0a"},
    {"enum-no-container", enum_no_container, "ends before its type is complete"},
    {"enum-float-container", enum_float_container, "enum container of type 5"},
    {"array-no-element", array_no_element, "ends before its type is complete"},
    {"array-alignment", array_bad_alignment, "alignment of 24 bits"},
    {"array-nested-aligned", nested_aligned_array, "aligned array below a field"},
    {"sequence-unknown-length", sequence_unknown_length, "\"n\" is not an earlier unsigned"},
    {"sequence-signed-length", sequence_signed_length, "\"n\" is not an earlier unsigned"},
    {"sequence-later-length", sequence_later_length, "\"n\" is not an earlier unsigned"},
    {"sequence-length-out-of-scope", sequence_length_in_struct, "\"n\" is not an earlier"},
    {"struct-claims", struct_claims_too_much, "ends before member 2 of 2"},
    {"struct-huge-claim", struct_huge_claim, "claims 4294967295 members where 0"},
    {"too-deep", too_deep, "nested deeper than 16"},
    {"too-deep-arrays", too_deep_arrays, "nested deeper than 16"},
    {"variant-no-tag", variant_no_tag, "\"kind\" is not an earlier enum"},
    {"variant-integer-tag", variant_integer_tag, "\"kind\" is not an earlier enum"},
    {"variant-unlabelled-choice", variant_unlabelled_choice, "no label _other"},
    {"variant-no-choice", variant_no_choice, "variant without a choice"},
    {"name-clash", name_clash, "field 'a_b': its identifier _a_b is already declared"},
    {"padding-clash", padding_clash, "_a_padding is already declared"},
    {"keyword", keyword, "_Bool is a TSDL keyword"},
    {"empty-name", empty_name, "field #0: empty name"},
    {"unterminated-name", unterminated_name, "field #0: name without a NUL"},
    {"unknown-type", unknown_type, "unknown type 13"},
    {"legacy-sequence-signed-length", legacy_sequence_signed_length,
     "sequence length not an unsigned"},
    {"too-large", huge_metadata, "metadata longer than"},
};

static void
test_refusal(gconstpointer data)
{
	const Refusal *refusal = data;
	Fields *fields = fields_new();

	refusal->build(fields);
	assert_refused(fields, refusal->message);
}

/*
 * babeltrace2's reading. A trace of one stream: packet header (magic,
 * stream id), packet context (content and packet sizes in bits), event
 * header (id, timestamp), all 8-bit aligned, which ends on 64 bits (no
 * payload is aligned on more, so it starts there); the payload is encoded bit
 * by bit, little-endian, aligned as its TSDL says (relative to the
 * packet's start, as CTF has it).
 */
typedef struct {
	GByteArray *bytes;
	gsize bit;
} Encoder;

/* Grows the packet to hold bits, with zeros. */
static void
encode_grow(Encoder *encoder, gsize bits)
{
	static const guint8 zero;

	while (encoder->bytes->len < (bits + 7) / 8)
		g_byte_array_append(encoder->bytes, &zero, 1);
}

static void
encode_align(Encoder *encoder, guint bits)
{
	encoder->bit = (encoder->bit + bits - 1) / bits * bits;
	encode_grow(encoder, encoder->bit);
}

static void
encode_bits(Encoder *encoder, guint64 value, guint size, guint alignment)
{
	encode_align(encoder, alignment);
	encode_grow(encoder, encoder->bit + size);
	for (guint i = 0; i < size; i++, encoder->bit++)
		if ((value >> i) & 1)
			encoder->bytes->data[encoder->bit / 8] |= 1 << (encoder->bit % 8);
}

/* A byte-aligned big-endian integer. */
static void
encode_be(Encoder *encoder, guint64 value, guint size)
{
	encode_align(encoder, 8);
	for (guint i = size / 8; i > 0; i--)
		encode_bits(encoder, (value >> (8 * (i - 1))) & 0xff, 8, 8);
}

static void
encode_double(Encoder *encoder, double value)
{
	guint64 bits;

	memcpy(&bits, &value, sizeof(bits));
	encode_bits(encoder, bits, 64, 64);
}

static void
encode_string(Encoder *encoder, const char *text)
{
	for (const char *at = text;; at++) {
		encode_bits(encoder, (guchar)*at, 8, 8);
		if (*at == '\0')
			break;
	}
}

static const char trace_head[] =
    "/* CTF 1.8 */\n"
    "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
    "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
    "trace {\n\tmajor = 1;\n\tminor = 8;\n\tbyte_order = le;\n"
    "\tpacket.header := struct { uint32_t magic; uint32_t stream_id; };\n};\n"
    "clock {\n\tname = \"monotonic\";\n\tfreq = 1000000000;\n\toffset = 0;\n};\n"
    "typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } "
    ":= uint64_clock_t;\n"
    "stream {\n\tid = 0;\n"
    "\tevent.header := struct { uint64_t id; uint64_clock_t timestamp; };\n"
    "\tpacket.context := struct { uint64_t content_size; uint64_t packet_size; };\n};\n\n";

/* Writes the trace of fields (encoded by encode) to a new directory,
 * reads it with babeltrace2 and returns the event's payload as printed. */
static char *
read_back(Fields *fields, void (*encode)(Encoder *encoder))
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GString) metadata = g_string_new(trace_head);
	g_autofree char *dir = g_dir_make_tmp("tc-lttng-metadata-XXXXXX", &error);
	g_autofree char *metadata_path = g_build_filename(dir, "metadata", NULL);
	g_autofree char *stream_path = g_build_filename(dir, "stream_0", NULL);
	g_autofree char *output = NULL, *errors = NULL;
	g_autoptr(GByteArray) packet = g_byte_array_new();
	Encoder encoder = {packet, 0};
	char name[LTTNG_UST_ABI_SYM_NAME_LEN] = "test:event"; /* as received: a whole buffer */
	TcLttngMetadataEvent event = {
	    .name = name,
	    .fields = (const struct lttng_ust_ctl_field *)fields->data,
	    .nr_fields = fields->len,
	    .loglevel = 13,
	};
	const char *argv[] = {"babeltrace2", dir, NULL};
	const char *payload;
	guint64 content_bits;
	int status;

	g_assert_no_error(error);
	g_assert_true(tc_lttng_metadata_append_event(metadata, &event, &options, &error));
	g_assert_no_error(error);
	g_assert_true(g_file_set_contents(metadata_path, metadata->str, -1, &error));
	encode_bits(&encoder, 0xC1FC1FC1, 32, 8);
	encode_bits(&encoder, 0, 32, 8);
	encode_bits(&encoder, 0, 64, 8); /* sizes, written below */
	encode_bits(&encoder, 0, 64, 8);
	encode_bits(&encoder, 0, 64, 8); /* event id */
	encode_bits(&encoder, 1000, 64, 8);
	encode(&encoder);
	content_bits = encoder.bit;
	memcpy(packet->data + 8, &content_bits, 8);
	content_bits = (guint64)packet->len * 8;
	memcpy(packet->data + 16, &content_bits, 8);
	g_assert_true(g_file_set_contents(stream_path, (const char *)packet->data, packet->len,
					  &error));
	g_assert_true(g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
				   &output, &errors, &status, &error));
	g_assert_no_error(error);
	if (!g_spawn_check_wait_status(status, NULL))
		g_error("babeltrace2 failed: %s\nmetadata:\n%s", errors, metadata->str);
	g_unlink(metadata_path);
	g_unlink(stream_path);
	g_rmdir(dir);
	payload = strstr(output, "test:event: ");
	g_assert_nonnull(payload);
	return g_strchomp(g_strdup(payload + strlen("test:event: ")));
}

static void
assert_read_back(Fields *fields, void (*encode)(Encoder *encoder), const char *expected)
{
	g_autofree char *payload = NULL;

	if (!g_find_program_in_path("babeltrace2")) {
		g_test_skip("no babeltrace2");
		g_array_unref(fields);
		return;
	}
	payload = read_back(fields, encode);
	g_assert_cmpstr(payload, ==, expected);
	g_array_unref(fields);
}

static void
encode_integers(Encoder *e)
{
	encode_bits(e, 200, 8, 8);
	encode_bits(e, (guint64)-1234, 16, 16);
	encode_bits(e, 0xdeadbeef, 32, 32);
	encode_bits(e, (guint64)G_MININT64 + 1, 64, 64);
	encode_bits(e, G_MAXUINT64, 64, 64);
	encode_bits(e, 0755, 16, 16);
	encode_bits(e, 5, 8, 8);
	encode_bits(e, 21, 5, 1);
	encode_bits(e, 1, 1, 1);
	encode_bits(e, (guint64)-3, 3, 1);
	encode_be(e, 0x01020304, 32);
}

static void
test_read_integers(void)
{
	Fields *fields = fields_new();

	add_integer(fields, "u8", 8, FALSE, 10, 8);
	add_integer(fields, "s16", 16, TRUE, 10, 16);
	add_integer(fields, "hex", 32, FALSE, 16, 32);
	add_integer(fields, "s64", 64, TRUE, 10, 64);
	add_integer(fields, "u64", 64, FALSE, 10, 64);
	add_integer(fields, "octal", 16, FALSE, 8, 16);
	add_integer(fields, "binary", 8, FALSE, 2, 8);
	add_integer(fields, "five", 5, FALSE, 10, 1);
	add_integer(fields, "flag", 1, FALSE, 10, 1);
	add_integer(fields, "three", 3, TRUE, 10, 1);
	add_integer(fields, "big", 32, FALSE, 16, 8)->type.u.integer.reverse_byte_order = 1;
	assert_read_back(fields, encode_integers,
			 "{ u8 = 200, s16 = -1234, hex = 0xDEADBEEF, s64 = -9223372036854775807, "
			 "u64 = 18446744073709551615, octal = 0755, binary = 0b00000101, five = 21, "
			 "flag = 1, three = -3, big = 0x1020304 }");
}

static void
encode_floats_strings(Encoder *e)
{
	float single = 1.5f;
	guint32 bits;

	memcpy(&bits, &single, sizeof(bits));
	encode_bits(e, bits, 32, 32);
	encode_double(e, -2.25);
	encode_string(e, "hello, \"world\"");
	encode_string(e, "ascii");
}

static void
test_read_floats_strings(void)
{
	Fields *fields = fields_new();

	add_float(fields, "f32", FALSE);
	add_float(fields, "f64", TRUE);
	add_string(fields, "text", lttng_ust_ctl_encode_UTF8);
	add_string(fields, "ascii", lttng_ust_ctl_encode_ASCII);
	assert_read_back(fields, encode_floats_strings,
			 "{ f32 = 1.5, f64 = -2.25, text = \"hello, \\\"world\\\"\", "
			 "ascii = \"ascii\" }");
}

static void
encode_enums(Encoder *e)
{
	encode_bits(e, 2, 8, 8);
	encode_bits(e, 4, 8, 8);
	encode_bits(e, (guint64)-7, 16, 16);
	encode_bits(e, 0, 16, 16);
}

static void
test_read_enums(void)
{
	Fields *fields = fields_new();
	struct lttng_ust_ctl_field *legacy;

	add_enum(fields, "green", "colours", 8, FALSE);
	add_enum(fields, "blue", "colours", 8, FALSE);
	add_enum(fields, "cold", "temperatures", 16, TRUE);
	legacy = add(fields, "quote", lttng_ust_ctl_atype_enum);
	g_strlcpy(legacy->type.u.legacy.basic.enumeration.name, "temperatures",
		  LTTNG_UST_ABI_SYM_NAME_LEN);
	legacy->type.u.legacy.basic.enumeration.id = 7;
	set_integer(&legacy->type.u.legacy.basic.enumeration.container_type, 16, TRUE, 10, 16);
	assert_read_back(fields, encode_enums,
			 "{ green = ( \"green\" : container = 2 ), blue = ( \"blue\" : container = 4 "
			 "), cold = ( \"cold\" : container = -7 ), quote = ( \"say \\\"hi\\\"\\\\\" : "
			 "container = 0 ) }");
}

static void
encode_arrays(Encoder *e)
{
	encode_string(e, "hi!"); /* the 4 bytes of text */
	encode_bits(e, 2, 32, 32);
	encode_align(e, 64);
	encode_double(e, 0.5);
	encode_double(e, -1);
	encode_string(e, "a");
	encode_string(e, "b");
	encode_string(e, "c");
	encode_string(e, "d");
	encode_bits(e, 3, 32, 8);
	encode_bits(e, 1, 16, 8);
	encode_bits(e, (guint64)-2, 16, 8);
	encode_bits(e, 3, 16, 8);
	encode_bits(e, 2, 8, 8);
	encode_bits(e, 'o', 8, 8);
	encode_bits(e, 'k', 8, 8);
}

static void
test_read_arrays_sequences(void)
{
	Fields *fields = fields_new();
	struct lttng_ust_ctl_field *legacy;

	add_array(fields, "text", 4, 0);
	add_integer(fields, "", 8, TRUE, 10, 8)->type.u.integer.encoding = lttng_ust_ctl_encode_UTF8;
	add_integer(fields, "_values_length", 32, FALSE, 10, 32);
	add_sequence(fields, "values", "_values_length", 8);
	add_float(fields, "", TRUE);
	add_array(fields, "matrix", 2, 0);
	add_array(fields, "", 2, 0);
	add_string(fields, "", lttng_ust_ctl_encode_UTF8);
	legacy = add(fields, "old", lttng_ust_ctl_atype_sequence);
	set_basic_integer(&legacy->type.u.legacy.sequence.length_type, 32, FALSE);
	set_basic_integer(&legacy->type.u.legacy.sequence.elem_type, 16, TRUE);
	add_integer(fields, "n", 8, FALSE, 10, 8);
	add_sequence(fields, "chars", "n", 0);
	add_integer(fields, "", 8, FALSE, 10, 8)->type.u.integer.encoding = lttng_ust_ctl_encode_ASCII;
	assert_read_back(fields, encode_arrays,
			 "{ text = \"hi!\", _values_length = 2, values_padding = { }, values = [ [0] = "
			 "0.5, [1] = -1 ], matrix = [ [0] = [ [0] = \"a\", [1] = \"b\" ], "
			 "[1] = [ [0] = \"c\", [1] = \"d\" ] ], _old_length = 3, old = [ [0] = 1, [1] = "
			 "-2, [2] = 3 ], n = 2, chars = \"ok\" }");
}

static void
encode_structs_variants(Encoder *e)
{
	encode_align(e, 64);
	encode_bits(e, (guint64)-5, 32, 32);
	encode_bits(e, 6, 32, 32);
	encode_bits(e, 2, 8, 8);
	encode_string(e, "chosen");
	encode_bits(e, 2, 8, 8);
	encode_bits(e, 70, 8, 8);
	encode_bits(e, 71, 8, 8);
}

static void
test_read_structs_variants(void)
{
	Fields *fields = fields_new();

	add_struct(fields, "empty", 0, 0);
	add_struct(fields, "point", 2, 8);
	add_integer(fields, "x", 32, TRUE, 10, 32);
	add_integer(fields, "y", 32, TRUE, 10, 32);
	add_enum(fields, "kind", "kinds", 8, FALSE);
	add_variant(fields, "value", "kind", 2);
	add_integer(fields, "number", 64, TRUE, 10, 64);
	add_string(fields, "text", lttng_ust_ctl_encode_UTF8);
	/* An array of structs, each with a sequence whose length is in the struct. */
	add_array(fields, "list", 1, 0);
	add_struct(fields, "", 2, 0);
	add_integer(fields, "len", 8, FALSE, 10, 8);
	add_sequence(fields, "items", "len", 0);
	add_integer(fields, "", 8, FALSE, 10, 8);
	assert_read_back(fields, encode_structs_variants,
			 "{ empty = { }, point = { x = -5, y = 6 }, kind = ( \"_text\" : container = "
			 "2 ), value = { \"chosen\" }, list = [ [0] = { len = 2, items = [ [0] "
			 "= 70, [1] = 71 ] } ] }");
}

static void
encode_names(Encoder *e)
{
	encode_bits(e, 1, 8, 8);
	encode_bits(e, 2, 8, 8);
}

static void
test_read_names(void)
{
	Fields *fields = fields_new();

	add_integer(fields, "ns:a.b", 8, FALSE, 10, 8);
	add_integer(fields, "9lives", 8, FALSE, 10, 8);
	assert_read_back(fields, encode_names, "{ ns_a_b = 1, 9lives = 2 }");
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/lttng-metadata/integers", test_integers);
	g_test_add_func("/tracectl/lttng-metadata/byte-order", test_byte_order);
	g_test_add_func("/tracectl/lttng-metadata/floats-strings", test_floats_strings);
	g_test_add_func("/tracectl/lttng-metadata/enums", test_enums);
	g_test_add_func("/tracectl/lttng-metadata/arrays-sequences", test_arrays_sequences);
	g_test_add_func("/tracectl/lttng-metadata/structs-variants", test_structs_variants);
	g_test_add_func("/tracectl/lttng-metadata/names", test_names);
	g_test_add_func("/tracectl/lttng-metadata/event", test_event);
	for (gsize i = 0; i < G_N_ELEMENTS(refusals); i++) {
		g_autofree char *path =
		    g_strdup_printf("/tracectl/lttng-metadata/refused/%s", refusals[i].path);

		g_test_add_data_func(path, &refusals[i], test_refusal);
	}
	g_test_add_func("/tracectl/lttng-metadata/babeltrace2/integers", test_read_integers);
	g_test_add_func("/tracectl/lttng-metadata/babeltrace2/floats-strings",
			test_read_floats_strings);
	g_test_add_func("/tracectl/lttng-metadata/babeltrace2/enums", test_read_enums);
	g_test_add_func("/tracectl/lttng-metadata/babeltrace2/arrays-sequences",
			test_read_arrays_sequences);
	g_test_add_func("/tracectl/lttng-metadata/babeltrace2/structs-variants",
			test_read_structs_variants);
	g_test_add_func("/tracectl/lttng-metadata/babeltrace2/names", test_read_names);
	return g_test_run();
}
