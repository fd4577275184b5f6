/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Track and untrack (tc-session-track.h). A change is made on a copy of
 * the domain's tracker, checked against the owner's limit and applied;
 * only then does the session take it, so a refused or failed change
 * leaves the session as it was.
 */
#define G_LOG_DOMAIN "tracectld-track"

#include "tc-session-track.h"

#include "tc-ack-waiter-wait.h"
#include "tc-ack-waiter.h"
#include "tc-app-sync.h"
#include "tc-app.h"
#include "tc-kernel-abi.h"
#include "tc-error.h"
#include "tc-registry.h"
#include "tc-session-kernel.h"
#include "tc-session-trace.h"
#include "tc-session.h"
#include "tc-user-limits.h"

/* As long as the other session operations wait for applications. */
#define TRACK_ACK_TIMEOUT_MS 2000

static void
tracker_copy(const TcTracker *from, TcTracker *to)
{
	tc_tracker_init(to);
	for (guint i = 0; i < TC_TRACK_KINDS; i++) {
		to->all[i] = from->all[i];
		g_array_append_vals(to->values[i], from->values[i]->data, from->values[i]->len);
	}
}

/* The values both trackers of the session would hold, with changed in
 * place of the domain's. */
static guint
count_values(TcSession *session, gboolean kernel, const TcTracker *changed)
{
	const TcTracker *other = kernel ? &session->ust_tracker : &session->kernel.tracker;

	return tc_tracker_count(changed) + tc_tracker_count(other);
}

/* The change on a copy of the domain's tracker, within the limit. */
static gboolean
changed_tracker(TcSession *session, gboolean kernel, TcTrackKind kind, const guint32 *values,
		guint count, gboolean all, gboolean track, TcTracker *changed, GError **error)
{
	tracker_copy(kernel ? &session->kernel.tracker : &session->ust_tracker, changed);
	if (track)
		tc_tracker_track(changed, kind, values, count, all);
	else if (!tc_tracker_untrack(changed, kind, values, count, all, error))
		return FALSE;
	if (!tc_user_limits_check_tracked_values(&session->charge,
						 count_values(session, kernel, changed), error)) {
		g_prefix_error(error, "Cannot track in session '%s': ", session->name);
		return FALSE;
	}
	if (kernel && !tc_tracker_holds_all(changed, TC_TRACK_PID) &&
	    tc_tracker_values(changed, TC_TRACK_PID)->len > TC_KERNEL_PIDS_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_LIMIT_EXCEEDED,
			    "The kernel domain of a session tracks at most %u process ids",
			    TC_KERNEL_PIDS_MAX);
		return FALSE;
	}
	if (kernel && tc_tracker_count(changed) > TC_KERNEL_TRACK_VALUES_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_LIMIT_EXCEEDED,
			    "The kernel domain of a session tracks at most %u values",
			    TC_KERNEL_TRACK_VALUES_MAX);
		return FALSE;
	}
	return TRUE;
}

/* op_lock held: a session that records other uids (root's, or one that
 * tracks units) gives a trace to the uid of each registered application
 * it records now, and every application of those it records gets the new
 * state. */
static void
apply_ust(TcSession *session)
{
	TcAckWaiter waiter;

	if (tc_session_records_others(session) && session->has_buffers) {
		g_autoptr(GPtrArray) apps = tc_registry_list_apps(0, TRUE);
		g_autoptr(TcConsumer) consumer = NULL;
		g_autoptr(GError) error = NULL;
		gboolean ok = TRUE;

		for (guint i = 0; ok && i < apps->len; i++) {
			TcApp *app = g_ptr_array_index(apps, i);

			if (!tc_session_tracks_app(session, app))
				continue;
			if (consumer == NULL)
				consumer = tc_consumer_get(session->owner_uid, &error);
			ok = consumer != NULL &&
			     tc_session_trace_uid(session, consumer, app->uid, &error);
		}
		if (ok && consumer)
			ok = tc_session_trace_flush_metadata(session, consumer, &error);
		if (!ok)
			g_warning("Session '%s' cannot record the applications it tracks now: %s",
				  session->name, error->message);
	}
	tc_ack_waiter_init(&waiter, session->owner_uid);
	g_mutex_lock(&session->lock);
	tc_app_sync_session_locked(session, &waiter);
	g_mutex_unlock(&session->lock);
	tc_ack_waiter_wait(&waiter, TRACK_ACK_TIMEOUT_MS);
}

