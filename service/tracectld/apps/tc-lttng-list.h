/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-lttng-app.h"

/*
 * Lists an LTTng-UST application's tracepoints (names and log levels)
 * and their fields, asking it on its command socket through
 * liblttng-ust-ctl. Owner's thread only: it waits on the application,
 * bounded by the socket's timeouts.
 *
 * Every value taken from the answers is checked: names are cut at their
 * fixed size and must be printable, unknown field types are shown as
 * "other", and each event is charged to the owner's limits
 * (MaxEventDescriptionsPerApplication, MaxEventDescriptions,
 * MaxMetadataBytes) before it is kept, so a listing that never ends or
 * is too large stops at the limit with a refusal naming it.
 */

/* Lists app's events into app->events (replacing the previous listing
 * and its charge, app->events_charge, which only the owner's thread
 * touches). FALSE with error when the application fails to answer or
 * exceeds a limit; it then lists no event. */
gboolean tc_lttng_list_events(TcLttngApp *app, GError **error);
