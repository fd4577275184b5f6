/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-idle"

#include "tc-idle.h"

#include "tc-registry.h"

static guint idle_timeout_s;
static guint holds;
static guint timer_id;
static GSourceFunc idle_callback;
static gpointer idle_data;

static gboolean
timer_cb(gpointer user_data)
{
	timer_id = 0;
	if (holds == 0 && tc_registry_session_count() == 0) {
		g_message("Idle for %u s with no session, exiting", idle_timeout_s);
		idle_callback(idle_data);
	}
	return G_SOURCE_REMOVE;
}

static void
rearm(void)
{
	g_clear_handle_id(&timer_id, g_source_remove);
	if (idle_timeout_s > 0 && holds == 0 && tc_registry_session_count() == 0)
		timer_id = g_timeout_add_seconds(idle_timeout_s, timer_cb, NULL);
}

void
tc_idle_init(guint timeout_s, GSourceFunc on_idle, gpointer user_data)
{
	idle_timeout_s = timeout_s;
	idle_callback = on_idle;
	idle_data = user_data;
	rearm();
}

void
tc_idle_hold(void)
{
	holds++;
	g_clear_handle_id(&timer_id, g_source_remove);
}

void
tc_idle_release(void)
{
	g_return_if_fail(holds > 0);
	holds--;
	rearm();
}
