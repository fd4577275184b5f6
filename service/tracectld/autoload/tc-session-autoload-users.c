/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The users whose own session directories auto-loading reads
 * (tc-session-autoload-private.h): those logind says are logged in at
 * start, and the claim that has each user's directory read once per
 * service lifetime, whoever asks.
 */
#define G_LOG_DOMAIN "tracectld-autoload"

#include "tc-session-autoload.h"

#include "tc-session-autoload-private.h"

/* Users whose own directories are read; the rest are left out, logged. */
#define TC_AUTOLOAD_USERS_MAX 256

/* The users logind knows are logged in; none without logind. */
static void
add_logged_in_users(GDBusConnection *connection, GArray *users)
{
	g_autoptr(GVariant) reply = NULL;
	g_autoptr(GVariantIter) iter = NULL;
	g_autoptr(GError) error = NULL;
	guint32 uid;

	if (connection)
		reply = g_dbus_connection_call_sync(
			connection, "org.freedesktop.login1", "/org/freedesktop/login1",
			"org.freedesktop.login1.Manager", "ListUsers", NULL,
			G_VARIANT_TYPE("(a(uso))"), G_DBUS_CALL_FLAGS_NONE, 5000, NULL, &error);
	if (reply == NULL) {
		g_debug("Auto-load: no logged-in users from logind: %s",
			error ? error->message : "no bus");
		return;
	}
	g_variant_get(reply, "(a(uso))", &iter);
	while (g_variant_iter_loop(iter, "(u&s&o)", &uid, NULL, NULL))
		g_array_append_val(users, uid);
}

static gint
compare_uids(gconstpointer a, gconstpointer b)
{
	guint32 x = *(const guint32 *)a, y = *(const guint32 *)b;

	return x < y ? -1 : x > y;
}

/* The users logged in now whose own directories are read at start, but
 * not root (root's are the system's), sorted, each once, at most
 * TC_AUTOLOAD_USERS_MAX. (The owners of the system's files read theirs
 * on their own thread, once a session of theirs loaded.) */
GArray *
tc_session_autoload_users_logged_in(GDBusConnection *connection)
{
	GArray *users = g_array_new(FALSE, FALSE, sizeof(guint32));
	guint kept = 0;

	add_logged_in_users(connection, users);
	g_array_sort(users, compare_uids);
	for (guint i = 0; i < users->len; i++) {
		guint32 uid = g_array_index(users, guint32, i);

		if (uid != 0 && (kept == 0 || g_array_index(users, guint32, kept - 1) != uid))
			g_array_index(users, guint32, kept++) = uid;
	}
	g_array_set_size(users, kept);
	if (users->len > TC_AUTOLOAD_USERS_MAX) {
		g_warning("Auto-load: %u users; reading the directories of the first %d",
			  users->len, TC_AUTOLOAD_USERS_MAX);
		g_array_set_size(users, TC_AUTOLOAD_USERS_MAX);
	}
	return users;
}

/* The users whose own directory was read (or is being read) since the
 * service started, from the start-time thread and at logind's UserNew
 * alike: each user's directory is read once per service lifetime, so a
 * user's second login, or a UserNew racing ListUsers, never loads the
 * same sessions twice. At most TC_AUTOLOAD_USERS_MAX. */
static GMutex claimed_lock;
static GHashTable *claimed_users; /* uid → itself, under claimed_lock */

/* Any thread: TRUE if user's directory is still to be read, and now
 * claimed by the caller. */
gboolean
tc_session_autoload_users_claim(uid_t user)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&claimed_lock);

	if (claimed_users == NULL)
		claimed_users = g_hash_table_new(NULL, NULL);
	if (g_hash_table_contains(claimed_users, GUINT_TO_POINTER(user)))
		return FALSE;
	if (g_hash_table_size(claimed_users) >= TC_AUTOLOAD_USERS_MAX) {
		g_warning("Auto-load: uid %u: the directories of %d users were read already; "
			  "not reading more",
			  (unsigned)user, TC_AUTOLOAD_USERS_MAX);
		return FALSE;
	}
	g_hash_table_add(claimed_users, GUINT_TO_POINTER(user));
	return TRUE;
}
