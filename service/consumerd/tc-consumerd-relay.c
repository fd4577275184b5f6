/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-consumerd-relay.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "tc-consumerd-log.h"
#include "tc-consumerd-relay-held.h"
#include "tc-consumerd-relay-private.h"
#include "tc-consumerd-relay-wire.h"
#include "tc-consumerd-resolve.h"
#include "tc-consumerd-tunnel.h"
#include "tc-rb.h"

/* What a message naming the relay and why it failed takes at most. */
#define MESSAGE_MAX (CONSUMERD_RELAY_ADDRESS_MAX + CONSUMERD_RELAY_REASON_MAX + 160u)

/* The relay as a URL: net://HOST:CONTROL:DATA (net6://[HOST]:... for an
 * IPv6 address), or net+ssh://[USER@]HOST[:PORT]/CONTROL:DATA, the form a
 * user wrote it in. */
static void
relay_address(const struct tc_consumerd_relay *relay, char *buf, size_t size)
{
	bool is_ipv6 = strchr(relay->out.host, ':') != NULL;
	char port[8] = "";

	if (tc_consumerd_relay_is_ssh(relay)) {
		if (relay->out.ssh_port)
			snprintf(port, sizeof(port), ":%" PRIu16, relay->out.ssh_port);
		snprintf(buf, size, "net+ssh://%s%s%s%s%s%s/%" PRIu16 ":%" PRIu16,
			 relay->out.ssh_user, relay->out.ssh_user[0] ? "@" : "",
			 is_ipv6 ? "[" : "", relay->out.host, is_ipv6 ? "]" : "", port,
			 relay->out.control_port, relay->out.data_port);
		return;
	}
	snprintf(buf, size, "%s%s%s:%" PRIu16 ":%" PRIu16, is_ipv6 ? "net6://[" : "net://",
		 relay->out.host, is_ipv6 ? "]" : "", relay->out.control_port,
		 relay->out.data_port);
}

/* ---- connection state ---- */

static void
relay_disconnect(struct tc_consumerd_relay *relay)
{
	if (relay->control_fd >= 0)
		close(relay->control_fd);
	if (relay->data_fd >= 0)
		close(relay->data_fd);
	relay->control_fd = relay->data_fd = -1;
	relay->pending_replies = 0;
	relay->up = false;
	/* A new connection is a new relay session, without the old chunk. */
	relay->close_pending = false;
	for (struct tc_consumerd_relay_stream *s = relay->streams; s; s = s->next)
		s->added = false;
	/* The next connection goes through a new ssh. */
	tc_consumerd_relay_ssh_drop(relay);
}

/* Closes the connections a retry was making (relay_retry()). */
static void
probe_close(struct tc_consumerd_relay *relay)
{
	if (relay->probe_fd >= 0)
		close(relay->probe_fd);
	if (relay->probe_data_fd >= 0)
		close(relay->probe_data_fd);
	relay->probe_fd = relay->probe_data_fd = -1;
	relay->probe_asked = false;
}

/* An I/O error: the relay is down from now on, retried later. */
void
tc_consumerd_relay_fail(struct tc_consumerd_relay *relay, const char *what, int err)
{
	char address[CONSUMERD_RELAY_ADDRESS_MAX];
	uint64_t suppressed;

	relay_disconnect(relay);
	relay->last_error = err;
	/* Losses are counted from here, even before the first packet. */
	if (relay->lost_since == 0)
		relay->lost_since = (int64_t)time(NULL);
	relay->retry_interval = CONSUMERD_RELAY_RETRY_MIN_NS;
	relay->next_retry = tc_rb_clock_now() + relay->retry_interval;
	relay_address(relay, address, sizeof(address));
	if (tc_consumerd_log_ratelimit_check(&relay->down_limit, tc_rb_clock_now(), &suppressed))
		tc_consumerd_warning("session=%" PRIu64 ": Lost the relay at %s (%s: %s%s%s); "
				     "dropping packets until it is back",
				     relay->session_id, address, what, strerror(-err),
				     relay->reason[0] ? "; " : "", relay->reason);
}

/* Connects both ports (those whose fd is not -1 are connected already,
 * and owned from now on; with version_sent, the control connection's
 * VERSION command is sent), each connection made before deadline
 * (consumer clock); the handshake's replies then come within one I/O
 * timeout. */
static int
relay_connect(struct tc_consumerd_relay *relay, int control_fd, int data_fd, bool version_sent,
	      uint64_t deadline)
{
	int ret;

	ret =
	    control_fd >= 0
		? control_fd
		: tc_consumerd_relay_socket_connect_port(relay, relay->out.control_port, deadline);
	if (ret < 0) {
		if (data_fd >= 0)
			close(data_fd);
		return ret;
	}
	relay->control_fd = ret;
	ret = data_fd >= 0 ? data_fd : tc_consumerd_relay_socket_connect_data_port(relay, deadline);
	if (ret < 0)
		goto fail;
	relay->data_fd = ret;
	/* The handshake's replies, all within one I/O timeout. */
	relay->exchange_end = tc_rb_clock_now() + CONSUMERD_RELAY_IO_TIMEOUT_MS * 1000000ull;
	ret = version_sent ? tc_consumerd_relay_control_read_version(relay)
			   : tc_consumerd_relay_control_version(relay);
	if (ret == 0)
		ret = tc_consumerd_relay_control_create_session(relay);
	if (ret == 0)
		ret = tc_consumerd_relay_control_create_current_chunk(relay);
	relay->exchange_end = 0;
	if (ret < 0)
		goto fail;
	relay->up = relay->was_up = true;
	relay->reason[0] = '\0';
	return 0;

fail:
	relay_disconnect(relay);
	return ret;
}

