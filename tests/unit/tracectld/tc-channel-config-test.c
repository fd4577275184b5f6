/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* User-space context names: the bits, ip and perf:thread: counters
 * AddContext and session files take, each refusal's message, and the
 * names a channel's contexts are listed by. */
#include "tc-channel-config.h"

#include <string.h>

#include "tc-error.h"
#include "tc-perf-counter.h"
#include "tracectl-abi.h"

static GArray *
counters_new(void)
{
	return g_array_new(FALSE, FALSE, sizeof(struct tc_perf_counter));
}

static const struct tc_perf_counter *
counter_at(GArray *counters, guint i)
{
	return &g_array_index(counters, struct tc_perf_counter, i);
}

static void
test_parse(void)
{
	const char *names[] = {"vpid",
			       "perf:thread:task-clock",
			       "ip",
			       "perf:thread:raw:r0110:foo-bar",
			       "perf:thread:cycles",
			       "perf:thread:task-clock",
			       "perf:thread:L1-dcache-load-misses",
			       NULL};
	g_autoptr(GArray) counters = counters_new();
	g_autoptr(GPtrArray) apps = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GError) error = NULL;
	g_auto(GStrv) listed = NULL, lttng_only = NULL;
	guint32 bits;

	g_assert_true(tc_channel_config_ust_contexts_parse(names, &bits, counters, apps, &error));
	g_assert_no_error(error);
	g_assert_cmphex(bits, ==, TRACECTL_CONTEXT_VPID | TRACECTL_CONTEXT_IP);
	/* task-clock given twice is counted once. */
	g_assert_cmpuint(counters->len, ==, 4);
	g_assert_cmpuint(counter_at(counters, 0)->type, ==, 1);
	g_assert_cmpuint(counter_at(counters, 0)->config, ==, 1);
	g_assert_cmpstr(counter_at(counters, 0)->name, ==, "perf_thread_task_clock");
	g_assert_cmpuint(counter_at(counters, 1)->type, ==, TC_PERF_COUNTER_TYPE_RAW);
	g_assert_cmpuint(counter_at(counters, 1)->config, ==, 0x110);
	g_assert_cmpstr(counter_at(counters, 1)->name, ==, "perf_thread_raw_r0110_foo_bar");
	/* An alias is a field of its own, as in lttng. */
	g_assert_cmpuint(counter_at(counters, 2)->type, ==, 0);
	g_assert_cmpuint(counter_at(counters, 2)->config, ==, 0);
	g_assert_cmpstr(counter_at(counters, 2)->name, ==, "perf_thread_cycles");
	g_assert_cmpuint(counter_at(counters, 3)->type, ==, 3);
	g_assert_cmpuint(counter_at(counters, 3)->config, ==, 0x10000);

	listed = tc_channel_config_ust_context_names(bits, counters, NULL, FALSE);
	g_assert_cmpstrv(listed,
			 ((const char *[]){"vpid", "ip", "perf:thread:task-clock",
					   "perf:thread:raw:r0110:foo_bar", "perf:thread:cycles",
					   "perf:thread:L1-dcache-load-misses", NULL}));
	/* tracectl's own applications record perf counters too. */
	lttng_only = tc_channel_config_ust_context_names(bits, counters, NULL, TRUE);
	g_assert_cmpstrv(lttng_only, ((const char *[]){NULL}));
	/* Parsing again empties the list first. */
	g_assert_true(tc_channel_config_ust_contexts_parse((const char *[]){"ip", NULL}, &bits,
							   counters, apps, &error));
	g_assert_cmpuint(counters->len, ==, 0);
	g_assert_cmphex(bits, ==, TRACECTL_CONTEXT_IP);
}

