/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracectl list            your sessions ('*' marks the current one)
 * tracectl list NAME       a session's channels and events
 * tracectl list -u         your registered applications and their events
 * tracectl list -p|-j|-l   your processes' agents and their loggers
 * tracectl list NAME -p|-j|-l   the session's rules of an agent's loggers
 */
#include <unistd.h>

#include "tc-client.h"
#include "tc-kernel-lttng-name.h"

static void
print_sessions_text(GVariant *reply, const char *current)
{
	g_autoptr(GVariantIter) iter = NULL;
	const char *path, *name, *state, *output;
	guint32 owner;
	guint n = 0;

	g_variant_get(reply, "(a(osuss))", &iter);
	if (g_variant_iter_n_children(iter) == 0) {
		g_print("No tracing sessions.\n");
		return;
	}
	g_print("Tracing sessions:\n");
	while (g_variant_iter_next(iter, "(&o&su&s&s)", &path, &name, &owner, &state, &output)) {
		gboolean is_current =
		    current && g_str_equal(current, name) && owner == tc_client_caller_uid();

		g_print("  %u) %s [%s] (%s) uid %u%s\n", ++n, name, state, output, owner,
			is_current ? " *" : "");
	}
}

/* {"sessions": [{"name", "path", "owner_uid", "state", "output_directory",
 * "current"}]} from a ListSessions reply (docs/json.md). */
static JsonNode *
sessions_json(GVariant *reply, const char *current)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();
	g_autoptr(GVariantIter) iter = NULL;
	const char *path, *name, *state, *output;
	guint32 owner;

	g_variant_get(reply, "(a(osuss))", &iter);
	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "sessions");
	json_builder_begin_array(builder);
	while (g_variant_iter_next(iter, "(&o&su&s&s)", &path, &name, &owner, &state, &output)) {
		json_builder_begin_object(builder);
		tc_client_output_member_string(builder, "name", name);
		tc_client_output_member_string(builder, "path", path);
		tc_client_output_member_int(builder, "owner_uid", owner);
		tc_client_output_member_string(builder, "state", state);
		tc_client_output_member_string(builder, "output_directory", output);
		tc_client_output_member_bool(builder, "current",
					     current && g_str_equal(current, name) &&
						     owner == tc_client_caller_uid());
		json_builder_end_object(builder);
	}
	json_builder_end_array(builder);
	json_builder_end_object(builder);
	return json_builder_get_root(builder);
}

static int
list_sessions(TcClientManager *manager)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GVariant) reply = tc_client_call(manager, "ListSessions", NULL, &error);
	g_autofree char *current = tc_client_current_session();

	if (reply == NULL)
		return tc_client_fail(error);
	if (tc_client_output_is_json()) {
		g_autoptr(JsonNode) node = sessions_json(reply, current);

		tc_client_output_print_json(node);
	} else {
		print_sessions_text(reply, current);
	}
	return TC_EXIT_OK;
}

/* Which protocol an application speaks, from its tracer version
 * (ListApplications): LTTng-UST's are "lttng-ust MAJOR.MINOR". */
static const char *
application_kind(const char *version)
{
	return g_str_has_prefix(version, "lttng-ust ") ? "lttng-ust" : "tracectl";
}

static void
print_events(GVariantIter *events)
{
	const char *name, *fields;
	gint32 loglevel;

	while (g_variant_iter_next(events, "(&si&s)", &name, &loglevel, &fields))
		g_print("      %s (loglevel: %d) (fields: %s)\n", name, loglevel, fields);
}

/* pid -> GPtrArray of "name (type)" pairs as two strings each, from
 * ListAppContexts' reply (NULL: an older service, none). */
