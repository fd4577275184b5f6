/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The session file parser and writer: lttng's files read, tracectl's own
 * read back unchanged, and hostile or unsupported files refused by name. */
#include "tc-session-file.h"

#include <gio/gio.h>

#include "tc-perf-counter.h"

static GPtrArray *
parse(const char *text, GError **error)
{
	return tc_session_file_parse(text, strlen(text), error);
}

static void
assert_refused(const char *text, const char *expected)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) sessions = parse(text, &error);

	g_assert_null(sessions);
	g_assert_nonnull(error);
	if (!strstr(error->message, expected))
		g_error("'%s' does not name '%s'", error->message, expected);
}

static void
test_lttng_file(void)
{
	g_autofree char *path = g_test_build_filename(G_TEST_DIST, "lttng-saved.lttng", NULL);
	g_autofree char *text = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) sessions = NULL;
	TcFileSession *session;
	TcFileChannel *channel;
	TcFileEvent *event;
	TcFileTracker *tracker;

	g_assert_true(g_file_get_contents(path, &text, NULL, &error));
	sessions = parse(text, &error);
	g_assert_no_error(error);
	g_assert_cmpuint(sessions->len, ==, 1);
	session = g_ptr_array_index(sessions, 0);
	g_assert_cmpstr(session->name, ==, "s1");
	g_assert_cmpstr(session->path, ==, "/tmp/out");
	g_assert_cmpuint(session->rotation_timer_us, ==, 10000000);
	g_assert_cmpuint(session->channels->len, ==, 1);
	channel = g_ptr_array_index(session->channels, 0);
	g_assert_cmpstr(channel->name, ==, "ch1");
	g_assert_true(channel->overwrite);
	g_assert_cmpuint(channel->subbuf_size, ==, 65536);
	g_assert_cmpuint(channel->num_subbuf, ==, 8);
	g_assert_cmpuint(channel->switch_timer_us, ==, 100000);
	g_assert_cmpuint(channel->read_timer_us, ==, 200000);
	g_assert_cmpuint(channel->monitor_timer_us, ==, 500000);
	g_assert_cmpuint(channel->contexts->len, ==, 2);
	g_assert_cmpstr(g_ptr_array_index(channel->contexts, 0), ==, "vpid");
	g_assert_cmpstr(g_ptr_array_index(channel->contexts, 1), ==, "procname");
	g_assert_cmpuint(channel->events->len, ==, 2);
	event = g_ptr_array_index(channel->events, 0);
	g_assert_cmpstr(event->pattern, ==, "myapp:*");
	g_assert_cmpint(event->loglevel, ==, 6);
	g_assert_false(event->loglevel_only);
	g_assert_cmpstr(event->filter, ==, "intfield > 100 && strfield == \"x*\"");
	g_assert_cmpuint(g_strv_length(event->exclusions), ==, 2);
	event = g_ptr_array_index(channel->events, 1);
	g_assert_cmpint(event->loglevel, ==, 14);
	g_assert_true(event->loglevel_only);
	g_assert_cmpuint(session->trackers->len, ==, 1);
	tracker = g_ptr_array_index(session->trackers, 0);
	g_assert_cmpstr(tracker->kind, ==, "vpid");
	g_assert_cmpuint(tracker->values->len, ==, 2);
}

