/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The compiler of filters into LTTng-UST 2.13's bytecode
 * (tc-filter-lttng.c), checked byte by byte against programs written out
 * here by hand from lttng-tools 2.13's generator
 * (filter-visitor-generate-bytecode.c: post-order, a legacy reference
 * per field or context with its relocation, casts to s64 around && and
 * || for references and floats, generic comparison opcodes, RETURN
 * last). Then what LTTng-UST cannot evaluate, and the length bound.
 */
#include <string.h>

#include "tc-error.h"
#include "tc-event-rule.h"
#include "tc-filter.h"

/* lttng-tools' opcodes, as numbered in its bytecode.h. */
enum {
	RETURN = 1,
	BIT_AND = 9,
	EQ = 12,
	NE = 13,
	GT = 14,
	LT = 15,
	GE = 16,
	UNARY_MINUS = 49,
	UNARY_NOT = 50,
	AND = 57,
	OR = 58,
	LOAD_FIELD_REF = 59,
	LOAD_STRING = 64,
	LOAD_S64 = 65,
	LOAD_DOUBLE = 66,
	CAST_TO_S64 = 67,
	CAST_DOUBLE_TO_S64 = 68,
	GET_CONTEXT_REF = 70,
	LOAD_STAR_GLOB_STRING = 76,
	UNARY_BIT_NOT = 98,
};

/* The program being written: code, then relocations. */
typedef struct {
	GByteArray *code;
	GByteArray *relocs;
} Program;

static void
op(Program *p, guint8 opcode)
{
	g_byte_array_append(p->code, &opcode, 1);
}

static void
u16(GByteArray *out, guint16 value)
{
	g_byte_array_append(out, (const guint8 *)&value, 2);
}

static void
s64(Program *p, gint64 value)
{
	op(p, LOAD_S64);
	g_byte_array_append(p->code, (const guint8 *)&value, 8);
}

static void
dbl(Program *p, double value)
{
	op(p, LOAD_DOUBLE);
	g_byte_array_append(p->code, (const guint8 *)&value, 8);
}

static void
str(Program *p, guint8 opcode, const char *value)
{
	op(p, opcode);
	g_byte_array_append(p->code, (const guint8 *)value, (guint)strlen(value) + 1);
}

/* A field or context reference: unlinked, and its relocation. */
static void
ref(Program *p, guint8 opcode, const char *name)
{
	u16(p->relocs, (guint16)p->code->len);
	g_byte_array_append(p->relocs, (const guint8 *)name, (guint)strlen(name) + 1);
	op(p, opcode);
	u16(p->code, 0xffff);
}

/* && or ||: returns where its target goes, patched by target(). */
static guint
logical(Program *p, guint8 opcode)
{
	op(p, opcode);
	u16(p->code, 0xffff);
	return p->code->len - 2;
}

static void
target(Program *p, guint at)
{
	guint16 here = (guint16)p->code->len;

	memcpy(p->code->data + at, &here, 2);
}

static void
check(const char *text, Program *p)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(TcFilterExpr) expr = tc_filter_parse(text, &error);
	g_autoptr(GBytes) bytes = NULL;
	guint32 reloc_offset = 0;
	gsize len;
	const guint8 *data;

	g_assert_no_error(error);
	op(p, RETURN);
	bytes = tc_filter_lttng_compile(expr, TC_FILTER_LTTNG_MAX_LEN, &reloc_offset, &error);
	g_assert_no_error(error);
	data = g_bytes_get_data(bytes, &len);
	g_test_message("%s: %" G_GSIZE_FORMAT " bytes, relocations at %u", text, len,
		       reloc_offset);
	g_assert_cmpuint(reloc_offset, ==, p->code->len);
	g_assert_cmpmem(data, reloc_offset, p->code->data, p->code->len);
	g_assert_cmpmem(data + reloc_offset, len - reloc_offset, p->relocs->data, p->relocs->len);
	g_byte_array_unref(p->code);
	g_byte_array_unref(p->relocs);
}

#define PROGRAM {g_byte_array_new(), g_byte_array_new()}

static void
test_comparison(void)
{
	Program p = PROGRAM;

	ref(&p, LOAD_FIELD_REF, "count");
	s64(&p, 3);
	op(&p, GT);
	check("count > 3", &p);
}

static void
test_field_alone(void)
{
	Program p = PROGRAM;

	ref(&p, LOAD_FIELD_REF, "count");
	check("count", &p);
}

/* A comparison is already an s64: no cast around &&. */
static void
test_and_with_pattern(void)
{
	Program p = PROGRAM;
	guint skip;

	ref(&p, LOAD_FIELD_REF, "count");
	s64(&p, 3);
	op(&p, GT);
	skip = logical(&p, AND);
	ref(&p, LOAD_FIELD_REF, "text");
	str(&p, LOAD_STRING, "hel*");
	op(&p, EQ);
	target(&p, skip);
	check("count > 3 && text == \"hel*\"", &p);
}

