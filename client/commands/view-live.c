/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracectl view --live: babeltrace2's lttng-live source on the relay a
 * live session streams to, net://RELAY:LIVE_PORT/host/HOSTNAME/SESSION.
 * The viewer is told to fail on a session the relay does not know rather
 * than wait for it (session-not-found-action="fail"), and its long error
 * chain is turned into one sentence naming the relay and the session. A
 * session that streams through SSH (net+ssh://) is viewed through a
 * tunnel of the viewer's own (view-live-tunnel.c), at
 * net://127.0.0.1:PORT/host/HOSTNAME/SESSION.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tc-client.h"

/* babeltrace2's messages when the relay has no such session, and when
 * another viewer is attached to it: lttng-relayd 2.13 admits one viewer
 * per session at a time (LTTNG_VIEWER_ATTACH_ALREADY). */
#define NOT_FOUND_MESSAGE "Unable to connect to the requested live viewer session"
#define ALREADY_ATTACHED_MESSAGE "There is already a viewer attached to this session"

/* The host part of "net://HOST:CTRL:DATA" or "net6://[ADDR]:CTRL:DATA",
 * brackets kept. */
static char *
relay_host_of(const char *url)
{
	const char *start = strstr(url, "://");
	const char *end;

	if (start == NULL)
		return NULL;
	start += 3;
	end = *start == '[' ? strchr(start, ']') : strchr(start, ':');
	if (end == NULL)
		return NULL;
	return g_strndup(start, end - start + (*start == '['));
}

/* A relay host that names the machine it is written on: the remote
 * service's own relay, which a viewer here cannot reach by that name. */
static gboolean
is_loopback(const char *host)
{
	g_autofree char *bare = g_strndup(host + (*host == '['), strlen(host) - 2 * (*host == '['));
	g_autoptr(GInetAddress) address = g_inet_address_new_from_string(bare);

	if (address)
		return g_inet_address_get_is_loopback(address) ||
		       g_inet_address_get_is_any(address);
	return g_ascii_strcasecmp(bare, "localhost") == 0 ||
	       g_str_has_suffix(bare, ".localhost") ||
	       g_ascii_strncasecmp(bare, "localhost.", strlen("localhost.")) == 0;
}

/* Host names come from the service; refuse what would break the quoting
 * of babeltrace2's parameters rather than escape it. */
static gboolean
is_plain(const char *text)
{
	for (const char *p = text; *p; p++)
		if (!g_ascii_isgraph(*p) || *p == '"' || *p == '\\' || *p == '/' || *p == ',')
			return FALSE;
	return *text != '\0';
}

/* Whether session streams live to a relay, with a host name a viewer
 * URL can hold. */
static gboolean
check_live(TcClientSession *session, GError **error)
{
	const char *name = tc_client_session_get_name(session);
	const char *url = tc_client_session_get_output_url(session);
	const char *hostname = tc_client_session_get_trace_hostname(session);

	if (url == NULL || !g_str_has_prefix(url, "net") || hostname == NULL) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
			    "Session '%s' is not streamed to a relay daemon (create it with "
			    "'tracectl create NAME --live')",
			    name);
		return FALSE;
	}
	if (tc_client_session_get_live_timer(session) == 0) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
			    "Session '%s' streams to %s but is not live (create it with --live)",
			    name, url);
		return FALSE;
	}
	if (!is_plain(hostname)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
			    "Cannot build a viewer URL from '%s' and host name '%s'", url,
			    hostname);
		return FALSE;
	}
	return TRUE;
}

static gboolean
is_through_ssh(TcClientSession *session)
{
	return g_str_has_prefix(tc_client_session_get_output_url(session), "net+ssh://");
}

char *
tc_client_live_viewer_url(TcClientSession *session, guint16 live_port, GError **error)
{
	const char *name = tc_client_session_get_name(session);
	const char *url = tc_client_session_get_output_url(session);
	const char *hostname = tc_client_session_get_trace_hostname(session);
	g_autofree char *host = NULL;

	if (!check_live(session, error))
		return NULL;
	if (is_through_ssh(session)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
			    "Session '%s' streams through SSH (%s) to a relay daemon listening on "
			    "its machine's loopback, which a viewer here does not reach: view it "
			    "with 'tracectl view --live', which opens a tunnel, or forward its "
			    "live port (ssh -N -L 5344:127.0.0.1:5344 HOST) and use "
			    "net://127.0.0.1:5344/host/%s/%s",
			    name, url, hostname, name);
		return NULL;
	}
	host = relay_host_of(url);
	if (host == NULL || !is_plain(host)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
			    "Cannot build a viewer URL from '%s' and host name '%s'", url,
			    hostname);
		return NULL;
	}
	/* The viewer runs here and connects to the relay itself. */
	if (tc_client_is_remote() && is_loopback(host)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
			    "Session '%s' streams to the relay daemon of %s itself (%s), which a "
			    "viewer on this machine cannot reach by that name: run the viewer on "
			    "%s, or give the session a relay URL that this machine reaches",
			    name, tc_client_remote_host(), url, tc_client_remote_host());
		return NULL;
	}
	return g_strdup_printf("net://%s:%u/host/%s/%s", host, live_port, hostname, name);
}