static void
test_round_trip(void)
{
	g_autofree char *path = g_test_build_filename(G_TEST_DIST, "lttng-saved.lttng", NULL);
	g_autofree char *text = NULL, *first = NULL, *second = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) sessions = NULL, again = NULL;
	TcFileSession *session;
	TcFileChannel *kernel;
	TcFileEvent *event;

	g_assert_true(g_file_get_contents(path, &text, NULL, &error));
	sessions = parse(text, &error);
	g_assert_no_error(error);
	session = g_ptr_array_index(sessions, 0);
	kernel = tc_file_channel_new("channel0", TRUE);
	g_ptr_array_add(kernel->contexts, g_strdup("prio"));
	g_ptr_array_add(kernel->events, tc_file_event_new("sched:sched_switch",
							  TC_FILE_EVENT_TRACEPOINT));
	g_ptr_array_add(kernel->events, tc_file_event_new("openat", TC_FILE_EVENT_SYSCALL));
	event = tc_file_event_new("myprobe", TC_FILE_EVENT_KPROBE);
	event->location = g_strdup("do_sys_open+0x10");
	g_ptr_array_add(kernel->events, event);
	event = tc_file_event_new("myuprobe", TC_FILE_EVENT_UPROBE);
	event->location = g_strdup("/usr/bin/true:main");
	g_ptr_array_add(kernel->events, event);
	event = tc_file_event_new("mysdt", TC_FILE_EVENT_UPROBE);
	event->location = g_strdup("sdt:/usr/bin/app:example:all_types");
	g_ptr_array_add(kernel->events, event);
	g_ptr_array_add(session->channels, kernel);
	g_ptr_array_add(session->trackers, tc_file_tracker_new(TRUE, "pid"));
	session->rotation_size = 1 << 20;
	first = tc_session_file_write(sessions);
	again = parse(first, &error);
	g_assert_no_error(error);
	second = tc_session_file_write(again);
	g_assert_cmpstr(first, ==, second);
	g_assert_nonnull(strstr(first, "<symbol_name>do_sys_open</symbol_name>"));
	g_assert_nonnull(strstr(first, "<offset>16</offset>"));
	/* An SDT probe as LTTng writes one. */
	g_assert_nonnull(strstr(first, "<userspace_probe_tracepoint_attributes>"));
	g_assert_nonnull(strstr(first, "<lookup_method>SDT</lookup_method>"));
	g_assert_nonnull(strstr(first, "<provider_name>example</provider_name>"));
	g_assert_nonnull(strstr(first, "<probe_name>all_types</probe_name>"));
	g_assert_nonnull(strstr(first, "&amp;&amp;"));
}

static void
test_snapshot_round_trip(void)
{
	g_autoptr(GPtrArray) sessions =
		g_ptr_array_new_with_free_func((GDestroyNotify)tc_file_session_free);
	g_autoptr(GPtrArray) again = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree char *first = NULL, *second = NULL;
	TcFileSession *session = tc_file_session_new("snap");
	TcFileSnapshotOutput *output = g_new0(TcFileSnapshotOutput, 1);

	session->snapshot = TRUE;
	session->path = g_strdup("/tmp/snap");
	output->name = g_strdup("extra");
	output->path = g_strdup("/tmp/extra");
	output->max_size = 1 << 20;
	g_ptr_array_add(session->snapshot_outputs, output);
	g_ptr_array_add(sessions, session);
	first = tc_session_file_write(sessions);
	again = parse(first, &error);
	g_assert_no_error(error);
	session = g_ptr_array_index(again, 0);
	g_assert_cmpstr(session->path, ==, "/tmp/snap");
	g_assert_cmpuint(session->snapshot_outputs->len, ==, 1);
	second = tc_session_file_write(again);
	g_assert_cmpstr(first, ==, second);
}

/* As lttng save writes a snapshot session created with a relay URL and
 * given a second relay output: both relays come back as relays, the
 * second as the URL AddSnapshotOutput takes. */
