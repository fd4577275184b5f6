/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The layers' reports (tc-signals.c): nowhere without a sink, each to the
 * sink with its arguments once one is set, the rotation hook first. */
#include <urcu.h>

#include "tc-registry.h"
#include "tc-signals.h"

/* What reached the sink and the hook, in order. */
static GString *seen;

static void
state_changed(TcSession *session, gboolean is_active)
{
	g_string_append_printf(seen, "state %s %d;", session->name, is_active);
}

static void
problem_changed(TcSession *session, const char *problem)
{
	g_string_append_printf(seen, "problem %s %s;", session->name, problem);
}

static void
snapshot_recorded(TcSession *session, const char *directory)
{
	g_string_append_printf(seen, "snapshot %s %s;", session->name, directory);
}

static void
archive_rotated(TcSession *session, const char *path)
{
	g_string_append_printf(seen, "archive %s %s;", session->name, path);
}

static void
app_registered(pid_t pid, uid_t uid, const char *procname)
{
	g_string_append_printf(seen, "app %d %u %s;", (int)pid, (unsigned)uid, procname);
}

static void
app_gone(pid_t pid, uid_t uid)
{
	g_string_append_printf(seen, "gone %d %u;", (int)pid, (unsigned)uid);
}

static void
trigger_fired(const char *trigger, uid_t owner_uid, const char *session_path,
	      const char *condition)
{
	g_string_append_printf(seen, "fired %s %u %s %s;", trigger, (unsigned)owner_uid,
			       session_path, condition);
}

static void
rotation_hook(TcSession *session)
{
	g_string_append_printf(seen, "hook %s;", session->name);
}

static const TcSignalsSink sink = {
    .session_state_changed = state_changed,
    .problem_changed = problem_changed,
    .snapshot_recorded = snapshot_recorded,
    .archive_rotated = archive_rotated,
    .app_registered = app_registered,
    .app_gone = app_gone,
    .trigger_fired = trigger_fired,
};

static void
report_all(TcSession *session)
{
	tc_signals_session_state_changed(session, TRUE);
	tc_signals_problem_changed(session, "lost");
	tc_signals_snapshot_recorded(session, "/t/snap");
	tc_signals_archive_rotated(session, "/t/archive");
	tc_signals_app_registered(42, 1000, "app");
	tc_signals_app_gone(42, 1000);
	tc_signals_trigger_fired("t", 1000, "/o/s", "session-rotation-completed");
}

static void
test_sink(void)
{
	g_autoptr(TcSession) session = tc_session_new("s", 1000, "/t/s");

	seen = g_string_new(NULL);
	tc_signals_set_rotation_func(rotation_hook);
	/* No sink yet: only the trigger table's hook hears of a rotation. */
	report_all(session);
	g_assert_cmpstr(seen->str, ==, "hook s;");
	g_string_truncate(seen, 0);
	tc_signals_set_sink(&sink);
	report_all(session);
	g_assert_cmpstr(seen->str, ==,
			"state s 1;problem s lost;snapshot s /t/snap;hook s;archive s /t/archive;"
			"app 42 1000 app;gone 42 1000;"
			"fired t 1000 /o/s session-rotation-completed;");
	tc_signals_set_sink(NULL);
	tc_signals_set_rotation_func(NULL);
	g_string_truncate(seen, 0);
	report_all(session);
	g_assert_cmpstr(seen->str, ==, "");
	g_string_free(seen, TRUE);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	rcu_register_thread();
	tc_registry_init();
	g_test_add_func("/tracectl/signals/sink", test_sink);
	return g_test_run();
}
