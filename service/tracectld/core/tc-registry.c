/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-registry"

#include "tc-registry.h"

#include "tc-consumer-abi.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tc-error.h"

#define HT_INITIAL_BUCKETS 64

static struct cds_lfht *sessions_by_id;
static struct cds_lfht *sessions_by_name; /* (owner, name) */
static struct cds_lfht *apps_by_fd;
static struct cds_lfht *apps_by_pid;
static guint64 next_session_id = 1;       /* atomic */
static guint64 next_channel_handle = 1;   /* atomic */

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

void
tc_random_uuid(guint8 uuid[16])
{
	for (guint i = 0; i < 16; i += 4) {
		guint32 r = g_random_int();

		memcpy(uuid + i, &r, 4);
	}
	uuid[6] = (uuid[6] & 0x0f) | 0x40; /* version 4 */
	uuid[8] = (uuid[8] & 0x3f) | 0x80; /* RFC 4122 variant */
}

/* Sessions. */

static void
kernel_probe_free(gpointer data)
{
	TcKernelProbe *probe = data;

	g_free(probe->name);
	g_free(probe->location);
	g_free(probe);
}

TcSession *
tc_session_new(const char *name, uid_t owner, const char *output_directory)
{
	TcSession *session = g_new0(TcSession, 1);

	session->refcount = 1;
	session->name = g_strdup(name);
	session->owner_uid = owner;
	tc_user_charge_init(&session->charge, owner);
	tc_session_set_output_directory(session, output_directory);
	tc_random_uuid(session->uuid);
	session->creation_realtime_us = g_get_real_time();
	tc_trace_clock_init(&session->clock);
	g_mutex_init(&session->op_lock);
	g_mutex_init(&session->lock);
	session->state = TC_SESSION_INACTIVE;
	session->channels = g_ptr_array_new();
	session->metadata_pending = g_string_new(NULL);
	session->metadata_body = g_string_new(NULL);
	session->kernel_events = g_ptr_array_new_with_free_func(g_free);
	session->kernel_filters = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	session->kernel_probes = g_ptr_array_new_with_free_func(kernel_probe_free);
	tc_tracker_init(&session->ust_tracker);
	tc_tracker_init(&session->kernel_tracker);
	session->units = g_ptr_array_new_with_free_func((GDestroyNotify)tc_tracked_unit_free);
	session->layouts_pending = g_array_new(FALSE, TRUE, sizeof(struct tc_consumer_event_layout));
	session->layouts_body = g_array_new(FALSE, TRUE, sizeof(struct tc_consumer_event_layout));
	session->traces = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	cds_lfht_node_init(&session->id_node);
	cds_lfht_node_init(&session->name_node);
	return session;
}

void
tc_session_set_output_directory(TcSession *session, const char *output_directory)
{
	g_free(session->output_directory);
	g_free(session->trace_dir);
	session->output_directory = g_strdup(output_directory);
	session->trace_dir = tc_uid_trace_dir(output_directory, session->owner_uid);
}

char *
tc_uid_trace_dir(const char *root, uid_t uid)
{
	return g_strdup_printf("%s%sust/uid/%u/%u-bit", root, *root ? "/" : "", (unsigned)uid,
			       (unsigned)(sizeof(long) * 8));
}

TcSession *
tc_session_ref(TcSession *session)
{
	g_atomic_int_inc(&session->refcount);
	return session;
}

static void
channel_buffers_free(TcChannelBuffers *buffers)
{
	for (guint i = 0; i < 2 * buffers->nr_streams; i++)
		if (buffers->fds[i] >= 0)
			close(buffers->fds[i]);
	g_free(buffers->fds);
	g_free(buffers);
}

static void
tc_channel_free(TcChannel *channel)
{
	g_hash_table_unref(channel->buffers);
	g_ptr_array_unref(channel->patterns);
	g_ptr_array_unref(channel->rules);
	g_hash_table_unref(channel->event_ids);
	g_free(channel->name);
	g_free(channel);
}

