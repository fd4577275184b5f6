/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

/*
 * A user's account as the password database says: the administrator's
 * word, never the user's environment. Looked up with getpwuid_r(): the
 * service's threads look up users at the same time, and getpwuid()'s
 * one static result would be shared between them.
 */
typedef struct {
	uid_t uid;
	gid_t gid;
	char *name;
	char *home; /* as the database has it; may be empty or relative */
} TcUserAccount;

/* FALSE with NotFound when uid has no account. */
gboolean tc_user_account_lookup(uid_t uid, TcUserAccount *account, GError **error);
void tc_user_account_clear(TcUserAccount *account);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(TcUserAccount, tc_user_account_clear)

/* uid's home, an absolute path; FALSE with NotFound when it has none. */
char *tc_user_account_home(uid_t uid, GError **error);
