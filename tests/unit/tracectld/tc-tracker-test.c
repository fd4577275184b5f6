/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Inclusion sets of process attributes, and the virtual ids they match
 * (id maps as /proc gives them). */
#include <glib.h>
#include <string.h>

#include "tc-error.h"
#include "tc-peer-identity.h"
#include "tc-tracker.h"

static TcProcessIds
ids(gint64 pid, gint64 vpid, gint64 uid, gint64 vuid, gint64 gid, gint64 vgid)
{
	return (TcProcessIds){.value = {pid, vpid, uid, vuid, gid, vgid}};
}

static void
test_every_value_by_default(void)
{
	TcTracker tracker;
	TcProcessIds p = ids(10, 1, 1000, 0, 1000, 0);

	tc_tracker_init(&tracker);
	g_assert_true(tc_tracker_matches(&tracker, &p));
	for (guint i = 0; i < TC_TRACK_KINDS; i++)
		g_assert_true(tc_tracker_holds_all(&tracker, i));
	g_assert_cmpuint(tc_tracker_count(&tracker), ==, 0);
	tc_tracker_clear(&tracker);
}

static void
test_track_replaces_every_value(void)
{
	const guint32 pids[] = {30, 10, 30};
	TcProcessIds in = ids(10, 10, 1000, 1000, 100, 100);
	TcProcessIds out = ids(20, 20, 1000, 1000, 100, 100);
	TcTracker tracker;

	tc_tracker_init(&tracker);
	tc_tracker_track(&tracker, TC_TRACK_PID, pids, 3, FALSE);
	g_assert_cmpuint(tc_tracker_count(&tracker), ==, 2);
	g_assert_false(tc_tracker_holds_all(&tracker, TC_TRACK_PID));
	g_assert_cmpuint(tc_tracker_values(&tracker, TC_TRACK_PID)->len, ==, 2);
	g_assert_cmpuint(g_array_index(tc_tracker_values(&tracker, TC_TRACK_PID), guint32, 0), ==,
			 10);
	g_assert_true(tc_tracker_matches(&tracker, &in));
	g_assert_false(tc_tracker_matches(&tracker, &out));
	/* Every set must hold the process. */
	{
		const guint32 uid = 2000;

		tc_tracker_track(&tracker, TC_TRACK_UID, &uid, 1, FALSE);
		g_assert_false(tc_tracker_matches(&tracker, &in));
		g_assert_cmpuint(tc_tracker_count(&tracker), ==, 3);
	}
	tc_tracker_track(&tracker, TC_TRACK_UID, NULL, 0, TRUE);
	g_assert_true(tc_tracker_matches(&tracker, &in));
	tc_tracker_clear(&tracker);
}

