/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-apps"

#include "tc-peer-identity.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tc-error.h"
#include "tc-unit.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77 /* Linux 6.5 */
#endif

#define PROC_FILE_MAX 8192
#define LOGINUID_UNSET ((uid_t)-1)

const char *
tc_peer_identity_user_source_name(TcPeerUserSource source)
{
	switch (source) {
	case TC_PEER_USER_FROM_LOGINUID:
		return "login uid";
	case TC_PEER_USER_FROM_SLICE:
		return "user slice";
	case TC_PEER_USER_FROM_UID:
	default:
		return "uid";
	}
}

/* Reads at most PROC_FILE_MAX - 1 bytes of name in dir_fd, NUL-terminated;
 * NULL with errno on failure. */
static char *
read_proc_file(int dir_fd, const char *name)
{
	g_autofree char *buf = g_malloc(PROC_FILE_MAX);
	ssize_t len;
	int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	int saved;

	if (fd < 0)
		return NULL;
	do
		len = read(fd, buf, PROC_FILE_MAX - 1);
	while (len < 0 && errno == EINTR);
	saved = errno;
	close(fd);
	if (len < 0) {
		errno = saved;
		return NULL;
	}
	buf[len] = '\0';
	return g_steal_pointer(&buf);
}

gboolean
tc_peer_identity_parse_user_slice(const char *cgroup, uid_t *uid)
{
	const char *found = cgroup ? strstr(cgroup, "/user-") : NULL;

	for (; found; found = strstr(found + 1, "/user-")) {
		const char *digits = found + strlen("/user-");
		const char *end = digits;
		guint64 value;

		while (g_ascii_isdigit(*end))
			end++;
		if (end == digits || !g_str_has_prefix(end, ".slice") ||
		    (end[6] != '/' && end[6] != '\n' && end[6] != '\0'))
			continue;
		{
			g_autofree char *number = g_strndup(digits, end - digits);

			if (!g_ascii_string_to_unsigned(number, 10, 0, G_MAXUINT32 - 1, &value,
							NULL))
				continue;
		}
		*uid = (uid_t)value;
		return TRUE;
	}
	return FALSE;
}

gboolean
tc_peer_identity_proc_euid(int dir_fd, uid_t *euid)
{
	g_autofree char *status = read_proc_file(dir_fd, "status");
	const char *line = status ? strstr(status, "\nUid:") : NULL;
	unsigned real, effective;

	if (line == NULL || sscanf(line + 5, "%u %u", &real, &effective) != 2)
		return FALSE;
	*euid = effective;
	return TRUE;
}

/* Opens /proc/PID of the peer of fd (-1: no socket, only cred) and shows
 * it is still the peer. */
static int
open_peer_proc(int fd, const struct ucred *cred, GError **error)
{
	g_autofree char *path = g_strdup_printf("/proc/%d", (int)cred->pid);
	socklen_t len = sizeof(int);
	int pidfd = -1, dir_fd;
	gboolean is_peer;
	uid_t euid;

	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) < 0)
		pidfd = -1;
	dir_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND, "pid %d is gone: %s",
			    (int)cred->pid, g_strerror(errno));
		if (pidfd >= 0)
			close(pidfd);
		return -1;
	}
	if (pidfd >= 0) {
		/* The pidfd pins the peer's pid: alive now, so the number was
		 * not reused before the open. A pidfd turns readable when its
		 * process exits; polling it needs no right over the process,
		 * which signal 0 would (EPERM for another user's). */
		struct pollfd exited = {.fd = pidfd, .events = POLLIN};

		is_peer = poll(&exited, 1, 0) == 0;
		close(pidfd);
	} else {
		is_peer = tc_peer_identity_proc_euid(dir_fd, &euid) && euid == cred->uid;
	}
	if (!is_peer) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND,
			    "pid %d is no longer the process that connected", (int)cred->pid);
		close(dir_fd);
		return -1;
	}
	return dir_fd;
}

static gboolean accountable_user_in(int dir_fd, const struct ucred *cred, uid_t *user,
				    TcPeerUserSource *source, GError **error);

gboolean
tc_peer_identity_accountable_user(int fd, const struct ucred *cred, uid_t *user,
				  TcPeerUserSource *source, GError **error)
{
	int dir_fd = open_peer_proc(fd, cred, error);

	return dir_fd >= 0 && accountable_user_in(dir_fd, cred, user, source, error);
}

gboolean
tc_peer_identity_accountable_user_of_pid(pid_t pid, uid_t uid, uid_t *user,
					 TcPeerUserSource *source, GError **error)
{
	struct ucred cred = {.pid = pid, .uid = uid};
	int dir_fd = open_peer_proc(-1, &cred, error);

	return dir_fd >= 0 && accountable_user_in(dir_fd, &cred, user, source, error);
}

