/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Event filters end to end without a process boundary: the service's
 * parser and compiler (tc-filter.c) feed the application's verifier and
 * interpreter (probes/lib/tc-ust-filter.c), and each expression of a table
 * must keep exactly the records it names; each refused expression must
 * name the column of its fault; hand-broken programs must be refused by
 * the verifier.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tc-error.h"
#include "tc-filter.h"
#include "tc-kernel-names.h"
#include "tc-ust-filter.h"

static const struct tracectl_abi_field abi_fields[] = {
	{"intfield", TRACECTL_FIELD_SIGNED, 8},
	{"small", TRACECTL_FIELD_UNSIGNED, 1},
	{"dbl", TRACECTL_FIELD_DOUBLE, 8},
	{"strfield", TRACECTL_FIELD_STRING, 0},
	{"blob", TRACECTL_FIELD_BYTES, 0},
	{"last", TRACECTL_FIELD_SIGNED, 4},
	{"umax", TRACECTL_FIELD_UNSIGNED, 8},
};

static const struct tracectl_ust_field ust_fields[] = {
	{"intfield", TRACECTL_UST_FIELD_SIGNED, 8},
	{"small", TRACECTL_UST_FIELD_UNSIGNED, 1},
	{"dbl", TRACECTL_UST_FIELD_DOUBLE, 8},
	{"strfield", TRACECTL_UST_FIELD_STRING, 0},
	{"blob", TRACECTL_UST_FIELD_BYTES, 0},
	{"last", TRACECTL_UST_FIELD_SIGNED, 4},
	{"umax", TRACECTL_UST_FIELD_UNSIGNED, 8},
};

typedef struct {
	int64_t intfield;
	uint8_t small;
	double dbl;
	const char *strfield;
	uint32_t blob_len;
	int32_t last;
	uint64_t umax;
} Record;

/* A: intfield 150, B: intfield 50; the table's columns. */
static const Record records[] = {
	{150, 200, 2.5, "xyz", 3, -3, UINT64_MAX},
	{50, 7, -1.0, "abc", 0, 100, 5},
};

static const struct {
	const char *text;
	gboolean keeps[2];
} accepted[] = {
	{"intfield > 100", {1, 0}},
	{"intfield > 100 && strfield == \"x*\"", {1, 0}},
	{"intfield < 100 || strfield == \"x*\"", {1, 1}},
	{"!(intfield > 100)", {0, 1}},
	{"strfield == \"xyz\"", {1, 0}},
	{"strfield != \"x*\"", {0, 1}},
	{"\"x*\" == strfield", {1, 0}},
	{"strfield == \"*c\"", {0, 1}},
	{"strfield == \"*\"", {1, 1}},
	{"strfield == \"a*b*c\"", {0, 1}},
	{"strfield == \"x\\*z\"", {0, 0}},
	{"strfield == strfield", {1, 1}},
	{"dbl > 2", {1, 0}},
	{"dbl * 2 == 5.0", {1, 0}},
	{"dbl < -0.5", {0, 1}},
	{"intfield == 150.0", {1, 0}},
	{"intfield + small == 350", {1, 0}},
	{"intfield - 40 * 2 == 70", {1, 0}},
	{"(intfield & 0xff) == 150", {1, 0}},
	{"(small | 1) == 7", {0, 1}},
	{"(small ^ 7) == 0", {0, 1}},
	{"intfield % 7 == 3", {1, 0}},
	{"1 << 3 == 8 && 64 >> 3 == 8", {1, 1}},
	{"-last == 3", {1, 0}},
	{"~0 == -1", {1, 1}},
	{"intfield / 0 == 1", {0, 0}},
	{"intfield << 64", {0, 0}},
	{"last", {1, 1}},
	{"dbl", {1, 1}},
	{"!dbl", {0, 0}},
	{"small >= 200", {1, 0}},
	{"small <= 7", {0, 1}},
	{"010 == 8 && 0x10 == 16", {1, 1}},
	{"$ctx.procname == \"*\"", {1, 1}},
	{"$ctx.vtid > 0 && $ctx.pthread_id != 0", {1, 1}},
	{"intfield > 100 && intfield < 200 || last == 100", {1, 1}},
	{"(intfield > 100 || small == 7) && (dbl > 0 || last == 100)", {1, 1}},
	{"intfield > 100 && (dbl > 100 || strfield == \"b*\")", {0, 0}},
	{"+intfield == 150", {1, 0}},
	{"1.5e1 == 15", {1, 1}},
	/* A literal above 2^63 - 1 is the 64-bit pattern an unsigned field
	 * holding it reads as. */
	{"umax != 18446744073709551615", {0, 1}},
	{"umax == 0xffffffffffffffff", {1, 0}},
	{"umax == -1 && umax != 0x8000000000000000", {1, 0}},
	{"0xffffffffffffffff + 1 == 0", {1, 1}},
};

