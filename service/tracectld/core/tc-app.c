/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-registry"

#include "tc-app.h"

#include "tc-unit.h"

TcApp *
tc_app_new(int fd, pid_t pid, uid_t uid, gid_t gid)
{
	TcApp *app = g_new0(TcApp, 1);

	app->refcount = 1;
	app->fd = fd;
	app->pid = pid;
	app->uid = uid;
	app->gid = gid;
	/* The virtual ids are read once the peer is shown to be the
	 * connected process (tc_peer_identity_virtual_ids()); unknown until
	 * then. */
	app->ids.value[TC_TRACK_PID] = pid;
	app->ids.value[TC_TRACK_UID] = uid;
	app->ids.value[TC_TRACK_GID] = gid;
	app->ids.value[TC_TRACK_VPID] = -1;
	app->ids.value[TC_TRACK_VUID] = -1;
	app->ids.value[TC_TRACK_VGID] = -1;
	g_mutex_init(&app->lock);
	g_mutex_init(&app->cgroup_lock);
	app->state = TC_APP_REGISTERING;
	app->events = g_ptr_array_new_with_free_func((GDestroyNotify)tc_app_event_free);
	app->enums = g_ptr_array_new_with_free_func((GDestroyNotify)tc_app_enum_free);
	app->app_contexts = g_array_new(FALSE, FALSE, sizeof(TcAppContext));
	app->next_seq = 1;
	cds_lfht_node_init(&app->pid_node);
	cds_lfht_node_init(&app->fd_node);
	return app;
}

gboolean
tc_app_in_cgroup(const TcApp *app, const char *unit_cgroup)
{
	GMutex *lock = (GMutex *)&app->cgroup_lock;
	gboolean contains;

	g_mutex_lock(lock);
	contains = tc_unit_cgroup_contains(unit_cgroup, app->cgroup);
	g_mutex_unlock(lock);
	return contains;
}

gboolean
tc_app_set_cgroup(TcApp *app, char *cgroup)
{
	gboolean changed;

	g_mutex_lock(&app->cgroup_lock);
	changed = g_strcmp0(app->cgroup, cgroup) != 0;
	g_free(app->cgroup);
	app->cgroup = cgroup;
	g_mutex_unlock(&app->cgroup_lock);
	return changed;
}

char *
tc_app_dup_cgroup(const TcApp *app)
{
	GMutex *lock = (GMutex *)&app->cgroup_lock;
	char *copy;

	g_mutex_lock(lock);
	copy = g_strdup(app->cgroup);
	g_mutex_unlock(lock);
	return copy;
}

TcApp *
tc_app_ref(TcApp *app)
{
	g_atomic_int_inc(&app->refcount);
	return app;
}

void
tc_app_event_free(TcAppEvent *event)
{
	g_free(event->signature);
	g_free(event->enums);
	g_free(event);
}

void
tc_app_enum_free(TcAppEnum *enumeration)
{
	g_free(enumeration->digest);
	g_free(enumeration);
}

char *
tc_app_event_key(const TcAppEvent *event)
{
	GString *key = g_string_new(event->name);

	g_string_append_printf(key, "|%s", event->signature);
	for (guint i = 0; event->enums && i < event->nr_fields; i++)
		if (event->enums[i])
			g_string_append_printf(key, "|%s", event->enums[i]->digest);
	return g_string_free(key, FALSE);
}

const char *
tc_app_context_type_name(guint32 type)
{
	switch (type) {
	case TRACECTL_ABI_APP_CONTEXT_INT64:
		return "int64";
	case TRACECTL_ABI_APP_CONTEXT_UINT64:
		return "uint64";
	default:
		return "double";
	}
}

void
tc_app_unref(TcApp *app)
{
	if (app == NULL || !g_atomic_int_dec_and_test(&app->refcount))
		return;
	tc_user_limits_release(&app->charge);
	g_free(app->cgroup);
	g_ptr_array_unref(app->events);
	g_ptr_array_unref(app->enums);
	g_array_unref(app->app_contexts);
	if (app->sessions)
		g_hash_table_unref(app->sessions);
	if (app->notifiers)
		g_hash_table_unref(app->notifiers);
	if (app->pending)
		g_hash_table_unref(app->pending);
	g_mutex_clear(&app->lock);
	g_mutex_clear(&app->cgroup_lock);
	g_free(app);
}

void
tc_app_answered_locked(TcApp *app, guint32 seq)
{
	/* Sequence numbers wrap: compare their distance. */
	if (app->is_unresponsive && (gint32)(seq - app->unresponsive_seq) >= 0) {
		app->is_unresponsive = FALSE;
		g_message("Application pid=%d uid=%u answers again", (int)app->pid,
			  (unsigned)app->uid);
	}
}

void
tc_app_mark_unresponsive_locked(TcApp *app)
{
	if (!app->is_unresponsive)
		g_message("Application pid=%d uid=%u did not acknowledge in time: not waiting "
			  "for it until it answers",
			  (int)app->pid, (unsigned)app->uid);
	app->is_unresponsive = TRUE;
	app->unresponsive_seq = app->next_seq;
}
