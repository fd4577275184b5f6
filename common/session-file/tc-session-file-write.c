/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * LTTng's session configuration file, written as lttng-save(1) lays it
 * out, so that lttng load and tracectl load both read it (it validates
 * against session.xsd).
 */
#include "tc-session-file.h"

#include <string.h>

#include "tc-perf-counter.h"

static void
indent(GString *out, guint depth)
{
	for (guint i = 0; i < depth; i++)
		g_string_append_c(out, '\t');
}

static void
element(GString *out, guint depth, const char *name, const char *value)
{
	g_autofree char *escaped = g_markup_escape_text(value, -1);

	indent(out, depth);
	g_string_append_printf(out, "<%s>%s</%s>\n", name, escaped, name);
}

static void
element_u64(GString *out, guint depth, const char *name, guint64 value)
{
	indent(out, depth);
	g_string_append_printf(out, "<%s>%" G_GUINT64_FORMAT "</%s>\n", name, value, name);
}

static void
open_tag(GString *out, guint depth, const char *name)
{
	indent(out, depth);
	g_string_append_printf(out, "<%s>\n", name);
}

static void
close_tag(GString *out, guint depth, const char *name)
{
	indent(out, depth);
	g_string_append_printf(out, "</%s>\n", name);
}

static const char *const event_types[] = {
	[TC_FILE_EVENT_TRACEPOINT] = "TRACEPOINT", [TC_FILE_EVENT_SYSCALL] = "SYSCALL",
	[TC_FILE_EVENT_KPROBE] = "KPROBE",	    [TC_FILE_EVENT_KRETPROBE] = "KRETPROBE",
	[TC_FILE_EVENT_UPROBE] = "USERSPACE_PROBE",
};

static void
write_probe_attributes(GString *out, guint depth, const TcFileEvent *event)
{
	open_tag(out, depth, "attributes");
	if (event->type == TC_FILE_EVENT_UPROBE && g_str_has_prefix(event->location, "sdt:")) {
		/* sdt:PATH:PROVIDER:NAME, none of them holding a ':'. */
		g_auto(GStrv) parts = g_strsplit(event->location + 4, ":", 3);

		open_tag(out, depth + 1, "userspace_probe_tracepoint_attributes");
		element(out, depth + 2, "lookup_method", "SDT");
		element(out, depth + 2, "binary_path", parts[0]);
		element(out, depth + 2, "provider_name", parts[0] && parts[1] ? parts[1] : "");
		element(out, depth + 2, "probe_name",
			parts[0] && parts[1] && parts[2] ? parts[2] : "");
		close_tag(out, depth + 1, "userspace_probe_tracepoint_attributes");
	} else if (event->type == TC_FILE_EVENT_UPROBE) {
		const char *colon = strrchr(event->location, ':');
		g_autofree char *path = g_strndup(event->location,
						  colon ? (gsize)(colon - event->location)
							: strlen(event->location));

		open_tag(out, depth + 1, "userspace_probe_function_attributes");
		element(out, depth + 2, "lookup_method", "ELF");
		element(out, depth + 2, "binary_path", path);
		element(out, depth + 2, "function_name", colon ? colon + 1 : "");
		close_tag(out, depth + 1, "userspace_probe_function_attributes");
	} else {
		const char *plus = strchr(event->location, '+');
		g_autofree char *symbol = g_strndup(event->location,
						    plus ? (gsize)(plus - event->location)
							 : strlen(event->location));
		guint64 number = 0;

		open_tag(out, depth + 1, "probe_attributes");
		if (g_str_has_prefix(event->location, "0x")) {
			number = g_ascii_strtoull(event->location + 2, NULL, 16);
			element_u64(out, depth + 2, "address", number);
		} else {
			element(out, depth + 2, "symbol_name", symbol);
			if (plus)
				number = g_ascii_strtoull(plus + 1, NULL, 0);
			element_u64(out, depth + 2, "offset", number);
		}
		close_tag(out, depth + 1, "probe_attributes");
	}
	close_tag(out, depth, "attributes");
}

