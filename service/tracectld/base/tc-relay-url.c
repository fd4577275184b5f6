/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Session output URLs, checked as strictly as names from D-Bus callers. */
#define G_LOG_DOMAIN "tracectld-url"

#include "tc-relay-url.h"

#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tc-error.h"
#include "tc-ssh-names.h"
#include "tc-validate.h"

/* RFC 1123 host names: labels of 1..63 letters, digits and '-', not
 * starting or ending with '-', at most 253 characters in all. */
#define HOST_NAME_MAX_CHARS 253
#define HOST_LABEL_MAX_CHARS 63
#define PORT_MAX_DIGITS 5

void
tc_relay_url_clear(TcRelayUrl *url)
{
	g_clear_pointer(&url->host, g_free);
	g_clear_pointer(&url->path, g_free);
	g_clear_pointer(&url->user, g_free);
	memset(url, 0, sizeof(*url));
}

/* Refuses text because of the character at offset: the message names the
 * URL, the character and its position (1 is the first). */
static gboolean
fail_at(const char *text, const char *at, const char *why, GError **error)
{
	g_autofree char *shown = g_strescape(text, NULL);
	size_t position = (size_t)(at - text) + 1;

	if (*at == '\0')
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "Invalid URL '%s': it ends at position %zu; %s", shown, position, why);
	else if (g_ascii_isprint(*at))
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "Invalid URL '%s': unexpected '%c' at position %zu; %s", shown, *at,
			    position, why);
	else
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "Invalid URL '%s': unexpected byte 0x%02x at position %zu; %s", shown,
			    (unsigned char)*at, position, why);
	return FALSE;
}

static gboolean
fail(const char *text, const char *why, GError **error)
{
	g_autofree char *shown = g_strescape(text, NULL);

	g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT, "Invalid URL '%s': %s", shown, why);
	return FALSE;
}

static gboolean
is_host_char(char c)
{
	return g_ascii_isalnum(c) || c == '-' || c == '.';
}

/* Whether c ends the host: ':' before a port, and in net+ssh:// the
 * '/' before the relay's ports. */
static gboolean
ends_host(const TcRelayUrl *url, char c)
{
	return c == '\0' || c == ':' || (c == '/' && url->kind == TC_RELAY_URL_SSH);
}

/* A host name or dotted IPv4 address at *p, up to ':' or the end. */
static gboolean
parse_host_name(const char *text, const char **p, TcRelayUrl *url, GError **error)
{
	const char *start = *p, *label = *p, *q;

	for (q = start; !ends_host(url, *q); q++) {
		if (!is_host_char(*q))
			return fail_at(text, q,
				       *q == '/' ? "tracectl does not send a trace directory to "
						   "the relay daemon: end the URL after the ports"
						 : "a host name has letters, digits, '-' and '.'",
				       error);
		if (*q == '.') {
			if (q == label || q[-1] == '-')
				return fail_at(text, q, "a host name label is empty or ends in '-'",
					       error);
			label = q + 1;
		} else if (q == label && *q == '-') {
			return fail_at(text, q, "a host name label cannot start with '-'", error);
		} else if (q - label >= HOST_LABEL_MAX_CHARS) {
			return fail_at(text, q, "a host name label has at most 63 characters",
				       error);
		}
	}
	if (q == start)
		return fail_at(text, q,
			       url->family == AF_INET6 && *q == ':'
				   ? "expected a host; put an IPv6 address in brackets"
				   : "expected a host",
			       error);
	if (q - start > HOST_NAME_MAX_CHARS)
		return fail_at(text, start + HOST_NAME_MAX_CHARS,
			       "a host name has at most 253 characters", error);
	if (q[-1] == '-')
		return fail_at(text, q - 1, "a host name cannot end with '-'", error);
	url->host = g_strndup(start, q - start);
	*p = q;
	return TRUE;
}

