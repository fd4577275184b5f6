/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Unit tests of the session output URLs: the forms lttng accepts, the
 * defaults of lttng-relayd, net+ssh:// (an ssh:// authority, the relay's
 * ports after '/'), and refusals that name the URL and position. */
#include <glib.h>
#include <string.h>
#include <sys/socket.h>

#include "tc-error.h"
#include "tc-relay-url.h"
#include "tc-ssh-names.h"

static void
assert_net(const char *text, int family, const char *host, guint16 control, guint16 data)
{
	g_autoptr(GError) error = NULL;
	g_auto(TcRelayUrl) url = {0};

	g_assert_true(tc_relay_url_parse(text, &url, &error));
	g_assert_no_error(error);
	g_assert_cmpint(url.kind, ==, TC_RELAY_URL_NET);
	g_assert_cmpint(url.family, ==, family);
	g_assert_cmpstr(url.host, ==, host);
	g_assert_cmpuint(url.control_port, ==, control);
	g_assert_cmpuint(url.data_port, ==, data);
}

static void
test_net(void)
{
	assert_net("net://relay.example.org", AF_INET, "relay.example.org", 5342, 5343);
	assert_net("net://127.0.0.1:6000", AF_INET, "127.0.0.1", 6000, 5343);
	assert_net("net://localhost:6000:6001", AF_INET, "localhost", 6000, 6001);
	assert_net("net://a-b.c1", AF_INET, "a-b.c1", 5342, 5343);
	assert_net("net6://[::1]", AF_INET6, "::1", 5342, 5343);
	assert_net("net6://[fe80::1:2]:1:65535", AF_INET6, "fe80::1:2", 1, 65535);
	assert_net("net6://relay6", AF_INET6, "relay6", 5342, 5343);
}

static void
assert_ssh(const char *text, const char *user, const char *host, guint16 ssh_port,
	   guint16 control, guint16 data)
{
	g_autoptr(GError) error = NULL;
	g_auto(TcRelayUrl) url = {0};
	size_t position;

	g_assert_true(tc_relay_url_parse(text, &url, &error));
	g_assert_no_error(error);
	g_assert_cmpint(url.kind, ==, TC_RELAY_URL_SSH);
	g_assert_cmpint(url.family, ==, AF_UNSPEC);
	g_assert_cmpstr(url.user, ==, user);
	g_assert_cmpstr(url.host, ==, host);
	g_assert_cmpuint(url.ssh_port, ==, ssh_port);
	g_assert_cmpuint(url.control_port, ==, control);
	g_assert_cmpuint(url.data_port, ==, data);
	/* What the consumer checks again before running ssh holds. */
	g_assert_null(tc_ssh_names_check_host(url.host, strlen(url.host), &position));
	if (user)
		g_assert_null(tc_ssh_names_check_user(user, strlen(user), &position));
}

static void
test_ssh(void)
{
	assert_ssh("net+ssh://relay.example.org", NULL, "relay.example.org", 0, 5342, 5343);
	assert_ssh("net+ssh://relay/", NULL, "relay", 0, 5342, 5343);
	assert_ssh("net+ssh://tracer@relay", "tracer", "relay", 0, 5342, 5343);
	assert_ssh("net+ssh://a.b_c-1@relay:2222", "a.b_c-1", "relay", 2222, 5342, 5343);
	assert_ssh("net+ssh://u@relay:22/6000", "u", "relay", 22, 6000, 5343);
	assert_ssh("net+ssh://relay/6000:6001", NULL, "relay", 0, 6000, 6001);
	assert_ssh("net+ssh://u@10.0.0.2:2222/1:2", "u", "10.0.0.2", 2222, 1, 2);
	assert_ssh("net+ssh://u@[::1]:22/5342:5343", "u", "::1", 22, 5342, 5343);
}

static void
test_tcp_and_file(void)
{
	g_autoptr(GError) error = NULL;
	g_auto(TcRelayUrl) url = {0};

	g_assert_true(tc_relay_url_parse("tcp://host", &url, &error));
	g_assert_cmpint(url.kind, ==, TC_RELAY_URL_TCP);
	g_assert_cmpuint(url.control_port, ==, 0);
	g_assert_true(tc_relay_url_parse("tcp6://[::1]:7000", &url, &error));
	g_assert_cmpint(url.family, ==, AF_INET6);
	g_assert_cmpuint(url.control_port, ==, 7000);
	g_assert_true(tc_relay_url_parse("file:///tmp/trace", &url, &error));
	g_assert_cmpint(url.kind, ==, TC_RELAY_URL_FILE);
	g_assert_cmpstr(url.path, ==, "/tmp/trace");
	g_assert_null(url.host);
	g_assert_no_error(error);
}

