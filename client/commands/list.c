/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracectl list            your sessions ('*' marks the current one)
 * tracectl list NAME       a session's channels and events
 * tracectl list -u         your registered applications and their events
 */
#include <unistd.h>

#include "tc-client.h"

static int
list_sessions(TcDbusManager *manager)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GVariant) reply = tc_client_call(manager, "ListSessions", NULL, &error);
	g_autoptr(GVariantIter) iter = NULL;
	g_autofree char *current = tc_client_current_session();
	const char *path, *name, *state, *output;
	guint32 owner;
	guint n = 0;

	if (reply == NULL)
		return tc_client_fail(error);
	g_variant_get(reply, "(a(osuss))", &iter);
	if (g_variant_iter_n_children(iter) == 0) {
		g_print("No tracing sessions.\n");
		return TC_EXIT_OK;
	}
	g_print("Tracing sessions:\n");
	while (g_variant_iter_next(iter, "(&o&su&s&s)", &path, &name, &owner, &state, &output)) {
		gboolean is_current = current && g_str_equal(current, name) && owner == getuid();

		g_print("  %u) %s [%s] (%s) uid %u%s\n", ++n, name, state, output, owner,
			is_current ? " *" : "");
	}
	return TC_EXIT_OK;
}

static void
print_events(GVariantIter *events)
{
	const char *name, *fields;
	gint32 loglevel;

	while (g_variant_iter_next(events, "(&si&s)", &name, &loglevel, &fields))
		g_print("      %s (loglevel: %d) (fields: %s)\n", name, loglevel, fields);
}

static int
list_applications(TcDbusManager *manager)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GVariant) reply = tc_client_call(manager, "ListApplications", NULL, &error);
	g_autoptr(GVariantIter) iter = NULL;
	GVariantIter *events;
	const char *procname, *version;
	gint32 pid;
	guint32 uid;

	if (reply == NULL)
		return tc_client_fail(error);
	g_variant_get(reply, "(a(iussa(sis)))", &iter);
	g_print("User-space applications:\n");
	while (g_variant_iter_next(iter, "(iu&s&sa(sis))", &pid, &uid, &procname, &version,
				   &events)) {
		g_print("\nPID: %d - Name: %s - UID: %u - Tracer: %s\n", pid, procname, uid,
			version);
		print_events(events);
		g_variant_iter_free(events);
	}
	return TC_EXIT_OK;
}

static void
print_channel_settings(GVariant *settings)
{
	gboolean overwrite = FALSE;
	guint32 switch_us = 0, read_us = 0, monitor_us = 0;
	g_autofree const char **contexts = NULL;

	g_variant_lookup(settings, "overwrite", "b", &overwrite);
	g_variant_lookup(settings, "switch-timer", "u", &switch_us);
	g_variant_lookup(settings, "read-timer", "u", &read_us);
	g_variant_lookup(settings, "monitor-timer", "u", &monitor_us);
	g_variant_lookup(settings, "contexts", "^a&s", &contexts);
	g_print("    Mode: %s\n", overwrite ? "overwrite" : "discard");
	g_print("    Timers (us): switch %u, read %u, monitor %u\n", switch_us, read_us,
		monitor_us);
	if (contexts && contexts[0]) {
		g_autofree char *joined = g_strjoinv(", ", (char **)contexts);

		g_print("    Contexts: %s\n", joined);
	}
}

/* The statistics of one channel, from a ChannelStatistics reply. */
static void
print_channel_statistics(GVariant *statistics, const char *channel)
{
	const char *domain, *name;
	guint64 size, used, peak, discarded, packets;
	GVariantIter iter;

	if (statistics == NULL)
		return;
	g_variant_iter_init(&iter, statistics);
	while (g_variant_iter_next(&iter, "(&s&sttttt)", &domain, &name, &size, &used, &peak,
				   &discarded, &packets)) {
		if (!g_str_equal(name, channel))
			continue;
		g_print("    Buffers: %" G_GUINT64_FORMAT " bytes, %" G_GUINT64_FORMAT
			" in use at the last sample (peak %" G_GUINT64_FORMAT ")\n",
			size, used, peak);
		g_print("    Events discarded: %" G_GUINT64_FORMAT ", packets written: %"
			G_GUINT64_FORMAT "\n", discarded, packets);
	}
}

/* A streamed session shows its relay URL, a local one its directory. */
static void
print_output(TcDbusSession *session)
{
	const char *url = tc_dbus_session_get_output_url(session);
	guint32 live_timer_us = tc_dbus_session_get_live_timer(session);

	if (url == NULL || !g_str_has_prefix(url, "net")) {
		g_print("    Trace output: %s\n", tc_dbus_session_get_output_directory(session));
		return;
	}
	g_print("    Trace output: %s (host %s)\n", url,
		tc_dbus_session_get_trace_hostname(session));
	if (live_timer_us)
		g_print("    Live timer interval: %u us\n", live_timer_us);
}

