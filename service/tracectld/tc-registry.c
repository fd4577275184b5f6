/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-registry"

#include "tc-registry.h"

#include <time.h>
#include <unistd.h>

#include "tc-error.h"

typedef struct {
	GMutex lock;
	GCond ack_cond;       /* applications answered or died */
	GHashTable *sessions; /* id -> TcSession * (a reference) */
	GHashTable *apps;     /* fd -> TcApp * (a reference) */
	guint64 next_session_id;
	guint64 next_channel_handle;
} TcRegistry;

static TcRegistry registry;

void
tc_registry_init(void)
{
	g_mutex_init(&registry.lock);
	g_cond_init(&registry.ack_cond);
	registry.sessions = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL,
						  (GDestroyNotify)tc_session_unref);
	registry.apps = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
					      (GDestroyNotify)tc_app_unref);
	registry.next_session_id = 1;
	registry.next_channel_handle = 1;
}

GMutex *
tc_registry_lock(void)
{
	return &registry.lock;
}

void
tc_registry_lock_acquire(void)
{
	g_mutex_lock(&registry.lock);
}

void
tc_registry_lock_release(void)
{
	g_mutex_unlock(&registry.lock);
}

static gint64
clock_offset_ns(void)
{
	struct timespec real, mono;

	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	return ((gint64)real.tv_sec - mono.tv_sec) * G_GINT64_CONSTANT(1000000000) +
	       ((gint64)real.tv_nsec - mono.tv_nsec);
}

static void
random_uuid(guint8 uuid[16])
{
	for (guint i = 0; i < 16; i += 4) {
		guint32 r = g_random_int();

		memcpy(uuid + i, &r, 4);
	}
	uuid[6] = (uuid[6] & 0x0f) | 0x40; /* version 4 */
	uuid[8] = (uuid[8] & 0x3f) | 0x80; /* RFC 4122 variant */
}

TcSession *
tc_session_new(const char *name, uid_t owner, const char *output_directory)
{
	TcSession *session = g_new0(TcSession, 1);

	session->refcount = 1;
	session->name = g_strdup(name);
	session->owner_uid = owner;
	session->output_directory = g_strdup(output_directory);
	session->trace_dir =
		g_strdup_printf("%s/ust/uid/%u/%u-bit", output_directory, (unsigned)owner,
				(unsigned)(sizeof(long) * 8));
	random_uuid(session->uuid);
	session->creation_realtime_us = g_get_real_time();
	session->clock_offset_ns = clock_offset_ns();
	g_mutex_init(&session->op_lock);
	session->state = TC_SESSION_INACTIVE;
	session->channels = g_ptr_array_new();
	session->metadata_pending = g_string_new(NULL);
	return session;
}

TcSession *
tc_session_ref(TcSession *session)
{
	g_atomic_int_inc(&session->refcount);
	return session;
}

static void
tc_channel_free(TcChannel *channel)
{
	for (guint i = 0; channel->stream_fds && i < channel->nr_streams; i++)
		if (channel->stream_fds[i] >= 0)
			close(channel->stream_fds[i]);
	g_free(channel->stream_fds);
	g_ptr_array_unref(channel->patterns);
	g_hash_table_unref(channel->event_ids);
	g_free(channel->name);
	g_free(channel);
}

void
tc_session_unref(TcSession *session)
{
	if (session == NULL || !g_atomic_int_dec_and_test(&session->refcount))
		return;
	for (guint i = 0; i < session->channels->len; i++)
		tc_channel_free(g_ptr_array_index(session->channels, i));
	g_ptr_array_unref(session->channels);
	g_string_free(session->metadata_pending, TRUE);
	g_mutex_clear(&session->op_lock);
	g_free(session->name);
	g_free(session->output_directory);
	g_free(session->trace_dir);
	g_free(session->object_path);
	g_free(session);
}

static TcSession *
find_by_name_locked(uid_t owner, const char *name)
{
	GHashTableIter iter;
	gpointer value;

	g_hash_table_iter_init(&iter, registry.sessions);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		TcSession *session = value;

		if (session->owner_uid == owner && g_str_equal(session->name, name))
			return session;
	}
	return NULL;
}

gboolean
tc_registry_add_session_locked(TcSession *session, GError **error)
{
	if (find_by_name_locked(session->owner_uid, session->name) != NULL) {
		g_set_error(error, TC_ERROR, TC_ERROR_ALREADY_EXISTS,
			    "A session named '%s' already exists", session->name);
		return FALSE;
	}
	session->id = registry.next_session_id++;
	session->object_path =
		g_strdup_printf("/org/tracectl/Tracing1/session/%" G_GUINT64_FORMAT, session->id);
	g_hash_table_insert(registry.sessions, &session->id, tc_session_ref(session));
	return TRUE;
}

void
tc_registry_remove_session_locked(TcSession *session)
{
	session->destroyed = TRUE;
	g_hash_table_remove(registry.sessions, &session->id);
}

TcSession *
tc_registry_find_session(guint64 id)
{
	TcSession *session;

	g_mutex_lock(&registry.lock);
	session = g_hash_table_lookup(registry.sessions, &id);
	if (session)
		tc_session_ref(session);
	g_mutex_unlock(&registry.lock);
	return session;
}

TcSession *
tc_registry_find_session_by_name(uid_t owner, const char *name)
{
	TcSession *session;

	g_mutex_lock(&registry.lock);
	session = find_by_name_locked(owner, name);
	if (session)
		tc_session_ref(session);
	g_mutex_unlock(&registry.lock);
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
	GHashTableIter iter;
	gpointer value;

	g_mutex_lock(&registry.lock);
	g_hash_table_iter_init(&iter, registry.sessions);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		TcSession *session = value;

		if (all || session->owner_uid == uid)
			g_ptr_array_add(result, tc_session_ref(session));
	}
	g_mutex_unlock(&registry.lock);
	g_ptr_array_sort(result, compare_session_ids);
	return result;
}

