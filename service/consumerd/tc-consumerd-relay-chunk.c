/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Rotation of the relay session's trace chunks (tc_consumerd_relay_chunk_rotate()).
 */
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
#include <time.h>
#include <unistd.h>

#include "tc-consumerd-log.h"
#include "tc-consumerd-relay-private.h"
#include "tc-consumerd-relay-wire.h"
#include "tc-rb.h"

/* The consumer ABI passes lttng's close commands through. */
_Static_assert(TC_CONSUMER_RELAY_CHUNK_ARCHIVE == TC_RELAY_CHUNK_MOVE_TO_COMPLETED &&
		   TC_CONSUMER_RELAY_CHUNK_DELETE == TC_RELAY_CHUNK_DELETE,
	       "close commands differ");

/* Whether the relay can rotate stream to the new chunk in place: it
 * rotates a data stream once it has an index at or past the position,
 * which a stream that sent nothing on this connection never gives it. */
static bool
stream_rotates_in_place(const struct tc_consumerd_relay_stream *stream)
{
	return stream->added && (stream->is_metadata || stream->packets_on_connection > 0);
}

static int
command_rotate_streams(struct tc_consumerd_relay *relay, uint64_t new_chunk_id)
{
	struct tc_relay_rotate_streams header = {
	    .new_chunk_id_is_set = 1,
	    .new_chunk_id = htobe64(new_chunk_id),
	};
	struct tc_relay_stream_rotation_position *positions;
	uint32_t count = 0;
	size_t len;
	char *buf;
	int ret;

	for (struct tc_consumerd_relay_stream *s = relay->streams; s; s = s->next)
		count += stream_rotates_in_place(s);
	if (count == 0)
		return 0;
	len = sizeof(header) + (size_t)count * sizeof(*positions);
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	header.stream_count = htobe32(count);
	memcpy(buf, &header, sizeof(header));
	positions = (struct tc_relay_stream_rotation_position *)(buf + sizeof(header));
	for (struct tc_consumerd_relay_stream *s = relay->streams; s; s = s->next) {
		if (!stream_rotates_in_place(s))
			continue;
		/* The first packet of the new chunk is the one after the last sent. */
		*positions++ = (struct tc_relay_stream_rotation_position){
		    .stream_id = htobe64(s->handle),
		    .rotate_at_seq_num = htobe64(s->is_metadata ? 0 : s->last_packet_seq + 1),
		};
	}
	ret = tc_consumerd_relay_control_generic(relay, TC_RELAY_ROTATE_STREAMS, buf, len);
	free(buf);
	return ret;
}

/* Streams the relay cannot rotate in place are closed in the old chunk
 * (empty there) and added again in the new one; the metadata starts again
 * whole in the new chunk. */
static int
streams_follow_new_chunk(struct tc_consumerd_relay *relay)
{
	bool readded = false;
	int ret = 0;

	for (struct tc_consumerd_relay_stream *s = relay->streams; s && ret == 0; s = s->next) {
		if (!s->added)
			continue;
		s->chunk_bytes = 0;
		if (s->is_metadata) {
			if (s->metadata_size > 0)
				ret = tc_consumerd_relay_announce_metadata_range(
				    relay, s, s->metadata, s->metadata_size);
		} else if (s->packets_on_connection == 0) {
			struct tc_relay_stream_seq msg = {
			    .stream_id = htobe64(s->handle),
			    .last_net_seq_num = htobe64(UINT64_MAX),
			};

			ret = tc_consumerd_relay_control_generic(relay, TC_RELAY_CLOSE_STREAM, &msg,
								 sizeof(msg));
			if (ret == 0)
				ret = tc_consumerd_relay_announce_stream(relay, s);
			readded = true;
		}
	}
	/* Live viewers see streams added again once published. */
	if (ret == 0 && readded)
		ret = tc_consumerd_relay_control_generic(relay, TC_RELAY_STREAMS_SENT, NULL, 0);
	return ret;
}



/* Whether the relay still holds a trace chunk: 1, 0, or -errno. */
static int
relay_chunk_exists(struct tc_consumerd_relay *relay, uint64_t chunk_id)
{
	struct tc_relay_trace_chunk_exists msg = {.chunk_id = htobe64(chunk_id)};
	struct tc_relay_trace_chunk_exists_reply reply;
	int ret = tc_consumerd_relay_control_drain_replies(relay, true);

	if (ret == 0)
		ret = tc_consumerd_relay_control_send_command(relay, TC_RELAY_TRACE_CHUNK_EXISTS,
							      &msg, sizeof(msg));
	if (ret == 0)
		ret = tc_consumerd_relay_socket_recv_reply(relay, &reply, sizeof(reply));
	if (ret < 0)
		return ret;
	if (be32toh(reply.ret_code) != TC_RELAY_LTTNG_OK || reply.exists > 1)
		return -EPROTO;
	return reply.exists;
}

/*
 * The relay moves or deletes a closed chunk only once every stream has
 * left it, which may come after the close's reply: the archive is
 * complete (and a cleared trace gone) when the chunk no longer exists,
 * as LTTng's session daemon also waits. A chunk still held after the
 * bound is reported, not fatal: the relay finishes it on its own.
 */
#define RELAY_CHUNK_RELEASE_WAIT_MS 5000
#define RELAY_CHUNK_RELEASE_POLL_MS 10

