/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tunnel of a relay reached through ssh (net+ssh://,
 * tc-consumerd-tunnel.h). A creation waits for it within its deadline; a
 * reconnection's probe makes it without waiting, looked at each tick. It
 * is dropped with every connection lost or not made, so that the next
 * one goes through a new ssh: one whose connection to the server died
 * without a word (a network gone, a server rebooted) would otherwise be
 * tried for ever. What ssh said on its way out, or of the forward it
 * could not make, is the loss's reason.
 */
#include "tc-consumerd-relay.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tc-consumerd-cpu.h"
#include "tc-consumerd-relay-private.h"
#include "tc-consumerd-tunnel.h"
#include "tc-rb.h"

/* A tunnel made so far is looked at this often while a creation waits. */
#define OPEN_POLL_NS 5000000L

static int
tunnel_start(struct tc_consumerd_relay *relay)
{
	const struct tc_consumerd_tunnel_spec spec = {
	    .host = relay->out.host,
	    .user = relay->out.ssh_user,
	    .port = relay->out.ssh_port,
	    .control_port = relay->out.control_port,
	    .data_port = relay->out.data_port,
	    .prefer_aes_gcm = tc_consumerd_cpu_has_aes(),
	};
	int ret = tc_consumerd_tunnel_start(&spec, &relay->tunnel);

	if (ret < 0) {
		relay->tunnel = NULL;
		snprintf(relay->reason, sizeof(relay->reason), "cannot run ssh: %s",
			 strerror(-ret));
	}
	return ret;
}

/* The tunnel failed with err (-ETIMEDOUT: not listening after timeout_ms):
 * ssh's words, or the timeout, become the reason, and it is dropped. */
static int
tunnel_failed(struct tc_consumerd_relay *relay, int err, int timeout_ms)
{
	const char *reason = tc_consumerd_tunnel_reason(relay->tunnel);

	if (*reason)
		snprintf(relay->reason, sizeof(relay->reason), "%s", reason);
	else
		snprintf(relay->reason, sizeof(relay->reason),
			 "ssh did not open the tunnel within %d s", (timeout_ms + 999) / 1000);
	tc_consumerd_tunnel_stop(relay->tunnel);
	relay->tunnel = NULL;
	return err;
}

int
tc_consumerd_relay_ssh_open(struct tc_consumerd_relay *relay, uint64_t deadline)
{
	const struct timespec interval = {.tv_sec = 0, .tv_nsec = OPEN_POLL_NS};
	uint64_t start = tc_rb_clock_now();
	int ret = tunnel_start(relay);

	if (ret < 0)
		return ret;
	while ((ret = tc_consumerd_tunnel_check(relay->tunnel)) == 0 && tc_rb_clock_now() < deadline)
		nanosleep(&interval, NULL);
	if (ret == 1)
		return 0;
	return tunnel_failed(relay, ret == 0 ? -ETIMEDOUT : ret,
			     (int)((deadline - start) / 1000000u));
}

int
tc_consumerd_relay_ssh_step(struct tc_consumerd_relay *relay, uint64_t now)
{
	int ret;

	if (!relay->tunnel) {
		ret = tunnel_start(relay);
		if (ret < 0)
			return ret;
		relay->tunnel_deadline = now + CONSUMERD_RELAY_SSH_TIMEOUT_MS * 1000000ull;
	}
	ret = tc_consumerd_tunnel_check(relay->tunnel);
	if (ret == 0 && now >= relay->tunnel_deadline)
		ret = -ETIMEDOUT;
	return ret < 0 ? tunnel_failed(relay, ret, CONSUMERD_RELAY_SSH_TIMEOUT_MS) : ret;
}

bool
tc_consumerd_relay_ssh_watch(struct tc_consumerd_relay *relay)
{
	return !relay->tunnel || tc_consumerd_tunnel_check(relay->tunnel) >= 0;
}

void
tc_consumerd_relay_ssh_drop(struct tc_consumerd_relay *relay)
{
	const char *reason;

	if (!relay->tunnel)
		return;
	/* "" when ssh runs and said nothing: then the errno says it all. */
	reason = tc_consumerd_tunnel_reason(relay->tunnel);
	snprintf(relay->reason, sizeof(relay->reason), "%s", reason);
	tc_consumerd_tunnel_stop(relay->tunnel);
	relay->tunnel = NULL;
}
