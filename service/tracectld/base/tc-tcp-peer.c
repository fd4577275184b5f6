/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld"

#include "tc-tcp-peer.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tc-error.h"
#include "tc-peer-identity.h"

static gboolean
fail_errno(GError **error, int err, const char *what)
{
	g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "%s: %s", what, g_strerror(err));
	return FALSE;
}

/* The request for the peer's socket: its own addresses are ours swapped.
 * A peer's socket of family AF_INET6 (Java's, whatever the address) holds
 * the IPv4 addresses mapped (::ffff:a.b.c.d). */
static void
request_init(struct inet_diag_req_v2 *req, int family, const struct sockaddr_in *local,
	     const struct sockaddr_in *peer)
{
	guint word = family == AF_INET6 ? 3 : 0;

	*req = (struct inet_diag_req_v2){
	    .sdiag_family = family,
	    .sdiag_protocol = IPPROTO_TCP,
	    .idiag_states = ~0U,
	    .id = {
		.idiag_sport = peer->sin_port,
		.idiag_dport = local->sin_port,
		.idiag_cookie = {INET_DIAG_NOCOOKIE, INET_DIAG_NOCOOKIE},
	    },
	};
	if (family == AF_INET6) {
		req->id.idiag_src[2] = htonl(0xffff);
		req->id.idiag_dst[2] = htonl(0xffff);
	}
	req->id.idiag_src[word] = peer->sin_addr.s_addr;
	req->id.idiag_dst[word] = local->sin_addr.s_addr;
}

static gboolean
read_answer(int nl, const struct inet_diag_req_v2 *req, uid_t *uid, guint64 *inode,
	    GError **error)
{
	guint8 buffer[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	ssize_t n = recv(nl, buffer, sizeof(buffer), 0);
	const struct nlmsghdr *h = (const struct nlmsghdr *)buffer;

	if (n < 0)
		return fail_errno(error, errno, "Reading sock_diag's answer");
	for (; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
		const struct inet_diag_msg *msg = NLMSG_DATA(h);

		if (h->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *err = NLMSG_DATA(h);

			if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*err)))
				break;
			return fail_errno(error, -err->error, "The peer's socket");
		}
		if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
		    h->nlmsg_len < NLMSG_LENGTH(sizeof(*msg)))
			continue;
		/* The kernel matched these; check that it is the one asked. */
		if (msg->id.idiag_sport != req->id.idiag_sport ||
		    msg->id.idiag_dport != req->id.idiag_dport ||
		    memcmp(msg->id.idiag_src, req->id.idiag_src, sizeof(msg->id.idiag_src)) != 0 ||
		    memcmp(msg->id.idiag_dst, req->id.idiag_dst, sizeof(msg->id.idiag_dst)) != 0)
			continue;
		*uid = msg->idiag_uid;
		*inode = msg->idiag_inode;
		return TRUE;
	}
	g_set_error_literal(error, TC_ERROR, TC_ERROR_NOT_FOUND,
			    "The peer's socket is not on this machine any more");
	return FALSE;
}

/* The peer's socket looked up as family's. */
static gboolean
ask_sock_diag(int family, const struct sockaddr_in *local, const struct sockaddr_in *peer,
	      uid_t *uid, guint64 *inode, GError **error)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 req;
	} message = {
	    .nlh = {.nlmsg_len = sizeof(message), .nlmsg_type = SOCK_DIAG_BY_FAMILY,
		    .nlmsg_flags = NLM_F_REQUEST},
	};
	struct timeval timeout = {.tv_sec = 1};
	int nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	gboolean ok;

	if (nl < 0)
		return fail_errno(error, errno, "Opening sock_diag");
	request_init(&message.req, family, local, peer);
	(void)setsockopt(nl, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
	if (send(nl, &message, sizeof(message), 0) < 0)
		ok = fail_errno(error, errno, "Asking sock_diag");
	else
		ok = read_answer(nl, &message.req, uid, inode, error);
	close(nl);
	return ok;
}

gboolean
tc_tcp_peer_identify(int fd, uid_t *uid, guint64 *inode, GError **error)
{
	struct sockaddr_in local, peer;
	socklen_t local_len = sizeof(local), peer_len = sizeof(peer);

	if (getsockname(fd, (struct sockaddr *)&local, &local_len) < 0 ||
	    getpeername(fd, (struct sockaddr *)&peer, &peer_len) < 0)
		return fail_errno(error, errno, "The connection's addresses");
	if (local.sin_family != AF_INET || peer.sin_family != AF_INET) {
		g_set_error_literal(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    "Not an IPv4 connection");
		return FALSE;
	}
	if (ask_sock_diag(AF_INET, &local, &peer, uid, inode, NULL))
		return TRUE;
	return ask_sock_diag(AF_INET6, &local, &peer, uid, inode, error);
}

static gboolean
dir_has_socket(int dir_fd, guint64 inode, guint max_fds)
{
	g_autofree char *wanted = g_strdup_printf("socket:[%" G_GUINT64_FORMAT "]", inode);
	DIR *dir = fdopendir(dir_fd);
	struct dirent *entry;
	gboolean found = FALSE;
	guint seen = 0;

	if (dir == NULL) {
		close(dir_fd);
		return FALSE;
	}
	while (!found && seen < max_fds && (entry = readdir(dir)) != NULL) {
		char target[64];
		ssize_t n;

		if (entry->d_name[0] == '.')
			continue;
		seen++;
		n = readlinkat(dirfd(dir), entry->d_name, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		found = g_str_equal(target, wanted);
	}
	closedir(dir);
	return found;
}

gboolean
tc_tcp_peer_pid_holds(pid_t pid, uid_t uid, guint64 inode, guint max_fds, GError **error)
{
	g_autofree char *path = g_strdup_printf("/proc/%d", (int)pid);
	uid_t euid;
	int proc_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int fd_dir;
	gboolean holds;

	if (proc_fd < 0)
		return fail_errno(error, errno, "The agent's process");
	/* Its fd directory below is the same process's, opened through it. */
	if (!tc_peer_identity_proc_euid(proc_fd, &euid) || euid != uid) {
		close(proc_fd);
		g_set_error(error, TC_ERROR, TC_ERROR_PERMISSION_DENIED,
			    "Process %d does not run as uid %u", (int)pid, (unsigned)uid);
		return FALSE;
	}
	fd_dir = openat(proc_fd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(proc_fd);
	if (fd_dir < 0)
		return fail_errno(error, errno, "The agent's descriptors");
	holds = dir_has_socket(fd_dir, inode, max_fds);
	if (!holds)
		g_set_error(error, TC_ERROR, TC_ERROR_PERMISSION_DENIED,
			    "Process %d does not hold the connection it registered on", (int)pid);
	return holds;
}