/* Adds every stream again on a new connection and publishes them. The
 * commands go out together and their replies, STREAMS_SENT's included,
 * come within one I/O timeout in all: two round trips however many
 * streams, and a relay answering each just within the timeout cannot
 * hold the loop once per stream. */
static int
relay_add_all_streams(struct tc_consumerd_relay *relay)
{
	int ret = tc_consumerd_relay_control_drain_replies(relay, true);

	for (struct tc_consumerd_relay_stream *s = relay->streams; ret == 0 && s; s = s->next)
		ret = tc_consumerd_relay_announce_ask(relay, s);
	relay->exchange_end = tc_rb_clock_now() + CONSUMERD_RELAY_IO_TIMEOUT_MS * 1000000ull;
	for (struct tc_consumerd_relay_stream *s = relay->streams; ret == 0 && s; s = s->next)
		ret = tc_consumerd_relay_announce_answered(relay, s);
	if (ret == 0)
		ret = tc_consumerd_relay_control_generic(relay, TC_RELAY_STREAMS_SENT, NULL, 0);
	relay->exchange_end = 0;
	return ret;
}

/* A probe's connections, the relay's answer to VERSION waiting on
 * control_fd, become the relay's: the rest of the handshake within one
 * I/O timeout, then the streams within another (relay_add_all_streams()).
 * On failure they are closed. */
static int
relay_join(struct tc_consumerd_relay *relay, int control_fd, int data_fd)
{
	int ret = relay_connect(relay, control_fd, data_fd, true,
				tc_rb_clock_now() + CONSUMERD_RELAY_CONNECT_TIMEOUT_MS * 1000000ull);

	if (ret == 0)
		ret = relay_add_all_streams(relay);
	if (ret < 0)
		relay_disconnect(relay);
	return ret;
}

static void
relay_retry_later(struct tc_consumerd_relay *relay, uint64_t now)
{
	relay->retry_interval *= 2;
	if (relay->retry_interval > CONSUMERD_RELAY_RETRY_MAX_NS)
		relay->retry_interval = CONSUMERD_RELAY_RETRY_MAX_NS;
	relay->next_retry = now + relay->retry_interval;
}

/* control_fd, data_fd: the connections to both ports, made already, the
 * relay's answer to VERSION waiting on control_fd. */
static void
relay_reconnect(struct tc_consumerd_relay *relay, int control_fd, int data_fd, uint64_t now)
{
	char address[CONSUMERD_RELAY_ADDRESS_MAX];
	/* The first connection of a relay opened down names its streams as
	 * any first connection does: the relay has no earlier files of them. */
	bool again = relay->was_up;
	int ret;

	relay->generation += again;
	ret = relay_join(relay, control_fd, data_fd);
	if (ret < 0) {
		relay->last_error = ret;
		relay->generation -= again;
		relay_retry_later(relay, now);
		return;
	}
	relay_address(relay, address, sizeof(address));
	tc_consumerd_warning("session=%" PRIu64 ": The relay at %s is back; %" PRIu64
			     " packets were lost while it was away",
			     relay->session_id, address, relay->lost_packets);
}

/* The relay keys trace chunks by (uuid, session id): the traces of one
 * tracing session share the identity the service gave, so that they
 * share chunks; without one, any non-nil uuid of this connection's own. */
static void
set_identity(struct tc_consumerd_relay *relay, const struct tc_consumer_relay_output *out,
	     uint64_t session_id)
{
	static const uint8_t nil[16];

	if (memcmp(out->sessiond_uuid, nil, sizeof(nil)) != 0) {
		memcpy(relay->uuid, out->sessiond_uuid, sizeof(relay->uuid));
		relay->sessiond_session_id = out->sessiond_session_id;
		return;
	}
	relay->sessiond_session_id = session_id;
	if (getentropy(relay->uuid, sizeof(relay->uuid)) < 0)
		memcpy(relay->uuid, &session_id, sizeof(session_id));
	relay->uuid[6] = (relay->uuid[6] & 0x0f) | 0x40;
	relay->uuid[8] = (relay->uuid[8] & 0x3f) | 0x80;
}

/* A relay opened with TC_CONSUMER_RELAY_CONNECT_LATER that its first
 * probe did not reach (why names its URL): down from now, as after a
 * loss, so that the next connection is made by the same retries
 * (relay_retry()), and the loss shows the same way, in lost_since and
 * last_error, which the session's Problem is made of. Logged once: the
 * retries after it are not. */
static void
start_down(struct tc_consumerd_relay *relay, const char *why)
{
	relay->lost_since = (int64_t)time(NULL);
	relay->retry_interval = CONSUMERD_RELAY_RETRY_MIN_NS;
	relay->next_retry = tc_rb_clock_now() + relay->retry_interval;
	tc_consumerd_warning("session=%" PRIu64 ": %s; dropping packets until it answers, "
			     "retrying",
			     relay->session_id, why);
}

/* The message of a failed creation, naming the relay's URL. */
static void
open_error(const struct tc_consumerd_relay *relay, int err, char *error, size_t error_size)
{
	char address[CONSUMERD_RELAY_ADDRESS_MAX];

	relay_address(relay, address, sizeof(address));
	if (err == -EPROTONOSUPPORT)
		snprintf(error, error_size,
			 "The relay at %s does not speak LTTng's relay protocol 2.11 or later",
			 address);
	else if (err == -EPROTO)
		snprintf(error, error_size, "The relay at %s refused the session", address);
	else if (relay->reason[0])
		snprintf(error, error_size, "Cannot stream to the relay at %s: %s", address,
			 relay->reason);
	else
		snprintf(error, error_size, "Cannot stream to the relay at %s: %s", address,
			 strerror(-err));
}

