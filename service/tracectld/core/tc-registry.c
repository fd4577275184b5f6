/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-registry"

#include "tc-registry.h"

#include <urcu.h>
#include <urcu/rculfhash.h>

#include "tc-ack-waiter.h"
#include "tc-app.h"
#include "tc-error.h"
#include "tc-id-sequence.h"
#include "tc-session.h"
#include "tc-user-limits.h"

#define HT_INITIAL_BUCKETS 64

static struct cds_lfht *sessions_by_id;
static struct cds_lfht *sessions_by_name; /* (owner, name) */
static struct cds_lfht *apps_by_fd;
static struct cds_lfht *apps_by_pid;

static struct cds_lfht *
new_table(void)
{
	return cds_lfht_new(HT_INITIAL_BUCKETS, HT_INITIAL_BUCKETS, 0,
			    CDS_LFHT_AUTO_RESIZE | CDS_LFHT_ACCOUNTING, NULL);
}

void
tc_registry_init(void)
{
	sessions_by_id = new_table();
	sessions_by_name = new_table();
	apps_by_fd = new_table();
	apps_by_pid = new_table();
}

static unsigned long
hash_u64(guint64 value)
{
	/* Fibonacci hashing spreads consecutive ids over the buckets. */
	return (unsigned long)(value * G_GUINT64_CONSTANT(0x9E3779B97F4A7C15));
}

static unsigned long
hash_owner_name(uid_t owner, const char *name)
{
	return hash_u64(owner) ^ g_str_hash(name);
}

/* Sessions. */

typedef struct {
	uid_t owner;
	const char *name;
} OwnerName;

static int
match_owner_name(struct cds_lfht_node *node, const void *key)
{
	const TcSession *session = caa_container_of(node, TcSession, name_node);
	const OwnerName *wanted = key;

	return session->owner_uid == wanted->owner && g_str_equal(session->name, wanted->name);
}

static int
match_session_id(struct cds_lfht_node *node, const void *key)
{
	return caa_container_of(node, TcSession, id_node)->id == *(const guint64 *)key;
}

gboolean
tc_registry_add_session(TcSession *session, GError **error)
{
	OwnerName key = {session->owner_uid, session->name};
	struct cds_lfht_node *existing;

	if (!tc_user_limits_charge(&session->charge, TC_LIMIT_SESSIONS, 1, error))
		return FALSE;
	session->id = tc_id_sequence_next();
	session->object_path =
		g_strdup_printf("/org/tracectl/Tracing1/session/%" G_GUINT64_FORMAT, session->id);
	tc_session_ref(session); /* the registry's */
	rcu_read_lock();
	/* The name table decides uniqueness, atomically. */
	existing = cds_lfht_add_unique(sessions_by_name,
				       hash_owner_name(session->owner_uid, session->name),
				       match_owner_name, &key, &session->name_node);
	if (existing != &session->name_node) {
		rcu_read_unlock();
		tc_user_limits_release(&session->charge);
		tc_session_unref(session);
		g_set_error(error, TC_ERROR, TC_ERROR_ALREADY_EXISTS,
			    "A session named '%s' already exists", session->name);
		return FALSE;
	}
	cds_lfht_add(sessions_by_id, hash_u64(session->id), &session->id_node);
	rcu_read_unlock();
	return TRUE;
}

static void
session_free_rcu(struct rcu_head *head)
{
	tc_session_unref(caa_container_of(head, TcSession, rcu_head));
}

void
tc_registry_remove_session_locked(TcSession *session)
{
	if (session->destroyed)
		return;
	session->destroyed = TRUE;
	/* Given back at once: the owner may create another right away. */
	tc_user_limits_release(&session->charge);
	rcu_read_lock();
	cds_lfht_del(sessions_by_id, &session->id_node);
	cds_lfht_del(sessions_by_name, &session->name_node);
	rcu_read_unlock();
	/* Readers that found it before the removal may still use it. */
	call_rcu(&session->rcu_head, session_free_rcu);
}

/* RCU read-side lock held: takes a reference unless the session is going. */
static TcSession *
ref_if_alive(TcSession *session)
{
	gint old;

	do {
		old = g_atomic_int_get(&session->refcount);
		if (old == 0)
			return NULL;
	} while (!g_atomic_int_compare_and_exchange(&session->refcount, old, old + 1));
	return session;
}

TcSession *
tc_registry_find_session(guint64 id)
{
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;
	TcSession *session = NULL;

	rcu_read_lock();
	cds_lfht_lookup(sessions_by_id, hash_u64(id), match_session_id, &id, &iter);
	node = cds_lfht_iter_get_node(&iter);
	if (node)
		session = ref_if_alive(caa_container_of(node, TcSession, id_node));
	rcu_read_unlock();
	return session;
}

TcSession *
tc_registry_find_session_by_name(uid_t owner, const char *name)
{
	OwnerName key = {owner, name};
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;
	TcSession *session = NULL;

	rcu_read_lock();
	cds_lfht_lookup(sessions_by_name, hash_owner_name(owner, name), match_owner_name, &key,
			&iter);
	node = cds_lfht_iter_get_node(&iter);
	if (node)
		session = ref_if_alive(caa_container_of(node, TcSession, name_node));
	rcu_read_unlock();
	return session;
}

static gint
compare_session_ids(gconstpointer a, gconstpointer b)
{
	const TcSession *sa = *(TcSession *const *)a;
	const TcSession *sb = *(TcSession *const *)b;

	return sa->id < sb->id ? -1 : sa->id > sb->id;
}

