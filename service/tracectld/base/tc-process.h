/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

/*
 * Processes named by a pidfd. A pid is only a number: once its process has
 * exited and been reaped, the kernel may give it to any other process, so a
 * signal sent to a remembered pid can kill a stranger. A pidfd is taken
 * while the process is known to be the right one (our unreaped child, or
 * the peer of a connected socket) and keeps naming that process only.
 */

/* A pidfd of pid, which the caller knows to be the right process (for
 * example its own child, not reaped yet). Returns -1 with errno set. */
int tc_process_open(pid_t pid);
/* A pidfd of the process that connected socket_fd: SO_PEERPIDFD where the
 * kernel has it, otherwise pidfd_open() of the SO_PEERCRED pid, kept only
 * if the connection is still up afterwards (then its pid cannot have been
 * reused in between). Returns -1 with errno set. */
int tc_process_open_peer(int socket_fd);
/* Sends sig to the process of pidfd; a process that already exited is not
 * an error. Returns FALSE with errno set (EBADF for a pidfd < 0). */
gboolean tc_process_signal(int pidfd, int sig);