/* Each bad URL, and a piece of the message that explains it. */
static const struct {
	const char *url;
	const char *message;
} bad_urls[] = {
    {"", "expected file://"},
    {"http://host", "expected file://"},
    {"NET://host", "expected file://"},
    {"net://", "ends at position 7; expected a host"},
    {"net://ho st", "unexpected ' ' at position 9"},
    {"net://host_1", "unexpected '_' at position 11"},
    {"net://host\n", "byte 0x0a at position 11"},
    {"net://-host", "position 7; a host name label cannot start"},
    {"net://host-", "position 11; a host name cannot end"},
    {"net://a..b", "position 9; a host name label is empty"},
    {"net://host:0", "position 12; a port lies between 1 and 65535"},
    {"net://host:65536", "position 12; a port lies between 1 and 65535"},
    {"net://host:1234567", "position 12; a port lies between"},
    {"net://host:12a", "unexpected 'a' at position 14; a port has only digits"},
    {"net://host:", "ends at position 12; expected a port"},
    {"net://host:1:2:3", "unexpected ':' at position 15; expected the end after the data port"},
    {"net://host:5000:5000", "the control and data ports must differ"},
    {"net://host/trace", "unexpected '/' at position 11; tracectl does not send a trace"},
    {"net://[::1]", "position 7; a bracketed IPv6 address needs net6://"},
    {"net6://::1", "position 8; expected a host; put an IPv6 address in brackets"},
    {"net6://[::1", "ends at position 12; expected ']'"},
    {"net6://[::g]", "unexpected 'g' at position 11"},
    {"net6://[1:2]", "position 9; this is not an IPv6 address"},
    {"net6://10.0.0.1", "an IPv4 address needs net://"},
    {"tcp://host:1:2", "position 13; expected the end after the port"},
    {"file://relative", "position 8; file:// takes an absolute path"},
    {"file:///a/../b", "contains '..'"},
    /* net+ssh://: nothing of it may become an option of ssh */
    {"net+ssh://", "ends at position 11; expected a host"},
    {"net+ssh://-oProxyCommand=x", "position 11; a host name label cannot start with '-'"},
    {"net+ssh://-oProxyCommand=x@h", "position 11; an SSH login cannot start with '-'"},
    {"net+ssh://u@-h", "position 13; a host name label cannot start with '-'"},
    {"net+ssh://@h", "position 11; an SSH login is 1 to 32 characters"},
    {"net+ssh://a b@h", "unexpected ' ' at position 12; an SSH login is made of"},
    {"net+ssh://u$@h", "unexpected '$' at position 12; an SSH login is made of"},
    {"net+ssh://u@v@h", "unexpected '@' at position 14; a host name has letters"},
    {"net+ssh://u@h%eth0", "unexpected '%' at position 14"},
    {"net+ssh://h:5342:5343", "position 17; the port after the host is SSH's; the relay's "
			      "ports follow a '/'"},
    {"net+ssh://h:0", "position 13; a port lies between 1 and 65535"},
    {"net+ssh://h:22x", "unexpected 'x' at position 15; a port has only digits"},
    {"net+ssh://h/1:2:3", "unexpected ':' at position 16; expected the end after the data"},
    {"net+ssh://h/1:2/x", "unexpected '/' at position 16; a port has only digits"},
    {"net+ssh://h/5342:5342", "the control and data ports must differ"},
    {"net+ssh://h/x", "unexpected 'x' at position 13; expected a port number"},
    {"net+ssh://[::1", "ends at position 15; expected ']'"},
};

static void
test_bad(void)
{
	for (guint i = 0; i < G_N_ELEMENTS(bad_urls); i++) {
		g_autoptr(GError) error = NULL;
		g_auto(TcRelayUrl) url = {0};
		g_autofree char *shown = g_strescape(bad_urls[i].url, NULL);

		g_test_message("URL '%s'", shown);
		g_assert_false(tc_relay_url_parse(bad_urls[i].url, &url, &error));
		g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
		g_assert_nonnull(strstr(error->message, bad_urls[i].message));
		/* The message names the URL as given. */
		g_assert_nonnull(strstr(error->message, shown));
		g_assert_null(url.host);
	}
}

