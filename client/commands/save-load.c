/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracectl save [--all | SESSION] [-o DIR] [-f]
 * tracectl load [--all | SESSION] [-i PATH] [-f] | load --auto
 *
 * The file belongs to the user: the CLI reads and writes it with the
 * user's rights, and drives the service with the calls a user makes by
 * hand (docs/save-load.md), so loading can never do more than the user
 * could, and the service never opens a session file.
 */
#include "tc-client.h"
#include "tc-session-file-apply.h"
#include "tc-session-file-list.h"
#include "tc-session-file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FILES_PER_DIRECTORY 256

static char *
default_directory(void)
{
	return g_build_filename(g_get_home_dir(), ".tracectl", "sessions", NULL);
}

/* D-Bus -> model (save). */

static char *
variant_string(GVariant *settings, const char *key)
{
	const char *value = NULL;

	return g_variant_lookup(settings, key, "&s", &value) ? g_strdup(value) : NULL;
}

static void
add_contexts(TcFileChannel *channel, GVariant *settings)
{
	g_autofree const char **contexts = NULL;

	if (g_variant_lookup(settings, "contexts", "^a&s", &contexts))
		for (guint i = 0; contexts[i]; i++)
			g_ptr_array_add(channel->contexts, g_strdup(contexts[i]));
}

static TcFileEvent *
event_from_rule(GVariant *rule)
{
	g_autofree char *pattern = variant_string(rule, "pattern");
	TcFileEvent *event = tc_file_event_new(pattern ? pattern : "", TC_FILE_EVENT_TRACEPOINT);
	char **exclusions = NULL;
	gint32 loglevel;

	if (g_variant_lookup(rule, "loglevel", "i", &loglevel)) {
		event->loglevel = loglevel;
		g_variant_lookup(rule, "loglevel-only", "b", &event->loglevel_only);
	}
	if (g_variant_lookup(rule, "exclude", "^as", &exclusions)) {
		g_strfreev(event->exclusions);
		event->exclusions = exclusions;
	}
	event->filter = variant_string(rule, "filter");
	return event;
}

/* A user-space channel's "buffers" setting (a service that has none
 * has per-uid buffers only). */
static gboolean
has_per_pid_buffers(GVariant *settings)
{
	const char *buffers = NULL;

	return g_variant_lookup(settings, "buffers", "&s", &buffers) && g_str_equal(buffers, "pid");
}

static TcFileChannel *
ust_channel(const char *name, guint64 subbuf_size, guint32 num_subbuf, GVariant *patterns,
	    GVariant *settings)
{
	TcFileChannel *channel = tc_file_channel_new(name, FALSE);
	guint32 monitor;
	g_autoptr(GVariant) rules = g_variant_lookup_value(settings, "event-rules",
							    G_VARIANT_TYPE("aa{sv}"));

	channel->subbuf_size = subbuf_size;
	channel->num_subbuf = num_subbuf;
	g_variant_lookup(settings, "overwrite", "b", &channel->overwrite);
	g_variant_lookup(settings, "switch-timer", "u", &channel->switch_timer_us);
	g_variant_lookup(settings, "read-timer", "u", &channel->read_timer_us);
	if (g_variant_lookup(settings, "monitor-timer", "u", &monitor))
		channel->monitor_timer_us = monitor;
	g_variant_lookup(settings, "enabled", "b", &channel->enabled);
	add_contexts(channel, settings);
	if (rules) {
		for (gsize i = 0; i < g_variant_n_children(rules); i++) {
			g_autoptr(GVariant) rule = g_variant_get_child_value(rules, i);

			/* The agents' loggers: add_agent_rules(). */
			if (!g_variant_lookup(rule, "domain", "&s", NULL))
				g_ptr_array_add(channel->events, event_from_rule(rule));
		}
	} else {
		/* A service without "event-rules": the patterns, no options. */
		for (gsize i = 0; i < g_variant_n_children(patterns); i++) {
			g_autoptr(GVariant) pattern = g_variant_get_child_value(patterns, i);

			g_ptr_array_add(channel->events,
					tc_file_event_new(g_variant_get_string(pattern, NULL),
							  TC_FILE_EVENT_TRACEPOINT));
		}
	}
	return channel;
}

static void
add_kernel_probes(TcFileChannel *channel, GVariant *settings)
{
	g_autofree const char **probes = NULL;

	if (!g_variant_lookup(settings, "probes", "^a&s", &probes))
		return;
	for (guint i = 0; probes[i]; i++) {
		g_auto(GStrv) parts = g_strsplit(probes[i], " ", 3);
		TcFileEventType type;
		TcFileEvent *event;

		if (g_strv_length(parts) != 3)
			continue;
		type = g_str_equal(parts[0], "kprobe")	  ? TC_FILE_EVENT_KPROBE
		       : g_str_equal(parts[0], "kretprobe") ? TC_FILE_EVENT_KRETPROBE
							    : TC_FILE_EVENT_UPROBE;
		event = tc_file_event_new(parts[1], type);
		event->location = g_strdup(parts[2]);
		g_ptr_array_add(channel->events, event);
	}
}

