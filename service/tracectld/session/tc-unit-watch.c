/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-unit"

#include "tc-unit-watch.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tc-app.h"
#include "tc-peer-identity.h"
#include "tc-registry.h"
#include "tc-session-track.h"
#include "tc-session.h"
#include "tc-unit-procs.h"

static GMutex watch_lock;
static GCond watch_cond;
static GThread *watch_thread; /* [watch_lock] started by the first kick */
static gboolean watching;     /* [watch_lock] some session may track a unit */
static gboolean kicked;       /* [watch_lock] a unit was tracked since the last look */
static gboolean stopping;     /* [watch_lock] */

/* New references to the sessions that track units now. */
static GPtrArray *
sessions_tracking_units(void)
{
	GPtrArray *sessions = tc_registry_list_sessions(0, TRUE);

	for (guint i = sessions->len; i-- > 0;) {
		TcSession *session = g_ptr_array_index(sessions, i);
		gboolean tracks;

		g_mutex_lock(&session->lock);
		tracks = !session->destroyed && session->units->len > 0;
		g_mutex_unlock(&session->lock);
		if (!tracks)
			g_ptr_array_remove_index_fast(sessions, i);
	}
	return sessions;
}

/* New references to those of sessions that reach app through a unit. */
static GPtrArray *
sessions_reaching(GPtrArray *sessions, TcApp *app)
{
	GPtrArray *reaching = g_ptr_array_new_with_free_func((GDestroyNotify)tc_session_unref);

	for (guint i = 0; i < sessions->len; i++) {
		TcSession *session = g_ptr_array_index(sessions, i);
		gboolean reaches;

		g_mutex_lock(&session->lock);
		reaches = session->units->len > 0 && tc_session_unit_holds_app(session, app);
		g_mutex_unlock(&session->lock);
		if (reaches)
			g_ptr_array_add(reaching, tc_session_ref(session));
	}
	return reaching;
}

/* Reads app's group from the kernel again; TRUE when it changed. The
 * socket is duplicated under [A] while the application is registered (it
 * is closed only after the application is marked dead), so the number
 * names the application's connection, whose pidfd shows the pid is still
 * the application's; /proc is read with no lock held. */
static gboolean
reread_cgroup(TcApp *app)
{
	struct ucred cred = {.pid = app->pid, .uid = app->uid, .gid = app->gid};
	g_autoptr(GError) error = NULL;
	char *cgroup = NULL;
	gboolean ok;
	int fd = -1;

	g_mutex_lock(&app->lock);
	if (app->state == TC_APP_REGISTERED)
		fd = fcntl(app->fd, F_DUPFD_CLOEXEC, 0);
	g_mutex_unlock(&app->lock);
	if (fd < 0)
		return FALSE;
	ok = tc_peer_identity_cgroup(fd, &cred, &cgroup, &error);
	close(fd);
	/* Gone: the listener unregisters it. */
	return ok && tc_app_set_cgroup(app, cgroup);
}

/* app's group changed; reached tells whether session reached it through
 * a unit before. The session applies the change when app left its units
 * or came into them, as untracking or tracking the unit would. */
static void
apply_move(TcSession *session, TcApp *app, gboolean reached)
{
	g_autoptr(GMutexLocker) op = g_mutex_locker_new(&session->op_lock);
	g_autofree char *cgroup = NULL;
	gboolean reaches;

	g_mutex_lock(&session->lock);
	if (session->destroyed || session->units->len == 0) {
		g_mutex_unlock(&session->lock);
		return;
	}
	reaches = tc_session_reaches_app(session, app);
	g_mutex_unlock(&session->lock);
	if (reaches == reached)
		return;
	cgroup = tc_app_dup_cgroup(app);
	if (reached)
		g_message("Session '%s' of uid %u: application pid=%d uid=%u name='%s' left the "
			  "control groups of the units it tracks (it is in %s now): its events "
			  "are disabled there",
			  session->name, (unsigned)session->owner_uid, (int)app->pid,
			  (unsigned)app->uid, app->procname, cgroup ? cgroup : "no known group");
	else
		g_message("Session '%s' of uid %u: application pid=%d uid=%u name='%s' moved into "
			  "the control group of a unit it tracks (%s): it records into the "
			  "session from now on",
			  session->name, (unsigned)session->owner_uid, (int)app->pid,
			  (unsigned)app->uid, app->procname, cgroup ? cgroup : "no known group");
	tc_session_track_apply_units_locked(session);
}

/* Copies of the groups of the units the sessions track, each once. */
static GPtrArray *
unit_cgroups(GPtrArray *sessions)
{
	GPtrArray *cgroups = g_ptr_array_new_with_free_func(g_free);

	for (guint i = 0; i < sessions->len; i++) {
		TcSession *session = g_ptr_array_index(sessions, i);

		g_mutex_lock(&session->lock);
		for (guint j = 0; j < session->units->len; j++) {
			const TcTrackedUnit *unit = g_ptr_array_index(session->units, j);

			if (!g_ptr_array_find_with_equal_func(cgroups, unit->cgroup, g_str_equal,
							      NULL))
				g_ptr_array_add(cgroups, g_strdup(unit->cgroup));
		}
		g_mutex_unlock(&session->lock);
	}
	return cgroups;
}

