/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The session file walker: the steps in the order a user types them, a
 * system call as its two tracepoints, an agent's loggers after the
 * channels and without a channel of their own, and the walk stopped at the first
 * step that fails, the session discarded once created. */
#include "tc-session-file-apply.h"

#include <gio/gio.h>

/* Each step appends a line to log; the step named fail_at fails. */
typedef struct {
	GString *log;
	const char *fail_at;
} Recorder;

static gboolean
record(Recorder *recorder, const char *step, const char *what, GError **error)
{
	g_autofree char *line = g_strdup_printf("%s %s", step, what);

	g_string_append_printf(recorder->log, "%s\n", line);
	if (g_strcmp0(recorder->fail_at, line) != 0)
		return TRUE;
	g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s refused", line);
	return FALSE;
}

static gboolean
recorder_create_session_cb(gpointer data, const TcFileSession *file, GError **error)
{
	return record(data, "create", file->name, error);
}

static gboolean
recorder_add_channel_cb(gpointer data, const TcFileSession *file G_GNUC_UNUSED,
			const TcFileChannel *channel, GError **error)
{
	return record(data, "channel", channel->name, error);
}

static gboolean
recorder_add_contexts_cb(gpointer data, const TcFileChannel *channel, GError **error)
{
	return record(data, "contexts", channel->name, error);
}

static gboolean
recorder_enable_event_cb(gpointer data, const TcFileChannel *channel G_GNUC_UNUSED,
			 const TcFileEvent *event G_GNUC_UNUSED, const char *pattern,
			 GError **error)
{
	return record(data, "event", pattern, error);
}

static gboolean
recorder_add_probe_cb(gpointer data, const TcFileChannel *channel G_GNUC_UNUSED,
		      const TcFileEvent *event, GError **error)
{
	return record(data, "probe", event->location, error);
}

static gboolean
recorder_set_tracker_cb(gpointer data, const TcFileTracker *tracker, GError **error)
{
	return record(data, "tracker", tracker->kind, error);
}

static gboolean
recorder_set_rotation_cb(gpointer data, const TcFileSession *file, GError **error)
{
	return record(data, "rotation", file->name, error);
}

static gboolean
recorder_add_snapshot_output_cb(gpointer data, const TcFileSnapshotOutput *output G_GNUC_UNUSED,
				const char *url, GError **error)
{
	return record(data, "output", url, error);
}

static gboolean
recorder_disable_channel_cb(gpointer data, const TcFileChannel *channel, GError **error)
{
	return record(data, "disable", channel->name, error);
}

static gboolean
recorder_start_cb(gpointer data, GError **error)
{
	return record(data, "start", "-", error);
}

static void
recorder_discard_cb(gpointer data, const TcFileSession *file, GError **error)
{
	Recorder *recorder = data;

	g_string_append_printf(recorder->log, "discard %s\n", file->name);
	g_prefix_error(error, "session %s: ", file->name);
}

static const TcSessionFileApplyFuncs recorder_funcs = TC_SESSION_FILE_APPLY_FUNCS(recorder);

static void
add_event(TcFileChannel *channel, const char *pattern, TcFileEventType type, const char *location)
{
	TcFileEvent *event = tc_file_event_new(pattern, type);

	event->location = g_strdup(location);
	g_ptr_array_add(channel->events, event);
}

/* A session with a bit of everything, each element in a place that
 * shows the order. */
static TcFileSession *
full_session(void)
{
	TcFileSession *file = tc_file_session_new("s1");
	TcFileChannel *ust = tc_file_channel_new("ch1", FALSE);
	TcFileChannel *kernel = tc_file_channel_new("channel0", TRUE);
	TcFileChannel *off = tc_file_channel_new("ch2", FALSE);
	TcFileChannel *python = tc_file_channel_new_agent(TC_FILE_AGENT_PYTHON);
	TcFileSnapshotOutput *output = g_new0(TcFileSnapshotOutput, 1);
	guint32 uid = 1000;

	/* First in the file, applied after the other channels, with no
	 * channel of its own. */
	add_event(python, "app.*", TC_FILE_EVENT_TRACEPOINT, NULL);
	g_ptr_array_add(file->channels, python);

	add_event(ust, "app:*", TC_FILE_EVENT_TRACEPOINT, NULL);
	g_ptr_array_add(ust->contexts, g_strdup("vpid"));
	g_ptr_array_add(file->channels, ust);
	add_event(kernel, "sched_switch", TC_FILE_EVENT_TRACEPOINT, NULL);
	add_event(kernel, "irq:irq_handler_entry", TC_FILE_EVENT_TRACEPOINT, NULL);
	add_event(kernel, "openat", TC_FILE_EVENT_SYSCALL, NULL);
	add_event(kernel, "probe1", TC_FILE_EVENT_KPROBE, "do_sys_open");
	g_ptr_array_add(file->channels, kernel);
	off->enabled = FALSE;
	g_ptr_array_add(file->channels, off);
	g_ptr_array_add(file->trackers, tc_file_tracker_new(FALSE, "vuid"));
	g_array_append_val(((TcFileTracker *)g_ptr_array_index(file->trackers, 0))->values, uid);
	file->rotation_size = 1 << 20;
	output->path = g_strdup("/tmp/snap");
	g_ptr_array_add(file->snapshot_outputs, output);
	file->started = TRUE;
	return file;
}