/* The host's first lookup answered ret (0: not in time, -errno: failed):
 * writes why into error, ends the lookup unless it may still answer (for
 * the retries) and returns the error. */
static int
lookup_failure(struct tc_consumerd_relay *relay, int ret, char *error, size_t error_size)
{
	char address[CONSUMERD_RELAY_ADDRESS_MAX];

	relay_address(relay, address, sizeof(address));
	if (ret == 0) {
		snprintf(error, error_size,
			 "Cannot stream to the relay at %s: its host name %s did not resolve "
			 "within %d s",
			 address, relay->out.host, CONSUMERD_RELAY_RESOLVE_TIMEOUT_MS / 1000);
		return -ETIMEDOUT;
	}
	snprintf(error, error_size, "Cannot stream to the relay at %s: cannot resolve %s: %s",
		 address, relay->out.host, tc_consumerd_resolve_error(relay->lookup));
	tc_consumerd_resolve_free(relay->lookup);
	relay->lookup = NULL;
	return ret;
}

/*
 * Resolves the relay's host at creation, waiting up to
 * CONSUMERD_RELAY_RESOLVE_TIMEOUT_MS: the service waits for the reply (a
 * user's call; a relay opened with TC_CONSUMER_RELAY_CONNECT_LATER waits
 * for nothing, open_later()). On failure writes why into error.
 */
static int
resolve_at_open(struct tc_consumerd_relay *relay, char *error, size_t error_size)
{
	int ret;

	ret = tc_consumerd_resolve_start(relay->out.host, (int)relay->out.family, &relay->lookup);
	if (ret < 0) {
		open_error(relay, ret, error, error_size);
		return ret;
	}
	ret = tc_consumerd_resolve_wait(relay->lookup, CONSUMERD_RELAY_RESOLVE_TIMEOUT_MS);
	if (ret == 1) {
		relay->resolved = relay->lookup;
		relay->lookup = NULL;
		return 0;
	}
	return lookup_failure(relay, ret, error, error_size);
}

static void relay_retry(struct tc_consumerd_relay *relay, uint64_t now);

/* The first probe of a relay opened with TC_CONSUMER_RELAY_CONNECT_LATER
 * failed with err (why names the URL): the packets it held are lost, and
 * the relay is down as after a loss. */
static void
first_probe_failed(struct tc_consumerd_relay *relay, int err, const char *why)
{
	relay->first_probe = false;
	relay->last_error = err;
	tc_consumerd_relay_packet_held_drop_all(relay);
	start_down(relay, why);
}

/*
 * A relay opened with TC_CONSUMER_RELAY_CONNECT_LATER: sessions loaded
 * at the service's start, whose relay may come up after it, or sit
 * behind a firewall that drops connection requests, or be stopped
 * (accepting, never answering). The host's lookup is started without
 * waiting for it, and the first connection is made by the probe the
 * reconnections use, which never waits for the network (probe_step()):
 * its first step runs now, the rest at the next ticks. So a relay that
 * does not answer holds neither the creation nor the ticks, however many
 * such sessions load at once: the owner's other sessions are drained and
 * the owner's commands answered meanwhile. One that answered VERSION
 * has the rest of the exchange bounded as a reconnection's (relay_join()),
 * and a stop or flush waits for the first connection, bounded
 * (tc_consumerd_relay_wait_received()).
 */
static void
open_later(struct tc_consumerd_relay *relay)
{
	char why[MESSAGE_MAX];
	uint64_t now = tc_rb_clock_now();
	int ret = 0;

	/* ssh resolves the host of a relay reached through it. */
	if (!tc_consumerd_relay_is_ssh(relay))
		ret = tc_consumerd_resolve_start(relay->out.host, (int)relay->out.family,
						 &relay->lookup);
	if (ret < 0) {
		relay->lookup = NULL;
		open_error(relay, ret, why, sizeof(why));
		first_probe_failed(relay, ret, why);
		return;
	}
	relay->first_probe = true;
	relay->first_lookup_deadline = now + CONSUMERD_RELAY_RESOLVE_TIMEOUT_MS * 1000000ull;
	/* Doubled to the shortest interval by a probe that fails. */
	relay->retry_interval = CONSUMERD_RELAY_RETRY_MIN_NS / 2;
	relay_retry(relay, now);
}

static void
relay_free(struct tc_consumerd_relay *relay)
{
	tc_consumerd_resolve_free(relay->lookup);
	tc_consumerd_resolve_free(relay->resolved);
	tc_consumerd_tunnel_stop(relay->tunnel);
	free(relay);
}

/* ---- public ---- */

int
tc_consumerd_relay_open(const struct tc_consumer_relay_output *out, uint64_t session_id,
			struct tc_consumerd_relay **result, char *error, size_t error_size)
{
	struct tc_consumerd_relay *relay = calloc(1, sizeof(*relay));
	uint64_t deadline = tc_rb_clock_now() + CONSUMERD_RELAY_OPEN_TIMEOUT_MS * 1000000ull;
	int ret;