/* Kernel patterns: "syscalls:sys_enter_X" with "syscalls:sys_exit_X" is the
 * system call X; probes' own events are left to add_kernel_probes(). */
static TcFileChannel *
kernel_channel(const char *name, guint64 subbuf_size, guint32 num_subbuf, GVariant *patterns,
	       GVariant *settings)
{
	TcFileChannel *channel = tc_file_channel_new(name, TRUE);
	g_autofree const char **list = g_variant_get_strv(patterns, NULL);
	g_autoptr(GVariant) filters = g_variant_lookup_value(settings, "filters",
							      G_VARIANT_TYPE("a{ss}"));

	channel->subbuf_size = subbuf_size;
	channel->num_subbuf = num_subbuf;
	g_variant_lookup(settings, "enabled", "b", &channel->enabled);
	add_contexts(channel, settings);
	for (guint i = 0; list[i]; i++) {
		const char *pattern = list[i];
		TcFileEvent *event;

		if (g_str_has_prefix(pattern, "tracectl_"))
			continue;
		if (g_str_has_prefix(pattern, "syscalls:sys_exit_")) {
			g_autofree char *enter = g_strconcat(
				"syscalls:sys_enter_", pattern + strlen("syscalls:sys_exit_"), NULL);

			if (g_strv_contains(list, enter))
				continue;
		}
		if (g_str_has_prefix(pattern, "syscalls:sys_enter_")) {
			const char *syscall = pattern + strlen("syscalls:sys_enter_");
			g_autofree char *exit = g_strconcat("syscalls:sys_exit_", syscall, NULL);

			if (g_strv_contains(list, exit)) {
				event = tc_file_event_new(syscall, TC_FILE_EVENT_SYSCALL);
				if (filters)
					g_variant_lookup(filters, pattern, "s", &event->filter);
				g_ptr_array_add(channel->events, event);
				continue;
			}
		}
		event = tc_file_event_new(pattern, TC_FILE_EVENT_TRACEPOINT);
		if (filters)
			g_variant_lookup(filters, pattern, "s", &event->filter);
		g_ptr_array_add(channel->events, event);
	}
	add_kernel_probes(channel, settings);
	return channel;
}

static void
add_trackers(TcFileSession *file, GVariant *tracking)
{
	GVariantIter iter;
	const char *domain, *kind;
	gboolean every;
	GVariant *values;

	if (!tracking)
		return;
	g_variant_iter_init(&iter, tracking);
	while (g_variant_iter_next(&iter, "(&s&sb@au)", &domain, &kind, &every, &values)) {
		if (!every) {
			TcFileTracker *tracker =
				tc_file_tracker_new(g_str_equal(domain, "kernel"), kind);
			gsize n;
			const guint32 *v = g_variant_get_fixed_array(values, &n, sizeof(guint32));

			g_array_append_vals(tracker->values, v, n);
			g_ptr_array_add(file->trackers, tracker);
		}
		g_variant_unref(values);
	}
}

static gboolean
add_snapshot_outputs(TcClientSession *session, TcFileSession *file, GError **error)
{
	g_autoptr(GVariant) reply =
		tc_client_call(session, "ListSnapshotOutputs", NULL, error);
	g_autoptr(GVariantIter) iter = NULL;
	const char *name, *url;
	guint32 id;
	guint64 max_size;

	if (!reply)
		return FALSE;
	g_variant_get(reply, "(a(usst))", &iter);
	while (g_variant_iter_next(iter, "(u&s&st)", &id, &name, &url, &max_size)) {
		TcFileSnapshotOutput *output = g_new0(TcFileSnapshotOutput, 1);

		output->name = g_strdup(name);
		if (!tc_session_file_relay_uris(url, &output->control_url, &output->data_url))
			output->path = g_strdup(g_str_has_prefix(url, "file://") ? url + 7 : url);
		output->max_size = max_size;
		g_ptr_array_add(file->snapshot_outputs, output);
	}
	return TRUE;
}

/* The agent's channel of file, added when it has none yet. */
static TcFileChannel *
agent_channel(TcFileSession *file, TcFileAgent agent)
{
	TcFileChannel *channel;

	for (guint i = 0; i < file->channels->len; i++) {
		channel = g_ptr_array_index(file->channels, i);
		if (channel->agent == agent)
			return channel;
	}
	channel = tc_file_channel_new_agent(agent);
	g_ptr_array_add(file->channels, channel);
	return channel;
}

/* The agents' loggers among a channel's rules (they are all in the
 * default channel's), each in its domain's channel, as lttng saves them. */