static void
test_host_lengths(void)
{
	g_autoptr(GError) error = NULL;
	g_auto(TcRelayUrl) url = {0};
	g_autofree char *label63 = g_strnfill(63, 'a');
	g_autofree char *label64 = g_strnfill(64, 'a');
	g_autofree char *label61 = g_strnfill(61, 'b');
	g_autofree char *ok =
	    g_strdup_printf("net://%s.%s.%s.%s", label63, label63, label63, label61);
	g_autofree char *long_label = g_strdup_printf("net://%s", label64);
	g_autofree char *long_host = g_strdup_printf("%s2", ok);
	g_autofree char *huge = g_strnfill(TC_RELAY_URL_MAX + 1, 'a');

	g_assert_cmpuint(strlen(ok) - strlen("net://"), ==, 253);
	g_assert_true(tc_relay_url_parse(ok, &url, &error));
	g_assert_no_error(error);
	g_assert_false(tc_relay_url_parse(long_label, &url, &error));
	g_assert_nonnull(strstr(error->message, "position 70; a host name label has at most 63"));
	g_clear_error(&error);
	g_assert_false(tc_relay_url_parse(long_host, &url, &error));
	g_assert_nonnull(strstr(error->message, "position 260; a host name has at most 253"));
	g_clear_error(&error);
	g_assert_false(tc_relay_url_parse(huge, &url, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
	g_assert_nonnull(strstr(error->message, "at most 1024"));
}

/* An SSH login of 32 characters, as useradd allows, and not one more. */
static void
test_ssh_user_length(void)
{
	g_autoptr(GError) error = NULL;
	g_auto(TcRelayUrl) url = {0};
	g_autofree char *login32 = g_strnfill(32, 'u');
	g_autofree char *ok = g_strdup_printf("net+ssh://%s@h", login32);
	g_autofree char *too_long = g_strdup_printf("net+ssh://%su@h", login32);

	g_assert_true(tc_relay_url_parse(ok, &url, &error));
	g_assert_no_error(error);
	g_assert_cmpstr(url.user, ==, login32);
	g_assert_false(tc_relay_url_parse(too_long, &url, &error));
	g_assert_nonnull(strstr(error->message, "position 43; an SSH login is 1 to 32"));
}

static void
test_output_set_url(void)
{
	g_autoptr(GError) error = NULL;
	struct tc_consumer_relay_output relay = {0};
	g_autofree char *directory = NULL;
	g_autofree char *canonical = NULL;

	g_assert_true(tc_relay_url_parse_output("net://relay:6000", NULL, NULL, 1000000, &relay,
						&directory, &error));
	g_assert_no_error(error);
	g_assert_null(directory);
	g_assert_cmpstr(relay.host, ==, "relay");
	g_assert_cmpuint(relay.family, ==, AF_INET);
	g_assert_cmpuint(relay.control_port, ==, 6000);
	g_assert_cmpuint(relay.data_port, ==, 5343);
	g_assert_cmpuint(relay.live_timer_us, ==, 1000000);
	canonical = tc_relay_url_format_output(&relay);
	g_assert_cmpstr(canonical, ==, "net://relay:6000:5343");
	g_clear_pointer(&canonical, g_free);

	memset(&relay, 0, sizeof(relay));
	g_assert_true(
	    tc_relay_url_parse_output("net6://[::1]", NULL, NULL, 0, &relay, &directory, &error));
	canonical = tc_relay_url_format_output(&relay);
	g_assert_cmpstr(canonical, ==, "net6://[::1]:5342:5343");

	g_assert_true(tc_relay_url_parse_output("file:///var/tmp/t", NULL, NULL, 0, &relay,
						&directory, &error));
	g_assert_cmpstr(directory, ==, "/var/tmp/t");
	g_assert_no_error(error);
}

/* What the consumer is given of a net+ssh:// URL, and its canonical form,
 * which names the login and SSH port only when the URL does: otherwise
 * the owner's ssh configuration decides them. */
static void
test_output_ssh(void)
{
	static const struct {
		const char *url, *canonical;
	} cases[] = {
	    {"net+ssh://relay", "net+ssh://relay/5342:5343"},
	    {"net+ssh://t@relay:2222/6000", "net+ssh://t@relay:2222/6000:5343"},
	    {"net+ssh://[fe80::1]/1:2", "net+ssh://[fe80::1]/1:2"},
	};

	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GError) error = NULL;
		struct tc_consumer_relay_output relay = {0}, again = {0};
		g_autofree char *directory = NULL, *canonical = NULL, *reformatted = NULL;

		g_assert_true(tc_relay_url_parse_output(cases[i].url, NULL, NULL, 1000000, &relay,
							&directory, &error));
		g_assert_no_error(error);
		g_assert_null(directory);
		g_assert_true(relay.flags & TC_CONSUMER_RELAY_SSH);
		g_assert_cmpuint(relay.family, ==, AF_UNSPEC);
		g_assert_cmpuint(relay.live_timer_us, ==, 1000000);
		canonical = tc_relay_url_format_output(&relay);
		g_assert_cmpstr(canonical, ==, cases[i].canonical);
		/* The canonical form reads back the same (snapshots re-read it). */
		g_assert_true(tc_relay_url_parse_output(canonical, NULL, NULL, 1000000, &again,
							&directory, &error));
		g_assert_cmpmem(&relay, sizeof(relay), &again, sizeof(again));
		reformatted = tc_relay_url_format_output(&again);
		g_assert_cmpstr(reformatted, ==, canonical);
	}
}