	if (!relay)
		return -ENOMEM;
	relay->out = *out;
	relay->out.host[sizeof(relay->out.host) - 1] = '\0';
	relay->session_id = session_id;
	relay->control_fd = relay->data_fd = relay->probe_fd = relay->probe_data_fd = -1;
	relay->chunk_id = out->chunk_id;
	relay->chunk_created = out->chunk_created > 0 ? out->chunk_created : out->creation_time;
	tc_consumerd_relay_held_init(&relay->held);
	set_identity(relay, out, session_id);
	if (out->flags & TC_CONSUMER_RELAY_CONNECT_LATER) {
		open_later(relay);
		*result = relay;
		return 0;
	}
	if (tc_consumerd_relay_is_ssh(relay)) {
		ret = tc_consumerd_relay_ssh_open(relay, deadline);
		if (ret < 0)
			open_error(relay, ret, error, error_size);
	} else {
		ret = resolve_at_open(relay, error, error_size);
	}
	if (ret == 0) {
		ret = relay_connect(relay, -1, -1, false, deadline);
		if (ret < 0)
			open_error(relay, ret, error, error_size);
	}
	if (ret < 0) {
		relay_free(relay);
		return ret;
	}
	*result = relay;
	return 0;
}

/* ---- packets held during the first connection ---- */

/* Sends the held packets, in order, now that the relay is connected; a
 * failure makes the rest count as lost (tc_consumerd_relay_send_packet()). */
static void
held_send_all(struct tc_consumerd_relay *relay)
{
	struct tc_consumerd_held_packet *held = tc_consumerd_relay_held_take(&relay->held, NULL);

	while (held) {
		struct tc_consumerd_held_packet *next = held->next;

		if (tc_consumerd_relay_send_packet(relay, held->stream, held->data, held->size) ==
		    0)
			__atomic_fetch_add(&held->stream->held_sent, 1, __ATOMIC_RELAXED);
		else
			__atomic_fetch_add(&held->stream->held_lost, 1, __ATOMIC_RELAXED);
		free(held);
		held = next;
	}
}

static void
close_stream_on_relay(struct tc_consumerd_relay *relay, struct tc_consumerd_relay_stream *stream)
{
	struct tc_relay_stream_seq msg = {
	    .stream_id = htobe64(stream->handle),
	    .last_net_seq_num = htobe64(stream->net_seq - 1), /* UINT64_MAX when none */
	};
	int ret;

	if (!relay->up || !stream->added)
		return;
	ret = tc_consumerd_relay_control_generic(relay, TC_RELAY_CLOSE_STREAM, &msg, sizeof(msg));
	if (ret < 0)
		tc_consumerd_relay_fail(relay, "closing a stream", ret);
	stream->added = false;
}

void
tc_consumerd_relay_give_up_first_connection(struct tc_consumerd_relay *relay)
{
	if (!relay || !relay->first_probe)
		return;
	probe_close(relay);
	relay->first_probe = false;
	tc_consumerd_relay_packet_held_drop_all(relay);
}

void
tc_consumerd_relay_close(struct tc_consumerd_relay *relay)
{
	if (!relay)
		return;
	/* Its streams are gone already, and what they held with them. */
	tc_consumerd_relay_give_up_first_connection(relay);
	tc_consumerd_relay_wait_received(relay, CONSUMERD_RELAY_IO_TIMEOUT_MS);
	while (relay->streams)
		tc_consumerd_relay_stream_remove(relay, relay->streams);
	relay_disconnect(relay);
	probe_close(relay);
	relay_free(relay);
}

int
tc_consumerd_relay_stream_add(struct tc_consumerd_relay *relay,
			      struct tc_consumerd_relay_stream *stream, const char *file_name,
			      const char *path, bool is_metadata)
{
	int ret;

	if (strlen(file_name) > CONSUMERD_RELAY_FILE_NAME_MAX - 12)
		return -ENAMETOOLONG;
	strcpy(stream->file_name, file_name);
	stream->path = path;
	stream->is_metadata = is_metadata;
	stream->last_packet_ns = tc_rb_clock_now();
	stream->next = relay->streams;
	relay->streams = stream;
	if (!relay->up)
		return 0;
	ret = tc_consumerd_relay_announce_stream(relay, stream);
	if (ret < 0)
		tc_consumerd_relay_fail(relay, "adding a stream", ret);
	return 0;
}

void
tc_consumerd_relay_streams_sent(struct tc_consumerd_relay *relay)
{
	int ret;

	if (!relay->up)
		return;
	ret = tc_consumerd_relay_control_generic(relay, TC_RELAY_STREAMS_SENT, NULL, 0);
	if (ret < 0)
		tc_consumerd_relay_fail(relay, "publishing streams", ret);
}

void
tc_consumerd_relay_stream_remove(struct tc_consumerd_relay *relay,
				 struct tc_consumerd_relay_stream *stream)
{
	struct tc_consumerd_relay_stream **link;

	/* Its packets held while the relay is not reached yet are never sent. */
	tc_consumerd_relay_packet_held_lose(relay,
					    tc_consumerd_relay_held_take(&relay->held, stream));
	close_stream_on_relay(relay, stream);
	for (link = &relay->streams; *link; link = &(*link)->next) {
		if (*link == stream) {
			*link = stream->next;
			break;
		}
	}
	free(stream->metadata);
	stream->metadata = NULL;
	stream->metadata_size = stream->metadata_capacity = 0;
}