static void
add_agent_rules(TcFileSession *file, GVariant *settings)
{
	g_autoptr(GVariant) rules = g_variant_lookup_value(settings, "event-rules",
							    G_VARIANT_TYPE("aa{sv}"));

	for (gsize i = 0; rules && i < g_variant_n_children(rules); i++) {
		g_autoptr(GVariant) rule = g_variant_get_child_value(rules, i);
		const char *domain;
		TcFileAgent agent;
		TcFileEvent *event;

		if (!g_variant_lookup(rule, "domain", "&s", &domain) ||
		    !(agent = tc_session_file_agent_from_domain(domain)))
			continue;
		event = event_from_rule(rule);
		event->has_loglevel = g_variant_lookup(rule, "loglevel", "i", NULL);
		g_ptr_array_add(agent_channel(file, agent)->events, event);
	}
}

static TcFileSession *
session_to_file(TcClientSession *session, GError **error)
{
	g_autoptr(TcFileSession) file = tc_file_session_new(tc_client_session_get_name(session));
	GVariant *channels = tc_client_session_get_channels(session);
	const char *url = tc_client_session_get_output_url(session);
	GVariantIter iter;
	const char *name, *domain;
	guint64 subbuf_size;
	guint32 num_subbuf;
	GVariant *patterns, *settings;

	file->snapshot = tc_client_session_get_snapshot(session);
	file->started = g_strcmp0(tc_client_session_get_state(session), "active") == 0;
	file->live_timer_us = tc_client_session_get_live_timer(session);
	file->rotation_timer_us = tc_client_session_get_rotation_timer(session);
	file->rotation_size = tc_client_session_get_rotation_size(session);
	if (!url || !tc_session_file_relay_uris(url, &file->control_url, &file->data_url))
		file->path = g_strdup(tc_client_session_get_output_directory(session));
	if (channels) {
		g_variant_iter_init(&iter, channels);
		while (g_variant_iter_next(&iter, "(&s&stu@as@a{sv})", &name, &domain,
					   &subbuf_size, &num_subbuf, &patterns, &settings)) {
			if (g_str_equal(domain, "ust")) {
				g_ptr_array_add(file->channels,
						ust_channel(name, subbuf_size, num_subbuf, patterns,
							    settings));
				add_agent_rules(file, settings);
				file->ust_per_pid = has_per_pid_buffers(settings);
			} else if (g_str_equal(domain, "kernel"))
				g_ptr_array_add(file->channels,
						kernel_channel(name, subbuf_size, num_subbuf,
							       patterns, settings));
			g_variant_unref(patterns);
			g_variant_unref(settings);
		}
	}
	add_trackers(file, tc_client_session_get_tracking(session));
	if (file->snapshot && !add_snapshot_outputs(session, file, error))
		return NULL;
	return g_steal_pointer(&file);
}

/* Writes path with the user's rights, never through a symbolic link. */
static gboolean
write_file(const char *path, const char *contents, gboolean force, GError **error)
{
	int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (force ? O_TRUNC : O_EXCL);
	int fd = open(path, flags, 0600);
	gsize length = strlen(contents);

	if (fd < 0) {
		int saved = errno;

		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(saved), "%s: %s%s", path,
			    g_strerror(saved),
			    saved == EEXIST ? " (--force overwrites it)" : "");
		return FALSE;
	}
	while (length > 0) {
		ssize_t n = write(fd, contents, length);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int saved = errno;

			close(fd);
			g_set_error(error, G_IO_ERROR, g_io_error_from_errno(saved), "%s: %s",
				    path, g_strerror(saved));
			return FALSE;
		}
		contents += n;
		length -= (gsize)n;
	}
	close(fd);
	return TRUE;
}

static char **
caller_session_names(GError **error)
{
	g_autoptr(TcClientManager) manager = tc_client_manager(error);
	g_autoptr(GVariant) reply = NULL;
	g_autoptr(GVariantIter) iter = NULL;
	GPtrArray *names;
	const char *name;
	guint32 owner;

	if (!manager)
		return NULL;
	reply = tc_client_call(manager, "ListSessions", NULL, error);
	if (!reply)
		return NULL;
	names = g_ptr_array_new();
	g_variant_get(reply, "(a(osuss))", &iter);
	while (g_variant_iter_next(iter, "(&o&su&s&s)", NULL, &name, &owner, NULL, NULL))
		if (owner == tc_client_caller_uid())
			g_ptr_array_add(names, g_strdup(name));
	g_ptr_array_add(names, NULL);
	return (char **)g_ptr_array_free(names, FALSE);
}

/* The result: text lines, or with --json {"sessions": [{"name", "file"}]}. */
static void
print_results(GPtrArray *names, GPtrArray *files, const char *verb)
{
	g_autoptr(JsonBuilder) builder = NULL;

	if (!tc_client_output_is_json()) {
		for (guint i = 0; i < names->len; i++)
			g_print("Session %s %s %s\n", (char *)g_ptr_array_index(names, i), verb,
				(char *)g_ptr_array_index(files, i));
		return;
	}
	builder = json_builder_new();
	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "sessions");
	json_builder_begin_array(builder);
	for (guint i = 0; i < names->len; i++) {
		json_builder_begin_object(builder);
		tc_client_output_member_string(builder, "name", g_ptr_array_index(names, i));
		tc_client_output_member_string(builder, "file", g_ptr_array_index(files, i));
		json_builder_end_object(builder);
	}
	json_builder_end_array(builder);
	json_builder_end_object(builder);
	tc_client_output_print_builder(builder);
}