/* New references to the registered applications whose pids the units'
 * groups hold now and that no session reaches through a unit yet: those
 * that may have moved into a unit. Only candidates: a pid may have been
 * reused, so each is believed in the unit once its group is read through
 * its own socket. */
static GPtrArray *
moved_in_candidates(GPtrArray *sessions)
{
	g_autoptr(GPtrArray) cgroups = unit_cgroups(sessions);
	GPtrArray *candidates = g_ptr_array_new_with_free_func((GDestroyNotify)tc_app_unref);
	static gboolean warned; /* watch thread only */
	g_autoptr(GArray) pids = NULL;
	gboolean truncated;

	pids = tc_unit_procs_read(cgroups, &truncated);
	if (truncated && !warned)
		g_warning("The control groups of the tracked units hold more than %u processes, "
			  "%u groups or groups deeper than %u: applications moved into the others "
			  "are not followed",
			  TC_UNIT_PROCS_PIDS_MAX, TC_UNIT_PROCS_GROUPS_MAX, TC_UNIT_PROCS_DEPTH_MAX);
	warned = truncated;
	for (guint i = 0; i < pids->len; i++) {
		g_autoptr(GPtrArray) reaching = NULL;
		g_autoptr(TcApp) app = NULL;

		rcu_read_lock();
		app = tc_registry_find_app_by_pid(g_array_index(pids, pid_t, i));
		if (app)
			tc_app_ref(app);
		rcu_read_unlock();
		if (app == NULL || g_ptr_array_find(candidates, app, NULL))
			continue;
		reaching = sessions_reaching(sessions, app);
		if (reaching->len == 0)
			g_ptr_array_add(candidates, g_steal_pointer(&app));
	}
	return candidates;
}

/* Reads app's group again; when it changed, every session that tracks
 * units and reached app before (in reaching, NULL for none) or reaches it
 * now applies the change. */
static void
follow_app(GPtrArray *sessions, TcApp *app, GPtrArray *reaching)
{
	if (!reread_cgroup(app))
		return;
	for (guint j = 0; j < sessions->len; j++) {
		TcSession *session = g_ptr_array_index(sessions, j);

		apply_move(session, app, reaching && g_ptr_array_find(reaching, session, NULL));
	}
}

/* One look at the applications the sessions that track units reach, and
 * at those the units' groups hold that none reaches yet; FALSE when no
 * session tracks a unit. */
static gboolean
watch_once(void)
{
	g_autoptr(GPtrArray) sessions = sessions_tracking_units();
	g_autoptr(GPtrArray) apps = NULL;
	g_autoptr(GPtrArray) candidates = NULL;

	if (sessions->len == 0)
		return FALSE;
	apps = tc_registry_list_apps(0, TRUE);
	for (guint i = 0; i < apps->len; i++) {
		TcApp *app = g_ptr_array_index(apps, i);
		g_autoptr(GPtrArray) reaching = sessions_reaching(sessions, app);

		if (reaching->len > 0)
			follow_app(sessions, app, reaching);
	}
	candidates = moved_in_candidates(sessions);
	for (guint i = 0; i < candidates->len; i++)
		follow_app(sessions, g_ptr_array_index(candidates, i), NULL);
	return TRUE;
}

static gpointer
watch_main(gpointer data)
{
	rcu_register_thread();
	g_mutex_lock(&watch_lock);
	while (!stopping) {
		gint64 deadline;
		gboolean any;

		if (!watching) {
			g_cond_wait(&watch_cond, &watch_lock);
			continue;
		}
		deadline = g_get_monotonic_time() + TC_UNIT_WATCH_INTERVAL_US;
		while (!stopping && g_cond_wait_until(&watch_cond, &watch_lock, deadline))
			;
		if (stopping)
			break;
		kicked = FALSE;
		g_mutex_unlock(&watch_lock);
		any = watch_once();
		g_mutex_lock(&watch_lock);
		/* A unit tracked during the look keeps the watch on. */
		if (!any && !kicked)
			watching = FALSE;
	}
	g_mutex_unlock(&watch_lock);
	rcu_unregister_thread();
	return NULL;
}

void
tc_unit_watch_kick(void)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&watch_lock);

	if (stopping)
		return;
	watching = TRUE;
	kicked = TRUE;
	if (watch_thread == NULL)
		watch_thread = g_thread_new("tc-unit-watch", watch_main, NULL);
	g_cond_broadcast(&watch_cond);
}

void
tc_unit_watch_stop(void)
{
	GThread *thread;

	g_mutex_lock(&watch_lock);
	stopping = TRUE;
	g_cond_broadcast(&watch_cond);
	thread = g_steal_pointer(&watch_thread);
	g_mutex_unlock(&watch_lock);
	if (thread)
		g_thread_join(thread);
}