static const struct {
	const char *text;
	const char *message;
} refused[] = {
	{"intfield > )", "filter: unexpected ')' at column 12"},
	{"(intfield > 1", "filter: missing ')' at the end"},
	{"intfield >", "filter: unexpected end of expression at the end"},
	{"strfield < \"a\"", "filter: '<' does not order strings (only == and !=) at column 10"},
	{"$ctx.foo == 1",
	 "filter: unknown context '$ctx.foo' (known: vpid, vtid, procname, pthread_id, vuid, "
	 "veuid, vsuid, vgid, vegid, vsgid, cgroup_ns, ipc_ns, mnt_ns, net_ns, pid_ns, time_ns, "
	 "user_ns, uts_ns, ip) at column 1"},
	{"\"abc", "filter: unterminated string at column 1"},
	{"intfield @ 3", "filter: unexpected '@' at column 10"},
	{"\"a\" + 1", "filter: '+' needs numbers at column 5"},
	{"", "filter: empty expression"},
	{"1 == \"a\"", "filter: '==' compares a string with a number at column 3"},
	{"99999999999999999999", "filter: invalid number '99999999999999999999' at column 1"},
	{"18446744073709551616", "filter: invalid number '18446744073709551616' at column 1"},
	{"0x10000000000000000", "filter: invalid number '0x10000000000000000' at column 1"},
	{"1.5 % 2", "filter: '%' needs integers at column 5"},
	{"\"abc\"", "filter: a string is not a condition (compare it with ==) at column 1"},
	{"!\"abc\"", "filter: '!' needs a condition, not a string at column 1"},
	{"\"a\\n\" == \"b\"", "filter: unknown escape (only \\\", \\\\ and \\*) at column 3"},
	{"a b", "filter: unexpected 'b' at column 3"},
	{"12ab == 1", "filter: unexpected 'a' in number at column 3"},
	{"$ctx.procname > 3", "filter: '>' does not order strings (only == and !=) at column 15"},
};

/* Refused only against the event's fields, at compile time. */
static const struct {
	const char *text;
	const char *message;
} not_compiled[] = {
	{"nosuch == 1", "filter: the event has no field 'nosuch' at column 1"},
	{"blob == 1", "filter: field 'blob' is a byte sequence, which filters cannot read at column 1"},
	{"strfield > 1", "filter: '>' does not order strings (only == and !=) at column 10"},
	{"dbl & 1", "filter: '&' needs integers at column 5"},
};

/* The string's piece is measured as the library does for a record, or
 * left unmeasured as the tracepoint gives it (the string may then have no
 * NUL before an unmapped page: nothing may read past what the filter needs). */
static void
record_pieces(const Record *r, struct tracectl_ust_piece pieces[8], gboolean measured)
{
	static const char blob[3] = {1, 2, 3};

	pieces[0] = (struct tracectl_ust_piece){&r->intfield, 8};
	pieces[1] = (struct tracectl_ust_piece){&r->small, 1};
	pieces[2] = (struct tracectl_ust_piece){&r->dbl, 8};
	pieces[3] = (struct tracectl_ust_piece){
	    r->strfield, measured ? strlen(r->strfield) + 1 : TRACECTL_UST_PIECE_STRING};
	pieces[4] = (struct tracectl_ust_piece){&r->blob_len, 4};
	pieces[5] = (struct tracectl_ust_piece){blob, r->blob_len};
	pieces[6] = (struct tracectl_ust_piece){&r->last, 4};
	pieces[7] = (struct tracectl_ust_piece){&r->umax, 8};
}

static struct tc_ust_filter *
load(GBytes *bytecode)
{
	struct tc_ust_filter *filter = NULL;
	gsize size;
	const void *data = g_bytes_get_data(bytecode, &size);

	g_assert_cmpint(tc_ust_filter_load(data, size, ust_fields, G_N_ELEMENTS(ust_fields),
					   &filter),
			==, 0);
	return filter;
}

static GBytes *
compile_one(const char *text)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(TcFilterExpr) expr = tc_filter_parse(text, &error);
	GBytes *bytecode;

	g_assert_no_error(error);
	bytecode = tc_filter_compile(&expr, 1, abi_fields, G_N_ELEMENTS(abi_fields), &error);
	g_assert_no_error(error);
	return bytecode;
}

