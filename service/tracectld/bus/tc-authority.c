/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Authorization of D-Bus calls.
 *
 *   handler ──> GetConnectionCredentials ──> polkit(action) ──┬──> callback
 *                  (bus daemon)          (subject: sender) │
 *                                                          └─ another user's object:
 *                                                             polkit(manage-other-users)
 *
 * Each step is an asynchronous call on the main loop, so a slow polkit
 * (or a person typing a password in an agent) never blocks other callers;
 * the polkit steps of one uid take at most its share of polkitd
 * (tc-polkit-gate.h), so one user's flood of calls never queues another
 * user's checks behind it there.
 * The subject is the caller's unique bus name, so polkit looks up its
 * credentials from the bus itself. No polkit means no authorization.
 */
#define G_LOG_DOMAIN "tracectld-authority"

#include "tc-authority.h"

#include "tc-error.h"
#include "tc-polkit-gate.h"

static PolkitAuthority *authority;
static GHashTable *peer_uids; /* unique name -> uid, main thread only */

typedef struct {
	GDBusMethodInvocation *invocation;
	char *action_id;
	PolkitDetails *details;
	uid_t target_uid;
	TcAuthorityFlags flags;
	TcCaller caller;
	TcPolkitSlot *slot; /* the caller's share of polkitd, once given */
} CheckData;

static void
check_data_free(CheckData *data)
{
	/* After every check of the call: the admin check keeps the slot. */
	tc_polkit_gate_leave(data->slot);
	g_object_unref(data->invocation);
	g_free(data->action_id);
	g_clear_object(&data->details);
	g_free(data);
}

void
tc_authority_init(void)
{
	g_autoptr(GError) error = NULL;

	peer_uids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	authority = polkit_authority_get_sync(NULL, &error);
	if (authority == NULL)
		g_warning("polkit is not available, every call will be refused: %s",
			  error->message);
}

static PolkitCheckAuthorizationFlags
polkit_flags(GDBusMethodInvocation *invocation)
{
	GDBusMessage *message = g_dbus_method_invocation_get_message(invocation);

	if (g_dbus_message_get_flags(message) &
	    G_DBUS_MESSAGE_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION)
		return POLKIT_CHECK_AUTHORIZATION_FLAGS_ALLOW_USER_INTERACTION;
	return POLKIT_CHECK_AUTHORIZATION_FLAGS_NONE;
}

static void check_admin(GTask *task, PolkitCheckAuthorizationFlags flags);

static gboolean
result_is_authorized(GObject *source, GAsyncResult *res, const char *action_id, GTask *task)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(PolkitAuthorizationResult) result =
		polkit_authority_check_authorization_finish(POLKIT_AUTHORITY(source), res, &error);

	if (result == NULL) {
		g_warning("polkit check of %s failed: %s", action_id, error->message);
		return FALSE;
	}
	return polkit_authorization_result_get_is_authorized(result);
}

static void
admin_checked_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	g_autoptr(GTask) task = user_data;
	CheckData *data = g_task_get_task_data(task);
	gboolean is_admin = result_is_authorized(source, res, TC_ACTION_MANAGE_OTHER_USERS, task);

	data->caller.is_admin = is_admin;
	if (data->target_uid != TC_NO_TARGET_UID && data->target_uid != data->caller.uid &&
	    !is_admin) {
		g_task_return_new_error(task, TC_ERROR, TC_ERROR_PERMISSION_DENIED,
					"This belongs to another user (uid %u); acting on it "
					"needs the %s authorization",
					(unsigned)data->target_uid, TC_ACTION_MANAGE_OTHER_USERS);
		return;
	}
	g_task_return_boolean(task, TRUE);
}

