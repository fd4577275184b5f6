/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-client.h"

char *
tc_client_config_path(void)
{
	return g_build_filename(g_get_home_dir(), ".tracectlrc", NULL);
}

/* The current session is a name in this machine's ~/.tracectlrc, for
 * this machine's service: with -H there is none, and none is set. */
char *
tc_client_current_session(void)
{
	g_autofree char *path = tc_client_config_path();
	g_autofree char *contents = NULL;

	if (tc_client_is_remote())
		return NULL;
	if (!g_file_get_contents(path, &contents, NULL, NULL))
		return NULL;
	return tc_client_read_session_from_rc(contents);
}

gboolean
tc_client_set_current_session(const char *name, GError **error)
{
	g_autofree char *path = tc_client_config_path();
	g_autofree char *contents = NULL;
	g_autofree char *updated = NULL;

	if (tc_client_is_remote())
		return TRUE;
	g_file_get_contents(path, &contents, NULL, NULL);
	updated = tc_client_rc_with_session(contents, name);
	return tc_client_state_file_write(path, updated, error);
}

void
tc_client_clear_current_session(const char *name)
{
	g_autofree char *current = tc_client_current_session();

	if (current && g_str_equal(current, name))
		tc_client_set_current_session(NULL, NULL);
}