/* lttng writes an agent's level only when it has one; a user-space
 * event's always, -1 for none. */
static void
write_loglevel(GString *out, guint depth, const TcFileEvent *event, gboolean agent)
{
	gboolean has_loglevel = agent ? event->has_loglevel : event->loglevel >= 0;

	element(out, depth, "loglevel_type",
		!has_loglevel ? "ALL" : event->loglevel_only ? "SINGLE" : "RANGE");
	if (agent && !has_loglevel)
		return;
	indent(out, depth);
	g_string_append_printf(out, "<loglevel>%d</loglevel>\n", event->loglevel);
}

static void
write_event(GString *out, guint depth, const TcFileEvent *event, gboolean agent)
{
	open_tag(out, depth, "event");
	element(out, depth + 1, "name", event->pattern);
	element(out, depth + 1, "enabled", "true");
	element(out, depth + 1, "type", event_types[event->type]);
	write_loglevel(out, depth + 1, event, agent);
	if (event->filter)
		element(out, depth + 1, "filter", event->filter);
	if (event->exclusions[0]) {
		open_tag(out, depth + 1, "exclusions");
		for (guint i = 0; event->exclusions[i]; i++)
			element(out, depth + 2, "exclusion", event->exclusions[i]);
		close_tag(out, depth + 1, "exclusions");
	}
	if (event->location)
		write_probe_attributes(out, depth + 1, event);
	close_tag(out, depth, "event");
}

/* A context as lttng save writes it: its type, a perf:thread:
 * counter's type, config and field name, or an application context's
 * provider and name ($app.PROVIDER:NAME, as the service checked it). */
static void
write_context(GString *out, guint depth, const char *name)
{
	struct tc_perf_counter counter;
	g_autofree char *upper = NULL;
	const char *colon = strchr(name, ':');

	open_tag(out, depth, "context");
	if (tc_perf_counter_parse(name, &counter) == 0) {
		open_tag(out, depth + 1, "perf");
		element_u64(out, depth + 2, "type", counter.type);
		element_u64(out, depth + 2, "config", counter.config);
		element(out, depth + 2, "name", counter.name);
		close_tag(out, depth + 1, "perf");
	} else if (g_str_has_prefix(name, "$app.") && colon != NULL) {
		/* "$app." holds no ':', so the colon comes after it. */
		const char *start = name + strlen("$app.");
		g_autofree char *provider = g_strndup(start, (gsize)(colon - start));

		open_tag(out, depth + 1, "app");
		element(out, depth + 2, "provider_name", provider);
		element(out, depth + 2, "ctx_name", colon + 1);
		close_tag(out, depth + 1, "app");
	} else {
		upper = g_ascii_strup(name, -1);
		element(out, depth + 1, "type", upper);
	}
	close_tag(out, depth, "context");
}

static void
write_channel(GString *out, guint depth, const TcFileChannel *channel, guint32 live_timer_us)
{
	open_tag(out, depth, "channel");
	element(out, depth + 1, "name", channel->name);
	element(out, depth + 1, "enabled", channel->enabled ? "true" : "false");
	element(out, depth + 1, "overwrite_mode", channel->overwrite ? "OVERWRITE" : "DISCARD");
	/* 0: the kernel's default buffers, which the file leaves unsaid. */
	if (channel->subbuf_size)
		element_u64(out, depth + 1, "subbuffer_size", channel->subbuf_size);
	if (channel->num_subbuf)
		element_u64(out, depth + 1, "subbuffer_count", channel->num_subbuf);
	element_u64(out, depth + 1, "switch_timer_interval", channel->switch_timer_us);
	element_u64(out, depth + 1, "read_timer_interval", channel->read_timer_us);
	element(out, depth + 1, "output_type", channel->kernel ? "SPLICE" : "MMAP");
	element(out, depth + 1, "blocking_timeout", "0");
	element_u64(out, depth + 1, "monitor_timer_interval", channel->monitor_timer_us);
	element(out, depth + 1, "tracefile_size", "0");
	element(out, depth + 1, "tracefile_count", "0");
	element_u64(out, depth + 1, "live_timer_interval", live_timer_us);
	open_tag(out, depth + 1, "events");
	for (guint i = 0; i < channel->events->len; i++)
		write_event(out, depth + 2, g_ptr_array_index(channel->events, i),
			    channel->agent != TC_FILE_AGENT_NONE);
	close_tag(out, depth + 1, "events");
	if (channel->contexts->len) {
		open_tag(out, depth + 1, "contexts");
		for (guint i = 0; i < channel->contexts->len; i++)
			write_context(out, depth + 2, g_ptr_array_index(channel->contexts, i));
		close_tag(out, depth + 1, "contexts");
	}
	close_tag(out, depth, "channel");
}

