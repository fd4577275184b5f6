/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Signals to subscribers, one unicast copy each.
 *
 *   any thread: tc_signals_*() ─> the sink here ──copy──> g_main_context_invoke ──> main loop:
 *        for each subscriber allowed to see the object:
 *            g_dbus_connection_emit_signal(destination = its unique name)
 *
 * A broadcast signal reaches every connection with a matching rule, and
 * whoever eavesdrops; a signal with a destination reaches that connection
 * only. GDBus skeletons broadcast PropertiesChanged when their properties
 * are set: the session objects keep no property in their skeleton
 * (tc-dbus-session.c), and the manager's only property is constant, so
 * PropertiesChanged goes out here and nowhere else.
 *
 * Who may see what is decided when the signal is sent, from what the
 * subscriber was when it subscribed: its uid (from the bus) and whether
 * polkit authorized it for other users. The subscriber table lives on
 * the main thread; emitters on other threads only read the atomic count
 * of subscribers, so that nothing is copied or queued when nobody
 * listens.
 */
#define G_LOG_DOMAIN "tracectld-signals"

#include "tc-dbus-signals.h"

#include "tc-error.h"
#include "tc-idle.h"
#include "tc-signals.h"
#include "tc-user-limits.h"

#define TC_SIGNALS_INTERFACE "org.tracectl.Tracing1.Manager"
#define TC_SIGNALS_MANAGER_PATH "/org/tracectl/Tracing1"
#define TC_SIGNALS_SESSION_INTERFACE "org.tracectl.Tracing1.Session"

typedef struct {
	char *name; /* unique bus name */
	TcCaller caller;
	TcUserCharge charge; /* one TC_LIMIT_SUBSCRIPTIONS of caller.uid */
} TcSubscriber;

/* One signal on its way to the main loop. */
typedef struct {
	uid_t owner_uid; /* who may see it, besides administrators */
	char *path;
	char *interface;
	char *member;
	GVariant *parameters; /* sunk */
} TcPendingSignal;

/* The reports of the layers below (tc-signals.h), turned into signals
 * here; defined at the end. */
static const TcSignalsSink sink;

static GDBusConnection *signals_connection; /* main thread */
static GHashTable *subscribers;             /* main thread: name -> TcSubscriber * */
static gint subscriber_count;               /* atomic: g_hash_table_size(subscribers) */

/* A subscriber keeps the service from exiting when idle: it is waiting
 * for what happens next. */
static void
subscriber_free(TcSubscriber *subscriber)
{
	tc_idle_release();
	tc_user_limits_release(&subscriber->charge);
	g_free(subscriber->name);
	g_free(subscriber);
}

static void
pending_signal_free(TcPendingSignal *pending)
{
	g_free(pending->path);
	g_free(pending->interface);
	g_free(pending->member);
	g_variant_unref(pending->parameters);
	g_free(pending);
}

static void
count_subscribers(void)
{
	g_atomic_int_set(&subscriber_count, (gint)g_hash_table_size(subscribers));
}

static gboolean
remove_subscriber(const char *name, const char *why)
{
	if (subscribers == NULL || !g_hash_table_remove(subscribers, name))
		return FALSE;
	count_subscribers();
	g_debug("Subscriber %s removed (%s)", name, why);
	return TRUE;
}

static void
name_owner_changed_cb(GDBusConnection *connection, const char *sender, const char *path,
		      const char *interface, const char *signal, GVariant *parameters,
		      gpointer user_data)
{
	const char *name, *old_owner, *new_owner;

	if (!g_variant_is_of_type(parameters, G_VARIANT_TYPE("(sss)")))
		return;
	g_variant_get(parameters, "(&s&s&s)", &name, &old_owner, &new_owner);
	if (*new_owner == '\0')
		remove_subscriber(name, "left the bus");
}

void
tc_dbus_signals_init(GDBusConnection *connection)
{
	signals_connection = connection;
	subscribers = g_hash_table_new_full(g_str_hash, g_str_equal, NULL,
					    (GDestroyNotify)subscriber_free);
	g_dbus_connection_signal_subscribe(connection, "org.freedesktop.DBus",
					   "org.freedesktop.DBus", "NameOwnerChanged",
					   "/org/freedesktop/DBus", NULL, G_DBUS_SIGNAL_FLAGS_NONE,
					   name_owner_changed_cb, NULL, NULL);
	tc_signals_set_sink(&sink);
}