void
tc_session_unref(TcSession *session)
{
	if (session == NULL || !g_atomic_int_dec_and_test(&session->refcount))
		return;
	tc_user_limits_release(&session->charge); /* if it was never published */
	for (guint i = 0; i < session->channels->len; i++)
		tc_channel_free(g_ptr_array_index(session->channels, i));
	g_ptr_array_unref(session->channels);
	g_string_free(session->metadata_pending, TRUE);
	g_string_free(session->metadata_body, TRUE);
	g_ptr_array_unref(session->kernel_events);
	g_hash_table_unref(session->kernel_filters);
	g_ptr_array_unref(session->kernel_probes);
	tc_tracker_clear(&session->ust_tracker);
	tc_tracker_clear(&session->kernel_tracker);
	g_ptr_array_unref(session->units);
	g_clear_pointer(&session->snapshot_outputs, g_ptr_array_unref);
	g_array_unref(session->layouts_pending);
	g_array_unref(session->layouts_body);
	g_hash_table_unref(session->traces);
	g_free(session->problem);
	g_free(session->last_archive);
	g_mutex_clear(&session->op_lock);
	g_mutex_clear(&session->lock);
	g_free(session->name);
	g_free(session->output_directory);
	g_free(session->trace_dir);
	g_free(session->relay);
	g_free(session->object_path);
	g_free(session);
}

GHashTable *
tc_sessions_by_owner(GPtrArray *sessions)
{
	GHashTable *by_owner =
	    g_hash_table_new_full(NULL, NULL, NULL, (GDestroyNotify)g_ptr_array_unref);

	for (guint i = 0; i < sessions->len; i++) {
		TcSession *session = g_ptr_array_index(sessions, i);
		gpointer key = GUINT_TO_POINTER(session->owner_uid);
		GPtrArray *owned = g_hash_table_lookup(by_owner, key);

		if (owned == NULL) {
			owned = g_ptr_array_new_with_free_func((GDestroyNotify)tc_session_unref);
			g_hash_table_insert(by_owner, key, owned);
		}
		g_ptr_array_add(owned, tc_session_ref(session));
	}
	return by_owner;
}

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
	session->id = __atomic_fetch_add(&next_session_id, 1, __ATOMIC_RELAXED);
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

void
tc_channel_config_init_default(TcChannelConfig *config, gboolean snapshot)
{
	*config = (TcChannelConfig){
		.subbuf_size = TC_DEFAULT_SUBBUF_SIZE,
		.num_subbuf = TC_DEFAULT_NUM_SUBBUF,
		.overwrite = snapshot,
		/* A snapshot session writes only when asked to. */
		.read_timer_us = snapshot ? 0 : TC_DEFAULT_READ_TIMER_US,
		.monitor_timer_us = TC_DEFAULT_MONITOR_TIMER_US,
	};
}

TcChannel *
tc_session_add_channel_locked(TcSession *session, const char *name,
			      const TcChannelConfig *config)
{
	TcChannel *channel = g_new0(TcChannel, 1);

	channel->session = session;
	channel->name = g_strdup(name);
	channel->handle = __atomic_fetch_add(&next_channel_handle, 1, __ATOMIC_RELAXED);
	channel->stream_id = session->channels->len;
	channel->config = *config;
	channel->patterns = g_ptr_array_new_with_free_func(g_free);
	channel->rules = g_ptr_array_new_with_free_func((GDestroyNotify)tc_event_rule_free);
	channel->event_ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	channel->buffers = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
						 (GDestroyNotify)channel_buffers_free);
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
	/* The virtual ids are read once the peer is shown to be the
	 * connected process (tc_peer_virtual_ids()); unknown until then. */
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
	g_free(event);
}

