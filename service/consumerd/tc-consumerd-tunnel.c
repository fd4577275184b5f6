/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The owner's ssh as a relay's tunnel (tc-consumerd-tunnel.h). */
#include "tc-consumerd-tunnel.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tc-ssh-names.h"

#define TUNNEL_DIR_TEMPLATE "/tmp/tracectl-ssh-XXXXXX"
#define TUNNEL_PATH_MAX sizeof(((struct sockaddr_un *)0)->sun_path)
/* What one look reads of ssh's standard error at most: a flood (a
 * configuration with LogLevel DEBUG3) costs a look no more than this. */
#define TUNNEL_READ_MAX 65536u
#define TUNNEL_STOP_WAIT_MS 100
/* A connection through the tunnel ends as ssh exits, before its exit is
 * seen: the reason waits this long for it, so that it is ssh's exit. */
#define TUNNEL_EXIT_GRACE_MS 20
#define SSH_PROGRAM "ssh"
/* ssh's system-wide configuration, which -F would otherwise skip. */
#define SSH_SYSTEM_CONFIG "/etc/ssh/ssh_config"
/* The cipher preferred where the CPU has AES instructions, first in the
 * list of OpenSSH's defaults ('^'), the others still offered. */
#define SSH_PREFERRED_CIPHERS "^aes128-gcm@openssh.com"
#define SSH_DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

struct tc_consumerd_tunnel {
	pid_t pid;
	int pidfd;
	int errors_fd; /* ssh's standard error, non-blocking; -1 once at its end */
	bool exited, ready;
	int wait_status;
	char dir[sizeof(TUNNEL_DIR_TEMPLATE)];
	char control_path[TUNNEL_PATH_MAX], data_path[TUNNEL_PATH_MAX];
	char config_path[TUNNEL_PATH_MAX]; /* "" unless a cipher is preferred */
	/* The line being read, and the last one complete and not blank. */
	char line[CONSUMERD_TUNNEL_LINE_MAX + 1];
	size_t line_len;
	char last[CONSUMERD_TUNNEL_LINE_MAX + 1];
	char reason[CONSUMERD_TUNNEL_REASON_MAX];
};

/* ---- ssh's standard error ---- */

/* The line read so far ends: kept as the last one unless blank. */
static void
line_end(struct tc_consumerd_tunnel *tunnel)
{
	size_t len = tunnel->line_len;

	while (len > 0 && tunnel->line[len - 1] == ' ')
		len--;
	if (len > 0) {
		memcpy(tunnel->last, tunnel->line, len);
		tunnel->last[len] = '\0';
	}
	tunnel->line_len = 0;
}

/* One byte of ssh's standard error: a line longer than the bound is cut,
 * control bytes and bytes past ASCII become ' ' and '?'. */
static void
line_add(struct tc_consumerd_tunnel *tunnel, char c)
{
	if (c == '\n') {
		line_end(tunnel);
		return;
	}
	if (tunnel->line_len >= CONSUMERD_TUNNEL_LINE_MAX)
		return;
	if ((unsigned char)c >= 0x7f)
		c = '?';
	else if ((unsigned char)c < 0x20)
		c = ' ';
	tunnel->line[tunnel->line_len++] = c;
}

/* Reads what ssh wrote, at most TUNNEL_READ_MAX bytes, without waiting;
 * at its end (ssh exited), a line without its newline counts too. */
