/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tc-polkit-gate.c: a uid gets TC_POLKIT_CHECKS_PER_USER checks at once,
 * the rest wait in order and start as slots come back; a uid with its
 * share taken never holds another uid's check; an interactive check held
 * past TC_POLKIT_SLOT_HOLD_MS (a person at an agent) lets the next one
 * in, any other keeps its slot.
 */
#include <glib.h>

#include "tc-polkit-gate.h"

typedef struct {
	guint index;
	TcPolkitSlot *slot; /* once started */
} Check;

static GPtrArray *started; /* Check *, in the order they started */

static void
started_cb(TcPolkitSlot *slot, gpointer user_data)
{
	Check *check = user_data;

	check->slot = slot;
	g_ptr_array_add(started, check);
}

static void
test_share(void)
{
	Check a[4] = {{0}, {1}, {2}, {3}}, b = {10};

	started = g_ptr_array_new();
	for (guint i = 0; i < G_N_ELEMENTS(a); i++)
		tc_polkit_gate_enter(1000, FALSE, started_cb, &a[i]);
	g_assert_cmpuint(started->len, ==, TC_POLKIT_CHECKS_PER_USER);
	/* Another uid is not held by the first one's waiting checks. */
	tc_polkit_gate_enter(1001, FALSE, started_cb, &b);
	g_assert_cmpuint(started->len, ==, TC_POLKIT_CHECKS_PER_USER + 1);
	g_assert_true(g_ptr_array_index(started, started->len - 1) == &b);
	/* A slot back: the oldest waiting check of that uid starts. */
	tc_polkit_gate_leave(a[1].slot);
	g_assert_cmpuint(started->len, ==, TC_POLKIT_CHECKS_PER_USER + 2);
	g_assert_true(g_ptr_array_index(started, started->len - 1) == &a[2]);
	g_assert_null(a[3].slot);
	tc_polkit_gate_leave(b.slot);
	g_assert_null(a[3].slot);
	tc_polkit_gate_leave(a[0].slot);
	g_assert_nonnull(a[3].slot);
	tc_polkit_gate_leave(a[2].slot);
	tc_polkit_gate_leave(a[3].slot);
	tc_polkit_gate_leave(NULL);
	g_ptr_array_unref(started);
}

static gboolean
quit_cb(gpointer loop)
{
	g_main_loop_quit(loop);
	return G_SOURCE_REMOVE;
}

/* Runs the main loop a little longer than a slot is held. */
static void
run_past_hold(void)
{
	g_autoptr(GMainLoop) loop = g_main_loop_new(NULL, FALSE);

	g_timeout_add(TC_POLKIT_SLOT_HOLD_MS + 200, quit_cb, loop);
	g_main_loop_run(loop);
}

/* A check held by polkitd keeps its slot however long it takes: the
 * share is what bounds a slow polkitd's queue. */
static void
test_slow_polkitd(void)
{
	Check a[TC_POLKIT_CHECKS_PER_USER + 1];

	started = g_ptr_array_new();
	for (guint i = 0; i < G_N_ELEMENTS(a); i++) {
		a[i] = (Check){.index = i};
		tc_polkit_gate_enter(1000, FALSE, started_cb, &a[i]);
	}
	run_past_hold();
	g_assert_null(a[TC_POLKIT_CHECKS_PER_USER].slot);
	for (guint i = 0; i < G_N_ELEMENTS(a); i++)
		tc_polkit_gate_leave(a[i].slot);
	g_ptr_array_unref(started);
}

/* An interactive check held past TC_POLKIT_SLOT_HOLD_MS waits for a
 * person: the next check of its uid goes in. */
static void
test_held(void)
{
	Check a[TC_POLKIT_CHECKS_PER_USER + 1];
	gint64 begin = g_get_monotonic_time();

	started = g_ptr_array_new();
	for (guint i = 0; i < G_N_ELEMENTS(a); i++) {
		a[i] = (Check){.index = i};
		tc_polkit_gate_enter(1000, TRUE, started_cb, &a[i]);
	}
	g_assert_null(a[TC_POLKIT_CHECKS_PER_USER].slot);
	run_past_hold();
	/* Nobody left: the held slots expired and let the last one in. */
	g_assert_nonnull(a[TC_POLKIT_CHECKS_PER_USER].slot);
	g_assert_cmpint(g_get_monotonic_time() - begin, >=, TC_POLKIT_SLOT_HOLD_MS * 1000);
	/* Leaving an expired slot gives nothing back twice: the uid's share
	 * is whole again, and no more. */
	for (guint i = 0; i < G_N_ELEMENTS(a); i++)
		tc_polkit_gate_leave(a[i].slot);
	for (guint i = 0; i < G_N_ELEMENTS(a); i++) {
		a[i] = (Check){.index = i};
		tc_polkit_gate_enter(1000, FALSE, started_cb, &a[i]);
	}
	g_assert_null(a[TC_POLKIT_CHECKS_PER_USER].slot);
	for (guint i = 0; i < G_N_ELEMENTS(a); i++)
		tc_polkit_gate_leave(a[i].slot);
	g_ptr_array_unref(started);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectld/polkit-gate/share", test_share);
	g_test_add_func("/tracectld/polkit-gate/slow-polkitd", test_slow_polkitd);
	g_test_add_func("/tracectld/polkit-gate/held", test_held);
	return g_test_run();
}
