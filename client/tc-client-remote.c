/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracectl -H [USER@]HOST[:PORT]: the remote machine's system bus through
 * ssh, as systemctl -H reaches it. ssh runs `systemd-stdio-bridge` there,
 * which connects to that machine's system bus as the ssh user and relays
 * the D-Bus stream on its standard input and output; here, ssh's standard
 * input and output are one end of a socket pair whose other end is the
 * sd-bus connection. So SSH authenticates the person, and the remote
 * polkit authorizes the remote user, exactly as for a local call there.
 *
 * ssh is started here rather than by sd-bus's unixexec: addresses
 * (sd_bus_open_system_remote()) so that its standard error is kept for the
 * error message instead of reaching the terminal, and its exit status
 * read. The connection negotiates no descriptor passing, which cannot
 * cross ssh, and authenticates as ANONYMOUS, which the bridge accepts
 * (it offers EXTERNAL and ANONYMOUS; who the caller is, the remote bus
 * learns from the bridge's own connection): a uid of this machine means
 * nothing there.
 *
 * Everything until the bus's Hello reply (ssh's connection, its
 * authentication, the bridge, the D-Bus authentication) has one
 * deadline. ssh's standard error goes to a memory file that is only read
 * to explain a failure: ssh never blocks on it, and its own words (a host
 * key that changed, a refused key, "command not found") are the message.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tc-client.h"

/* From ssh's start to the bus's Hello reply: time to type a password. */
#define CONNECT_TIMEOUT_SECS 60
/* ssh's own bound on the TCP connection and key exchange, so that an
 * unreachable host is reported in ssh's words before the deadline. */
#define SSH_CONNECT_TIMEOUT_SECS 20
/* How long ssh is given to exit once the connection failed. */
#define SSH_EXIT_WAIT_MS 2000
/* The end of ssh's standard error read for an error. */
#define SSH_ERRORS_MAX 1024
#define BRIDGE "systemd-stdio-bridge"

static char *remote_host;
static GSubprocess *ssh;
static int ssh_errors_fd = -1;

void
tc_client_remote_set_host(const char *host)
{
	g_free(remote_host);
	remote_host = g_strdup(host);
}

const char *
tc_client_remote_host(void)
{
	return remote_host;
}

gboolean
tc_client_is_remote(void)
{
	return remote_host != NULL;
}

/* The program: $TRACECTL_SSH, as systemd reads $SYSTEMD_SSH, else ssh. */
const char *
tc_client_ssh_program(void)
{
	const char *program = g_getenv("TRACECTL_SSH");

	return program && *program ? program : "ssh";
}

char *
tc_client_remote_ssh_errors(void)
{
	return tc_client_ssh_last_line(ssh_errors_fd);
}

/* The last line ssh wrote in errors_fd, its verdict ("Permission denied
 * (publickey).", "Host key verification failed.", "sh: 1:
 * systemd-stdio-bridge: not found"), control characters blanked; NULL
 * when it wrote nothing. All of it goes to the debug log. */
char *
tc_client_ssh_last_line(int errors_fd)
{
	char buf[SSH_ERRORS_MAX + 1];
	g_autofree char *text = NULL;
	struct stat st;
	off_t start;
	ssize_t length;
	char *line;

	if (errors_fd < 0 || fstat(errors_fd, &st) < 0)
		return NULL;
	start = st.st_size > SSH_ERRORS_MAX ? st.st_size - SSH_ERRORS_MAX : 0;
	length = pread(errors_fd, buf, SSH_ERRORS_MAX, start);
	if (length <= 0)
		return NULL;
	text = g_utf8_make_valid(buf, length);
	/* What the remote end says must not drive the terminal. */
	for (char *p = text; *p; p++)
		if ((guchar)*p < 0x20 && *p != '\n')
			*p = ' ';
	g_debug("ssh's standard error: %s", text);
	g_strchomp(text);
	line = strrchr(text, '\n');
	line = g_strstrip(line ? line + 1 : text);
	if (g_str_has_prefix(line, "ssh: "))
		line += strlen("ssh: ");
	return *line ? g_strdup(line) : NULL;
}

