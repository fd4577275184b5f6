/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld"

#include "tc-process.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <unistd.h>

/* Linux 6.5; the value is the same on every architecture but parisc. */
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

int
tc_process_open(pid_t pid)
{
	if (pid <= 0) {
		errno = ESRCH;
		return -1;
	}
	return pidfd_open(pid, 0);
}

/* TRUE while the other end of socket_fd has not hung up. */
static gboolean
peer_is_connected(int socket_fd)
{
	struct pollfd pfd = {.fd = socket_fd, .events = POLLIN};

	return poll(&pfd, 1, 0) >= 0 && !(pfd.revents & (POLLHUP | POLLERR | POLLNVAL));
}

int
tc_process_open_peer(int socket_fd)
{
	struct ucred cred;
	socklen_t len = sizeof(int);
	int pidfd = -1;

	if (getsockopt(socket_fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) == 0 && pidfd >= 0)
		return pidfd;
	if (errno != ENOPROTOOPT)
		return -1;
	len = sizeof(cred);
	if (getsockopt(socket_fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return -1;
	pidfd = tc_process_open(cred.pid);
	/* The pid named the peer when it connected; if the connection is still
	 * up now, the peer has not exited, so the pidfd is the peer's. */
	if (pidfd >= 0 && !peer_is_connected(socket_fd)) {
		close(pidfd);
		errno = ESRCH;
		return -1;
	}
	return pidfd;
}

gboolean
tc_process_signal(int pidfd, int sig)
{
	if (pidfd < 0) {
		errno = EBADF;
		return FALSE;
	}
	return pidfd_send_signal(pidfd, sig, NULL, 0) == 0 || errno == ESRCH;
}