static void
errors_read(struct tc_consumerd_tunnel *tunnel)
{
	char buf[4096];
	size_t total = 0;
	ssize_t n;

	while (tunnel->errors_fd >= 0 && total < TUNNEL_READ_MAX) {
		n = read(tunnel->errors_fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return; /* EAGAIN: nothing more for now */
		if (n == 0) {
			line_end(tunnel);
			close(tunnel->errors_fd);
			tunnel->errors_fd = -1;
			return;
		}
		for (ssize_t i = 0; i < n; i++)
			line_add(tunnel, buf[i]);
		total += (size_t)n;
	}
}

/* ---- the process ---- */

/* The ssh program on the consumer's PATH (the service's choice, not the
 * user's) into path. Returns 0 or -ENOENT. */
static int
find_program(char *path, size_t size)
{
	const char *dirs = getenv("PATH");

	if (!dirs || !*dirs)
		dirs = SSH_DEFAULT_PATH;
	while (*dirs) {
		size_t len = strcspn(dirs, ":");
		int written = snprintf(path, size, "%.*s/%s", (int)len, dirs, SSH_PROGRAM);

		if (len > 0 && dirs[0] == '/' && written > 0 && (size_t)written < size &&
		    access(path, X_OK) == 0)
			return 0;
		dirs += len + (dirs[len] == ':');
	}
	return -ENOENT;
}

/* In the child, between fork() and exec: async-signal-safe calls only.
 * It dies with the thread that forked it, and gets /dev/null as its
 * input and output, errors_fd as its standard error, no other
 * descriptor, and the default signal dispositions and mask (the
 * session's thread blocks every signal, and SIGPIPE is ignored). */
static __attribute__((noreturn)) void
child_exec(pid_t parent, int null_fd, int errors_fd, const char *program, char *const argv[])
{
	static const char failed[] = "cannot run ssh\n";
	struct sigaction default_action = {.sa_handler = SIG_DFL};
	sigset_t none;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(127);
	if (dup2(null_fd, STDIN_FILENO) < 0 || dup2(null_fd, STDOUT_FILENO) < 0 ||
	    dup2(errors_fd, STDERR_FILENO) < 0 || close_range(3, ~0u, 0) < 0)
		_exit(127);
	for (int sig = 1; sig < NSIG; sig++)
		sigaction(sig, &default_action, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execv(program, argv);
	(void)!write(STDERR_FILENO, failed, sizeof(failed) - 1);
	_exit(127);
}

/* Forks ssh with argv; its pid, pidfd and standard error into tunnel.
 * Returns 0 or -errno. */
static int
spawn(struct tc_consumerd_tunnel *tunnel, const char *program, char *const argv[])
{
	pid_t parent = getpid();
	int errors[2], null_fd, err;
	pid_t pid;

	/* Non-blocking at both ends: ssh never waits to write its errors. */
	if (pipe2(errors, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	pid = null_fd < 0 ? -1 : fork();
	if (pid == 0)
		child_exec(parent, null_fd, errors[1], program, argv);
	err = pid < 0 ? -errno : 0;
	close(errors[1]);
	if (null_fd >= 0)
		close(null_fd);
	if (err == 0) {
		tunnel->pid = pid;
		tunnel->pidfd = pidfd_open(pid, 0);
		err = tunnel->pidfd < 0 ? -errno : 0;
	}
	if (err < 0 && pid > 0) {
		kill(pid, SIGKILL); /* not reaped yet: the pid is still its */
		waitpid(pid, NULL, 0);
		tunnel->pid = 0;
	}
	if (err < 0)
		close(errors[0]);
	else
		tunnel->errors_fd = errors[0];
	return err;
}

/* Whether ssh exited (the pidfd is readable), reaping it then. */
static bool
reap(struct tc_consumerd_tunnel *tunnel)
{
	struct pollfd pfd = {.fd = tunnel->pidfd, .events = POLLIN};

	if (tunnel->exited)
		return true;
	if (poll(&pfd, 1, 0) != 1)
		return false;
	if (waitpid(tunnel->pid, &tunnel->wait_status, 0) != tunnel->pid)
		tunnel->wait_status = 0;
	tunnel->exited = true;
	return true;
}

/* ---- the command line ---- */

/* What the consumer needs to own the tunnel (tc-consumerd-tunnel.h). */
static const char *const tunnel_options[] = {
    "-N",
    "-o",
    "ExitOnForwardFailure=yes",
    "-o",
    "BatchMode=yes",
    "-o",
    "ControlMaster=no",
    "-o",
    "ControlPath=none",
    "-o",
    "ForkAfterAuthentication=no",
    "-o",
    "ClearAllForwardings=no",
};

#define TUNNEL_OPTIONS_COUNT (sizeof(tunnel_options) / sizeof(tunnel_options[0]))
/* The arguments at most: the program, the options, "-F" and its file,
 * two forwards, "-p" and the port, "-l" and the login, "--" and the
 * host, and the NULL at the end. build_args() asserts it stays within. */
#define TUNNEL_ARGV_MAX (1u + TUNNEL_OPTIONS_COUNT + 2u + 4u + 2u + 2u + 2u + 1u)

struct tunnel_args {
	char *argv[TUNNEL_ARGV_MAX];
	char control_forward[TUNNEL_PATH_MAX + 24], data_forward[TUNNEL_PATH_MAX + 24];
	char port[8];
	char program[PATH_MAX];
};

/* Appends one argument, keeping room for the NULL at the end. */
static void
add_arg(struct tunnel_args *args, unsigned *n, const char *arg)
{
	assert(*n + 1 < TUNNEL_ARGV_MAX);
	args->argv[(*n)++] = (char *)arg;
}

static int
check_spec(const struct tc_consumerd_tunnel_spec *spec)
{
	size_t position;

	if (!spec->host || tc_ssh_names_check_host(spec->host, strlen(spec->host), &position))
		return -EINVAL;
	if (spec->user && spec->user[0] &&
	    tc_ssh_names_check_user(spec->user, strlen(spec->user), &position))
		return -EINVAL;
	return spec->control_port && spec->data_port ? 0 : -EINVAL;
}

/* The command line of tc-consumerd-tunnel.h: the host after "--", so that
 * nothing of the URL can be read as an option (check_spec() refuses a
 * leading '-' anyway). */
static void
build_args(struct tunnel_args *args, const struct tc_consumerd_tunnel *tunnel,
	   const struct tc_consumerd_tunnel_spec *spec)
{
	unsigned n = 0;

	snprintf(args->control_forward, sizeof(args->control_forward), "%s:127.0.0.1:%u",
		 tunnel->control_path, spec->control_port);
	snprintf(args->data_forward, sizeof(args->data_forward), "%s:127.0.0.1:%u",
		 tunnel->data_path, spec->data_port);
	add_arg(args, &n, SSH_PROGRAM);
	for (unsigned i = 0; i < TUNNEL_OPTIONS_COUNT; i++)
		add_arg(args, &n, tunnel_options[i]);
	if (tunnel->config_path[0]) {
		add_arg(args, &n, "-F");
		add_arg(args, &n, tunnel->config_path);
	}
	add_arg(args, &n, "-L");
	add_arg(args, &n, args->control_forward);
	add_arg(args, &n, "-L");
	add_arg(args, &n, args->data_forward);
	if (spec->port) {
		snprintf(args->port, sizeof(args->port), "%u", spec->port);
		add_arg(args, &n, "-p");
		add_arg(args, &n, args->port);
	}
	if (spec->user && spec->user[0]) {
		add_arg(args, &n, "-l");
		add_arg(args, &n, spec->user);
	}
	add_arg(args, &n, "--");
	add_arg(args, &n, spec->host);
	args->argv[n] = NULL;
}

/*
 * The configuration ssh reads with -F when a cipher is preferred: the
 * owner's and the system's files, included in the order ssh reads them
 * without -F, then the preferred cipher for every host. ssh keeps the
 * first value it obtains of each option, so the preference applies only
 * to a host for which neither file sets Ciphers: the owner's choice, for
 * this host after its Host and Match blocks as ssh itself evaluates
 * them, always wins. Include checks the owner's file's permissions as
 * ssh does without -F. Returns 0 or -errno.
 */
static int
write_config(struct tc_consumerd_tunnel *tunnel)
{
	static const char text[] = "# tracectl's tunnel: the owner's ssh configuration, then a default\n"
				   "Include ~/.ssh/config\n"
				   "Include " SSH_SYSTEM_CONFIG "\n"
				   "Host *\n"
				   "\tCiphers " SSH_PREFERRED_CIPHERS "\n";
	ssize_t written;
	int fd;

	snprintf(tunnel->config_path, sizeof(tunnel->config_path), "%s/config", tunnel->dir);
	fd = open(tunnel->config_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		tunnel->config_path[0] = '\0';
		return -errno;
	}
	written = write(fd, text, sizeof(text) - 1);
	if (written < 0)
		written = -errno;
	close(fd);
	return written < 0 ? (int)written : written == sizeof(text) - 1 ? 0 : -EIO;
}

/* The private directory and the sockets' paths in it. */
static int
make_dir(struct tc_consumerd_tunnel *tunnel)
{
	memcpy(tunnel->dir, TUNNEL_DIR_TEMPLATE, sizeof(TUNNEL_DIR_TEMPLATE));
	if (!mkdtemp(tunnel->dir)) {
		tunnel->dir[0] = '\0';
		return -errno;
	}
	snprintf(tunnel->control_path, sizeof(tunnel->control_path), "%s/control", tunnel->dir);
	snprintf(tunnel->data_path, sizeof(tunnel->data_path), "%s/data", tunnel->dir);
	return 0;
}

/* ---- public ---- */

int
tc_consumerd_tunnel_start(const struct tc_consumerd_tunnel_spec *spec,
			  struct tc_consumerd_tunnel **result)
{
	struct tc_consumerd_tunnel *tunnel;
	struct tunnel_args *args;
	int ret = check_spec(spec);

	if (ret < 0)
		return ret;
	tunnel = calloc(1, sizeof(*tunnel));
	args = calloc(1, sizeof(*args));
	if (!tunnel || !args) {
		free(tunnel);
		free(args);
		return -ENOMEM;
	}
	tunnel->pidfd = tunnel->errors_fd = -1;
	ret = find_program(args->program, sizeof(args->program));
	if (ret == 0)
		ret = make_dir(tunnel);
	if (ret == 0 && spec->prefer_aes_gcm)
		ret = write_config(tunnel);
	if (ret == 0) {
		build_args(args, tunnel, spec);
		ret = spawn(tunnel, args->program, args->argv);
	}
	free(args);
	if (ret < 0) {
		tc_consumerd_tunnel_stop(tunnel);
		return ret;
	}
	*result = tunnel;
	return 0;
}

static bool
is_socket(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

int
tc_consumerd_tunnel_check(struct tc_consumerd_tunnel *tunnel)
{
	/* Whatever ssh wrote before it exited is in the pipe by then. */
	bool exited = reap(tunnel);

	errors_read(tunnel);
	if (exited)
		return -ECONNABORTED;
	if (tunnel->ready)
		return 1;
	/* ssh makes the forwards in order, each listening before the next
	 * is bound: the data socket there means both are. */
	if (!is_socket(tunnel->data_path) || !is_socket(tunnel->control_path))
		return 0;
	tunnel->ready = true;
	tunnel->last[0] = '\0';
	return 1;
}

const char *
tc_consumerd_tunnel_path(const struct tc_consumerd_tunnel *tunnel, bool is_data)
{
	return is_data ? tunnel->data_path : tunnel->control_path;
}

const char *
tc_consumerd_tunnel_reason(struct tc_consumerd_tunnel *tunnel)
{
	struct pollfd pfd = {.fd = tunnel->pidfd, .events = POLLIN};
	const char *line = tunnel->last;
	int status;

	if (!reap(tunnel) && poll(&pfd, 1, TUNNEL_EXIT_GRACE_MS) == 1)
		reap(tunnel);
	errors_read(tunnel);
	status = tunnel->wait_status;
	if (strncmp(line, "ssh: ", 5) == 0)
		line += 5;
	if (*line)
		snprintf(tunnel->reason, sizeof(tunnel->reason), "ssh: %s", line);
	else if (tunnel->exited && WIFSIGNALED(status))
		snprintf(tunnel->reason, sizeof(tunnel->reason), "ssh was killed by signal %d",
			 WTERMSIG(status));
	else if (tunnel->exited)
		snprintf(tunnel->reason, sizeof(tunnel->reason), "ssh exited with status %d",
			 WEXITSTATUS(status));
	else
		tunnel->reason[0] = '\0';
	return tunnel->reason;
}

bool
tc_consumerd_tunnel_is_running(const struct tc_consumerd_tunnel *tunnel)
{
	return !tunnel->exited;
}

/* Ends ssh: SIGTERM lets it close its connection to the server; one that
 * has not ended within TUNNEL_STOP_WAIT_MS is killed. Then reaped. */
static void
end_process(struct tc_consumerd_tunnel *tunnel)
{
	struct pollfd pfd = {.fd = tunnel->pidfd, .events = POLLIN};

	if (tunnel->pid <= 0 || reap(tunnel))
		return;
	pidfd_send_signal(tunnel->pidfd, SIGTERM, NULL, 0);
	if (poll(&pfd, 1, TUNNEL_STOP_WAIT_MS) != 1)
		pidfd_send_signal(tunnel->pidfd, SIGKILL, NULL, 0);
	if (waitpid(tunnel->pid, &tunnel->wait_status, 0) == tunnel->pid)
		tunnel->exited = true;
}

void
tc_consumerd_tunnel_stop(struct tc_consumerd_tunnel *tunnel)
{
	if (!tunnel)
		return;
	end_process(tunnel);
	if (tunnel->pidfd >= 0)
		close(tunnel->pidfd);
	if (tunnel->errors_fd >= 0)
		close(tunnel->errors_fd);
	if (tunnel->dir[0]) {
		unlink(tunnel->control_path);
		unlink(tunnel->data_path);
		if (tunnel->config_path[0])
			unlink(tunnel->config_path);
		rmdir(tunnel->dir);
	}
	free(tunnel);
}