/* "[ADDR]" at *p: a numeric IPv6 address, net6:// and tcp6:// only. */
static gboolean
parse_bracketed_address(const char *text, const char **p, TcRelayUrl *url, GError **error)
{
	const char *start = *p + 1, *q;
	struct in6_addr address;

	if (url->family != AF_INET6 && url->kind != TC_RELAY_URL_SSH)
		return fail_at(text, *p, "a bracketed IPv6 address needs net6:// or tcp6://",
			       error);
	for (q = start; *q && *q != ']'; q++)
		if (!g_ascii_isxdigit(*q) && *q != ':' && *q != '.')
			return fail_at(text, q, "an IPv6 address has hex digits, ':' and '.'",
				       error);
	if (*q != ']')
		return fail_at(text, q, "expected ']' after the IPv6 address", error);
	if (q - start >= INET6_ADDRSTRLEN)
		return fail_at(text, start, "the IPv6 address is too long", error);
	url->host = g_strndup(start, q - start);
	if (inet_pton(AF_INET6, url->host, &address) != 1)
		return fail_at(text, start, "this is not an IPv6 address", error);
	*p = q + 1;
	return TRUE;
}

/* A decimal port 1..65535 at *p, up to ':' or the end (or '/', with
 * slash_ends: net+ssh://'s SSH port). */
static gboolean
parse_port(const char *text, const char **p, gboolean slash_ends, guint16 *port, GError **error)
{
	const char *q;
	guint value = 0;

	for (q = *p; g_ascii_isdigit(*q); q++) {
		if (q - *p >= PORT_MAX_DIGITS)
			return fail_at(text, *p, "a port lies between 1 and 65535", error);
		value = value * 10 + (guint)(*q - '0');
	}
	if (q == *p)
		return fail_at(text, q, "expected a port number", error);
	if (*q != '\0' && *q != ':' && !(slash_ends && *q == '/'))
		return fail_at(text, q, "a port has only digits", error);
	if (value == 0 || value > G_MAXUINT16)
		return fail_at(text, *p, "a port lies between 1 and 65535", error);
	*port = (guint16)value;
	*p = q;
	return TRUE;
}

static gboolean
parse_network(const char *text, const char *rest, TcRelayUrl *url, GError **error)
{
	const char *p = rest;
	struct in_addr ipv4;

	if (*p == '[' ? !parse_bracketed_address(text, &p, url, error)
		      : !parse_host_name(text, &p, url, error))
		return FALSE;
	if (url->family == AF_INET6 && *rest != '[' && inet_pton(AF_INET, url->host, &ipv4) == 1)
		return fail_at(text, rest, "an IPv4 address needs net:// or tcp://", error);
	if (url->kind == TC_RELAY_URL_NET) {
		url->control_port = TC_RELAY_DEFAULT_CONTROL_PORT;
		url->data_port = TC_RELAY_DEFAULT_DATA_PORT;
	}
	if (*p == ':') {
		p++;
		if (!parse_port(text, &p, FALSE, &url->control_port, error))
			return FALSE;
	}
	if (*p == ':' && url->kind == TC_RELAY_URL_NET) {
		p++;
		if (!parse_port(text, &p, FALSE, &url->data_port, error))
			return FALSE;
	}
	if (*p != '\0')
		return fail_at(text, p,
			       url->kind == TC_RELAY_URL_NET
				   ? "expected the end after the data port"
				   : "expected the end after the port",
			       error);
	if (url->kind == TC_RELAY_URL_NET && url->control_port == url->data_port)
		return fail(text, "the control and data ports must differ", error);
	return TRUE;
}

/* "USER@" at *p, when the authority has one: the login on the SSH
 * server, of tc-ssh-names.h's alphabet. */
