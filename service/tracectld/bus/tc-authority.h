/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>
#include <polkit/polkit.h>
#include <sys/types.h>

#define TC_ACTION_MANAGE_SESSIONS "org.tracectl.Tracing1.manage-sessions"
#define TC_ACTION_LIST_APPLICATIONS "org.tracectl.Tracing1.list-applications"
#define TC_ACTION_TRACE_KERNEL "org.tracectl.Tracing1.trace-kernel"
#define TC_ACTION_TRACE_KERNEL_OWN "org.tracectl.Tracing1.trace-kernel-own"
#define TC_ACTION_TRACE_UNIT "org.tracectl.Tracing1.trace-unit"
#define TC_ACTION_MANAGE_OTHER_USERS "org.tracectl.Tracing1.manage-other-users"

#define TC_NO_TARGET_UID ((uid_t)-1)

typedef enum {
	TC_AUTHORITY_FLAGS_NONE = 0,
	/* Also find out, without asking anybody to authenticate, whether the
	 * caller may act on other users (for listings). */
	TC_AUTHORITY_FLAGS_QUERY_ADMIN = 1 << 0,
} TcAuthorityFlags;

typedef struct {
	uid_t uid;         /* from the bus daemon, never from the caller */
	pid_t pid;         /* from the bus daemon; 0 if it does not know */
	gboolean is_admin; /* authorized for TC_ACTION_MANAGE_OTHER_USERS */
} TcCaller;

/* Connects to polkit; without it every check is denied. */
void tc_authority_init(void);

/*
 * Authorizes a method call asynchronously on the main loop:
 *   1. the caller's uid and pid from the bus daemon (GetConnectionCredentials);
 *   2. polkit for action_id, the subject being the caller's bus name;
 *   3. when target_uid is another user's, polkit for
 *      TC_ACTION_MANAGE_OTHER_USERS as well: the service enforces
 *      ownership itself, whatever the first answer was.
 * Interaction (a password prompt through an agent) is allowed only when the
 * caller set ALLOW_INTERACTIVE_AUTHORIZATION on its message. Details
 * (may be NULL) are passed to polkit .rules.
 */
void tc_authority_check(GDBusMethodInvocation *invocation, const char *action_id,
			PolkitDetails *details, uid_t target_uid, TcAuthorityFlags flags,
			GAsyncReadyCallback callback, gpointer user_data);
/* Returns TRUE and fills caller, or FALSE with a TC_ERROR_PERMISSION_DENIED
 * (or TC_ERROR_FAILED) error whose message says what was refused; caller
 * is filled either way, with uid (uid_t)-1 when the bus did not say. */
gboolean tc_authority_check_finish(GAsyncResult *result, TcCaller *caller, GError **error);

/* Forgets cached peers when they leave the bus. */
void tc_authority_watch_peers(GDBusConnection *connection);

/*
 * The uid of a bus peer, cached by unique name (the bus never reuses one).
 * Blocks on the bus daemon on a cache miss: used only to guard property
 * reads, which GDBus answers synchronously. Returns FALSE if unknown.
 */
gboolean tc_authority_peer_uid_sync(GDBusConnection *connection, const char *sender,
				    uid_t *uid);
