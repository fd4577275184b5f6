/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel helper's checking and translating of requests
 * (tc-helper-request.c) on valid requests: the names, clock, buffer size,
 * regular expressions and probe locations the helper hands to tracefs,
 * pinned, and the size checks that let each type's message through.
 */
#include <errno.h>
#include <glib.h>
#include <string.h>

#include "tc-helper-request.h"
#include "tc-kernel-abi.h"

static void
test_names(void)
{
	char name[TC_HELPER_REQUEST_NAME_MAX];

	tc_helper_request_instance_name(1ull << 32 | 3, name, sizeof(name));
	g_assert_cmpstr(name, ==, "tracectl-4294967299");
	tc_helper_request_instance_name(UINT64_MAX, name, sizeof(name));
	g_assert_cmpstr(name, ==, "tracectl-18446744073709551615");
	tc_helper_request_probe_group(0, name, sizeof(name));
	g_assert_cmpstr(name, ==, "tracectl_0");
	tc_helper_request_probe_group(UINT64_MAX, name, sizeof(name));
	g_assert_cmpstr(name, ==, "tracectl_18446744073709551615");
}

static void
test_instance_setup(void)
{
	const char *clock = NULL;
	char size[32];

	g_assert_cmpint(tc_helper_request_instance_setup(0, &clock, size, sizeof(size)), ==, 0);
	g_assert_cmpstr(clock, ==, "mono");
	g_assert_cmpstr(size, ==, "");
	g_assert_cmpint(tc_helper_request_instance_setup(4096, &clock, size, sizeof(size)), ==, 0);
	g_assert_cmpstr(clock, ==, "mono");
	g_assert_cmpstr(size, ==, "4096");
	/* A flight recorder's flag is no part of the size. */
	g_assert_cmpint(tc_helper_request_instance_setup(TC_KERNEL_OVERWRITE | 1024, &clock, size,
							 sizeof(size)),
			==, 0);
	g_assert_cmpstr(size, ==, "1024");
	g_assert_true(tc_helper_request_instance_overwrites(TC_KERNEL_OVERWRITE | 1024));
	g_assert_false(tc_helper_request_instance_overwrites(1024));
#ifdef __x86_64__
	g_assert_cmpint(tc_helper_request_instance_setup(TC_KERNEL_CLOCK_TSC | 0x3fffffff, &clock,
							 size, sizeof(size)),
			==, 0);
	g_assert_cmpstr(clock, ==, "x86-tsc");
	g_assert_cmpstr(size, ==, "1073741823");
	g_assert_false(tc_helper_request_instance_overwrites(TC_KERNEL_CLOCK_TSC | 0x3fffffff));
#else
	g_assert_cmpint(
	    tc_helper_request_instance_setup(TC_KERNEL_CLOCK_TSC, &clock, size, sizeof(size)), ==,
	    -EINVAL);
#endif
}

static void
test_glob_regex(void)
{
	char regex[2 * TC_KERNEL_NAME_MAX + 4], glob[TC_KERNEL_NAME_MAX];

	tc_helper_request_glob_regex("sched_*", regex, sizeof(regex));
	g_assert_cmpstr(regex, ==, "^sched_.*$");
	tc_helper_request_glob_regex("*", regex, sizeof(regex));
	g_assert_cmpstr(regex, ==, "^.*$");
	tc_helper_request_glob_regex("sys_enter_openat", regex, sizeof(regex));
	g_assert_cmpstr(regex, ==, "^sys_enter_openat$");
	/* The longest glob, all '*', is not cut. */
	memset(glob, '*', sizeof(glob) - 1);
	glob[sizeof(glob) - 1] = '\0';
	tc_helper_request_glob_regex(glob, regex, sizeof(regex));
	g_assert_cmpuint(strlen(regex), ==, 2 * (TC_KERNEL_NAME_MAX - 1) + 2);
	g_assert_cmpint(regex[strlen(regex) - 1], ==, '$');
}

static struct tc_kernel_probe_msg
probe(uint32_t kind, const char *name, const char *location)
{
	struct tc_kernel_probe_msg msg = {.header = {.magic = TC_KERNEL_MAGIC,
						     .type = TC_KERNEL_PROBE_ADD,
						     .size = sizeof(msg),
						     .session_id = 3},
					  .kind = kind};

	g_strlcpy(msg.name, name, sizeof(msg.name));
	g_strlcpy(msg.location, location, sizeof(msg.location));
	return msg;
}