static gboolean
save_one(const char *name, const char *directory, gboolean force, GPtrArray *saved,
	 GPtrArray *files, GError **error)
{
	g_autoptr(TcClientSession) session = tc_client_session(name, error);
	g_autoptr(TcFileSession) file = NULL;
	g_autoptr(GPtrArray) list = g_ptr_array_new();
	g_autofree char *contents = NULL, *basename = NULL, *path = NULL;

	if (!session || !(file = session_to_file(session, error)))
		return FALSE;
	g_ptr_array_add(list, file);
	contents = tc_session_file_write(list);
	basename = g_strconcat(file->name, ".lttng", NULL);
	path = g_build_filename(directory, basename, NULL);
	if (!write_file(path, contents, force, error))
		return FALSE;
	g_ptr_array_add(saved, g_strdup(file->name));
	g_ptr_array_add(files, g_steal_pointer(&path));
	return TRUE;
}

int
tc_cmd_save(int argc, char **argv)
{
	g_autofree char *directory = NULL;
	gboolean all = FALSE, force = FALSE;
	const GOptionEntry entries[] = {
		{"all", 'a', 0, G_OPTION_ARG_NONE, &all, "Save every session of yours", NULL},
		{"output-path", 'o', 0, G_OPTION_ARG_FILENAME, &directory,
		 "Directory of the files (default: ~/.tracectl/sessions)", "DIR"},
		{"force", 'f', 0, G_OPTION_ARG_NONE, &force, "Overwrite existing files", NULL},
		{NULL},
	};
	g_autoptr(GOptionContext) context = g_option_context_new("[SESSION] - save sessions");
	g_autoptr(GError) error = NULL;
	g_auto(GStrv) names = NULL;
	g_autoptr(GPtrArray) saved = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);
	int status;

	g_option_context_set_summary(
		context,
		"Writes each session's whole configuration (channels, events with their\n"
		"filters, log levels and exclusions, contexts, tracking, output or relay URL,\n"
		"snapshot outputs, rotation schedule) to DIR/SESSION.lttng, in LTTng's session\n"
		"configuration format (lttng-save(1)): 'tracectl load' and 'lttng load' read\n"
		"it. Without SESSION, or with --all, saves every session of yours. An existing\n"
		"file is kept unless --force is given.");
	g_option_context_add_main_entries(context, entries, NULL);
	if (!tc_client_parse(context, &argc, &argv, &status))
		return status;
	if (argc > 2 || (all && argc == 2)) {
		g_printerr("Error: give one SESSION or --all\n");
		return TC_EXIT_USAGE;
	}
	/* This machine's ~/.tracectl/sessions is where its own service
	 * auto-loads from: never the place for another machine's sessions. */
	if (!directory && tc_client_is_remote())
		return tc_client_remote_refused(
		    "save writes files on this machine: give their directory with -o DIR");
	if (!directory)
		directory = default_directory();
	if (g_mkdir_with_parents(directory, 0700) < 0) {
		int code = errno;

		g_printerr("Error: %s: %s\n", directory, g_strerror(code));
		return TC_EXIT_FAILURE;
	}
	names = argc == 2 ? g_strdupv((char *[]){argv[1], NULL}) : caller_session_names(&error);
	if (!names)
		return tc_client_fail(error);
	if (!names[0]) {
		g_printerr("Error: no session to save\n");
		return TC_EXIT_FAILURE;
	}
	for (guint i = 0; names[i]; i++)
		if (!save_one(names[i], directory, force, saved, files, &error)) {
			print_results(saved, files, "saved to");
			return tc_client_fail(error);
		}
	print_results(saved, files, "saved to");
	return TC_EXIT_OK;
}

/* Files -> model (load). */

/* Reads a file of the user's; with owner_only, only a file owned by the
 * caller (auto-loading). NULL with *skipped set when not owned. */