static const char full_walk[] = "create s1\n"
				"channel ch1\n"
				"contexts ch1\n"
				"event app:*\n"
				"channel channel0\n"
				"event sched_switch\n"
				"event irq:irq_handler_entry\n"
				"event syscalls:sys_enter_openat\n"
				"event syscalls:sys_exit_openat\n"
				"probe do_sys_open\n"
				"channel ch2\n"
				"event app.*\n"
				"tracker vuid\n"
				"rotation s1\n"
				"output /tmp/snap\n"
				"disable ch2\n"
				"start -\n";

static void
test_order(void)
{
	g_autoptr(TcFileSession) file = full_session();
	g_autoptr(GError) error = NULL;
	Recorder recorder = {.log = g_string_new(NULL)};

	g_assert_true(tc_session_file_apply(file, &recorder_funcs, &recorder, &error));
	g_assert_no_error(error);
	g_assert_cmpstr(recorder.log->str, ==, full_walk);
	g_string_free(recorder.log, TRUE);
}

/* What is not in the file is not applied: no contexts, rotation, output,
 * disabled channel nor start. */
static void
test_minimal(void)
{
	g_autoptr(TcFileSession) file = tc_file_session_new("s2");
	g_autoptr(GError) error = NULL;
	Recorder recorder = {.log = g_string_new(NULL)};

	g_ptr_array_add(file->channels, tc_file_channel_new("ch1", FALSE));
	g_assert_true(tc_session_file_apply(file, &recorder_funcs, &recorder, &error));
	g_assert_no_error(error);
	g_assert_cmpstr(recorder.log->str, ==, "create s2\nchannel ch1\n");
	g_string_free(recorder.log, TRUE);
}

/* Each step that fails stops the walk there, with its own error; every
 * step after the creation has the session discarded. */
static void
test_stop_at_first_error(void)
{
	g_auto(GStrv) steps = g_strsplit(full_walk, "\n", -1);

	for (guint i = 0; steps[i] && *steps[i]; i++) {
		g_autoptr(TcFileSession) file = full_session();
		g_autoptr(GError) error = NULL;
		Recorder recorder = {.log = g_string_new(NULL), .fail_at = steps[i]};
		g_autofree char *until = NULL;
		g_autofree char *expected = NULL;
		const char *at = strstr(full_walk, steps[i]);

		g_assert_false(tc_session_file_apply(file, &recorder_funcs, &recorder, &error));
		g_assert_error(error, G_IO_ERROR, G_IO_ERROR_FAILED);
		until = g_strndup(full_walk, (at - full_walk) + strlen(steps[i]) + 1);
		if (i == 0) {
			g_assert_cmpstr(recorder.log->str, ==, until);
			expected = g_strdup_printf("%s refused", steps[i]);
		} else {
			g_autofree char *discarded = g_strconcat(until, "discard s1\n", NULL);

			g_assert_cmpstr(recorder.log->str, ==, discarded);
			expected = g_strdup_printf("session s1: %s refused", steps[i]);
		}
		g_assert_cmpstr(error->message, ==, expected);
		g_string_free(recorder.log, TRUE);
	}
}

/* A snapshot output whose relay URIs name two hosts is refused by the
 * walk itself, before any step is asked to add it. */
static void
test_bad_snapshot_output(void)
{
	g_autoptr(TcFileSession) file = tc_file_session_new("s3");
	g_autoptr(GError) error = NULL;
	TcFileSnapshotOutput *output = g_new0(TcFileSnapshotOutput, 1);
	Recorder recorder = {.log = g_string_new(NULL)};

	output->control_url = g_strdup("tcp4://10.0.0.1:5342/");
	output->data_url = g_strdup("tcp4://10.0.0.2:5343/");
	g_ptr_array_add(file->snapshot_outputs, output);
	file->started = TRUE;
	g_assert_false(tc_session_file_apply(file, &recorder_funcs, &recorder, &error));
	g_assert_nonnull(error);
	g_assert_cmpstr(recorder.log->str, ==, "create s3\ndiscard s3\n");
	g_string_free(recorder.log, TRUE);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/session-file-apply/order", test_order);
	g_test_add_func("/session-file-apply/minimal", test_minimal);
	g_test_add_func("/session-file-apply/stop-at-first-error", test_stop_at_first_error);
	g_test_add_func("/session-file-apply/bad-snapshot-output", test_bad_snapshot_output);
	return g_test_run();
}