static void
test_probes(void)
{
	struct tc_kernel_probe_msg msg;
	struct tc_helper_uprobe_target target;

	msg = probe(TC_KERNEL_PROBE_KPROBE, "do_open", "do_sys_openat2+0x10");
	g_assert_true(tc_helper_request_is_valid(&msg, sizeof(msg)));
	g_assert_cmpint(tc_helper_request_kprobe_check(&msg), ==, 0);
	g_assert_cmpint(tc_helper_request_uprobe_split(&msg, &target), ==, -EINVAL);
	msg = probe(TC_KERNEL_PROBE_KRETPROBE, "r", "vfs_read.cold");
	g_assert_cmpint(tc_helper_request_kprobe_check(&msg), ==, 0);
	msg = probe(TC_KERNEL_PROBE_KPROBE, "bad", "do_open 0");
	g_assert_true(tc_helper_request_is_valid(&msg, sizeof(msg)));
	g_assert_cmpint(tc_helper_request_kprobe_check(&msg), ==, -EINVAL);

	msg = probe(TC_KERNEL_PROBE_UPROBE, "m", "/usr/lib/libc.so.6:malloc");
	g_assert_cmpint(tc_helper_request_kprobe_check(&msg), ==, -EINVAL);
	g_assert_cmpint(tc_helper_request_uprobe_split(&msg, &target), ==, 0);
	g_assert_cmpstr(target.path, ==, "/usr/lib/libc.so.6");
	g_assert_cmpstr(target.provider, ==, "");
	g_assert_cmpstr(target.name, ==, "malloc");
	msg = probe(TC_KERNEL_PROBE_UPROBE, "m", "/usr/../lib:malloc");
	g_assert_cmpint(tc_helper_request_uprobe_split(&msg, &target), ==, -EINVAL);
	/* SDT probes: sdt:PATH:PROVIDER:NAME, C identifiers' characters. */
	msg = probe(TC_KERNEL_PROBE_UPROBE, "s", "sdt:/usr/bin/app:example:all_types");
	g_assert_true(tc_helper_request_is_valid(&msg, sizeof(msg)));
	g_assert_cmpint(tc_helper_request_uprobe_split(&msg, &target), ==, 0);
	g_assert_cmpstr(target.path, ==, "/usr/bin/app");
	g_assert_cmpstr(target.provider, ==, "example");
	g_assert_cmpstr(target.name, ==, "all_types");
	{
		const char *const bad[] = {"sdt:/usr/bin/app:example", "sdt:/usr/bin/app::x",
					   "sdt:/usr/bin/app:example:", "sdt:/app:a:b:c",
					   "sdt:/app:a-b:c", "sdt:app:a:b", "sdt:/a/../b:a:b",
					   "sdt:/app:a:b\n"};

		for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
			msg = probe(TC_KERNEL_PROBE_UPROBE, "s", bad[i]);
			g_assert_cmpint(tc_helper_request_uprobe_split(&msg, &target), ==, -EINVAL);
		}
	}

	msg = probe(TC_KERNEL_PROBE_KPROBE, "9starts_with_a_digit", "f");
	g_assert_false(tc_helper_request_is_valid(&msg, sizeof(msg)));
	msg = probe(TC_KERNEL_PROBE_KPROBE, "f", "f");
	msg.flags = 2;
	g_assert_false(tc_helper_request_is_valid(&msg, sizeof(msg)));
}

static void
test_sizes(void)
{
	struct tc_kernel_msg header = {
	    .magic = TC_KERNEL_MAGIC, .type = TC_KERNEL_PING, .size = sizeof(header)};
	static struct tc_kernel_pids_msg pids = {
	    .header = {.magic = TC_KERNEL_MAGIC, .type = TC_KERNEL_PIDS, .size = sizeof(pids)},
	    .count = 2,
	    .pids = {1, 2}};
	static struct tc_kernel_track_msg track = {
	    .header = {.magic = TC_KERNEL_MAGIC, .type = TC_KERNEL_TRACK, .size = sizeof(track)},
	    .all = 1u << TC_KERNEL_TRACK_VPID | 1u << TC_KERNEL_TRACK_VUID |
		   1u << TC_KERNEL_TRACK_GID | 1u << TC_KERNEL_TRACK_VGID,
	    .counts = {[TC_KERNEL_TRACK_UID] = 1}};

	g_assert_true(tc_helper_request_is_valid(&header, sizeof(header)));
	g_assert_false(tc_helper_request_is_valid(&header, sizeof(header) - 1));
	header.type = TC_KERNEL_REPLY;
	g_assert_false(tc_helper_request_is_valid(&header, sizeof(header)));
	g_assert_true(tc_helper_request_is_valid(&pids, sizeof(pids)));
	pids.pids[1] = 0;
	g_assert_false(tc_helper_request_is_valid(&pids, sizeof(pids)));
	g_assert_true(tc_helper_request_is_valid(&track, sizeof(track)));
	/* pids alone are a PIDS request's. */
	track.all = (1u << TC_KERNEL_TRACK_KINDS) - 1 - (1u << TC_KERNEL_TRACK_PID);
	track.counts[TC_KERNEL_TRACK_UID] = 0;
	track.counts[TC_KERNEL_TRACK_PID] = 1;
	g_assert_false(tc_helper_request_is_valid(&track, sizeof(track)));
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/kernel-helper/request/names", test_names);
	g_test_add_func("/kernel-helper/request/instance-setup", test_instance_setup);
	g_test_add_func("/kernel-helper/request/glob-regex", test_glob_regex);
	g_test_add_func("/kernel-helper/request/probes", test_probes);
	g_test_add_func("/kernel-helper/request/sizes", test_sizes);
	return g_test_run();
}