static void
test_snapshot_relay_outputs(void)
{
	static const char text[] =
		"<?xml version=\"1.0\"?>\n<sessions><session><name>snap</name>"
		"<attributes><snapshot_mode>true</snapshot_mode></attributes><output>"
		"<snapshot_outputs><output><name>snapshot-1</name><max_size>0</max_size>"
		"<consumer_output><enabled>true</enabled><destination><net_output>"
		"<control_uri>tcp4://127.0.0.1:5342/</control_uri>"
		"<data_uri>tcp4://127.0.0.1:5343/</data_uri>"
		"</net_output></destination></consumer_output></output>"
		"<output><name>central</name><max_size>4096</max_size>"
		"<consumer_output><enabled>true</enabled><destination><net_output>"
		"<control_uri>tcp6://[::1]:6342/</control_uri>"
		"<data_uri>tcp6://[::1]:6343/</data_uri>"
		"</net_output></destination></consumer_output></output>"
		"</snapshot_outputs></output></session></sessions>";
	g_autoptr(GPtrArray) sessions = NULL;
	g_autoptr(GPtrArray) again = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree char *written = NULL, *url = NULL;
	TcFileSnapshotOutput *output;
	TcFileSession *session;

	sessions = parse(text, &error);
	g_assert_no_error(error);
	session = g_ptr_array_index(sessions, 0);
	g_assert_null(session->path);
	g_assert_cmpstr(session->control_url, ==, "tcp4://127.0.0.1:5342/");
	g_assert_cmpstr(session->data_url, ==, "tcp4://127.0.0.1:5343/");
	g_assert_cmpuint(session->snapshot_outputs->len, ==, 1);
	output = g_ptr_array_index(session->snapshot_outputs, 0);
	g_assert_null(output->path);
	url = tc_session_file_snapshot_output_url(output, &error);
	g_assert_no_error(error);
	g_assert_cmpstr(url, ==, "net6://[::1]:6342:6343");
	written = tc_session_file_write(sessions);
	again = parse(written, &error);
	g_assert_no_error(error);
	session = g_ptr_array_index(again, 0);
	g_assert_cmpstr(session->control_url, ==, "tcp4://127.0.0.1:5342/");
	output = g_ptr_array_index(session->snapshot_outputs, 0);
	g_assert_cmpstr(output->data_url, ==, "tcp6://[::1]:6343/");
	g_assert_cmpuint(output->max_size, ==, 4096);

	/* One relay per output: a data URI elsewhere cannot be said as net://. */
	g_free(output->data_url);
	output->data_url = g_strdup("tcp6://[::2]:6343/");
	g_assert_null(tc_session_file_snapshot_output_url(output, &error));
	g_assert_error(error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
}

/* A relay reached through SSH is one URL, which LTTng's URIs cannot say:
 * saved in both, read back as the URL a session's set-url takes, for the
 * session and its snapshot outputs; two different ones are refused. */
static void
test_ssh_relay(void)
{
	static const char url[] = "net+ssh://tracer@relay.example.org:2222/5342:5343";
	g_autoptr(TcFileSession) session = tc_file_session_new("far");
	TcFileSnapshotOutput *output = g_new0(TcFileSnapshotOutput, 1);
	g_autoptr(GPtrArray) sessions = g_ptr_array_new();
	g_autoptr(GPtrArray) again = NULL;
	g_autoptr(GError) error = NULL;
	g_autofree char *written = NULL, *snapshot_url = NULL, *other = NULL;
	g_autofree char *control = NULL, *data = NULL;
	TcFileSession *read;

	g_assert_true(tc_session_file_relay_uris(url, &control, &data));
	g_assert_cmpstr(control, ==, url);
	g_assert_cmpstr(data, ==, url);
	g_assert_null(tc_session_file_ssh_url("tcp4://relay:5342/"));
	/* A snapshot session: its own relay is its first output, and it
	 * keeps the outputs added to it. */
	session->snapshot = TRUE;
	session->control_url = g_steal_pointer(&control);
	session->data_url = g_steal_pointer(&data);
	output->name = g_strdup("far-snapshots");
	g_assert_true(tc_session_file_relay_uris(url, &output->control_url, &output->data_url));
	g_ptr_array_add(session->snapshot_outputs, output);
	g_ptr_array_add(sessions, session);
	written = tc_session_file_write(sessions);
	again = parse(written, &error);
	g_assert_no_error(error);
	read = g_ptr_array_index(again, 0);
	g_assert_cmpstr(tc_session_file_ssh_url(read->control_url), ==, url);
	snapshot_url = tc_session_file_snapshot_output_url(
	    g_ptr_array_index(read->snapshot_outputs, 0), &error);
	g_assert_no_error(error);
	g_assert_cmpstr(snapshot_url, ==, url);

	other = g_strdup(written);
	memcpy(strstr(strstr(other, "<data_uri>"), "tracer"), "tracex", 6);
	g_clear_pointer(&again, g_ptr_array_unref);
	again = parse(other, &error);
	g_assert_error(error, TC_SESSION_FILE_ERROR, TC_SESSION_FILE_ERROR_INVALID);
	g_assert_nonnull(strstr(error->message, "a net+ssh:// relay is one URL"));
}

/* The agent channel of session, or NULL. */
static TcFileChannel *
agent_channel(TcFileSession *session, TcFileAgent agent)
{
	for (guint i = 0; i < session->channels->len; i++) {
		TcFileChannel *channel = g_ptr_array_index(session->channels, i);

		if (channel->agent == agent)
			return channel;
	}
	return NULL;
}

static void
assert_agent_event(TcFileChannel *channel, guint i, const char *logger, gboolean has_loglevel,
		   int loglevel, gboolean only, const char *filter)
{
	TcFileEvent *event = g_ptr_array_index(channel->events, i);

	g_assert_cmpstr(event->pattern, ==, logger);
	g_assert_cmpint(event->has_loglevel, ==, has_loglevel);
	if (has_loglevel) {
		g_assert_cmpint(event->loglevel, ==, loglevel);
		g_assert_cmpint(event->loglevel_only, ==, only);
	}
	g_assert_cmpstr(event->filter, ==, filter);
}

/* lttng's file with the three agents' domains: their loggers, with the
 * filter lttng built taken back to the caller's; written back as lttng
 * writes them, and read again the same. */
static void
test_lttng_agents(void)
{
	g_autofree char *path =
		g_test_build_filename(G_TEST_DIST, "lttng-saved-agents.lttng", NULL);
	g_autofree char *text = NULL, *first = NULL, *second = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) sessions = NULL, again = NULL;
	TcFileSession *session;
	TcFileChannel *python, *jul, *log4j;

	g_assert_true(g_file_get_contents(path, &text, NULL, &error));
	sessions = parse(text, &error);
	g_assert_no_error(error);
	session = g_ptr_array_index(sessions, 0);
	g_assert_cmpuint(session->channels->len, ==, 3);
	python = agent_channel(session, TC_FILE_AGENT_PYTHON);
	jul = agent_channel(session, TC_FILE_AGENT_JUL);
	log4j = agent_channel(session, TC_FILE_AGENT_LOG4J);
	g_assert_nonnull(python);
	g_assert_cmpstr(python->name, ==, "lttng_python_channel");
	g_assert_false(python->kernel);
	g_assert_cmpuint(python->events->len, ==, 3);
	assert_agent_event(python, 0, "other", FALSE, 0, FALSE, "msg == \"x\"");
	assert_agent_event(python, 1, "app.*", TRUE, 40, TRUE, NULL);
	assert_agent_event(python, 2, "foo", TRUE, 30, FALSE, NULL);
	g_assert_cmpuint(jul->events->len, ==, 1);
	assert_agent_event(jul, 0, "bar", FALSE, 0, FALSE, NULL);
	g_assert_cmpuint(log4j->events->len, ==, 1);
	assert_agent_event(log4j, 0, "baz", TRUE, 30000, FALSE, NULL);
	first = tc_session_file_write(sessions);
	g_assert_nonnull(strstr(first, "<type>PYTHON</type>\n\t\t\t\t<buffer_type>PER_UID"));
	g_assert_nonnull(strstr(first, "<name>lttng_log4j_channel</name>"));
	g_assert_nonnull(strstr(first, "<loglevel_type>SINGLE</loglevel_type>\n"
				       "\t\t\t\t\t\t\t\t<loglevel>40</loglevel>"));
	/* No level: lttng writes no <loglevel> for an agent's logger. */
	g_assert_nonnull(strstr(first, "<name>bar</name>\n\t\t\t\t\t\t\t\t<enabled>true</enabled>\n"
				       "\t\t\t\t\t\t\t\t<type>TRACEPOINT</type>\n"
				       "\t\t\t\t\t\t\t\t<loglevel_type>ALL</loglevel_type>\n"
				       "\t\t\t\t\t\t\t</event>"));
	again = parse(first, &error);
	g_assert_no_error(error);
	second = tc_session_file_write(again);
	g_assert_cmpstr(first, ==, second);
}

