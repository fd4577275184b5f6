/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The contexts of LTTng-UST applications as the service declares them in
 * a channel's stream class (apps/tc-lttng-context.c): every context of the
 * model once, in the order of its bit, each field as LTTng-UST 2.13.5
 * describes it (checked against real applications' registrations by the
 * integration tests lttng-ust-trace and lttng-ust-perf-contexts, which
 * refuse an application whose description differs), perf counters last
 * under the name they were asked with.
 */
#include "tc-lttng-context.h"

#include <string.h>

#include "tc-lttng-preamble.h"
#include "tc-perf-counter.h"
#include "tracectl-abi.h"

static const TcLttngMetadataOptions options = {.is_big_endian = FALSE};

static void
test_table(void)
{
	gsize count;
	const TcLttngContext *table = tc_lttng_context_table(&count);
	guint32 seen = 0;

	g_assert_cmpuint(count, ==, 19);
	for (gsize i = 0; i < count; i++) {
		/* Bits in increasing order, each once, every one of the model. */
		g_assert_cmpuint(table[i].bit & seen, ==, 0);
		if (i > 0)
			g_assert_cmpuint(table[i].bit, >, table[i - 1].bit);
		seen |= table[i].bit;
	}
	g_assert_cmpuint(seen, ==, TRACECTL_CONTEXT_ALL);
}

#define INTEGER(size, is_signed, name)                                                        \
	"\t\tinteger { size = " #size "; align = 8; signed = " #is_signed                     \
	"; encoding = none; base = 10; } _" name ";\n"

static void
test_stream_class(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GString) out = g_string_new(NULL);
	g_autoptr(GArray) counters = g_array_new(FALSE, TRUE, sizeof(struct tc_perf_counter));
	g_autoptr(GArray) fields = NULL;
	struct tc_perf_counter counter = {.type = 1, .config = 1};

	g_strlcpy(counter.name, "perf_thread_task_clock", sizeof(counter.name));
	g_array_append_val(counters, counter);
	fields = tc_lttng_context_fields(TRACECTL_CONTEXT_ALL, counters);
	/* procname is an array and its element: one more field. */
	g_assert_cmpuint(fields->len, ==, 19 + 1 + 1);
	g_assert_true(tc_lttng_preamble_append_stream(
	    out, 0, LTTNG_UST_CTL_CHANNEL_HEADER_LARGE,
	    (const struct lttng_ust_ctl_field *)fields->data, fields->len, &options, &error));
	g_assert_no_error(error);
	g_test_message("%s", out->str);
	g_assert_nonnull(strstr(
	    out->str,
	    "\tevent.context := struct {\n" INTEGER(32, 1, "vpid") INTEGER(32, 1, "vtid")));
	g_assert_nonnull(strstr(out->str, INTEGER(64, 0, "pthread_id") INTEGER(32, 0, "vuid")));
	g_assert_nonnull(strstr(out->str, INTEGER(32, 0, "vsgid") INTEGER(64, 0, "cgroup_ns")));
	g_assert_nonnull(strstr(out->str, INTEGER(64, 0, "uts_ns") INTEGER(64, 0, "ip")
					      INTEGER(64, 0, "perf_thread_task_clock") "\t};\n};\n"));
	g_assert_nonnull(strstr(out->str, "encoding = UTF8; base = 10; } _procname[17];\n"));
}

static void
test_none(void)
{
	g_autoptr(GArray) counters = g_array_new(FALSE, TRUE, sizeof(struct tc_perf_counter));
	g_autoptr(GArray) fields = tc_lttng_context_fields(0, counters);

	g_assert_cmpuint(fields->len, ==, 0);
	g_array_unref(fields);
	fields = tc_lttng_context_fields(TRACECTL_CONTEXT_IP | TRACECTL_CONTEXT_VPID, counters);
	g_assert_cmpuint(fields->len, ==, 2);
	g_assert_cmpstr(g_array_index(fields, struct lttng_ust_ctl_field, 0).name, ==, "vpid");
	g_assert_cmpstr(g_array_index(fields, struct lttng_ust_ctl_field, 1).name, ==, "ip");
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/lttng-context/table", test_table);
	g_test_add_func("/tracectl/lttng-context/stream-class", test_stream_class);
	g_test_add_func("/tracectl/lttng-context/none", test_none);
	return g_test_run();
}
