/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

/*
 * Which processes a session records, per domain, as LTTng's trackers
 * ("inclusion sets", lttng-track(1) of LTTng 2.13): one set per process
 * attribute. A set holds every value by default; once values are tracked
 * it holds only those, and an untracked value leaves it. A process
 * records when each of the domain's sets holds its attribute.
 *
 * The attributes of an application are the kernel's, never what the
 * application says: pid, uid and gid from SO_PEERCRED, and the virtual
 * ones (in the application's own pid and user namespaces) read from
 * /proc of the pid shown to be the peer (tc-peer-identity.h).
 *
 * No lock of its own: the session's locks cover its trackers
 * (tc-session.h).
 */

typedef enum {
	TC_TRACK_PID,
	TC_TRACK_VPID,
	TC_TRACK_UID,
	TC_TRACK_VUID,
	TC_TRACK_GID,
	TC_TRACK_VGID,
	TC_TRACK_KINDS,
} TcTrackKind;

/* The attributes of a process, one per TcTrackKind. */
typedef struct {
	gint64 value[TC_TRACK_KINDS];
} TcProcessIds;

typedef struct {
	gboolean all[TC_TRACK_KINDS];  /* the set holds every value */
	GArray *values[TC_TRACK_KINDS]; /* guint32, sorted, when !all */
} TcTracker;

/* "pid", "vpid", "uid", "vuid", "gid", "vgid". */
const char *tc_tracker_kind_name(TcTrackKind kind);
/* FALSE for an unknown name. */
gboolean tc_tracker_kind_parse(const char *name, TcTrackKind *kind);

/* The values one call may name: at most the kernel helper's bound, never
 * G_MAXUINT32, and for pid and vpid a pid_t above 0. */
gboolean tc_tracker_check_values(TcTrackKind kind, const guint32 *values, gsize count,
				 GError **error);

/* Every set holds every value. */
void tc_tracker_init(TcTracker *tracker);
void tc_tracker_clear(TcTracker *tracker);

/* Adds values to the set of kind (all: the set holds every value again).
 * The first value tracked in a set that holds every value replaces
 * "every value". Tracking a value already there is no error. */
void tc_tracker_track(TcTracker *tracker, TcTrackKind kind, const guint32 *values, guint count,
		      gboolean all);
/* Removes values from the set of kind (all: the set is emptied, nothing
 * records). FALSE with NotFound, and nothing changed, when a value is not
 * in the set, or the set holds every value and values are given. */
gboolean tc_tracker_untrack(TcTracker *tracker, TcTrackKind kind, const guint32 *values,
			    guint count, gboolean all, GError **error);

/* The number of values the sets hold (those holding every value count
 * none): what the per-session limit counts. */
guint tc_tracker_count(const TcTracker *tracker);
/* Whether each set holds the process' attribute; an attribute that could
 * not be read (-1) is in no set of values. */
gboolean tc_tracker_matches(const TcTracker *tracker, const TcProcessIds *ids);
gboolean tc_tracker_holds_all(const TcTracker *tracker, TcTrackKind kind);
/* The values of kind's set (none when it holds every value). */
const GArray *tc_tracker_values(const TcTracker *tracker, TcTrackKind kind);