static gboolean
parse_ssh_user(const char *text, const char **p, TcRelayUrl *url, GError **error)
{
	const char *at = *p + strcspn(*p, "@/"), *why;
	size_t position;

	if (*at != '@')
		return TRUE;
	why = tc_ssh_names_check_user(*p, (size_t)(at - *p), &position);
	if (why)
		return fail_at(text, *p + position, why, error);
	url->user = g_strndup(*p, at - *p);
	*p = at + 1;
	return TRUE;
}

/* The relay's ports after net+ssh://'s '/': CTRL[:DATA], or nothing. */
static gboolean
parse_ssh_relay_ports(const char *text, const char **p, TcRelayUrl *url, GError **error)
{
	if (**p == '\0')
		return TRUE;
	if (!parse_port(text, p, FALSE, &url->control_port, error))
		return FALSE;
	if (**p != ':')
		return TRUE;
	(*p)++;
	return parse_port(text, p, FALSE, &url->data_port, error);
}

/* net+ssh://[USER@]HOST[:SSH_PORT][/[CTRL[:DATA]]]: the authority is an
 * ssh:// URI's, the relay's ports (on HOST's loopback) follow a '/'. */
static gboolean
parse_ssh(const char *text, const char *rest, TcRelayUrl *url, GError **error)
{
	const char *p = rest;

	if (!parse_ssh_user(text, &p, url, error) ||
	    (*p == '[' ? !parse_bracketed_address(text, &p, url, error)
		       : !parse_host_name(text, &p, url, error)))
		return FALSE;
	url->control_port = TC_RELAY_DEFAULT_CONTROL_PORT;
	url->data_port = TC_RELAY_DEFAULT_DATA_PORT;
	if (*p == ':') {
		p++;
		if (!parse_port(text, &p, TRUE, &url->ssh_port, error))
			return FALSE;
	}
	if (*p == ':')
		return fail_at(text, p,
			       "the port after the host is SSH's; the relay's ports follow a "
			       "'/', as in net+ssh://HOST/5342:5343",
			       error);
	if (*p == '/') {
		p++;
		if (!parse_ssh_relay_ports(text, &p, url, error))
			return FALSE;
	}
	if (*p != '\0')
		return fail_at(text, p, "expected the end after the data port", error);
	if (url->control_port == url->data_port)
		return fail(text, "the control and data ports must differ", error);
	return TRUE;
}

static gboolean
parse_file(const char *text, const char *rest, TcRelayUrl *url, GError **error)
{
	g_autoptr(GError) local_error = NULL;

	if (*rest != '/')
		return fail_at(text, rest,
			       "file:// takes an absolute path, as in file:///tmp/trace", error);
	if (!tc_validate_output_directory(rest, &local_error))
		return fail(text, local_error->message, error);
	url->path = g_strdup(rest);
	return TRUE;
}

static const struct {
	const char *prefix;
	TcRelayUrlKind kind;
	int family;
} schemes[] = {
    {"file://", TC_RELAY_URL_FILE, AF_UNSPEC}, {"net://", TC_RELAY_URL_NET, AF_INET},
    {"net6://", TC_RELAY_URL_NET, AF_INET6},   {"tcp://", TC_RELAY_URL_TCP, AF_INET},
    {"tcp6://", TC_RELAY_URL_TCP, AF_INET6},   {"net+ssh://", TC_RELAY_URL_SSH, AF_UNSPEC},
};

/* The part after the scheme, as the scheme reads it. */
static gboolean
parse_rest(const char *text, const char *rest, TcRelayUrl *url, GError **error)
{
	switch (url->kind) {
	case TC_RELAY_URL_FILE:
		return parse_file(text, rest, url, error);
	case TC_RELAY_URL_SSH:
		return parse_ssh(text, rest, url, error);
	default:
		return parse_network(text, rest, url, error);
	}
}