static int
explain_failure(const char *viewer_url, const char *errors, int status,
		TcClientLiveTunnel *tunnel)
{
	g_autofree char *ssh_line = tunnel ? tc_client_live_tunnel_errors(tunnel) : NULL;

	/* Through a tunnel, the relay's refusal is ssh's to tell: babeltrace2
	 * only sees its connection closed, which its chain of errors says at
	 * length (in the debug log). */
	if (ssh_line) {
		g_debug("babeltrace2's errors: %s", errors);
		g_printerr("Error: babeltrace2 failed on %s through the SSH tunnel to %s (status "
			   "%d): ssh: %s\n",
			   viewer_url, tc_client_live_tunnel_destination(tunnel), status, ssh_line);
		return TC_EXIT_FAILURE;
	}
	if (strstr(errors, NOT_FOUND_MESSAGE) != NULL) {
		g_printerr("Error: the relay daemon has no live session at %s (was it destroyed, "
			   "or the relay restarted?)\n",
			   viewer_url);
		return TC_EXIT_FAILURE;
	}
	if (strstr(errors, ALREADY_ATTACHED_MESSAGE) != NULL) {
		g_printerr("Error: another viewer is attached to the live session at %s (the "
			   "relay daemon admits one viewer per session at a time)\n",
			   viewer_url);
		return TC_EXIT_FAILURE;
	}
	if (strstr(errors, "Connection refused") != NULL) {
		g_printerr("Error: nothing listens for live viewers at %s (the relay daemon's "
			   "live port, see --live-port)\n",
			   viewer_url);
		return TC_EXIT_FAILURE;
	}
	g_printerr("%s", errors);
	g_printerr("Error: babeltrace2 failed on %s (status %d)\n", viewer_url, status);
	return TC_EXIT_FAILURE;
}

/* babeltrace2 on the live session, through tunnel when not NULL; returns
 * when it ends (the session was destroyed, or the viewer interrupted). */
static int
run_babeltrace(const char *viewer_url, TcClientLiveTunnel *tunnel)
{
	g_autofree char *params =
	    g_strdup_printf("inputs=[\"%s\"],session-not-found-action=\"fail\"", viewer_url);
	const char *argv[] = {"babeltrace2", "--component=src.ctf.lttng-live", "--params", params,
			      NULL};
	g_autoptr(GError) error = NULL;
	g_autoptr(GSubprocess) viewer = NULL;
	g_autofree char *errors = NULL;

	fflush(stdout);
	viewer = g_subprocess_newv(argv, G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
	if (viewer == NULL ||
	    !g_subprocess_communicate_utf8(viewer, NULL, NULL, NULL, &errors, &error))
		return tc_client_fail(error);
	if (g_subprocess_get_if_exited(viewer) && g_subprocess_get_exit_status(viewer) == 0) {
		g_printerr("%s", errors ? errors : "");
		return TC_EXIT_OK;
	}
	return explain_failure(viewer_url, errors ? errors : "",
			       g_subprocess_get_if_exited(viewer)
				   ? g_subprocess_get_exit_status(viewer)
				   : -g_subprocess_get_term_sig(viewer),
			       tunnel);
}

/* The viewer command line, viewer_url appended. */
static char **
viewer_argv(const char *viewer, const char *viewer_url, GError **error)
{
	g_auto(GStrv) command = NULL;
	g_autoptr(GStrvBuilder) args = g_strv_builder_new();

	if (!g_shell_parse_argv(viewer, NULL, &command, error))
		return NULL;
	g_strv_builder_addv(args, (const char **)command);
	g_strv_builder_add(args, viewer_url);
	return g_strv_builder_end(args);
}

/* The user's viewer, run and waited for: the tunnel must outlive it. */
static int
run_viewer(char **command)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GSubprocess) viewer = NULL;

	fflush(stdout);
	viewer = g_subprocess_newv((const char *const *)command, G_SUBPROCESS_FLAGS_NONE, &error);
	if (viewer == NULL || !g_subprocess_wait(viewer, NULL, &error))
		return tc_client_fail(error);
	return g_subprocess_get_if_exited(viewer) && g_subprocess_get_exit_status(viewer) == 0
		   ? TC_EXIT_OK
		   : TC_EXIT_FAILURE;
}

/* A session streamed through SSH: its relay's live port through a tunnel
 * of the viewer's own, ended when the viewer ends. */
static int
view_through_ssh(TcClientSession *session, const char *viewer, guint16 live_port)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(TcClientLiveTunnel) tunnel = NULL;
	g_autofree char *viewer_url = NULL;
	g_auto(GStrv) command = NULL;

	if (viewer && !(command = viewer_argv(viewer, "", &error)))
		return tc_client_fail(error);
	tunnel = tc_client_live_tunnel_open(tc_client_session_get_output_url(session), live_port,
					    &error);
	if (tunnel == NULL)
		return tc_client_fail(error);
	viewer_url = g_strdup_printf("net://127.0.0.1:%u/host/%s/%s",
				     tc_client_live_tunnel_port(tunnel),
				     tc_client_session_get_trace_hostname(session),
				     tc_client_session_get_name(session));
	if (command == NULL)
		return run_babeltrace(viewer_url, tunnel);
	g_free(command[g_strv_length(command) - 1]);
	command[g_strv_length(command) - 1] = g_steal_pointer(&viewer_url);
	return run_viewer(command);
}

int
tc_client_view_live(TcClientSession *session, const char *viewer, guint16 live_port)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *viewer_url = NULL;
	g_auto(GStrv) command = NULL;

	if (!check_live(session, &error))
		return tc_client_fail(error);
	if (is_through_ssh(session))
		return view_through_ssh(session, viewer, live_port);
	viewer_url = tc_client_live_viewer_url(session, live_port, &error);
	if (viewer_url == NULL)
		return tc_client_fail(error);
	if (viewer == NULL)
		return run_babeltrace(viewer_url, NULL);
	command = viewer_argv(viewer, viewer_url, &error);
	if (command == NULL)
		return tc_client_fail(error);
	fflush(stdout);
	execvp(command[0], command);
	g_printerr("Error: cannot run %s: %s\n", command[0], g_strerror(errno));
	return TC_EXIT_FAILURE;
}