static void
action_checked_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	g_autoptr(GTask) task = user_data;
	CheckData *data = g_task_get_task_data(task);

	if (!result_is_authorized(source, res, data->action_id, task)) {
		if (g_str_equal(data->action_id, TC_ACTION_TRACE_KERNEL))
			g_task_return_new_error(
				task, TC_ERROR, TC_ERROR_PERMISSION_DENIED,
				"Tracing the kernel is for members of the 'tracing' group and "
				"administrators (uid %u is neither)",
				(unsigned)data->caller.uid);
		else if (g_str_equal(data->action_id, TC_ACTION_TRACE_UNIT))
			g_task_return_new_error(
				task, TC_ERROR, TC_ERROR_PERMISSION_DENIED,
				"Not authorized for %s with unit '%s' (uid %u): an administrator "
				"delegates a unit with a polkit rule",
				data->action_id, polkit_details_lookup(data->details, "unit"),
				(unsigned)data->caller.uid);
		else
			g_task_return_new_error(task, TC_ERROR, TC_ERROR_PERMISSION_DENIED,
						"Not authorized for %s (uid %u)", data->action_id,
						(unsigned)data->caller.uid);
		return;
	}
	if (data->target_uid != TC_NO_TARGET_UID && data->target_uid != data->caller.uid) {
		check_admin(g_steal_pointer(&task), polkit_flags(data->invocation));
		return;
	}
	if (data->flags & TC_AUTHORITY_FLAGS_QUERY_ADMIN) {
		check_admin(g_steal_pointer(&task), POLKIT_CHECK_AUTHORIZATION_FLAGS_NONE);
		return;
	}
	g_task_return_boolean(task, TRUE);
}

static void
check_admin(GTask *task, PolkitCheckAuthorizationFlags flags)
{
	CheckData *data = g_task_get_task_data(task);
	g_autoptr(PolkitSubject) subject = polkit_system_bus_name_new(
		g_dbus_method_invocation_get_sender(data->invocation));

	polkit_authority_check_authorization(authority, subject, TC_ACTION_MANAGE_OTHER_USERS,
					     data->details, flags, NULL, admin_checked_cb, task);
}

/* The first polkit check, once the caller's uid has a slot. */
static void
check_action(TcPolkitSlot *slot, gpointer user_data)
{
	GTask *task = user_data;
	CheckData *data = g_task_get_task_data(task);
	g_autoptr(PolkitSubject) subject = polkit_system_bus_name_new(
		g_dbus_method_invocation_get_sender(data->invocation));

	data->slot = slot;
	polkit_authority_check_authorization(authority, subject, data->action_id, data->details,
					     polkit_flags(data->invocation), NULL,
					     action_checked_cb, task);
}

static void
credentials_received_cb(GObject *source, GAsyncResult *res, gpointer user_data)
{
	g_autoptr(GTask) task = user_data;
	CheckData *data = g_task_get_task_data(task);
	g_autoptr(GError) error = NULL;
	g_autoptr(GVariant) reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), res,
								  &error);
	g_autoptr(GVariant) credentials = NULL;
	guint32 uid, pid;

	if (reply == NULL) {
		g_task_return_new_error(task, TC_ERROR, TC_ERROR_FAILED,
					"Cannot identify the caller: %s", error->message);
		return;
	}
	credentials = g_variant_get_child_value(reply, 0);
	if (!g_variant_lookup(credentials, "UnixUserID", "u", &uid)) {
		g_task_return_new_error(task, TC_ERROR, TC_ERROR_FAILED,
					"Cannot identify the caller: the bus gave no uid");
		return;
	}
	data->caller.uid = uid;
	/* Only for the audit trail: a pid is never a basis for a decision. */
	if (g_variant_lookup(credentials, "ProcessID", "u", &pid))
		data->caller.pid = (pid_t)pid;
	g_hash_table_insert(peer_uids,
			    g_strdup(g_dbus_method_invocation_get_sender(data->invocation)),
			    GUINT_TO_POINTER(uid + 1));
	/* polkitd authorizes uid 0 for every action before any rule runs:
	 * asking would only make root's calls wait on polkitd's queue. */
	if (uid == 0) {
		data->caller.is_admin = TRUE;
		g_task_return_boolean(task, TRUE);
		return;
	}
	if (authority == NULL) {
		g_task_return_new_error(task, TC_ERROR, TC_ERROR_PERMISSION_DENIED,
					"polkit is not available, %s is refused",
					data->action_id);
		return;
	}
	if (data->details) {
		g_autofree char *uid_text = g_strdup_printf("%u", uid);

		polkit_details_insert(data->details, "caller_uid", uid_text);
	}
	tc_polkit_gate_enter(uid,
			     (polkit_flags(data->invocation) &
			      POLKIT_CHECK_AUTHORIZATION_FLAGS_ALLOW_USER_INTERACTION) != 0,
			     check_action, g_steal_pointer(&task));
}

