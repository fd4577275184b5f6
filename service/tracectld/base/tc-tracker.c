/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Inclusion sets of process attributes (see tc-tracker.h). Sets are small
 * sorted arrays: the per-session limit bounds them, and they are read on
 * every application sync, written only by track and untrack.
 */
#include "tc-tracker.h"

#include "tc-error.h"
#include "tc-kernel-abi.h"

static const char *const kind_names[TC_TRACK_KINDS] = {
	[TC_TRACK_PID] = "pid", [TC_TRACK_VPID] = "vpid", [TC_TRACK_UID] = "uid",
	[TC_TRACK_VUID] = "vuid", [TC_TRACK_GID] = "gid", [TC_TRACK_VGID] = "vgid",
};

const char *
tc_tracker_kind_name(TcTrackKind kind)
{
	g_return_val_if_fail(kind < TC_TRACK_KINDS, NULL);
	return kind_names[kind];
}

gboolean
tc_tracker_kind_parse(const char *name, TcTrackKind *kind)
{
	for (guint i = 0; i < TC_TRACK_KINDS; i++)
		if (g_str_equal(name, kind_names[i])) {
			*kind = (TcTrackKind)i;
			return TRUE;
		}
	return FALSE;
}

void
tc_tracker_init(TcTracker *tracker)
{
	for (guint i = 0; i < TC_TRACK_KINDS; i++) {
		tracker->all[i] = TRUE;
		tracker->values[i] = g_array_new(FALSE, FALSE, sizeof(guint32));
	}
}

void
tc_tracker_clear(TcTracker *tracker)
{
	for (guint i = 0; i < TC_TRACK_KINDS; i++)
		g_clear_pointer(&tracker->values[i], g_array_unref);
}

/* The index of value in the sorted set, or where it would go. */
static gboolean
find_value(const GArray *set, guint32 value, guint *index)
{
	guint low = 0, high = set->len;

	while (low < high) {
		guint mid = low + (high - low) / 2;
		guint32 at = g_array_index(set, guint32, mid);

		if (at == value) {
			*index = mid;
			return TRUE;
		}
		if (at < value)
			low = mid + 1;
		else
			high = mid;
	}
	*index = low;
	return FALSE;
}

void
tc_tracker_track(TcTracker *tracker, TcTrackKind kind, const guint32 *values, guint count,
		 gboolean all)
{
	GArray *set = tracker->values[kind];

	if (all) {
		tracker->all[kind] = TRUE;
		g_array_set_size(set, 0);
		return;
	}
	if (count > 0 && tracker->all[kind]) {
		tracker->all[kind] = FALSE;
		g_array_set_size(set, 0);
	}
	for (guint i = 0; i < count; i++) {
		guint index;

		if (!find_value(set, values[i], &index))
			g_array_insert_val(set, index, values[i]);
	}
}

gboolean
tc_tracker_untrack(TcTracker *tracker, TcTrackKind kind, const guint32 *values, guint count,
		   gboolean all, GError **error)
{
	GArray *set = tracker->values[kind];
	guint index;

	if (all) {
		tracker->all[kind] = FALSE;
		g_array_set_size(set, 0);
		return TRUE;
	}
	for (guint i = 0; i < count; i++)
		if (tracker->all[kind] || !find_value(set, values[i], &index)) {
			g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND, "%s %u is not tracked%s",
				    kind_names[kind], values[i],
				    tracker->all[kind] ? " by itself (every value is)" : "");
			return FALSE;
		}
	for (guint i = 0; i < count; i++)
		if (find_value(set, values[i], &index))
			g_array_remove_index(set, index);
	return TRUE;
}

guint
tc_tracker_count(const TcTracker *tracker)
{
	guint total = 0;

	for (guint i = 0; i < TC_TRACK_KINDS; i++)
		if (!tracker->all[i])
			total += tracker->values[i]->len;
	return total;
}

gboolean
tc_tracker_matches(const TcTracker *tracker, const TcProcessIds *ids)
{
	for (guint i = 0; i < TC_TRACK_KINDS; i++) {
		guint index;

		if (tracker->all[i])
			continue;
		if (ids->value[i] < 0 || ids->value[i] > G_MAXUINT32 ||
		    !find_value(tracker->values[i], (guint32)ids->value[i], &index))
			return FALSE;
	}
	return TRUE;
}

gboolean
tc_tracker_holds_all(const TcTracker *tracker, TcTrackKind kind)
{
	return tracker->all[kind];
}

const GArray *
tc_tracker_values(const TcTracker *tracker, TcTrackKind kind)
{
	return tracker->values[kind];
}

gboolean
tc_tracker_check_values(TcTrackKind kind, const guint32 *values, gsize count, GError **error)
{
	gboolean is_pid = kind == TC_TRACK_PID || kind == TC_TRACK_VPID;

	if (count > TC_KERNEL_PIDS_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_LIMIT_EXCEEDED,
			    "%" G_GSIZE_FORMAT " %s values at once, the limit is %u", count,
			    tc_tracker_kind_name(kind), TC_KERNEL_PIDS_MAX);
		return FALSE;
	}
	for (gsize i = 0; i < count; i++)
		if (values[i] == G_MAXUINT32 || (is_pid && (values[i] == 0 || values[i] > G_MAXINT32))) {
			g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    "%u is not a valid %s", values[i], tc_tracker_kind_name(kind));
			return FALSE;
		}
	return TRUE;
}