static GHashTable *
app_contexts_by_pid(GVariant *reply)
{
	GHashTable *by_pid = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
						   (GDestroyNotify)g_ptr_array_unref);
	g_autoptr(GVariantIter) iter = NULL;
	const char *name, *type;
	gint32 pid;

	if (reply == NULL)
		return by_pid;
	g_variant_get(reply, "(a(iuss))", &iter);
	while (g_variant_iter_next(iter, "(iu&s&s)", &pid, NULL, &name, &type)) {
		GPtrArray *contexts = g_hash_table_lookup(by_pid, GINT_TO_POINTER(pid));

		if (contexts == NULL) {
			contexts = g_ptr_array_new_with_free_func(g_free);
			g_hash_table_insert(by_pid, GINT_TO_POINTER(pid), contexts);
		}
		g_ptr_array_add(contexts, g_strdup(name));
		g_ptr_array_add(contexts, g_strdup(type));
	}
	return by_pid;
}

static void
print_app_contexts(const GPtrArray *contexts)
{
	if (contexts == NULL)
		return;
	g_print("    Application contexts:\n");
	for (guint i = 0; i + 1 < contexts->len; i += 2)
		g_print("      %s (%s)\n", (const char *)g_ptr_array_index(contexts, i),
			(const char *)g_ptr_array_index(contexts, i + 1));
}

static void
print_applications_text(GVariant *reply, GHashTable *app_contexts)
{
	g_autoptr(GVariantIter) iter = NULL;
	GVariantIter *events;
	const char *procname, *version;
	gint32 pid;
	guint32 uid;

	g_variant_get(reply, "(a(iussa(sis)))", &iter);
	g_print("User-space applications:\n");
	while (g_variant_iter_next(iter, "(iu&s&sa(sis))", &pid, &uid, &procname, &version,
				   &events)) {
		g_print("\nPID: %d - Name: %s - UID: %u - Tracer: %s - Kind: %s\n", pid, procname,
			uid, version, application_kind(version));
		print_events(events);
		g_variant_iter_free(events);
		print_app_contexts(g_hash_table_lookup(app_contexts, GINT_TO_POINTER(pid)));
	}
}

static void
add_app_contexts_json(JsonBuilder *builder, const GPtrArray *contexts)
{
	json_builder_begin_array(builder);
	for (guint i = 0; contexts && i + 1 < contexts->len; i += 2) {
		json_builder_begin_object(builder);
		tc_client_output_member_string(builder, "name", g_ptr_array_index(contexts, i));
		tc_client_output_member_string(builder, "type",
					       g_ptr_array_index(contexts, i + 1));
		json_builder_end_object(builder);
	}
	json_builder_end_array(builder);
}

static void
add_events_json(JsonBuilder *builder, GVariantIter *events)
{
	const char *name, *fields;
	gint32 loglevel;

	json_builder_begin_array(builder);
	while (g_variant_iter_next(events, "(&si&s)", &name, &loglevel, &fields)) {
		json_builder_begin_object(builder);
		tc_client_output_member_string(builder, "name", name);
		tc_client_output_member_int(builder, "log_level", loglevel);
		tc_client_output_member_string(builder, "fields", fields);
		json_builder_end_object(builder);
	}
	json_builder_end_array(builder);
}

/* {"applications": [{"pid", "uid", "process_name", "tracer_version",
 * "kind", "events": [{"name", "log_level", "fields"}],
 * "app_contexts": [{"name", "type"}]}]} from ListApplications and
 * ListAppContexts. */
static JsonNode *
applications_json(GVariant *reply, GHashTable *app_contexts)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();
	g_autoptr(GVariantIter) iter = NULL;
	GVariantIter *events;
	const char *procname, *version;
	gint32 pid;
	guint32 uid;

	g_variant_get(reply, "(a(iussa(sis)))", &iter);
	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "applications");
	json_builder_begin_array(builder);
	while (g_variant_iter_next(iter, "(iu&s&sa(sis))", &pid, &uid, &procname, &version,
				   &events)) {
		json_builder_begin_object(builder);
		tc_client_output_member_int(builder, "pid", pid);
		tc_client_output_member_int(builder, "uid", uid);
		tc_client_output_member_string(builder, "process_name", procname);
		tc_client_output_member_string(builder, "tracer_version", version);
		tc_client_output_member_string(builder, "kind", application_kind(version));
		json_builder_set_member_name(builder, "events");
		add_events_json(builder, events);
		g_variant_iter_free(events);
		json_builder_set_member_name(builder, "app_contexts");
		add_app_contexts_json(builder,
				      g_hash_table_lookup(app_contexts, GINT_TO_POINTER(pid)));
		json_builder_end_object(builder);
	}
	json_builder_end_array(builder);
	json_builder_end_object(builder);
	return json_builder_get_root(builder);
}

