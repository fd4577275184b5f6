/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzz target: the CTF metadata tracectld makes of the fields an
 * LTTng-UST application describes on its notify socket
 * (tc_lttng_metadata_append_fields() and _append_event(),
 * apps/tc-lttng-metadata.c). The application may be anyone's program:
 * every byte of the field array and of the enums it registered is its.
 *
 * The input's bytes: a flags byte (bit 0: the application is big-endian;
 * bit 1: describe an event, whose 8-byte name follows the enums); then
 * two enums, "e0" (id 0) and "e1" (id 1), each a count byte (0 to 7)
 * and 4 bytes an entry (start as a signed byte, the span to its end, bit
 * 0 of the third byte: automatic, the fourth picks a label among a few,
 * one with a quote, one with a newline, "_a" "_b" "_c" that name
 * variant choices); then fields of 7 bytes each, at most 64: a type
 * (every lttng_ust_ctl_abstract_types, legacy ones included, and one
 * that is none), a name picked from a table (plain, mangled, clashing,
 * a TSDL keyword, empty, without a NUL, not ASCII) and five parameters
 * the type reads (sizes, signedness, base, encoding, alignment, counts,
 * references to other names), so that compounds may claim more than is
 * left, sequences name absent lengths and variants absent tags.
 *
 * WHAT MUST HOLD (beyond no sanitizer error):
 *   - a refusal is an error of TC_ERROR_INVALID_ARGUMENT with a message,
 *     and the output is left exactly as it was (text written before);
 *   - the fields are refused whenever the harness's own walk of the
 *     flattened layout finds them malformed: a compound that claims more
 *     entries than are left, a type that is none, nesting deeper than 16,
 *     an integer entry of 0 or more than 64 bits, an empty top-level name;
 *     and taken whenever they are plain integers of valid sizes, bases and
 *     alignments with distinct plain names;
 *   - taken, the text balances its braces, brackets and parentheses outside
 *     quoted strings; a quoted string holds no control byte and no quote
 *     or backslash that is not escaped; every line ends in a newline;
 *   - taken, the identifiers declared at the top level are, in order,
 *     those of the top-level fields the harness walked (each preceded by
 *     its alignment padding and an ABI-8 sequence's length field), with
 *     '_' before the name and '_' for any byte not a letter or digit, and
 *     no identifier is declared twice;
 *   - the text is at most 1,400 bytes a field entry plus 600 an enum
 *     entry handed to it;
 *   - an event is taken exactly when its fields are and its name is not
 *     empty and has no control byte.
 */
#include <glib.h>
#include <lttng/ust-ctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-driver.h"
#include "tc-error.h"
#include "tc-lttng-metadata.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
static unsigned long long inputs_run;
#define FAIL(...)                                                                                  \
	do {                                                                                       \
		fprintf(stderr, "fuzz-lttng-fields: input %llu: ", inputs_run);                    \
		fprintf(stderr, __VA_ARGS__);                                                      \
		fprintf(stderr, "\n");                                                             \
		abort();                                                                           \
	} while (0)

#define FIELDS_MAX 64
#define ENTRIES_MAX 7
#define RECORD_SIZE 7
#define PREFIX "/* written before */\n"

enum outcome {
	TAKEN_PLAIN,
	TAKEN_COMPOUND,
	TAKEN_ENUM,
	TAKEN_VARIANT,
	TAKEN_EVENT,
	REFUSED_MALFORMED,
	REFUSED_OTHER,
	REFUSED_EVENT,
	OUTCOMES,
};
static const char *const outcome_names[OUTCOMES] __attribute__((unused)) = {
    [TAKEN_PLAIN] = "taken, plain",
    [TAKEN_COMPOUND] = "taken, compound",
    [TAKEN_ENUM] = "taken, enum",
    [TAKEN_VARIANT] = "taken, variant",
    [TAKEN_EVENT] = "taken, event",
    [REFUSED_MALFORMED] = "refused, malformed",
    [REFUSED_OTHER] = "refused, other",
    [REFUSED_EVENT] = "refused, event",
};
static unsigned long long outcomes[OUTCOMES];

/* Names the fields and references pick: the first seven are plain. */
#define PLAIN_NAMES 7
static const char *const names[] = {
    "a", "b", "c", "len", "n", "x9", "_len_length", "a.b", "a_b", "Bool", "", "ns:ev",
    "a_padding", "9", "\xc3\xa9t\xc3\xa9", NULL, /* NULL: 256 bytes without a NUL */
};
static const char *const labels[] = {"_a", "_b", "_c", "q\"uote\\", "new\nline", "_n", "x", "_len"};

typedef struct {
	struct lttng_ust_ctl_enum_entry entries[2][ENTRIES_MAX];
	gsize nr_entries[2];
	gsize entries_given; /* by lookups, for the bound on the text */
} Enums;

static void
set_name(char *buffer, guint8 pick)
{
	const char *name = names[pick % ARRAY_LEN(names)];

	if (name == NULL)
		memset(buffer, 'z', LTTNG_UST_ABI_SYM_NAME_LEN);
	else
		g_strlcpy(buffer, name, LTTNG_UST_ABI_SYM_NAME_LEN);
}

static gboolean
lookup_enum(const char *name, guint64 id, TcLttngMetadataEnum *found, gpointer user_data)
{
	Enums *enums = user_data;
	int which = strcmp(name, "e0") == 0 ? 0 : strcmp(name, "e1") == 0 ? 1 : -1;

	if (which < 0 || id != (guint64)which)
		return FALSE;
	found->entries = enums->entries[which];
	found->nr_entries = enums->nr_entries[which];
	enums->entries_given += found->nr_entries;
	return TRUE;
}

static void
take_enums(struct fuzz_input *in, Enums *enums)
{
	for (int which = 0; which < 2; which++) {
		enums->nr_entries[which] = fuzz_take_byte(in) % (ENTRIES_MAX + 1);
		for (gsize i = 0; i < enums->nr_entries[which]; i++) {
			struct lttng_ust_ctl_enum_entry *entry = &enums->entries[which][i];
			gint64 start = (gint8)fuzz_take_byte(in);
			gint64 end = start + fuzz_take_byte(in) % 4;
			guint8 flags = fuzz_take_byte(in);

			memset(entry, 0, sizeof(*entry));
			entry->start = (struct lttng_ust_ctl_enum_value){(guint64)start, start < 0};
			entry->end = (struct lttng_ust_ctl_enum_value){(guint64)end, end < 0};
			if (flags & 1)
				entry->u.extra.options = LTTNG_UST_CTL_UST_ENUM_ENTRY_OPTION_IS_AUTO;
			g_strlcpy(entry->string, labels[fuzz_take_byte(in) % ARRAY_LEN(labels)],
				  sizeof(entry->string));
		}
	}
}

static guint16
alignment_bits(guint8 p)
{
	if (p == 255)
		return 0;
	return p >= 240 ? p : 1u << (p % 8);
}

static guint32
alignment_bytes(guint8 p)
{
	static const guint32 choices[] = {0, 0, 1, 8, 3};

	return choices[p % ARRAY_LEN(choices)];
}

static void
set_integer(struct lttng_ust_ctl_integer_type *integer, const guint8 *p)
{
	static const guint32 bases[] = {10, 16, 2, 8, 3};

	integer->size = p[0] % 70;
	integer->signedness = (p[1] & 0x80) ? 2 : p[1] & 1;
	integer->reverse_byte_order = (p[1] >> 1) & 1;
	integer->base = bases[p[2] % ARRAY_LEN(bases)];
	integer->encoding = p[3] % 8 < 5 ? 0 : p[3] % 8 - 4; /* mostly none; 3 is unknown */
	integer->alignment = alignment_bits(p[4]);
}

static void
set_float(struct lttng_ust_ctl_float_type *value, const guint8 *p)
{
	value->exp_dig = (p[0] & 1) ? 11 : 8;
	value->mant_dig = (p[0] & 1) ? 53 : 24;
	if (p[0] & 0x80)
		value->mant_dig++;
	value->reverse_byte_order = (p[1] >> 1) & 1;
	value->alignment = alignment_bits(p[4]);
}

/* A legacy basic type: integer, float, string or enum by p[0]. */
static void
set_basic(struct lttng_ust_ctl_basic_type *basic, const guint8 *p)
{
	static const guint8 sizes[] = {8, 16, 32, 64, 5, 0};
	guint8 q[5] = {sizes[p[1] % ARRAY_LEN(sizes)], p[2], 0, 0, p[3] % 4};

	switch (p[0] % 4) {
	case 0:
		basic->atype = lttng_ust_ctl_atype_integer;
		set_integer(&basic->u.basic.integer, q);
		break;
	case 1:
		basic->atype = lttng_ust_ctl_atype_float;
		set_float(&basic->u.basic._float, q);
		break;
	case 2:
		basic->atype = lttng_ust_ctl_atype_string;
		basic->u.basic.string.encoding = p[2] % 3;
		break;
	default:
		basic->atype = lttng_ust_ctl_atype_enum;
		g_snprintf(basic->u.basic.enumeration.name, LTTNG_UST_ABI_SYM_NAME_LEN, "e%d",
			   p[2] % 3);
		basic->u.basic.enumeration.id = p[2] % 3;
		set_integer(&basic->u.basic.enumeration.container_type, q);
		break;
	}
}

/* Names "e0", "e1" or "e2"; returns the id, right or wrong. */
static guint64
set_enum_reference(char *name, const guint8 *p)
{
	g_snprintf(name, LTTNG_UST_ABI_SYM_NAME_LEN, "e%d", p[0] % 3);
	return p[1] % 3;
}

/* One field entry from a record: type, name, five parameters. */
static void
take_field(const guint8 *record, struct lttng_ust_ctl_field *field)
{
	const guint8 *p = record + 2;
	struct lttng_ust_ctl_type *type = &field->type;

	memset(field, 0, sizeof(*field));
	set_name(field->name, record[1]);
	type->atype = record[0] % (NR_LTTNG_UST_CTL_ABSTRACT_TYPES + 1);
	switch ((int)type->atype) {
	case lttng_ust_ctl_atype_integer:
		set_integer(&type->u.integer, p);
		break;
	case lttng_ust_ctl_atype_float:
		set_float(&type->u._float, p);
		break;
	case lttng_ust_ctl_atype_string:
		type->u.string.encoding = p[0] % 4;
		break;
	case lttng_ust_ctl_atype_enum: {
		static const guint8 sizes[] = {8, 16, 32, 64, 5, 0};
		guint8 q[5] = {sizes[p[2] % ARRAY_LEN(sizes)], p[3], 0, 0, 3};

		type->u.legacy.basic.enumeration.id =
		    set_enum_reference(type->u.legacy.basic.enumeration.name, p);
		set_integer(&type->u.legacy.basic.enumeration.container_type, q);
		break;
	}
	case lttng_ust_ctl_atype_enum_nestable:
		type->u.enum_nestable.id = set_enum_reference(type->u.enum_nestable.name, p);
		break;
	case lttng_ust_ctl_atype_array:
		type->u.legacy.array.length = p[0] % 5;
		set_basic(&type->u.legacy.array.elem_type, p + 1);
		break;
	case lttng_ust_ctl_atype_array_nestable:
		type->u.array_nestable.length = p[0] % 5;
		type->u.array_nestable.alignment = alignment_bytes(p[1]);
		break;
	case lttng_ust_ctl_atype_sequence: {
		guint8 q[4] = {0, 3 + (p[0] & 1), p[0] >> 1, 0}; /* 64 or 5 bits */

		set_basic(&type->u.legacy.sequence.length_type, q);
		set_basic(&type->u.legacy.sequence.elem_type, p + 1);
		break;
	}
	case lttng_ust_ctl_atype_sequence_nestable:
		set_name(type->u.sequence_nestable.length_name, p[0]);
		type->u.sequence_nestable.alignment = alignment_bytes(p[1]);
		break;
	case lttng_ust_ctl_atype_struct:
		type->u.legacy._struct.nr_fields = p[0] == 255 ? G_MAXUINT32 : p[0] % 5;
		break;
	case lttng_ust_ctl_atype_struct_nestable:
		type->u.struct_nestable.nr_fields = p[0] == 255 ? G_MAXUINT32 : p[0] % 5;
		type->u.struct_nestable.alignment = alignment_bytes(p[1]);
		break;
	case lttng_ust_ctl_atype_variant:
		type->u.legacy.variant.nr_choices = p[0] % 4;
		set_name(type->u.legacy.variant.tag_name, p[1]);
		break;
	case lttng_ust_ctl_atype_variant_nestable:
		type->u.variant_nestable.nr_choices = p[0] % 4;
		set_name(type->u.variant_nestable.tag_name, p[1]);
		type->u.variant_nestable.alignment = alignment_bytes(p[2]);
		break;
	default:
		break; /* none */
	}
}

/*
 * The harness's own walk of the layout, which the generator must agree
 * with: where each entry's type ends, which fields are at the top level
 * and whether the array is malformed in a way that must be refused.
 */
typedef struct {
	const struct lttng_ust_ctl_field *fields;
	gsize nr_fields;
	gboolean is_malformed, has_enum, has_variant, has_compound;
	GPtrArray *top_idents; /* the identifiers the top level must declare */
} Oracle;

static char *
oracle_ident(const char *name, const char *suffix)
{
	GString *ident = g_string_new("_");
	const char *parts[] = {name, suffix};

	for (gsize p = 0; p < 2; p++)
		for (const char *at = parts[p]; *at; at++)
			g_string_append_c(ident, g_ascii_isalnum(*at) ? *at : '_');
	return g_string_free(ident, FALSE);
}

/* The index after the type at i; the oracle is marked malformed when it
 * cannot be walked. */
static gsize
oracle_walk(Oracle *oracle, gsize i, guint depth)
{
	const struct lttng_ust_ctl_type *type;
	guint32 members;

	if (i >= oracle->nr_fields || depth > TC_LTTNG_METADATA_DEPTH_MAX) {
		oracle->is_malformed = TRUE;
		return oracle->nr_fields;
	}
	type = &oracle->fields[i].type;
	switch (type->atype) {
	case lttng_ust_ctl_atype_integer:
		if (type->u.integer.size == 0 || type->u.integer.size > 64)
			oracle->is_malformed = TRUE;
		return i + 1;
	case lttng_ust_ctl_atype_enum:
		oracle->has_enum = TRUE;
		return i + 1;
	case lttng_ust_ctl_atype_float:
	case lttng_ust_ctl_atype_string:
		return i + 1;
	case lttng_ust_ctl_atype_array:
	case lttng_ust_ctl_atype_sequence:
		oracle->has_compound = TRUE;
		return i + 1;
	case lttng_ust_ctl_atype_enum_nestable:
		oracle->has_enum = TRUE;
		/* Its container is checked as an integer only if it is one. */
		return oracle_walk(oracle, i + 1, depth);
	case lttng_ust_ctl_atype_array_nestable:
	case lttng_ust_ctl_atype_sequence_nestable:
		oracle->has_compound = TRUE;
		return oracle_walk(oracle, i + 1, depth + 1);
	case lttng_ust_ctl_atype_struct:
	case lttng_ust_ctl_atype_struct_nestable:
	case lttng_ust_ctl_atype_variant:
	case lttng_ust_ctl_atype_variant_nestable:
		oracle->has_compound = TRUE;
		oracle->has_variant |= type->atype == lttng_ust_ctl_atype_variant ||
				       type->atype == lttng_ust_ctl_atype_variant_nestable;
		members = type->atype == lttng_ust_ctl_atype_struct	     ? type->u.legacy._struct.nr_fields
			  : type->atype == lttng_ust_ctl_atype_struct_nestable ? type->u.struct_nestable.nr_fields
			  : type->atype == lttng_ust_ctl_atype_variant	     ? type->u.legacy.variant.nr_choices
									     : type->u.variant_nestable.nr_choices;
		i++;
		for (guint32 m = 0; m < members && !oracle->is_malformed; m++)
			i = oracle_walk(oracle, i, depth + 1);
		return i;
	default:
		oracle->is_malformed = TRUE;
		return oracle->nr_fields;
	}
}

static guint32
padding_of(const struct lttng_ust_ctl_type *type)
{
	switch (type->atype) {
	case lttng_ust_ctl_atype_array_nestable:
		return type->u.array_nestable.alignment;
	case lttng_ust_ctl_atype_sequence_nestable:
		return type->u.sequence_nestable.alignment;
	case lttng_ust_ctl_atype_variant_nestable:
		return type->u.variant_nestable.alignment;
	default:
		return 0;
	}
}

static void
oracle_run(Oracle *oracle)
{
	for (gsize i = 0; i < oracle->nr_fields && !oracle->is_malformed;) {
		const struct lttng_ust_ctl_field *field = &oracle->fields[i];

		if (memchr(field->name, '\0', sizeof(field->name)) == NULL) {
			oracle->is_malformed = TRUE; /* checked below, not by the walk */
			break;
		}
		if (field->name[0] == '\0')
			oracle->is_malformed = TRUE;
		if (padding_of(&field->type) != 0)
			g_ptr_array_add(oracle->top_idents, oracle_ident(field->name, "_padding"));
		/* ABI 8's sequence declares its length first: _ + _NAME_length. */
		if (field->type.atype == lttng_ust_ctl_atype_sequence) {
			g_autofree char *length = oracle_ident(field->name, "_length");

			g_ptr_array_add(oracle->top_idents, g_strconcat("_", length, NULL));
		}
		g_ptr_array_add(oracle->top_idents, oracle_ident(field->name, ""));
		i = oracle_walk(oracle, i, 0);
	}
}

/* Plain: top-level integers that must be taken, with distinct plain names. */
static gboolean
is_plain(const struct lttng_ust_ctl_field *fields, gsize nr_fields, const guint8 *picks)
{
	guint seen = 0;

	for (gsize i = 0; i < nr_fields; i++) {
		const struct lttng_ust_ctl_integer_type *integer = &fields[i].type.u.integer;
		guint pick = picks[i] % ARRAY_LEN(names);

		if (fields[i].type.atype != lttng_ust_ctl_atype_integer || pick >= PLAIN_NAMES ||
		    (seen & (1u << pick)) || integer->size == 0 || integer->size > 64 ||
		    integer->signedness > 1 || integer->base == 3 || integer->encoding != 0 ||
		    integer->alignment == 0 || (integer->alignment & (integer->alignment - 1)))
			return FALSE;
		seen |= 1u << pick;
	}
	return TRUE;
}

/* Braces, brackets and parentheses balance outside quoted strings, which
 * escape their quotes and backslashes and hold no control byte; lines end
 * in newlines. */
static void
check_syntax(const char *text, gsize length)
{
	int depth[3] = {0};
	gboolean is_quoted = FALSE;

	if (length > 0 && text[length - 1] != '\n')
		FAIL("text does not end with a newline");
	for (gsize i = 0; i < length; i++) {
		guchar c = (guchar)text[i];

		if (c == '\0')
			FAIL("NUL in the text at %zu", i);
		if (is_quoted) {
			if (c < 0x20 || c == 0x7f)
				FAIL("control byte 0x%02x in a quoted string at %zu", c, i);
			if (c == '\\') {
				if (i + 1 >= length || (text[i + 1] != '"' && text[i + 1] != '\\'))
					FAIL("lone backslash in a quoted string at %zu", i);
				i++;
			} else if (c == '"') {
				is_quoted = FALSE;
			}
			continue;
		}
		is_quoted = c == '"';
		depth[0] += (c == '{') - (c == '}');
		depth[1] += (c == '[') - (c == ']');
		depth[2] += (c == '(') - (c == ')');
		if (depth[0] < 0 || depth[1] < 0 || depth[2] < 0)
			FAIL("closes more than it opened at %zu", i);
	}
	if (is_quoted || depth[0] || depth[1] || depth[2])
		FAIL("unbalanced text (quote %d, braces %d, brackets %d, parentheses %d)",
		     is_quoted, depth[0], depth[1], depth[2]);
}

/* The identifier a top-level line (one tab) declares, or NULL. */
static char *
declared_ident(const char *line)
{
	const char *after = strrchr(line, '}');
	g_autofree char *declarator = NULL;
	char *bracket, *space;

	if (line[0] != '\t' || line[1] == '\t' || !g_str_has_suffix(line, ";"))
		return NULL;
	declarator = g_strndup(after ? after + 1 : line + 1,
			       strlen(after ? after + 1 : line + 1) - 1);
	bracket = strchr(declarator, '[');
	if (bracket)
		*bracket = '\0';
	g_strstrip(declarator);
	space = strrchr(declarator, ' ');
	return g_strdup(space ? space + 1 : declarator);
}

static void
check_idents(const char *text, const Oracle *oracle)
{
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	guint next = 0;

	for (gsize i = 0; lines[i] != NULL; i++) {
		char *ident = declared_ident(lines[i]);

		if (ident == NULL)
			continue;
		if (next >= oracle->top_idents->len)
			FAIL("declares %s past the %u expected", ident, oracle->top_idents->len);
		if (strcmp(ident, g_ptr_array_index(oracle->top_idents, next)) != 0)
			FAIL("declares %s where %s was expected", ident,
			     (char *)g_ptr_array_index(oracle->top_idents, next));
		if (!g_hash_table_add(seen, ident))
			FAIL("declares %s twice", (char *)g_ptr_array_index(oracle->top_idents, next));
		next++;
	}
	if (next != oracle->top_idents->len)
		FAIL("declares %u identifiers, %u expected", next, oracle->top_idents->len);
}

static void
check_refusal(const GError *error, const GString *out)
{
	if (error == NULL || error->domain != TC_ERROR || error->code != TC_ERROR_INVALID_ARGUMENT ||
	    error->message[0] == '\0')
		FAIL("refused without an error of its own");
	if (strcmp(out->str, PREFIX) != 0)
		FAIL("refused, but the text changed: %s", out->str);
}

/* The event's name: 8 bytes of the input; fine without control bytes. */
static gboolean
take_event_name(struct fuzz_input *in, char name[LTTNG_UST_ABI_SYM_NAME_LEN])
{
	gboolean is_fine = TRUE;

	memset(name, 0, LTTNG_UST_ABI_SYM_NAME_LEN);
	for (int i = 0; i < 8; i++)
		name[i] = (char)fuzz_take_byte(in);
	for (int i = 0; name[i] != '\0'; i++)
		is_fine &= (guchar)name[i] >= 0x20 && (guchar)name[i] != 0x7f;
	return is_fine && name[0] != '\0';
}

static void
check_event(const TcLttngMetadataEvent *event, const TcLttngMetadataOptions *options,
	    gboolean is_name_fine, gboolean are_fields_taken)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GString) out = g_string_new(PREFIX);
	gboolean is_taken = tc_lttng_metadata_append_event(out, event, options, &error);

	if (is_taken != (is_name_fine && are_fields_taken))
		FAIL("event %s", is_taken ? "taken, though it must be refused"
					  : "refused, though it must be taken");
	if (!is_taken) {
		check_refusal(error, out);
		outcomes[REFUSED_EVENT]++;
		return;
	}
	check_syntax(out->str, out->len);
	outcomes[TAKEN_EVENT]++;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = {data, size, 0};
	struct lttng_ust_ctl_field fields[FIELDS_MAX];
	guint8 picks[FIELDS_MAX];
	char event_name[LTTNG_UST_ABI_SYM_NAME_LEN];
	g_autoptr(GError) error = NULL;
	g_autoptr(GString) out = g_string_new(PREFIX);
	Enums enums = {0};
	TcLttngMetadataOptions options = {.lookup_enum = lookup_enum, .user_data = &enums};
	Oracle oracle = {.fields = fields};
	guint8 flags = fuzz_take_byte(&in);
	gboolean is_name_fine = FALSE, is_taken;
	gsize nr_fields = 0, bound;

	inputs_run++;
	options.is_big_endian = flags & 1;
	take_enums(&in, &enums);
	if (flags & 2)
		is_name_fine = take_event_name(&in, event_name);
	while (nr_fields < FIELDS_MAX && in.size - in.pos >= RECORD_SIZE) {
		picks[nr_fields] = in.data[in.pos + 1];
		take_field(in.data + in.pos, &fields[nr_fields++]);
		in.pos += RECORD_SIZE;
	}
	oracle.nr_fields = nr_fields;
	oracle.top_idents = g_ptr_array_new_with_free_func(g_free);
	oracle_run(&oracle);

	is_taken = tc_lttng_metadata_append_fields(out, fields, nr_fields, 1, &options, &error);
	if (is_taken && oracle.is_malformed)
		FAIL("malformed fields taken");
	if (!is_taken && is_plain(fields, nr_fields, picks))
		FAIL("plain integers refused: %s", error ? error->message : "(no error)");
	if (!is_taken) {
		check_refusal(error, out);
		outcomes[oracle.is_malformed ? REFUSED_MALFORMED : REFUSED_OTHER]++;
	} else {
		if (error != NULL)
			FAIL("taken with an error");
		bound = strlen(PREFIX) + 1400 * nr_fields + 600 * enums.entries_given;
		if (out->len > bound)
			FAIL("%zu bytes of text, more than %zu", out->len, bound);
		check_syntax(out->str, out->len);
		check_idents(out->str + strlen(PREFIX), &oracle);
		outcomes[oracle.has_variant    ? TAKEN_VARIANT
			 : oracle.has_enum     ? TAKEN_ENUM
			 : oracle.has_compound ? TAKEN_COMPOUND
					       : TAKEN_PLAIN]++;
	}
	if (flags & 2) {
		TcLttngMetadataEvent event = {
		    .name = event_name, .id = 1, .stream_id = 2, .loglevel = -1,
		    .model_emf_uri = (flags & 4) ? "uri \"x\"" : NULL,
		    .fields = fields, .nr_fields = nr_fields,
		};

		check_event(&event, &options, is_name_fine, is_taken);
	}
	g_ptr_array_unref(oracle.top_idents);
	return 0;
}

