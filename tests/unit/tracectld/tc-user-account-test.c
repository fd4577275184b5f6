/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Users' accounts as the password database gives them. */
#include <glib.h>
#include <pwd.h>

#include "tc-error.h"
#include "tc-user-account.h"

/* No system gives an account to the last uid below (uid_t)-1. */
#define NO_SUCH_UID ((uid_t)-2)

static void
test_root(void)
{
	g_auto(TcUserAccount) account = {0};
	g_autofree char *home = NULL;

	g_assert_true(tc_user_account_lookup(0, &account, NULL));
	g_assert_cmpuint(account.uid, ==, 0);
	g_assert_cmpuint(account.gid, ==, 0);
	g_assert_cmpstr(account.name, ==, "root");
	home = tc_user_account_home(0, NULL);
	g_assert_cmpstr(home, ==, account.home);
	g_assert_true(g_path_is_absolute(home));
}

static void
test_no_account(void)
{
	g_auto(TcUserAccount) account = {0};
	GError *error = NULL;

	g_assert_false(tc_user_account_lookup(NO_SUCH_UID, &account, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_NOT_FOUND);
	g_assert_null(account.name);
	g_clear_error(&error);
	g_assert_null(tc_user_account_home(NO_SUCH_UID, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_NOT_FOUND);
	g_clear_error(&error);
}

/* Threads looking up users at once each get their own answer: with one
 * result shared between them, a thread would now and then read the
 * other's name. */
typedef struct {
	uid_t uid;
	char *name;
} Expected;

static gpointer
lookup_loop(gpointer data)
{
	const Expected *expected = data;

	for (guint i = 0; i < 2000; i++) {
		g_auto(TcUserAccount) account = {0};

		if (!tc_user_account_lookup(expected->uid, &account, NULL) ||
		    account.uid != expected->uid || g_strcmp0(account.name, expected->name) != 0)
			return GINT_TO_POINTER(FALSE);
	}
	return GINT_TO_POINTER(TRUE);
}

/* The first account of the database after root's, whatever its uid. */
static gboolean
another_account(Expected *other)
{
	struct passwd *pw;

	setpwent();
	while ((pw = getpwent()) != NULL && pw->pw_uid == 0)
		;
	if (pw) {
		other->uid = pw->pw_uid;
		other->name = g_strdup(pw->pw_name);
	}
	endpwent();
	return pw != NULL;
}

static void
test_threads(void)
{
	Expected root = {0, g_strdup("root")}, other = {0};
	GThread *a, *b;

	if (!another_account(&other)) {
		g_test_skip("the password database has root only");
		g_free(root.name);
		return;
	}
	a = g_thread_new("root", lookup_loop, &root);
	b = g_thread_new("other", lookup_loop, &other);
	g_assert_true(GPOINTER_TO_INT(g_thread_join(a)));
	g_assert_true(GPOINTER_TO_INT(g_thread_join(b)));
	g_free(root.name);
	g_free(other.name);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/user-account/root", test_root);
	g_test_add_func("/user-account/no-account", test_no_account);
	g_test_add_func("/user-account/threads", test_threads);
	return g_test_run();
}
