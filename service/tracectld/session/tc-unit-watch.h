/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

/*
 * Follows the applications of delegated units out of them and into them. An
 * application's control group is read when it registers; a process can be
 * moved to another group later (by root, or by the group's delegate), and
 * must then stop recording into the sessions that reached it through a
 * unit. While any session tracks a unit, a thread reads again, every
 * TC_UNIT_WATCH_INTERVAL_US, the group of each application such a session
 * reaches (through the peer's socket and pidfd, as at registration, never
 * a path rebuilt from a pid alone), and a session that no longer reaches
 * an application disables its events there as untracking the unit would.
 * Moves in are found without reading every application's group: each
 * look reads the pids in the units' groups (tc-unit-procs.h), and the
 * registered applications of those pids that no such session reaches yet
 * have their group read through their socket; a session that reaches one
 * now gives it its buffers and events as tracking the unit would.
 */

#define TC_UNIT_WATCH_INTERVAL_US (250 * 1000)

/* A session tracks a unit now: the watch runs (starting its thread the
 * first time) until no session tracks one. Any thread, no lock held. */
void tc_unit_watch_kick(void);
/* Stops and joins the thread, at shutdown. */
void tc_unit_watch_stop(void);
