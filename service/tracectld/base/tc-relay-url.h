/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-consumer-abi.h"

/*
 * The output URLs of a session, in the forms `lttng create` accepts:
 *   file://PATH                          a local directory (absolute PATH)
 *   net://HOST[:CTRL[:DATA]]             lttng-relayd over IPv4
 *   net6://HOST|[ADDR][:CTRL[:DATA]]     lttng-relayd over IPv6
 *   tcp://HOST[:PORT], tcp6://...        one path (--ctrl-url, --data-url)
 *   net+ssh://[USER@]HOST[:SSH_PORT][/[CTRL[:DATA]]]
 *                                        lttng-relayd on HOST's loopback,
 *                                        through an SSH tunnel
 * Ports default to lttng-relayd's (5342 control, 5343 data). The service
 * only checks the text: the owner's consumer resolves the host and opens
 * the connections (net+ssh://: runs the owner's ssh, which resolves HOST,
 * and USER and SSH_PORT default to the owner's ssh configuration). In
 * net+ssh://, the authority is an ssh:// URI's, so the port after the
 * host is SSH's and the relay's ports follow a '/'. Every refusal is an
 * InvalidArgument naming the URL and, where one character is at fault,
 * its position (1 is the first).
 */

#define TC_RELAY_DEFAULT_CONTROL_PORT 5342
#define TC_RELAY_DEFAULT_DATA_PORT 5343
#define TC_RELAY_URL_MAX 1024
/* What `lttng create --live` streams to when given no URL. */
#define TC_RELAY_LIVE_DEFAULT_URL "net://127.0.0.1"

typedef enum {
	TC_RELAY_URL_FILE, /* file:// */
	TC_RELAY_URL_NET,  /* net://, net6://: control and data ports */
	TC_RELAY_URL_TCP,  /* tcp://, tcp6://: one port */
	TC_RELAY_URL_SSH,  /* net+ssh://: control and data ports, through SSH */
} TcRelayUrlKind;

typedef struct {
	TcRelayUrlKind kind;
	int family;	      /* AF_INET or AF_INET6; AF_UNSPEC for file:// and net+ssh:// */
	char *host;	      /* name or numeric address, brackets removed; NULL for file:// */
	char *path;	      /* file:// only */
	char *user;	      /* net+ssh:// only, NULL when not given */
	guint16 control_port; /* net: control; tcp: the port, 0 when not given */
	guint16 data_port;    /* net and net+ssh only */
	guint16 ssh_port;     /* net+ssh:// only, 0 when not given */
} TcRelayUrl;

void tc_relay_url_clear(TcRelayUrl *url);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(TcRelayUrl, tc_relay_url_clear)

/* Parses text in any of the forms above into url (cleared first). */
gboolean tc_relay_url_parse(const char *text, TcRelayUrl *url, GError **error);

/*
 * A session's output from its options: either set_url alone (file://,
 * net://, net6://), or ctrl_url and data_url together (tcp://, tcp6://,
 * the same host). A file:// URL sets *directory and leaves relay alone; a
 * relay URL fills the host, family and ports of relay and sets *directory
 * to NULL. live_timer_us (0: not live) needs a relay and must lie within
 * the consumer's timer bounds.
 */
gboolean tc_relay_url_parse_output(const char *set_url, const char *ctrl_url, const char *data_url,
				   guint32 live_timer_us, struct tc_consumer_relay_output *relay,
				   char **directory, GError **error);

/* The canonical URL of a relay output: "net://HOST:CTRL:DATA",
 * "net6://[ADDR]:CTRL:DATA" or "net+ssh://[USER@]HOST[:SSH_PORT]/CTRL:DATA"
 * (the login and SSH port only when given). */
char *tc_relay_url_format_output(const struct tc_consumer_relay_output *relay);

/*
 * The relay files a session's trace under <hostname>/<session>-<creation
 * time>, and live viewers find it by host and session name: the service
 * names the machine (gethostname()), so that a consumer (run by the user)
 * cannot. FAILED when the machine has no usable host name.
 */
gboolean tc_relay_url_identify(struct tc_consumer_relay_output *relay, const char *session_name,
			       gint64 creation_time_s, GError **error);