static GSubprocess *
spawn_ssh(const char *destination, const char *port, int stdio_fd, GError **error)
{
	g_autoptr(GSubprocessLauncher) launcher =
	    g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_NONE);
	g_autoptr(GStrvBuilder) builder = g_strv_builder_new();
	g_autofree char *connect_timeout =
	    g_strdup_printf("ConnectTimeout=%d", SSH_CONNECT_TIMEOUT_SECS);
	g_auto(GStrv) argv = NULL;
	g_autofree char *command_line = NULL;
	int stdout_fd = fcntl(stdio_fd, F_DUPFD_CLOEXEC, 3);
	int errors_fd = memfd_create("tracectl-ssh-errors", MFD_CLOEXEC);

	if (stdout_fd < 0 || errors_fd < 0) {
		int saved = errno;

		if (stdout_fd >= 0)
			close(stdout_fd);
		if (errors_fd >= 0)
			close(errors_fd);
		close(stdio_fd);
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(saved),
			    "cannot set up ssh's standard streams: %s", g_strerror(saved));
		return NULL;
	}
	ssh_errors_fd = fcntl(errors_fd, F_DUPFD_CLOEXEC, 3);
	/* As systemd: no X11 forwarding, no terminal, the destination after
	 * "--" so that it is never an option. */
	g_strv_builder_add_many(builder, tc_client_ssh_program(), "-xT", "-o", connect_timeout, NULL);
	if (port)
		g_strv_builder_add_many(builder, "-p", port, NULL);
	g_strv_builder_add_many(builder, "--", destination, BRIDGE, NULL);
	argv = g_strv_builder_end(builder);
	g_subprocess_launcher_take_stdin_fd(launcher, stdio_fd);
	g_subprocess_launcher_take_stdout_fd(launcher, stdout_fd);
	g_subprocess_launcher_take_stderr_fd(launcher, errors_fd);
	command_line = g_strjoinv(" ", argv);
	g_debug("Running %s", command_line);
	return g_subprocess_launcher_spawnv(launcher, (const char *const *)argv, error);
}

/* The bus on fd, through authentication and Hello's reply within the
 * deadline, on this thread. fd is the bus's from the start, closed with it
 * (ssh then sees the end of its input: a bridge that started ends). */
static sd_bus *
handshake(int fd, gboolean *timed_out, GError **error)
{
	gint64 deadline = g_get_monotonic_time() + CONNECT_TIMEOUT_SECS * G_USEC_PER_SEC;
	sd_bus *b = NULL;
	int r = sd_bus_new(&b);

	if (r < 0) {
		close(fd);
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(-r), "%s", g_strerror(-r));
		return NULL;
	}
	r = sd_bus_set_fd(b, fd, fd);
	if (r >= 0)
		r = tc_client_bus_setup(b);
	if (r >= 0)
		r = sd_bus_set_anonymous(b, TRUE);
	if (r >= 0)
		r = sd_bus_start(b);
	while (r >= 0 && (r = sd_bus_is_ready(b)) == 0) {
		gint64 remaining = deadline - g_get_monotonic_time();

		r = sd_bus_process(b, NULL);
		if (r != 0)
			continue;
		if (remaining <= 0) {
			*timed_out = TRUE;
			r = -ETIMEDOUT;
		} else {
			r = sd_bus_wait(b, remaining);
		}
	}
	if (r < 0) {
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(-r), "%s", g_strerror(-r));
		/* Closed without a flush, which would wait for the peer. */
		return sd_bus_close_unref(b);
	}
	return b;
}

static void
ssh_exited_cb(GObject *source, GAsyncResult *result, gpointer data)
{
	gboolean *exited = data;

	g_subprocess_wait_finish(G_SUBPROCESS(source), result, NULL);
	*exited = TRUE;
}

static gboolean
flag_cb(gpointer data)
{
	*(gboolean *)data = TRUE;
	return G_SOURCE_REMOVE;
}

/* ssh's exit status once it ended (within SSH_EXIT_WAIT_MS, else it is
 * killed; at once with is_hung), -1 when it did not exit normally. */