gboolean
tc_relay_url_parse(const char *text, TcRelayUrl *url, GError **error)
{
	g_return_val_if_fail(text != NULL && url != NULL, FALSE);

	tc_relay_url_clear(url);
	if (strlen(text) > TC_RELAY_URL_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "The URL is %zu characters long, at most %d are allowed", strlen(text),
			    TC_RELAY_URL_MAX);
		return FALSE;
	}
	for (guint i = 0; i < G_N_ELEMENTS(schemes); i++) {
		const char *rest;

		if (!g_str_has_prefix(text, schemes[i].prefix))
			continue;
		rest = text + strlen(schemes[i].prefix);
		url->kind = schemes[i].kind;
		url->family = schemes[i].family;
		if (parse_rest(text, rest, url, error))
			return TRUE;
		tc_relay_url_clear(url);
		return FALSE;
	}
	return fail(text, "expected file://, net://, net6://, net+ssh://, tcp:// or tcp6://", error);
}

static gboolean
parse_as(const char *what, const char *text, TcRelayUrlKind kind, TcRelayUrl *url, GError **error)
{
	if (!tc_relay_url_parse(text, url, error)) {
		if (what != NULL)
			g_prefix_error(error, "%s: ", what);
		return FALSE;
	}
	if (url->kind == TC_RELAY_URL_TCP && kind != TC_RELAY_URL_TCP)
		return fail(text,
			    "tcp:// and tcp6:// are for the control and data URLs; use "
			    "net:// or net6:// for both",
			    error);
	if (url->kind != TC_RELAY_URL_TCP && kind == TC_RELAY_URL_TCP)
		return fail(text, "the control and data URLs take tcp:// or tcp6://", error);
	return TRUE;
}

static gboolean
fill_relay(const char *text, const TcRelayUrl *url, guint16 control_port, guint16 data_port,
	   struct tc_consumer_relay_output *relay, GError **error)
{
	if (g_strlcpy(relay->host, url->host, sizeof(relay->host)) >= sizeof(relay->host))
		return fail(text, "the host is too long", error);
	relay->family = (guint32)url->family;
	relay->control_port = control_port;
	relay->data_port = data_port;
	if (url->kind == TC_RELAY_URL_SSH) {
		relay->flags |= TC_CONSUMER_RELAY_SSH;
		g_strlcpy(relay->ssh_user, url->user ? url->user : "", sizeof(relay->ssh_user));
		relay->ssh_port = url->ssh_port;
	}
	return TRUE;
}

/* ctrl_url and data_url, both tcp:// or both tcp6://, to the same host. */
static gboolean
relay_from_pair(const char *ctrl_url, const char *data_url, struct tc_consumer_relay_output *relay,
		GError **error)
{
	g_auto(TcRelayUrl) control = {0};
	g_auto(TcRelayUrl) data = {0};

	if (!parse_as("Control URL", ctrl_url, TC_RELAY_URL_TCP, &control, error) ||
	    !parse_as("Data URL", data_url, TC_RELAY_URL_TCP, &data, error))
		return FALSE;
	if (control.family != data.family || g_ascii_strcasecmp(control.host, data.host) != 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "The control URL '%s' and the data URL '%s' must name the same host "
			    "the same way",
			    ctrl_url, data_url);
		return FALSE;
	}
	if (control.control_port == 0)
		control.control_port = TC_RELAY_DEFAULT_CONTROL_PORT;
	if (data.control_port == 0)
		data.control_port = TC_RELAY_DEFAULT_DATA_PORT;
	if (control.control_port == data.control_port) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "The control URL '%s' and the data URL '%s' use the same port %u",
			    ctrl_url, data_url, control.control_port);
		return FALSE;
	}
	return fill_relay(ctrl_url, &control, control.control_port, data.control_port, relay,
			  error);
}

static gboolean
check_live_timer(guint32 live_timer_us, GError **error)
{
	if (live_timer_us != 0 && (live_timer_us < TC_CONSUMER_TIMER_MIN_US ||
				   live_timer_us > TC_CONSUMER_TIMER_MAX_US)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "The live timer of %u us is out of range (%u to %u us)", live_timer_us,
			    TC_CONSUMER_TIMER_MIN_US, TC_CONSUMER_TIMER_MAX_US);
		return FALSE;
	}
	return TRUE;
}