GPtrArray *
tc_registry_sessions_locked(uid_t uid)
{
	GPtrArray *result = g_ptr_array_new();
	GHashTableIter iter;
	gpointer value;

	g_hash_table_iter_init(&iter, registry.sessions);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		TcSession *session = value;

		if (session->owner_uid == uid)
			g_ptr_array_add(result, session);
	}
	return result;
}

guint
tc_registry_session_count(void)
{
	guint count;

	g_mutex_lock(&registry.lock);
	count = g_hash_table_size(registry.sessions);
	g_mutex_unlock(&registry.lock);
	return count;
}

TcChannel *
tc_session_find_channel_locked(TcSession *session, const char *name)
{
	for (guint i = 0; i < session->channels->len; i++) {
		TcChannel *channel = g_ptr_array_index(session->channels, i);

		if (g_str_equal(channel->name, name))
			return channel;
	}
	return NULL;
}

TcChannel *
tc_session_add_channel_locked(TcSession *session, const char *name, guint32 subbuf_size,
			      guint32 num_subbuf)
{
	TcChannel *channel = g_new0(TcChannel, 1);

	channel->session = session;
	channel->name = g_strdup(name);
	channel->handle = registry.next_channel_handle++;
	channel->stream_id = session->channels->len;
	channel->subbuf_size = subbuf_size;
	channel->num_subbuf = num_subbuf;
	channel->patterns = g_ptr_array_new_with_free_func(g_free);
	channel->event_ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_ptr_array_add(session->channels, channel);
	return channel;
}

/* Applications. */

TcApp *
tc_app_new(int fd, pid_t pid, uid_t uid, gid_t gid)
{
	TcApp *app = g_new0(TcApp, 1);

	app->refcount = 1;
	app->fd = fd;
	app->pid = pid;
	app->uid = uid;
	app->gid = gid;
	app->state = TC_APP_CONNECTED;
	app->events = g_ptr_array_new_with_free_func((GDestroyNotify)tc_app_event_free);
	app->next_seq = 1;
	app->sessions = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
					      (GDestroyNotify)tc_app_session_state_free);
	app->pending = g_hash_table_new(g_direct_hash, g_direct_equal);
	return app;
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
	g_free(event);
}

void
tc_app_unref(TcApp *app)
{
	if (app == NULL || !g_atomic_int_dec_and_test(&app->refcount))
		return;
	g_ptr_array_unref(app->events);
	g_hash_table_unref(app->sessions);
	g_hash_table_unref(app->pending);
	g_free(app);
}

void
tc_registry_add_app_locked(TcApp *app)
{
	g_hash_table_insert(registry.apps, GINT_TO_POINTER(app->fd), tc_app_ref(app));
}

void
tc_registry_remove_app_locked(TcApp *app)
{
	GHashTableIter iter;
	gpointer value;

	app->state = TC_APP_DEAD;
	/* Nobody waits for the answers of a dead application. */
	g_hash_table_iter_init(&iter, app->pending);
	while (g_hash_table_iter_next(&iter, NULL, &value))
		tc_ack_waiter_signal_locked(value);
	g_hash_table_remove_all(app->pending);
	g_hash_table_remove(registry.apps, GINT_TO_POINTER(app->fd));
}

TcApp *
tc_registry_find_app_by_fd_locked(int fd)
{
	return g_hash_table_lookup(registry.apps, GINT_TO_POINTER(fd));
}

GPtrArray *
tc_registry_apps_locked(uid_t uid, gboolean all)
{
	GPtrArray *result = g_ptr_array_new();
	GHashTableIter iter;
	gpointer value;

	g_hash_table_iter_init(&iter, registry.apps);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		TcApp *app = value;

		if (app->state == TC_APP_REGISTERED && (all || app->uid == uid))
			g_ptr_array_add(result, app);
	}
	return result;
}

guint
tc_registry_app_count(void)
{
	guint count;

	g_mutex_lock(&registry.lock);
	count = g_hash_table_size(registry.apps);
	g_mutex_unlock(&registry.lock);
	return count;
}

void
tc_ack_waiter_signal_locked(TcAckWaiter *waiter)
{
	if (waiter->remaining > 0)
		waiter->remaining--;
	g_cond_broadcast(&registry.ack_cond);
}

static void
forget_waiter(TcAckWaiter *waiter)
{
	GHashTableIter apps, pending;
	gpointer app_ptr, value;

	g_hash_table_iter_init(&apps, registry.apps);
	while (g_hash_table_iter_next(&apps, NULL, &app_ptr)) {
		TcApp *app = app_ptr;

		g_hash_table_iter_init(&pending, app->pending);
		while (g_hash_table_iter_next(&pending, NULL, &value))
			if (value == waiter)
				g_hash_table_iter_remove(&pending);
	}
}

void
tc_ack_waiter_wait_locked(TcAckWaiter *waiter, guint timeout_ms)
{
	gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;

	while (waiter->remaining > 0) {
		if (!g_cond_wait_until(&registry.ack_cond, &registry.lock, deadline))
			break;
	}
	if (waiter->remaining > 0) {
		g_message("%u application(s) did not answer within %u ms, carrying on",
			  waiter->remaining, timeout_ms);
		/* The waiter lives on the caller's stack: drop every reference. */
		forget_waiter(waiter);
	}
}