/* lttng's file of a session with per-PID buffers (lttng enable-channel
 * --buffers-pid), which it writes in the agents' empty domains too:
 * read as such, and written back as lttng writes it. */
static void
test_lttng_per_pid(void)
{
	g_autofree char *path =
		g_test_build_filename(G_TEST_DIST, "lttng-saved-per-pid.lttng", NULL);
	g_autofree char *text = NULL, *first = NULL, *second = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) sessions = NULL, again = NULL;
	TcFileSession *session;

	g_assert_true(g_file_get_contents(path, &text, NULL, &error));
	sessions = parse(text, &error);
	g_assert_no_error(error);
	session = g_ptr_array_index(sessions, 0);
	g_assert_true(session->ust_per_pid);
	g_assert_cmpuint(session->channels->len, ==, 2);
	first = tc_session_file_write(sessions);
	g_assert_nonnull(strstr(first, "<type>UST</type>\n\t\t\t\t<buffer_type>PER_PID"));
	g_assert_null(strstr(first, "PER_UID"));
	again = parse(first, &error);
	g_assert_no_error(error);
	g_assert_true(((TcFileSession *)g_ptr_array_index(again, 0))->ust_per_pid);
	second = tc_session_file_write(again);
	g_assert_cmpstr(first, ==, second);

	/* The default, per-UID, stays so. */
	((TcFileSession *)g_ptr_array_index(again, 0))->ust_per_pid = FALSE;
	g_free(second);
	second = tc_session_file_write(again);
	g_assert_null(strstr(second, "PER_PID"));
}