static gboolean
keeps(struct tc_ust_filter *filter, const Record *r)
{
	struct tracectl_ust_piece pieces[8];

	record_pieces(r, pieces, TRUE);
	return tc_ust_filter_run(filter, pieces, G_N_ELEMENTS(pieces), 0);
}

/* The same with the string as the tracepoint gives it: not measured yet. */
static gboolean
keeps_unmeasured(struct tc_ust_filter *filter, const Record *r)
{
	struct tracectl_ust_piece pieces[8];

	record_pieces(r, pieces, FALSE);
	return tc_ust_filter_run(filter, pieces, G_N_ELEMENTS(pieces), 0);
}

static void
test_accepted(void)
{
	for (guint i = 0; i < G_N_ELEMENTS(accepted); i++) {
		g_autoptr(GBytes) bytecode = compile_one(accepted[i].text);
		struct tc_ust_filter *filter = load(bytecode);

		for (guint r = 0; r < G_N_ELEMENTS(records); r++) {
			if (keeps(filter, &records[r]) != accepted[i].keeps[r])
				g_error("'%s' on record %u: expected %d", accepted[i].text, r,
					accepted[i].keeps[r]);
			if (keeps_unmeasured(filter, &records[r]) != accepted[i].keeps[r])
				g_error("'%s' on record %u, string not measured: expected %d",
					accepted[i].text, r, accepted[i].keeps[r]);
		}
		tc_ust_filter_free(filter);
	}
}

static void
test_refused(void)
{
	for (guint i = 0; i < G_N_ELEMENTS(refused); i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(TcFilterExpr) expr = tc_filter_parse(refused[i].text, &error);

		g_assert_null(expr);
		g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
		g_assert_cmpstr(error->message, ==, refused[i].message);
	}
}

static void
test_not_compiled(void)
{
	for (guint i = 0; i < G_N_ELEMENTS(not_compiled); i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(TcFilterExpr) expr = tc_filter_parse(not_compiled[i].text, &error);
		g_autoptr(GBytes) bytecode = NULL;

		g_assert_no_error(error);
		bytecode = tc_filter_compile(&expr, 1, abi_fields, G_N_ELEMENTS(abi_fields), &error);
		g_assert_null(bytecode);
		g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
		g_assert_cmpstr(error->message, ==, not_compiled[i].message);
	}
}

/* A filter naming an array or a sequence is refused, whatever their
 * elements; the filter language has no indexing. The integer after them
 * is read from the right piece: an array is one, a sequence two. */
static void
test_containers_refused(void)
{
	static const struct tracectl_abi_field fields[] = {
		{"arr", TRACECTL_FIELD_ARRAY | TRACECTL_FIELD_ELEMENT(TRACECTL_FIELD_UNSIGNED, 4), 16},
		{"seq", TRACECTL_FIELD_SEQUENCE | TRACECTL_FIELD_ELEMENT(TRACECTL_FIELD_DOUBLE, 8), 0},
		{"txt", TRACECTL_FIELD_SEQUENCE | TRACECTL_FIELD_TEXT |
			    TRACECTL_FIELD_ELEMENT(TRACECTL_FIELD_SIGNED, 1), 0},
		{"after", TRACECTL_FIELD_UNSIGNED, 4},
	};
	static const struct tracectl_ust_field ust[] = {
		{"arr", TRACECTL_UST_FIELD_ARRAY |
				TRACECTL_UST_FIELD_ELEMENT(TRACECTL_UST_FIELD_UNSIGNED, 4), 16},
		{"seq", TRACECTL_UST_FIELD_SEQUENCE |
				TRACECTL_UST_FIELD_ELEMENT(TRACECTL_UST_FIELD_DOUBLE, 8), 0},
		{"txt", TRACECTL_UST_FIELD_SEQUENCE | TRACECTL_UST_FIELD_TEXT |
				TRACECTL_UST_FIELD_ELEMENT(TRACECTL_UST_FIELD_SIGNED, 1), 0},
		{"after", TRACECTL_UST_FIELD_UNSIGNED, 4},
	};
	static const struct {
		const char *text;
		const char *message;
	} container_filters[] = {
		{"arr == 1", "filter: field 'arr' is an array, which filters cannot read at column 1"},
		{"seq > 1.5", "filter: field 'seq' is a sequence, which filters cannot read at column 1"},
		{"txt == \"a\"",
		 "filter: field 'txt' is a sequence, which filters cannot read at column 1"},
	};
	static const uint32_t words[16], length = 0, after = 42;
	struct tracectl_ust_piece pieces[] = {
		{words, sizeof(words)}, {&length, 4}, {NULL, 0}, {&length, 4}, {NULL, 0}, {&after, 4},
	};
	g_autoptr(GError) error = NULL;
	g_autoptr(TcFilterExpr) expr = NULL;
	g_autoptr(GBytes) bytecode = NULL;
	struct tc_ust_filter *filter = NULL;
	gsize size;
	const void *data;

	for (guint i = 0; i < G_N_ELEMENTS(container_filters); i++) {
		g_autoptr(TcFilterExpr) expr_refused = tc_filter_parse(container_filters[i].text, &error);

		g_assert_no_error(error);
		g_assert_null(tc_filter_compile(&expr_refused, 1, fields, G_N_ELEMENTS(fields), &error));
		g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
		g_assert_cmpstr(error->message, ==, container_filters[i].message);
		g_clear_error(&error);
	}
	expr = tc_filter_parse("after == 42", &error);
	g_assert_no_error(error);
	bytecode = tc_filter_compile(&expr, 1, fields, G_N_ELEMENTS(fields), &error);
	g_assert_no_error(error);
	data = g_bytes_get_data(bytecode, &size);
	g_assert_cmpint(tc_ust_filter_load(data, size, ust, G_N_ELEMENTS(ust), &filter), ==, 0);
	g_assert_true(tc_ust_filter_run(filter, pieces, G_N_ELEMENTS(pieces), 0));
	/* One piece short of what the event has: not run on it. */
	g_assert_false(tc_ust_filter_run(filter, pieces, G_N_ELEMENTS(pieces) - 1, 0));
	tc_ust_filter_free(filter);
}