/* A name that left before it was added would stay forever: ask the bus
 * after adding. Its answer comes after any NameOwnerChanged it sent
 * before, so a name that leaves later is seen by the watch. */
static void
name_has_owner_cb(GObject *source, GAsyncResult *result, gpointer user_data)
{
	g_autofree char *name = user_data;
	g_autoptr(GVariant) reply =
		g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, NULL);
	gboolean has_owner = TRUE;

	if (reply)
		g_variant_get(reply, "(b)", &has_owner);
	if (!has_owner)
		remove_subscriber(name, "gone before subscribing");
}

gboolean
tc_dbus_signals_subscribe(const char *name, const TcCaller *caller, GError **error)
{
	TcSubscriber *subscriber;

	g_return_val_if_fail(subscribers != NULL, FALSE);
	if (g_hash_table_contains(subscribers, name))
		return TRUE;
	subscriber = g_new0(TcSubscriber, 1);
	tc_user_limits_charge_init(&subscriber->charge, caller->uid);
	if (!tc_user_limits_charge(&subscriber->charge, TC_LIMIT_SUBSCRIPTIONS, 1, error)) {
		g_prefix_error(error, "Cannot subscribe %s: ", name);
		g_free(subscriber);
		return FALSE;
	}
	subscriber->name = g_strdup(name);
	subscriber->caller = *caller;
	tc_idle_hold();
	g_hash_table_insert(subscribers, subscriber->name, subscriber);
	count_subscribers();
	g_message("Subscriber %s of uid %u added%s", name, (unsigned)caller->uid,
		  caller->is_admin ? ", sees every user's objects" : "");
	g_dbus_connection_call(signals_connection, "org.freedesktop.DBus",
			       "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
			       g_variant_new("(s)", name), G_VARIANT_TYPE("(b)"),
			       G_DBUS_CALL_FLAGS_NONE, -1, NULL, name_has_owner_cb,
			       g_strdup(name));
	return TRUE;
}

void
tc_dbus_signals_unsubscribe(const char *name)
{
	remove_subscriber(name, "unsubscribed");
}

static gboolean
may_see(const TcSubscriber *subscriber, uid_t owner_uid)
{
	return subscriber->caller.uid == owner_uid || subscriber->caller.uid == 0 ||
	       subscriber->caller.is_admin;
}

/* Main loop: one copy to each subscriber allowed. */
static gboolean
emit_cb(gpointer user_data)
{
	TcPendingSignal *pending = user_data;
	GHashTableIter iter;
	gpointer value;

	if (signals_connection == NULL || subscribers == NULL)
		return G_SOURCE_REMOVE;
	g_hash_table_iter_init(&iter, subscribers);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		TcSubscriber *subscriber = value;
		g_autoptr(GError) error = NULL;

		if (!may_see(subscriber, pending->owner_uid))
			continue;
		if (!g_dbus_connection_emit_signal(signals_connection, subscriber->name,
						   pending->path, pending->interface,
						   pending->member, pending->parameters, &error))
			g_debug("Cannot send %s to %s: %s", pending->member, subscriber->name,
				error->message);
	}
	return G_SOURCE_REMOVE;
}

/* Any thread: queues a signal seen by owner_uid (and administrators);
 * parameters may be floating. */
static void
queue_signal(uid_t owner_uid, const char *path, const char *interface, const char *member,
	     GVariant *parameters)
{
	TcPendingSignal *pending;

	if (g_atomic_int_get(&subscriber_count) == 0) {
		g_variant_unref(g_variant_ref_sink(parameters));
		return;
	}
	pending = g_new0(TcPendingSignal, 1);
	pending->owner_uid = owner_uid;
	pending->path = g_strdup(path);
	pending->interface = g_strdup(interface);
	pending->member = g_strdup(member);
	pending->parameters = g_variant_ref_sink(parameters);
	g_main_context_invoke_full(NULL, G_PRIORITY_DEFAULT, emit_cb, pending,
				   (GDestroyNotify)pending_signal_free);
}

static void
queue_manager_signal(uid_t owner_uid, const char *member, GVariant *parameters)
{
	queue_signal(owner_uid, TC_SIGNALS_MANAGER_PATH, TC_SIGNALS_INTERFACE, member,
		     parameters);
}

/* PropertiesChanged of a session: changed (a{sv}, may be NULL) and the
 * names of invalidated properties (may be NULL). */
