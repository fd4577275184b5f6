/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The part of a uprobe request that touches the owner's file: opening it
 * as the owner, checking it is a regular file, finding the function's or
 * the SDT probe's offset in it (and the probe's semaphore). It runs in a child forked for the request, which hands the
 * descriptor and the offset back over a socketpair: the file may live on
 * a file system its owner controls (a FUSE server that never answers
 * open(), which O_NONBLOCK does not prevent, or any slow or hung mount),
 * and only the child then waits in the kernel. The helper's poll loop
 * serves the other connections meanwhile; it waits for the child at most
 * TC_KERNEL_UPROBE_FILE_MS, then kills it (SIGKILL ends a FUSE wait) and
 * refuses the probe with -ETIMEDOUT. Changing ids and groups in the child
 * also leaves the helper's own credentials untouched.
 */
#include "tc-helper-target.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tc-fd-passing.h"
#include "tc-helper-elf.h"
#include "tc-helper-log.h"
#include "tc-helper-request.h"
#include "tc-kernel-abi.h"

/* What the child sends back, with the descriptor when status is 0. */
struct target_reply {
	int32_t status;
	uint32_t reserved;
	uint64_t offset;
	uint64_t ref_ctr_offset; /* an SDT probe's semaphore, or 0 */
};

/*
 * Opens path with the rights of the session owner (uid, gid and their
 * supplementary groups): nobody probes a file they cannot read. Setting the
 * file-system ids drops the helper's file capabilities for the open; the
 * supplementary groups are root's otherwise (group-readable root files).
 * O_NONBLOCK: opening a FIFO or a device would wait for its other end.
 * Runs in the child, which exits afterwards: nothing is restored.
 */
static int
open_as(const char *path, uint32_t uid, uint32_t gid)
{
	static gid_t groups[NGROUPS_MAX]; /* the kernel's limit */
	struct passwd *pw = getpwuid(uid);
	int nr_groups = NGROUPS_MAX;
	int fd;

	if (uid == (uint32_t)-1 || gid == (uint32_t)-1 || !pw)
		return -EINVAL;
	if (getgrouplist(pw->pw_name, gid, groups, &nr_groups) < 0)
		return -EPERM;
	if (setgroups((size_t)nr_groups, groups) < 0)
		return -errno;
	setfsgid(gid);
	setfsuid(uid);
	/* setfsuid() reports no error: asking again returns what is in force. */
	if ((uint32_t)setfsuid(uid) != uid || (uint32_t)setfsgid(gid) != gid)
		return -EPERM;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	return fd < 0 ? -errno : fd;
}

static bool
send_reply(int sock, const struct target_reply *reply, int fd)
{
	return tc_fd_send(sock, reply, sizeof(*reply), &fd, fd >= 0 ? 1 : 0, 0) ==
	       (ssize_t)sizeof(*reply);
}

/*
 * The child keeps only its end of the socketpair (not the helper's
 * connections), opens the file as the owner, and parses it as the owner
 * only: a parser bug a crafted file could exploit yields nothing the owner
 * could not do. Changing ids makes it non-dumpable, so the owner cannot
 * ptrace it either.
 */
static __attribute__((noreturn)) void
child_main(int sock, const struct tc_helper_uprobe_target *target, uint32_t uid, uint32_t gid)
{
	struct target_reply reply = {0};
	struct tc_helper_elf_sdt sdt;
	struct stat st;
	int fd;

	if (close_range(3, (unsigned int)sock - 1, 0) < 0 ||
	    close_range((unsigned int)sock + 1, ~0u, 0) < 0)
		_exit(1);
	fd = open_as(target->path, uid, gid);
	if (fd >= 0 && (setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0))
		_exit(1); /* never parse as root */
	reply.status = fd < 0 ? fd : 0;
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)))
		reply.status = -EMEDIUMTYPE;
	if (reply.status == 0 && target->provider[0]) {
		reply.status = tc_helper_elf_sdt_probe(fd, target->provider, target->name, &sdt);
		reply.offset = sdt.offset;
		reply.ref_ctr_offset = sdt.semaphore_offset;
	} else if (reply.status == 0) {
		reply.status = tc_helper_elf_function_offset(fd, target->name, &reply.offset);
	}
	_exit(send_reply(sock, &reply, reply.status == 0 ? fd : -1) ? 0 : 1);
}

/* Receives the child's reply: 0 with *fd, *offset and *ref_ctr_offset,
 * or -errno. */
static int
receive_reply(int sock, int *fd, uint64_t *offset, uint64_t *ref_ctr_offset)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	struct target_reply reply;
	struct iovec iov = {.iov_base = &reply, .iov_len = sizeof(reply)};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
			    .msg_controllen = sizeof(control.buf)};
	ssize_t len = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);

	*fd = -1;
	if (len > 0)
		tc_fd_collect(&mh, fd, 1);
	if (len != sizeof(reply) || (reply.status == 0) != (*fd >= 0) || reply.status > 0) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		return -EIO; /* the child died before it answered */
	}
	*offset = reply.offset;
	*ref_ctr_offset = reply.ref_ctr_offset;
	return reply.status;
}

/* Children killed at their deadline, reaped once they are gone: a child
 * stuck in a file system may take a moment to die, and is not waited for.
 * Unreaped, their pids cannot be reused, so killing them by pid is safe. */
#define ZOMBIES_MAX 256
static pid_t zombies[ZOMBIES_MAX];
static int nr_zombies;

static void
reap(pid_t pid)
{
	if (waitpid(pid, NULL, WNOHANG) == 0 && nr_zombies < ZOMBIES_MAX)
		zombies[nr_zombies++] = pid;
	for (int i = 0; i < nr_zombies; i++)
		if (waitpid(zombies[i], NULL, WNOHANG) != 0)
			zombies[i--] = zombies[--nr_zombies];
}

int
tc_helper_target_start(const struct tc_helper_uprobe_target *target, uint32_t uid, uint32_t gid,
		       struct tc_target_child *child)
{
	int pair[2], ret;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0)
		return -errno;
	child->pid = fork();
	if (child->pid == 0) {
		close(pair[0]);
		child_main(pair[1], target, uid, gid);
	}
	close(pair[1]);
	if (child->pid < 0) {
		ret = -errno;
		close(pair[0]);
		return ret;
	}
	child->sock = pair[0];
	child->deadline_ms = tc_helper_log_now_ms() + TC_KERNEL_UPROBE_FILE_MS;
	return 0;
}

void
tc_helper_target_abort(struct tc_target_child *child)
{
	kill(child->pid, SIGKILL); /* not reaped yet: still our child */
	close(child->sock);
	reap(child->pid);
}

int
tc_helper_target_end(struct tc_target_child *child, int *fd, uint64_t *offset,
		     uint64_t *ref_ctr_offset)
{
	struct pollfd pfd = {.fd = child->sock, .events = POLLIN};

	*fd = -1;
	*ref_ctr_offset = 0;
	if (poll(&pfd, 1, 0) == 1) {
		int ret = receive_reply(child->sock, fd, offset, ref_ctr_offset);

		close(child->sock);
		reap(child->pid);
		return ret;
	}
	tc_helper_target_abort(child);
	return -ETIMEDOUT;
}