static void
test_output_pair(void)
{
	g_autoptr(GError) error = NULL;
	struct tc_consumer_relay_output relay = {0};
	g_autofree char *directory = NULL;

	g_assert_true(tc_relay_url_parse_output(NULL, "tcp://relay", "tcp://relay:7000", 0, &relay,
						&directory, &error));
	g_assert_no_error(error);
	g_assert_cmpstr(relay.host, ==, "relay");
	g_assert_cmpuint(relay.control_port, ==, 5342);
	g_assert_cmpuint(relay.data_port, ==, 7000);
	g_assert_true(tc_relay_url_parse_output(NULL, "tcp6://[::1]:1", "tcp6://[::1]", 0, &relay,
						&directory, &error));
	g_assert_cmpuint(relay.family, ==, AF_INET6);
	g_assert_cmpuint(relay.data_port, ==, 5343);
	g_assert_no_error(error);
}

static const struct {
	const char *set_url, *ctrl_url, *data_url;
	guint32 live_timer_us;
	const char *message;
} bad_outputs[] = {
    {"net://a", "tcp://a", "tcp://a", 0, "not both"},
    {NULL, "tcp://a", NULL, 0, "The control URL 'tcp://a' needs a data URL too"},
    {NULL, NULL, "tcp://a", 0, "The data URL 'tcp://a' needs a control URL too"},
    {NULL, "tcp://a", "tcp://b", 0, "must name the same host"},
    {NULL, "tcp://a", "tcp6://a", 0, "must name the same host"},
    {NULL, "tcp://a:9", "tcp://a:9", 0, "use the same port 9"},
    {NULL, "net://a", "tcp://a", 0, "take tcp:// or tcp6://"},
    {NULL, "net+ssh://a", "tcp://a", 0, "take tcp:// or tcp6://"},
    {NULL, "tcp://a", "tcp://a b", 0, "Data URL: Invalid URL 'tcp://a b'"},
    {"tcp://a", NULL, NULL, 0, "are for the control and data URLs"},
    {"file:///tmp/x", NULL, NULL, 1000000, "a live session streams to a relay"},
    {"net://a", NULL, NULL, 999, "live timer of 999 us is out of range"},
    {NULL, NULL, NULL, 0, "No output URL"},
};

static void
test_output_bad(void)
{
	for (guint i = 0; i < G_N_ELEMENTS(bad_outputs); i++) {
		g_autoptr(GError) error = NULL;
		struct tc_consumer_relay_output relay = {0};
		g_autofree char *directory = NULL;

		g_test_message("case %u", i);
		g_assert_false(tc_relay_url_parse_output(
		    bad_outputs[i].set_url, bad_outputs[i].ctrl_url, bad_outputs[i].data_url,
		    bad_outputs[i].live_timer_us, &relay, &directory, &error));
		g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
		g_assert_nonnull(strstr(error->message, bad_outputs[i].message));
		g_assert_null(directory);
	}
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/relay-url/net", test_net);
	g_test_add_func("/tracectl/relay-url/ssh", test_ssh);
	g_test_add_func("/tracectl/relay-url/ssh-user-length", test_ssh_user_length);
	g_test_add_func("/tracectl/relay-url/tcp-and-file", test_tcp_and_file);
	g_test_add_func("/tracectl/relay-url/bad", test_bad);
	g_test_add_func("/tracectl/relay-url/host-lengths", test_host_lengths);
	g_test_add_func("/tracectl/relay-url/output-set-url", test_output_set_url);
	g_test_add_func("/tracectl/relay-url/output-ssh", test_output_ssh);
	g_test_add_func("/tracectl/relay-url/output-pair", test_output_pair);
	g_test_add_func("/tracectl/relay-url/output-bad", test_output_bad);
	return g_test_run();
}