/* An enumeration field compares as its container: signed or unsigned, of
 * its size, read from its one piece; the application's field says 0 where
 * the wire has the enumeration's index. A label is no value. */
static void
test_enums_compare_as_integers(void)
{
	static const struct tracectl_abi_field fields[] = {
		{"small", TRACECTL_FIELD_ENUM | TRACECTL_FIELD_ELEMENT(TRACECTL_FIELD_SIGNED, 1), 3},
		{"wide", TRACECTL_FIELD_ENUM | TRACECTL_FIELD_ELEMENT(TRACECTL_FIELD_UNSIGNED, 8), 0},
	};
	static const struct tracectl_ust_field ust[] = {
		{"small", TRACECTL_UST_FIELD_ENUM |
				  TRACECTL_UST_FIELD_ELEMENT(TRACECTL_UST_FIELD_SIGNED, 1), 0},
		{"wide", TRACECTL_UST_FIELD_ENUM |
				 TRACECTL_UST_FIELD_ELEMENT(TRACECTL_UST_FIELD_UNSIGNED, 8), 0},
	};
	static const struct {
		const char *text;
		int8_t small;
		uint64_t wide;
		gboolean kept;
	} cases[] = {
		{"small == -3", -3, 0, TRUE},
		{"small < 0", -3, 0, TRUE},
		{"small < 0", 5, 0, FALSE},
		{"small >= 2 && wide == 18446744073709551615", 2, G_MAXUINT64, TRUE},
		{"wide > 1000", 0, 1000, FALSE},
	};
	g_autoptr(GError) error = NULL;

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(TcFilterExpr) expr = tc_filter_parse(cases[i].text, &error);
		g_autoptr(GBytes) bytecode = NULL;
		struct tc_ust_filter *filter = NULL;
		struct tracectl_ust_piece pieces[] = {{&cases[i].small, 1}, {&cases[i].wide, 8}};
		const void *data;
		gsize size;

		g_assert_no_error(error);
		bytecode = tc_filter_compile(&expr, 1, fields, G_N_ELEMENTS(fields), &error);
		g_assert_no_error(error);
		data = g_bytes_get_data(bytecode, &size);
		g_assert_cmpint(tc_ust_filter_load(data, size, ust, G_N_ELEMENTS(ust), &filter), ==, 0);
		g_assert_cmpint(tc_ust_filter_run(filter, pieces, G_N_ELEMENTS(pieces), 0), ==,
				cases[i].kept);
		tc_ust_filter_free(filter);
	}
	{
		g_autoptr(TcFilterExpr) expr = tc_filter_parse("small == \"busy\"", &error);

		g_assert_no_error(error);
		g_assert_null(tc_filter_compile(&expr, 1, fields, G_N_ELEMENTS(fields), &error));
		g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
	}
}

/* Several filters on one event: any of them keeps a record; one that does
 * not apply to the event is left out. */
