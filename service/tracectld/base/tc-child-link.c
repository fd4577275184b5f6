/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld"

#include "tc-child-link.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tc-error.h"
#include "tc-fd-passing.h"
#include "tc-process.h"

/* The slice a blocked send waits for room before it tries again. */
#define SEND_POLL_SLICE_MS 100
/* The slice a child without a pidfd is polled in while it is waited for. */
#define REAP_POLL_MS 10

void
tc_child_link_init(TcChildLink *link, const char *name)
{
	memset(link, 0, sizeof(*link));
	g_strlcpy(link->name, name, sizeof(link->name));
	link->fd = -1;
	link->pidfd = -1;
}

gboolean
tc_child_link_spawn(TcChildLink *link, const char *const *argv, const char *const *envp,
		    int target_fd, GSpawnChildSetupFunc setup, gpointer setup_data, GError **error)
{
	int pair[2], target_fds[1] = {target_fd};
	GPid pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "socketpair: %s", g_strerror(errno));
		return FALSE;
	}
	if (!g_spawn_async_with_pipes_and_fds("/", argv, envp, G_SPAWN_DO_NOT_REAP_CHILD, setup,
					      setup_data, -1, -1, -1, &pair[1], target_fds, 1, &pid,
					      NULL, NULL, NULL, error)) {
		close(pair[0]);
		close(pair[1]);
		return FALSE;
	}
	close(pair[1]);
	link->fd = pair[0];
	link->pid = pid;
	link->is_child = TRUE;
	/* Not reaped before the caller's wait or child watch: pid is still its. */
	link->pidfd = tc_process_open(pid);
	if (link->pidfd < 0)
		g_warning("Cannot open a pidfd of %s (pid %d), it cannot be killed if it hangs: %s",
			  link->name, (int)pid, g_strerror(errno));
	return TRUE;
}

void
tc_child_link_adopt(TcChildLink *link, int fd, GPid pid, int pidfd)
{
	link->fd = fd;
	link->pid = pid;
	link->pidfd = pidfd;
	link->is_child = FALSE;
}

/* Milliseconds from now to deadline, rounded up so that a poll that times
 * out has reached it; 0 once passed. */
static int
ms_until(gint64 deadline)
{
	gint64 left_us = deadline - g_get_monotonic_time();

	if (left_us <= 0)
		return 0;
	return (int)MIN((left_us + 999) / 1000, G_MAXINT);
}

int
tc_child_link_send(const TcChildLink *link, const void *msg, gsize size, const int *fds,
		   guint n_fds, gint64 deadline)
{
	gssize sent;

	for (;;) {
		struct pollfd pfd = {.fd = link->fd, .events = POLLOUT};
		int left_ms = ms_until(deadline);

		sent = tc_fd_send(link->fd, msg, size, fds, n_fds, MSG_DONTWAIT);
		if (sent != -EAGAIN)
			break;
		if (left_ms <= 0)
			return -ETIMEDOUT;
		poll(&pfd, 1, MIN(left_ms, SEND_POLL_SLICE_MS));
	}
	if (sent < 0)
		return (int)sent;
	return sent == (gssize)size ? 0 : -EPIPE;
}

/* Waits for something to read until deadline: 1, 0 when none came, or a
 * negative errno. */
static int
wait_readable(int fd, gint64 deadline)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	int n;

	do
		n = poll(&pfd, 1, ms_until(deadline));
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

/* One recvmsg() into buf and fds, checked: the length (> 0) or a negative
 * errno as tc_child_link_receive() says, -EAGAIN when nothing was there
 * after all. On an error, fds is all -1 and what came is closed. */
