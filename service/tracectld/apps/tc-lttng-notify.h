/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-lttng-app.h"

/*
 * An LTTng-UST application's notify socket: once a session is applied
 * to it, the application describes there its channel's context and each
 * event it is about to record (and enumerations), and waits for the ids
 * to write into its records. Served on a thread of the notify pool of
 * the application's owner (tc-lttng-apps.c), never on the thread that
 * waits for an answer on its command socket: the application answers
 * some commands (start) only after its registrations were answered.
 *
 * What the application sends is its own choice: liblttng-ust-ctl
 * allocates what it announces, the names are cut at their buffers'
 * ends, counts and the signature's length are bounded here, the fields
 * are checked by tc-lttng-metadata.c, and what a description makes the
 * service hold is charged to the application's uid.
 */

/* The most context or event fields one description may have. */
#define TC_LTTNG_NOTIFY_FIELDS_MAX 1024
/* The longest event signature (the provider's text of its fields). */
#define TC_LTTNG_NOTIFY_SIGNATURE_MAX (64 * 1024)
/* The highest log level (LTTng-UST's LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG,
 * its last); levels go from 0. babeltrace2 refuses a whole trace whose
 * metadata gives an event a negative one. */
#define TC_LTTNG_NOTIFY_LOGLEVEL_MAX 14

/* Reads and answers one message of app's notify socket. FALSE when the
 * socket is broken or the application broke LTTng's protocol: it is then
 * to be dropped. A description refused (unknown session, a limit,
 * fields that cannot be described) is answered with an error and is no
 * reason to drop it. */
gboolean tc_lttng_notify_serve(TcLttngApp *app, GError **error);
