/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld"

#include "tc-rundir.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "tc-error.h"

static gboolean
set_errno_error(GError **error, const char *what, const char *path)
{
	int saved = errno;

	g_set_error(error, G_IO_ERROR, g_io_error_from_errno(saved), "Cannot %s '%s': %s", what,
		    path, g_strerror(saved));
	return FALSE;
}

static gboolean
check_rundir_stat(const char *rundir, const struct stat *st, GError **error)
{
	uid_t self = geteuid();

	if (!S_ISDIR(st->st_mode)) {
		g_set_error(error, TC_ERROR, TC_ERROR_PERMISSION_DENIED,
			    "The run directory '%s' is not a directory", rundir);
		return FALSE;
	}
	if (st->st_uid != self && st->st_uid != 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_PERMISSION_DENIED,
			    "The run directory '%s' is owned by uid %u, not by root or the "
			    "service's uid %u: refusing to start (remove it, or give it to uid %u)",
			    rundir, (unsigned)st->st_uid, (unsigned)self, (unsigned)self);
		return FALSE;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		g_set_error(error, TC_ERROR, TC_ERROR_PERMISSION_DENIED,
			    "The run directory '%s' has mode %04o, writable by its group or "
			    "others: refusing to start (chmod go-w '%s')",
			    rundir, (unsigned)(st->st_mode & 07777), rundir);
		return FALSE;
	}
	return TRUE;
}

gboolean
tc_rundir_prepare(const char *rundir, GError **error)
{
	struct stat st;
	int fd;

	if (g_mkdir_with_parents(rundir, 0755) < 0)
		return set_errno_error(error, "create", rundir);
	/* What is checked is what was opened: a link is refused, not followed. */
	fd = open(rundir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOTDIR || errno == ELOOP) {
			g_set_error(error, TC_ERROR, TC_ERROR_PERMISSION_DENIED,
				    "The run directory '%s' is a symbolic link or not a "
				    "directory: refusing to start",
				    rundir);
			return FALSE;
		}
		return set_errno_error(error, "open", rundir);
	}
	if (fstat(fd, &st) < 0) {
		set_errno_error(error, "check", rundir);
		close(fd);
		return FALSE;
	}
	close(fd);
	return check_rundir_stat(rundir, &st, error);
}

static gboolean
fill_address(struct sockaddr_un *addr, const char *path, GError **error)
{
	if (strlen(path) >= sizeof(addr->sun_path)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "The socket path '%s' is too long (at most %zu bytes)", path,
			    sizeof(addr->sun_path) - 1);
		return FALSE;
	}
	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	strcpy(addr->sun_path, path);
	return TRUE;
}

/* Binds and listens at private_path, in a directory only we can enter, and
 * sets the mode there: nobody can connect before, or swap the file under
 * the chmod(). */
static int
listen_privately(const char *private_path, int type, int socket_flags, mode_t mode, int backlog,
		 GError **error)
{
	struct sockaddr_un addr;
	int fd;

	if (!fill_address(&addr, private_path, error))
		return -1;
	fd = socket(AF_UNIX, type | socket_flags, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
	    chmod(private_path, mode) < 0 || listen(fd, backlog) < 0) {
		set_errno_error(error, "listen on", private_path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static int
listen_atomically(const char *path, int type, int socket_flags, mode_t mode, int backlog,
		  GError **error)
{
	g_autofree char *dir = g_path_get_dirname(path);
	g_autofree char *private_dir = g_build_filename(dir, ".tc-bind-XXXXXX", NULL);
	g_autofree char *private_path = NULL;
	int fd;

	if (g_mkdtemp_full(private_dir, 0700) == NULL) {
		set_errno_error(error, "create", private_dir);
		return -1;
	}
	private_path = g_build_filename(private_dir, "s", NULL);
	fd = listen_privately(private_path, type, socket_flags, mode, backlog, error);
	/* Atomically replaces a stale socket of an earlier instance. */
	if (fd >= 0 && rename(private_path, path) < 0) {
		set_errno_error(error, "move a socket to", path);
		close(fd);
		fd = -1;
	}
	if (fd < 0)
		unlink(private_path);
	rmdir(private_dir);
	return fd;
}

int
tc_rundir_listen(const char *path, int socket_flags, mode_t mode, int backlog, GError **error)
{
	return listen_atomically(path, SOCK_SEQPACKET, socket_flags, mode, backlog, error);
}

int
tc_rundir_listen_stream(const char *path, int socket_flags, mode_t mode, int backlog,
			GError **error)
{
	return listen_atomically(path, SOCK_STREAM, socket_flags, mode, backlog, error);
}

gboolean
tc_rundir_is_same_file(const char *path, const struct stat *known)
{
	struct stat now;

	return lstat(path, &now) == 0 && now.st_dev == known->st_dev &&
	       now.st_ino == known->st_ino;
}