GPtrArray *
tc_registry_list_sessions(uid_t uid, gboolean all)
{
	GPtrArray *result = g_ptr_array_new_with_free_func((GDestroyNotify)tc_session_unref);
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;

	rcu_read_lock();
	/* Not cds_lfht_for_each_entry(): it computes container_of(NULL). */
	for (cds_lfht_first(sessions_by_id, &iter); (node = cds_lfht_iter_get_node(&iter));
	     cds_lfht_next(sessions_by_id, &iter)) {
		TcSession *session = caa_container_of(node, TcSession, id_node);

		if ((all || session->owner_uid == uid) && ref_if_alive(session))
			g_ptr_array_add(result, session);
	}
	rcu_read_unlock();
	g_ptr_array_sort(result, compare_session_ids);
	return result;
}

/* Whether session may record applications of uid: its owner's, root's
 * sessions, and those that track units (whose applications run as any
 * uid). Takes [S]. */
static gboolean
session_may_record_uid(TcSession *session, uid_t uid)
{
	g_autoptr(GMutexLocker) locker = NULL;

	if (tc_session_records_uid(session, uid))
		return TRUE;
	locker = g_mutex_locker_new(&session->lock);
	return session->units->len > 0;
}

GPtrArray *
tc_registry_list_sessions_recording(uid_t uid)
{
	GPtrArray *result = tc_registry_list_sessions(0, TRUE);

	for (guint i = result->len; i-- > 0;)
		if (!session_may_record_uid(g_ptr_array_index(result, i), uid))
			g_ptr_array_remove_index(result, i);
	return result;
}

gboolean
tc_registry_user_has_sessions(uid_t uid)
{
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;
	gboolean found = FALSE;

	rcu_read_lock();
	for (cds_lfht_first(sessions_by_id, &iter);
	     !found && (node = cds_lfht_iter_get_node(&iter)); cds_lfht_next(sessions_by_id, &iter))
		found = caa_container_of(node, TcSession, id_node)->owner_uid == uid;
	rcu_read_unlock();
	return found;
}

guint
tc_registry_session_count(void)
{
	long approx_before, approx_after;
	unsigned long count;

	rcu_read_lock();
	cds_lfht_count_nodes(sessions_by_id, &approx_before, &count, &approx_after);
	rcu_read_unlock();
	return count;
}

/* Applications. */

static int
match_app_fd(struct cds_lfht_node *node, const void *key)
{
	return caa_container_of(node, TcApp, fd_node)->fd == *(const int *)key;
}

static int
match_app_pid(struct cds_lfht_node *node, const void *key)
{
	return caa_container_of(node, TcApp, pid_node)->pid == *(const pid_t *)key;
}

void
tc_registry_add_app(TcApp *app)
{
	struct cds_lfht_node *replaced;

	tc_app_ref(app); /* the registry's */
	rcu_read_lock();
	cds_lfht_add(apps_by_fd, hash_u64(app->fd), &app->fd_node);
	/* A dead process's entry may linger until its socket hang-up is
	 * seen; the newer process of that pid wins the pid index. */
	replaced = cds_lfht_add_replace(apps_by_pid, hash_u64(app->pid), match_app_pid,
					&app->pid, &app->pid_node);
	(void)replaced;
	rcu_read_unlock();
}

static void
app_free_rcu(struct rcu_head *head)
{
	tc_app_unref(caa_container_of(head, TcApp, rcu_head));
}

void
tc_registry_remove_app_locked(TcApp *app)
{
	gboolean was_published = app->state == TC_APP_REGISTERED;
	GHashTableIter iter;
	gpointer value;

	app->state = TC_APP_DEAD;
	/* Nobody waits for the answers of a dead application. */
	if (app->pending) {
		g_hash_table_iter_init(&iter, app->pending);
		while (g_hash_table_iter_next(&iter, NULL, &value))
			tc_ack_waiter_signal_locked(value, app);
		g_hash_table_remove_all(app->pending);
	}
	if (!was_published)
		return;
	rcu_read_lock();
	cds_lfht_del(apps_by_fd, &app->fd_node);
	/* -ENOENT when a newer process of the same pid replaced us. */
	cds_lfht_del(apps_by_pid, &app->pid_node);
	rcu_read_unlock();
	call_rcu(&app->rcu_head, app_free_rcu);
}

TcApp *
tc_registry_find_app_by_fd(int fd)
{
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;

	cds_lfht_lookup(apps_by_fd, hash_u64(fd), match_app_fd, &fd, &iter);
	node = cds_lfht_iter_get_node(&iter);
	return node ? caa_container_of(node, TcApp, fd_node) : NULL;
}

TcApp *
tc_registry_find_app_by_pid(pid_t pid)
{
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;

	cds_lfht_lookup(apps_by_pid, hash_u64(pid), match_app_pid, &pid, &iter);
	node = cds_lfht_iter_get_node(&iter);
	return node ? caa_container_of(node, TcApp, pid_node) : NULL;
}

GPtrArray *
tc_registry_list_apps(uid_t uid, gboolean all)
{
	GPtrArray *result = g_ptr_array_new_with_free_func((GDestroyNotify)tc_app_unref);
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;

	rcu_read_lock();
	for (cds_lfht_first(apps_by_fd, &iter); (node = cds_lfht_iter_get_node(&iter));
	     cds_lfht_next(apps_by_fd, &iter)) {
		TcApp *app = caa_container_of(node, TcApp, fd_node);

		if (all || app->uid == uid)
			g_ptr_array_add(result, tc_app_ref(app));
	}
	rcu_read_unlock();
	return result;
}

guint
tc_registry_app_count(void)
{
	long approx_before, approx_after;
	unsigned long count;

	rcu_read_lock();
	cds_lfht_count_nodes(apps_by_fd, &approx_before, &count, &approx_after);
	rcu_read_unlock();
	return count;
}
