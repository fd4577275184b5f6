/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

/*
 * Exiting when idle: with no session and no call in progress for
 * timeout_s seconds, on_idle runs (on the main loop). Registered
 * applications do not keep the service alive: they wait on <rundir>/wait
 * and register again when it comes back (bus or socket activation).
 * A timer is armed only while idle, so an idle service never wakes up
 * for nothing. Main loop only.
 */
void tc_idle_init(guint timeout_s, GSourceFunc on_idle, gpointer user_data);
/* A call started: the service is busy. */
void tc_idle_hold(void);
/* A call ended. */
void tc_idle_release(void);