static void
test_or_of_filters(void)
{
	const char *texts[] = {"intfield > 100", "nosuch == 1", "last == 100"};
	TcFilterExpr *exprs[G_N_ELEMENTS(texts)];
	g_autoptr(GBytes) bytecode = NULL;
	g_autoptr(GError) error = NULL;
	struct tc_ust_filter *filter;
	Record neither = records[1];

	for (guint i = 0; i < G_N_ELEMENTS(texts); i++) {
		exprs[i] = tc_filter_parse(texts[i], &error);
		g_assert_no_error(error);
	}
	bytecode = tc_filter_compile(exprs, G_N_ELEMENTS(exprs), abi_fields,
				     G_N_ELEMENTS(abi_fields), &error);
	g_assert_no_error(error);
	filter = load(bytecode);
	g_assert_true(keeps(filter, &records[0]));
	g_assert_true(keeps(filter, &records[1]));
	neither.last = 5;
	g_assert_false(keeps(filter, &neither));
	tc_ust_filter_free(filter);
	for (guint i = 0; i < G_N_ELEMENTS(texts); i++)
		tc_filter_expr_free(exprs[i]);
}

/* An unmeasured string that differs from the literal is read no further
 * than the first difference (its end here touches an unmapped page), and
 * one that is a prefix of the literal no further than its NUL. */
static void
test_unmeasured_string_bounded(void)
{
	static const char *const texts[] = {"strfield == \"abc\"", "strfield != \"abc\"",
					    "strfield == \"abcdef\""};
	long page = sysconf(_SC_PAGESIZE);
	char *area = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	const gboolean expected[] = {FALSE, TRUE, FALSE};
	Record r = records[0];

	g_assert_true(area != MAP_FAILED);
	g_assert_cmpint(mprotect(area + page, page, PROT_NONE), ==, 0);
	/* "abX" with no NUL before the unmapped page. */
	memcpy(area + page - 3, "abX", 3);
	r.strfield = area + page - 3;
	for (guint i = 0; i < G_N_ELEMENTS(texts); i++) {
		g_autoptr(GBytes) bytecode = compile_one(texts[i]);
		struct tc_ust_filter *filter = load(bytecode);

		g_assert_cmpint(keeps_unmeasured(filter, &r), ==, expected[i]);
		tc_ust_filter_free(filter);
	}
	/* "ab" and its NUL, last bytes of the page, against a longer literal. */
	memcpy(area + page - 3, "ab", 3);
	{
		g_autoptr(GBytes) bytecode = compile_one("strfield == \"abcdef\"");
		struct tc_ust_filter *filter = load(bytecode);

		g_assert_false(keeps_unmeasured(filter, &r));
		tc_ust_filter_free(filter);
	}
	munmap(area, 2 * page);
}

static void
test_vpid(void)
{
	g_autofree char *text = g_strdup_printf("$ctx.vpid == %d", (int)getpid());
	g_autofree char *other = g_strdup_printf("$ctx.vpid == %d", (int)getpid() + 1);
	g_autoptr(GBytes) yes = compile_one(text);
	g_autoptr(GBytes) no = compile_one(other);
	struct tc_ust_filter *f_yes = load(yes), *f_no = load(no);

	g_assert_true(keeps(f_yes, &records[0]));
	g_assert_false(keeps(f_no, &records[0]));
	tc_ust_filter_free(f_yes);
	tc_ust_filter_free(f_no);
}

/* Whether the filter compiled from text keeps records[0] recorded from
 * the call site ip. */
static gboolean
keeps_text_at(const char *text, guint64 ip)
{
	g_autoptr(GBytes) bytecode = compile_one(text);
	struct tc_ust_filter *filter = load(bytecode);
	struct tracectl_ust_piece pieces[8];
	gboolean kept;

	record_pieces(&records[0], pieces, TRUE);
	kept = tc_ust_filter_run(filter, pieces, G_N_ELEMENTS(pieces), ip);
	tc_ust_filter_free(filter);
	return kept;
}

/* The ids (unsigned), a namespace and ip read what the records' contexts
 * hold: the thread's own, and the call site given. */
static void
test_contexts(void)
{
	struct stat net;
	g_autofree char *uid = g_strdup_printf("$ctx.vuid == %u && $ctx.vsgid == %u",
					       (unsigned)getuid(), (unsigned)getgid());
	g_autofree char *net_ns = NULL;

	g_assert_cmpint(stat("/proc/thread-self/ns/net", &net), ==, 0);
	net_ns = g_strdup_printf("$ctx.net_ns == %llu && $ctx.uts_ns > 0",
				 (unsigned long long)net.st_ino);
	g_assert_true(keeps_text_at(uid, 0));
	g_assert_true(keeps_text_at("$ctx.veuid >= 0 && $ctx.vegid >= 0", 0));
	g_assert_true(keeps_text_at(net_ns, 0));
	g_assert_false(keeps_text_at("$ctx.net_ns == 0", 0));
	g_assert_true(keeps_text_at("$ctx.ip == 0xfedcba9876543210", 0xfedcba9876543210u));
	g_assert_false(keeps_text_at("$ctx.ip == 0xfedcba9876543210", 0x401000));
}

