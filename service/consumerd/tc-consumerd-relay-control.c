/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Commands on the relay's control connection and their generic replies:
 * the version, the session, its trace chunks.
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

static int
send_command_on(int fd, uint32_t cmd, const void *payload, size_t len)
{
	struct tc_relay_cmd_header header = {
	    .data_size = htobe64(len),
	    .cmd = htobe32(cmd),
	};
	struct iovec iov[2] = {{&header, sizeof(header)}, {(void *)payload, len}};

	return tc_consumerd_relay_socket_send_all(fd, iov, len ? 2 : 1);
}

int
tc_consumerd_relay_control_send_command(struct tc_consumerd_relay *relay, uint32_t cmd,
					const void *payload, size_t len)
{
	return send_command_on(relay->control_fd, cmd, payload, len);
}

int
tc_consumerd_relay_control_read_generic_reply(struct tc_consumerd_relay *relay, uint32_t *code,
					      uint64_t deadline)
{
	struct tc_relay_generic_reply reply;
	int ret =
	    tc_consumerd_relay_socket_recv_all(relay->control_fd, &reply, sizeof(reply), deadline);

	if (ret == 0)
		*code = be32toh(reply.ret_code);
	return ret;
}

/* Reads the replies of indexes sent earlier: all of them when wait,
 * within one I/O timeout in all, else those already there. A refused
 * index is logged, not fatal. */
int
tc_consumerd_relay_control_drain_replies(struct tc_consumerd_relay *relay, bool wait)
{
	const uint64_t deadline = tc_consumerd_relay_socket_reply_deadline(relay);
	uint32_t code = 0;
	int ret;

	while (relay->pending_replies > 0) {
		if (!wait) {
			struct pollfd pfd = {.fd = relay->control_fd, .events = POLLIN};

			if (poll(&pfd, 1, 0) <= 0)
				return 0;
		}
		ret = tc_consumerd_relay_control_read_generic_reply(relay, &code, deadline);
		if (ret < 0)
			return ret;
		relay->pending_replies--;
		if (code != TC_RELAY_LTTNG_OK)
			tc_consumerd_debug("session=%" PRIu64
					   ": The relay refused an index (%" PRIu32 ")",
					   relay->session_id, code);
	}
	return 0;
}

/* A command whose reply is generic and must be LTTNG_OK. */
int
tc_consumerd_relay_control_generic(struct tc_consumerd_relay *relay, uint32_t cmd,
				   const void *payload, size_t len)
{
	uint32_t code = 0;
	int ret = tc_consumerd_relay_control_drain_replies(relay, true);

	if (ret == 0)
		ret = tc_consumerd_relay_control_send_command(relay, cmd, payload, len);
	if (ret == 0)
		ret = tc_consumerd_relay_control_read_generic_reply(
		    relay, &code, tc_consumerd_relay_socket_reply_deadline(relay));
	if (ret == 0 && code != TC_RELAY_LTTNG_OK)
		ret = -EPROTO;
	return ret;
}

int
tc_consumerd_relay_control_send_version(int control_fd)
{
	struct tc_relay_version version = {htobe32(TC_RELAY_PROTO_MAJOR),
					   htobe32(TC_RELAY_PROTO_MINOR)};

	return send_command_on(control_fd, TC_RELAY_VERSION, &version, sizeof(version));
}

int
tc_consumerd_relay_control_read_version(struct tc_consumerd_relay *relay)
{
	struct tc_relay_version version;
	int ret = tc_consumerd_relay_socket_recv_reply(relay, &version, sizeof(version));

	if (ret == 0)
		ret =
		    tc_consumerd_relay_wire_parse_version(&version, sizeof(version), &relay->minor);
	return ret;
}

int
tc_consumerd_relay_control_version(struct tc_consumerd_relay *relay)
{
	int ret = tc_consumerd_relay_control_send_version(relay->control_fd);

	return ret < 0 ? ret : tc_consumerd_relay_control_read_version(relay);
}

