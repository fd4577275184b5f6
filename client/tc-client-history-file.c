/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The record of destroyed sessions on disk (see tc-client-history.c). */
#include "tc-client.h"

static char *
history_path(void)
{
	return g_build_filename(g_get_home_dir(), ".tracectl-destroyed", NULL);
}

void
tc_client_remember_destroyed(const char *name, const char *directory)
{
	g_autofree char *path = history_path();
	g_autofree char *contents = NULL;
	g_autofree char *updated = NULL;
	g_autoptr(GError) error = NULL;

	/* A remote session's directory is on the remote machine. */
	if (tc_client_is_remote())
		return;
	g_file_get_contents(path, &contents, NULL, NULL);
	updated = tc_client_history_add(contents, name, directory);
	/* Best effort: the session is destroyed either way. */
	if (!tc_client_state_file_write(path, updated, &error))
		g_debug("Cannot record the trace of session %s: %s", name, error->message);
}

char *
tc_client_destroyed_trace(const char *name)
{
	g_autofree char *path = history_path();
	g_autofree char *contents = NULL;

	if (tc_client_is_remote() || !g_file_get_contents(path, &contents, NULL, NULL))
		return NULL;
	return tc_client_history_find(contents, name);
}