/* The <perf> elements of a file, "type/config/name" each, in order. */
static GPtrArray *
perf_elements(const char *text)
{
	GPtrArray *found = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GRegex) regex = g_regex_new("<perf>\\s*<type>(\\d+)</type>\\s*<config>(\\d+)"
					      "</config>\\s*<name>([^<]*)</name>\\s*</perf>",
					      0, 0, NULL);
	g_autoptr(GMatchInfo) match = NULL;

	g_regex_match(regex, text, 0, &match);
	for (; g_match_info_matches(match); g_match_info_next(match, NULL)) {
		g_autofree char *type = g_match_info_fetch(match, 1);
		g_autofree char *config = g_match_info_fetch(match, 2);
		g_autofree char *name = g_match_info_fetch(match, 3);

		g_ptr_array_add(found, g_strdup_printf("%s/%s/%s", type, config, name));
	}
	return found;
}

/* lttng's file of a channel with ip and every perf:thread: counter of
 * `lttng add-context --list`, and two raw ones (lttng 2.13 saved it): each
 * read as its spelling, in order, and written back as the same <perf>
 * elements (type, config, field name). */
static void
test_lttng_contexts(void)
{
	g_autofree char *path =
		g_test_build_filename(G_TEST_DIST, "lttng-saved-contexts.lttng", NULL);
	g_autofree char *text = NULL, *first = NULL, *second = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) sessions = NULL, again = NULL, theirs = NULL, ours = NULL;
	TcFileChannel *channel;
	const char *name;
	guint i = 0;

	g_assert_true(g_file_get_contents(path, &text, NULL, &error));
	sessions = parse(text, &error);
	g_assert_no_error(error);
	channel = g_ptr_array_index(((TcFileSession *)g_ptr_array_index(sessions, 0))->channels, 0);
	g_assert_cmpuint(channel->contexts->len, ==, 2 + 53 + 2);
	g_assert_cmpstr(g_ptr_array_index(channel->contexts, i++), ==, "vpid");
	g_assert_cmpstr(g_ptr_array_index(channel->contexts, i++), ==, "ip");
	for (guint k = 0; (name = tc_perf_counter_known_name(k)) != NULL; k++) {
		g_autofree char *spelling = g_strconcat("perf:thread:", name, NULL);

		g_assert_cmpstr(g_ptr_array_index(channel->contexts, i++), ==, spelling);
	}
	g_assert_cmpuint(i, ==, 2 + 53);
	g_assert_cmpstr(g_ptr_array_index(channel->contexts, i++), ==, "perf:thread:raw:r0110:foo");
	/* The name's '-' is '_' in the field, and so in its spelling read back. */
	g_assert_cmpstr(g_ptr_array_index(channel->contexts, i++), ==,
			"perf:thread:raw:rC0:insns_retired");

	first = tc_session_file_write(sessions);
	g_assert_nonnull(strstr(first, "<context>\n\t\t\t\t\t\t\t\t<type>IP</type>"));
	theirs = perf_elements(text);
	ours = perf_elements(first);
	g_assert_cmpuint(theirs->len, ==, 55);
	g_assert_cmpuint(ours->len, ==, theirs->len);
	for (i = 0; i < theirs->len; i++)
		g_assert_cmpstr(g_ptr_array_index(ours, i), ==, g_ptr_array_index(theirs, i));
	again = parse(first, &error);
	g_assert_no_error(error);
	second = tc_session_file_write(again);
	g_assert_cmpstr(first, ==, second);
}

/* The filter lttng built, taken back to the caller's: once or twice
 * wrapped (lttng load wraps a saved one again), and left whole when
 * cutting would leave unpaired parentheses. */
