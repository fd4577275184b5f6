/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The SDT probes of <tracectl/tracepoint.h>, built with TRACECTL_SDT, and
 * again with sys/sdt.h's semaphores (_SDT_HAS_SEMAPHORES): how often a
 * tracepoint evaluates its arguments. Never more than once a pass: once
 * while tracectl records the event; unrecorded, once (the probe's
 * operands) without semaphores, and with them once while a tool is
 * attached, never otherwise. A tool attaching is played by raising the
 * semaphore, as the kernel does for perf; recording by setting the
 * event's enabled word, which the library then serves with no channel.
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
#ifdef _SDT_HAS_SEMAPHORES
	g_assert_cmpint(evaluations_of_one_pass(), ==, 0);
#else
	g_assert_cmpint(evaluations_of_one_pass(), ==, 1);
#endif
}

static void
test_recorded(void)
{
	set_recorded(true);
	g_assert_true(tracectl_tracepoint_enabled(unit_sdt, pair));
	g_assert_cmpint(evaluations_of_one_pass(), ==, 1);
	set_recorded(false);
}

#ifdef _SDT_HAS_SEMAPHORES
static void
test_attached(void)
{
	unit_sdt_pair_semaphore++;
	g_assert_true(tracectl_tracepoint_enabled(unit_sdt, pair));
	g_assert_cmpint(evaluations_of_one_pass(), ==, 1);
	set_recorded(true);
	g_assert_cmpint(evaluations_of_one_pass(), ==, 1);
	set_recorded(false);
	unit_sdt_pair_semaphore--;
	g_assert_false(tracectl_tracepoint_enabled(unit_sdt, pair));
	g_assert_cmpint(evaluations_of_one_pass(), ==, 0);
}
#endif

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/ust-sdt/unrecorded", test_unrecorded);
	g_test_add_func("/tracectl/ust-sdt/recorded", test_recorded);
#ifdef _SDT_HAS_SEMAPHORES
	g_test_add_func("/tracectl/ust-sdt/attached", test_attached);
#endif
	return g_test_run();
}