static void
write_trackers(GString *out, guint depth, const TcFileSession *session, gboolean kernel)
{
	gboolean any = FALSE;

	for (guint i = 0; i < session->trackers->len; i++)
		any |= ((TcFileTracker *)g_ptr_array_index(session->trackers, i))->kernel == kernel;
	if (!any)
		return;
	open_tag(out, depth, "process_attr_trackers");
	for (const char *const *kind = tc_file_tracker_kinds; *kind; kind++)
		for (guint i = 0; i < session->trackers->len; i++) {
			const TcFileTracker *tracker = g_ptr_array_index(session->trackers, i);
			g_autofree char *name = g_strdup_printf("%s_process_attr_tracker", *kind);

			if (tracker->kernel != kernel || !g_str_equal(tracker->kind, *kind))
				continue;
			open_tag(out, depth + 1, name);
			open_tag(out, depth + 2, "process_attr_values");
			for (guint j = 0; j < tracker->values->len; j++) {
				open_tag(out, depth + 3, *kind);
				element_u64(out, depth + 4, "id",
					    g_array_index(tracker->values, guint32, j));
				close_tag(out, depth + 3, *kind);
			}
			close_tag(out, depth + 2, "process_attr_values");
			close_tag(out, depth + 1, name);
		}
	close_tag(out, depth, "process_attr_trackers");
}

/* The kernel's, user space's (TC_FILE_AGENT_NONE) or an agent's domain. */
static void
write_domain(GString *out, guint depth, const TcFileSession *session, gboolean kernel,
	     TcFileAgent agent)
{
	open_tag(out, depth, "domain");
	element(out, depth + 1, "type",
		kernel ? "KERNEL" : agent ? tc_session_file_agent_type(agent) : "UST");
	element(out, depth + 1, "buffer_type",
		kernel ? "GLOBAL" : session->ust_per_pid ? "PER_PID" : "PER_UID");
	open_tag(out, depth + 1, "channels");
	for (guint i = 0; i < session->channels->len; i++) {
		const TcFileChannel *channel = g_ptr_array_index(session->channels, i);

		if (channel->kernel == kernel && channel->agent == agent)
			write_channel(out, depth + 2, channel, session->live_timer_us);
	}
	close_tag(out, depth + 1, "channels");
	if (agent == TC_FILE_AGENT_NONE)
		write_trackers(out, depth + 1, session, kernel);
	close_tag(out, depth, "domain");
}

static void
write_consumer_output(GString *out, guint depth, const char *path, const char *control,
		      const char *data)
{
	open_tag(out, depth, "consumer_output");
	element(out, depth + 1, "enabled", "true");
	open_tag(out, depth + 1, "destination");
	if (control) {
		open_tag(out, depth + 2, "net_output");
		element(out, depth + 3, "control_uri", control);
		element(out, depth + 3, "data_uri", data);
		close_tag(out, depth + 2, "net_output");
	} else {
		element(out, depth + 2, "path", path ? path : "");
	}
	close_tag(out, depth + 1, "destination");
	close_tag(out, depth, "consumer_output");
}

static void write_output(GString *out, const TcFileSession *session);