static void
test_agent_filters(void)
{
	static const struct {
		const char *logger;
		int loglevel; /* -1: none */
		gboolean only;
		const char *saved, *caller;
	} cases[] = {
		{"foo", -1, FALSE, "logger_name == \"foo\"", NULL},
		{"foo", 30, FALSE, "(logger_name == \"foo\") && (int_loglevel >= 30)", NULL},
		{"foo", 30, TRUE, "((a > 1) && (logger_name == \"foo\")) && (int_loglevel == 30)",
		 "a > 1"},
		{"foo", -1, FALSE, "(msg == \")(\") && (logger_name == \"foo\")", "msg == \")(\""},
		{"foo", 30, FALSE,
		 "(((logger_name == \"foo\") && (int_loglevel >= 30)) && (logger_name == \"foo\"))"
		 " && (int_loglevel >= 30)",
		 NULL},
		{"*", 20, FALSE, "int_loglevel >= 20", NULL},
		{"*", 20, FALSE, "(b) && (int_loglevel >= 20)", "b"},
		{"*", -1, FALSE, "(a) && (b)", "(a) && (b)"},
		{"foo", -1, FALSE, "(a) && (b) && (logger_name == \"foo\")",
		 "(a) && (b) && (logger_name == \"foo\")"},
		{"foo", -1, FALSE, "x == 1", "x == 1"},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(TcFileSession) session = tc_file_session_new("s");
		TcFileChannel *channel = tc_file_channel_new_agent(TC_FILE_AGENT_PYTHON);
		TcFileEvent *event = tc_file_event_new(cases[i].logger, TC_FILE_EVENT_TRACEPOINT);
		g_autofree char *caller = NULL;

		g_ptr_array_add(session->channels, channel);
		g_ptr_array_add(channel->events, event);

		event->has_loglevel = cases[i].loglevel >= 0;
		event->loglevel = cases[i].loglevel;
		event->loglevel_only = cases[i].only;
		event->filter = g_strdup(cases[i].saved);
		caller = tc_session_file_agent_filter(event);
		g_assert_cmpstr(caller, ==, cases[i].caller);
	}
}

#define HEAD "<?xml version=\"1.0\"?>\n<sessions><session><name>s</name>"
#define TAIL "</session></sessions>"
#define UST_CHANNEL(body)                                                                     \
	HEAD "<domains><domain><type>UST</type><buffer_type>PER_UID</buffer_type><channels>"  \
	     "<channel><name>c</name><read_timer_interval>0</read_timer_interval>"           \
	     "<output_type>MMAP</output_type>" body "</channel></channels></domain></domains>" TAIL

#define AGENT_CHANNEL(body)                                                                   \
	HEAD "<domains><domain><type>PYTHON</type><buffer_type>PER_UID</buffer_type><channels>" \
	     "<channel><name>lttng_python_channel</name>" body "</channel></channels></domain>" \
	     "</domains>" TAIL

/* An application context as lttng save writes it (<app>, its
 * provider_name and ctx_name): read as $app.PROVIDER:NAME, written back
 * the same; one without its name refused. */
static void
test_app_contexts(void)
{
	static const char text[] = UST_CHANNEL(
	    "<contexts><context><type>VTID</type></context><context><app>"
	    "<provider_name>myprov</provider_name><ctx_name>request_id</ctx_name></app>"
	    "</context></contexts>");
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) sessions = parse(text, &error), again = NULL;
	g_autofree char *first = NULL, *second = NULL;
	TcFileChannel *channel;

	g_assert_no_error(error);
	channel = g_ptr_array_index(((TcFileSession *)g_ptr_array_index(sessions, 0))->channels, 0);
	g_assert_cmpuint(channel->contexts->len, ==, 2);
	g_assert_cmpstr(g_ptr_array_index(channel->contexts, 0), ==, "vtid");
	g_assert_cmpstr(g_ptr_array_index(channel->contexts, 1), ==, "$app.myprov:request_id");
	first = tc_session_file_write(sessions);
	g_assert_nonnull(strstr(first, "<app>\n\t\t\t\t\t\t\t\t\t<provider_name>myprov"
				       "</provider_name>\n\t\t\t\t\t\t\t\t\t<ctx_name>"
				       "request_id</ctx_name>\n\t\t\t\t\t\t\t\t</app>"));
	again = parse(first, &error);
	g_assert_no_error(error);
	second = tc_session_file_write(again);
	g_assert_cmpstr(first, ==, second);

	assert_refused(UST_CHANNEL("<contexts><context><app><provider_name>p</provider_name>"
				   "</app></context></contexts>"),
		       "an application context needs its provider_name and ctx_name");
	assert_refused(UST_CHANNEL("<contexts><context><app><provider_name>p</provider_name>"
				   "<ctx_name>n</ctx_name><x/></app></context></contexts>"),
		       "not allowed here");
}