gboolean
tc_relay_url_parse_output(const char *set_url, const char *ctrl_url, const char *data_url,
			  guint32 live_timer_us, struct tc_consumer_relay_output *relay,
			  char **directory, GError **error)
{
	g_auto(TcRelayUrl) url = {0};

	*directory = NULL;
	if (!check_live_timer(live_timer_us, error))
		return FALSE;
	if (set_url != NULL && (ctrl_url != NULL || data_url != NULL)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "Give either a URL ('%s') or control and data URLs, not both", set_url);
		return FALSE;
	}
	if ((ctrl_url == NULL) != (data_url == NULL)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "The %s URL '%s' needs a %s URL too", ctrl_url ? "control" : "data",
			    ctrl_url ? ctrl_url : data_url, ctrl_url ? "data" : "control");
		return FALSE;
	}
	relay->live_timer_us = live_timer_us;
	if (ctrl_url != NULL)
		return relay_from_pair(ctrl_url, data_url, relay, error);
	if (set_url == NULL) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT, "No output URL given");
		return FALSE;
	}
	if (!parse_as(NULL, set_url, TC_RELAY_URL_NET, &url, error))
		return FALSE;
	if (url.kind == TC_RELAY_URL_FILE) {
		if (live_timer_us != 0)
			return fail(set_url,
				    "a live session streams to a relay daemon: use net:// "
				    "or net6://",
				    error);
		*directory = g_steal_pointer(&url.path);
		return TRUE;
	}
	return fill_relay(set_url, &url, url.control_port, url.data_port, relay, error);
}

/* net+ssh://[USER@]HOST[:SSH_PORT]/CTRL:DATA, the login and SSH port
 * only when given: without them, the owner's ssh configuration decides. */
static char *
format_ssh(const struct tc_consumer_relay_output *relay)
{
	gboolean bracket = strchr(relay->host, ':') != NULL;
	g_autofree char *port =
	    relay->ssh_port ? g_strdup_printf(":%u", relay->ssh_port) : g_strdup("");

	return g_strdup_printf("net+ssh://%s%s%s%s%s%s/%u:%u", relay->ssh_user,
			       relay->ssh_user[0] ? "@" : "", bracket ? "[" : "", relay->host,
			       bracket ? "]" : "", port, relay->control_port, relay->data_port);
}

char *
tc_relay_url_format_output(const struct tc_consumer_relay_output *relay)
{
	gboolean ipv6 = relay->family == AF_INET6;
	gboolean bracket = ipv6 && strchr(relay->host, ':') != NULL;

	if (relay->flags & TC_CONSUMER_RELAY_SSH)
		return format_ssh(relay);
	return g_strdup_printf("%s://%s%s%s:%u:%u", ipv6 ? "net6" : "net", bracket ? "[" : "",
			       relay->host, bracket ? "]" : "", relay->control_port,
			       relay->data_port);
}

gboolean
tc_relay_url_identify(struct tc_consumer_relay_output *relay, const char *session_name,
		      gint64 creation_time_s, GError **error)
{
	char hostname[TC_CONSUMER_NAME_MAX] = {0};

	if (gethostname(hostname, sizeof(hostname) - 1) < 0 || hostname[0] == '\0' ||
	    strchr(hostname, '/') != NULL || g_str_equal(hostname, ".") ||
	    g_str_equal(hostname, "..")) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    "This machine has no host name the relay daemon can file a trace "
			    "under");
		return FALSE;
	}
	g_strlcpy(relay->hostname, hostname, sizeof(relay->hostname));
	g_strlcpy(relay->session_name, session_name, sizeof(relay->session_name));
	relay->creation_time = creation_time_s;
	return TRUE;
}