static int
send_index(struct tc_consumerd_relay *relay, const struct tc_relay_index *index)
{
	int ret;

	if (relay->pending_replies >= PENDING_REPLIES_MAX) {
		ret = tc_consumerd_relay_control_drain_replies(relay, true);
		if (ret < 0)
			return ret;
	}
	ret = tc_consumerd_relay_control_send_command(relay, TC_RELAY_SEND_INDEX, index,
						      sizeof(*index));
	if (ret < 0)
		return ret;
	relay->pending_replies++;
	return tc_consumerd_relay_control_drain_replies(relay, false);
}

/* When the packet about to be sent must be on its way: within its own
 * budget, and within the flush's while one runs. */
static uint64_t
packet_deadline(const struct tc_consumerd_relay *relay)
{
	uint64_t deadline = tc_rb_clock_now() + CONSUMERD_RELAY_PACKET_BUDGET_MS * 1000000ull;

	return relay->give_up_at && relay->give_up_at < deadline ? relay->give_up_at : deadline;
}

/* The packet's content (its first content bytes of size), the relay
 * padding it back, then its index. */
static int
send_indexed(struct tc_consumerd_relay *relay, struct tc_consumerd_relay_stream *stream,
	     const uint8_t *packet, uint32_t size, const struct tc_relay_index *sent_index,
	     uint32_t content)
{
	struct tc_relay_index index = *sent_index;
	struct tc_relay_data_header header;
	struct iovec iov[2];
	int ret;

	/* Only the content crosses the network; the relay pads it back. */
	header = (struct tc_relay_data_header){
	    .stream_id = htobe64(stream->handle),
	    .net_seq_num = htobe64(stream->net_seq),
	    .data_size = htobe32(content),
	    .padding_size = htobe32(size - content),
	};
	iov[0] = (struct iovec){&header, sizeof(header)};
	iov[1] = (struct iovec){(void *)packet, content};
	ret = tc_consumerd_relay_socket_send_all_by(relay->data_fd, iov, 2, packet_deadline(relay));
	if (ret == 0)
		ret = send_index(relay, &index);
	if (ret < 0) {
		tc_consumerd_relay_fail(
		    relay, ret == -ETIMEDOUT ? "a packet not taken in time" : "sending a packet",
		    ret);
		tc_consumerd_relay_packet_count_lost(relay);
		return ret;
	}
	stream->net_seq++;
	stream->packets_on_connection++;
	stream->last_packet_seq = be64toh(index.packet_seq_num);
	stream->chunk_bytes += size;
	stream->last_packet_ns = tc_rb_clock_now();
	return 0;
}

int
tc_consumerd_relay_send_packet(struct tc_consumerd_relay *relay,
			       struct tc_consumerd_relay_stream *stream, const uint8_t *packet,
			       uint32_t size)
{
	struct tc_relay_index index;
	uint32_t content;
	int ret;

	if (relay->first_probe)
		return tc_consumerd_relay_packet_hold(relay, stream, packet, size);
	if (!relay->up || !stream->added) {
		tc_consumerd_relay_packet_count_lost(relay);
		return -ENOTCONN;
	}
	ret = tc_consumerd_relay_packet_index(stream, packet, size, &index, &content);
	return ret < 0 ? ret : send_indexed(relay, stream, packet, size, &index, content);
}

int
tc_consumerd_relay_send_packet_with_info(struct tc_consumerd_relay *relay,
					 struct tc_consumerd_relay_stream *stream,
					 const uint8_t *packet, uint32_t size,
					 const struct tc_consumerd_relay_packet_info *info)
{
	struct tc_relay_index index;

	if (info->packet_size != (uint64_t)size * 8 || info->content_size > info->packet_size ||
	    info->content_size == 0)
		return -EBADMSG;
	if (relay->first_probe || !relay->up || !stream->added) {
		tc_consumerd_relay_packet_count_lost(relay);
		return -ENOTCONN;
	}
	index = (struct tc_relay_index){
	    .relay_stream_id = htobe64(stream->handle),
	    .net_seq_num = htobe64(stream->net_seq),
	    .packet_size = htobe64(info->packet_size),
	    .content_size = htobe64(info->content_size),
	    .timestamp_begin = htobe64(info->timestamp_begin),
	    .timestamp_end = htobe64(info->timestamp_end),
	    .events_discarded = htobe64(info->events_discarded),
	    .stream_id = htobe64(info->stream_id),
	    .stream_instance_id = htobe64(info->stream_instance_id),
	    .packet_seq_num = htobe64(info->packet_seq_num),
	};
	return send_indexed(relay, stream, packet, size, &index,
			    (uint32_t)((info->content_size + 7) / 8));
}

void
tc_consumerd_relay_set_give_up(struct tc_consumerd_relay *relay, uint64_t deadline)
{
	relay->give_up_at = deadline;
}

int
tc_consumerd_relay_send_metadata(struct tc_consumerd_relay *relay,
				 struct tc_consumerd_relay_stream *stream, const void *text,
				 size_t len)
{
	int ret;

	if (stream->metadata_size + len > stream->metadata_capacity) {
		size_t capacity = stream->metadata_capacity ? stream->metadata_capacity : 4096;
		char *grown;

		while (capacity < stream->metadata_size + len)
			capacity *= 2;
		grown = realloc(stream->metadata, capacity);
		if (!grown)
			return -ENOMEM;
		stream->metadata = grown;
		stream->metadata_capacity = capacity;
	}
	memcpy(stream->metadata + stream->metadata_size, text, len);
	stream->metadata_size += len;
	/* The trace block comes first, in the first chunks. */
	if (!stream->has_uuid)
		stream->has_uuid = tc_consumerd_relay_wire_metadata_uuid(
				       stream->metadata, stream->metadata_size, stream->uuid) == 0;
	if (!relay->up || !stream->added)
		return 0;
	ret = tc_consumerd_relay_announce_metadata_range(relay, stream, text, len);
	if (ret < 0)
		tc_consumerd_relay_fail(relay, "sending metadata", ret);
	return 0;
}

