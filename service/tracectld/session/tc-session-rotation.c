/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Rotation and clear of a session's trace (tc-session-rotation.h).
 *
 * The scheduler is one thread of the service, started with the first
 * schedule: every TC_ROTATION_CHECK_INTERVAL_US it takes the sessions
 * that have a schedule, by owner, and hands each owner's to a thread of
 * that owner's (tc-owner-pool.h). There, for those recording, it rotates
 * the ones whose timer is due or whose current chunk reached its size
 * (the consumer counts the bytes it wrote, TC_CONSUMER_CHUNK_SIZE). A
 * rotation waits on the owner's consumer, which runs as the owner, who
 * can make it slow: an owner whose last round is still under way is
 * skipped for the round (their rotations wait for the next), so one
 * owner's consumer never delays another's rotations, and never holds
 * more than one thread. Neither the D-Bus main loop nor the request pool
 * runs them: their threads are shared fairly by the callers.
 *
 * Lock order: the scheduler's lock > the pool's; a session's op_lock >
 * its lock [S]. The scheduler's lock is never held across an operation.
 */
#define G_LOG_DOMAIN "tracectld-session"

#include "tc-session-rotation.h"

#include <urcu.h>

#include "tc-consumer.h"
#include "tc-error.h"
#include "tc-lttng-session.h"
#include "tc-owner-pool.h"
#include "tc-session-op.h"
#include "tc-session-trace.h"
#include "tc-session.h"
#include "tc-signals.h"
#include "tc-uid-trace.h"

static GMutex scheduler_lock;
static GCond scheduler_cond;
static GThread *scheduler_thread;  /* [scheduler_lock] */
static GPtrArray *scheduled;       /* [scheduler_lock] TcSession *, referenced */
static gboolean scheduler_stopping; /* [scheduler_lock] */
static TcOwnerPool *rounds_pool;    /* [scheduler_lock] set with scheduler_thread */

/* One owner's scheduled sessions at a round, on a thread of rounds_pool:
 * TcSession *, referenced. */
typedef GPtrArray TcOwnerSchedules;

/* As LTTng 2.13: a live session's streams are read while they are
 * written, and the relay does not rotate them for explicit rotations. */
static gboolean
check_not_live(TcSession *session, GError **error)
{
	if (session->relay != NULL && session->relay->live_timer_us != 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
			    "Session '%s' is a live session: rotation is not available for live "
			    "sessions (as with LTTng)",
			    session->name);
		return FALSE;
	}
	return TRUE;
}

/* One step of one trace's rotation on the relay; *path, when given,
 * receives the chunk's path the relay answered, *bytes grows by the
 * packet bytes the chunk held. */
static gboolean
relay_rotate_step(TcConsumer *consumer, guint64 id, guint32 command, guint32 steps,
		  gint64 timestamp, char **path, guint64 *bytes, GError **error)
{
	g_autofree char *chunk_path = NULL;
	guint64 chunk_bytes = 0;

	if (!tc_consumer_relay_rotate(consumer, id, command, steps, timestamp, &chunk_path,
				      &chunk_bytes, error))
		return FALSE;
	*bytes += chunk_bytes;
	if (path && chunk_path && *chunk_path) {
		g_free(*path);
		*path = g_steal_pointer(&chunk_path);
	}
	return TRUE;
}

/*
 * Every trace of the session (one per traced user, and the kernel's) is
 * a relay session of its own sharing the tracing session's identity
 * (fill_relay_identity()), hence its trace chunks. As LTTng's session
 * daemon does with its consumers: every trace begins the new chunk and
 * moves its streams there, then every trace closes the old one, all with
 * the same timestamp; the relay archives or deletes the old chunk once
 * the last has closed it, which only the last close waits for. *path
 * receives the chunk's path, *bytes the packet bytes it held. op_lock
 * held.
 */
