/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/stat.h>
#include <sys/types.h>

/*
 * The run directory (/run/tracectl): the sockets applications, consumers
 * and clients connect to, the bus address and the wait page. Whoever can
 * write into it can replace any of them, so the service refuses a
 * directory that someone else owns or may write, and creates its sockets
 * with their final mode before anyone can connect, without ever changing
 * a mode through a path that someone else could have swapped.
 */

/* Creates rundir (0755) if it is missing, then checks it through a
 * descriptor opened without following links: a directory owned by the
 * service's uid or root, writable by nobody else. */
gboolean tc_rundir_prepare(const char *rundir, GError **error);
/* A listening SOCK_SEQPACKET socket (socket_flags: SOCK_CLOEXEC and the
 * like) at path, with mode, atomically replacing a stale socket there. It
 * is bound in a private directory next to path, given its mode there and
 * renamed into place, so it has its mode from the moment it can be
 * reached. Returns the descriptor, or -1 with error set. */
int tc_rundir_listen(const char *path, int socket_flags, mode_t mode, int backlog, GError **error);
/* The same with a SOCK_STREAM socket, the kind LTTng's applications
 * connect to. */
int tc_rundir_listen_stream(const char *path, int socket_flags, mode_t mode, int backlog,
			    GError **error);

/* TRUE when path is still the file known was taken from: an instance that
 * stops must not remove what the next one already created. */
gboolean tc_rundir_is_same_file(const char *path, const struct stat *known);
