/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-signals"

#include "tc-signals.h"

/* Both set once, then read from any thread: atomic pointers. */
static const TcSignalsSink *sink;
static TcRotationFunc rotation_func;

void
tc_signals_set_sink(const TcSignalsSink *new_sink)
{
	g_atomic_pointer_set(&sink, new_sink);
}

static const TcSignalsSink *
current_sink(void)
{
	return g_atomic_pointer_get(&sink);
}

void
tc_signals_session_state_changed(TcSession *session, gboolean is_active)
{
	const TcSignalsSink *to = current_sink();

	if (to)
		to->session_state_changed(session, is_active);
}

void
tc_signals_problem_changed(TcSession *session, const char *problem)
{
	const TcSignalsSink *to = current_sink();

	if (to)
		to->problem_changed(session, problem);
}

void
tc_signals_snapshot_recorded(TcSession *session, const char *directory)
{
	const TcSignalsSink *to = current_sink();

	if (to)
		to->snapshot_recorded(session, directory);
}

void
tc_signals_set_rotation_func(TcRotationFunc func)
{
	g_atomic_pointer_set(&rotation_func, func);
}

void
tc_signals_archive_rotated(TcSession *session, const char *path)
{
	TcRotationFunc func = g_atomic_pointer_get(&rotation_func);
	const TcSignalsSink *to = current_sink();

	if (func)
		func(session);
	if (to)
		to->archive_rotated(session, path);
}

void
tc_signals_app_registered(pid_t pid, uid_t uid, const char *procname)
{
	const TcSignalsSink *to = current_sink();

	if (to)
		to->app_registered(pid, uid, procname);
}

void
tc_signals_app_gone(pid_t pid, uid_t uid)
{
	const TcSignalsSink *to = current_sink();

	if (to)
		to->app_gone(pid, uid);
}

void
tc_signals_trigger_fired(const char *trigger, uid_t owner_uid, const char *session_path,
			 const char *condition)
{
	const TcSignalsSink *to = current_sink();

	if (to)
		to->trigger_fired(trigger, owner_uid, session_path, condition);
}