static gboolean
relay_rotate_all(TcConsumer *consumer, GArray *ids, guint32 command, gint64 timestamp, char **path,
		 guint64 *bytes, GError **error)
{
	if (ids->len == 1)
		return relay_rotate_step(consumer, g_array_index(ids, guint64, 0), command, 0,
					 timestamp, path, bytes, error);
	for (guint i = 0; i < ids->len; i++) {
		if (!relay_rotate_step(consumer, g_array_index(ids, guint64, i), command,
				       TC_CONSUMER_RELAY_ROTATE_BEGIN, timestamp, NULL, bytes,
				       error)) {
			/* The traces that began the chunk close the old one, so
			 * that the next rotation finds none half done. */
			for (guint j = 0; j < i; j++)
				(void)relay_rotate_step(consumer, g_array_index(ids, guint64, j),
							command,
							TC_CONSUMER_RELAY_ROTATE_CLOSE |
							    TC_CONSUMER_RELAY_ROTATE_NO_WAIT,
							timestamp, NULL, bytes, NULL);
			return FALSE;
		}
	}
	for (guint i = 0; i < ids->len; i++) {
		guint32 steps = TC_CONSUMER_RELAY_ROTATE_CLOSE;

		if (i + 1 < ids->len)
			steps |= TC_CONSUMER_RELAY_ROTATE_NO_WAIT;
		if (!relay_rotate_step(consumer, g_array_index(ids, guint64, i), command, steps,
				       timestamp, path, bytes, error))
			return FALSE;
	}
	return TRUE;
}

/* relay_rotate_all(), then the session's current chunk on the relay is
 * the next: traces started from now on join it. op_lock held. */
static gboolean
relay_rotate_traces(TcSession *session, TcConsumer *consumer, GArray *ids, guint32 command,
		    char **path, guint64 *bytes, GError **error)
{
	const gint64 timestamp = g_get_real_time() / G_USEC_PER_SEC;

	if (!relay_rotate_all(consumer, ids, command, timestamp, path, bytes, error))
		return FALSE;
	session->rotation.relay_chunk_id++;
	session->rotation.relay_chunk_created = timestamp;
	return TRUE;
}

static gboolean
check_rotatable(TcSession *session, GError **error)
{
	if (session->snapshot) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE,
			    "Session '%s' is a snapshot session: it writes no trace to rotate "
			    "(record a snapshot instead)",
			    session->name);
		return FALSE;
	}
	return check_not_live(session, error);
}

/* The consumer ids of every trace of the session. op_lock held. */
static GArray *
trace_ids(TcSession *session)
{
	GArray *ids = g_array_new(FALSE, FALSE, sizeof(guint64));
	GHashTableIter iter;
	gpointer value;

	g_mutex_lock(&session->lock);
	g_hash_table_iter_init(&iter, session->traces);
	while (g_hash_table_iter_next(&iter, NULL, &value))
		g_array_append_val(ids, ((TcUidTrace *)value)->consumer_id);
	g_mutex_unlock(&session->lock);
	/* The LTTng-UST applications' traces are rotated and cleared too. */
	tc_lttng_session_append_consumer_ids(session, ids);
	return ids;
}

/* LTTng's name of a trace chunk's time: local, to the second. */
static char *
chunk_time(gint64 realtime_us)
{
	g_autoptr(GDateTime) utc = g_date_time_new_from_unix_utc(realtime_us / G_USEC_PER_SEC);
	g_autoptr(GDateTime) local = g_date_time_to_local(utc);

	return g_date_time_format(local, "%Y%m%dT%H%M%S%z");
}

/* <output>/archives/<begin>-<end>-<n>. op_lock held. */
static char *
archive_path(TcSession *session, gint64 end_us)
{
	gint64 begin_us = session->rotation.chunk_begin_realtime_us ? session->rotation.chunk_begin_realtime_us
							    : session->creation_realtime_us;
	g_autofree char *begin = chunk_time(begin_us);
	g_autofree char *end = chunk_time(end_us);

	return g_strdup_printf("%s/archives/%s-%s-%u", session->output_directory, begin, end,
			       session->rotation.archive_count);
}

/* The bytes of the current chunk of every trace of the session, as the
 * consumer counted them. op_lock held. */
static gboolean
chunk_bytes(TcSession *session, guint64 *total, GError **error)
{
	g_autoptr(TcConsumer) consumer = tc_consumer_get(session->owner_uid, error);
	g_autoptr(GArray) ids = NULL;

	*total = 0;
	if (consumer == NULL)
		return FALSE;
	ids = trace_ids(session);
	for (guint i = 0; i < ids->len; i++) {
		guint64 bytes;

		if (!tc_consumer_chunk_size(consumer, g_array_index(ids, guint64, i), &bytes, error))
			return FALSE;
		*total += bytes;
	}
	return TRUE;
}

