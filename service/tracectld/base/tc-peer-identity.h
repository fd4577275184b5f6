/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/socket.h>
#include <sys/types.h>

/*
 * Who pays for an application connection. The uid a socket peer runs as
 * is no good key for per-user limits: a user with a subordinate uid range
 * (newuidmap) runs processes as thousands of uids. What the kernel keeps
 * of the login does not change with them:
 *   1. the login uid (/proc/PID/loginuid), set at login and inherited,
 *      writable only with CAP_AUDIT_CONTROL in the initial namespace;
 *   2. else the uid of the systemd user slice the process lives in
 *      (user-UID.slice in /proc/PID/cgroup), which a user cannot leave;
 *   3. else (a service, a machine without either) the uid itself.
 * A login or slice of root held by another uid is that uid's (an
 * administrator's "su user" shell): root is never limited, and only the
 * processes root itself runs get that.
 *
 * The pid of SO_PEERCRED may be reused once the peer exits, so /proc/PID
 * is opened and then shown to still be the peer: with the pidfd of
 * SO_PEERPIDFD (the peer is alive after the open, so the pid was not
 * reused in between), else by checking that the process in it still has
 * the peer's uid.
 */

typedef enum {
	TC_PEER_USER_FROM_LOGINUID,
	TC_PEER_USER_FROM_SLICE,
	TC_PEER_USER_FROM_UID,
} TcPeerUserSource;

/* The accountable user of the peer of the connected socket fd, whose
 * SO_PEERCRED is cred. FALSE with error when the peer is gone (nothing
 * to account it to). */
gboolean tc_peer_identity_accountable_user(int fd, const struct ucred *cred, uid_t *user,
					   TcPeerUserSource *source, GError **error);
/* The same for a process known by pid and uid only (a bus peer, whose
 * pid the bus daemon gives): /proc/PID must still run as uid. */
gboolean tc_peer_identity_accountable_user_of_pid(pid_t pid, uid_t uid, uid_t *user,
						  TcPeerUserSource *source, GError **error);
const char *tc_peer_identity_user_source_name(TcPeerUserSource source);

/* The effective uid of the process whose /proc/PID directory is dir_fd
 * (its status' second Uid; the owner of its files is root's for a process
 * that is not dumpable). */
gboolean tc_peer_identity_proc_euid(int dir_fd, uid_t *euid);

/* The uid of "user-UID.slice" in the contents of a /proc/PID/cgroup file;
 * FALSE when the process is in no user slice. */
gboolean tc_peer_identity_parse_user_slice(const char *cgroup, uid_t *uid);

/* The peer's ids in its own namespaces, for tracking (tc-tracker.h):
 * the last pid of NSpid in its status, and its uid and gid mapped through
 * its uid_map and gid_map (-1 when they have no value there). A peer in
 * the service's user namespace has the same maps as the service: its ids
 * are then its own. FALSE with error when the peer is gone. */
gboolean tc_peer_identity_virtual_ids(int fd, const struct ucred *cred, gint64 *vpid, gint64 *vuid,
				      gint64 *vgid, GError **error);
/* The id that map (the text of a uid_map or gid_map) gives to outside;
 * -1 when no line of it covers outside. */
gint64 tc_peer_identity_parse_id_map(const char *map, guint32 outside);

/* The peer's control group in the unified hierarchy, as the kernel shows
 * it in /proc/PID/cgroup (*cgroup NULL when it shows none). FALSE with
 * error when the peer is gone. */
gboolean tc_peer_identity_cgroup(int fd, const struct ucred *cred, char **cgroup, GError **error);