static int
end_ssh(gboolean is_hung)
{
	g_autoptr(GMainContext) context = g_main_context_new();
	g_autoptr(GSource) deadline = g_timeout_source_new(SSH_EXIT_WAIT_MS);
	gboolean exited = FALSE, late = FALSE;

	g_main_context_push_thread_default(context);
	g_source_set_callback(deadline, flag_cb, &late, NULL);
	g_source_attach(deadline, context);
	g_subprocess_wait_async(ssh, NULL, ssh_exited_cb, &exited);
	if (is_hung)
		g_subprocess_force_exit(ssh);
	while (!exited && !late)
		g_main_context_iteration(context, TRUE);
	if (!exited) {
		g_subprocess_force_exit(ssh);
		while (!exited)
			g_main_context_iteration(context, TRUE);
	}
	g_source_destroy(deadline);
	g_main_context_pop_thread_default(context);
	return g_subprocess_get_if_exited(ssh) ? g_subprocess_get_exit_status(ssh) : -1;
}

static void
set_connect_error(const char *host, gboolean timed_out, int status, const GError *bus_error,
		  GError **error)
{
	g_autofree char *ssh_errors = tc_client_remote_ssh_errors();
	g_autofree char *why = NULL;

	if (timed_out)
		why = g_strdup_printf("no answer within %d s%s%s", CONNECT_TIMEOUT_SECS,
				      ssh_errors ? "; ssh: " : "", ssh_errors ? ssh_errors : "");
	else if (ssh_errors && status == 127)
		why = g_strdup_printf("ssh: %s (is %s, of systemd, installed there?)", ssh_errors,
				      BRIDGE);
	else if (ssh_errors)
		why = g_strdup_printf("ssh: %s", ssh_errors);
	else if (status > 0)
		why = g_strdup_printf("ssh exited with status %d (%s)", status, bus_error->message);
	else
		why = g_strdup(bus_error->message);
	g_set_error(error, TC_CLIENT_ERROR, TC_CLIENT_ERROR_UNREACHABLE,
		    "cannot reach the tracectl service on %s: %s", host, why);
}

sd_bus *
tc_client_remote_connect(GError **error)
{
	g_autofree char *destination = NULL;
	g_autofree char *port = NULL;
	g_autoptr(GError) local_error = NULL;
	gboolean timed_out = FALSE;
	const char *unique = NULL;
	sd_bus *b;
	int fds[2];

	g_return_val_if_fail(remote_host != NULL, NULL);
	/* Checked when the option was read: cannot fail here. */
	if (!tc_client_parse_host(remote_host, &destination, &port, error))
		return NULL;
	/* ssh may end at any time: a write to its end must fail, not kill
	 * tracectl (sd-bus sends with MSG_NOSIGNAL; this covers the rest). */
	signal(SIGPIPE, SIG_IGN);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0) {
		int saved = errno;

		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(saved),
			    "cannot create a socket pair for ssh: %s", g_strerror(saved));
		return NULL;
	}
	ssh = spawn_ssh(destination, port, fds[1], &local_error);
	if (ssh == NULL) {
		close(fds[0]);
		g_set_error(error, TC_CLIENT_ERROR, TC_CLIENT_ERROR_UNREACHABLE,
			    "cannot run %s: %s", tc_client_ssh_program(), local_error->message);
		return NULL;
	}
	b = handshake(fds[0], &timed_out, &local_error);
	if (b == NULL) {
		set_connect_error(remote_host, timed_out, end_ssh(timed_out), local_error, error);
		return NULL;
	}
	sd_bus_get_unique_name(b, &unique);
	g_debug("Connected to the system bus of %s as %s", remote_host, unique);
	return b;
}

guint32
tc_client_remote_caller_uid(sd_bus *b)
{
	__attribute__((cleanup(tc_client_libsystemd_error_clear))) sd_bus_error bus_error = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	const char *unique = NULL;
	guint32 uid = G_MAXUINT32;

	if (sd_bus_get_unique_name(b, &unique) >= 0 &&
	    sd_bus_call_method(b, "org.freedesktop.DBus", "/org/freedesktop/DBus",
			       "org.freedesktop.DBus", "GetConnectionUnixUser", &bus_error, &reply,
			       "s", unique) >= 0 &&
	    sd_bus_message_read(reply, "u", &uid) < 0)
		uid = G_MAXUINT32;
	sd_bus_message_unref(reply);
	return uid;
}

int
tc_client_remote_refused(const char *reason)
{
	g_autoptr(GError) error = g_error_new(G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
					      "with -H %s, %s", remote_host, reason);

	return tc_client_fail(error);
}