/*
 * As lttng-rotate(1): a stopped session is rotated once. Once its chunk
 * is archived and nothing was written since (the stop wrote everything
 * out), another rotation would only make an empty archive. op_lock held.
 */
static gboolean
check_not_archived(TcSession *session, GError **error)
{
	guint64 bytes = 0;
	gboolean is_active;

	g_mutex_lock(&session->lock);
	is_active = session->state == TC_SESSION_ACTIVE;
	g_mutex_unlock(&session->lock);
	if (is_active || session->rotation.archive_count == 0)
		return TRUE;
	if (!chunk_bytes(session, &bytes, error))
		return FALSE;
	if (bytes == 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE,
			    "Session '%s' is stopped and what it recorded is archived already",
			    session->name);
		return FALSE;
	}
	return TRUE;
}

/*
 * The relay keeps the chunks of a streamed session and names the archive
 * itself (archives/<begin>-<end>-<n>/ under the session's directory on
 * the relay); *path receives that path. op_lock held.
 */
static gboolean
rotate_on_relay(TcSession *session, TcConsumer *consumer, GArray *ids, char **path,
		guint64 *bytes, GError **error)
{
	if (!relay_rotate_traces(session, consumer, ids, TC_CONSUMER_RELAY_CHUNK_ARCHIVE, path,
				 bytes, error)) {
		g_prefix_error(error, "Cannot archive the trace of session '%s' on its relay: ",
			       session->name);
		return FALSE;
	}
	if (*path == NULL)
		*path = g_strdup("");
	return TRUE;
}

/* op_lock held. */
static gboolean
rotate_locked(TcSession *session, char **archive, GError **error)
{
	g_autoptr(TcConsumer) consumer = NULL;
	g_autoptr(GArray) ids = NULL;
	g_autofree char *path = NULL;
	gint64 now_us = g_get_real_time();
	guint64 bytes = 0;

	if (!check_rotatable(session, error))
		return FALSE;
	if (!session->has_buffers && !session->kernel.trace) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE,
			    "Session '%s' was never started: there is nothing to archive",
			    session->name);
		return FALSE;
	}
	if (!check_not_archived(session, error))
		return FALSE;
	consumer = tc_consumer_get(session->owner_uid, error);
	/* Every event class recorded so far is described in the archive. */
	if (consumer == NULL || !tc_session_trace_flush_metadata(session, consumer, error))
		return FALSE;
	ids = trace_ids(session);
	if (session->relay != NULL) {
		if (!rotate_on_relay(session, consumer, ids, &path, &bytes, error))
			return FALSE;
		goto archived;
	}
	path = archive_path(session, now_us);
	for (guint i = 0; i < ids->len; i++) {
		guint64 archived = 0;

		if (!tc_consumer_rotate_session(consumer, g_array_index(ids, guint64, i),
						session->output_directory, path, &archived,
						error)) {
			g_prefix_error(error, "Cannot archive the trace of session '%s': ",
				       session->name);
			return FALSE;
		}
		bytes += archived;
	}
archived:
	session->rotation.archive_count++;
	session->rotation.chunk_begin_realtime_us = now_us;
	g_mutex_lock(&session->lock);
	session->rotation.last_us = g_get_monotonic_time();
	g_free(session->rotation.last_archive);
	session->rotation.last_archive = g_strdup(path);
	g_mutex_unlock(&session->lock);
	g_message("Session '%s' of uid %u: archive %u complete in '%s' (%" G_GUINT64_FORMAT
		  " bytes)",
		  session->name, (unsigned)session->owner_uid, session->rotation.archive_count - 1, path,
		  bytes);
	tc_session_rotation_archive_completed(session, path);
	if (archive)
		*archive = g_steal_pointer(&path);
	return TRUE;
}

gboolean
tc_session_rotation_rotate(TcSession *session, char **archive, GError **error)
{
	g_autoptr(GMutexLocker) op = tc_session_op_begin(session, error);

	if (op == NULL)
		return FALSE;
	return rotate_locked(session, archive, error);
}