gboolean
tc_session_track_locked(TcSession *session, gboolean kernel, TcTrackKind kind,
			const guint32 *values, guint count, gboolean all, gboolean track,
			GError **error)
{
	TcTracker changed;
	TcTracker *tracker = kernel ? &session->kernel.tracker : &session->ust_tracker;

	if (!changed_tracker(session, kernel, kind, values, count, all, track, &changed, error)) {
		tc_tracker_clear(&changed);
		return FALSE;
	}
	if (kernel && !tc_session_kernel_pids_locked(session, &changed, error)) {
		tc_tracker_clear(&changed);
		return FALSE;
	}
	g_mutex_lock(&session->lock);
	tc_tracker_clear(tracker);
	*tracker = changed;
	g_mutex_unlock(&session->lock);
	g_message("Session '%s' of uid %u: %s %s %s (%u values)", session->name,
		  (unsigned)session->owner_uid, kernel ? "kernel" : "user-space",
		  track ? "tracks" : "untracks", tc_tracker_kind_name(kind), all ? 0 : count);
	if (!kernel)
		apply_ust(session);
	return TRUE;
}

const TcTracker *
tc_session_track_tracker_locked(TcSession *session, gboolean kernel)
{
	return kernel ? &session->kernel.tracker : &session->ust_tracker;
}

static TcTrackedUnit *
find_unit(TcSession *session, const char *name, guint *index)
{
	for (guint i = 0; i < session->units->len; i++) {
		TcTrackedUnit *unit = g_ptr_array_index(session->units, i);

		if (g_str_equal(unit->name, name)) {
			if (index)
				*index = i;
			return unit;
		}
	}
	return NULL;
}

gboolean
tc_session_track_unit_locked(TcSession *session, const char *name, const char *cgroup,
			     gboolean track, GError **error)
{
	TcTrackedUnit *unit = find_unit(session, name, NULL);
	guint index = 0;

	if (track && unit == NULL && session->units->len >= TC_UNITS_PER_SESSION_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_LIMIT_EXCEEDED,
			    "Session '%s' tracks %u units already, the limit", session->name,
			    TC_UNITS_PER_SESSION_MAX);
		return FALSE;
	}
	if (session->kernel.own_running) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE,
			    "The units of session '%s' change only while its own-process kernel "
			    "events are stopped",
			    session->name);
		return FALSE;
	}
	if (!track && unit == NULL) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND,
			    "Session '%s' does not track unit '%s'", session->name, name);
		return FALSE;
	}
	g_mutex_lock(&session->lock);
	if (track && unit) {
		g_free(unit->cgroup);
		unit->cgroup = g_strdup(cgroup);
	} else if (track) {
		unit = g_new0(TcTrackedUnit, 1);
		unit->name = g_strdup(name);
		unit->cgroup = g_strdup(cgroup);
		g_ptr_array_add(session->units, unit);
		session->has_tracked_units = TRUE;
	} else {
		find_unit(session, name, &index);
		g_ptr_array_remove_index(session->units, index);
	}
	g_mutex_unlock(&session->lock);
	g_message("Session '%s' of uid %u: %s unit '%s'%s%s", session->name,
		  (unsigned)session->owner_uid, track ? "tracks" : "untracks", name,
		  track ? ", control group " : "", track ? cgroup : "");
	apply_ust(session);
	return TRUE;
}

void
tc_session_track_apply_units_locked(TcSession *session)
{
	apply_ust(session);
}

char **
tc_session_track_unit_names_locked(TcSession *session)
{
	char **names = g_new0(char *, session->units->len + 1);

	for (guint i = 0; i < session->units->len; i++)
		names[i] = g_strdup(((TcTrackedUnit *)g_ptr_array_index(session->units, i))->name);
	return names;
}
