/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-apps"

#include "tc-app-quota.h"

static GMutex quota_lock;
static GHashTable *held; /* [quota_lock] uid -> connections, only uids with some */
static guint max_per_uid = TC_APP_QUOTA_DEFAULT;

void
tc_app_quota_set_max(guint max)
{
	max_per_uid = max;
}

gboolean
tc_app_quota_take(uid_t uid)
{
	gpointer key = GUINT_TO_POINTER(uid);
	guint count;

	if (uid == 0 || max_per_uid == 0)
		return TRUE;
	g_mutex_lock(&quota_lock);
	if (held == NULL)
		held = g_hash_table_new(g_direct_hash, g_direct_equal);
	count = GPOINTER_TO_UINT(g_hash_table_lookup(held, key));
	if (count < max_per_uid)
		g_hash_table_insert(held, key, GUINT_TO_POINTER(count + 1));
	g_mutex_unlock(&quota_lock);
	return count < max_per_uid;
}

void
tc_app_quota_release(uid_t uid)
{
	gpointer key = GUINT_TO_POINTER(uid);
	guint count;

	if (uid == 0 || max_per_uid == 0)
		return;
	g_mutex_lock(&quota_lock);
	count = held ? GPOINTER_TO_UINT(g_hash_table_lookup(held, key)) : 0;
	if (count > 1)
		g_hash_table_insert(held, key, GUINT_TO_POINTER(count - 1));
	else if (count == 1)
		g_hash_table_remove(held, key);
	g_mutex_unlock(&quota_lock);
}