static GPtrArray *
read_session_file(const char *path, gboolean owner_only, gboolean *skipped, GError **error)
{
	g_autofree char *contents = NULL;
	g_autoptr(GPtrArray) sessions = NULL;
	struct stat st;
	gsize length = 0;
	int fd;

	/* Another user's file is skipped unread (and checked again below,
	 * on the descriptor read). */
	if (owner_only && lstat(path, &st) == 0 && st.st_uid != getuid()) {
		*skipped = TRUE;
		return NULL;
	}
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		int saved = errno;

		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(saved), "%s: %s", path,
			    g_strerror(saved));
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
			    "%s: not a regular file", path);
		return NULL;
	}
	if (owner_only && st.st_uid != getuid()) {
		close(fd);
		*skipped = TRUE;
		return NULL;
	}
	if (st.st_size > TC_SESSION_FILE_MAX_BYTES) {
		close(fd);
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
			    "%s: %lld bytes, more than the %d a session file may hold", path,
			    (long long)st.st_size, TC_SESSION_FILE_MAX_BYTES);
		return NULL;
	}
	contents = g_malloc(st.st_size + 1);
	while (length < (gsize)st.st_size) {
		ssize_t n = read(fd, contents + length, st.st_size - length);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		length += (gsize)n;
	}
	close(fd);
	contents[length] = '\0';
	sessions = tc_session_file_parse(contents, length, error);
	if (!sessions)
		g_prefix_error(error, "%s: ", path);
	for (guint i = 0; sessions && i < sessions->len; i++)
		((TcFileSession *)g_ptr_array_index(sessions, i))->source = g_strdup(path);
	return g_steal_pointer(&sessions);
}

/* The paths of the directory's session files (tc-session-file-list.h),
 * in name order; more than MAX_FILES_PER_DIRECTORY is an error rather
 * than a silent cut. */
static gboolean
list_directory(const char *path, GPtrArray *files, GError **error)
{
	struct tc_session_file_list list;
	int dir_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int ret =
	    dir_fd < 0 ? -errno : tc_session_file_list(dir_fd, MAX_FILES_PER_DIRECTORY, &list);

	if (dir_fd >= 0)
		close(dir_fd);
	if (ret < 0) {
		g_autofree char *shown = g_filename_display_name(path);

		/* As GLib's g_dir_open() words it. */
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(-ret),
			    "Error opening directory “%s”: %s", shown, g_strerror(-ret));
		return FALSE;
	}
	if (list.seen > list.max) {
		tc_session_file_list_clear(&list);
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
			    "%s: more than %d session files", path, MAX_FILES_PER_DIRECTORY);
		return FALSE;
	}
	for (size_t i = 0; i < list.count; i++)
		g_ptr_array_add(files, g_build_filename(path, list.names[i], NULL));
	tc_session_file_list_clear(&list);
	return TRUE;
}

/* The sessions of path: a file, or the *.lttng files of a directory. A
 * missing directory is empty when missing_ok. */
static gboolean
read_path(const char *path, gboolean owner_only, gboolean missing_ok, GPtrArray *sessions,
	  GError **error)
{
	g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);

	if (!g_file_test(path, G_FILE_TEST_IS_DIR)) {
		gboolean skipped = FALSE;
		g_autoptr(GPtrArray) found = NULL;

		if (missing_ok && !g_file_test(path, G_FILE_TEST_EXISTS))
			return TRUE;
		found = read_session_file(path, owner_only, &skipped, error);
		if (!found)
			return skipped;
		g_ptr_array_extend_and_steal(sessions, g_steal_pointer(&found));
		return TRUE;
	}
	if (!list_directory(path, files, error))
		return FALSE;
	for (guint i = 0; i < files->len; i++) {
		gboolean skipped = FALSE;
		g_autoptr(GPtrArray) found = NULL;

		found = read_session_file(g_ptr_array_index(files, i), owner_only, &skipped, error);
		if (!found && !skipped)
			return FALSE;
		if (found)
			g_ptr_array_extend_and_steal(sessions, g_steal_pointer(&found));
	}
	return TRUE;
}

/* Model -> calls (load), through tc_session_file_apply(). */

typedef struct {
	TcClientManager *manager;
	TcClientSession *session; /* once created */
} LoadCalls;

static gboolean
call(gpointer proxy, const char *method, GVariant *parameters, GError **error)
{
	g_autoptr(GVariant) reply = tc_client_call(proxy, method, parameters, error);

	if (!reply) {
		g_dbus_error_strip_remote_error(*error);
		g_prefix_error(error, "%s: ", method);
	}
	return reply != NULL;
}

static const char *
domain_of(const TcFileChannel *channel)
{
	if (channel->agent)
		return tc_session_file_agent_domain(channel->agent);
	return channel->kernel ? "kernel" : "ust";
}

static gboolean
destroy_by_name(TcClientManager *manager, const char *name, GError **error)
{
	g_autoptr(GVariant) found =
	    tc_client_call(manager, "FindSession", g_variant_new("(s)", name), NULL);
	const char *path;

	if (!found)
		return TRUE;
	g_variant_get(found, "(&o)", &path);
	return call(manager, "DestroySession", g_variant_new("(o)", path), error);
}

/* The session goes again; the error says which session failed. */
static void
load_discard_cb(gpointer data, const TcFileSession *file, GError **error)
{
	LoadCalls *calls = data;

	destroy_by_name(calls->manager, file->name, NULL);
	g_prefix_error(error, "session %s: ", file->name);
}

