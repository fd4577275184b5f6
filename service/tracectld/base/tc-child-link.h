/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

/*
 * The link to a child process that tracectld talks to over one
 * SOCK_SEQPACKET socket: the per-user consumers and the kernel helper.
 * It starts the child (or adopts a socket systemd's child connected),
 * sends one message with descriptors, receives one message with its
 * descriptors against a deadline, and ends the child. What the messages
 * mean, who may wait for what and under which lock stays with the caller
 * (consumer/tc-consumer.c, kernel/tc-kernel.c).
 *
 * The peer may be hostile (a consumer runs as its user, who can replace
 * it with any program): every message received is checked against the
 * caller's buffer and descriptor count, and a message that does not fit
 * is refused whole, its descriptors closed.
 *
 * The functions take no lock and keep no state beyond the TcChildLink:
 * the caller serializes sends and receives on one link as it needs. A
 * child is signalled through its pidfd only, never its pid, which the
 * kernel may give to another process once it was reaped elsewhere.
 */

/* How long a killed child is waited for before it is left to be reaped
 * later (tc_child_link_stop(), tc_child_link_wait()). */
#define TC_CHILD_LINK_KILL_WAIT_MS 1000

typedef struct {
	char name[64]; /* for logs, within a sentence: "the kernel helper" */
	int fd;	       /* the socket, -1 when none */
	GPid pid;      /* for logs and reaping; 0 when unknown */
	int pidfd;     /* -1 when unknown: the child cannot be signalled */
	/* Spawned by tc_child_link_spawn(): ours to wait for. An adopted
	 * child belongs to systemd, which reaps and stops it. */
	gboolean is_child;
} TcChildLink;

/* An empty link named name (within a sentence, for logs). */
void tc_child_link_init(TcChildLink *link, const char *name);

/*
 * Starts argv[0] with the child end of a new socket pair as target_fd,
 * in "/", with envp (NULL: ours), setup run in the child between fork and
 * exec, not reaped (G_SPAWN_DO_NOT_REAP_CHILD: the caller reaps through
 * tc_child_link_wait() or a child watch). Fills fd, pid and pidfd; a
 * pidfd that cannot be opened is logged and leaves pidfd at -1. FALSE with
 * error set, nothing left open, if the child could not be started.
 */
gboolean tc_child_link_spawn(TcChildLink *link, const char *const *argv, const char *const *envp,
			     int target_fd, GSpawnChildSetupFunc setup, gpointer setup_data,
			     GError **error);

/* Takes fd, a socket connected to process pid (0 if unknown) with its
 * pidfd (or -1), a child that is not ours to reap. */
void tc_child_link_adopt(TcChildLink *link, int fd, GPid pid, int pidfd);

/*
 * Sends size bytes of msg and n_fds descriptors (at most
 * TC_FD_PASSING_MAX, kept open) as one message. A child that does not
 * read holds the caller until deadline (monotonic, us) at most. Returns
 * 0, -ETIMEDOUT, -EPIPE if less than the whole message left, or another
 * negative errno.
 */
int tc_child_link_send(const TcChildLink *link, const void *msg, gsize size, const int *fds,
		       guint n_fds, gint64 deadline);

/*
 * Receives one message into buf (size bytes) and its descriptors into
 * fds (max_fds of them, at most TC_FD_PASSING_MAX, -1 where none came),
 * waiting until deadline (monotonic, us) at most; a deadline passed still
 * takes a message already there. Returns the message's length (> 0), or:
 *   -ETIMEDOUT  nothing came before the deadline;
 *   -EPIPE      the child closed its end (an empty message reads the
 *               same), or the socket failed;
 *   -EPROTO     a message longer than size, more than max_fds
 *               descriptors, or a truncated control message;
 *   -EINVAL     max_fds above TC_FD_PASSING_MAX;
 *   another negative errno if the socket could not be waited on.
 * On every error, each descriptor that came is closed and fds is all -1.
 */
gssize tc_child_link_receive(const TcChildLink *link, void *buf, gsize size, int *fds,
			     guint max_fds, gint64 deadline);

/* Sends SIGKILL through the pidfd, or to the pid of a spawned child that
 * has none (not reaped, its pid is still its own). FALSE (errno set) if
 * the signal failed or an adopted child has no pidfd; a child that
 * already exited is no failure. */
gboolean tc_child_link_kill(const TcChildLink *link);

/* Shuts the socket down both ways and keeps it open: the child reads EOF
 * (which both children take as "write out and exit"), a reader of ours
 * wakes with -EPIPE, and nobody polls a number reused meanwhile. */
void tc_child_link_shut(const TcChildLink *link);

/*
 * Waits up to timeout_ms (-1: no bound) for our child to exit and reaps
 * it. TRUE once it is reaped (or reaped elsewhere), or when the process is
 * not ours to wait for; FALSE if it still runs.
 */
gboolean tc_child_link_wait(const TcChildLink *link, int timeout_ms);

/*
 * Ends the child: EOF on its socket, then up to grace_ms (-1: no bound)
 * for it to exit; one that does not is killed (logged with its name and
 * pid) and waited for TC_CHILD_LINK_KILL_WAIT_MS. A child that is not
 * ours (adopted) is only told: systemd stops it. TRUE if it is reaped,
 * FALSE if a killed child is still to be reaped.
 */
gboolean tc_child_link_stop(TcChildLink *link, int grace_ms);

/* Closes the socket and the pidfd; the link is empty again but keeps its
 * name. Reaps nothing. */
void tc_child_link_clear(TcChildLink *link);