void
tc_authority_check(GDBusMethodInvocation *invocation, const char *action_id,
		   PolkitDetails *details, uid_t target_uid, TcAuthorityFlags flags,
		   GAsyncReadyCallback callback, gpointer user_data)
{
	GTask *task = g_task_new(NULL, NULL, callback, user_data);
	CheckData *data = g_new0(CheckData, 1);

	data->invocation = g_object_ref(invocation);
	data->action_id = g_strdup(action_id);
	data->details = details ? g_object_ref(details) : NULL;
	data->target_uid = target_uid;
	data->flags = flags;
	data->caller.uid = (uid_t)-1;
	g_task_set_task_data(task, data, (GDestroyNotify)check_data_free);
	g_dbus_connection_call(g_dbus_method_invocation_get_connection(invocation),
			       "org.freedesktop.DBus", "/org/freedesktop/DBus",
			       "org.freedesktop.DBus", "GetConnectionCredentials",
			       g_variant_new("(s)", g_dbus_method_invocation_get_sender(invocation)),
			       G_VARIANT_TYPE("(a{sv})"), G_DBUS_CALL_FLAGS_NONE, -1, NULL,
			       credentials_received_cb, task);
}

gboolean
tc_authority_check_finish(GAsyncResult *result, TcCaller *caller, GError **error)
{
	GTask *task = G_TASK(result);
	CheckData *data = g_task_get_task_data(task);

	*caller = data->caller;
	return g_task_propagate_boolean(task, error);
}

static void
name_owner_changed_cb(GDBusConnection *connection, const char *sender, const char *path,
		      const char *interface, const char *signal, GVariant *parameters,
		      gpointer user_data)
{
	const char *name, *old_owner, *new_owner;

	g_variant_get(parameters, "(&s&s&s)", &name, &old_owner, &new_owner);
	if (*new_owner == '\0')
		g_hash_table_remove(peer_uids, name);
}

void
tc_authority_watch_peers(GDBusConnection *connection)
{
	g_dbus_connection_signal_subscribe(connection, "org.freedesktop.DBus",
					   "org.freedesktop.DBus", "NameOwnerChanged",
					   "/org/freedesktop/DBus", NULL,
					   G_DBUS_SIGNAL_FLAGS_NONE, name_owner_changed_cb, NULL,
					   NULL);
}

gboolean
tc_authority_peer_uid_sync(GDBusConnection *connection, const char *sender, uid_t *uid)
{
	gpointer cached = g_hash_table_lookup(peer_uids, sender);
	g_autoptr(GVariant) reply = NULL;
	guint32 value;

	if (cached) {
		*uid = GPOINTER_TO_UINT(cached) - 1;
		return TRUE;
	}
	reply = g_dbus_connection_call_sync(connection, "org.freedesktop.DBus",
					    "/org/freedesktop/DBus", "org.freedesktop.DBus",
					    "GetConnectionUnixUser", g_variant_new("(s)", sender),
					    G_VARIANT_TYPE("(u)"), G_DBUS_CALL_FLAGS_NONE, 5000,
					    NULL, NULL);
	if (reply == NULL)
		return FALSE;
	g_variant_get(reply, "(u)", &value);
	g_hash_table_insert(peer_uids, g_strdup(sender), GUINT_TO_POINTER(value + 1));
	*uid = value;
	return TRUE;
}