static void
test_refusals(void)
{
	assert_refused("<sessions><session>", "malformed XML");
	assert_refused("<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [<!ENTITY lol \"lol\">"
		       "<!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">]>"
		       "<sessions><session><name>&lol2;</name></session></sessions>",
		       "DOCTYPE");
	assert_refused(HEAD "<domains><domain><type>JUL</type><buffer_type>PER_UID</buffer_type>"
			    "<channels><channel><name>c</name></channel></channels></domain>"
			    "</domains>" TAIL,
		       "/sessions/session/domains/domain/channels/channel (line 2): the JUL "
		       "domain's channel is lttng_jul_channel, not 'c'");
	assert_refused(AGENT_CHANNEL("<enabled>false</enabled>"),
		       "channel (line 2): tracectl records the PYTHON domain in channel0");
	assert_refused(AGENT_CHANNEL("<events><event><name>a</name><exclusions><exclusion>b"
				     "</exclusion></exclusions></event></events>"),
		       "event (line 2): LTTng's agents have no exclusions");
	assert_refused(AGENT_CHANNEL("<events><event><name>a</name><loglevel_type>RANGE"
				     "</loglevel_type></event></events>"),
		       "loglevel_type (line 2): RANGE needs a loglevel");
	assert_refused(AGENT_CHANNEL("<contexts><context><type>VPID</type></context></contexts>"),
		       "the PYTHON domain has no contexts of its own");
	assert_refused(HEAD "<domains><domain><type>PYTHON</type><buffer_type>GLOBAL"
			    "</buffer_type></domain></domains>" TAIL,
		       "GLOBAL buffers are not supported by tracectl in the PYTHON domain");
	assert_refused(HEAD "<domains><domain><type>UST</type><buffer_type>GLOBAL</buffer_type>"
			    "</domain></domains>" TAIL,
		       "domain/buffer_type (line 2): GLOBAL buffers");
	assert_refused(HEAD "<domains><domain><type>KERNEL</type><buffer_type>PER_PID"
			    "</buffer_type></domain></domains>" TAIL,
		       "PER_PID buffers are not supported by tracectl in the kernel domain");
	assert_refused(UST_CHANNEL("<tracefile_size>1024</tracefile_size>"),
		       "channel/tracefile_size (line 2): tracectl has no trace file size");
	assert_refused(UST_CHANNEL("<contexts><context><type>VPID</type></context>"
				   "<context><type>PRIO</type></context></contexts>"),
		       "contexts/context[2]/type (line 2): context 'PRIO'");
	assert_refused(UST_CHANNEL("<contexts><context><perf><type>0</type><config>99</config>"
				   "<name>perf_thread_cpu_cycles</name></perf></context></contexts>"),
		       "perf (line 2): perf counter 'perf_thread_cpu_cycles' (type 0, config 99) "
		       "is no perf:thread: counter tracectl knows");
	assert_refused(UST_CHANNEL("<contexts><context><perf><type>4</type><config>272</config>"
				   "<name>perf_thread_raw_r0111_foo</name></perf></context>"
				   "</contexts>"),
		       "is no perf:thread: counter tracectl knows");
	assert_refused(UST_CHANNEL("<contexts><context><perf><type>1</type>"
				   "<name>perf_thread_task_clock</name></perf></context></contexts>"),
		       "perf (line 2): a perf counter needs its type, config and name");
	assert_refused(UST_CHANNEL("<contexts><context><perf><type>1</type><config>1</config>"
				   "<name>perf_thread_task_clock</name><x/></perf></context>"
				   "</contexts>"),
		       "perf/x (line 2): not allowed here");
	assert_refused(UST_CHANNEL("<events><event><name>a:b</name><type>SYSCALL</type>"
				   "</event></events>"),
		       "event/type (line 2)");
	assert_refused(UST_CHANNEL("<bogus>1</bogus>"), "channel/bogus (line 2): not allowed");
	assert_refused(HEAD "<shared_memory_path>/dev/shm/x</shared_memory_path>" TAIL,
		       "shared_memory_path");
	assert_refused(HEAD "<name>t</name>" TAIL, "element given twice");
	assert_refused("<other/>", "the root element must be <sessions>");
}

#define UST_TRACKERS(body)                                                                         \
	HEAD "<domains><domain><type>UST</type><buffer_type>PER_UID</buffer_type>"                 \
	     "<process_attr_trackers>" body "</process_attr_trackers></domain></domains>" TAIL

/* Element names and values that once crashed the parser or were taken
 * unchecked: refused by name, with the line apart. */