/*
 * As LTTng's clear of a streamed session: a rotation whose old chunk the
 * relay deletes instead of archiving; the new chunk takes its place.
 * The metadata is flushed first so that the new chunk describes every
 * event class recorded so far. op_lock held.
 */
static gboolean
clear_on_relay(TcSession *session, TcConsumer *consumer, GArray *ids, GError **error)
{
	guint64 bytes = 0;

	if (!tc_session_trace_flush_metadata(session, consumer, error))
		return FALSE;
	if (!relay_rotate_traces(session, consumer, ids, TC_CONSUMER_RELAY_CHUNK_DELETE, NULL,
				 &bytes, error)) {
		g_prefix_error(error, "Cannot clear session '%s' on its relay: ", session->name);
		return FALSE;
	}
	g_message("Session '%s' of uid %u cleared on its relay", session->name,
		  (unsigned)session->owner_uid);
	return TRUE;
}

gboolean
tc_session_rotation_clear(TcSession *session, GError **error)
{
	g_autoptr(TcConsumer) consumer = NULL;
	g_autoptr(GArray) ids = NULL;
	g_autoptr(GMutexLocker) op = tc_session_op_begin(session, error);

	if (op == NULL)
		return FALSE;
	consumer = tc_consumer_get(session->owner_uid, error);
	if (consumer == NULL)
		return FALSE;
	ids = trace_ids(session);
	if (session->relay != NULL && !session->snapshot)
		return clear_on_relay(session, consumer, ids, error);
	for (guint i = 0; i < ids->len; i++) {
		if (!tc_consumer_clear_session(consumer, g_array_index(ids, guint64, i), error)) {
			g_prefix_error(error, "Cannot clear session '%s': ", session->name);
			return FALSE;
		}
	}
	g_message("Session '%s' of uid %u cleared", session->name, (unsigned)session->owner_uid);
	return TRUE;
}

void
tc_session_rotation_archive_completed(TcSession *session, const char *path)
{
	g_debug("Session '%s' (id %" G_GUINT64_FORMAT "): archive '%s' is complete",
		session->name, session->id, path);
	tc_signals_archive_rotated(session, path);
}

gboolean
tc_session_rotation_validate_schedule(guint64 timer_us, guint64 size_bytes, GError **error)
{
	if (timer_us != 0 && (timer_us < TC_ROTATION_TIMER_MIN_US ||
			      timer_us > TC_ROTATION_TIMER_MAX_US)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "Rotation timer of %" G_GUINT64_FORMAT " us: it must be %" G_GUINT64_FORMAT
			    " to %" G_GUINT64_FORMAT " us",
			    timer_us, (guint64)TC_ROTATION_TIMER_MIN_US,
			    (guint64)TC_ROTATION_TIMER_MAX_US);
		return FALSE;
	}
	if (size_bytes != 0 && size_bytes < TC_ROTATION_SIZE_MIN_BYTES) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "Rotation size of %" G_GUINT64_FORMAT " bytes: it must be at least %"
			    G_GUINT64_FORMAT " bytes",
			    size_bytes, TC_ROTATION_SIZE_MIN_BYTES);
		return FALSE;
	}
	return TRUE;
}

static gpointer scheduler_main(gpointer data);
static void owner_round_run(TcOwnerPool *pool, uid_t owner, gpointer data, gpointer unused);

/* Puts the session on the scheduler's list (once) and starts the thread. */
static void
schedule_session(TcSession *session)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&scheduler_lock);

	if (scheduler_stopping)
		return;
	if (scheduled == NULL)
		scheduled = g_ptr_array_new_with_free_func((GDestroyNotify)tc_session_unref);
	if (!g_ptr_array_find(scheduled, session, NULL))
		g_ptr_array_add(scheduled, tc_session_ref(session));
	if (scheduler_thread == NULL) {
		/* Threads as owners served at once: one each at most. */
		rounds_pool =
		    tc_owner_pool_new(owner_round_run, (GDestroyNotify)g_ptr_array_unref, NULL);
		scheduler_thread = g_thread_new("tc-rotation", scheduler_main, NULL);
	}
}