/* The limits: nesting while parsing, stack depth and length while
 * compiling. */
static void
test_limits(void)
{
	g_autoptr(GString) nested = g_string_new(NULL);
	g_autoptr(GString) deep = g_string_new(NULL);
	g_autoptr(GString) longer = g_string_new("intfield == 0");
	g_autoptr(GError) error = NULL;
	g_autoptr(TcFilterExpr) expr = NULL;
	g_autoptr(GBytes) bytecode = NULL;

	for (guint i = 0; i < 100; i++)
		g_string_append_c(nested, '(');
	g_string_append(nested, "1");
	for (guint i = 0; i < 100; i++)
		g_string_append_c(nested, ')');
	g_assert_null(tc_filter_parse(nested->str, &error));
	g_assert_nonnull(strstr(error->message, "nested deeper than 64 at column"));
	g_clear_error(&error);

	for (guint i = 0; i < 20; i++)
		g_string_append(deep, "1+(");
	g_string_append(deep, "1");
	for (guint i = 0; i < 20; i++)
		g_string_append_c(deep, ')');
	expr = tc_filter_parse(deep->str, &error);
	g_assert_no_error(error);
	g_assert_null(tc_filter_compile(&expr, 1, abi_fields, G_N_ELEMENTS(abi_fields), &error));
	g_assert_nonnull(strstr(error->message, "more than 16 stack values"));
	g_clear_error(&error);
	g_clear_pointer(&expr, tc_filter_expr_free);

	for (guint i = 0; i < 60; i++)
		g_string_append(longer, "||small==1");
	expr = tc_filter_parse(longer->str, &error);
	g_assert_no_error(error);
	g_assert_null(tc_filter_compile(&expr, 1, abi_fields, G_N_ELEMENTS(abi_fields), &error));
	g_assert_nonnull(strstr(error->message, "over 256 instructions"));
}

/* A valid program, then one broken change at a time. */
static void
test_verifier(void)
{
	g_autoptr(GBytes) bytecode = compile_one("intfield > 100 && strfield == \"x*\"");
	gsize size;
	const guint8 *data = g_bytes_get_data(bytecode, &size);
	struct tc_filter_header *header;
	struct tc_filter_insn *insns;
	struct tc_ust_filter *filter = NULL;
	g_autofree guint8 *copy = NULL;
	int and_slot = -1, str_slot = -1, load_slot = -1;

#define RESET() (memcpy(copy, data, size), header = (void *)copy, insns = (void *)(header + 1))
#define REFUSED(sz)                                                                        \
	g_assert_cmpint(tc_ust_filter_load(copy, (sz), ust_fields, G_N_ELEMENTS(ust_fields),    \
					   &filter),                                        \
			==, -EINVAL)

	copy = g_malloc(size);
	RESET();
	for (int i = 0; i < header->nr_insns; i++) {
		if (insns[i].op == TC_FILTER_OP_AND)
			and_slot = i;
		if (insns[i].op == TC_FILTER_OP_PUSH_STR)
			str_slot = i;
		if (insns[i].op == TC_FILTER_OP_LOAD_INT)
			load_slot = i;
	}
	g_assert_cmpint(and_slot, >=, 0);
	g_assert_cmpint(str_slot, >=, 0);
	g_assert_cmpint(load_slot, >=, 0);
	g_assert_cmpint(tc_ust_filter_load(copy, size, ust_fields, G_N_ELEMENTS(ust_fields), &filter),
			==, 0);
	tc_ust_filter_free(filter);

	REFUSED(size - 1);
	header->magic ^= 1;
	REFUSED(size);
	RESET();
	header->version = 2;
	REFUSED(size);
	RESET();
	insns[and_slot].arg32 = (guint32)and_slot; /* a loop */
	REFUSED(size);
	RESET();
	insns[and_slot].arg32 = 0; /* backward */
	REFUSED(size);
	RESET();
	insns[and_slot].arg32 = header->nr_insns; /* past the end */
	REFUSED(size);
	RESET();
	insns[and_slot].arg32 = 1; /* into the immediate of PUSH_INT 100 */
	REFUSED(size);
	RESET();
	insns[str_slot].arg32 = header->strings_len; /* string out of bounds */
	REFUSED(size);
	RESET();
	insns[load_slot].arg16 = 3; /* an integer load of a string field */
	REFUSED(size);
	RESET();
	insns[load_slot].arg16 = 4; /* bytes */
	REFUSED(size);
	RESET();
	insns[load_slot].arg16 = 60; /* no such field */
	REFUSED(size);
	RESET();
	insns[header->nr_insns - 1].op = TC_FILTER_OP_NOT; /* runs off the end */
	REFUSED(size);
	RESET();
	insns[0].op = TC_FILTER_OP_RETURN; /* empty stack */
	REFUSED(size);
	RESET();
	insns[load_slot].flags = 1; /* unused bits set */
	REFUSED(size);
	RESET();
	insns[0].op = 0xff;
	REFUSED(size);
#undef RESET
#undef REFUSED
}

