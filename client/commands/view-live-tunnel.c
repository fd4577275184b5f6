/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The live viewer's own SSH tunnel, for a session that streams through
 * SSH (net+ssh://[USER@]HOST[:SSH_PORT]/...): the relay's live port is
 * on HOST's loopback, so the viewer runs, as the user who runs it and
 * with that user's ssh configuration, keys and agent,
 *
 *   ssh -N -o ExitOnForwardFailure=yes -o ControlMaster=no -o ControlPath=none
 *       -o ForkAfterAuthentication=no -o ClearAllForwardings=no -o ConnectTimeout=20
 *       -L 127.0.0.1:PORT:127.0.0.1:LIVE_PORT [-p SSH_PORT] [-l USER] -- HOST
 *
 * and babeltrace2 connects to 127.0.0.1:PORT. babeltrace2's lttng-live
 * source takes TCP URLs only, so the local end is a port, not a private
 * socket: PORT is one the kernel gave to a socket bound and closed just
 * before; an ssh that finds it taken meanwhile fails on
 * ExitOnForwardFailure and another port is tried. The options keep the
 * tunnel the viewer's own (no connection shared with another ssh, which
 * would keep the forward after the viewer, none forked away); the user's
 * configuration decides the rest. ssh may ask for a passphrase on the
 * terminal, within the deadline.
 *
 * The tunnel is ready once ssh listens on PORT, which it does after
 * authenticating; /proc/net/tcp says so without a connection, which would
 * reach the relay. ssh's standard error goes to a memory file read only
 * to explain a failure (ssh never blocks on it); ssh gets SIGTERM when
 * the viewer ends, and dies with tracectl (PR_SET_PDEATHSIG) however it
 * ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include "tc-client.h"
#include "tc-ssh-names.h"

/* From ssh's start to its listening: time to type a passphrase. */
#define TUNNEL_OPEN_TIMEOUT_SECS 60
#define TUNNEL_CONNECT_TIMEOUT "ConnectTimeout=20"
#define TUNNEL_POLL_US 20000
#define TUNNEL_STOP_WAIT_US 2000000
/* Ports tried when the one chosen was taken before ssh could bind it. */
#define TUNNEL_PORT_TRIES 3

struct _TcClientLiveTunnel {
	GSubprocess *ssh;
	int errors_fd;
	guint16 port;
	char *destination; /* [USER@]HOST, for messages */
};

/* net+ssh://[USER@]HOST[:SSH_PORT][/CTRL[:DATA]]: the login (NULL when
 * none), the host (brackets dropped) and the SSH port ("" when none),
 * each checked against tc-ssh-names.h's alphabets. */
static gboolean
parse_url(const char *url, char **user, char **host, char **port, GError **error)
{
	const char *p = url + strlen("net+ssh://");
	const char *end = p + strcspn(p, "/");
	const char *at = memchr(p, '@', end - p);
	const char *host_end, *why = NULL;
	size_t position;

	if (at) {
		*user = g_strndup(p, at - p);
		why = tc_ssh_names_check_user(*user, strlen(*user), &position);
		p = at + 1;
	}
	if (*p == '[') {
		host_end = memchr(p, ']', end - p);
		if (!host_end)
			why = "an IPv6 address without its ']'";
		*host = g_strndup(p + 1, host_end ? host_end - p - 1 : 0);
		p = host_end ? host_end + 1 : end;
	} else {
		host_end = p + strcspn(p, ":/");
		*host = g_strndup(p, host_end - p);
		p = host_end;
	}
	if (!why)
		why = tc_ssh_names_check_host(*host, strlen(*host), &position);
	*port = g_strndup(*p == ':' ? p + 1 : p, *p == ':' ? end - p - 1 : 0);
	for (const char *c = *port; !why && *c; c++)
		if (!g_ascii_isdigit(*c))
			why = "a port that is not a number";
	if (why)
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
			    "Cannot open an SSH tunnel to '%s': %s", url, why);
	return why == NULL;
}

