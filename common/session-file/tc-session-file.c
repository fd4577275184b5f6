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

const char *
tc_session_file_ssh_url(const char *control_uri)
{
	return control_uri && g_str_has_prefix(control_uri, "net+ssh://") ? control_uri : NULL;
}

gboolean
tc_session_file_relay_uris(const char *url, char **control, char **data)
{
	gboolean v6 = g_str_has_prefix(url, "net6://");
	const char *rest;
	const char *data_colon, *ctrl_colon;
	g_autofree char *head = NULL;

	if (tc_session_file_ssh_url(url)) {
		*control = g_strdup(url);
		*data = g_strdup(url);
		return TRUE;
	}
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
	if (tc_session_file_ssh_url(output->control_url))
		return g_strdup(output->control_url);
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

/* The agents' domains. */

typedef struct {
	const char *domain, *type, *channel;
} AgentNames;

static const AgentNames agent_names[] = {
	[TC_FILE_AGENT_JUL] = {"jul", "JUL", "lttng_jul_channel"},
	[TC_FILE_AGENT_LOG4J] = {"log4j", "LOG4J", "lttng_log4j_channel"},
	[TC_FILE_AGENT_PYTHON] = {"python", "PYTHON", "lttng_python_channel"},
};

const char *
tc_session_file_agent_domain(TcFileAgent agent)
{
	return agent_names[agent].domain;
}

const char *
tc_session_file_agent_type(TcFileAgent agent)
{
	return agent_names[agent].type;
}

const char *
tc_session_file_agent_channel(TcFileAgent agent)
{
	return agent_names[agent].channel;
}

TcFileAgent
tc_session_file_agent_from_domain(const char *domain)
{
	for (guint i = TC_FILE_AGENT_JUL; i < G_N_ELEMENTS(agent_names); i++)
		if (g_str_equal(domain, agent_names[i].domain))
			return i;
	return TC_FILE_AGENT_NONE;
}

TcFileAgent
tc_session_file_agent_from_type(const char *type)
{
	for (guint i = TC_FILE_AGENT_JUL; i < G_N_ELEMENTS(agent_names); i++)
		if (g_str_equal(type, agent_names[i].type))
			return i;
	return TC_FILE_AGENT_NONE;
}

TcFileChannel *
tc_file_channel_new_agent(TcFileAgent agent)
{
	TcFileChannel *channel = tc_file_channel_new(agent_names[agent].channel, FALSE);

	channel->agent = agent;
	channel->subbuf_size = 524288;
	channel->num_subbuf = 4;
	channel->monitor_timer_us = 1000000;
	return channel;
}

/* What lttng adds after the caller's filter, for event. */
static char *
agent_filter_suffix(const TcFileEvent *event, gboolean *has_logger)
{
	GString *suffix = g_string_new(NULL);

	*has_logger = !g_str_equal(event->pattern, "*");
	if (*has_logger)
		g_string_append_printf(suffix, ") && (logger_name == \"%s\")", event->pattern);
	if (event->has_loglevel)
		g_string_append_printf(suffix, ") && (int_loglevel %s %d)",
				       event->loglevel_only ? "==" : ">=", event->loglevel);
	return g_string_free(suffix, FALSE);
}

/* Whether text is a whole expression as far as its parentheses go: they
 * pair up outside string literals, so that cutting lttng's wrapping off
 * "(a) && (b)" never leaves "a) && (b". */
static gboolean
parentheses_balanced(const char *text)
{
	int depth = 0;

	for (const char *c = text; *c; c++) {
		if (*c == '"') {
			for (c++; *c && *c != '"'; c++)
				if (*c == '\\' && c[1])
					c++;
			if (!*c)
				return FALSE;
		} else if (*c == '(') {
			depth++;
		} else if (*c == ')' && --depth < 0) {
			return FALSE;
		}
	}
	return depth == 0;
}

/* What lttng builds when the caller gave no filter; NULL when none. */
static char *
agent_filter_alone(const TcFileEvent *event, gboolean has_logger)
{
	g_autofree char *logger =
		has_logger ? g_strdup_printf("logger_name == \"%s\"", event->pattern) : NULL;
	g_autofree char *level =
		event->has_loglevel ? g_strdup_printf("int_loglevel %s %d",
						      event->loglevel_only ? "==" : ">=",
						      event->loglevel)
				    : NULL;

	if (logger && level)
		return g_strdup_printf("(%s) && (%s)", logger, level);
	return g_strdup(logger ? logger : level);
}

/* filter without lttng's wrapping (prefix, suffix), or NULL when it is
 * not so wrapped. */
static char *
agent_filter_unwrap(const char *filter, const char *prefix, const char *suffix)
{
	gsize length = strlen(filter), outer = strlen(prefix) + strlen(suffix);
	g_autofree char *inner = NULL;

	if (length <= outer || !g_str_has_prefix(filter, prefix) ||
	    !g_str_has_suffix(filter, suffix))
		return NULL;
	inner = g_strndup(filter + strlen(prefix), length - outer);
	return parentheses_balanced(inner) ? g_steal_pointer(&inner) : NULL;
}

char *
tc_session_file_agent_filter(const TcFileEvent *event)
{
	gboolean has_logger;
	g_autofree char *suffix = agent_filter_suffix(event, &has_logger);
	g_autofree char *alone = agent_filter_alone(event, has_logger);
	/* One "(" per part lttng added after the caller's filter. */
	g_autofree char *prefix = g_strnfill(has_logger + (event->has_loglevel ? 1 : 0), '(');
	char *filter = g_strdup(event->filter);

	/* lttng load wraps a saved filter again: a file saved after a load
	 * has it twice. */
	while (filter && alone) {
		char *inner;

		if (g_str_equal(filter, alone)) {
			g_free(filter);
			return NULL;
		}
		inner = agent_filter_unwrap(filter, prefix, suffix);
		if (inner == NULL)
			break;
		g_free(filter);
		filter = inner;
	}
	return filter;
}
