/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

/*
 * A session's rotation state, which session/tc-session-rotation.c
 * changes: its schedule and its current trace chunk, locally and on a
 * relay. The locks are the session's: [S] its lock, [op_lock] its
 * operation lock (tc-session.h).
 */
typedef struct {
	guint64 timer_us;		/* [S] the schedule's period: 0 is off */
	guint64 size_bytes;		/* [S] the schedule's size: 0 is off */
	gint64 last_us;			/* [S] monotonic: when the current chunk began */
	gint64 retry_us;		/* [S] monotonic: no scheduled rotation before */
	gint64 chunk_begin_realtime_us; /* [op_lock] 0: the session's creation */
	guint archive_count;		/* [op_lock] archives completed, the next one's index */
	/* [op_lock] a streamed session's current trace chunk on the relay:
	 * its id and when it began (Unix seconds, 0: the session's creation) */
	guint64 relay_chunk_id;
	gint64 relay_chunk_created;
	char *last_archive; /* [S] the newest archive's path, or NULL */
} TcSessionRotationState;
