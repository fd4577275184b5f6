/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The trace directories of the caller's recently destroyed sessions, so
 * that 'tracectl view NAME' still finds a trace once its session is gone.
 *
 * The record is a file of the caller's own (~/.tracectl-destroyed, mode
 * 0600), one "NAME<TAB>DIRECTORY" line per session, newest last, at most
 * TC_CLIENT_HISTORY_MAX lines. It only ever holds what the service said
 * about the caller's own sessions, and it is only read to choose what the
 * caller's own viewer opens, with the caller's rights: nothing here crosses
 * a privilege boundary, so the service keeps no state for it.
 */
#include <string.h>

#include "tc-client.h"

/* A name and a directory that fit on one line of the record. */
static gboolean
is_recordable(const char *name, const char *directory)
{
	return *name && directory[0] == '/' && !strpbrk(name, "\t\n") &&
	       !strpbrk(directory, "\t\n");
}

char *
tc_client_history_add(const char *contents, const char *name, const char *directory)
{
	g_auto(GStrv) lines = g_strsplit(contents ? contents : "", "\n", -1);
	g_autoptr(GPtrArray) kept = g_ptr_array_new();
	g_autofree char *prefix = g_strconcat(name, "\t", NULL);
	g_autofree char *entry = NULL;
	GString *result = g_string_new(NULL);
	guint first;

	if (!is_recordable(name, directory))
		return g_strdup(contents ? contents : "");
	/* A newer session of the same name replaces the older record. */
	for (guint i = 0; lines[i]; i++)
		if (*lines[i] && !g_str_has_prefix(lines[i], prefix))
			g_ptr_array_add(kept, lines[i]);
	entry = g_strconcat(prefix, directory, NULL);
	g_ptr_array_add(kept, entry);
	first = kept->len > TC_CLIENT_HISTORY_MAX ? kept->len - TC_CLIENT_HISTORY_MAX : 0;
	for (guint i = first; i < kept->len; i++)
		g_string_append_printf(result, "%s\n", (char *)g_ptr_array_index(kept, i));
	return g_string_free(result, FALSE);
}

char *
tc_client_history_find(const char *contents, const char *name)
{
	g_auto(GStrv) lines = g_strsplit(contents ? contents : "", "\n", -1);
	g_autofree char *prefix = g_strconcat(name, "\t", NULL);
	const char *found = NULL;

	/* The newest record of that name wins. */
	for (guint i = 0; lines[i]; i++)
		if (g_str_has_prefix(lines[i], prefix) && lines[i][strlen(prefix)] == '/')
			found = lines[i] + strlen(prefix);
	return g_strdup(found);
}