/* A context, and a negated field: a reference, cast to s64 for ||. */
static void
test_context_or_not(void)
{
	Program p = PROGRAM;
	guint skip;

	ref(&p, GET_CONTEXT_REF, "$ctx.vpid");
	s64(&p, 42);
	op(&p, EQ);
	skip = logical(&p, OR);
	ref(&p, LOAD_FIELD_REF, "count");
	op(&p, UNARY_NOT);
	op(&p, CAST_TO_S64);
	target(&p, skip);
	check("$ctx.vpid == 42 || !count", &p);
}

/* The ids, namespaces and ip by the names LTTng-UST links them by. */
static void
test_context_names(void)
{
	static const char *const names[] = {"vuid", "vsgid", "net_ns", "uts_ns", "ip"};

	for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
		Program p = PROGRAM;
		g_autofree char *ref_name = g_strconcat("$ctx.", names[i], NULL);
		g_autofree char *text = g_strconcat(ref_name, " == 7", NULL);

		ref(&p, GET_CONTEXT_REF, ref_name);
		s64(&p, 7);
		op(&p, EQ);
		check(text, &p);
	}
}

static void
test_bitwise_and_double(void)
{
	Program p = PROGRAM;
	guint skip;

	ref(&p, LOAD_FIELD_REF, "count");
	s64(&p, 3);
	op(&p, BIT_AND);
	s64(&p, 0);
	op(&p, EQ);
	skip = logical(&p, AND);
	ref(&p, LOAD_FIELD_REF, "ratio");
	dbl(&p, 0.5);
	op(&p, GE);
	target(&p, skip);
	check("(count & 3) == 0 && ratio >= 0.5", &p);
}

/* A float operand of || is cast; unary plus emits nothing. */
static void
test_unary(void)
{
	Program p = PROGRAM, q = PROGRAM;
	guint skip;

	dbl(&p, 1.5);
	op(&p, UNARY_MINUS);
	op(&p, CAST_DOUBLE_TO_S64);
	skip = logical(&p, OR);
	ref(&p, LOAD_FIELD_REF, "count");
	op(&p, CAST_TO_S64);
	target(&p, skip);
	check("-1.5 || count", &p);

	ref(&q, LOAD_FIELD_REF, "count");
	s64(&q, 2);
	op(&q, UNARY_BIT_NOT);
	op(&q, LT);
	check("+count < ~2", &q);
}

/* LTTng's escapes: "\*" a star, "\\" a backslash; a wildcard only at
 * the end keeps LOAD_STRING, one elsewhere is a full glob; consecutive
 * wildcards are one. */
static void
test_strings(void)
{
	static const struct {
		const char *text;
		guint8 opcode;
		const char *value;
	} cases[] = {
		{"text == \"x\\*\"", LOAD_STRING, "x\\*"},
		{"text == \"a\\\\b\"", LOAD_STRING, "a\\\\b"},
		{"text == \"a\\*b*\"", LOAD_STRING, "a\\*b*"},
		{"text == \"*ll*\"", LOAD_STAR_GLOB_STRING, "*ll*"},
		{"text == \"he**\"", LOAD_STAR_GLOB_STRING, "he*"},
		{"text == \"say \\\"hi\\\"\"", LOAD_STRING, "say \"hi\""},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		Program p = PROGRAM;

		ref(&p, LOAD_FIELD_REF, "text");
		str(&p, cases[i].opcode, cases[i].value);
		op(&p, EQ);
		check(cases[i].text, &p);
	}
}

/* A literal up to 2^64 - 1 is its 64-bit pattern, as lttng-tools' scanf
 * of a u64 leaves it in LOAD_S64. */
static void
test_u64_literals(void)
{
	const char *texts[] = {"umax != 18446744073709551615", "umax != 0xffffffffffffffff"};

	for (guint i = 0; i < G_N_ELEMENTS(texts); i++) {
		Program p = PROGRAM;

		ref(&p, LOAD_FIELD_REF, "umax");
		s64(&p, -1);
		op(&p, NE);
		check(texts[i], &p);
	}
}

static void
test_refused(void)
{
	static const struct {
		const char *text;
		const char *message;
	} cases[] = {
		{"count + 1 > 2", "filter: '+' (arithmetic) has no LTTng-UST equivalent at column 7"},
		{"count % 2 == 0", "filter: '%' (arithmetic) has no LTTng-UST equivalent at column 7"},
		{"ratio * 2 > 1", "filter: '*' (arithmetic) has no LTTng-UST equivalent at column 7"},
		{"1.5", "filter: a floating-point condition has no LTTng-UST equivalent at column 1"},
		{"\"a*b\" == \"c*\"",
		 "filter: comparing two patterns has no LTTng-UST equivalent at column 7"},
		{"a == (b == (c == (d == (e == (f == (g == (h == (i == (j == (k == 1))))))))))",
		 "filter: LTTng-UST evaluates at most 10 values at once; nested too deep at column "
		 "61"},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(TcFilterExpr) expr = tc_filter_parse(cases[i].text, &error);
		guint32 reloc_offset;

		g_assert_no_error(error);
		g_assert_null(tc_filter_lttng_compile(expr, TC_FILTER_LTTNG_MAX_LEN, &reloc_offset,
						      &error));
		g_assert_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED);
		g_assert_cmpstr(error->message, ==, cases[i].message);
	}
}