#ifndef FUZZ_LIBFUZZER
/* A field record: type, name pick, five parameters. */
#define F(type, name, p0, p1, p2, p3, p4) type, name, p0, p1, p2, p3, p4
#define INT8(name) F(lttng_ust_ctl_atype_integer, name, 8, 0, 0, 0, 3)
#define NO_ENUMS 0, 0
/* e0: "_a" = 1, "_b" = 2 ... 3, "_c" automatic; e1: "q\"uote\\" = -5, "_n" = 0. */
#define ENUMS 3, 1, 0, 0, 0, 2, 1, 0, 1, 0, 0, 1, 2, 2, 0xfb, 0, 0, 3, 0, 0, 0, 5
#define SEED(...)                                                                                  \
	{                                                                                          \
		(const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__})             \
	}
static const struct fuzz_seed seeds[] = {
    /* Integers of each base, size, order; floats; strings. */
    SEED(0, NO_ENUMS, INT8(0), F(0, 1, 64, 1, 1, 0, 6), F(0, 2, 1, 2, 2, 0, 0),
	 F(0, 3, 27, 0, 3, 0, 0), F(5, 4, 0, 0, 0, 0, 5), F(5, 5, 1, 2, 0, 0, 6),
	 F(4, 6, 1, 0, 0, 0, 0), F(4, 7, 2, 0, 0, 0, 0)),
    SEED(1, NO_ENUMS, F(0, 0, 32, 2, 1, 0, 5), F(5, 1, 1, 2, 0, 0, 6)),
    /* Enums, nestable and legacy. */
    SEED(0, ENUMS, F(8, 0, 0, 0, 0, 0, 0), INT8(10), F(1, 1, 1, 1, 0, 1, 0),
	 F(8, 2, 1, 1, 0, 0, 0), F(0, 10, 16, 1, 0, 0, 4)),
    /* Arrays: text, nested, legacy, aligned. */
    SEED(0, NO_ENUMS, F(9, 0, 4, 0, 0, 0, 0), F(0, 10, 8, 0, 0, 5, 3), F(9, 1, 2, 3, 0, 0, 0),
	 F(9, 10, 3, 0, 0, 0, 0), F(4, 10, 1, 0, 0, 0, 0), F(2, 2, 3, 0, 1, 0, 0)),
    /* Sequences: nestable after its length, and legacy. */
    SEED(0, NO_ENUMS, F(0, 3, 32, 0, 0, 0, 5), F(10, 0, 3, 3, 0, 0, 0), F(5, 10, 1, 0, 0, 0, 6),
	 F(3, 1, 0, 0, 0, 0, 0)),
    /* Structs, nestable and legacy; one that claims too much. */
    SEED(0, NO_ENUMS, F(11, 0, 2, 3, 0, 0, 0), INT8(1), F(4, 2, 0, 0, 0, 0, 0),
	 F(7, 3, 0, 0, 0, 0, 0)),
    SEED(0, NO_ENUMS, INT8(0), F(11, 4, 255, 0, 0, 0, 0)),
    /* Variants over e0, nestable and legacy. */
    SEED(0, ENUMS, F(8, 4, 0, 0, 0, 0, 0), INT8(10), F(12, 5, 2, 4, 3, 0, 0), INT8(0),
	 F(4, 1, 0, 0, 0, 0, 0), F(6, 3, 1, 4, 0, 0, 0), F(4, 2, 0, 0, 0, 0, 0)),
    /* Names that clash, a keyword, one without a NUL; a type that is none. */
    SEED(0, NO_ENUMS, INT8(7), INT8(8), INT8(9), INT8(15), F(13, 0, 0, 0, 0, 0, 0)),
    /* Events: a fine name, one with a quote, one with a newline. */
    SEED(6, NO_ENUMS, 'p', ':', 'e', 'v', 0, 0, 0, 0, INT8(0)),
    SEED(2, NO_ENUMS, 'p', '"', '\\', 'v', 0, 0, 0, 0, INT8(0)),
    SEED(2, NO_ENUMS, 'p', '\n', 'e', 'v', 0, 0, 0, 0, INT8(0)),
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