/* 17 pushes overflow the stack. */
static void
test_verifier_stack(void)
{
	guint8 program[sizeof(struct tc_filter_header) + 40 * 8];
	struct tc_filter_header *header = (void *)program;
	struct tc_filter_insn *insns = (void *)(header + 1);
	struct tc_ust_filter *filter = NULL;
	guint n = 0;

	memset(program, 0, sizeof(program));
	header->magic = TC_FILTER_MAGIC;
	header->version = TC_FILTER_VERSION;
	for (guint i = 0; i < 17; i++)
		insns[n++].op = TC_FILTER_OP_LOAD_CTX, insns[n - 1].arg32 = TC_FILTER_CTX_VPID;
	for (guint i = 0; i < 16; i++)
		insns[n++].op = TC_FILTER_OP_ADD;
	insns[n++].op = TC_FILTER_OP_RETURN;
	header->nr_insns = (guint16)n;
	g_assert_cmpint(tc_ust_filter_load(program, sizeof(*header) + n * 8, ust_fields,
					   G_N_ELEMENTS(ust_fields), &filter),
			==, -EINVAL);
	/* 16 are fine. */
	n = 0;
	for (guint i = 0; i < 16; i++)
		insns[n++].op = TC_FILTER_OP_LOAD_CTX, insns[n - 1].arg32 = TC_FILTER_CTX_VPID;
	for (guint i = 0; i < 15; i++)
		insns[n++] = (struct tc_filter_insn){.op = TC_FILTER_OP_ADD};
	insns[n++] = (struct tc_filter_insn){.op = TC_FILTER_OP_RETURN};
	header->nr_insns = (guint16)n;
	g_assert_cmpint(tc_ust_filter_load(program, sizeof(*header) + n * 8, ust_fields,
					   G_N_ELEMENTS(ust_fields), &filter),
			==, 0);
	tc_ust_filter_free(filter);
}

/* Kernel filters: what tracefs can say, and refusals naming the rest. */
static const struct {
	const char *text;
	const char *tracefs; /* NULL: refused */
	const char *message;
} kernel_filters[] = {
	{"fd == 3", "fd == 3", NULL},
	{"3 < fd", "fd > 3", NULL},
	{"prev_pid != 0 && (next_prio <= -1 || !(flags & 4))",
	 "(prev_pid != 0) && ((next_prio <= -1) || (!(flags & 4)))", NULL},
	{"comm == \"bash\"", "comm == \"bash\"", NULL},
	{"comm == \"tracectl-*\"", "comm ~ \"tracectl-*\"", NULL},
	{"\"sh*\" != comm", "!(comm ~ \"sh*\")", NULL},
	{"(flags & 0x10) != 0", "flags & 16", NULL},
	{"(flags & 0x10) == 0", "!(flags & 16)", NULL},
	{"ret", "ret != 0", NULL},
	{"addr != 18446744073709551615", "addr != 18446744073709551615", NULL},
	{"(flags & 0x8000000000000000) != 0", "flags & 9223372036854775808", NULL},
	{"delta > -9223372036854775808", "delta > -9223372036854775808", NULL},
	{"$ctx.procname == \"x\"", NULL,
	 "filter: '$ctx.procname' has no kernel equivalent at column 1"},
	{"fd + 1 == 3", NULL, "filter: '+' there has no kernel equivalent at column 4"},
	{"delay > 1.5", NULL, "filter: a floating-point number has no kernel equivalent at column 9"},
	{"prev_pid == next_pid", NULL,
	 "filter: '==' there has no kernel equivalent at column 10"},
	{"comm == \"a#b\"", NULL,
	 "filter: the string at column 9 cannot go to the kernel (only letters, digits, spaces "
	 "and  _()!<>=&|~*\"./:,@+-)"},
};