void
tc_consumerd_relay_send_beacon(struct tc_consumerd_relay *relay,
			       struct tc_consumerd_relay_stream *stream, uint64_t ctf_stream_id,
			       uint64_t timestamp)
{
	struct tc_relay_index index = {
	    .relay_stream_id = htobe64(stream->handle),
	    .net_seq_num = htobe64(stream->net_seq - 1),
	    .timestamp_end = htobe64(timestamp),
	    .stream_id = htobe64(ctf_stream_id),
	};
	int ret;

	if (!relay->up || !stream->added)
		return;
	ret = send_index(relay, &index);
	if (ret < 0)
		tc_consumerd_relay_fail(relay, "sending a live beacon", ret);
}

/* The relay never speaks unasked: a readable control connection with no
 * reply due is its end (or a protocol error). */
static bool
relay_hung_up(struct tc_consumerd_relay *relay)
{
	struct pollfd pfd = {.fd = relay->control_fd, .events = POLLIN | POLLRDHUP};

	if (relay->pending_replies > 0)
		return false;
	return poll(&pfd, 1, 0) == 1;
}

/* Takes the answer of a lookup under way, without waiting: new
 * addresses replace the old; a failure keeps the old, if any. */
static void
lookup_check(struct tc_consumerd_relay *relay)
{
	int ret;

	if (!relay->lookup)
		return;
	ret = tc_consumerd_resolve_wait(relay->lookup, 0);
	if (ret == 0)
		return;
	if (ret == 1) {
		tc_consumerd_resolve_free(relay->resolved);
		relay->resolved = relay->lookup;
		relay->address_next = 0;
	} else {
		tc_consumerd_debug("session=%" PRIu64 ": Cannot resolve the relay's host %s: %s",
				   relay->session_id, relay->out.host,
				   tc_consumerd_resolve_error(relay->lookup));
		tc_consumerd_resolve_free(relay->lookup);
	}
	relay->lookup = NULL;
}

/* Starts resolving the host again unless a lookup is under way; the
 * current addresses stay in use until it answers. */
static void
lookup_again(struct tc_consumerd_relay *relay)
{
	if (!relay->lookup &&
	    tc_consumerd_resolve_start(relay->out.host, (int)relay->out.family, &relay->lookup) < 0)
		relay->lookup = NULL;
}

/* Starts a connection to the control port at the next address without
 * waiting for it, nor for the host's lookup. Returns the socket,
 * -EINPROGRESS while there is no address yet, or -errno. */
static int
probe_start(struct tc_consumerd_relay *relay)
{
	const struct addrinfo *ai;
	unsigned count;

	if (tc_consumerd_relay_is_ssh(relay))
		return tc_consumerd_relay_socket_connect_tunnel_start(relay, false);
	lookup_check(relay);
	ai = tc_consumerd_relay_socket_address_at(relay, relay->address_next, &count);
	if (!ai) {
		lookup_again(relay);
		return -EINPROGRESS;
	}
	return tc_consumerd_relay_socket_connect_start(ai, relay->out.control_port);
}

/* Starts the data port's connection at the address whose control port
 * answered: a session's two connections go to one relay daemon. */
static int
probe_start_data(struct tc_consumerd_relay *relay)
{
	unsigned count;
	const struct addrinfo *ai =
	    tc_consumerd_relay_socket_address_at(relay, relay->address_next, &count);

	if (tc_consumerd_relay_is_ssh(relay))
		return tc_consumerd_relay_socket_connect_tunnel_start(relay, true);
	return ai ? tc_consumerd_relay_socket_connect_start(ai, relay->out.data_port)
		  : -EHOSTUNREACH;
}

/* The first probe failed with err at one address: the next address is
 * tried at the next tick, as a creation's connection tries them all;
 * once every one failed, the relay is down. */
static void
first_probe_step_failed(struct tc_consumerd_relay *relay, int err, uint64_t now)
{
	char why[MESSAGE_MAX];

	if (relay->address_next != 0) {
		relay->next_retry = now;
		return;
	}
	open_error(relay, err, why, sizeof(why));
	first_probe_failed(relay, err, why);
}

/* A probe failed with err: the next tries the next address; once every
 * address failed, the host is resolved again in the background. Through
 * ssh, which resolves the host itself, the next probe makes a new tunnel,
 * and what this one said of the forward it could not make is the reason. */
static void
probe_failed(struct tc_consumerd_relay *relay, int err, uint64_t now)
{
	unsigned count;

	probe_close(relay);
	relay->last_error = err;
	if (tc_consumerd_relay_is_ssh(relay)) {
		tc_consumerd_relay_ssh_drop(relay);
	} else {
		tc_consumerd_relay_socket_address_at(relay, 0, &count);
		relay->address_next = count ? (relay->address_next + 1) % count : 0;
		if (relay->address_next == 0)
			lookup_again(relay);
	}
	relay_retry_later(relay, now);
	if (relay->first_probe)
		first_probe_step_failed(relay, err, now);
}

/* Whether the probe connected: 1 yes, 0 not yet, -errno failed. */
static int
probe_check(int fd)
{
	struct pollfd pfd = {.fd = fd, .events = POLLOUT};
	socklen_t len = sizeof(int);
	int err = 0;

	if (poll(&pfd, 1, 0) == 0)
		return 0;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
		return -errno;
	if (err != 0)
		return -err;
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0 ||
	    tc_consumerd_relay_socket_set_timeouts(fd) < 0)
		return -errno;
	return 1;
}

