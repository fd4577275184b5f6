/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>

#include "tc-session.h"

/*
 * Auto-loading at the service's start, as LTTng's session daemon loads its
 * system session directory: every "*.lttng" file of directory (the system
 * one, TRACECTL_AUTOLOAD_DIR, unless --session-dir names another) becomes
 * sessions of the file's owner, set up as that user's CreateSession would
 * (their limits, home and consumer). The directory must be root's and
 * writable by no one else; only regular files that no one but their owner
 * may write, owned by a user of the system, are read, each through the
 * descriptor that was checked; a refused file or session is logged with
 * its name and leaves nothing behind.
 *
 * Then, for the owners of the system's sessions loaded and the users logind
 * says are logged in (on connection; none without logind), but not root,
 * the files of ~/.config/tracectl/sessions become that user's sessions:
 * read by that user's consumer with the user's rights (tc-home-sessions.h;
 * the service reads no home), every step and every file the user's and
 * writable by no one else. A user logind announces later (its UserNew
 * signal, when logind is on connection) gets the same, once per service
 * lifetime: a user whose directory was read already is not read again. A
 * consumer started only for the reading is let go when the user has no
 * session afterwards.
 * docs/save-load.md says why and what is left out.
 *
 * A thread of its own reads the system's directory and asks logind; the
 * session operations, which wait on the owner's consumer, run on a thread
 * of each owner's (tc-owner-pool.h), owner after owner's file in name
 * order, so one owner's hanging outputs or thousands of sessions never
 * delay another owner's sessions or login. Each session is exported on
 * the main loop as soon as it is set up. Main thread only. A missing
 * directory is not an error.
 */
/* Main thread: gives a loaded session (in the registry, referenced by the
 * caller) to the front end that shows it, and tells subscribers. */
typedef gboolean (*TcAutoloadPublishFunc)(TcSession *session, GError **error);

/* publish: see TcAutoloadPublishFunc; the daemon gives the bus's. */
void tc_session_autoload_start(GDBusConnection *connection, const char *directory,
			       TcAutoloadPublishFunc publish);
/* At shutdown, before the operations' workers and the registry go: waits
 * for the start thread and for the session each owner's thread is
 * loading; drops the rest. Main thread. */
void tc_session_autoload_wait(void);