static int
wait_chunk_released(struct tc_consumerd_relay *relay, uint64_t chunk_id)
{
	const uint64_t deadline =
	    tc_rb_clock_now() + RELAY_CHUNK_RELEASE_WAIT_MS * 1000000ull;

	/* Each exchange has its I/O timeout; the clock bounds them all. */
	while (tc_rb_clock_now() < deadline) {
		int ret = relay_chunk_exists(relay, chunk_id);

		if (ret <= 0)
			return ret;
		poll(NULL, 0, RELAY_CHUNK_RELEASE_POLL_MS);
	}
	tc_consumerd_info("session=%" PRIu64 ": The relay still holds trace chunk %" PRIu64
			  " after %d ms; it finishes it when its streams leave it",
			  relay->session_id, chunk_id, RELAY_CHUNK_RELEASE_WAIT_MS);
	return 0;
}

/* Whether the relay allows clearing (lttng-relayd without
 * --disallow-clear): 1, 0, or -errno. */
static int
relay_allows_clear(struct tc_consumerd_relay *relay)
{
	struct tc_relay_get_configuration msg = {0};
	struct tc_relay_get_configuration_reply reply;
	int ret = tc_consumerd_relay_control_drain_replies(relay, true);

	if (ret == 0)
		ret = tc_consumerd_relay_control_send_command(relay, TC_RELAY_GET_CONFIGURATION,
							      &msg, sizeof(msg));
	if (ret == 0)
		ret = tc_consumerd_relay_socket_recv_reply(relay, &reply, sizeof(reply));
	if (ret < 0)
		return ret;
	if (be32toh(reply.ret_code) != TC_RELAY_LTTNG_OK)
		return -EPROTO;
	return (be64toh(reply.flags) & TC_RELAY_CONFIGURATION_CLEAR_ALLOWED) != 0;
}

/* A command that failed once sent may have left its reply unread, or the
 * chunks half rotated: the connection is of no further use, whatever the
 * code (a timeout is not "nothing changed" then). */
static int
exchange_broken(int ret)
{
	return ret == -ETIMEDOUT || ret == -ENOTCONN || ret == -EBUSY || ret == -EPERM ? -EIO
										       : ret;
}

/* The new chunk, every stream moved to it; the old one stays open on
 * the relay (pending closure) until chunk_close(). */
static int
chunk_begin(struct tc_consumerd_relay *relay, uint32_t command, int64_t now)
{
	int ret;

	if (relay->close_pending)
		return -EBUSY;
	/* Packets still in flight would land on the wrong side of the cut. */
	ret = tc_consumerd_relay_wait_received(relay, CONSUMERD_RELAY_IO_TIMEOUT_MS);
	if (ret < 0)
		return ret;
	/* Asked before anything changes: a refused DELETE would end the
	 * connection with the chunks half rotated. */
	if (command == TC_RELAY_CHUNK_DELETE) {
		ret = relay_allows_clear(relay);
		if (ret <= 0)
			return ret == 0 ? -EPERM : exchange_broken(ret);
	}
	ret = tc_consumerd_relay_control_create_trace_chunk(relay, relay->chunk_id + 1, now);
	if (ret < 0)
		return exchange_broken(ret);
	relay->chunk_id++;
	relay->chunk_created_before = relay->chunk_created;
	relay->chunk_created = now;
	relay->close_pending = true;
	relay->chunk_before_archived = false;
	ret = command_rotate_streams(relay, relay->chunk_id);
	if (ret == 0)
		ret = streams_follow_new_chunk(relay);
	return exchange_broken(ret);
}

static int
chunk_close(struct tc_consumerd_relay *relay, uint32_t command, int64_t now, bool wait, char *path,
	    size_t path_size)
{
	const uint64_t old_chunk = relay->chunk_id - 1;
	int ret;

	if (!relay->close_pending)
		return -EINVAL;
	ret = tc_consumerd_relay_control_close_trace_chunk(relay, old_chunk, now, command, path,
							   path_size);
	if (ret < 0)
		return ret;
	relay->close_pending = false;
	relay->chunk_before_archived = command == TC_RELAY_CHUNK_MOVE_TO_COMPLETED;
	relay->chunk_closed_before = now;
	if (wait)
		ret = wait_chunk_released(relay, old_chunk);
	if (ret == 0)
		tc_consumerd_info(
		    "session=%" PRIu64 ": The relay %s trace chunk %" PRIu64 " (\"%s\")",
		    relay->session_id, command == TC_RELAY_CHUNK_DELETE ? "deleted" : "archived",
		    old_chunk, path);
	return ret;
}

int
tc_consumerd_relay_chunk_rotate(struct tc_consumerd_relay *relay, uint32_t command, uint32_t steps,
				int64_t timestamp, char *path, size_t path_size)
{
	const int64_t now = timestamp > 0 ? timestamp : (int64_t)time(NULL);
	int ret = 0;

	if (path_size > 0)
		path[0] = '\0';
	if (!relay->up)
		return -ENOTCONN;
	if (steps & CONSUMERD_RELAY_CHUNK_BEGIN) {
		ret = chunk_begin(relay, command, now);
		if (ret == -EPERM || ret == -EBUSY || ret == -ETIMEDOUT || ret == -ENOTCONN)
			return ret; /* nothing changed */
	}
	if (ret == 0 && (steps & CONSUMERD_RELAY_CHUNK_CLOSE))
		ret = chunk_close(relay, command, now, !(steps & CONSUMERD_RELAY_CHUNK_NO_WAIT),
				  path, path_size);
	if (ret < 0 && ret != -EINVAL)
		goto fail;
	return ret;

fail:
	/* The relay's view of the chunks is unknown now: start over. */
	tc_consumerd_relay_fail(relay, "rotating the trace chunk", ret);
	return ret;
}