static int
list_applications(TcClientManager *manager)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GVariant) reply = tc_client_call(manager, "ListApplications", NULL, &error);
	g_autoptr(GVariant) contexts_reply = NULL;
	g_autoptr(GHashTable) app_contexts = NULL;

	if (reply == NULL)
		return tc_client_fail(error);
	/* A service older than ListAppContexts lists no application
	 * contexts: none are shown. */
	contexts_reply = tc_client_call(manager, "ListAppContexts", NULL, &error);
	if (contexts_reply == NULL &&
	    !g_error_matches(error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD))
		return tc_client_fail(error);
	g_clear_error(&error);
	app_contexts = app_contexts_by_pid(contexts_reply);
	if (tc_client_output_is_json()) {
		g_autoptr(JsonNode) node = applications_json(reply, app_contexts);

		tc_client_output_print_json(node);
	} else {
		print_applications_text(reply, app_contexts);
	}
	return TC_EXIT_OK;
}

/* "python events (Logger name):" then each agent's process and loggers,
 * as lttng list --python shows them, with its uid. */
static void
print_agents_text(GVariant *reply, const char *domain)
{
	g_autoptr(GVariantIter) iter = NULL;
	g_autofree const char **loggers = NULL;
	const char *agent_domain, *procname;
	gint32 pid;
	guint32 uid;

	g_variant_get(reply, "(a(siusas))", &iter);
	g_print("%s events (Logger name):\n-------------------------\n", domain);
	if (g_variant_iter_n_children(iter) == 0)
		g_print("None\n");
	while (g_variant_iter_next(iter, "(&siu&s^a&s)", &agent_domain, &pid, &uid, &procname,
				   &loggers)) {
		g_print("\nPID: %d - Name: %s - UID: %u\n", pid, procname, uid);
		for (guint i = 0; loggers[i]; i++)
			g_print("      - %s\n", loggers[i]);
		g_clear_pointer(&loggers, g_free);
	}
	g_print("\n");
}

/* {"agents": [{"domain", "pid", "uid", "process_name", "loggers"}]}
 * from ListAgents. */
static JsonNode *
agents_json(GVariant *reply)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();
	g_autoptr(GVariantIter) iter = NULL;
	g_autofree const char **loggers = NULL;
	const char *domain, *procname;
	gint32 pid;
	guint32 uid;

	g_variant_get(reply, "(a(siusas))", &iter);
	json_builder_begin_object(builder);
	json_builder_set_member_name(builder, "agents");
	json_builder_begin_array(builder);
	while (g_variant_iter_next(iter, "(&siu&s^a&s)", &domain, &pid, &uid, &procname,
				   &loggers)) {
		json_builder_begin_object(builder);
		tc_client_output_member_string(builder, "domain", domain);
		tc_client_output_member_int(builder, "pid", pid);
		tc_client_output_member_int(builder, "uid", uid);
		tc_client_output_member_string(builder, "process_name", procname);
		tc_client_output_member_strv(builder, "loggers", loggers);
		json_builder_end_object(builder);
		g_clear_pointer(&loggers, g_free);
	}
	json_builder_end_array(builder);
	json_builder_end_object(builder);
	return json_builder_get_root(builder);
}