static gboolean
load_create_session_cb(gpointer data, const TcFileSession *file, GError **error)
{
	LoadCalls *calls = data;
	GVariantBuilder options;

	g_variant_builder_init(&options, G_VARIANT_TYPE_VARDICT);
	if (file->snapshot)
		g_variant_builder_add(&options, "{sv}", "snapshot", g_variant_new_boolean(TRUE));
	if (tc_session_file_ssh_url(file->control_url)) {
		g_variant_builder_add(&options, "{sv}", "url",
				      g_variant_new_string(file->control_url));
	} else if (file->control_url) {
		g_autofree char *control = tc_session_file_relay_url(file->control_url);
		g_autofree char *data_url = tc_session_file_relay_url(file->data_url);

		g_variant_builder_add(&options, "{sv}", "ctrl-url", g_variant_new_string(control));
		g_variant_builder_add(&options, "{sv}", "data-url", g_variant_new_string(data_url));
	}
	if (file->live_timer_us)
		g_variant_builder_add(&options, "{sv}", "live-timer-us",
				      g_variant_new_uint32(file->live_timer_us));
	if (!call(calls->manager, "CreateSessionWithOptions",
		  g_variant_new("(ssa{sv})", file->name, file->path ? file->path : "", &options),
		  error))
		return FALSE;
	/* Created: from here on, a failure destroys it again. */
	calls->session = tc_client_session(file->name, error);
	if (calls->session == NULL) {
		load_discard_cb(calls, file, error);
		return FALSE;
	}
	return TRUE;
}

static GVariant *
channel_options(const TcFileSession *file, const TcFileChannel *channel)
{
	GVariantBuilder options;

	g_variant_builder_init(&options, G_VARIANT_TYPE_VARDICT);
	if (channel->subbuf_size)
		g_variant_builder_add(&options, "{sv}", "subbuf-size",
				      g_variant_new_uint64(channel->subbuf_size));
	if (channel->num_subbuf)
		g_variant_builder_add(&options, "{sv}", "num-subbuf",
				      g_variant_new_uint32((guint32)channel->num_subbuf));
	if (!channel->kernel) {
		g_variant_builder_add(&options, "{sv}", "overwrite",
				      g_variant_new_boolean(channel->overwrite));
		g_variant_builder_add(&options, "{sv}", "switch-timer",
				      g_variant_new_uint32(channel->switch_timer_us));
		/* LTTng's 0 (the application wakes the consumer) is tracectl's
		 * default polling. */
		if (channel->read_timer_us)
			g_variant_builder_add(&options, "{sv}", "read-timer",
					      g_variant_new_uint32(channel->read_timer_us));
		g_variant_builder_add(&options, "{sv}", "monitor-timer",
				      g_variant_new_uint32((guint32)channel->monitor_timer_us));
		/* Only when not the default: a service without the option
		 * loads the others. */
		if (file->ust_per_pid)
			g_variant_builder_add(&options, "{sv}", "buffers",
					      g_variant_new_string("pid"));
	}
	return g_variant_builder_end(&options);
}

static gboolean
load_add_channel_cb(gpointer data, const TcFileSession *file, const TcFileChannel *channel,
		    GError **error)
{
	LoadCalls *calls = data;

	return call(calls->session, "EnableChannel",
		    g_variant_new("(ss@a{sv})", domain_of(channel), channel->name,
				  channel_options(file, channel)),
		    error);
}

static gboolean
load_add_contexts_cb(gpointer data, const TcFileChannel *channel, GError **error)
{
	LoadCalls *calls = data;
	g_autofree const char **names = g_new0(const char *, channel->contexts->len + 1);

	for (guint i = 0; i < channel->contexts->len; i++)
		names[i] = g_ptr_array_index(channel->contexts, i);
	return call(calls->session, "AddContext",
		    g_variant_new("(ss^as)", domain_of(channel), channel->name, names), error);
}

/* An agent's level is any int: has_loglevel says whether it has one. */
static gboolean
has_loglevel(const TcFileChannel *channel, const TcFileEvent *event)
{
	return channel->agent ? event->has_loglevel : event->loglevel >= 0;
}

static GVariant *
event_options(const TcFileChannel *channel, const TcFileEvent *event)
{
	GVariantBuilder options;

	g_variant_builder_init(&options, G_VARIANT_TYPE_VARDICT);
	if (has_loglevel(channel, event)) {
		g_variant_builder_add(&options, "{sv}", "loglevel",
				      g_variant_new_int32(event->loglevel));
		if (event->loglevel_only)
			g_variant_builder_add(&options, "{sv}", "loglevel-only",
					      g_variant_new_boolean(TRUE));
	}
	if (event->exclusions[0])
		g_variant_builder_add(&options, "{sv}", "exclude",
				      g_variant_new_strv((const char *const *)event->exclusions, -1));
	if (event->filter)
		g_variant_builder_add(&options, "{sv}", "filter",
				      g_variant_new_string(event->filter));
	return g_variant_builder_end(&options);
}

