/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Applying a parsed session (tc-session-file.h) as a user would type it:
 * the one walk that `tracectl load` (through D-Bus calls) and the
 * service's auto-loading (through the session layer) share. The walk
 * decides the order and what each element of the file becomes; each
 * front end decides how a step is done and checked.
 */
#pragma once

#include <glib.h>

#include "tc-session-file.h"

/*
 * The steps, each returning FALSE with error set to stop the walk; the
 * error reaches the caller of tc_session_file_apply() as the step set
 * it, so each step's message names what failed. data is the front
 * end's. Every step is required.
 */
typedef struct {
	/* The session itself, with its output; first, and alone undone by
	 * nothing: a failure here leaves no session behind. */
	gboolean (*create_session)(gpointer data, const TcFileSession *file, GError **error);
	/* A channel, before its contexts and events; never an agent's
	 * (channel->agent), whose loggers go to the default channel. */
	gboolean (*add_channel)(gpointer data, const TcFileSession *file,
				const TcFileChannel *channel, GError **error);
	/* The channel's contexts, all at once; only when it has some. */
	gboolean (*add_contexts)(gpointer data, const TcFileChannel *channel, GError **error);
	/*
	 * One pattern of an event of the channel, as a user enables it: a
	 * system call is two, "syscalls:sys_enter_NAME" then
	 * "syscalls:sys_exit_NAME"; a kernel tracepoint that LTTng names
	 * without its system is "*:NAME"; any other is the event's pattern (in an agent's
	 * channel, a logger of channel->agent's domain).
	 */
	gboolean (*enable_event)(gpointer data, const TcFileChannel *channel,
				 const TcFileEvent *event, const char *pattern, GError **error);
	/* A kernel probe event (kprobe, kretprobe, uprobe) of the channel. */
	gboolean (*add_probe)(gpointer data, const TcFileChannel *channel, const TcFileEvent *event,
			      GError **error);
	/* A tracker whose set holds only tracker->values (maybe none). */
	gboolean (*set_tracker)(gpointer data, const TcFileTracker *tracker, GError **error);
	/* The rotation schedule; only when the file has a timer or a size. */
	gboolean (*set_rotation)(gpointer data, const TcFileSession *file, GError **error);
	/* A snapshot output; url: tc_session_file_snapshot_output_url()'s. */
	gboolean (*add_snapshot_output)(gpointer data, const TcFileSnapshotOutput *output,
					const char *url, GError **error);
	/* A channel the file says is off, once everything is set up. */
	gboolean (*disable_channel)(gpointer data, const TcFileChannel *channel, GError **error);
	/* Last, when the file says the session was recording. */
	gboolean (*start)(gpointer data, GError **error);
	/* A step after create_session() failed with error: the session is
	 * to go, so that a refused file leaves nothing behind. error may
	 * be given more context. */
	void (*discard)(gpointer data, const TcFileSession *file, GError **error);
} TcSessionFileApplyFuncs;

/* The table of a front end whose steps are named PREFIX_STEP_cb
 * (load_create_session_cb, load_add_channel_cb...), so that no step can
 * be left out or given to the wrong field. */
#define TC_SESSION_FILE_APPLY_FUNCS(prefix)                                                        \
	{                                                                                          \
		.create_session = prefix##_create_session_cb,                                      \
		.add_channel = prefix##_add_channel_cb, .add_contexts = prefix##_add_contexts_cb,  \
		.enable_event = prefix##_enable_event_cb, .add_probe = prefix##_add_probe_cb,      \
		.set_tracker = prefix##_set_tracker_cb, .set_rotation = prefix##_set_rotation_cb,  \
		.add_snapshot_output = prefix##_add_snapshot_output_cb,                            \
		.disable_channel = prefix##_disable_channel_cb, .start = prefix##_start_cb,        \
		.discard = prefix##_discard_cb,                                                    \
	}

/*
 * Walks file in the order a user would type it: the session; each
 * channel with its contexts and events, the agents' loggers after the
 * other channels; the trackers; the rotation; the
 * snapshot outputs; the channels that are off disabled; the start.
 * Stops at the first step that fails (then, if the session was created,
 * discard() is called) and returns FALSE with that step's error.
 */
gboolean tc_session_file_apply(const TcFileSession *file, const TcSessionFileApplyFuncs *funcs,
			       gpointer data, GError **error);
