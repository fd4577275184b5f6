/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The model of LTTng's session configuration file: what tracectl save
 * writes and load reads (tc-session-file-read.c, tc-session-file-write.c).
 */
#include "tc-session-file.h"

#include <gio/gio.h>
#include <string.h>

const char *const tc_file_tracker_kinds[] = {"pid", "vpid", "uid", "vuid", "gid", "vgid", NULL};

/* Model. */

static void
event_free(TcFileEvent *event)
{
	g_free(event->pattern);
	g_strfreev(event->exclusions);
	g_free(event->filter);
	g_free(event->location);
	g_free(event);
}

TcFileEvent *
tc_file_event_new(const char *pattern, TcFileEventType type)
{
	TcFileEvent *event = g_new0(TcFileEvent, 1);

	event->pattern = g_strdup(pattern);
	event->type = type;
	event->loglevel = -1;
	event->exclusions = g_new0(char *, 1);
	return event;
}

static void
channel_free(TcFileChannel *channel)
{
	g_free(channel->name);
	g_ptr_array_unref(channel->events);
	g_ptr_array_unref(channel->contexts);
	g_free(channel);
}

TcFileChannel *
tc_file_channel_new(const char *name, gboolean kernel)
{
	TcFileChannel *channel = g_new0(TcFileChannel, 1);

	channel->name = g_strdup(name);
	channel->kernel = kernel;
	channel->enabled = TRUE;
	channel->events = g_ptr_array_new_with_free_func((GDestroyNotify)event_free);
	channel->contexts = g_ptr_array_new_with_free_func(g_free);
	return channel;
}

static void
tracker_free(TcFileTracker *tracker)
{
	g_free(tracker->kind);
	g_array_unref(tracker->values);
	g_free(tracker);
}

TcFileTracker *
tc_file_tracker_new(gboolean kernel, const char *kind)
{
	TcFileTracker *tracker = g_new0(TcFileTracker, 1);

	tracker->kernel = kernel;
	tracker->kind = g_strdup(kind);
	tracker->values = g_array_new(FALSE, FALSE, sizeof(guint32));
	return tracker;
}

static void
snapshot_output_free(TcFileSnapshotOutput *output)
{
	g_free(output->name);
	g_free(output->path);
	g_free(output->control_url);
	g_free(output->data_url);
	g_free(output);
}

TcFileSession *
tc_file_session_new(const char *name)
{
	TcFileSession *session = g_new0(TcFileSession, 1);

	session->name = g_strdup(name);
	session->channels = g_ptr_array_new_with_free_func((GDestroyNotify)channel_free);
	session->trackers = g_ptr_array_new_with_free_func((GDestroyNotify)tracker_free);
	session->snapshot_outputs =
		g_ptr_array_new_with_free_func((GDestroyNotify)snapshot_output_free);
	return session;
}

void
tc_file_session_free(TcFileSession *session)
{
	if (!session)
		return;
	g_free(session->name);
	g_free(session->source);
	g_free(session->path);
	g_free(session->control_url);
	g_free(session->data_url);
	g_ptr_array_unref(session->channels);
	g_ptr_array_unref(session->trackers);
	g_ptr_array_unref(session->snapshot_outputs);
	g_free(session);
}


char *
tc_session_file_relay_url(const char *uri)
{
	const char *authority = strstr(uri, "://");
	const char *end;

	if (!authority)
		return g_strdup(uri);
	authority += 3;
	end = strchr(authority, '/');
	return g_strdup_printf("%s://%.*s", g_str_has_prefix(uri, "tcp6") ? "tcp6" : "tcp",
			       (int)(end ? end - authority : (long)strlen(authority)), authority);
}

gboolean
tc_session_file_relay_uris(const char *url, char **control, char **data)
{
	gboolean v6 = g_str_has_prefix(url, "net6://");
	const char *rest;
	const char *data_colon, *ctrl_colon;
	g_autofree char *head = NULL;

	if (!v6 && !g_str_has_prefix(url, "net://"))
		return FALSE;
	rest = url + (v6 ? strlen("net6://") : strlen("net://"));
	data_colon = strrchr(rest, ':');
	if (!data_colon)
		return FALSE;
	head = g_strndup(rest, data_colon - rest);
	ctrl_colon = strrchr(head, ':');
	if (!ctrl_colon)
		return FALSE;
	*control = g_strdup_printf("%s://%s", v6 ? "tcp6" : "tcp4", head);
	*data = g_strdup_printf("%s://%.*s%s", v6 ? "tcp6" : "tcp4", (int)(ctrl_colon - head),
				head, data_colon);
	return TRUE;
}

/* "tcp4://HOST:PORT/..." as its family ("6" or ""), HOST and PORT. */
static gboolean
split_uri(const char *uri, const char **family, char **host, char **port)
{
	g_autofree char *authority = tc_session_file_relay_url(uri);
	const char *start = strstr(authority, "://");
	const char *colon;

	if (!start)
		return FALSE;
	start += 3;
	colon = strrchr(start, ':');
	if (!colon || colon[1] == '\0' || strchr(colon, ']'))
		return FALSE;
	*family = g_str_has_prefix(authority, "tcp6") ? "6" : "";
	*host = g_strndup(start, colon - start);
	*port = g_strdup(colon + 1);
	return TRUE;
}

char *
tc_session_file_snapshot_output_url(const TcFileSnapshotOutput *output, GError **error)
{
	g_autofree char *control_host = NULL, *control_port = NULL;
	g_autofree char *data_host = NULL, *data_port = NULL;
	const char *control_family, *data_family;

	if (output->control_url == NULL)
		return g_strdup(output->path);
	if (!split_uri(output->control_url, &control_family, &control_host, &control_port) ||
	    !split_uri(output->data_url, &data_family, &data_host, &data_port) ||
	    !g_str_equal(control_family, data_family) || !g_str_equal(control_host, data_host)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
			    "snapshot output '%s': control URI '%s' and data URI '%s' do not name "
			    "one relay as HOST:PORT",
			    output->name ? output->name : "", output->control_url,
			    output->data_url);
		return NULL;
	}
	return g_strdup_printf("net%s://%s:%s:%s", control_family, control_host, control_port,
			       data_port);
}