static void
queue_properties_changed(TcSession *session, GVariant *changed, const char *const *invalidated)
{
	static const char *const none[] = {NULL};

	if (changed == NULL)
		changed = g_variant_new_array(G_VARIANT_TYPE("{sv}"), NULL, 0);
	queue_signal(session->owner_uid, session->object_path, "org.freedesktop.DBus.Properties",
		     "PropertiesChanged",
		     g_variant_new("(s@a{sv}^as)", TC_SIGNALS_SESSION_INTERFACE, changed,
				   invalidated ? invalidated : none));
}

static GVariant *
one_property(const char *name, GVariant *value)
{
	GVariantBuilder builder;

	g_variant_builder_init(&builder, G_VARIANT_TYPE_VARDICT);
	g_variant_builder_add(&builder, "{sv}", name, value);
	return g_variant_builder_end(&builder);
}

void
tc_dbus_signals_session_created(TcSession *session)
{
	queue_manager_signal(session->owner_uid, "SessionCreated",
			     g_variant_new("(osu)", session->object_path, session->name,
					   (guint32)session->owner_uid));
}

static void
session_state_changed_cb(TcSession *session, gboolean is_active)
{
	static const char *const channels[] = {"Channels", NULL};

	if (g_atomic_int_get(&subscriber_count) == 0)
		return;
	/* Starting adds the default channel to a session that has none. */
	queue_properties_changed(
		session, one_property("State", g_variant_new_string(is_active ? "active" : "inactive")),
		is_active ? channels : NULL);
	queue_manager_signal(session->owner_uid, is_active ? "SessionStarted" : "SessionStopped",
			     g_variant_new("(o)", session->object_path));
}

void
tc_dbus_signals_session_destroyed(TcSession *session)
{
	queue_manager_signal(session->owner_uid, "SessionDestroyed",
			     g_variant_new("(o)", session->object_path));
}

static void
problem_changed_cb(TcSession *session, const char *problem)
{
	g_autofree char *text = NULL;

	if (g_atomic_int_get(&subscriber_count) == 0)
		return;
	/* It may quote what a consumer said. */
	text = g_utf8_make_valid(problem ? problem : "", -1);
	queue_properties_changed(session, one_property("Problem", g_variant_new_string(text)),
				 NULL);
	queue_manager_signal(session->owner_uid, "ProblemChanged",
			     g_variant_new("(os)", session->object_path, text));
}

static void
snapshot_recorded_cb(TcSession *session, const char *directory)
{
	queue_manager_signal(session->owner_uid, "SnapshotRecorded",
			     g_variant_new("(os)", session->object_path, directory));
}

static void
archive_rotated_cb(TcSession *session, const char *path)
{
	queue_manager_signal(session->owner_uid, "ArchiveRotated",
			     g_variant_new("(os)", session->object_path, path));
}

void
tc_dbus_signals_channels_changed(TcSession *session)
{
	static const char *const channels[] = {"Channels", NULL};

	if (g_atomic_int_get(&subscriber_count) == 0)
		return;
	queue_properties_changed(session, NULL, channels);
}

static void
app_registered_cb(pid_t pid, uid_t uid, const char *procname)
{
	g_autofree char *name = NULL;

	if (g_atomic_int_get(&subscriber_count) == 0)
		return;
	/* The application chose its name. */
	name = g_utf8_make_valid(procname, -1);
	queue_manager_signal(uid, "ApplicationRegistered",
			     g_variant_new("(ius)", (gint32)pid, (guint32)uid, name));
}

static void
app_gone_cb(pid_t pid, uid_t uid)
{
	queue_manager_signal(uid, "ApplicationGone",
			     g_variant_new("(iu)", (gint32)pid, (guint32)uid));
}

static void
trigger_fired_cb(const char *trigger, uid_t owner_uid, const char *session_path,
		 const char *condition)
{
	queue_manager_signal(owner_uid, "TriggerFired",
			     g_variant_new("(suos)", trigger, (guint32)owner_uid, session_path,
					   condition));
}

static const TcSignalsSink sink = {
    .session_state_changed = session_state_changed_cb,
    .problem_changed = problem_changed_cb,
    .snapshot_recorded = snapshot_recorded_cb,
    .archive_rotated = archive_rotated_cb,
    .app_registered = app_registered_cb,
    .app_gone = app_gone_cb,
    .trigger_fired = trigger_fired_cb,
};