/* An event without options is what EnableEvent takes. */
static gboolean
load_enable_event_cb(gpointer data, const TcFileChannel *channel, const TcFileEvent *event,
		     const char *pattern, GError **error)
{
	LoadCalls *calls = data;
	/* The kernel's channel is the session's one; the agents' loggers go
	 * to the default channel. */
	const char *name = channel->kernel || channel->agent ? "" : channel->name;

	if (!has_loglevel(channel, event) && !event->exclusions[0] && !event->filter)
		return call(calls->session, "EnableEvent",
			    g_variant_new("(sss)", domain_of(channel), name, pattern), error);
	return call(calls->session, "EnableEventWithOptions",
		    g_variant_new("(sss@a{sv})", domain_of(channel), name, pattern,
				  event_options(channel, event)),
		    error);
}

static gboolean
load_add_probe_cb(gpointer data, const TcFileChannel *channel G_GNUC_UNUSED,
		  const TcFileEvent *event, GError **error)
{
	static const char *const probe_kinds[] = {
		[TC_FILE_EVENT_KPROBE] = "kprobe",
		[TC_FILE_EVENT_KRETPROBE] = "kretprobe",
		[TC_FILE_EVENT_UPROBE] = "uprobe",
	};
	LoadCalls *calls = data;

	return call(
	    calls->session, "AddKernelProbe",
	    g_variant_new("(sss)", probe_kinds[event->type], event->pattern, event->location),
	    error);
}

static gboolean
load_set_tracker_cb(gpointer data, const TcFileTracker *tracker, GError **error)
{
	LoadCalls *calls = data;
	const char *domain = tracker->kernel ? "kernel" : "ust";

	if (!call(calls->session, "UntrackAll", g_variant_new("(ss)", domain, tracker->kind),
		  error))
		return FALSE;
	return tracker->values->len == 0 ||
	       call(calls->session, "Track",
		    g_variant_new("(ss@au)", domain, tracker->kind,
				  g_variant_new_fixed_array(G_VARIANT_TYPE_UINT32,
							    tracker->values->data,
							    tracker->values->len, sizeof(guint32))),
		    error);
}

static gboolean
load_set_rotation_cb(gpointer data, const TcFileSession *file, GError **error)
{
	LoadCalls *calls = data;
	GVariantBuilder schedule;

	g_variant_builder_init(&schedule, G_VARIANT_TYPE_VARDICT);
	if (file->rotation_timer_us)
		g_variant_builder_add(&schedule, "{sv}", "timer-us",
				      g_variant_new_uint64(file->rotation_timer_us));
	if (file->rotation_size)
		g_variant_builder_add(&schedule, "{sv}", "size-bytes",
				      g_variant_new_uint64(file->rotation_size));
	return call(calls->session, "SetRotationSchedule", g_variant_new("(a{sv})", &schedule),
		    error);
}

static gboolean
load_add_snapshot_output_cb(gpointer data, const TcFileSnapshotOutput *output, const char *url,
			    GError **error)
{
	LoadCalls *calls = data;
	GVariantBuilder options;

	g_variant_builder_init(&options, G_VARIANT_TYPE_VARDICT);
	if (output->max_size)
		g_variant_builder_add(&options, "{sv}", "max-size",
				      g_variant_new_uint64(output->max_size));
	return call(calls->session, "AddSnapshotOutput",
		    g_variant_new("(ssa{sv})", output->name ? output->name : "", url, &options),
		    error);
}

static gboolean
load_disable_channel_cb(gpointer data, const TcFileChannel *channel, GError **error)
{
	LoadCalls *calls = data;

	return call(calls->session, "DisableChannel",
		    g_variant_new("(ss)", domain_of(channel), channel->name), error);
}

static gboolean
load_start_cb(gpointer data, GError **error)
{
	LoadCalls *calls = data;

	return call(calls->session, "Start", NULL, error);
}

/* Each step the call a user would make by hand. */
static const TcSessionFileApplyFuncs load_calls_funcs = TC_SESSION_FILE_APPLY_FUNCS(load);

/* Creates the session and sets it up; on any failure destroys what it
 * created, so that a refused file leaves nothing behind. */
static gboolean
load_session(TcClientManager *manager, const TcFileSession *file, GError **error)
{
	LoadCalls calls = {.manager = manager};
	gboolean ok = tc_session_file_apply(file, &load_calls_funcs, &calls, error);

	g_clear_pointer(&calls.session, tc_client_session_free);
	return ok;
}

static gboolean
session_exists(TcClientManager *manager, const char *name)
{
	g_autoptr(GVariant) found =
		tc_client_call(manager, "FindSession", g_variant_new("(s)", name), NULL);

	return found != NULL;
}

/* Keeps the sessions to load: the one named, or all; refuses duplicates
 * and, without force, names in use (skipped when skip_existing). */
