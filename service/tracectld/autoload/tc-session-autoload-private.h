/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <sys/types.h>

#include <gio/gio.h>

#include "tc-session-file.h"
#include "tc-session.h"

/*
 * The internals of auto-loading (tc-session-autoload.h), shared by the
 * files it is cut into and included by them only. tc-session-autoload.c
 * runs the loads (the start thread, each owner's thread, publishing on
 * the main loop, logind's UserNew) and calls the others, which call none
 * of it nor one another: -files.c checks and reads the system's
 * directory, -apply.c sets up one parsed session through the session
 * layer, -users.c says whose own directories are read.
 */

struct tc_session_file_list;

/* tc-session-autoload-apply.c. Owner's thread: owner's session of file,
 * set up as a CreateSession call of owner's would and referenced for the
 * caller, or NULL with error set and nothing left behind. */
TcSession *tc_session_autoload_apply(const TcFileSession *file, uid_t owner, GError **error);

/* tc-session-autoload-files.c, start thread. FALSE with error set unless
 * dir_fd, named path, is a directory of root's that no one else may
 * write. */
gboolean tc_session_autoload_files_check_directory(int dir_fd, const char *path, GError **error);
/* The contents of the file name of the checked directory dir_fd (path:
 * both, for messages), g_free()d by the caller, *length long; *owner: the
 * file's owner. NULL with error set when the file is refused. */
char *tc_session_autoload_files_read_checked(int dir_fd, const char *path, const char *name,
					     gsize *length, uid_t *owner, GError **error);
/* The session file names of dir_fd (directory: its name, for logs),
 * sorted, bounded; list is the caller's to clear
 * (tc_session_file_list_clear()). */
void tc_session_autoload_files_list(int dir_fd, const char *directory,
				    struct tc_session_file_list *list);

/* tc-session-autoload-users.c. Start thread: the users logged in now
 * whose own directories are read, as guint32 uids, the caller's. */
GArray *tc_session_autoload_users_logged_in(GDBusConnection *connection);
/* Any thread: TRUE if user's own directory is the caller's to read. */
gboolean tc_session_autoload_users_claim(uid_t user);