/* Whether the whole answer to VERSION (or a hang-up) waits on fd: 1
 * yes, 0 not yet, or -errno; reading it tells which. A part of it is not
 * yet: the handshake must not wait for the rest in the loop. */
static int
answer_check(int fd)
{
	struct tc_relay_version version;
	ssize_t n = recv(fd, &version, sizeof(version), MSG_PEEK | MSG_DONTWAIT);

	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	return n == 0 || (size_t)n == sizeof(version);
}

/*
 * While down, the relay is probed without blocking, at each tick: the
 * control port's connection first, then the data port's at the address
 * that answered, each for the connect timeout, then the relay's answer
 * to VERSION, for the I/O timeout. An unreachable host, a filtered port
 * or a relay daemon that accepts connections but never answers (stopped,
 * hung) would otherwise hold the consumer, and every other session it
 * drains, at each retry. Once the relay answered, the rest of the
 * handshake runs with it answering. Returns whether the probe is still
 * under way.
 */
static bool
probe_step(struct tc_consumerd_relay *relay, uint64_t now)
{
	int ret;

	if (relay->probe_data_fd < 0) {
		ret = probe_check(relay->probe_fd);
		if (ret == 0 && now < relay->probe_deadline)
			return true;
		if (ret <= 0)
			goto failed;
		ret = probe_start_data(relay);
		if (ret < 0)
			goto failed;
		relay->probe_data_fd = ret;
		relay->probe_deadline = now + CONSUMERD_RELAY_CONNECT_TIMEOUT_MS * 1000000ull;
	}
	if (!relay->probe_asked) {
		ret = probe_check(relay->probe_data_fd);
		if (ret == 0 && now < relay->probe_deadline)
			return true;
		if (ret <= 0)
			goto failed;
		ret = tc_consumerd_relay_control_send_version(relay->probe_fd);
		if (ret < 0)
			goto failed;
		relay->probe_asked = true;
		relay->probe_deadline = now + CONSUMERD_RELAY_IO_TIMEOUT_MS * 1000000ull;
	}
	ret = answer_check(relay->probe_fd);
	if (ret == 0 && now < relay->probe_deadline)
		return true;
	if (ret > 0)
		return false;
failed:
	probe_failed(relay, ret == 0 ? -ETIMEDOUT : ret, now);
	return false;
}

/* Whether the first probe still waits for the host's first lookup,
 * looking at it without waiting. A lookup that failed, or that did not
 * answer within CONSUMERD_RELAY_RESOLVE_TIMEOUT_MS (it goes on for the
 * retries), makes the relay down. */
static bool
first_lookup_pending(struct tc_consumerd_relay *relay, uint64_t now)
{
	char why[MESSAGE_MAX + TC_CONSUMER_HOST_MAX];
	int ret;

	if (!relay->first_probe || relay->resolved || !relay->lookup)
		return false;
	ret = tc_consumerd_resolve_wait(relay->lookup, 0);
	if (ret == 1) {
		relay->resolved = relay->lookup;
		relay->lookup = NULL;
		return false;
	}
	if (ret == 0 && now < relay->first_lookup_deadline)
		return true;
	ret = lookup_failure(relay, ret, why, sizeof(why));
	first_probe_failed(relay, ret, why);
	return true;
}

/* The first probe of a relay opened with TC_CONSUMER_RELAY_CONNECT_LATER
 * reached it (the answer to VERSION waits on control_fd): the handshake
 * runs with the relay answering, the streams are added and the packets
 * held meanwhile are sent. Unlike a reconnection, nothing was lost, and
 * the streams keep their first names. */
static void
first_probe_connected(struct tc_consumerd_relay *relay, int control_fd, int data_fd)
{
	char address[CONSUMERD_RELAY_ADDRESS_MAX], why[MESSAGE_MAX];
	int ret;

	ret = relay_join(relay, control_fd, data_fd);
	if (ret < 0) {
		open_error(relay, ret, why, sizeof(why));
		first_probe_failed(relay, ret, why);
		return;
	}
	relay->first_probe = false;
	relay_address(relay, address, sizeof(address));
	tc_consumerd_info("session=%" PRIu64 ": Connected to the relay at %s", relay->session_id,
			  address);
	held_send_all(relay);
}

/* Whether a relay reached through ssh waits for its tunnel: made at the
 * probe's first step, looked at without waiting at the next ones. One
 * that failed fails the probe. */
static bool
tunnel_pending(struct tc_consumerd_relay *relay, uint64_t now)
{
	int ret;

	if (!tc_consumerd_relay_is_ssh(relay) || relay->probe_fd >= 0)
		return false;
	ret = tc_consumerd_relay_ssh_step(relay, now);
	if (ret < 0)
		probe_failed(relay, ret, now);
	return ret != 1;
}

static void
relay_retry(struct tc_consumerd_relay *relay, uint64_t now)
{
	int control_fd, data_fd, ret;

	if (first_lookup_pending(relay, now) || tunnel_pending(relay, now))
		return;
	if (relay->probe_fd < 0) {
		ret = probe_start(relay);
		if (ret < 0) {
			if (ret == -EINPROGRESS)
				relay_retry_later(relay, now);
			else
				probe_failed(relay, ret, now);
			return;
		}
		relay->probe_fd = ret;
		relay->probe_deadline = now + CONSUMERD_RELAY_CONNECT_TIMEOUT_MS * 1000000ull;
	}
	if (probe_step(relay, now) || relay->probe_fd < 0)
		return;
	control_fd = relay->probe_fd;
	data_fd = relay->probe_data_fd;
	relay->probe_fd = relay->probe_data_fd = -1;
	relay->probe_asked = false;
	if (relay->first_probe)
		first_probe_connected(relay, control_fd, data_fd);
	else
		relay_reconnect(relay, control_fd, data_fd, now);
}