static int
list_agents(TcClientManager *manager, const char *domain)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GVariant) reply =
		tc_client_call(manager, "ListAgents", g_variant_new("(s)", domain), &error);

	if (reply == NULL)
		return tc_client_fail(error);
	if (tc_client_output_is_json()) {
		g_autoptr(JsonNode) node = agents_json(reply);

		tc_client_output_print_json(node);
	} else {
		print_agents_text(reply, domain);
	}
	return TC_EXIT_OK;
}

static void
print_channel_settings(GVariant *settings)
{
	gboolean overwrite = FALSE, enabled = TRUE;
	guint32 switch_us = 0, read_us = 0, monitor_us = 0;
	g_autofree const char **contexts = NULL, **lttng_ust_only = NULL;

	g_variant_lookup(settings, "overwrite", "b", &overwrite);
	g_variant_lookup(settings, "switch-timer", "u", &switch_us);
	g_variant_lookup(settings, "read-timer", "u", &read_us);
	g_variant_lookup(settings, "monitor-timer", "u", &monitor_us);
	g_variant_lookup(settings, "contexts", "^a&s", &contexts);
	g_variant_lookup(settings, "lttng-ust-only-contexts", "^a&s", &lttng_ust_only);
	g_variant_lookup(settings, "enabled", "b", &enabled);
	if (!enabled)
		g_print("    Disabled: its events are not recorded (enable-channel enables it)\n");
	g_print("    Mode: %s\n", overwrite ? "overwrite" : "discard");
	g_print("    Timers (us): switch %u, read %u, monitor %u\n", switch_us, read_us,
		monitor_us);
	if (contexts && contexts[0]) {
		g_autofree char *joined = g_strjoinv(", ", (char **)contexts);

		g_print("    Contexts: %s\n", joined);
	}
	if (lttng_ust_only && lttng_ust_only[0]) {
		g_autofree char *joined = g_strjoinv(", ", (char **)lttng_ust_only);

		g_print("      recorded by LTTng-UST applications only (not tracectl's own): %s\n",
			joined);
	}
}

/* The statistics of one channel, from a ChannelStatistics reply. */
static void
print_channel_statistics(GVariant *statistics, const char *channel_domain, const char *channel)
{
	const char *domain, *name;
	guint64 size, used, peak, discarded, packets;
	GVariantIter iter;

	if (statistics == NULL)
		return;
	g_variant_iter_init(&iter, statistics);
	while (g_variant_iter_next(&iter, "(&s&sttttt)", &domain, &name, &size, &used, &peak,
				   &discarded, &packets)) {
		if (!g_str_equal(name, channel) || !g_str_equal(domain, channel_domain))
			continue;
		if (g_str_equal(domain, "kernel") && size == 0)
			g_print("    Buffers: the kernel's default, %" G_GUINT64_FORMAT
				" bytes not read yet\n", used);
		else if (g_str_equal(domain, "kernel"))
			g_print("    Buffers: %" G_GUINT64_FORMAT " bytes, %" G_GUINT64_FORMAT
				" not read yet\n", size, used);
		else
			g_print("    Buffers: %" G_GUINT64_FORMAT " bytes, %" G_GUINT64_FORMAT
				" in use at the last sample (peak %" G_GUINT64_FORMAT ")\n",
				size, used, peak);
		g_print("    Events discarded: %" G_GUINT64_FORMAT ", packets written: %"
			G_GUINT64_FORMAT "\n", discarded, packets);
	}
}

/* A kernel channel's settings: buffer size, contexts, probes. */
static void
print_kernel_settings(GVariant *settings)
{
	g_autofree const char **contexts = NULL;
	g_autofree const char **probes = NULL;
	guint32 buffer_kb = 0;

	g_variant_lookup(settings, "buffer-kb-per-cpu", "u", &buffer_kb);
	g_variant_lookup(settings, "contexts", "^a&s", &contexts);
	g_variant_lookup(settings, "probes", "^a&s", &probes);
	if (buffer_kb)
		g_print("    Buffer per CPU: %u KiB\n", buffer_kb);
	else
		g_print("    Buffer per CPU: the kernel's default\n");
	if (contexts && contexts[0]) {
		g_autofree char *joined = g_strjoinv(", ", (char **)contexts);

		g_print("    Contexts: %s\n", joined);
	}
	for (guint i = 0; probes && probes[i]; i++)
		g_print("    Probe: %s\n", probes[i]);
}