/* A port of 127.0.0.1 free a moment ago, or 0 with errno. */
static guint16
free_port(void)
{
	struct sockaddr_in address = {.sin_family = AF_INET,
				      .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t length = sizeof(address);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	guint16 port = 0;

	if (fd >= 0 && bind(fd, (struct sockaddr *)&address, sizeof(address)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&address, &length) == 0)
		port = ntohs(address.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/* Whether a socket listens on 127.0.0.1:port (/proc/net/tcp writes the
 * address as the raw network-order word, the port in host order). */
static gboolean
is_listening(guint16 port)
{
	g_autofree char *table = NULL;
	g_auto(GStrv) lines = NULL;
	unsigned address, local_port, state;

	if (!g_file_get_contents("/proc/net/tcp", &table, NULL, NULL))
		return FALSE;
	lines = g_strsplit(table, "\n", -1);
	for (char **line = lines; *line; line++)
		if (sscanf(*line, " %*u: %8X:%4X %*8X:%*4X %2X", &address, &local_port, &state) ==
			3 &&
		    address == htonl(INADDR_LOOPBACK) && local_port == port && state == 0x0A)
			return TRUE;
	return FALSE;
}

/* In the child before exec: dies with tracectl, even one that ended
 * before this ran. */
static void
child_setup_cb(gpointer data)
{
	pid_t parent = GPOINTER_TO_INT(data);

	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
		_exit(127);
}

static GSubprocess *
spawn(const char *user, const char *host, const char *ssh_port, guint16 port,
      guint16 live_port, int errors_fd, GError **error)
{
	g_autoptr(GSubprocessLauncher) launcher =
	    g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_STDOUT_SILENCE);
	g_autoptr(GStrvBuilder) builder = g_strv_builder_new();
	g_autofree char *forward = g_strdup_printf("127.0.0.1:%u:127.0.0.1:%u", port, live_port);
	g_auto(GStrv) argv = NULL;
	g_autofree char *command_line = NULL;
	int fd = fcntl(errors_fd, F_DUPFD_CLOEXEC, 3);

	if (fd < 0) {
		int saved = errno;

		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(saved),
			    "cannot set up ssh's standard error: %s", g_strerror(saved));
		return NULL;
	}
	g_strv_builder_add_many(builder, tc_client_ssh_program(), "-N", "-o",
				"ExitOnForwardFailure=yes", "-o", "ControlMaster=no", "-o",
				"ControlPath=none", "-o", "ForkAfterAuthentication=no", "-o",
				"ClearAllForwardings=no", "-o", TUNNEL_CONNECT_TIMEOUT, "-L",
				forward, NULL);
	if (*ssh_port)
		g_strv_builder_add_many(builder, "-p", ssh_port, NULL);
	if (user)
		g_strv_builder_add_many(builder, "-l", user, NULL);
	g_strv_builder_add_many(builder, "--", host, NULL);
	argv = g_strv_builder_end(builder);
	g_subprocess_launcher_take_stderr_fd(launcher, fd);
	g_subprocess_launcher_set_child_setup(launcher, child_setup_cb,
					      GINT_TO_POINTER(getpid()), NULL);
	command_line = g_strjoinv(" ", argv);
	g_debug("Running %s", command_line);
	return g_subprocess_launcher_spawnv(launcher, (const char *const *)argv, error);
}

/* GLib's worker thread reaps the child: no identifier once it exited. */
static gboolean
has_exited(GSubprocess *ssh)
{
	return g_subprocess_get_identifier(ssh) == NULL;
}

/* Waits until ssh listens on the tunnel's port (TRUE), exits, or the
 * deadline passes. */
static gboolean
wait_listening(TcClientLiveTunnel *tunnel, gint64 deadline)
{
	while (!has_exited(tunnel->ssh) && g_get_monotonic_time() < deadline) {
		if (is_listening(tunnel->port))
			return TRUE;
		g_usleep(TUNNEL_POLL_US);
	}
	return FALSE;
}

/* Whether ssh failed because the port was taken before it bound it
 * ("bind [127.0.0.1]:PORT: Address already in use", then other lines). */
static gboolean
port_was_taken(TcClientLiveTunnel *tunnel)
{
	char text[4096];
	ssize_t length;

	if (!has_exited(tunnel->ssh))
		return FALSE;
	length = pread(tunnel->errors_fd, text, sizeof(text) - 1, 0);
	if (length <= 0)
		return FALSE;
	text[length] = '\0';
	return strstr(text, "Address already in use") != NULL;
}

static void
end_ssh(TcClientLiveTunnel *tunnel)
{
	gint64 deadline = g_get_monotonic_time() + TUNNEL_STOP_WAIT_US;

	if (!tunnel->ssh)
		return;
	g_subprocess_send_signal(tunnel->ssh, SIGTERM);
	while (!has_exited(tunnel->ssh) && g_get_monotonic_time() < deadline)
		g_usleep(TUNNEL_POLL_US / 4);
	if (!has_exited(tunnel->ssh))
		g_subprocess_force_exit(tunnel->ssh);
	g_subprocess_wait(tunnel->ssh, NULL, NULL);
	g_clear_object(&tunnel->ssh);
}

/* The error of a tunnel that is not there: ssh's words, else why not. */
static void
set_open_error(TcClientLiveTunnel *tunnel, GError **error)
{
	g_autofree char *line = tc_client_ssh_last_line(tunnel->errors_fd);

	if (line)
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED,
			    "Cannot open an SSH tunnel to %s for the live viewer: ssh: %s",
			    tunnel->destination, line);
	else if (has_exited(tunnel->ssh))
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED,
			    "Cannot open an SSH tunnel to %s for the live viewer: ssh exited "
			    "with status %d",
			    tunnel->destination, g_subprocess_get_exit_status(tunnel->ssh));
	else
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
			    "Cannot open an SSH tunnel to %s for the live viewer: ssh did not "
			    "listen within %d s",
			    tunnel->destination, TUNNEL_OPEN_TIMEOUT_SECS);
}

