/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The system's directory of session files and its files, checked and
 * read within bounds, for auto-loading (tc-session-autoload-private.h).
 * Files are opened with O_NOFOLLOW relative to the checked directory and
 * checked through their descriptor (fstat), so nothing can be swapped in
 * between the check and the read.
 */
#define G_LOG_DOMAIN "tracectld-autoload"

#include "tc-session-autoload.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tc-error.h"
#include "tc-home-sessions.h"
#include "tc-session-autoload-private.h"
#include "tc-session-file-list.h"
#include "tc-session-file.h"
#include "tc-user-account.h"

/* Refuses a descriptor that is not of type, or that group or others may
 * write; *owner: its owner. what: "file" or "directory", for the
 * message. */
static gboolean
check_type_and_mode(int fd, const char *path, const char *what, mode_t type, uid_t *owner,
		    GError **error)
{
	struct stat st;

	if (fstat(fd, &st) < 0) {
		int saved_errno = errno;

		g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "Cannot stat %s '%s': %s", what,
			    path, g_strerror(saved_errno));
		return FALSE;
	}
	if ((st.st_mode & S_IFMT) != type) {
		g_set_error(error, TC_ERROR, TC_ERROR_PERMISSION_DENIED, "Refusing '%s': not a %s",
			    path, type == S_IFREG ? "regular file" : "directory");
		return FALSE;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		g_set_error(error, TC_ERROR, TC_ERROR_PERMISSION_DENIED,
			    "Refusing %s '%s': writable by its group or others (mode %04o)", what,
			    path, (unsigned)(st.st_mode & 07777));
		return FALSE;
	}
	*owner = st.st_uid;
	return TRUE;
}

/* The directory decides who may place a file there: root only. */
gboolean
tc_session_autoload_files_check_directory(int dir_fd, const char *path, GError **error)
{
	uid_t owner;

	if (!check_type_and_mode(dir_fd, path, "directory", S_IFDIR, &owner, error))
		return FALSE;
	if (owner != 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_PERMISSION_DENIED,
			    "Refusing directory '%s': owned by uid %u, not root", path,
			    (unsigned)owner);
		return FALSE;
	}
	return TRUE;
}

/* A file's owner becomes its sessions' owner: a user the system knows,
 * whose home and consumer the session gets. */
static gboolean
check_file_owner(const char *path, uid_t owner, GError **error)
{
	g_auto(TcUserAccount) account = {0};

	if (owner != 0 && !tc_user_account_lookup(owner, &account, NULL)) {
		g_set_error(error, TC_ERROR, TC_ERROR_PERMISSION_DENIED,
			    "Refusing file '%s': owned by uid %u, which is no user of the system",
			    path, (unsigned)owner);
		return FALSE;
	}
	return TRUE;
}

/* The contents of the file name of the checked directory dir_fd, at most
 * TC_SESSION_FILE_MAX_BYTES, read through the descriptor checked; *owner:
 * the file's owner, whose sessions they become. */
char *
tc_session_autoload_files_read_checked(int dir_fd, const char *path, const char *name,
				       gsize *length, uid_t *owner, GError **error)
{
	g_autofree char *contents = NULL;
	gsize used = 0;
	/* O_NONBLOCK: a FIFO or device there must not block the open; fstat
	 * then refuses it. */
	int fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0) {
		int saved_errno = errno;

		g_set_error(error, TC_ERROR, TC_ERROR_PERMISSION_DENIED, "Refusing '%s': %s", path,
			    saved_errno == ELOOP ? "a symbolic link" : g_strerror(saved_errno));
		return NULL;
	}
	if (!check_type_and_mode(fd, path, "file", S_IFREG, owner, error) ||
	    !check_file_owner(path, *owner, error)) {
		close(fd);
		return NULL;
	}
	contents = g_malloc(TC_SESSION_FILE_MAX_BYTES + 1);
	for (;;) {
		ssize_t got = read(fd, contents + used, TC_SESSION_FILE_MAX_BYTES + 1 - used);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int saved_errno = errno;

			g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "Cannot read '%s': %s", path,
				    g_strerror(saved_errno));
			close(fd);
			return NULL;
		}
		used += (gsize)got;
		if (got == 0 || used > TC_SESSION_FILE_MAX_BYTES)
			break;
	}
	close(fd);
	if (used > TC_SESSION_FILE_MAX_BYTES) {
		g_set_error(error, TC_ERROR, TC_ERROR_LIMIT_EXCEEDED,
			    "Refusing '%s': larger than %d bytes", path, TC_SESSION_FILE_MAX_BYTES);
		return NULL;
	}
	*length = used;
	return g_steal_pointer(&contents);
}

/* The session file names of the directory (tc-session-file-list.h), at
 * most TC_AUTOLOAD_FILES_MAX, sorted; none when it cannot be listed.
 * dir_fd stays the caller's. */
void
tc_session_autoload_files_list(int dir_fd, const char *directory, struct tc_session_file_list *list)
{
	int ret = tc_session_file_list(dir_fd, TC_AUTOLOAD_FILES_MAX, list);

	if (ret < 0) {
		g_warning("Auto-load: cannot list '%s': %s", directory, g_strerror(-ret));
		return;
	}
	if (list->seen > list->max)
		g_warning("Auto-load: '%s' holds %zu session files; reading the first %d",
			  directory, list->seen, TC_AUTOLOAD_FILES_MAX);
}
