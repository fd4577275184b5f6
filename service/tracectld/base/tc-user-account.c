/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-user-account.h"

#include <errno.h>
#include <pwd.h>
#include <unistd.h>

#include "tc-error.h"

/* What getpwuid_r() is given first, and at most: an entry longer than
 * that is no account the service deals with. */
#define ENTRY_SIZE_FIRST 4096
#define ENTRY_SIZE_MAX (1 << 20)

gboolean
tc_user_account_lookup(uid_t uid, TcUserAccount *account, GError **error)
{
	gsize size = ENTRY_SIZE_FIRST;
	struct passwd pw, *found = NULL;
	g_autofree char *buf = NULL;
	int ret;

	do {
		g_free(buf);
		buf = g_malloc(size);
		ret = getpwuid_r(uid, &pw, buf, size, &found);
		size *= 2;
	} while (ret == ERANGE && size <= ENTRY_SIZE_MAX);
	if (ret != 0 || found == NULL) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND, "uid %u has no user account%s%s",
			    (unsigned)uid, ret ? ": " : "", ret ? g_strerror(ret) : "");
		return FALSE;
	}
	account->uid = pw.pw_uid;
	account->gid = pw.pw_gid;
	account->name = g_strdup(pw.pw_name ? pw.pw_name : "");
	account->home = g_strdup(pw.pw_dir ? pw.pw_dir : "");
	return TRUE;
}

void
tc_user_account_clear(TcUserAccount *account)
{
	g_clear_pointer(&account->name, g_free);
	g_clear_pointer(&account->home, g_free);
}

char *
tc_user_account_home(uid_t uid, GError **error)
{
	g_auto(TcUserAccount) account = {0};

	if (!tc_user_account_lookup(uid, &account, error))
		return NULL;
	if (!g_path_is_absolute(account.home)) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND, "uid %u has no home directory",
			    (unsigned)uid);
		return NULL;
	}
	return g_steal_pointer(&account.home);
}
