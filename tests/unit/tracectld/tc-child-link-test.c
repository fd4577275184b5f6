/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The link to a child process (tc-child-link.c): messages with and
 * without descriptors, the refusals of what does not fit, deadlines, and
 * the end of a child, through a socketpair and through spawned children. */
#include <errno.h>
#include <glib.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tc-child-link.h"
#include "tc-fd-passing.h"

/* A link adopted on one end of a socket pair; *peer is the other end. */
static void
link_on_pair(TcChildLink *link, int *peer)
{
	int pair[2];

	g_assert_no_errno(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair));
	tc_child_link_init(link, "the test's peer");
	tc_child_link_adopt(link, pair[0], 0, -1);
	*peer = pair[1];
}

static gint64
in_ms(int ms)
{
	return g_get_monotonic_time() + (gint64)ms * 1000;
}

/* Whether a reader of the pipe whose write end is write_fd remains
 * anywhere in this process: a descriptor the link closed is no reader. */
static gboolean
pipe_has_reader(int write_fd)
{
	if (write(write_fd, "x", 1) == 1)
		return TRUE;
	g_assert_cmpint(errno, ==, EPIPE);
	return FALSE;
}

static void
test_message(void)
{
	TcChildLink link;
	char buf[64];
	int peer, fds[2], pipe_fds[2];
	gssize len;

	link_on_pair(&link, &peer);
	/* Without descriptors, both ways. */
	g_assert_cmpint(tc_child_link_send(&link, "ping", 4, NULL, 0, in_ms(1000)), ==, 0);
	g_assert_cmpint(recv(peer, buf, sizeof(buf), 0), ==, 4);
	g_assert_cmpmem(buf, 4, "ping", 4);
	g_assert_cmpint(tc_fd_send(peer, "pong", 4, NULL, 0, 0), ==, 4);
	len = tc_child_link_receive(&link, buf, sizeof(buf), fds, 2, in_ms(1000));
	g_assert_cmpint(len, ==, 4);
	g_assert_cmpmem(buf, 4, "pong", 4);
	g_assert_cmpint(fds[0], ==, -1);
	g_assert_cmpint(fds[1], ==, -1);

	/* One descriptor of the two allowed: it works, the other slot is -1. */
	g_assert_no_errno(pipe(pipe_fds));
	g_assert_cmpint(tc_fd_send(peer, "fd", 2, &pipe_fds[1], 1, 0), ==, 2);
	close(pipe_fds[1]);
	len = tc_child_link_receive(&link, buf, sizeof(buf), fds, 2, in_ms(1000));
	g_assert_cmpint(len, ==, 2);
	g_assert_cmpint(fds[0], >=, 0);
	g_assert_cmpint(fds[1], ==, -1);
	g_assert_cmpint(write(fds[0], "y", 1), ==, 1);
	g_assert_cmpint(read(pipe_fds[0], buf, 1), ==, 1);
	g_assert_cmpint(buf[0], ==, 'y');
	close(fds[0]);
	close(pipe_fds[0]);

	/* The link sends descriptors too. */
	g_assert_no_errno(pipe(pipe_fds));
	g_assert_cmpint(tc_child_link_send(&link, "fd", 2, &pipe_fds[0], 1, in_ms(1000)), ==, 0);
	close(pipe_fds[0]);
	{
		union {
			char buf[CMSG_SPACE(sizeof(int))];
			struct cmsghdr align;
		} control;
		struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
		struct msghdr mh = {.msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = control.buf,
				    .msg_controllen = sizeof(control.buf)};
		int got = -1;

		g_assert_cmpint(recvmsg(peer, &mh, MSG_CMSG_CLOEXEC), ==, 2);
		g_assert_cmpuint(tc_fd_collect(&mh, &got, 1), ==, 1);
		g_assert_true(pipe_has_reader(pipe_fds[1]));
		close(got);
		g_assert_false(pipe_has_reader(pipe_fds[1]));
	}
	close(pipe_fds[1]);
	close(peer);
	tc_child_link_clear(&link);
}

/* A message longer than the buffer is refused whole, and its descriptor
 * closed: no reader of the pipe remains once ours is closed. */
static void
test_truncated(void)
{
	TcChildLink link;
	char big[64] = {0}, buf[16];
	int peer, fds[1], pipe_fds[2];

	link_on_pair(&link, &peer);
	g_assert_no_errno(pipe(pipe_fds));
	g_assert_cmpint(tc_fd_send(peer, big, sizeof(big), &pipe_fds[0], 1, 0), ==, sizeof(big));
	close(pipe_fds[0]);
	g_assert_cmpint(tc_child_link_receive(&link, buf, sizeof(buf), fds, 1, in_ms(1000)), ==,
			-EPROTO);
	g_assert_cmpint(fds[0], ==, -1);
	g_assert_false(pipe_has_reader(pipe_fds[1]));
	/* The next message, which fits, is read as usual. */
	g_assert_cmpint(tc_fd_send(peer, big, sizeof(buf), NULL, 0, 0), ==, sizeof(buf));
	g_assert_cmpint(tc_child_link_receive(&link, buf, sizeof(buf), fds, 1, in_ms(1000)), ==,
			sizeof(buf));
	close(pipe_fds[1]);
	close(peer);
	tc_child_link_clear(&link);
}