int
tc_consumerd_relay_control_create_session(struct tc_consumerd_relay *relay)
{
	struct tc_relay_create_session_reply reply;
	char buf[COMMAND_MAX], path[TC_RELAY_PATH_MAX];
	int len, ret;

	len = tc_consumerd_relay_wire_encode_create_session(
	    buf, sizeof(buf), relay->out.session_name, relay->out.hostname,
	    relay->out.live_timer_us, relay->uuid, relay->sessiond_session_id,
	    (uint64_t)relay->out.creation_time);
	if (len < 0)
		return len;
	ret = tc_consumerd_relay_control_send_command(relay, TC_RELAY_CREATE_SESSION, buf,
						      (size_t)len);
	if (ret == 0)
		ret = tc_consumerd_relay_socket_recv_reply(relay, buf, sizeof(reply));
	if (ret == 0)
		ret =
		    tc_consumerd_relay_wire_parse_create_session_reply(buf, sizeof(reply), &reply);
	if (ret < 0)
		return ret;
	ret = tc_consumerd_relay_socket_recv_reply(relay, path, reply.output_path_length);
	if (ret == 0)
		ret = tc_consumerd_relay_wire_check_output_path(path, reply.output_path_length);
	if (ret < 0)
		return ret;
	relay->relay_session_id = reply.session_id;
	tc_consumerd_info("session=%" PRIu64 ": Streaming to the relay at %s:%" PRIu16
			  "%s (its session %" PRIu64 ", \"%s\")",
			  relay->session_id, relay->out.host, relay->out.control_port,
			  tc_consumerd_relay_is_ssh(relay) ? " through ssh" : "", reply.session_id,
			  path);
	return 0;
}

int
tc_consumerd_relay_control_create_trace_chunk(struct tc_consumerd_relay *relay, uint64_t chunk_id,
					      int64_t created)
{
	struct tc_relay_create_trace_chunk msg = {
	    .chunk_id = htobe64(chunk_id),
	    .creation_timestamp = htobe64((uint64_t)created),
	};

	return tc_consumerd_relay_control_generic(relay, TC_RELAY_CREATE_TRACE_CHUNK, &msg,
						  sizeof(msg));
}

/*
 * The current chunk on a new connection (a new relay session), once the
 * session has rotated. A relay files a relay session's first chunk in
 * the session's directory itself, and a chunk named otherwise
 * (CREATE_TRACE_CHUNK's override name) is one it cannot archive
 * (lttng-relayd 2.13 aborts on it); it files a chunk under its own name,
 * <begin>-<id>, once the relay session has archived one. So the chunk
 * before is made again and archived: that rename lands on the archive
 * the lost relay made (the same name, from the same times), which it
 * cannot replace, and leaves the archive as it was (and an empty
 * .tmp_old_chunk beside it, which the next rotation takes over). The
 * current chunk then goes on in the directory the lost relay filled:
 * the streams' files of the new connection join it (stream_file_name()),
 * so readers see one trace whose gap in packet_seq_num they report as
 * discarded packets, as without rotation, and the next rotation archives
 * the whole of it.
 */
static int
rejoin_current_chunk(struct tc_consumerd_relay *relay)
{
	char path[TC_RELAY_PATH_MAX];
	int ret;

	ret = tc_consumerd_relay_control_create_trace_chunk(relay, relay->chunk_id - 1,
							    relay->chunk_created_before);
	if (ret == 0)
		ret = tc_consumerd_relay_control_close_trace_chunk(
		    relay, relay->chunk_id - 1, relay->chunk_closed_before,
		    TC_RELAY_CHUNK_MOVE_TO_COMPLETED, path, sizeof(path));
	if (ret == 0)
		ret = tc_consumerd_relay_control_create_trace_chunk(relay, relay->chunk_id,
								    relay->chunk_created);
	return ret;
}