/* The channels of domain; FALSE when it has none. */
static gboolean
print_channels(GVariant *channels, GVariant *statistics, const char *wanted)
{
	const char *name, *domain;
	guint64 subbuf_size;
	guint32 num_subbuf;
	GVariantIter iter;
	GVariant *patterns, *settings;
	gboolean any = FALSE;

	g_variant_iter_init(&iter, channels);
	while (g_variant_iter_next(&iter, "(&s&stu@as@a{sv})", &name, &domain, &subbuf_size,
				   &num_subbuf, &patterns, &settings)) {
		gboolean kernel = g_str_equal(domain, "kernel");

		if (g_str_equal(domain, wanted)) {
			any = TRUE;
			g_print("- %s:\n", name);
			if (!kernel || num_subbuf) {
				g_print("    Sub-buffer size: %" G_GUINT64_FORMAT " bytes\n",
					subbuf_size);
				g_print("    Number of sub-buffers: %u\n", num_subbuf);
			}
			if (kernel)
				print_kernel_settings(settings);
			else
				print_channel_settings(settings);
			print_channel_statistics(statistics, domain, name);
			g_print("    Enabled events:\n");
			tc_client_print_enablings(domain, patterns, settings);
		}
		g_variant_unref(patterns);
		g_variant_unref(settings);
	}
	return any;
}

/* A streamed session shows its relay URL, a local one its directory. */
static void
print_output(TcClientSession *session)
{
	const char *url = tc_client_session_get_output_url(session);
	guint32 live_timer_us = tc_client_session_get_live_timer(session);

	if (url == NULL || !g_str_has_prefix(url, "net")) {
		g_print("    Trace output: %s\n", tc_client_session_get_output_directory(session));
		return;
	}
	g_print("    Trace output: %s (host %s)\n", url,
		tc_client_session_get_trace_hostname(session));
	if (live_timer_us)
		g_print("    Live timer interval: %u us\n", live_timer_us);
}

static void
print_session_text(TcClientSession *session, GVariant *statistics)
{
	GVariant *channels = tc_client_session_get_channels(session);

	g_print("Tracing session %s: [%s%s]\n", tc_client_session_get_name(session),
		tc_client_session_get_state(session),
		tc_client_session_get_snapshot(session) ? ", snapshot" : "");
	print_output(session);
	tc_client_print_rotation(session);
	if (tc_client_session_get_problem(session) && *tc_client_session_get_problem(session))
		g_print("    Problem: %s\n", tc_client_session_get_problem(session));
	g_print("    Owner uid: %u\n\n", tc_client_session_get_owner_uid(session));
	g_print("=== Domain: User space ===\n\n");
	if (channels)
		tc_client_print_buffering(channels);
	tc_client_print_tracking(session, "ust");
	g_print("Channels:\n");
	if (channels == NULL || !print_channels(channels, statistics, "ust"))
		g_print("  (none yet: 'channel0' is created by the first enable-event or "
			"start)\n");
	if (channels == NULL)
		return;
	/* The kernel domain, when the session has one. */
	for (gsize i = 0; i < g_variant_n_children(channels); i++) {
		g_autoptr(GVariant) channel = g_variant_get_child_value(channels, i);
		const char *domain = NULL;

		g_variant_get_child(channel, 1, "&s", &domain);
		if (g_str_equal(domain, "kernel")) {
			g_print("\n=== Domain: Kernel ===\n\n");
			tc_client_print_tracking(session, "kernel");
			g_print("Channels:\n");
			print_channels(channels, statistics, "kernel");
			break;
		}
	}
	for (const char *const *agent = tc_client_agent_domains; *agent; agent++)
		tc_client_print_agent_rules(*agent, channels);
}

