/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gio/gio.h>
#include <sys/types.h>

#include "tc-authority.h"
#include "tc-registry.h"

/*
 * The service's D-Bus signals, private by construction: never broadcast,
 * each one is sent to every subscribed connection allowed to see its
 * object, addressed to that connection alone (a unicast signal, which the
 * bus delivers to its destination only). Allowed: the object's owner,
 * root, and connections that polkit authorized for
 * TC_ACTION_MANAGE_OTHER_USERS when they subscribed.
 *
 * What the layers below report through tc-signals.h comes here once
 * tc_dbus_signals_init() set this file as their sink. Those reports, and
 * the tc_dbus_signals_* emitters below, may be called from any thread,
 * with any lock held: they copy what they send and queue it on the main
 * context, which alone reads the subscribers and talks to the bus. They
 * never block and cost an atomic read when nobody subscribed.
 */

/* Main thread: where signals go, and the watch dropping subscribers
 * that leave the bus; from then on the reports of tc-signals.h come
 * here. */
void tc_dbus_signals_init(GDBusConnection *connection);

/* Main thread: subscribes the bus name name of caller (authorized by
 * tc-authority.c). LimitExceeded when caller's user holds all the
 * subscriptions allowed (TC_LIMIT_SUBSCRIPTIONS). Subscribing twice
 * changes nothing. */
gboolean tc_dbus_signals_subscribe(const char *name, const TcCaller *caller, GError **error);
/* Main thread: forgets name's subscription, if any. */
void tc_dbus_signals_unsubscribe(const char *name);

/* Sessions, from the bus' own handlers. Each also sends PropertiesChanged
 * for what it changed. */
void tc_dbus_signals_session_created(TcSession *session);
void tc_dbus_signals_session_destroyed(TcSession *session);
/* The Channels property changed (invalidated, not sent). */
void tc_dbus_signals_channels_changed(TcSession *session);
