/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

/*
 * Who is at the other end of a TCP connection on the loopback. TCP has no
 * SO_PEERCRED; the kernel still knows which uid made the peer's socket
 * and its inode, and tells them through sock_diag (NETLINK_SOCK_DIAG, as
 * ss(8) asks). Both ends are on this machine and in this network
 * namespace, so the socket is found by its exact addresses and ports; a
 * peer that closed meanwhile is not found.
 *
 * A pid the peer claims is believed only when that process holds the
 * socket (its /proc/PID/fd lists "socket:[INODE]") and runs as the uid
 * the kernel gave.
 */

/* The uid and socket inode of the peer of the connected IPv4 socket fd. */
gboolean tc_tcp_peer_identify(int fd, uid_t *uid, guint64 *inode, GError **error);
/* Whether process pid runs as uid and holds the socket of inode among
 * its first max_fds descriptors. */
gboolean tc_tcp_peer_pid_holds(pid_t pid, uid_t uid, guint64 inode, guint max_fds,
			       GError **error);
