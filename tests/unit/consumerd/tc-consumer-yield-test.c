/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * When a session thread's drains give way to its requests
 * (tc-consumerd-yield.c), and how a cut drain is remembered: read without
 * clearing, for a wake-up that judges what its drain counted, then
 * taken, for the thread's loop that drains again.
 */
#include <glib.h>

#include "tc-consumerd-yield.h"

static void
test_gives_way(void)
{
	atomic_bool waiting = false;

	tc_consumerd_yield_attach(NULL);
	tc_consumerd_yield_enable(true);
	g_assert_false(tc_consumerd_yield_now());
	tc_consumerd_yield_attach(&waiting);
	g_assert_false(tc_consumerd_yield_now());
	atomic_store(&waiting, true);
	tc_consumerd_yield_enable(false);
	g_assert_false(tc_consumerd_yield_now());
	g_assert_false(tc_consumerd_yield_is_cut());
	tc_consumerd_yield_enable(true);
	g_assert_true(tc_consumerd_yield_now());
	tc_consumerd_yield_attach(NULL);
	tc_consumerd_yield_enable(false);
	g_assert_true(tc_consumerd_yield_take_cut());
}

static void
test_cut_read_then_taken(void)
{
	atomic_bool waiting = true;

	tc_consumerd_yield_attach(&waiting);
	tc_consumerd_yield_enable(true);
	g_assert_false(tc_consumerd_yield_is_cut());
	g_assert_true(tc_consumerd_yield_now());
	/* Read as often as asked, until taken once. */
	g_assert_true(tc_consumerd_yield_is_cut());
	g_assert_true(tc_consumerd_yield_is_cut());
	g_assert_true(tc_consumerd_yield_take_cut());
	g_assert_false(tc_consumerd_yield_is_cut());
	g_assert_false(tc_consumerd_yield_take_cut());
	tc_consumerd_yield_attach(NULL);
	tc_consumerd_yield_enable(false);
}

/* The state is the calling thread's: another thread's drains never see a
 * cut or a request of this one's. */
static gpointer
other_thread(gpointer data)
{
	tc_consumerd_yield_enable(true);
	return GINT_TO_POINTER(tc_consumerd_yield_now() || tc_consumerd_yield_is_cut());
}

static void
test_per_thread(void)
{
	atomic_bool waiting = true;
	GThread *thread;

	tc_consumerd_yield_attach(&waiting);
	tc_consumerd_yield_enable(true);
	g_assert_true(tc_consumerd_yield_now());
	thread = g_thread_new("other", other_thread, NULL);
	g_assert_false(GPOINTER_TO_INT(g_thread_join(thread)));
	g_assert_true(tc_consumerd_yield_take_cut());
	tc_consumerd_yield_attach(NULL);
	tc_consumerd_yield_enable(false);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/consumerd/yield/gives-way", test_gives_way);
	g_test_add_func("/tracectl/consumerd/yield/cut-read-then-taken", test_cut_read_then_taken);
	g_test_add_func("/tracectl/consumerd/yield/per-thread", test_per_thread);
	return g_test_run();
}
