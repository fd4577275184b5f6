/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CLI's pure helpers. */
#include "tc-client.h"

static void
test_size(void)
{
	guint64 size;

	g_assert_true(tc_client_parse_size("4096", &size));
	g_assert_cmpuint(size, ==, 4096);
	g_assert_true(tc_client_parse_size("64k", &size));
	g_assert_cmpuint(size, ==, 65536);
	g_assert_true(tc_client_parse_size("1M", &size));
	g_assert_cmpuint(size, ==, 1048576);
	g_assert_true(tc_client_parse_size("2g", &size));
	g_assert_cmpuint(size, ==, G_GUINT64_CONSTANT(2147483648));
	g_assert_false(tc_client_parse_size("", &size));
	g_assert_false(tc_client_parse_size("k", &size));
	g_assert_false(tc_client_parse_size("-4k", &size));
	g_assert_false(tc_client_parse_size("4kb", &size));
	g_assert_false(tc_client_parse_size("99999999999999999999g", &size));
}

static void
test_period(void)
{
	guint64 us;

	g_assert_true(tc_client_parse_period("1500", &us));
	g_assert_cmpuint(us, ==, 1500);
	g_assert_true(tc_client_parse_period("20us", &us));
	g_assert_cmpuint(us, ==, 20);
	g_assert_true(tc_client_parse_period("250ms", &us));
	g_assert_cmpuint(us, ==, 250000);
	g_assert_true(tc_client_parse_period("3s", &us));
	g_assert_cmpuint(us, ==, 3000000);
	g_assert_true(tc_client_parse_period("2m", &us));
	g_assert_cmpuint(us, ==, 120000000);
	g_assert_true(tc_client_parse_period("1h", &us));
	g_assert_cmpuint(us, ==, G_GUINT64_CONSTANT(3600000000));
	g_assert_false(tc_client_parse_period("", &us));
	g_assert_false(tc_client_parse_period("s", &us));
	g_assert_false(tc_client_parse_period("-1s", &us));
	g_assert_false(tc_client_parse_period("1d", &us));
	g_assert_false(tc_client_parse_period("1 s", &us));
	g_assert_false(tc_client_parse_period("99999999999999999h", &us));
}

static void
test_power_of_two(void)
{
	g_assert_false(tc_client_is_power_of_two(0));
	g_assert_true(tc_client_is_power_of_two(1));
	g_assert_true(tc_client_is_power_of_two(4096));
	g_assert_false(tc_client_is_power_of_two(4097));
}

static void
test_patterns(void)
{
	g_auto(GStrv) one = tc_client_split_patterns("a:b");
	g_auto(GStrv) many = tc_client_split_patterns("a:*,,b:c,");
	g_auto(GStrv) none = tc_client_split_patterns(",");

	g_assert_cmpuint(g_strv_length(one), ==, 1);
	g_assert_cmpstr(many[0], ==, "a:*");
	g_assert_cmpstr(many[1], ==, "b:c");
	g_assert_null(many[2]);
	g_assert_null(none[0]);
}

static void
test_rc_file(void)
{
	g_autofree char *a = tc_client_rc_with_session(NULL, "one");
	g_autofree char *b = tc_client_rc_with_session("other=1\nsession=one\n", "two");
	g_autofree char *c = tc_client_rc_with_session(b, NULL);
	g_autofree char *read_a = tc_client_read_session_from_rc(a);
	g_autofree char *read_b = tc_client_read_session_from_rc(b);
	g_autofree char *read_c = tc_client_read_session_from_rc(c);

	g_assert_cmpstr(read_a, ==, "one");
	g_assert_cmpstr(read_b, ==, "two");
	g_assert_null(read_c);
	g_assert_cmpstr(c, ==, "other=1\n");
}

static void
test_bus_address(void)
{
	const char *good[] = {
		"unix:path=/run/tracectl/system_bus_socket.12",
		"unix:path=/tmp/a%20b,guid=0123456789abcdef0123456789ABCDEF",
	};
	const char *bad[] = {
		"unixexec:path=/bin/sh,argv0=sh,argv1=-c,argv2=touch%20/tmp/x",
		"tcp:host=127.0.0.1,port=1234",
		"unix:abstract=tracectl",
		"unix:path=/run/a;unixexec:path=/bin/sh",
		"unix:path=/run/a,path=/run/b",
		"unix:path=relative",
		"unix:path=/run/a%00b",
		"unix:path=/run/a,guid=xyz",
		"unix:path=/run/a,noncefile=/tmp/n",
		"unix:tmpdir=/tmp",
		"unix:",
		"",
	};

	for (guint i = 0; i < G_N_ELEMENTS(good); i++)
		g_assert_true(tc_client_check_bus_address(good[i], NULL));
	for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_autoptr(GError) error = NULL;

		g_assert_false(tc_client_check_bus_address(bad[i], &error));
		g_assert_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
	}
}

/* -H's [USER@]HOST[:PORT], as ssh gets it. */
static void
test_host(void)
{
	const struct {
		const char *text, *destination, *port;
	} good[] = {
		{"far", "far", NULL},
		{"alice@far.example.org", "alice@far.example.org", NULL},
		{"alice@far:2222", "alice@far", "2222"},
		{"10.0.0.1:22", "10.0.0.1", "22"},
		{"[::1]", "::1", NULL},
		{"bob@[fe80::1%eth0]:65535", "bob@fe80::1%eth0", "65535"},
		{"a_b-c.d@h-1", "a_b-c.d@h-1", NULL},
	};
	const char *bad[] = {
		"", "@far", "alice@", "far:", "far:0", "far:65536", "far:+22", "far:22x",
		"-oProxyCommand=sh", "alice@-far", "-alice@far", "a@b@c", "far host", "far;ls",
		"far/container", "[::1", "[::1]x", "[]:22", "[-1]", "f\tar", "far:2:2", "$(id)",
	};

	for (guint i = 0; i < G_N_ELEMENTS(good); i++) {
		g_autofree char *destination = NULL;
		g_autofree char *port = NULL;

		g_assert_true(tc_client_parse_host(good[i].text, &destination, &port, NULL));
		g_assert_cmpstr(destination, ==, good[i].destination);
		g_assert_cmpstr(port, ==, good[i].port);
	}
	for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_autoptr(GError) error = NULL;
		char *destination = NULL, *port = NULL;

		g_assert_false(tc_client_parse_host(bad[i], &destination, &port, &error));
		g_assert_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE);
		g_assert_null(destination);
		g_assert_null(port);
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/client/size", test_size);
	g_test_add_func("/tracectl/client/period", test_period);
	g_test_add_func("/tracectl/client/power-of-two", test_power_of_two);
	g_test_add_func("/tracectl/client/patterns", test_patterns);
	g_test_add_func("/tracectl/client/rc-file", test_rc_file);
	g_test_add_func("/tracectl/client/bus-address", test_bus_address);
	g_test_add_func("/tracectl/client/host", test_host);
	return g_test_run();
}
