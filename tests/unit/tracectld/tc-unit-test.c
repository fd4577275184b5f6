/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Delegation of a unit: the unit names accepted and refused, and which
 * control groups a unit's group holds. */
#include <glib.h>
#include <string.h>

#include "tc-error.h"
#include "tc-unit.h"

static void
test_names_accepted(void)
{
	const char *const names[] = {
		"nginx.service", "getty@tty1.service", "user-1000.slice", "session-4.scope",
		"dbus.socket", "system-foo\\x2dbar.slice", "a:b_c-d.service",
	};

	for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
		g_autoptr(GError) error = NULL;

		g_assert_true(tc_unit_name_check(names[i], &error));
		g_assert_no_error(error);
	}
}

static void
test_names_refused(void)
{
	g_autofree char *long_name = g_strnfill(300, 'a');
	g_autofree char *too_long = g_strconcat(long_name, ".service", NULL);
	const char *const names[] = {
		"",		    "*.service",	"nginx*.service",  "ng?nx.service",
		"[a].service",	    "../x.service",	"a/b.service",	   "/system.slice",
		"a..b.service",	    ".service",		"nginx",	   "nginx.mount",
		"getty@.service",   "a@b@c.service",	"nginx.service\n", "nginx service",
		".hidden.service",  "@x.service",	too_long,
	};

	for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
		g_autoptr(GError) error = NULL;

		g_assert_false(tc_unit_name_check(names[i], &error));
		g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
		g_assert_nonnull(strstr(error->message, "is not a unit name"));
	}
}

static void
test_cgroup_contains(void)
{
	const char *unit = "/system.slice/nginx.service";

	g_assert_true(tc_unit_cgroup_contains(unit, "/system.slice/nginx.service"));
	g_assert_true(tc_unit_cgroup_contains(unit, "/system.slice/nginx.service/worker"));
	g_assert_false(tc_unit_cgroup_contains(unit, "/system.slice/nginx.service2"));
	g_assert_false(tc_unit_cgroup_contains(unit, "/system.slice"));
	g_assert_false(tc_unit_cgroup_contains(unit, "/system.slice/nginx.service (deleted)"));
	g_assert_false(tc_unit_cgroup_contains(unit, NULL));
	/* The root group is never a unit's. */
	g_assert_false(tc_unit_cgroup_contains("/", "/system.slice"));
	g_assert_false(tc_unit_cgroup_contains("", "/system.slice"));
}

static void
test_proc_cgroup(void)
{
	g_autofree char *v2 = tc_unit_parse_proc_cgroup("0::/system.slice/a.service\n");
	g_autofree char *hybrid = tc_unit_parse_proc_cgroup(
		"12:cpu,cpuacct:/x\n1:name=systemd:/system.slice/b.service\n0::/\n");
	g_autofree char *v1 =
		tc_unit_parse_proc_cgroup("1:name=systemd:/system.slice/c.service\n");
	g_autofree char *none = tc_unit_parse_proc_cgroup("");

	g_assert_cmpstr(v2, ==, "/system.slice/a.service");
	/* The unified line first, even when it is the root. */
	g_assert_cmpstr(hybrid, ==, "/");
	g_assert_cmpstr(v1, ==, "/system.slice/c.service");
	g_assert_null(none);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/unit/names-accepted", test_names_accepted);
	g_test_add_func("/unit/names-refused", test_names_refused);
	g_test_add_func("/unit/cgroup-contains", test_cgroup_contains);
	g_test_add_func("/unit/proc-cgroup", test_proc_cgroup);
	return g_test_run();
}