/* Reads the accountable user from /proc/PID of the peer, then closes it. */
static gboolean
accountable_user_in(int dir_fd, const struct ucred *cred, uid_t *user, TcPeerUserSource *source,
		    GError **error)
{
	g_autofree char *loginuid = NULL;
	g_autofree char *cgroup = NULL;
	guint64 value;

	*user = cred->uid;
	*source = TC_PEER_USER_FROM_UID;
	/* A file that cannot be read because the peer exited meanwhile must
	 * not make it fall back to its uid: only one that does not exist
	 * (a kernel without audit) may. */
	loginuid = read_proc_file(dir_fd, "loginuid");
	if (loginuid == NULL && errno != ENOENT)
		goto gone;
	if (loginuid && g_ascii_string_to_unsigned(g_strstrip(loginuid), 10, 0, G_MAXUINT32,
						   &value, NULL) &&
	    (uid_t)value != LOGINUID_UNSET) {
		*user = (uid_t)value;
		*source = TC_PEER_USER_FROM_LOGINUID;
	} else {
		cgroup = read_proc_file(dir_fd, "cgroup");
		if (cgroup == NULL && errno != ENOENT)
			goto gone;
		if (tc_peer_identity_parse_user_slice(cgroup, user))
			*source = TC_PEER_USER_FROM_SLICE;
	}
	close(dir_fd);
	if (*user == 0 && cred->uid != 0) {
		*user = cred->uid;
		*source = TC_PEER_USER_FROM_UID;
	}
	return TRUE;
gone:
	g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND, "cannot read /proc/%d: %s",
		    (int)cred->pid, g_strerror(errno));
	close(dir_fd);
	return FALSE;
}

gint64
tc_peer_identity_parse_id_map(const char *map, guint32 outside)
{
	g_auto(GStrv) lines = g_strsplit(map ? map : "", "\n", 0);

	for (guint i = 0; lines[i]; i++) {
		guint64 inside_first, outside_first, length;

		if (sscanf(lines[i], "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
				     " %" G_GUINT64_FORMAT,
			   &inside_first, &outside_first, &length) != 3)
			continue;
		if (outside >= outside_first && outside - outside_first < length &&
		    inside_first + (outside - outside_first) <= G_MAXUINT32)
			return (gint64)(inside_first + (outside - outside_first));
	}
	return -1;
}

/* The last number of the "NSpid:" line of a status file, -1 if none. */
static gint64
parse_nspid(const char *status)
{
	const char *line = status ? strstr(status, "\nNSpid:") : NULL;
	gint64 last = -1;
	const char *at;

	if (line == NULL)
		return -1;
	at = line + strlen("\nNSpid:");
	while (*at && *at != '\n') {
		char *end;
		guint64 value;

		while (*at == ' ' || *at == '\t')
			at++;
		if (!g_ascii_isdigit(*at))
			break;
		value = g_ascii_strtoull(at, &end, 10);
		last = value <= G_MAXINT32 ? (gint64)value : -1;
		at = end;
	}
	return last;
}

/* The service's own map (its user namespace never changes), or "". */
static const char *
self_map(const char *map_name)
{
	static gsize once_uid, once_gid;
	static char *uid_map, *gid_map;
	gboolean is_uid = g_str_equal(map_name, "uid_map");
	gsize *once = is_uid ? &once_uid : &once_gid;
	char **map = is_uid ? &uid_map : &gid_map;

	if (g_once_init_enter(once)) {
		g_autofree char *path = g_strdup_printf("/proc/self/%s", map_name);

		if (!g_file_get_contents(path, map, NULL, NULL))
			*map = g_strdup("");
		g_once_init_leave(once, 1);
	}
	return *map;
}

/* The peer's id in its user namespace: outside itself when its map is the
 * service's own (the same namespace, whose map is relative to the parent's,
 * not to the service's). */
static gint64
virtual_id(int dir_fd, const char *map_name, guint32 outside)
{
	g_autofree char *map = read_proc_file(dir_fd, map_name);

	if (map == NULL)
		return -1;
	if (g_str_equal(self_map(map_name), map))
		return outside;
	return tc_peer_identity_parse_id_map(map, outside);
}

gboolean
tc_peer_identity_virtual_ids(int fd, const struct ucred *cred, gint64 *vpid, gint64 *vuid,
			     gint64 *vgid, GError **error)
{
	int dir_fd = open_peer_proc(fd, cred, error);
	g_autofree char *status = NULL;

	if (dir_fd < 0)
		return FALSE;
	status = read_proc_file(dir_fd, "status");
	if (status == NULL) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND, "cannot read /proc/%d: %s",
			    (int)cred->pid, g_strerror(errno));
		close(dir_fd);
		return FALSE;
	}
	*vpid = parse_nspid(status);
	*vuid = virtual_id(dir_fd, "uid_map", cred->uid);
	*vgid = virtual_id(dir_fd, "gid_map", cred->gid);
	close(dir_fd);
	return TRUE;
}

gboolean
tc_peer_identity_cgroup(int fd, const struct ucred *cred, char **cgroup, GError **error)
{
	int dir_fd = open_peer_proc(fd, cred, error);
	g_autofree char *contents = NULL;

	*cgroup = NULL;
	if (dir_fd < 0)
		return FALSE;
	contents = read_proc_file(dir_fd, "cgroup");
	if (contents == NULL && errno != ENOENT) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND, "cannot read /proc/%d: %s",
			    (int)cred->pid, g_strerror(errno));
		close(dir_fd);
		return FALSE;
	}
	close(dir_fd);
	*cgroup = tc_unit_parse_proc_cgroup(contents);
	return TRUE;
}
