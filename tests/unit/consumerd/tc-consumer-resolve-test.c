/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Host name lookups that never hold the caller (tc-consumerd-resolve.c):
 * numeric addresses at once, names from /etc/hosts, and, when the test
 * may make a mount namespace of its own, a name server that never
 * answers: the wait ends at its bound, a pending lookup is freed without
 * waiting, and names from /etc/hosts still resolve meanwhile.
 */
#include <glib.h>
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tc-consumerd-resolve.h"

#define FILES_HOST "relay-files.tracectl-test.example"
#define DNS_HOST "relay.tracectl-test.example"

static bool silent_dns;		 /* the test's resolv.conf and hosts are in place */
static bool own_mount_namespace; /* then unmounting them leaves the system's alone */

static void
test_numeric(void)
{
	struct tc_consumerd_lookup *lookup = NULL;

	g_assert_cmpint(tc_consumerd_resolve_start("127.0.0.1", AF_UNSPEC, &lookup), ==, 0);
	g_assert_cmpint(tc_consumerd_resolve_wait(lookup, 0), ==, 1);
	g_assert_cmpint(tc_consumerd_resolve_addresses(lookup)->ai_family, ==, AF_INET);
	g_assert_cmpint(tc_consumerd_resolve_addresses(lookup)->ai_socktype, ==, SOCK_STREAM);
	tc_consumerd_resolve_free(lookup);

	g_assert_cmpint(tc_consumerd_resolve_start("::1", AF_INET6, &lookup), ==, 0);
	g_assert_cmpint(tc_consumerd_resolve_wait(lookup, 0), ==, 1);
	g_assert_cmpint(tc_consumerd_resolve_addresses(lookup)->ai_family, ==, AF_INET6);
	tc_consumerd_resolve_free(lookup);
}

static void
test_hosts_file(void)
{
	struct tc_consumerd_lookup *lookup = NULL;
	const char *host = silent_dns ? FILES_HOST : "localhost";

	g_assert_cmpint(tc_consumerd_resolve_start(host, AF_INET, &lookup), ==, 0);
	g_assert_cmpint(tc_consumerd_resolve_wait(lookup, 5000), ==, 1);
	g_assert_nonnull(tc_consumerd_resolve_addresses(lookup));
	g_assert_cmpint(tc_consumerd_resolve_addresses(lookup)->ai_family, ==, AF_INET);
	tc_consumerd_resolve_free(lookup);
}

/* The server never answers: the lookup stays pending past the wait,
 * which ends on time; a name from /etc/hosts resolves meanwhile; the
 * pending lookup is freed without waiting for the resolver. */
static void
test_silent_server(void)
{
	struct tc_consumerd_lookup *pending = NULL, *files = NULL;
	gint64 start;

	if (!silent_dns) {
		g_test_skip("needs a mount namespace of its own (root)");
		return;
	}
	g_assert_cmpint(tc_consumerd_resolve_start(DNS_HOST, AF_UNSPEC, &pending), ==, 0);
	g_assert_cmpint(tc_consumerd_resolve_wait(pending, 0), ==, 0);
	g_assert_null(tc_consumerd_resolve_addresses(pending));
	start = g_get_monotonic_time();
	g_assert_cmpint(tc_consumerd_resolve_wait(pending, 300), ==, 0);
	g_assert_cmpint(g_get_monotonic_time() - start, >=, 290000);
	g_assert_cmpint(g_get_monotonic_time() - start, <, 1500000);

	g_assert_cmpint(tc_consumerd_resolve_start(FILES_HOST, AF_INET, &files), ==, 0);
	g_assert_cmpint(tc_consumerd_resolve_wait(files, 3000), ==, 1);
	tc_consumerd_resolve_free(files);

	start = g_get_monotonic_time();
	tc_consumerd_resolve_free(pending);
	g_assert_cmpint(g_get_monotonic_time() - start, <, 100000);
}

/* A name server that reads and never answers, on a loopback address. */
static int
silent_server(void)
{
	struct sockaddr_in addr = {.sin_family = AF_INET,
				   .sin_port = htons(53),
				   .sin_addr.s_addr = htonl(0x7f00004d)}; /* 127.0.0.77 */
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static bool
bind_file(const char *dir, const char *name, const char *text, const char *target)
{
	g_autofree char *path = g_build_filename(dir, name, NULL);

	return g_file_set_contents(path, text, -1, NULL) &&
	       mount(path, target, NULL, MS_BIND, NULL) == 0;
}

/* In a mount namespace of its own, before any lookup started a thread:
 * /etc/resolv.conf names the silent server, /etc/hosts knows FILES_HOST.
 * Returns whether all is in place. */
static bool
divert_resolver(const char *dir)
{
	g_autofree char *hosts = NULL;
	g_autofree char *more = NULL;

	if (unshare(CLONE_NEWNS) < 0)
		return false;
	own_mount_namespace = true;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return false;
	if (silent_server() < 0 || !g_file_get_contents("/etc/hosts", &hosts, NULL, NULL))
		return false;
	more = g_strdup_printf("%s\n127.0.0.1 %s\n", hosts, FILES_HOST);
	/* Files then DNS: no resolver daemon of the host's namespace
	 * answers instead. */
	return access("/run/nscd/socket", F_OK) != 0 &&
	       bind_file(dir, "resolv.conf",
			 "nameserver 127.0.0.77\noptions timeout:5 attempts:2\n",
			 "/etc/resolv.conf") &&
	       bind_file(dir, "hosts", more, "/etc/hosts") &&
	       bind_file(dir, "nsswitch.conf", "hosts: files dns\n", "/etc/nsswitch.conf");
}

int
main(int argc, char **argv)
{
	g_autofree char *dir = g_dir_make_tmp("tc-resolve-XXXXXX", NULL);
	int ret;

	g_test_init(&argc, &argv, NULL);
	silent_dns = dir && geteuid() == 0 && divert_resolver(dir);
	g_test_add_func("/consumerd/resolve/numeric", test_numeric);
	g_test_add_func("/consumerd/resolve/hosts-file", test_hosts_file);
	g_test_add_func("/consumerd/resolve/silent-server", test_silent_server);
	ret = g_test_run();
	if (dir) {
		g_autofree char *resolv = g_build_filename(dir, "resolv.conf", NULL);
		g_autofree char *hosts = g_build_filename(dir, "hosts", NULL);
		g_autofree char *nsswitch = g_build_filename(dir, "nsswitch.conf", NULL);

		if (own_mount_namespace) {
			umount("/etc/resolv.conf");
			umount("/etc/hosts");
			umount("/etc/nsswitch.conf");
		}
		unlink(resolv);
		unlink(hosts);
		unlink(nsswitch);
		rmdir(dir);
	}
	return ret;
}