static void
test_kernel(void)
{
	for (guint i = 0; i < G_N_ELEMENTS(kernel_filters); i++) {
		g_autoptr(GError) error = NULL;
		g_autoptr(TcFilterExpr) expr = tc_filter_parse(kernel_filters[i].text, &error);
		g_autofree char *tracefs = NULL;

		g_assert_no_error(error);
		tracefs = tc_filter_to_tracefs(expr, &error);
		if (kernel_filters[i].tracefs) {
			g_assert_no_error(error);
			g_assert_cmpstr(tracefs, ==, kernel_filters[i].tracefs);
		} else {
			g_assert_null(tracefs);
			g_assert_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED);
			g_assert_cmpstr(error->message, ==, kernel_filters[i].message);
		}
	}
}

/* A jump into the middle of a field-constant triple, which the verifier
 * fuses: the jumping path runs the push and the comparison on their own.
 * "intfield == 0 ? 0 > -5 : intfield > -5", by hand. */
static void
test_fused_jump(void)
{
	struct {
		struct tc_filter_header header;
		struct tc_filter_insn insns[7];
	} program = {
		.header = {.magic = TC_FILTER_MAGIC, .version = TC_FILTER_VERSION, .nr_insns = 7},
		.insns = {
			{.op = TC_FILTER_OP_LOAD_INT, .arg16 = 0},
			{.op = TC_FILTER_OP_AND, .arg32 = 3},
			{.op = TC_FILTER_OP_LOAD_INT, .arg16 = 0},
			{.op = TC_FILTER_OP_PUSH_INT},
			{0},
			{.op = TC_FILTER_OP_GT},
			{.op = TC_FILTER_OP_RETURN},
		},
	};
	const int64_t minus_five = -5;
	struct tc_ust_filter *filter = NULL;
	Record record = records[0];

	memcpy(&program.insns[4], &minus_five, sizeof(minus_five));
	g_assert_cmpint(tc_ust_filter_load(&program, sizeof(program), ust_fields,
					   G_N_ELEMENTS(ust_fields), &filter),
			==, 0);
	g_assert_true(keeps(filter, &record)); /* 150 > -5 */
	record.intfield = 0;
	g_assert_true(keeps(filter, &record)); /* the jump: 0 > -5 */
	record.intfield = -10;
	g_assert_false(keeps(filter, &record)); /* -10 > -5 */
	tc_ust_filter_free(filter);
}

/* The kernel helper's own check of what it writes into tracefs. */
static void
test_kernel_alphabet(void)
{
	static const struct {
		const char *filter;
		gssize position; /* -1: accepted */
	} cases[] = {
		{"prev_pid == 1", -1},
		{"(comm ~ \"bash*\") && !(flags & 16)", -1},
		{"filename == \"/usr/bin/a-b_c.d\"", -1},
		{"0", -1},
		{"prev_pid == 1\nnext_pid == 2", 13},
		{"comm == \"a\\b\"", 10},
		{"x # y", 2},
		{"a $ b", 2},
		{"a % 2", 2},
		{"", 0},
	};
	g_autofree char *longest = g_strnfill(TC_KERNEL_FILTER_MAX, 'x');
	g_autofree char *too_long = g_strnfill(TC_KERNEL_FILTER_MAX + 1, 'x');
	size_t position;

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		const char *why = tc_kernel_check_filter(cases[i].filter, &position);

		if (cases[i].position < 0) {
			g_assert_null(why);
		} else {
			g_assert_nonnull(why);
			g_assert_cmpuint(position, ==, (gsize)cases[i].position);
		}
	}
	g_assert_null(tc_kernel_check_filter(longest, &position));
	g_assert_nonnull(tc_kernel_check_filter(too_long, &position));
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/filter/accepted", test_accepted);
	g_test_add_func("/tracectl/filter/refused", test_refused);
	g_test_add_func("/tracectl/filter/not-compiled", test_not_compiled);
	g_test_add_func("/tracectl/filter/containers-refused", test_containers_refused);
	g_test_add_func("/tracectl/filter/enums-compare-as-integers", test_enums_compare_as_integers);
	g_test_add_func("/tracectl/filter/or-of-filters", test_or_of_filters);
	g_test_add_func("/tracectl/filter/unmeasured-string-bounded",
			test_unmeasured_string_bounded);
	g_test_add_func("/tracectl/filter/vpid", test_vpid);
	g_test_add_func("/tracectl/filter/contexts", test_contexts);
	g_test_add_func("/tracectl/filter/limits", test_limits);
	g_test_add_func("/tracectl/filter/verifier", test_verifier);
	g_test_add_func("/tracectl/filter/verifier-stack", test_verifier_stack);
	g_test_add_func("/tracectl/filter/fused-jump", test_fused_jump);
	g_test_add_func("/tracectl/filter/kernel", test_kernel);
	g_test_add_func("/tracectl/filter/kernel-alphabet", test_kernel_alphabet);
	return g_test_run();
}