static void
test_hostile_values(void)
{
	static const char *const short_names[] = {"pid", "p", "vpid_tracker",
						  "_process_attr_tracker", "process_attr_trackerx"};
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) sessions = NULL;

	for (guint i = 0; i < G_N_ELEMENTS(short_names); i++) {
		g_autofree char *body = g_strdup_printf("<%s/>", short_names[i]);
		g_autofree char *file = g_strdup_printf(UST_TRACKERS("%s"), body);
		g_autofree char *expected = g_strdup_printf(
		    "process_attr_trackers/%s (line 2): not allowed here", short_names[i]);

		assert_refused(file, expected);
	}
	/* Nothing may follow a tracker's values. */
	assert_refused(
	    UST_TRACKERS("<vpid_process_attr_tracker><process_attr_values><vpid><id>1"
			 "</id></vpid></process_attr_values><x/></vpid_process_attr_tracker>"),
	    "vpid_process_attr_tracker/x (line 2): not allowed here");
	assert_refused(HEAD "<domains><domain><type>KERNEL</type><buffer_type>GLOBAL</buffer_type>"
			    "<channels><channel><name>channel0</name><events><event><name>k</name>"
			    "<type>KPROBE</type><attributes><probe_attributes>"
			    "<address>18446744073709551615</address><offset>1</offset>"
			    "</probe_attributes></attributes></event></events></channel></channels>"
			    "</domain></domains>" TAIL,
		       "probe_attributes (line 2): the address and the offset add up past 2^64");

	/* A symbol that looks like a location would be written back as
	 * another probe. */
	assert_refused(HEAD "<domains><domain><type>KERNEL</type><buffer_type>GLOBAL</buffer_type>"
			    "<channels><channel><name>channel0</name><events><event><name>k</name>"
			    "<type>KPROBE</type><attributes><probe_attributes>"
			    "<symbol_name>+o_sys_open</symbol_name><offset>16</offset>"
			    "</probe_attributes></attributes></event></events></channel></channels>"
			    "</domain></domains>" TAIL,
		       "probe_attributes (line 2): '+o_sys_open' is not a symbol name");

	/* The line is given apart, from the parser and from libxml2. */
	sessions = parse(HEAD "\n\n<bogus/>" TAIL, &error);
	g_assert_null(sessions);
	g_assert_error(error, TC_SESSION_FILE_ERROR, TC_SESSION_FILE_ERROR_INVALID);
	g_assert_cmpint(tc_session_file_error_line(error), ==, 4);
	g_clear_error(&error);
	sessions = parse("<sessions>\n<session>\n</sessions>", &error);
	g_assert_null(sessions);
	g_assert_error(error, TC_SESSION_FILE_ERROR, TC_SESSION_FILE_ERROR_INVALID);
	g_assert_cmpint(tc_session_file_error_line(error), ==, 3);
}

static void
test_oversize(void)
{
	g_autoptr(GString) big = g_string_new(HEAD "<domains>");
	g_autoptr(GString) many = g_string_new(HEAD "<domains>");

	while (big->len <= TC_SESSION_FILE_MAX_BYTES)
		g_string_append(big, "<!-- padding padding padding padding padding -->\n");
	g_string_append(big, "</domains>" TAIL);
	assert_refused(big->str, "more than the 1048576 allowed");
	for (guint i = 0; i <= TC_SESSION_FILE_MAX_ELEMENTS; i++)
		g_string_append(many, "<domain/>");
	g_string_append(many, "</domains>" TAIL);
	assert_refused(many->str, "more than 20000 elements");
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/session-file/lttng", test_lttng_file);
	g_test_add_func("/session-file/lttng-agents", test_lttng_agents);
	g_test_add_func("/session-file/lttng-per-pid", test_lttng_per_pid);
	g_test_add_func("/session-file/lttng-contexts", test_lttng_contexts);
	g_test_add_func("/session-file/app-contexts", test_app_contexts);
	g_test_add_func("/session-file/agent-filters", test_agent_filters);
	g_test_add_func("/session-file/round-trip", test_round_trip);
	g_test_add_func("/session-file/snapshot", test_snapshot_round_trip);
	g_test_add_func("/session-file/snapshot-relays", test_snapshot_relay_outputs);
	g_test_add_func("/session-file/ssh-relay", test_ssh_relay);
	g_test_add_func("/session-file/refusals", test_refusals);
	g_test_add_func("/session-file/hostile-values", test_hostile_values);
	g_test_add_func("/session-file/oversize", test_oversize);
	return g_test_run();
}