TcClientLiveTunnel *
tc_client_live_tunnel_open(const char *url, guint16 live_port, GError **error)
{
	g_autoptr(TcClientLiveTunnel) tunnel = g_new0(TcClientLiveTunnel, 1);
	g_autofree char *user = NULL, *host = NULL, *ssh_port = NULL;
	gint64 deadline = g_get_monotonic_time() + TUNNEL_OPEN_TIMEOUT_SECS * G_USEC_PER_SEC;

	tunnel->errors_fd = -1;
	if (!parse_url(url, &user, &host, &ssh_port, error))
		return NULL;
	tunnel->destination = user ? g_strdup_printf("%s@%s", user, host) : g_strdup(host);
	for (int try = 0; try < TUNNEL_PORT_TRIES; try++) {
		end_ssh(tunnel);
		if (tunnel->errors_fd >= 0)
			close(tunnel->errors_fd);
		tunnel->errors_fd = memfd_create("tracectl-live-ssh-errors", MFD_CLOEXEC);
		tunnel->port = free_port();
		if (tunnel->errors_fd < 0 || tunnel->port == 0) {
			int saved = errno;

			g_set_error(error, G_IO_ERROR, g_io_error_from_errno(saved),
				    "Cannot set up an SSH tunnel for the live viewer: %s",
				    g_strerror(saved));
			return NULL;
		}
		tunnel->ssh = spawn(user, host, ssh_port, tunnel->port, live_port,
				    tunnel->errors_fd, error);
		if (!tunnel->ssh) {
			g_prefix_error(error, "Cannot run %s: ", tc_client_ssh_program());
			return NULL;
		}
		if (wait_listening(tunnel, deadline))
			return g_steal_pointer(&tunnel);
		if (!port_was_taken(tunnel))
			break;
	}
	set_open_error(tunnel, error);
	return NULL;
}

guint16
tc_client_live_tunnel_port(const TcClientLiveTunnel *tunnel)
{
	return tunnel->port;
}

const char *
tc_client_live_tunnel_destination(const TcClientLiveTunnel *tunnel)
{
	return tunnel->destination;
}

char *
tc_client_live_tunnel_errors(TcClientLiveTunnel *tunnel)
{
	return tc_client_ssh_last_line(tunnel->errors_fd);
}

void
tc_client_live_tunnel_close(TcClientLiveTunnel *tunnel)
{
	if (!tunnel)
		return;
	end_ssh(tunnel);
	if (tunnel->errors_fd >= 0)
		close(tunnel->errors_fd);
	g_free(tunnel->destination);
	g_free(tunnel);
}
