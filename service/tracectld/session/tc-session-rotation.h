/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-session.h"

/*
 * Rotation and clear of a session's trace, as LTTng does them
 * (lttng-rotate(1), lttng-enable-rotation(1), lttng-clear(1)).
 *
 * A session records into its current trace chunk, the trace under its
 * output directory (ust/uid/<uid>/64-bit, kernel). A rotation archives
 * that chunk into <output>/archives/<begin>-<end>-<n>, a complete trace
 * that babeltrace2 reads on its own, and recording goes on in a new chunk
 * at the same place; <begin> and <end> are local times as
 * YYYYmmddTHHMMSS+HHMM and <n> counts the session's archives from 0. The
 * owner's consumer moves the files with the owner's rights
 * (TC_CONSUMER_ROTATE). A schedule rotates on its own: every timer_us
 * while the session records, or once the current chunk holds size_bytes.
 *
 * Snapshot sessions have no chunk to rotate, and sessions streamed to a
 * relay are refused for now. The operations run in worker threads and
 * take the session's op_lock, like those of tc-session-ops.h.
 */

#define TC_ROTATION_TIMER_MIN_US G_USEC_PER_SEC
#define TC_ROTATION_TIMER_MAX_US (G_GUINT64_CONSTANT(7) * 24 * 3600 * G_USEC_PER_SEC)
#define TC_ROTATION_SIZE_MIN_BYTES G_GUINT64_CONSTANT(4096)
/* How often the scheduler looks at the schedules. */
#define TC_ROTATION_CHECK_INTERVAL_US (200 * 1000)
/* How long the scheduler leaves a session alone after its scheduled
 * rotation failed (a full disk, a dead consumer): one warning, not five a
 * second. */
#define TC_ROTATION_RETRY_US (10 * G_USEC_PER_SEC)

/* Archives the current chunk; *archive receives its path. */
gboolean tc_session_rotation_rotate(TcSession *session, char **archive, GError **error);
/* Drops what the session recorded so far; recording goes on. */
gboolean tc_session_rotation_clear(TcSession *session, GError **error);

/* Checks a schedule's values (0: leave that part as it is); InvalidArgument
 * names the bound. Any thread, no lock. */
gboolean tc_session_rotation_validate_schedule(guint64 timer_us, guint64 size_bytes,
					       GError **error);
/* Sets the parts of the schedule that are not 0 (checked by the caller
 * with tc_session_rotation_validate_schedule()). */
gboolean tc_session_rotation_set_schedule(TcSession *session, guint64 timer_us, guint64 size_bytes,
					  GError **error);
/* Turns off the timer and/or the size part of the schedule. */
gboolean tc_session_rotation_unset_schedule(TcSession *session, gboolean timer, gboolean size,
					    GError **error);

/* What a session's rotation stands at: its schedule (0: that part is off)
 * and the last archive completed. */
typedef struct {
	guint64 timer_us;
	guint64 size_bytes;
	const char *last_archive; /* the session's, valid while [S] is held; NULL: none yet */
} TcRotationState;

/* [S] Fills state from session. */
void tc_session_rotation_state_locked(TcSession *session, TcRotationState *state);

/*
 * An archive of session is complete at path (a worker thread, op_lock
 * held, no other lock). The place where the owner is told: a log line
 * now, and the D-Bus signal that announces it.
 */
void tc_session_rotation_archive_completed(TcSession *session, const char *path);

/* Stops the thread that runs scheduled rotations (at shutdown, before the
 * operation pool), waiting for the rotation in progress. */
void tc_session_rotation_scheduler_stop(void);
