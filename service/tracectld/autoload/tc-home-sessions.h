/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

#include "tc-consumer.h"

/*
 * The session files of a user's own ~/.config/tracectl/sessions, read
 * for the service by that user's consumer with the user's rights
 * (TC_CONSUMER_SESSION_FILES): the service itself reads no home. The
 * consumer is told the home from the password database, walks to the
 * directory without following links and sends only regular files of the
 * user that no one else may write, at most TC_AUTOLOAD_FILES_MAX of them
 * and TC_SESSION_FILE_MAX_BYTES each. Every field it sends is checked
 * here (it is the user's process); the bytes are not parsed here, and
 * are as hostile as any file's.
 */

/* The same bound the system directory has. */
#define TC_AUTOLOAD_FILES_MAX 64

typedef struct {
	char *path;       /* for logs: <home>/.config/tracectl/sessions/<name> */
	GBytes *contents; /* at most TC_SESSION_FILE_MAX_BYTES */
} TcHomeSessionFile;

void tc_home_sessions_file_free(TcHomeSessionFile *file);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TcHomeSessionFile, tc_home_sessions_file_free)

/*
 * Worker thread (waits on the consumer): user's files, in name order
 * (TcHomeSessionFile *, possibly none: no directory is no error). The
 * files the consumer refused are logged, named, with its reason. NULL
 * with error when user has no home, the consumer refused the directory
 * (its reason), or broke the protocol (it is then killed).
 */
GPtrArray *tc_home_sessions_read(TcConsumer *consumer, uid_t user, GError **error);
