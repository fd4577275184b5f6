/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The model of LTTng's session configuration file: what tracectl save
 * writes and load reads (tc-session-file-read.c, tc-session-file-write.c).
 */
#include "tc-session-file.h"

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
