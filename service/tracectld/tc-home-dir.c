/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Directories under users' homes, opened safely as root (tc-home-dir.h). */
#include "tc-home-dir.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tc-error.h"

#define DIRECTORY_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* Takes fd: returns it when it is a directory of user's that no one else
 * may write, closes it otherwise. */
static int
check_component(int fd, uid_t user, const char *path, GError **error)
{
	struct stat st;

	if (fstat(fd, &st) < 0) {
		int saved_errno = errno;

		g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "Cannot stat '%s': %s", path,
			    g_strerror(saved_errno));
	} else if (st.st_uid != user) {
		g_set_error(error, TC_ERROR, TC_ERROR_PERMISSION_DENIED,
			    "Refusing '%s': owned by uid %u, not uid %u", path, (unsigned)st.st_uid,
			    (unsigned)user);
	} else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		g_set_error(error, TC_ERROR, TC_ERROR_PERMISSION_DENIED,
			    "Refusing '%s': writable by its group or others (mode %04o)", path,
			    (unsigned)(st.st_mode & 07777));
	} else {
		return fd;
	}
	close(fd);
	return -1;
}

/* openat(dir_fd, name) as a directory, or -1 with error naming path. */
static int
open_component(int dir_fd, const char *name, const char *path, GError **error)
{
	int fd = openat(dir_fd, name, DIRECTORY_FLAGS);

	if (fd < 0) {
		int saved_errno = errno;

		if (saved_errno == ENOENT)
			g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND, "No directory '%s'", path);
		else
			g_set_error(error, TC_ERROR, TC_ERROR_PERMISSION_DENIED,
				    "Refusing '%s': %s", path,
				    saved_errno == ELOOP || saved_errno == ENOTDIR
					? "a symbolic link or not a directory"
					: g_strerror(saved_errno));
	}
	return fd;
}

int
tc_home_dir_open(uid_t user, const char *relative, GError **error)
{
	struct passwd *pw = getpwuid(user);
	g_auto(GStrv) components = g_strsplit(relative, "/", -1);
	g_autofree char *path = NULL;
	int fd;

	if (pw == NULL || pw->pw_dir == NULL || !g_path_is_absolute(pw->pw_dir)) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND, "uid %u has no home directory",
			    (unsigned)user);
		return -1;
	}
	/* The path to the home is the administrator's; the home is the user's. */
	path = g_strdup(pw->pw_dir);
	fd = open_component(AT_FDCWD, path, path, error);
	if (fd >= 0)
		fd = check_component(fd, user, path, error);
	for (guint i = 0; fd >= 0 && components[i]; i++) {
		char *child;
		int next;

		if (*components[i] == '\0')
			continue;
		child = g_build_filename(path, components[i], NULL);
		g_free(path);
		path = child;
		next = open_component(fd, components[i], path, error);
		close(fd);
		fd = next >= 0 ? check_component(next, user, path, error) : -1;
	}
	return fd;
}
