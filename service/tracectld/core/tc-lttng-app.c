/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-lttng"

#include "tc-lttng-app.h"

#include <unistd.h>

static guint64 next_id = 1; /* atomic */

TcLttngApp *
tc_lttng_app_new(int cmd_fd, pid_t pid, uid_t uid, gid_t gid, const TcUserCharge *charge)
{
	TcLttngApp *app = g_new0(TcLttngApp, 1);

	app->refcount = 1;
	app->id = __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED);
	app->pid = pid;
	app->uid = uid;
	app->gid = gid;
	app->cmd_fd = cmd_fd;
	app->notify_fd = -1;
	app->registered_us = g_get_real_time();
	app->charge = *charge;
	tc_user_limits_charge_init(&app->notify_charge, charge->user);
	tc_user_limits_charge_init(&app->events_charge, charge->user);
	g_mutex_init(&app->lock);
	g_mutex_init(&app->cmd_lock);
	app->state = TC_LTTNG_APP_PAIRING;
	app->events = g_ptr_array_new_with_free_func((GDestroyNotify)tc_lttng_app_event_free);
	return app;
}

TcLttngApp *
tc_lttng_app_ref(TcLttngApp *app)
{
	g_atomic_int_inc(&app->refcount);
	return app;
}

void
tc_lttng_app_unref(TcLttngApp *app)
{
	if (app == NULL || !g_atomic_int_dec_and_test(&app->refcount))
		return;
	if (app->cmd_fd >= 0)
		close(app->cmd_fd);
	if (app->notify_fd >= 0)
		close(app->notify_fd);
	tc_user_limits_release(&app->charge);
	tc_user_limits_release(&app->notify_charge);
	tc_user_limits_release(&app->events_charge);
	g_ptr_array_unref(app->events);
	g_mutex_clear(&app->lock);
	g_mutex_clear(&app->cmd_lock);
	g_free(app);
}

void
tc_lttng_app_event_free(TcLttngEvent *event)
{
	if (event == NULL)
		return;
	g_free(event->name);
	g_free(event->fields);
	g_free(event);
}

GPtrArray *
tc_lttng_app_dup_events(TcLttngApp *app)
{
	GPtrArray *events;

	g_mutex_lock(&app->lock);
	events = g_ptr_array_ref(app->events);
	g_mutex_unlock(&app->lock);
	return events;
}

void
tc_lttng_app_set_events(TcLttngApp *app, GPtrArray *events)
{
	GPtrArray *old;

	g_mutex_lock(&app->lock);
	old = app->events;
	app->events = events;
	g_mutex_unlock(&app->lock);
	g_ptr_array_unref(old);
}