bool
tc_consumerd_relay_is_up(struct tc_consumerd_relay *relay, uint64_t now)
{
	if (relay->up && relay_hung_up(relay))
		tc_consumerd_relay_fail(relay, "watching the control connection", -ECONNRESET);
	if (relay->up && !tc_consumerd_relay_ssh_watch(relay))
		tc_consumerd_relay_fail(relay, "watching the ssh tunnel", -ECONNABORTED);
	if (!relay->up && now >= relay->next_retry)
		relay_retry(relay, now);
	return relay->up;
}

bool
tc_consumerd_relay_is_connecting(const struct tc_consumerd_relay *relay)
{
	return relay->first_probe;
}

static int
data_pending(struct tc_consumerd_relay *relay, bool *pending)
{
	struct tc_relay_session_ref ref = {.session_id = htobe64(relay->relay_session_id)};
	uint32_t code = 0;
	int ret;

	*pending = false;
	ret = tc_consumerd_relay_control_drain_replies(relay, true);
	/* The questions go out together, then the answers are read in
	 * their order: one round trip however many streams. */
	if (ret == 0)
		ret = tc_consumerd_relay_control_send_command(relay, TC_RELAY_BEGIN_DATA_PENDING,
							      &ref, sizeof(ref));
	for (struct tc_consumerd_relay_stream *s = relay->streams; ret == 0 && s; s = s->next) {
		struct tc_relay_stream_seq msg = {
		    .stream_id = htobe64(s->handle),
		    .last_net_seq_num = htobe64(s->net_seq - 1),
		};

		if (s->added && !s->is_metadata)
			ret = tc_consumerd_relay_control_send_command(relay, TC_RELAY_DATA_PENDING,
								      &msg, sizeof(msg));
	}
	if (ret == 0)
		ret = tc_consumerd_relay_control_send_command(relay, TC_RELAY_END_DATA_PENDING,
							      &ref, sizeof(ref));
	if (ret == 0)
		ret = tc_consumerd_relay_control_read_generic_reply(
		    relay, &code, tc_consumerd_relay_socket_reply_deadline(relay));
	if (ret == 0 && code != TC_RELAY_LTTNG_OK)
		ret = -EPROTO;
	for (struct tc_consumerd_relay_stream *s = relay->streams; ret == 0 && s; s = s->next) {
		if (!s->added || s->is_metadata)
			continue;
		ret = tc_consumerd_relay_control_read_generic_reply(
		    relay, &code, tc_consumerd_relay_socket_reply_deadline(relay));
		/* 1: pending, 0: received; anything else (a stream the relay
		 * does not know) an error. */
		if (ret == 0 && code > 1)
			ret = -EPROTO;
		if (ret == 0 && code == 1)
			*pending = true;
	}
	/* END_DATA_PENDING's code says whether data is in flight on any
	 * stream not closed yet, which ours are while they wait: the
	 * streams' own answers above are what counts. */
	if (ret == 0)
		ret = tc_consumerd_relay_control_read_generic_reply(
		    relay, &code, tc_consumerd_relay_socket_reply_deadline(relay));
	return ret;
}

int
tc_consumerd_relay_wait_received(struct tc_consumerd_relay *relay, int timeout_ms)
{
	const uint64_t deadline = tc_rb_clock_now() + (uint64_t)timeout_ms * 1000000ull;
	const struct timespec interval = {.tv_sec = 0, .tv_nsec = 5000000};
	bool pending = true;
	int ret;

	/* A first connection under way holds packets: they reach the relay
	 * if it connects in time, are lost with it if it does not. */
	while (relay->first_probe && tc_rb_clock_now() < deadline) {
		tc_consumerd_relay_is_up(relay, tc_rb_clock_now());
		if (relay->first_probe)
			nanosleep(&interval, NULL);
	}
	if (relay->first_probe)
		return -ETIMEDOUT;

	while (relay->up) {
		/* Every reply of a round within one I/O timeout in all. */
		relay->exchange_end = tc_rb_clock_now() + CONSUMERD_RELAY_IO_TIMEOUT_MS * 1000000ull;
		ret = data_pending(relay, &pending);
		relay->exchange_end = 0;
		if (ret < 0) {
			tc_consumerd_relay_fail(relay, "checking what the relay received", ret);
			break;
		}
		if (!pending)
			return 0;
		if (tc_rb_clock_now() >= deadline)
			return -ETIMEDOUT;
		nanosleep(&interval, NULL);
	}
	return -ENOTCONN;
}

uint32_t
tc_consumerd_relay_live_timer_us(const struct tc_consumerd_relay *relay)
{
	return relay->out.live_timer_us;
}

void
tc_consumerd_relay_get_status(const struct tc_consumerd_relay *relay,
			      struct tc_consumerd_relay_status *status)
{
	status->up = relay->up;
	status->lost_packets = relay->lost_packets;
	status->lost_since = relay->lost_since;
	status->last_error = relay->last_error;
	snprintf(status->reason, sizeof(status->reason), "%s", relay->reason);
	relay_address(relay, status->address, sizeof(status->address));
}

