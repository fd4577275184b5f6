/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Applying a parsed session through a front end's steps
 * (tc-session-file-apply.h).
 */
#include "tc-session-file-apply.h"

static gboolean
apply_event(const TcSessionFileApplyFuncs *funcs, gpointer data, const TcFileChannel *channel,
	    const TcFileEvent *event, GError **error)
{

	switch (event->type) {
	case TC_FILE_EVENT_SYSCALL: {
		g_autofree char *enter = g_strconcat("syscalls:sys_enter_", event->pattern, NULL);
		g_autofree char *exit = g_strconcat("syscalls:sys_exit_", event->pattern, NULL);

		return funcs->enable_event(data, channel, event, enter, error) &&
		       funcs->enable_event(data, channel, event, exit, error);
	}
	case TC_FILE_EVENT_KPROBE:
	case TC_FILE_EVENT_KRETPROBE:
	case TC_FILE_EVENT_UPROBE:
		return funcs->add_probe(data, channel, event, error);
	case TC_FILE_EVENT_TRACEPOINT:
	default:
		/* LTTng names kernel tracepoints without their system: the
		 * service finds the event such a name stands for. */
		return funcs->enable_event(data, channel, event, event->pattern, error);
	}
}

/* An agent's channel is only its loggers: they are recorded in the
 * default channel, which the other channels of the file may set up. */
static gboolean
apply_channel(const TcSessionFileApplyFuncs *funcs, gpointer data, const TcFileSession *file,
	      const TcFileChannel *channel, GError **error)
{
	if (!channel->agent && !funcs->add_channel(data, file, channel, error))
		return FALSE;
	if (channel->contexts->len && !funcs->add_contexts(data, channel, error))
		return FALSE;
	for (guint i = 0; i < channel->events->len; i++)
		if (!apply_event(funcs, data, channel, g_ptr_array_index(channel->events, i),
				 error))
			return FALSE;
	return TRUE;
}

static gboolean
apply_snapshot_outputs(const TcSessionFileApplyFuncs *funcs, gpointer data,
		       const TcFileSession *file, GError **error)
{
	for (guint i = 0; i < file->snapshot_outputs->len; i++) {
		const TcFileSnapshotOutput *output = g_ptr_array_index(file->snapshot_outputs, i);
		g_autofree char *url = tc_session_file_snapshot_output_url(output, error);

		if (url == NULL || !funcs->add_snapshot_output(data, output, url, error))
			return FALSE;
	}
	return TRUE;
}

/* Everything after the session's creation, in the order of
 * tc_session_file_apply()'s contract. */
static gboolean
apply_settings(const TcSessionFileApplyFuncs *funcs, gpointer data, const TcFileSession *file,
	       GError **error)
{
	/* The agents' loggers last, once the default channel is as the
	 * file has it. */
	for (guint pass = 0; pass < 2; pass++)
		for (guint i = 0; i < file->channels->len; i++) {
			const TcFileChannel *channel = g_ptr_array_index(file->channels, i);

			if ((channel->agent != TC_FILE_AGENT_NONE) == pass &&
			    !apply_channel(funcs, data, file, channel, error))
				return FALSE;
		}
	for (guint i = 0; i < file->trackers->len; i++)
		if (!funcs->set_tracker(data, g_ptr_array_index(file->trackers, i), error))
			return FALSE;
	if ((file->rotation_timer_us || file->rotation_size) &&
	    !funcs->set_rotation(data, file, error))
		return FALSE;
	if (!apply_snapshot_outputs(funcs, data, file, error))
		return FALSE;
	for (guint i = 0; i < file->channels->len; i++) {
		const TcFileChannel *channel = g_ptr_array_index(file->channels, i);

		if (!channel->enabled && !channel->agent &&
		    !funcs->disable_channel(data, channel, error))
			return FALSE;
	}
	return !file->started || funcs->start(data, error);
}

gboolean
tc_session_file_apply(const TcFileSession *file, const TcSessionFileApplyFuncs *funcs,
		      gpointer data, GError **error)
{
	g_return_val_if_fail(file != NULL && funcs != NULL, FALSE);
	g_return_val_if_fail(error == NULL || *error == NULL, FALSE);

	if (!funcs->create_session(data, file, error))
		return FALSE;
	if (apply_settings(funcs, data, file, error))
		return TRUE;
	funcs->discard(data, file, error);
	return FALSE;
}