static void
assert_ust_refused(const char *name, const char *expected)
{
	const char *names[] = {"vpid", name, NULL};
	g_autoptr(GArray) counters = counters_new();
	g_autoptr(GPtrArray) apps = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GError) error = NULL;
	guint32 bits;

	g_assert_false(tc_channel_config_ust_contexts_parse(names, &bits, counters, apps, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
	if (!strstr(error->message, expected))
		g_error("'%s' refused with '%s', which does not say '%s'", name, error->message,
			expected);
}

static void
test_refusals(void)
{
	g_autoptr(GArray) counters = counters_new();
	g_autoptr(GPtrArray) apps = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) many = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GError) error = NULL;
	guint32 bits;

	assert_ust_refused("colour", "Unknown context 'colour': use vpid, ");
	assert_ust_refused("IP", "Unknown context 'IP'");
	assert_ust_refused(
	    "perf:thread:bogus",
	    "Unknown perf counter 'perf:thread:bogus' (tracectl add-context --list)");
	assert_ust_refused("perf:thread:", "Unknown perf counter 'perf:thread:'");
	assert_ust_refused("perf:thread:raw:0110:foo",
			   "Wrong perf raw counter "
			   "'perf:thread:raw:0110:foo': expected perf:thread:raw:rHEX:NAME");
	assert_ust_refused("perf:thread:raw:r0110", "Wrong perf raw counter");
	assert_ust_refused("perf:thread:raw:r:foo", "Wrong perf raw counter");
	assert_ust_refused("perf:thread:raw:rzz:foo", "Wrong perf raw counter");
	assert_ust_refused("perf:thread:raw:r0110:", "Wrong perf raw counter");
	assert_ust_refused("perf:thread:raw:r0110:a b", "Wrong perf raw counter");
	assert_ust_refused("perf:thread:raw:r0110:a:b", "Wrong perf raw counter");
	assert_ust_refused("perf:thread:raw:r10000000000000000:x", "Wrong perf raw counter");
	assert_ust_refused("perf:cpu:cpu-cycles",
			   "Context 'perf:cpu:cpu-cycles' counts per CPU, in the kernel domain "
			   "only");

	/* One more than a channel records. */
	for (guint i = 0; i <= TC_CHANNEL_PERF_COUNTERS_MAX; i++)
		g_ptr_array_add(many, g_strdup_printf("perf:thread:raw:r%x:c%u", i, i));
	g_ptr_array_add(many, NULL);
	g_assert_false(tc_channel_config_ust_contexts_parse((const char *const *)many->pdata, &bits,
							    counters, apps, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
	g_assert_nonnull(strstr(error->message, "More than 16 perf counters given: a channel "
						"records at most 16"));
	g_clear_error(&error);

	g_assert_false(
	    tc_channel_config_ust_contexts_parse((const char *[]){NULL}, &bits, counters, apps,
						 &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
	g_clear_error(&error);

	g_assert_false(tc_channel_config_kernel_context_bits(
	    (const char *[]){"pid", "perf:cpu:cpu-cycles", NULL}, &bits, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED);
	g_assert_nonnull(strstr(error->message, "tracectl records no perf counter in the kernel"));
	g_clear_error(&error);
	g_assert_false(
	    tc_channel_config_kernel_context_bits((const char *[]){"ip", NULL}, &bits, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
}

/* Every name of the list parses, and its counter spells back to it. */
/* A kernel channel is channel0, in discard mode, without switch timer:
 * anything else is refused, naming what cannot be honoured. */
/* $app.PROVIDER:NAME: each once, in the order given, listed back with
 * its prefix; malformed ones and a ninth refused. */
static void
test_app_contexts(void)
{
	const char *names[] = {"$app.myprov:request_id", "vpid", "$app.Other_2:x",
			       "$app.myprov:request_id", NULL};
	g_autoptr(GArray) counters = counters_new();
	g_autoptr(GPtrArray) apps = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) many = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GError) error = NULL;
	g_auto(GStrv) listed = NULL, lttng_only = NULL;
	g_autofree char *field = NULL;
	g_autofree char *longest = NULL;
	guint32 bits;

	g_assert_true(tc_channel_config_ust_contexts_parse(names, &bits, counters, apps, &error));
	g_assert_no_error(error);
	g_assert_cmphex(bits, ==, TRACECTL_CONTEXT_VPID);
	g_assert_cmpuint(apps->len, ==, 2);
	g_assert_cmpstr(g_ptr_array_index(apps, 0), ==, "myprov:request_id");
	g_assert_cmpstr(g_ptr_array_index(apps, 1), ==, "Other_2:x");
	listed = tc_channel_config_ust_context_names(bits, counters, apps, FALSE);
	g_assert_cmpstrv(listed, ((const char *[]){"vpid", "$app.myprov:request_id",
						   "$app.Other_2:x", NULL}));
	lttng_only = tc_channel_config_ust_context_names(bits, counters, apps, TRUE);
	g_assert_cmpstrv(lttng_only, ((const char *[]){NULL}));
	field = tc_channel_config_app_context_field("myprov:request_id");
	g_assert_cmpstr(field, ==, "_app_myprov_request_id");
	/* Alone, an application context is enough. */
	g_assert_true(tc_channel_config_ust_contexts_parse((const char *[]){"$app.a:b", NULL},
							   &bits, counters, apps, &error));
	g_assert_cmpuint(apps->len, ==, 1);

	assert_ust_refused("$app.", "Wrong application context '$app.': expected "
				    "$app.PROVIDER:NAME");
	assert_ust_refused("$app.prov", "Wrong application context");
	assert_ust_refused("$app.:name", "Wrong application context");
	assert_ust_refused("$app.prov:", "Wrong application context");
	assert_ust_refused("$app.a b:c", "Wrong application context");
	assert_ust_refused("$app.a:b:c", "Wrong application context");
	assert_ust_refused("$app.a-b:c", "Wrong application context");
	assert_ust_refused("$App.a:b", "Unknown context '$App.a:b'");
	/* 127 bytes are the most "provider:name" holds. */
	longest = g_strdup_printf("$app.p:%0125d", 0);
	g_assert_true(tc_channel_config_ust_contexts_parse((const char *[]){longest, NULL}, &bits,
							   counters, apps, &error));
	g_free(longest);
	longest = g_strdup_printf("$app.p:%0126d", 0);
	assert_ust_refused(longest, "Wrong application context");

	for (guint i = 0; i <= TRACECTL_ABI_CHANNEL_APP_CONTEXTS_MAX; i++)
		g_ptr_array_add(many, g_strdup_printf("$app.p:c%u", i));
	g_ptr_array_add(many, NULL);
	g_assert_false(tc_channel_config_ust_contexts_parse((const char *const *)many->pdata, &bits,
							    counters, apps, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
	g_assert_nonnull(strstr(error->message, "More than 8 application contexts given"));
}

static void
test_kernel(void)
{
	TcChannelConfig config;
	g_autoptr(GError) error = NULL;

	tc_channel_config_init_default(&config, FALSE);
	g_assert_true(tc_channel_config_kernel_check("channel0", &config, &error));
	g_assert_no_error(error);
	g_assert_false(tc_channel_config_kernel_check("k", &config, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED);
	g_assert_nonnull(strstr(error->message, "a second kernel channel cannot be honoured"));
	g_clear_error(&error);
	config.overwrite = TRUE;
	g_assert_false(tc_channel_config_kernel_check("channel0", &config, &error));
	g_assert_nonnull(strstr(error->message, "does not overwrite"));
	g_clear_error(&error);
	config.overwrite = FALSE;
	config.switch_timer_us = 100000;
	g_assert_false(tc_channel_config_kernel_check("channel0", &config, &error));
	g_assert_nonnull(strstr(error->message, "no switch timer"));
}

static void
test_list(void)
{
	g_auto(GStrv) list = tc_channel_config_ust_context_list();
	guint perf = 0;

	g_assert_true(g_strv_contains((const char *const *)list, "ip"));
	g_assert_true(g_strv_contains((const char *const *)list, "perf:thread:cpu-cycles"));
	g_assert_true(g_strv_contains((const char *const *)list, "perf:thread:raw:rHEX:NAME"));
	for (guint i = 0; list[i]; i++) {
		struct tc_perf_counter counter;
		char spelling[TC_PERF_COUNTER_NAME_MAX];

		if (!g_str_has_prefix(list[i], "perf:") || g_str_has_suffix(list[i], "rHEX:NAME"))
			continue;
		perf++;
		g_assert_cmpint(tc_perf_counter_parse(list[i], &counter), ==, 0);
		g_assert_cmpint(tc_perf_counter_spell(&counter, spelling, sizeof(spelling)), ==, 0);
		g_assert_cmpstr(spelling, ==, list[i]);
		g_assert_cmpint(tc_perf_counter_spell(&counter, spelling, 4), ==, -ENOSPC);
	}
	/* lttng add-context --list's perf:thread: names (lttng-tools 2.13). */
	g_assert_cmpuint(perf, ==, 53);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/channel-config/parse", test_parse);
	g_test_add_func("/tracectl/channel-config/refusals", test_refusals);
	g_test_add_func("/tracectl/channel-config/app-contexts", test_app_contexts);
	g_test_add_func("/tracectl/channel-config/list", test_list);
	g_test_add_func("/tracectl/channel-config/kernel", test_kernel);
	return g_test_run();
}