int
tc_client_print_session(TcClientSession *session, GVariant *statistics)
{
	GVariant *channels = tc_client_session_get_channels(session);

	/* Statistics of no channel are none. */
	if (channels == NULL || g_variant_n_children(channels) == 0)
		statistics = NULL;
	if (tc_client_output_is_json()) {
		g_autoptr(JsonNode) node = tc_client_session_json(session, statistics);

		tc_client_output_print_json(node);
	} else {
		print_session_text(session, statistics);
	}
	return TC_EXIT_OK;
}

/* The name enable-event -k takes for each of events ("system:event"), as
 * the service looks it up (tc-kernel-event-name.h): LTTng's where
 * lttng-modules has the event ("sched_switch", "kmem_kmalloc"), else the
 * event's own, or "system:event" itself when another event has that name
 * too. NULL-terminated, g_strfreev(). */
static char **
kernel_event_names(const char *const *events)
{
	g_autoptr(GHashTable) counts = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	guint n = g_strv_length((char **)events);
	char **names = g_new0(char *, n + 1);

	for (guint i = 0; i < n; i++) {
		g_auto(GStrv) parts = g_strsplit(events[i], ":", 2);
		char lttng[512];

		if (!parts[0] || !parts[1]) {
			names[i] = g_strdup(events[i]);
			continue;
		}
		names[i] = tc_kernel_lttng_name_of(parts[0], parts[1], lttng, sizeof(lttng))
				   ? g_strdup(lttng)
				   : g_strdup(parts[1]);
		g_hash_table_insert(counts, g_strdup(names[i]),
				    GUINT_TO_POINTER(GPOINTER_TO_UINT(
							     g_hash_table_lookup(counts, names[i])) +
						     1));
	}
	for (guint i = 0; i < n; i++)
		if (GPOINTER_TO_UINT(g_hash_table_lookup(counts, names[i])) > 1) {
			g_free(names[i]);
			names[i] = g_strdup(events[i]);
		}
	return names;
}

/* {"syscalls": bool, "events": [string], "names": [string]} from
 * ListKernelEvents: names[i] is what enable-event -k takes for events[i]. */
static JsonNode *
kernel_events_json(const char *const *events, const char *const *names, gboolean syscalls)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();

	json_builder_begin_object(builder);
	tc_client_output_member_bool(builder, "syscalls", syscalls);
	tc_client_output_member_strv(builder, "events", events);
	tc_client_output_member_strv(builder, "names", names);
	json_builder_end_object(builder);
	return json_builder_get_root(builder);
}

static int
list_kernel(gboolean syscalls)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(TcClientManager) manager = tc_client_manager(&error);
	g_autoptr(GVariant) reply = NULL;
	g_autofree const char **events = NULL;
	g_auto(GStrv) names = NULL;

	if (manager)
		reply = tc_client_call(manager, "ListKernelEvents", g_variant_new("(b)", syscalls),
				       &error);
	if (reply == NULL)
		return tc_client_fail(error);
	g_variant_get(reply, "(^a&s)", &events);
	/* System calls are listed by name already, as --syscall takes them. */
	names = syscalls ? g_strdupv((char **)events) : kernel_event_names(events);
	if (tc_client_output_is_json()) {
		g_autoptr(JsonNode) node =
		    kernel_events_json(events, (const char *const *)names, syscalls);

		tc_client_output_print_json(node);
		return TC_EXIT_OK;
	}
	if (syscalls) {
		g_print("Kernel system calls:\n");
		for (guint i = 0; events[i]; i++)
			g_print("      %s\n", events[i]);
		return TC_EXIT_OK;
	}
	/* LTTng's spelling first, as lttng list -k shows it, then tracefs'. */
	g_print("Kernel events (the name enable-event -k takes, then tracefs' system:event):\n");
	for (guint i = 0; events[i]; i++)
		if (g_str_equal(names[i], events[i]))
			g_print("      %s\n", events[i]);
		else
			g_print("      %s (%s)\n", names[i], events[i]);
	return TC_EXIT_OK;
}