/*
 * The same when the chunk before was not archived (cleared, or its close
 * was lost with the relay): archiving it again could make an empty
 * archive. An empty first chunk is made instead and closed with nothing
 * to do; the relay files the current one as any chunk after a rotation,
 * begun now, <now>-<id> beside archives/, where the next rotation
 * archives it. The directory of the chunk the lost relay held is left as
 * that relay left it.
 */
static int
begin_current_chunk_anew(struct tc_consumerd_relay *relay)
{
	char path[TC_RELAY_PATH_MAX];
	int64_t now = (int64_t)time(NULL);
	int ret;

	ret = tc_consumerd_relay_control_create_trace_chunk(relay, relay->chunk_id - 1,
							    relay->chunk_created);
	if (ret == 0)
		ret = tc_consumerd_relay_control_create_trace_chunk(relay, relay->chunk_id, now);
	if (ret == 0)
		ret = tc_consumerd_relay_control_close_trace_chunk(relay, relay->chunk_id - 1, now,
								   TC_RELAY_CHUNK_NO_OPERATION,
								   path, sizeof(path));
	if (ret == 0)
		relay->chunk_created = now;
	return ret;
}

int
tc_consumerd_relay_control_create_current_chunk(struct tc_consumerd_relay *relay)
{
	/* A first connection joins the chunk the session's other traces made. */
	if (relay->chunk_id == 0 || relay->generation == 0)
		return tc_consumerd_relay_control_create_trace_chunk(relay, relay->chunk_id,
								     relay->chunk_created);
	if (relay->chunk_before_archived)
		return rejoin_current_chunk(relay);
	return begin_current_chunk_anew(relay);
}


static void
chunk_time(int64_t seconds, char *buf, size_t size)
{
	time_t t = (time_t)seconds;
	struct tm tm;

	if (!localtime_r(&t, &tm) || strftime(buf, size, "%Y%m%dT%H%M%S%z", &tm) == 0)
		snprintf(buf, size, "%" PRId64, seconds);
}

int
tc_consumerd_relay_control_close_trace_chunk(struct tc_consumerd_relay *relay, uint64_t chunk_id,
					     int64_t closed, uint32_t command, char *path,
					     size_t path_size)
{
	struct tc_relay_close_trace_chunk msg = {
	    .chunk_id = htobe64(chunk_id),
	    .close_timestamp = htobe64((uint64_t)closed),
	    .close_command_is_set = 1,
	    .close_command = htobe32(command),
	};
	struct tc_relay_close_trace_chunk_reply reply;
	char relay_path[TC_RELAY_PATH_MAX];
	int ret = tc_consumerd_relay_control_drain_replies(relay, true);

	if (ret == 0)
		ret = tc_consumerd_relay_control_send_command(relay, TC_RELAY_CLOSE_TRACE_CHUNK,
							      &msg, sizeof(msg));
	if (ret == 0)
		ret = tc_consumerd_relay_socket_recv_reply(relay, &reply, sizeof(reply));
	if (ret == 0)
		ret =
		    tc_consumerd_relay_wire_parse_close_chunk_reply(&reply, sizeof(reply), &reply);
	if (ret < 0)
		return ret;
	ret = tc_consumerd_relay_socket_recv_reply(relay, relay_path, reply.path_length);
	if (ret == 0)
		ret = tc_consumerd_relay_wire_check_output_path(relay_path, reply.path_length);
	if (ret < 0)
		return ret;
	/* Before its first move, the relay answers with the session's
	 * directory rather than the archive's; the archive is named as the
	 * relay names it: <begin>-<end>-<id>, local times. */
	if (command == TC_RELAY_CHUNK_MOVE_TO_COMPLETED && !strstr(relay_path, "/archives/")) {
		char begin[32], end[32];

		chunk_time(relay->chunk_created_before, begin, sizeof(begin));
		chunk_time(closed, end, sizeof(end));
		snprintf(path, path_size, "%s/archives/%s-%s-%" PRIu64, relay_path, begin, end,
			 chunk_id);
	} else {
		snprintf(path, path_size, "%s", relay_path);
	}
	return 0;
}
