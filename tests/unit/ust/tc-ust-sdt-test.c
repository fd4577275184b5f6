/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The SDT probes of <tracectl/tracepoint.h>, built with TRACECTL_SDT: how
 * often a tracepoint evaluates its arguments. Once a pass, whether tracectl
 * records the event or not (the probe's operands). Recording is played by
 * setting the event's enabled word, which the library then serves with no
 * channel.
 * The notes, and perf and tracectl recording the same calls, are
 * tests/integration/events/test-sdt-probes.py's.
 */
#include <glib.h>
#include <stdbool.h>

#ifndef TRACECTL_SDT
#error "built with TRACECTL_SDT only"
#endif

#define TRACECTL_CREATE_PROBES
#include <tracectl/tracepoint.h>

TRACECTL_EVENT(unit_sdt, pair,
	TRACECTL_ARGS(int, count, const char *, text),
	TRACECTL_FIELDS(
		tracectl_field_integer(int, count, count),
		tracectl_field_string(text, text)))

static int evaluations;

static int
count_evaluation(void)
{
	return ++evaluations;
}

/* How many times one pass of the tracepoint evaluated its first argument. */
static int
evaluations_of_one_pass(void)
{
	evaluations = 0;
	tracectl_tracepoint(unit_sdt, pair, count_evaluation(), "text");
	return evaluations;
}

static void
set_recorded(bool is_recorded)
{
	__atomic_store_n(&__tracectl_event__unit_sdt__pair.enabled, is_recorded ? 1u : 0u,
			 __ATOMIC_RELAXED);
}

static void
test_unrecorded(void)
{
	g_assert_cmpuint(__tracectl_event__unit_sdt__pair.enabled, ==, 0);
	g_assert_false(tracectl_tracepoint_enabled(unit_sdt, pair));
	g_assert_cmpint(evaluations_of_one_pass(), ==, 1);
}

static void
test_recorded(void)
{
	set_recorded(true);
	g_assert_true(tracectl_tracepoint_enabled(unit_sdt, pair));
	g_assert_cmpint(evaluations_of_one_pass(), ==, 1);
	set_recorded(false);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/ust-sdt/unrecorded", test_unrecorded);
	g_test_add_func("/tracectl/ust-sdt/recorded", test_recorded);
	return g_test_run();
}
