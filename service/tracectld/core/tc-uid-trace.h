/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

/* The trace of one uid in a session: its own directory
 * <output>/ust/uid/<uid>/64-bit, consumer session, uuid and metadata. An
 * ordinary session has one, its owner's; a session of root (the
 * administrator) has one per uid whose applications it recorded. A
 * session's traces are under its lock [S] (tc-session.h). */
typedef struct {
	guint64 consumer_id;
	guint8 uuid[16];
	gboolean has_buffers;
} TcUidTrace;

/* The directory of uid's trace under root (a session's output directory,
 * or a snapshot's): <root>/ust/uid/<uid>/<bits>-bit, where babeltrace2 and
 * the user look for it; relative "ust/uid/<uid>/<bits>-bit" when root is
 * "", the trace root of a relay session. */
char *tc_uid_trace_dir(const char *root, uid_t uid);
