/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-snapshot"

#include "tc-snapshot-output.h"

#include <string.h>

#include "tc-error.h"
#include "tc-relay-url.h"
#include "tc-session.h"
#include "tc-user-limits.h"
#include "tc-validate.h"

static void
snapshot_output_free(gpointer data)
{
	TcSnapshotOutput *output = data;

	g_free(output->name);
	g_free(output->directory);
	g_free(output);
}

gboolean
tc_snapshot_output_is_relay(const char *target)
{
	return g_str_has_prefix(target, "net://") || g_str_has_prefix(target, "net6://") ||
	       g_str_has_prefix(target, "net+ssh://");
}

/* A relay URL, checked as a session's would be, in its canonical form. */
static char *
parse_relay_url(const char *url, GError **error)
{
	struct tc_consumer_relay_output relay = {0};
	g_autofree char *directory = NULL;

	if (!tc_relay_url_parse_output(url, NULL, NULL, 0, &relay, &directory, error)) {
		g_prefix_error(error, "Snapshot output: ");
		return NULL;
	}
	if (directory != NULL) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "Snapshot output '%.64s' is not a relay URL", url);
		return NULL;
	}
	return tc_relay_url_format_output(&relay);
}

char *
tc_snapshot_output_parse_url(const char *url, GError **error)
{
	const char *path = url;

	if (tc_snapshot_output_is_relay(url))
		return parse_relay_url(url, error);
	if (g_str_has_prefix(url, "tcp://") || g_str_has_prefix(url, "tcp6://")) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "Snapshot output '%.64s': a relay takes net://HOST[:CTRL[:DATA]] "
			    "(the control and data ports in one URL)",
			    url);
		return NULL;
	}
	if (g_str_has_prefix(url, "file://"))
		path = url + strlen("file://");
	else if (strstr(url, "://") != NULL) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "Unknown snapshot output URL '%.64s': use /PATH, file:///PATH or "
			    "net://HOST",
			    url);
		return NULL;
	}
	if (!tc_validate_output_directory(path, error)) {
		g_prefix_error(error, "Snapshot output: ");
		return NULL;
	}
	return g_strdup(path);
}

static TcSnapshotOutput *
find_output_locked(TcSession *session, const char *wanted)
{
	guint64 id = 0;
	gboolean is_id = g_ascii_string_to_unsigned(wanted, 10, 1, G_MAXUINT32, &id, NULL);

	if (session->snapshot_outputs == NULL)
		return NULL;
	for (guint i = 0; i < session->snapshot_outputs->len; i++) {
		TcSnapshotOutput *output = g_ptr_array_index(session->snapshot_outputs, i);

		if ((is_id && output->id == id) || g_str_equal(output->name, wanted))
			return output;
	}
	return NULL;
}

gboolean
tc_snapshot_output_add_locked(TcSession *session, const char *name, const char *url,
			      guint64 max_bytes, guint32 *id, GError **error)
{
	g_autofree char *directory = NULL;
	g_autofree char *chosen = NULL;
	TcSnapshotOutput *output;
	guint count = session->snapshot_outputs ? session->snapshot_outputs->len : 0;

	if (!session->snapshot) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE,
			    "Session '%s' is not a snapshot session (tracectl create --snapshot)",
			    session->name);
		return FALSE;
	}
	if (*name && !tc_validate_name("snapshot output", name, error))
		return FALSE;
	directory = tc_snapshot_output_parse_url(url, error);
	if (directory == NULL)
		return FALSE;
	if (!tc_user_limits_check_item(session->owner_uid, TC_LIMIT_SNAPSHOT_OUTPUTS_PER_SESSION,
				       (guint64)count + 1, error)) {
		g_prefix_error(error,
			       "Cannot add a snapshot output to session '%s': ", session->name);
		return FALSE;
	}
	chosen = *name ? g_strdup(name)
		       : g_strdup_printf("snapshot-%u", session->next_snapshot_output_id + 1);
	if (find_output_locked(session, chosen)) {
		g_set_error(error, TC_ERROR, TC_ERROR_ALREADY_EXISTS,
			    "Session '%s' has a snapshot output named '%s' already", session->name,
			    chosen);
		return FALSE;
	}
	if (session->snapshot_outputs == NULL)
		session->snapshot_outputs = g_ptr_array_new_with_free_func(snapshot_output_free);
	output = g_new0(TcSnapshotOutput, 1);
	output->id = ++session->next_snapshot_output_id;
	output->name = g_steal_pointer(&chosen);
	output->directory = g_steal_pointer(&directory);
	output->max_bytes = max_bytes;
	g_ptr_array_add(session->snapshot_outputs, output);
	*id = output->id;
	g_message("Session '%s' of uid %u: snapshot output %u '%s' is '%s'", session->name,
		  (unsigned)session->owner_uid, output->id, output->name, output->directory);
	return TRUE;
}

void
tc_snapshot_output_entry_free(TcSnapshotOutputEntry *entry)
{
	if (entry == NULL)
		return;
	g_free(entry->name);
	g_free(entry->url);
	g_free(entry);
}

GPtrArray *
tc_snapshot_output_list_locked(TcSession *session)
{
	GPtrArray *entries =
	    g_ptr_array_new_with_free_func((GDestroyNotify)tc_snapshot_output_entry_free);

	for (guint i = 0; session->snapshot_outputs && i < session->snapshot_outputs->len; i++) {
		TcSnapshotOutput *output = g_ptr_array_index(session->snapshot_outputs, i);
		TcSnapshotOutputEntry *entry = g_new0(TcSnapshotOutputEntry, 1);

		entry->id = output->id;
		entry->name = g_strdup(output->name);
		entry->url = tc_snapshot_output_is_relay(output->directory)
				 ? g_strdup(output->directory)
				 : g_strconcat("file://", output->directory, NULL);
		entry->max_bytes = output->max_bytes;
		g_ptr_array_add(entries, entry);
	}
	return entries;
}

gboolean
tc_snapshot_output_remove_locked(TcSession *session, const char *wanted, GError **error)
{
	TcSnapshotOutput *output = find_output_locked(session, wanted);

	if (output == NULL) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND,
			    "Session '%s' has no snapshot output '%.64s'", session->name, wanted);
		return FALSE;
	}
	g_message("Session '%s' of uid %u: snapshot output %u '%s' removed", session->name,
		  (unsigned)session->owner_uid, output->id, output->name);
	g_ptr_array_remove(session->snapshot_outputs, output);
	return TRUE;
}

char *
tc_snapshot_output_resolve_locked(TcSession *session, const char *wanted, guint64 *max_bytes,
				  GError **error)
{
	TcSnapshotOutput *output = find_output_locked(session, wanted);

	*max_bytes = output ? output->max_bytes : 0;
	if (output)
		return g_strdup(output->directory);
	if (wanted[0] != '/' && strstr(wanted, "://") == NULL) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND,
			    "Session '%s' has no snapshot output '%.64s'", session->name, wanted);
		return NULL;
	}
	return tc_snapshot_output_parse_url(wanted, error);
}