/* More descriptors than asked for: refused, every one closed; none at all
 * asked for and one sent: refused too. */
static void
test_too_many_fds(void)
{
	TcChildLink link;
	char buf[16];
	int peer, fds[3], pipe_fds[2], sent[3];

	link_on_pair(&link, &peer);
	for (guint max = 0; max <= 2; max++) {
		g_assert_no_errno(pipe(pipe_fds));
		for (guint i = 0; i <= max; i++)
			sent[i] = pipe_fds[0];
		g_assert_cmpint(tc_fd_send(peer, "many", 4, sent, max + 1, 0), ==, 4);
		close(pipe_fds[0]);
		g_assert_cmpint(
		    tc_child_link_receive(&link, buf, sizeof(buf), fds, max, in_ms(1000)), ==,
		    -EPROTO);
		for (guint i = 0; i < max; i++)
			g_assert_cmpint(fds[i], ==, -1);
		g_assert_false(pipe_has_reader(pipe_fds[1]));
		close(pipe_fds[1]);
	}
	/* An empty message is no message: it reads as the end. */
	g_assert_cmpint(send(peer, "", 0, 0), ==, 0);
	g_assert_cmpint(tc_child_link_receive(&link, buf, sizeof(buf), fds, 1, in_ms(1000)), ==,
			-EPIPE);
	g_assert_cmpint(
	    tc_child_link_receive(&link, buf, sizeof(buf), fds, TC_FD_PASSING_MAX + 1, in_ms(1000)),
	    ==, -EINVAL);
	close(peer);
	tc_child_link_clear(&link);
}

/* Nothing comes: the receive ends at its deadline, not before and not
 * much after; a closed peer is -EPIPE at once; a peer that does not read
 * holds a send until its deadline. */
static void
test_deadline(void)
{
	TcChildLink link;
	char buf[16], chunk[4096] = {0};
	int peer, fds[1];
	gint64 start = g_get_monotonic_time(), waited;
	int res;

	link_on_pair(&link, &peer);
	g_assert_cmpint(tc_child_link_receive(&link, buf, sizeof(buf), fds, 1, in_ms(200)), ==,
			-ETIMEDOUT);
	waited = g_get_monotonic_time() - start;
	g_assert_cmpint(waited, >=, 200 * 1000);
	g_assert_cmpint(waited, <, 2 * G_USEC_PER_SEC);

	while ((res = tc_child_link_send(&link, chunk, sizeof(chunk), NULL, 0, in_ms(0))) == 0)
		;
	g_assert_cmpint(res, ==, -ETIMEDOUT);
	start = g_get_monotonic_time();
	g_assert_cmpint(tc_child_link_send(&link, chunk, sizeof(chunk), NULL, 0, in_ms(200)), ==,
			-ETIMEDOUT);
	waited = g_get_monotonic_time() - start;
	g_assert_cmpint(waited, >=, 200 * 1000);
	g_assert_cmpint(waited, <, 2 * G_USEC_PER_SEC);

	close(peer);
	start = g_get_monotonic_time();
	/* The queued messages were the peer's to read: the end comes now. */
	g_assert_cmpint(tc_child_link_receive(&link, buf, sizeof(buf), fds, 1, in_ms(5000)), ==,
			-EPIPE);
	g_assert_cmpint(g_get_monotonic_time() - start, <, G_USEC_PER_SEC);
	g_assert_cmpint(tc_child_link_send(&link, "x", 1, NULL, 0, in_ms(1000)), ==, -EPIPE);
	tc_child_link_clear(&link);
}

/* A spawned child that echoes each message on its socket (fd 3): a round
 * trip, then EOF ends it within its grace, unkilled. */