static gboolean
select_sessions(TcClientManager *manager, GPtrArray *sessions, const char *name, gboolean force,
		gboolean skip_existing, GError **error)
{
	g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);

	for (guint i = 0; i < sessions->len;) {
		TcFileSession *file = g_ptr_array_index(sessions, i);

		if (name && !g_str_equal(file->name, name)) {
			g_ptr_array_remove_index(sessions, i);
			continue;
		}
		if (!g_hash_table_add(seen, file->name)) {
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_EXISTS,
				    "session %s is given twice", file->name);
			return FALSE;
		}
		if (!force && session_exists(manager, file->name)) {
			if (skip_existing) {
				g_print("Session %s exists already, left as it is\n", file->name);
				g_ptr_array_remove_index(sessions, i);
				continue;
			}
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_EXISTS,
				    "session %s exists already (--force replaces it)", file->name);
			return FALSE;
		}
		i++;
	}
	if (name && sessions->len == 0) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "no session %s in the files",
			    name);
		return FALSE;
	}
	return TRUE;
}

static gboolean
read_auto_paths(GPtrArray *sessions, GError **error)
{
	g_autofree char *user = g_build_filename(g_get_user_config_dir(), "tracectl", "sessions",
						 NULL);

	return read_path(user, TRUE, TRUE, sessions, error) &&
	       read_path("/etc/tracectl/sessions", TRUE, TRUE, sessions, error);
}

int
tc_cmd_load(int argc, char **argv)
{
	g_autofree char *input = NULL;
	gboolean all = FALSE, force = FALSE, automatic = FALSE;
	const GOptionEntry entries[] = {
		{"all", 'a', 0, G_OPTION_ARG_NONE, &all, "Load every session of the files", NULL},
		{"input-path", 'i', 0, G_OPTION_ARG_FILENAME, &input,
		 "A session file, or a directory of *.lttng files (default: "
		 "~/.tracectl/sessions)",
		 "PATH"},
		{"force", 'f', 0, G_OPTION_ARG_NONE, &force,
		 "Replace (destroy) existing sessions of the same names", NULL},
		{"auto", 0, 0, G_OPTION_ARG_NONE, &automatic,
		 "Load the files of ~/.config/tracectl/sessions and /etc/tracectl/sessions "
		 "that you own, leaving existing sessions alone",
		 NULL},
		{NULL},
	};
	g_autoptr(GOptionContext) context = g_option_context_new("[SESSION] - load sessions");
	g_autoptr(GPtrArray) sessions =
		g_ptr_array_new_with_free_func((GDestroyNotify)tc_file_session_free);
	g_autoptr(TcClientManager) manager = NULL;
	g_autoptr(GPtrArray) loaded = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GPtrArray) sources = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GError) error = NULL;
	const char *name;
	int status;

	g_option_context_set_summary(
		context,
		"Creates sessions from files in LTTng's session configuration format\n"
		"(lttng-load(1)): those 'tracectl save' or 'lttng save' wrote. Without\n"
		"SESSION, or with --all, loads every session of PATH. Every file is read and\n"
		"checked first: anything tracectl cannot honour (trace file limits, an\n"
		"agent's channel unlike LTTng's...) is an error naming the\n"
		"element and its line, and nothing is created. A session whose setup the\n"
		"service refuses is destroyed again.");
	g_option_context_add_main_entries(context, entries, NULL);
	if (!tc_client_parse(context, &argc, &argv, &status))
		return status;
	if (argc > 2 || (all && argc == 2) || (automatic && (input || argc == 2))) {
		g_printerr("Error: give one SESSION or --all, and --auto alone\n");
		return TC_EXIT_USAGE;
	}
	name = argc == 2 ? argv[1] : NULL;
	if (tc_client_is_remote() && (automatic || !input))
		return tc_client_remote_refused(
		    automatic ? "load --auto is not possible: it reads this machine's session "
				"directories, for this machine's service"
			      : "load reads files on this machine: give them with -i PATH");
	if (!input)
		input = default_directory();
	if (!(automatic ? read_auto_paths(sessions, &error)
			: read_path(input, FALSE, FALSE, sessions, &error)))
		return tc_client_fail(g_steal_pointer(&error));
	manager = tc_client_manager(&error);
	if (!manager || !select_sessions(manager, sessions, name, force, automatic, &error))
		return tc_client_fail(g_steal_pointer(&error));
	for (guint i = 0; i < sessions->len; i++) {
		TcFileSession *file = g_ptr_array_index(sessions, i);

		if ((force && !destroy_by_name(manager, file->name, &error)) ||
		    !load_session(manager, file, &error)) {
			print_results(loaded, sources, "loaded from");
			return tc_client_fail(g_steal_pointer(&error));
		}
		g_ptr_array_add(loaded, g_strdup(file->name));
		g_ptr_array_add(sources, g_strdup(file->source));
	}
	print_results(loaded, sources, "loaded from");
	return TC_EXIT_OK;
}