int
tc_cmd_list(int argc, char **argv)
{
	gboolean userspace = FALSE, kernel = FALSE, syscall = FALSE, domains = FALSE;
	gboolean python = FALSE, jul = FALSE, log4j = FALSE;
	const char *domain;
	g_autofree char *channel = NULL;
	const GOptionEntry entries[] = {
		{"userspace", 'u', 0, G_OPTION_ARG_NONE, &userspace,
		 "List your registered applications and their events", NULL},
		{"kernel", 'k', 0, G_OPTION_ARG_NONE, &kernel, "List kernel events", NULL},
		{"syscall", 0, 0, G_OPTION_ARG_NONE, &syscall, "With -k: list system calls", NULL},
		{"python", 'p', 0, G_OPTION_ARG_NONE, &python,
		 "List your processes' Python logging agents and their loggers", NULL},
		{"jul", 'j', 0, G_OPTION_ARG_NONE, &jul,
		 "List your processes' java.util.logging agents and their loggers", NULL},
		{"log4j", 'l', 0, G_OPTION_ARG_NONE, &log4j,
		 "List your processes' log4j agents and their loggers", NULL},
		{"channel", 'c', 0, G_OPTION_ARG_STRING, &channel,
		 "With NAME: show only this channel", "CHANNEL"},
		{"domain", 'd', 0, G_OPTION_ARG_NONE, &domains,
		 "With NAME: list the session's domains", NULL},
		{NULL},
	};
	g_autoptr(GOptionContext) context = g_option_context_new("[NAME]");
	g_autoptr(GError) error = NULL;
	g_autoptr(TcClientManager) manager = NULL;
	g_autoptr(TcClientSession) session = NULL;
	g_autoptr(GVariant) statistics = NULL;
	int status;

	g_option_context_set_summary(context, "Without arguments, list your sessions; with "
					      "NAME, show that session; with -u, list your "
					      "instrumented applications; with -p, -j or -l, "
					      "your processes' agents and their loggers. With "
					      "NAME, -u, -k, -p, -j or -l shows one domain, "
					      "--channel one channel, --domain the session's "
					      "domains.");
	g_option_context_add_main_entries(context, entries, NULL);
	if (!tc_client_parse(context, &argc, &argv, &status))
		return status;
	if (userspace + kernel + python + jul + log4j > 1) {
		g_printerr("Error: give at most one of -u, -k, -p, -j, -l\n");
		return TC_EXIT_USAGE;
	}
	domain = kernel	     ? "kernel"
		 : userspace ? "ust"
		 : python    ? "python"
		 : jul	     ? "jul"
		 : log4j     ? "log4j"
			     : NULL;
	/* A domain, -c and -d with NAME pick part of the session (list-session.c). */
	if (argc == 2 && (domain || channel || domains) && !syscall)
		return tc_client_list_session_part(argv[1], domain, channel, domains);
	if (channel || domains) {
		g_printerr("Error: --channel and --domain need a session NAME\n");
		return TC_EXIT_USAGE;
	}
	if (kernel)
		return list_kernel(syscall);
	if (argc > 2 || (domain && argc > 1)) {
		g_printerr("Error: too many arguments (try 'tracectl list --help')\n");
		return TC_EXIT_USAGE;
	}
	if (argc == 2) {
		session = tc_client_session_describe(argv[1], &statistics, &error);
		return session ? tc_client_print_session(session, statistics)
			       : tc_client_fail(error);
	}
	manager = tc_client_manager(&error);
	if (manager == NULL)
		return tc_client_fail(error);
	if (domain)
		return userspace ? list_applications(manager) : list_agents(manager, domain);
	return list_sessions(manager);
}