gboolean
tc_session_rotation_set_schedule(TcSession *session, guint64 timer_us, guint64 size_bytes,
				 GError **error)
{
	g_autoptr(GMutexLocker) op = tc_session_op_begin(session, error);

	if (op == NULL || !check_rotatable(session, error))
		return FALSE;
	g_mutex_lock(&session->lock);
	if (timer_us) {
		/* The first period counts from now, or from the last rotation. */
		if (session->rotation.timer_us == 0 || session->rotation.last_us == 0)
			session->rotation.last_us = g_get_monotonic_time();
		session->rotation.timer_us = timer_us;
	}
	if (size_bytes)
		session->rotation.size_bytes = size_bytes;
	g_mutex_unlock(&session->lock);
	schedule_session(session);
	g_message("Session '%s' of uid %u: rotation every %" G_GUINT64_FORMAT " us, at %"
		  G_GUINT64_FORMAT " bytes (0: off)",
		  session->name, (unsigned)session->owner_uid, session->rotation.timer_us,
		  session->rotation.size_bytes);
	return TRUE;
}

gboolean
tc_session_rotation_unset_schedule(TcSession *session, gboolean timer, gboolean size,
				   GError **error)
{
	g_autoptr(GMutexLocker) op = tc_session_op_begin(session, error);
	g_autoptr(GMutexLocker) locker = NULL;

	if (op == NULL)
		return FALSE;
	locker = g_mutex_locker_new(&session->lock);
	/* Asked for both, one set is enough. */
	if ((!timer || session->rotation.timer_us == 0) &&
	    (!size || session->rotation.size_bytes == 0)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE,
			    "Session '%s' has no %s rotation schedule", session->name,
			    timer && size ? "" : timer ? "timer" : "size");
		return FALSE;
	}
	if (timer)
		session->rotation.timer_us = 0;
	if (size)
		session->rotation.size_bytes = 0;
	/* The scheduler drops the session from its list at its next look. */
	return TRUE;
}

void
tc_session_rotation_state_locked(TcSession *session, TcRotationState *state)
{
	state->timer_us = session->rotation.timer_us;
	state->size_bytes = session->rotation.size_bytes;
	state->last_archive = session->rotation.last_archive;
}

typedef enum {
	SCHEDULE_NONE,    /* nothing due */
	SCHEDULE_TIMER,   /* the timer is due */
	SCHEDULE_SIZE,    /* the size must be looked at */
	SCHEDULE_DROPPED, /* no schedule left, or the session is gone */
} ScheduleDue;

static ScheduleDue
schedule_due(TcSession *session, gint64 now)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&session->lock);

	if (session->destroyed ||
	    (session->rotation.timer_us == 0 && session->rotation.size_bytes == 0))
		return SCHEDULE_DROPPED;
	if (session->state != TC_SESSION_ACTIVE || now < session->rotation.retry_us)
		return SCHEDULE_NONE;
	if (session->rotation.timer_us &&
	    now - session->rotation.last_us >= (gint64)session->rotation.timer_us)
		return SCHEDULE_TIMER;
	return session->rotation.size_bytes ? SCHEDULE_SIZE : SCHEDULE_NONE;
}

/* Rotates session when its schedule says so. Returns FALSE when the
 * session leaves the scheduler's list. */
static gboolean
run_schedule(TcSession *session)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GMutexLocker) op = NULL;
	ScheduleDue due = schedule_due(session, g_get_monotonic_time());
	guint64 bytes = 0;

	if (due == SCHEDULE_DROPPED)
		return FALSE;
	if (due == SCHEDULE_NONE)
		return TRUE;
	op = tc_session_op_begin(session, &error);
	if (op == NULL)
		return FALSE;
	/* Looked at again under op_lock: a command may have come first. */
	due = schedule_due(session, g_get_monotonic_time());
	if (due == SCHEDULE_DROPPED)
		return FALSE;
	if (due == SCHEDULE_SIZE) {
		if (!chunk_bytes(session, &bytes, &error))
			goto failed;
		if (bytes < session->rotation.size_bytes)
			return TRUE;
	}
	if (due == SCHEDULE_NONE || rotate_locked(session, NULL, &error))
		return TRUE;