int
tc_client_print_session(TcDbusSession *session)
{
	GVariant *channels = tc_dbus_session_get_channels(session);
	g_autoptr(GVariant) statistics = NULL;
	g_autoptr(GVariant) stats_reply = NULL;
	GVariantIter iter, *patterns;
	const char *name, *domain, *pattern;
	guint64 subbuf_size;
	guint32 num_subbuf;
	GVariant *settings;

	g_print("Tracing session %s: [%s%s]\n", tc_dbus_session_get_name(session),
		tc_dbus_session_get_state(session),
		tc_dbus_session_get_snapshot(session) ? ", snapshot" : "");
	print_output(session);
	if (tc_dbus_session_get_problem(session) && *tc_dbus_session_get_problem(session))
		g_print("    Problem: %s\n", tc_dbus_session_get_problem(session));
	g_print("    Owner uid: %u\n\n", tc_dbus_session_get_owner_uid(session));
	g_print("=== Domain: User space ===\n\nChannels:\n");
	if (channels == NULL || g_variant_n_children(channels) == 0) {
		g_print("  (none yet: 'channel0' is created by the first enable-event or "
			"start)\n");
		return TC_EXIT_OK;
	}
	/* Statistics are best effort: a listing works without them. */
	stats_reply = tc_client_call(session, "ChannelStatistics", NULL, NULL);
	if (stats_reply)
		statistics = g_variant_get_child_value(stats_reply, 0);
	g_variant_iter_init(&iter, channels);
	while (g_variant_iter_next(&iter, "(&s&stuas@a{sv})", &name, &domain, &subbuf_size,
				   &num_subbuf, &patterns, &settings)) {
		g_print("- %s:\n", name);
		g_print("    Sub-buffer size: %" G_GUINT64_FORMAT " bytes\n", subbuf_size);
		g_print("    Number of sub-buffers: %u\n", num_subbuf);
		print_channel_settings(settings);
		print_channel_statistics(statistics, name);
		g_variant_unref(settings);
		g_print("    Enabled events:\n");
		if (g_variant_iter_n_children(patterns) == 0)
			g_print("      (none)\n");
		while (g_variant_iter_next(patterns, "&s", &pattern))
			g_print("      %s\n", pattern);
		g_variant_iter_free(patterns);
	}
	return TC_EXIT_OK;
}

static int
list_kernel(gboolean syscalls)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(TcDbusManager) manager = tc_client_manager(&error);
	g_autoptr(GVariant) reply = NULL;
	g_autofree const char **events = NULL;

	if (manager)
		reply = tc_client_call(manager, "ListKernelEvents", g_variant_new("(b)", syscalls),
				       &error);
	if (reply == NULL)
		return tc_client_fail(error);
	g_variant_get(reply, "(^a&s)", &events);
	g_print("Kernel %s:\n", syscalls ? "system calls" : "events");
	for (guint i = 0; events[i]; i++)
		g_print("      %s\n", events[i]);
	return TC_EXIT_OK;
}

int
tc_cmd_list(int argc, char **argv)
{
	gboolean userspace = FALSE, kernel = FALSE, syscall = FALSE;
	const GOptionEntry entries[] = {
		{"userspace", 'u', 0, G_OPTION_ARG_NONE, &userspace,
		 "List your registered applications and their events", NULL},
		{"kernel", 'k', 0, G_OPTION_ARG_NONE, &kernel, "List kernel events", NULL},
		{"syscall", 0, 0, G_OPTION_ARG_NONE, &syscall, "With -k: list system calls", NULL},
		{NULL},
	};
	g_autoptr(GOptionContext) context = g_option_context_new("[NAME]");
	g_autoptr(GError) error = NULL;
	g_autoptr(TcDbusManager) manager = NULL;
	g_autoptr(TcDbusSession) session = NULL;
	int status;

	g_option_context_set_summary(context, "Without arguments, list your sessions; with "
					      "NAME, show that session; with -u, list your "
					      "instrumented applications.");
	g_option_context_add_main_entries(context, entries, NULL);
	if (!tc_client_parse(context, &argc, &argv, &status))
		return status;
	if (kernel)
		return list_kernel(syscall);
	if (argc > 2 || (userspace && argc > 1)) {
		g_printerr("Error: too many arguments (try 'tracectl list --help')\n");
		return TC_EXIT_USAGE;
	}
	if (argc == 2) {
		session = tc_client_session(argv[1], &error);
		return session ? tc_client_print_session(session) : tc_client_fail(error);
	}
	manager = tc_client_manager(&error);
	if (manager == NULL)
		return tc_client_fail(error);
	return userspace ? list_applications(manager) : list_sessions(manager);
}
