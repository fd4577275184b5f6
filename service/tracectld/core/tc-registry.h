/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>
#include <urcu.h>

/*
 * The tracing registry: the tables of sessions (what users asked for,
 * tc-session.h) and of registered applications (what runs, tc-app.h),
 * and the order of the locks of the model, after chapter 3 of the
 * session-daemon thesis (David Goulet, "Unified Kernel/User-Space Efficient Linux Tracing
 * Architecture", Master's thesis, École Polytechnique de Montréal, 2012;
 * see docs/architecture.md).
 *
 * Lookups are lock-free: sessions are in RCU hash tables by id and by
 * (owner, name), applications by pid and by socket (figure 3.8), each
 * lookup a single cds_lfht operation. Readers hold the RCU read-side lock
 * (rcu_read_lock()) while they use what they found, or take a reference.
 * Only threads tracectld created and registered with liburcu may do so
 * (the main thread, the application threads, the operation pool).
 *
 * Writers take locks, never a global one across I/O:
 *   - a session's op_lock serializes its long operations (start, stop,
 *     destroy: they wait on the consumer and on applications);
 *   - a session's lock [S] covers its state, channels and metadata;
 *   - an application's lock [A] covers its shadow copies, its pending
 *     commands and every message sent to it (sends never block).
 * Nesting: op_lock > session lock > application lock > waiter lock, and
 * the per-user limits' lock (tc-user-limits.h) and an application's
 * cgroup_lock are leaves under any. The
 * hash-table insertions and removals take no lock of ours: cds_lfht is
 * safe for concurrent writers.
 *
 * Waits on a user's processes hold only that user's locks: a session's
 * op_lock while it waits on its consumer (whose own locks are held
 * briefly, never across that wait: tc-consumer.c) or for acknowledgements, which are awaited with
 * no session or application lock held. The consumer table's lock and the
 * operation queue's are leaves, held for bookkeeping only.
 *
 * Destroying follows table 3.1: look up, lock, unlink (the node leaves the
 * tables), unlock, and free after a grace period (call_rcu), so a racing
 * command gets "not found" and never a freed session.
 *
 * Channels (tc-channel.h) are under their session's lock; an
 * acknowledgement waiter's lock (tc-ack-waiter.h) is a leaf.
 *
 * Every change to a session is made to the session first and then applied
 * to each registered application of its owner by tc_app_sync_locked() (the
 * shadow copy); a registering application is first published, then synced
 * with every session, so whichever of a command and a registration comes
 * first, both end in the same state (figure 3.9).
 */

typedef struct _TcSession TcSession;
typedef struct _TcApp TcApp;

void tc_registry_init(void);

/* Sessions. */

/* Publishes the session; AlreadyExists when the owner has one of that
 * name, LimitExceeded when the owner holds all the sessions allowed. */
gboolean tc_registry_add_session(TcSession *session, GError **error);
/* [S] Unlinks the session, marks it destroyed; its registry reference is
 * dropped after a grace period. */
void tc_registry_remove_session_locked(TcSession *session);
/* Return a new reference, or NULL. Any thread. */
TcSession *tc_registry_find_session(guint64 id);
TcSession *tc_registry_find_session_by_name(uid_t owner, const char *name);
/* New references to the sessions of uid, or of everyone when all. */
GPtrArray *tc_registry_list_sessions(uid_t uid, gboolean all);
/* Whether uid owns a session, one being destroyed included. Takes no
 * lock and no reference (RCU read side: registered threads only). */
gboolean tc_registry_user_has_sessions(uid_t uid);
guint tc_registry_session_count(void);

/* New references to the sessions that may record uid's applications:
 * uid's own, root's, and those that track units. Takes each session's
 * lock [S] in turn: call with none held. */
GPtrArray *tc_registry_list_sessions_recording(uid_t uid);

/* Applications. */

/* Publishes a registered application in both indexes. */
void tc_registry_add_app(TcApp *app);
/* [A] Unlinks the app and releases its waiters; the caller closes the
 * socket after this, never before. */
void tc_registry_remove_app_locked(TcApp *app);
/* New references to the registered applications of uid (all when all). */
GPtrArray *tc_registry_list_apps(uid_t uid, gboolean all);
/* RCU read-side lock held: the application on socket fd, or NULL. */
TcApp *tc_registry_find_app_by_fd(int fd);
/* RCU read-side lock held: the application of pid, or NULL. */
TcApp *tc_registry_find_app_by_pid(pid_t pid);
guint tc_registry_app_count(void);