void
tc_app_unref(TcApp *app)
{
	if (app == NULL || !g_atomic_int_dec_and_test(&app->refcount))
		return;
	tc_user_limits_release(&app->charge);
	g_free(app->cgroup);
	g_ptr_array_unref(app->events);
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

/* Waiting for acknowledgements. */

void
tc_ack_waiter_init(TcAckWaiter *waiter, uid_t owner_uid)
{
	g_mutex_init(&waiter->lock);
	g_cond_init(&waiter->cond);
	waiter->owner_uid = owner_uid;
	waiter->remaining_owner = 0;
	waiter->remaining_others = 0;
}

static guint *
remaining_of_locked(TcAckWaiter *waiter, TcApp *app)
{
	return app->uid == waiter->owner_uid ? &waiter->remaining_owner
					     : &waiter->remaining_others;
}

void
tc_ack_waiter_expect_locked(TcAckWaiter *waiter, TcApp *app)
{
	g_mutex_lock(&waiter->lock);
	(*remaining_of_locked(waiter, app))++;
	g_mutex_unlock(&waiter->lock);
}

void
tc_ack_waiter_signal_locked(TcAckWaiter *waiter, TcApp *app)
{
	guint *remaining;

	g_mutex_lock(&waiter->lock);
	remaining = remaining_of_locked(waiter, app);
	if (*remaining > 0)
		(*remaining)--;
	g_cond_broadcast(&waiter->cond);
	g_mutex_unlock(&waiter->lock);
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

/* [A] held: app let a deadline pass. Marked until it catches up, so that
 * later commands, of any session, do not wait for it again. */
static void
app_mark_unresponsive_locked(TcApp *app)
{
	if (!app->is_unresponsive)
		g_message("Application pid=%d uid=%u did not acknowledge in time: not waiting "
			  "for it until it answers",
			  (int)app->pid, (unsigned)app->uid);
	app->is_unresponsive = TRUE;
	app->unresponsive_seq = app->next_seq;
}

/* Drops every reference applications hold to waiter; those that still
 * owed it an answer are marked unresponsive. */
static void
forget_waiter(TcAckWaiter *waiter)
{
	g_autoptr(GPtrArray) apps = tc_registry_list_apps(0, TRUE);
	GHashTableIter pending;
	gpointer value;

	for (guint i = 0; i < apps->len; i++) {
		TcApp *app = g_ptr_array_index(apps, i);
		gboolean owed = FALSE;

		g_mutex_lock(&app->lock);
		if (app->pending) {
			g_hash_table_iter_init(&pending, app->pending);
			while (g_hash_table_iter_next(&pending, NULL, &value))
				if (value == waiter) {
					g_hash_table_iter_remove(&pending);
					owed = TRUE;
				}
		}
		if (owed && app->state == TC_APP_REGISTERED)
			app_mark_unresponsive_locked(app);
		g_mutex_unlock(&app->lock);
	}
}

void
tc_ack_waiter_wait(TcAckWaiter *waiter, guint timeout_ms)
{
	gint64 start = g_get_monotonic_time();
	gint64 owner_deadline = start + (gint64)timeout_ms * 1000;
	gint64 others_deadline =
		start + (gint64)MIN(timeout_ms, TC_ACK_OTHER_USERS_TIMEOUT_MS) * 1000;
	guint remaining;

	/* One deadline for all the applications, never one after the other. */
	g_mutex_lock(&waiter->lock);
	while (waiter->remaining_owner > 0 || waiter->remaining_others > 0) {
		gint64 deadline = waiter->remaining_owner > 0 ? owner_deadline : others_deadline;

		if (!g_cond_wait_until(&waiter->cond, &waiter->lock, deadline))
			break;
	}
	remaining = waiter->remaining_owner + waiter->remaining_others;
	g_mutex_unlock(&waiter->lock);
	if (remaining > 0) {
		g_message("%u command(s) not acknowledged within %u ms (%u ms for other users' "
			  "applications), carrying on",
			  remaining, timeout_ms, MIN(timeout_ms, TC_ACK_OTHER_USERS_TIMEOUT_MS));
		/* The waiter lives on the caller's stack. Applications signal it
		 * under their lock, so once forgotten it is never touched. */
		forget_waiter(waiter);
	}
	g_mutex_clear(&waiter->lock);
	g_cond_clear(&waiter->cond);
}