static void
test_untrack(void)
{
	const guint32 values[] = {5, 6};
	const guint32 missing = 7;
	g_autoptr(GError) error = NULL;
	TcProcessIds p = ids(1, 5, 0, 0, 0, 0);
	TcTracker tracker;

	tc_tracker_init(&tracker);
	/* Nothing to remove while the set holds every value. */
	g_assert_false(tc_tracker_untrack(&tracker, TC_TRACK_VPID, values, 1, FALSE, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_NOT_FOUND);
	g_clear_error(&error);
	tc_tracker_track(&tracker, TC_TRACK_VPID, values, 2, FALSE);
	/* All or nothing: 7 is not there, so 5 stays. */
	{
		const guint32 both[] = {5, missing};

		g_assert_false(tc_tracker_untrack(&tracker, TC_TRACK_VPID, both, 2, FALSE, &error));
		g_assert_error(error, TC_ERROR, TC_ERROR_NOT_FOUND);
		g_clear_error(&error);
	}
	g_assert_true(tc_tracker_matches(&tracker, &p));
	g_assert_true(tc_tracker_untrack(&tracker, TC_TRACK_VPID, values, 1, FALSE, &error));
	g_assert_false(tc_tracker_matches(&tracker, &p));
	/* --all: an empty set records nothing, not even unknown ids. */
	g_assert_true(tc_tracker_untrack(&tracker, TC_TRACK_VPID, NULL, 0, TRUE, &error));
	p.value[TC_TRACK_VPID] = -1;
	g_assert_false(tc_tracker_matches(&tracker, &p));
	tc_tracker_clear(&tracker);
}

static void
test_unknown_virtual_id(void)
{
	const guint32 vuid = 0;
	TcProcessIds p = ids(1, 1, 1000, -1, 1000, -1);
	TcTracker tracker;

	tc_tracker_init(&tracker);
	tc_tracker_track(&tracker, TC_TRACK_VUID, &vuid, 1, FALSE);
	g_assert_false(tc_tracker_matches(&tracker, &p));
	tc_tracker_clear(&tracker);
}

static void
test_kind_names(void)
{
	TcTrackKind kind;

	g_assert_true(tc_tracker_kind_parse("vgid", &kind));
	g_assert_cmpint(kind, ==, TC_TRACK_VGID);
	g_assert_cmpstr(tc_tracker_kind_name(TC_TRACK_UID), ==, "uid");
	g_assert_false(tc_tracker_kind_parse("tid", &kind));
	g_assert_false(tc_tracker_kind_parse("", &kind));
}

/* What the Tracking property is built from: a set holding every value
 * lists none, a set of values lists them. */
static void
test_sets(void)
{
	const guint32 gid = 42;
	TcTracker tracker;
	const GArray *values;

	tc_tracker_init(&tracker);
	tc_tracker_track(&tracker, TC_TRACK_GID, &gid, 1, FALSE);
	g_assert_true(tc_tracker_holds_all(&tracker, TC_TRACK_PID));
	g_assert_false(tc_tracker_holds_all(&tracker, TC_TRACK_GID));
	values = tc_tracker_values(&tracker, TC_TRACK_GID);
	g_assert_cmpuint(values->len, ==, 1);
	g_assert_cmpuint(g_array_index(values, guint32, 0), ==, 42);
	tc_tracker_clear(&tracker);
}

static void
test_id_maps(void)
{
	/* A container's map: inside 0..65535 is 100000..165535 outside. */
	const char *map = "         0     100000      65536\n";

	g_assert_cmpint(tc_peer_identity_parse_id_map(map, 100000), ==, 0);
	g_assert_cmpint(tc_peer_identity_parse_id_map(map, 101000), ==, 1000);
	g_assert_cmpint(tc_peer_identity_parse_id_map(map, 165536), ==, -1);
	g_assert_cmpint(tc_peer_identity_parse_id_map(map, 1000), ==, -1);
	g_assert_cmpint(tc_peer_identity_parse_id_map("0 0 4294967295\n", 1000), ==, 1000);
	g_assert_cmpint(tc_peer_identity_parse_id_map("0 1000 1\n1 100000 65536\n", 1000), ==, 0);
	g_assert_cmpint(tc_peer_identity_parse_id_map("garbage\n", 1000), ==, -1);
	g_assert_cmpint(tc_peer_identity_parse_id_map("", 0), ==, -1);
	/* inside + offset past 2^32 - 1 is no id. */
	g_assert_cmpint(tc_peer_identity_parse_id_map("4294967295 10 5\n", 12), ==, -1);
}

/* What one call may name: shared by Track and the session files. */
static void
test_check_values(void)
{
	const guint32 pids[] = {1, G_MAXINT32};
	const guint32 zero[] = {0}, beyond[] = {(guint32)G_MAXINT32 + 1}, any[] = {G_MAXUINT32};
	const guint32 uids[] = {0, (guint32)G_MAXINT32 + 1};
	g_autofree guint32 *many = g_new0(guint32, 1025);
	GError *error = NULL;

	g_assert_true(tc_tracker_check_values(TC_TRACK_PID, pids, G_N_ELEMENTS(pids), NULL));
	g_assert_true(tc_tracker_check_values(TC_TRACK_UID, uids, G_N_ELEMENTS(uids), NULL));
	g_assert_false(tc_tracker_check_values(TC_TRACK_VPID, zero, 1, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
	g_assert_nonnull(strstr(error->message, "0 is not a valid vpid"));
	g_clear_error(&error);
	g_assert_false(tc_tracker_check_values(TC_TRACK_PID, beyond, 1, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
	g_clear_error(&error);
	g_assert_false(tc_tracker_check_values(TC_TRACK_GID, any, 1, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
	g_clear_error(&error);
	for (guint i = 0; i < 1025; i++)
		many[i] = i + 1;
	g_assert_true(tc_tracker_check_values(TC_TRACK_PID, many, 1024, NULL));
	g_assert_false(tc_tracker_check_values(TC_TRACK_PID, many, 1025, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_LIMIT_EXCEEDED);
	g_clear_error(&error);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracker/every-value-by-default", test_every_value_by_default);
	g_test_add_func("/tracker/track-replaces-every-value", test_track_replaces_every_value);
	g_test_add_func("/tracker/untrack", test_untrack);
	g_test_add_func("/tracker/unknown-virtual-id", test_unknown_virtual_id);
	g_test_add_func("/tracker/kind-names", test_kind_names);
	g_test_add_func("/tracker/sets", test_sets);
	g_test_add_func("/tracker/id-maps", test_id_maps);
	g_test_add_func("/tracker/check-values", test_check_values);
	return g_test_run();
}