failed:
	/* Tried again later; meanwhile the chunk grows. */
	g_warning("Session '%s' of uid %u: scheduled rotation failed, next try in %d s: %s",
		  session->name, (unsigned)session->owner_uid,
		  (int)(TC_ROTATION_RETRY_US / G_USEC_PER_SEC), error->message);
	g_mutex_lock(&session->lock);
	session->rotation.last_us = g_get_monotonic_time();
	session->rotation.retry_us = session->rotation.last_us + TC_ROTATION_RETRY_US;
	g_mutex_unlock(&session->lock);
	return TRUE;
}

/* New references to the scheduled sessions; NULL when stopping. */
static GPtrArray *
scheduled_sessions(void)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&scheduler_lock);
	gint64 deadline = g_get_monotonic_time() + TC_ROTATION_CHECK_INTERVAL_US;
	GPtrArray *copy;

	while (!scheduler_stopping && g_cond_wait_until(&scheduler_cond, &scheduler_lock, deadline))
		;
	if (scheduler_stopping)
		return NULL;
	copy = g_ptr_array_new_with_free_func((GDestroyNotify)tc_session_unref);
	for (guint i = 0; i < scheduled->len; i++)
		g_ptr_array_add(copy, tc_session_ref(g_ptr_array_index(scheduled, i)));
	return copy;
}

static void
unschedule_session(TcSession *session)
{
	gboolean has_schedule;

	g_mutex_lock(&scheduler_lock);
	if (scheduled)
		g_ptr_array_remove(scheduled, session);
	g_mutex_unlock(&scheduler_lock);
	/* A schedule set again since the look puts the session back. */
	g_mutex_lock(&session->lock);
	has_schedule = !session->destroyed &&
		       (session->rotation.timer_us != 0 || session->rotation.size_bytes != 0);
	g_mutex_unlock(&session->lock);
	if (has_schedule)
		schedule_session(session);
}

/* rounds_pool's function: the owner's schedules, one after another. A
 * rotation may wait on a slow consumer: a stopping service does not wait
 * for the rest. */
static void
owner_round_run(TcOwnerPool *pool, uid_t owner, gpointer data, gpointer unused)
{
	TcOwnerSchedules *schedules = data;

	for (guint i = 0; i < schedules->len && !tc_owner_pool_is_stopping(pool); i++) {
		TcSession *session = g_ptr_array_index(schedules, i);

		if (!run_schedule(session))
			unschedule_session(session);
	}
}

/* Hands each owner's schedules to rounds_pool, unless that owner's last
 * round is still under way: their rotations wait for the next round. */
static void
start_rounds(GPtrArray *sessions)
{
	/* uid -> TcOwnerSchedules */
	g_autoptr(GHashTable) rounds = tc_session_group_by_owner(sessions);

	g_mutex_lock(&scheduler_lock);
	if (!scheduler_stopping)
		tc_owner_pool_try_push_each(rounds_pool, rounds);
	g_mutex_unlock(&scheduler_lock);
}

/* Registered with liburcu, as every thread that may drop the last
 * reference to what the pool refused. */
static gpointer
scheduler_main(gpointer data)
{
	GPtrArray *sessions;

	rcu_register_thread();
	while ((sessions = scheduled_sessions()) != NULL) {
		start_rounds(sessions);
		g_ptr_array_unref(sessions);
	}
	rcu_unregister_thread();
	return NULL;
}

void
tc_session_rotation_scheduler_stop(void)
{
	GThread *thread;
	TcOwnerPool *pool;

	g_mutex_lock(&scheduler_lock);
	scheduler_stopping = TRUE;
	g_cond_broadcast(&scheduler_cond);
	thread = g_steal_pointer(&scheduler_thread);
	g_mutex_unlock(&scheduler_lock);
	if (thread)
		g_thread_join(thread);
	/* No round starts now; those under way end after their session. */
	g_mutex_lock(&scheduler_lock);
	pool = g_steal_pointer(&rounds_pool);
	g_mutex_unlock(&scheduler_lock);
	tc_owner_pool_free(pool);
	g_mutex_lock(&scheduler_lock);
	g_clear_pointer(&scheduled, g_ptr_array_unref);
	g_mutex_unlock(&scheduler_lock);
}