static gboolean
has_agent(const TcFileSession *session, TcFileAgent agent)
{
	for (guint i = 0; i < session->channels->len; i++)
		if (((TcFileChannel *)g_ptr_array_index(session->channels, i))->agent == agent)
			return TRUE;
	return FALSE;
}

static void
write_session(GString *out, const TcFileSession *session)
{
	gboolean has_kernel = FALSE;

	for (guint i = 0; i < session->channels->len; i++)
		has_kernel |= ((TcFileChannel *)g_ptr_array_index(session->channels, i))->kernel;
	for (guint i = 0; i < session->trackers->len; i++)
		has_kernel |= ((TcFileTracker *)g_ptr_array_index(session->trackers, i))->kernel;
	open_tag(out, 1, "session");
	element(out, 2, "name", session->name);
	open_tag(out, 2, "domains");
	if (has_kernel)
		write_domain(out, 3, session, TRUE, TC_FILE_AGENT_NONE);
	write_domain(out, 3, session, FALSE, TC_FILE_AGENT_NONE);
	/* The agents' domains that have loggers, in lttng's order. */
	for (TcFileAgent agent = TC_FILE_AGENT_JUL; agent <= TC_FILE_AGENT_PYTHON; agent++)
		if (has_agent(session, agent))
			write_domain(out, 3, session, FALSE, agent);
	close_tag(out, 2, "domains");
	element(out, 2, "started", session->started ? "true" : "false");
	if (session->snapshot || session->live_timer_us || session->rotation_timer_us ||
	    session->rotation_size) {
		open_tag(out, 2, "attributes");
		if (session->snapshot)
			element(out, 3, "snapshot_mode", "true");
		if (session->live_timer_us)
			element_u64(out, 3, "live_timer_interval", session->live_timer_us);
		if (session->rotation_timer_us || session->rotation_size) {
			open_tag(out, 3, "rotation_schedules");
			if (session->rotation_timer_us) {
				open_tag(out, 4, "periodic");
				element_u64(out, 5, "time_us", session->rotation_timer_us);
				close_tag(out, 4, "periodic");
			}
			if (session->rotation_size) {
				open_tag(out, 4, "size_threshold");
				element_u64(out, 5, "bytes", session->rotation_size);
				close_tag(out, 4, "size_threshold");
			}
			close_tag(out, 3, "rotation_schedules");
		}
		close_tag(out, 2, "attributes");
	}
	/* No output: the owner's default directory, which the file leaves
	 * unsaid as it was read. */
	if (session->path || session->control_url || session->snapshot_outputs->len)
		write_output(out, session);
	close_tag(out, 1, "session");
}

static void
write_output(GString *out, const TcFileSession *session)
{
	open_tag(out, 2, "output");
	if (session->snapshot) {
		/* lttng keeps a snapshot session's directory as its first output. */
		open_tag(out, 3, "snapshot_outputs");
		open_tag(out, 4, "output");
		element(out, 5, "name", "snapshot-1");
		element_u64(out, 5, "max_size", 0);
		write_consumer_output(out, 5, session->path, session->control_url,
				      session->data_url);
		close_tag(out, 4, "output");
		for (guint i = 0; i < session->snapshot_outputs->len; i++) {
			const TcFileSnapshotOutput *output =
				g_ptr_array_index(session->snapshot_outputs, i);

			open_tag(out, 4, "output");
			element(out, 5, "name", output->name);
			element_u64(out, 5, "max_size", output->max_size);
			write_consumer_output(out, 5, output->path, output->control_url,
					      output->data_url);
			close_tag(out, 4, "output");
		}
		close_tag(out, 3, "snapshot_outputs");
	} else {
		write_consumer_output(out, 3, session->path, session->control_url,
				      session->data_url);
	}
	close_tag(out, 2, "output");
}

char *
tc_session_file_write(GPtrArray *sessions)
{
	GString *out = g_string_new("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sessions>\n");

	for (guint i = 0; i < sessions->len; i++)
		write_session(out, g_ptr_array_index(sessions, i));
	g_string_append(out, "</sessions>\n");
	return g_string_free(out, FALSE);
}
