/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-lttng"

#include "tc-lttng-registry.h"

static GMutex registry_lock;
static GHashTable *apps; /* [registry_lock] id -> TcLttngApp * (a reference) */

static GHashTable *
table_locked(void)
{
	if (apps == NULL)
		apps = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL,
					     (GDestroyNotify)tc_lttng_app_unref);
	return apps;
}

void
tc_lttng_registry_add(TcLttngApp *app)
{
	g_mutex_lock(&registry_lock);
	g_hash_table_insert(table_locked(), &app->id, tc_lttng_app_ref(app));
	g_mutex_unlock(&registry_lock);
}

static GPtrArray *
list_where(gboolean (*match)(TcLttngApp *app, gconstpointer data), gconstpointer data)
{
	GPtrArray *list = g_ptr_array_new_with_free_func((GDestroyNotify)tc_lttng_app_unref);
	GHashTableIter iter;
	TcLttngApp *app;

	g_mutex_lock(&registry_lock);
	g_hash_table_iter_init(&iter, table_locked());
	while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&app))
		if (match(app, data))
			g_ptr_array_add(list, tc_lttng_app_ref(app));
	g_mutex_unlock(&registry_lock);
	return list;
}

typedef struct {
	pid_t pid;
	uid_t uid;
} TcLttngPeer;

static gboolean
is_pairing_peer(TcLttngApp *app, gconstpointer data)
{
	const TcLttngPeer *peer = data;
	gboolean match;

	g_mutex_lock(&app->lock);
	match = app->state == TC_LTTNG_APP_PAIRING && app->pid == peer->pid &&
		app->uid == peer->uid;
	g_mutex_unlock(&app->lock);
	return match;
}

TcLttngApp *
tc_lttng_registry_find_pairing(pid_t pid, uid_t uid)
{
	TcLttngPeer peer = {.pid = pid, .uid = uid};
	g_autoptr(GPtrArray) pairing = list_where(is_pairing_peer, &peer);

	/* One at most: a pid has one listener per session daemon. */
	return pairing->len ? tc_lttng_app_ref(g_ptr_array_index(pairing, 0)) : NULL;
}

gboolean
tc_lttng_registry_publish(TcLttngApp *app)
{
	gboolean is_published = FALSE;

	g_mutex_lock(&app->lock);
	if (app->state == TC_LTTNG_APP_PAIRING) {
		app->state = TC_LTTNG_APP_REGISTERED;
		is_published = TRUE;
	}
	g_mutex_unlock(&app->lock);
	return is_published;
}

TcLttngApp *
tc_lttng_registry_find(guint64 id)
{
	TcLttngApp *app;

	g_mutex_lock(&registry_lock);
	app = g_hash_table_lookup(table_locked(), &id);
	if (app)
		tc_lttng_app_ref(app);
	g_mutex_unlock(&registry_lock);
	return app;
}

gboolean
tc_lttng_registry_remove(TcLttngApp *app)
{
	gboolean was_linked;

	g_mutex_lock(&registry_lock);
	g_mutex_lock(&app->lock);
	app->state = TC_LTTNG_APP_GONE;
	g_mutex_unlock(&app->lock);
	/* The table's reference may be the last one: the key lives in it,
	 * so steal first, then drop. */
	was_linked = g_hash_table_steal(table_locked(), &app->id);
	g_mutex_unlock(&registry_lock);
	if (was_linked)
		tc_lttng_app_unref(app);
	return was_linked;
}

typedef struct {
	uid_t uid;
	gboolean all;
} TcLttngVisibility;

static gboolean
is_registered_visible(TcLttngApp *app, gconstpointer data)
{
	const TcLttngVisibility *visibility = data;
	gboolean match;

	g_mutex_lock(&app->lock);
	match = app->state == TC_LTTNG_APP_REGISTERED &&
		(visibility->all || app->uid == visibility->uid);
	g_mutex_unlock(&app->lock);
	return match;
}

GPtrArray *
tc_lttng_registry_list(uid_t uid, gboolean all)
{
	TcLttngVisibility visibility = {.uid = uid, .all = all};

	return list_where(is_registered_visible, &visibility);
}

static gboolean
is_pairing_expired(TcLttngApp *app, gconstpointer data)
{
	const gint64 *now_us = data;
	gboolean match;

	g_mutex_lock(&app->lock);
	match = app->state == TC_LTTNG_APP_PAIRING && app->deadline_us <= *now_us;
	g_mutex_unlock(&app->lock);
	return match;
}

GPtrArray *
tc_lttng_registry_list_expired(gint64 now_us)
{
	return list_where(is_pairing_expired, &now_us);
}

void
tc_lttng_registry_clear(void)
{
	g_autoptr(GPtrArray) all = NULL;
	g_mutex_lock(&registry_lock);
	if (apps) {
		GHashTableIter iter;
		TcLttngApp *app;

		all = g_ptr_array_new_with_free_func((GDestroyNotify)tc_lttng_app_unref);
		g_hash_table_iter_init(&iter, apps);
		while (g_hash_table_iter_next(&iter, NULL, (gpointer *)&app)) {
			g_mutex_lock(&app->lock);
			app->state = TC_LTTNG_APP_GONE;
			g_mutex_unlock(&app->lock);
			g_ptr_array_add(all, app);
			g_hash_table_iter_steal(&iter);
		}
	}
	g_mutex_unlock(&registry_lock);
}