static gssize
receive_checked(int sock, void *buf, gsize size, int *fds, guint max_fds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * TC_FD_PASSING_MAX)];
		struct cmsghdr align;
	} control;
	struct iovec iov = {.iov_base = buf, .iov_len = size};
	struct msghdr mh = {
	    .msg_iov = &iov,
	    .msg_iovlen = 1,
	    .msg_control = control.buf,
	    /* Room for max_fds at least: CMSG_SPACE() may round up to one
	     * more, which the count below refuses. */
	    .msg_controllen = max_fds > 0 ? CMSG_SPACE(sizeof(int) * max_fds) : 0,
	};
	gssize len = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	gsize count;

	if (len < 0)
		return errno == EAGAIN || errno == EINTR ? -EAGAIN : -EPIPE;
	/* Every descriptor that came is in fds now, or closed. */
	count = tc_fd_collect(&mh, fds, max_fds);
	if (len > 0 && count <= max_fds && !(mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
		return len;
	for (guint i = 0; i < max_fds; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
	if (len == 0 && count == 0)
		return -EPIPE; /* the end of the connection */
	return -EPROTO;
}

gssize
tc_child_link_receive(const TcChildLink *link, void *buf, gsize size, int *fds, guint max_fds,
		      gint64 deadline)
{
	if (max_fds > TC_FD_PASSING_MAX)
		return -EINVAL;
	for (guint i = 0; i < max_fds; i++)
		fds[i] = -1;
	for (;;) {
		int ready = wait_readable(link->fd, deadline);
		gssize len;

		if (ready < 0)
			return ready;
		if (ready == 0)
			return -ETIMEDOUT;
		len = receive_checked(link->fd, buf, size, fds, max_fds);
		if (len != -EAGAIN)
			return len;
		if (g_get_monotonic_time() >= deadline)
			return -ETIMEDOUT;
	}
}

gboolean
tc_child_link_kill(const TcChildLink *link)
{
	if (link->pidfd >= 0)
		return tc_process_signal(link->pidfd, SIGKILL);
	/* Without a pidfd, the pid of a child of ours that is not reaped yet
	 * still names it: only its reaping frees the pid. */
	if (link->is_child && link->pid > 0)
		return kill(link->pid, SIGKILL) == 0 || errno == ESRCH;
	errno = EBADF;
	return FALSE;
}

void
tc_child_link_shut(const TcChildLink *link)
{
	if (link->fd >= 0)
		shutdown(link->fd, SHUT_RDWR);
}

/* Reaps our child if it exited: TRUE once it is gone (or was reaped
 * elsewhere: a child watch), FALSE while it runs. */
static gboolean
reap(GPid pid)
{
	int status;

	return waitpid(pid, &status, WNOHANG) != 0;
}

gboolean
tc_child_link_wait(const TcChildLink *link, int timeout_ms)
{
	gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;

	if (!link->is_child || link->pid <= 0)
		return TRUE;
	/* A pidfd becomes readable when its process exits. */
	if (link->pidfd >= 0) {
		struct pollfd pfd = {.fd = link->pidfd, .events = POLLIN};
		int n;

		do
			n = poll(&pfd, 1, timeout_ms < 0 ? -1 : ms_until(deadline));
		while (n < 0 && errno == EINTR);
		return reap(link->pid);
	}
	while (!reap(link->pid)) {
		if (timeout_ms >= 0 && g_get_monotonic_time() >= deadline)
			return FALSE;
		g_usleep(REAP_POLL_MS * 1000);
	}
	return TRUE;
}

gboolean
tc_child_link_stop(TcChildLink *link, int grace_ms)
{
	tc_child_link_shut(link);
	if (tc_child_link_wait(link, grace_ms))
		return TRUE;
	g_warning("Stopping %s (pid %d): it did not exit, killing it", link->name, (int)link->pid);
	tc_child_link_kill(link);
	return tc_child_link_wait(link, TC_CHILD_LINK_KILL_WAIT_MS);
}

void
tc_child_link_clear(TcChildLink *link)
{
	if (link->fd >= 0)
		close(link->fd);
	if (link->pidfd >= 0)
		close(link->pidfd);
	link->fd = -1;
	link->pidfd = -1;
	link->pid = 0;
	link->is_child = FALSE;
}
