/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Snapshot outputs (tc-snapshot-output.c): URLs, names, ids, the limit. */
#include <string.h>
#include <urcu.h>

#include "tc-error.h"
#include "tc-registry.h"
#include "tc-session.h"
#include "tc-snapshot-output.h"
#include "tc-user-limits.h"

static void
test_urls(void)
{
	static const char *const refused[] = {
	    "relative/dir", "file://relative", "/a/../b", "http://host/x", "", "/a/./b",
	};
	g_autoptr(GError) error = NULL;
	g_autofree char *plain = tc_snapshot_output_parse_url("/t/a", &error);
	g_autofree char *file = tc_snapshot_output_parse_url("file:///t/b", &error);
	g_autofree char *net = tc_snapshot_output_parse_url("net://relay.example:6000", &error);
	char *bad_net = tc_snapshot_output_parse_url("net://relay/x", &error);

	g_assert_cmpstr(plain, ==, "/t/a");
	g_assert_cmpstr(file, ==, "/t/b");
	/* A relay, as lttng takes it, in its canonical form. */
	g_assert_cmpstr(net, ==, "net://relay.example:6000:5343");
	g_assert_true(tc_snapshot_output_is_relay(net));
	g_assert_false(tc_snapshot_output_is_relay(file));
	g_assert_null(bad_net);
	g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
	g_assert_nonnull(strstr(error->message, "net://relay/x"));
	for (guint i = 0; i < G_N_ELEMENTS(refused); i++) {
		g_clear_error(&error);
		g_assert_null(tc_snapshot_output_parse_url(refused[i], &error));
		g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
	}
}

static void
test_add_find_remove(void)
{
	g_autoptr(TcSession) session = tc_session_new("s", 1000, "/t/s");
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) list = NULL;
	const TcSnapshotOutputEntry *entry;
	g_autofree char *by_name = NULL;
	g_autofree char *by_id = NULL;
	g_autofree char *by_url = NULL;
	guint64 max_bytes = 1;
	guint32 id = 0;

	g_assert_false(tc_snapshot_output_add_locked(session, "", "/t/o", 0, &id, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_STATE);
	g_clear_error(&error);
	session->snapshot = TRUE;
	g_assert_true(tc_snapshot_output_add_locked(session, "", "/t/o1", 0, &id, &error));
	g_assert_cmpuint(id, ==, 1);
	g_assert_true(
	    tc_snapshot_output_add_locked(session, "usb", "file:///t/o2", 8192, &id, &error));
	g_assert_cmpuint(id, ==, 2);
	g_assert_false(tc_snapshot_output_add_locked(session, "usb", "/t/o3", 0, &id, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_ALREADY_EXISTS);
	g_clear_error(&error);
	g_assert_false(tc_snapshot_output_add_locked(session, "a/b", "/t/o3", 0, &id, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
	g_clear_error(&error);

	list = tc_snapshot_output_list_locked(session);
	g_assert_cmpuint(list->len, ==, 2);
	entry = g_ptr_array_index(list, 1);
	g_assert_cmpuint(entry->id, ==, 2);
	g_assert_cmpstr(entry->name, ==, "usb");
	g_assert_cmpstr(entry->url, ==, "file:///t/o2");
	g_assert_cmpuint(entry->max_bytes, ==, 8192);
	by_name = tc_snapshot_output_resolve_locked(session, "usb", &max_bytes, &error);
	g_assert_cmpstr(by_name, ==, "/t/o2");
	g_assert_cmpuint(max_bytes, ==, 8192);
	by_id = tc_snapshot_output_resolve_locked(session, "1", &max_bytes, &error);
	g_assert_cmpstr(by_id, ==, "/t/o1");
	g_assert_cmpuint(max_bytes, ==, 0);
	by_url = tc_snapshot_output_resolve_locked(session, "file:///t/x", &max_bytes, &error);
	g_assert_cmpstr(by_url, ==, "/t/x");
	g_assert_null(tc_snapshot_output_resolve_locked(session, "nosuch", &max_bytes, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_NOT_FOUND);
	g_clear_error(&error);

	g_assert_true(tc_snapshot_output_remove_locked(session, "snapshot-1", &error));
	g_assert_false(tc_snapshot_output_remove_locked(session, "1", &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_NOT_FOUND);
	g_clear_error(&error);
	g_assert_true(tc_snapshot_output_remove_locked(session, "2", &error));
	g_clear_pointer(&list, g_ptr_array_unref);
	list = tc_snapshot_output_list_locked(session);
	g_assert_cmpuint(list->len, ==, 0);
}

static void
test_limit(void)
{
	g_autoptr(TcSession) session = tc_session_new("s", 1000, "/t/s");
	g_autoptr(GError) error = NULL;
	guint32 id;

	tc_user_limits_reset();
	tc_user_limits_set_default(TC_LIMIT_SNAPSHOT_OUTPUTS_PER_SESSION, 2);
	session->snapshot = TRUE;
	g_assert_true(tc_snapshot_output_add_locked(session, "", "/t/1", 0, &id, &error));
	g_assert_true(tc_snapshot_output_add_locked(session, "", "/t/2", 0, &id, &error));
	g_assert_false(tc_snapshot_output_add_locked(session, "", "/t/3", 0, &id, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_LIMIT_EXCEEDED);
	g_assert_nonnull(strstr(error->message, "MaxSnapshotOutputsPerSession"));
	g_clear_error(&error);
	/* Root is never limited. */
	session->owner_uid = 0;
	g_assert_true(tc_snapshot_output_add_locked(session, "", "/t/3", 0, &id, &error));
	tc_user_limits_reset();
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	rcu_register_thread();
	tc_registry_init();
	g_test_add_func("/tracectl/snapshot-output/urls", test_urls);
	g_test_add_func("/tracectl/snapshot-output/add-find-remove", test_add_find_remove);
	g_test_add_func("/tracectl/snapshot-output/limit", test_limit);
	return g_test_run();
}
