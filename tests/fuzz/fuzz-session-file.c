/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes LTTng's session configuration file as tracectl reads it: the
 * bytes go to tc_session_file_parse(), the entry point of `tracectl load`
 * and of the service's auto-loading, which any user reaches with a file
 * in their own ~/.config/tracectl/sessions. A file it takes is then used
 * as both would use it: its relay URIs turned into URLs, its snapshot
 * outputs into AddSnapshotOutput's argument, its names checked as the
 * service checks them; and it is written back and read again.
 *
 * What must hold whatever the input: no access outside a buffer, no
 * undefined behaviour, no leak (AddressSanitizer, UBSan and LeakSanitizer
 * abort on the first); a refusal is a TC_SESSION_FILE_ERROR (or
 * out of memory) with a message, a file taken has 1 to
 * TC_SESSION_FILE_MAX_SESSIONS sessions, each named; and what tracectl
 * writes of a file it took, it takes again: the same channels in the
 * same domains (the agents' JUL, LOG4J and PYTHON included), as many
 * events, and the agents' loggers with their levels and the caller's
 * filters (lttng's wrapping is taken off once, on the first read).
 *
 * Seeds: tests/fuzz/corpus/fuzz-session-file (files as lttng and tracectl
 * save them, a relay reached through SSH among them, and the shapes of
 * the refusals). Outcomes counted: parsed,
 * refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gio/gio.h>

#include "fuzz-driver.h"
#include "tc-session-file.h"
#include "tc-validate.h"

enum outcome {
	PARSED,
	REFUSED,
	OUTCOMES,
};

/* Named by the standalone driver only. */
static const char *const outcome_names[OUTCOMES] __attribute__((unused)) = {"parsed", "refused"};
static unsigned long long outcomes[OUTCOMES];

static void
check_output_urls(const TcFileSession *session)
{
	for (guint i = 0; i < session->snapshot_outputs->len; i++) {
		const TcFileSnapshotOutput *output =
		    g_ptr_array_index(session->snapshot_outputs, i);
		g_autoptr(GError) error = NULL;
		g_autofree char *url = tc_session_file_snapshot_output_url(output, &error);

		if (!url && !error)
			abort();
		/* tracectl's net+ssh:// relay: one URL in both URIs, given as is. */
		if (tc_session_file_ssh_url(output->control_url) &&
		    (g_strcmp0(output->control_url, output->data_url) != 0 ||
		     g_strcmp0(url, output->control_url) != 0))
			abort();
		if (url && output->control_url) {
			g_autofree char *control = NULL, *data = NULL;

			/* What AddSnapshotOutput gets back as URIs. */
			if (tc_session_file_relay_uris(url, &control, &data) && (!control || !data))
				abort();
		}
	}
	if (tc_session_file_ssh_url(session->control_url) &&
	    g_strcmp0(session->control_url, session->data_url) != 0)
		abort();
	if (session->control_url) {
		g_autofree char *control = tc_session_file_relay_url(session->control_url);
		g_autofree char *data = tc_session_file_relay_url(session->data_url);

		if (!control || !data)
			abort();
	}
}

static void
check_session(const TcFileSession *session)
{
	g_autoptr(GError) error = NULL;

	if (!session->name || !*session->name || strlen(session->name) > 255)
		abort();
	/* The service's own check of what the file names. */
	if (!tc_validate_name("session", session->name, &error) && !error)
		abort();
	check_output_urls(session);
	for (guint i = 0; i < session->channels->len; i++) {
		const TcFileChannel *channel = g_ptr_array_index(session->channels, i);

		if (!channel->name)
			abort();
		for (guint j = 0; j < channel->events->len; j++) {
			const TcFileEvent *event = g_ptr_array_index(channel->events, j);

			if (!event->pattern || !event->exclusions)
				abort();
			g_clear_error(&error);
			if (!tc_validate_pattern(event->pattern, &error) && !error)
				abort();
		}
	}
}

/* An agent's logger keeps its level and its caller's filter: taking
 * lttng's wrapping off is done once and for all when a file is read. XML
 * turns a carriage return into a line feed, so a filter holding one may
 * come back otherwise. */
static void
check_same_agent_event(const TcFileEvent *event, const TcFileEvent *again)
{
	if (event->has_loglevel != again->has_loglevel ||
	    (event->has_loglevel && (event->loglevel != again->loglevel ||
				     event->loglevel_only != again->loglevel_only)))
		abort();
	if ((event->filter == NULL) != (again->filter == NULL))
		abort();
	if (event->filter && !strchr(event->filter, '\r') &&
	    strcmp(event->filter, again->filter) != 0) {
		fprintf(stderr, "agent filter '%s' read back as '%s'\n", event->filter,
			again->filter);
		abort();
	}
}

/* The same channels, of the same domains, with as many events. */
static void
check_same_channels(const TcFileSession *session, const TcFileSession *again)
{
	if (session->channels->len != again->channels->len)
		abort();
	for (guint i = 0; i < session->channels->len; i++) {
		const TcFileChannel *channel = g_ptr_array_index(session->channels, i);
		const TcFileChannel *other = g_ptr_array_index(again->channels, i);

		if (channel->kernel != other->kernel || channel->agent != other->agent ||
		    channel->events->len != other->events->len)
			abort();
		for (guint j = 0; channel->agent && j < channel->events->len; j++)
			check_same_agent_event(g_ptr_array_index(channel->events, j),
					       g_ptr_array_index(other->events, j));
	}
}

/* Channels in the order tracectl writes them: by domain, kernel first,
 * then user space, then the agents' (JUL, log4j, Python). */
static gint
channel_rank(const TcFileChannel *channel)
{
	return channel->kernel ? 0 : channel->agent == TC_FILE_AGENT_NONE ? 1 : 1 + channel->agent;
}

static gint
compare_channels(gconstpointer a, gconstpointer b)
{
	return channel_rank(*(TcFileChannel *const *)a) - channel_rank(*(TcFileChannel *const *)b);
}

/* What tracectl writes of a file it took, it takes again, as many
 * sessions. */
static void
check_round_trip(GPtrArray *sessions)
{
	g_autofree char *written = tc_session_file_write(sessions);
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) again = tc_session_file_parse(written, strlen(written), &error);

	if (!again) {
		fprintf(stderr, "written file refused: %s\n%s\n", error->message, written);
		abort();
	}
	if (again->len != sessions->len)
		abort();
	for (guint i = 0; i < sessions->len; i++) {
		TcFileSession *session = g_ptr_array_index(sessions, i);

		/* Stable: the channels of a domain keep their order. */
		g_ptr_array_sort(session->channels, compare_channels);
		check_same_channels(session, g_ptr_array_index(again, i));
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) sessions = NULL;
	static gboolean started;

	/* A critical (a NULL where the model promises a text) is a finding. */
	if (!started) {
		g_log_set_always_fatal(G_LOG_LEVEL_CRITICAL);
		started = TRUE;
	}
	sessions = tc_session_file_parse((const char *)data, size, &error);
	if (!sessions) {
		if (!error || !error->message ||
		    !(error->domain == TC_SESSION_FILE_ERROR ||
		      g_error_matches(error, G_IO_ERROR, G_IO_ERROR_FAILED)))
			abort();
		outcomes[REFUSED]++;
		return 0;
	}
	if (error || sessions->len == 0 || sessions->len > TC_SESSION_FILE_MAX_SESSIONS)
		abort();
	for (guint i = 0; i < sessions->len; i++)
		check_session(g_ptr_array_index(sessions, i));
	check_round_trip(sessions);
	outcomes[PARSED]++;
	return 0;
}

#ifndef FUZZ_LIBFUZZER
/* No built-in seeds: the suite gives the corpus directory (--seeds). */
const struct fuzz_harness fuzz_harness = {
    .seeds = NULL,
    .nr_seeds = 0,
    .input_max = 16384,
    .outcome_names = outcome_names,
    .outcomes = outcomes,
    .nr_outcomes = OUTCOMES,
};
#endif