/* Ten values at once are what LTTng-UST's stack holds (above, the
 * eleventh, 'k', is refused). */
static void
test_deepest(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(TcFilterExpr) expr = tc_filter_parse(
		"a == (b == (c == (d == (e == (f == (g == (h == (i == 1))))))))", &error);
	g_autoptr(GBytes) bytes = NULL;
	guint32 reloc_offset;

	g_assert_no_error(error);
	bytes = tc_filter_lttng_compile(expr, TC_FILTER_LTTNG_MAX_LEN, &reloc_offset, &error);
	g_assert_no_error(error);
}

/* "count > 3" is 22 bytes (14 of code, 8 of relocation): one byte less
 * is refused, whichever part passes the bound. */
static void
test_length_bound(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(TcFilterExpr) expr = tc_filter_parse("count > 3", &error);
	g_autoptr(GBytes) bytes = NULL;
	guint32 reloc_offset;

	g_assert_no_error(error);
	bytes = tc_filter_lttng_compile(expr, 22, &reloc_offset, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(g_bytes_get_size(bytes), ==, 22);
	for (guint max = 0; max < 22; max++) {
		g_autoptr(GError) refusal = NULL;

		g_assert_null(tc_filter_lttng_compile(expr, max, &reloc_offset, &refusal));
		g_assert_error(refusal, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
		g_assert_true(g_str_has_prefix(refusal->message,
					       "filter: expression too long for LTTng-UST"));
	}
}

/* The longest text tracectl takes stays far below LTTng-UST's bound. */
static void
test_longest_text(void)
{
	g_autoptr(GString) text = g_string_new("1");
	g_autoptr(GError) error = NULL;
	g_autoptr(TcFilterExpr) expr = NULL;
	g_autoptr(GBytes) bytes = NULL;
	guint32 reloc_offset;

	while (text->len + 2 <= TC_FILTER_TEXT_MAX)
		g_string_append(text, "&1");
	expr = tc_filter_parse(text->str, &error);
	g_assert_no_error(error);
	bytes = tc_filter_lttng_compile(expr, TC_FILTER_LTTNG_MAX_LEN, &reloc_offset, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(g_bytes_get_size(bytes), <, TC_FILTER_LTTNG_MAX_LEN);
}

/* A rule keeps both forms, or why LTTng-UST applications cannot have it. */
static void
test_rule(void)
{
	TcEventRuleSpec spec = {.pattern = "p:*", .loglevel = -1, .filter = "count > 3"};
	g_autoptr(GError) error = NULL;
	g_autoptr(TcEventRule) rule = tc_event_rule_new_from_spec(&spec, &error);
	g_autoptr(TcEventRule) arithmetic = NULL;

	g_assert_no_error(error);
	g_assert_nonnull(rule->lttng_filter);
	g_assert_cmpuint(rule->lttng_reloc_offset, ==, 14);
	g_assert_null(rule->lttng_refusal);
	spec.filter = "count % 2 == 0";
	arithmetic = tc_event_rule_new_from_spec(&spec, &error);
	g_assert_no_error(error);
	g_assert_nonnull(arithmetic->filter);
	g_assert_null(arithmetic->lttng_filter);
	g_assert_cmpstr(arithmetic->lttng_refusal, ==,
			"filter: '%' (arithmetic) has no LTTng-UST equivalent at column 7");
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/filter-lttng/comparison", test_comparison);
	g_test_add_func("/filter-lttng/field-alone", test_field_alone);
	g_test_add_func("/filter-lttng/and-with-pattern", test_and_with_pattern);
	g_test_add_func("/filter-lttng/context-or-not", test_context_or_not);
	g_test_add_func("/filter-lttng/context-names", test_context_names);
	g_test_add_func("/filter-lttng/bitwise-and-double", test_bitwise_and_double);
	g_test_add_func("/filter-lttng/unary", test_unary);
	g_test_add_func("/filter-lttng/strings", test_strings);
	g_test_add_func("/filter-lttng/u64-literals", test_u64_literals);
	g_test_add_func("/filter-lttng/refused", test_refused);
	g_test_add_func("/filter-lttng/deepest", test_deepest);
	g_test_add_func("/filter-lttng/length-bound", test_length_bound);
	g_test_add_func("/filter-lttng/longest-text", test_longest_text);
	g_test_add_func("/filter-lttng/rule", test_rule);
	return g_test_run();
}