static void
test_spawn_echo(void)
{
	const char *argv[] = {"/bin/sh", "-c", "exec cat <&3 >&3", NULL};
	g_autoptr(GError) error = NULL;
	TcChildLink link;
	char buf[16];
	int fds[1];
	gint64 start;

	tc_child_link_init(&link, "the echo child");
	g_assert_true(tc_child_link_spawn(&link, argv, NULL, 3, NULL, NULL, &error));
	g_assert_no_error(error);
	g_assert_cmpint(link.pid, >, 0);
	g_assert_cmpint(link.pidfd, >=, 0);
	g_assert_true(link.is_child);
	g_assert_cmpint(tc_child_link_send(&link, "hello", 5, NULL, 0, in_ms(1000)), ==, 0);
	g_assert_cmpint(tc_child_link_receive(&link, buf, sizeof(buf), fds, 1, in_ms(5000)), ==, 5);
	g_assert_cmpmem(buf, 5, "hello", 5);
	start = g_get_monotonic_time();
	g_assert_true(tc_child_link_stop(&link, 10000));
	g_assert_cmpint(g_get_monotonic_time() - start, <, 5 * G_USEC_PER_SEC);
	/* Reaped: the pid is no child of ours any more. */
	g_assert_cmpint(waitpid(link.pid, NULL, WNOHANG), ==, -1);
	g_assert_cmpint(errno, ==, ECHILD);
	tc_child_link_clear(&link);
}

/* A child that ignores the end of its socket (and SIGTERM) is killed once
 * its grace is over, and reaped. A child that cannot be started leaves
 * nothing open. */
static void
test_kill_hung(void)
{
	const char *argv[] = {"/bin/sh", "-c", "trap '' TERM; exec sleep 60", NULL};
	const char *missing[] = {"/nonexistent/tracectl-child", NULL};
	g_autoptr(GError) error = NULL;
	TcChildLink link;
	gint64 start;
	GPid pid;

	tc_child_link_init(&link, "the hung child");
	g_assert_true(tc_child_link_spawn(&link, argv, NULL, 3, NULL, NULL, &error));
	pid = link.pid;
	g_assert_false(tc_child_link_wait(&link, 100));
	g_test_expect_message("tracectld", G_LOG_LEVEL_WARNING,
			      "Stopping the hung child (pid *): it did not exit, killing it");
	start = g_get_monotonic_time();
	g_assert_true(tc_child_link_stop(&link, 300));
	g_test_assert_expected_messages();
	g_assert_cmpint(g_get_monotonic_time() - start, >=, 300 * 1000);
	g_assert_cmpint(g_get_monotonic_time() - start, <, 5 * G_USEC_PER_SEC);
	g_assert_cmpint(waitpid(pid, NULL, WNOHANG), ==, -1);
	g_assert_cmpint(errno, ==, ECHILD);
	tc_child_link_clear(&link);

	tc_child_link_init(&link, "the missing child");
	g_assert_false(tc_child_link_spawn(&link, missing, NULL, 3, NULL, NULL, &error));
	g_assert_nonnull(error);
	g_assert_cmpint(link.fd, ==, -1);
	g_assert_cmpint(link.pidfd, ==, -1);
}

/* A spawned child whose pidfd could not be opened is still killed, by
 * its pid: it is not reaped, so the pid is still its own. */
static void
test_kill_without_pidfd(void)
{
	const char *argv[] = {"/bin/sh", "-c", "trap '' TERM; exec sleep 60", NULL};
	g_autoptr(GError) error = NULL;
	TcChildLink link;
	GPid pid;

	tc_child_link_init(&link, "the child without a pidfd");
	g_assert_true(tc_child_link_spawn(&link, argv, NULL, 3, NULL, NULL, &error));
	pid = link.pid;
	close(link.pidfd);
	link.pidfd = -1;
	g_assert_true(tc_child_link_kill(&link));
	g_assert_true(tc_child_link_wait(&link, 5000));
	g_assert_cmpint(waitpid(pid, NULL, WNOHANG), ==, -1);
	g_assert_cmpint(errno, ==, ECHILD);
	tc_child_link_clear(&link);
}

/* An adopted process is systemd's: stopping it only shuts the socket,
 * never waits for it or signals it. */
static void
test_adopted_not_waited(void)
{
	TcChildLink link;
	char buf[4];
	int peer;

	link_on_pair(&link, &peer);
	g_assert_true(tc_child_link_wait(&link, -1));
	g_assert_true(tc_child_link_stop(&link, -1));
	g_assert_cmpint(recv(peer, buf, sizeof(buf), 0), ==, 0); /* EOF */
	close(peer);
	tc_child_link_clear(&link);
}

int
main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/child-link/message", test_message);
	g_test_add_func("/tracectl/child-link/truncated", test_truncated);
	g_test_add_func("/tracectl/child-link/too-many-fds", test_too_many_fds);
	g_test_add_func("/tracectl/child-link/deadline", test_deadline);
	g_test_add_func("/tracectl/child-link/spawn-echo", test_spawn_echo);
	g_test_add_func("/tracectl/child-link/kill-hung", test_kill_hung);
	g_test_add_func("/tracectl/child-link/kill-without-pidfd", test_kill_without_pidfd);
	g_test_add_func("/tracectl/child-link/adopted-not-waited", test_adopted_not_waited);
	return g_test_run();
}
