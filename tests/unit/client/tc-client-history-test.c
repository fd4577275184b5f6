/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The record of destroyed sessions' trace directories (tc-client-history.c). */
#include "tc-client.h"

static void
test_add_find(void)
{
	g_autofree char *one = tc_client_history_add(NULL, "a", "/t/a-1");
	g_autofree char *two = tc_client_history_add(one, "b", "/t/b");
	g_autofree char *three = tc_client_history_add(two, "a", "/t/a-2");
	g_autofree char *a = tc_client_history_find(three, "a");
	g_autofree char *b = tc_client_history_find(three, "b");
	g_autofree char *c = tc_client_history_find(three, "c");

	g_assert_cmpstr(one, ==, "a\t/t/a-1\n");
	/* A newer session of the same name replaces the older record. */
	g_assert_cmpstr(three, ==, "b\t/t/b\na\t/t/a-2\n");
	g_assert_cmpstr(a, ==, "/t/a-2");
	g_assert_cmpstr(b, ==, "/t/b");
	g_assert_null(c);
}

static void
test_bounded(void)
{
	g_autofree char *contents = g_strdup("");
	g_autofree char *oldest = NULL;
	g_autofree char *newest = NULL;
	g_auto(GStrv) lines = NULL;

	for (guint i = 0; i < 3 * TC_CLIENT_HISTORY_MAX; i++) {
		g_autofree char *name = g_strdup_printf("s%u", i);
		g_autofree char *dir = g_strdup_printf("/t/%u", i);
		char *next = tc_client_history_add(contents, name, dir);

		g_free(contents);
		contents = next;
	}
	lines = g_strsplit(contents, "\n", -1);
	g_assert_cmpuint(g_strv_length(lines), ==, TC_CLIENT_HISTORY_MAX + 1); /* last "" */
	oldest = tc_client_history_find(contents, "s0");
	newest = tc_client_history_find(contents, "s47");
	g_assert_null(oldest);
	g_assert_cmpstr(newest, ==, "/t/47");
}

static void
test_refused(void)
{
	const char *before = "a\t/t/a\n";
	g_autofree char *tab = tc_client_history_add(before, "x\ty", "/t/x");
	g_autofree char *newline = tc_client_history_add(before, "x", "/t/x\nb\t/etc");
	g_autofree char *relative = tc_client_history_add(before, "x", "t/x");
	g_autofree char *prefix = tc_client_history_find("ab\t/t/ab\n", "a");
	g_autofree char *not_absolute = tc_client_history_find("a\tt/a\n", "a");

	/* Nothing that would make a second line, or a relative directory. */
	g_assert_cmpstr(tab, ==, before);
	g_assert_cmpstr(newline, ==, before);
	g_assert_cmpstr(relative, ==, before);
	g_assert_null(prefix);
	g_assert_null(not_absolute);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/client-history/add-find", test_add_find);
	g_test_add_func("/tracectl/client-history/bounded", test_bounded);
	g_test_add_func("/tracectl/client-history/refused", test_refused);
	return g_test_run();
}
