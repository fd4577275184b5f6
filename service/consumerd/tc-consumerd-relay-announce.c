/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Streams made known to the relay (ADD_STREAM, its answer read later or
 * at once) and the metadata sent to it.
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
stream_file_name(const struct tc_consumerd_relay *relay,
		 const struct tc_consumerd_relay_stream *stream, char *buf, size_t size)
{
	int len;

	/* The metadata is sent whole again: same file. */
	if (stream->is_metadata || relay->generation == 0)
		len = snprintf(buf, size, "%s", stream->file_name);
	else
		len = snprintf(buf, size, "%s-%" PRIu32, stream->file_name, relay->generation);
	return len < 0 || (size_t)len >= size ? -ENAMETOOLONG : 0;
}

/* Sends text as one CTF metadata packet (tc-consumerd-relay-wire.h). */
int
tc_consumerd_relay_announce_metadata_range(struct tc_consumerd_relay *relay,
					   struct tc_consumerd_relay_stream *stream,
					   const void *text, size_t len)
{
	struct tc_relay_metadata_payload payload = {.stream_id = htobe64(stream->handle)};
	struct tc_ctf_metadata_packet_header packet = {
	    .magic = TC_CTF_METADATA_MAGIC,
	    .content_size = (uint32_t)((sizeof(packet) + len) * 8),
	    .packet_size = (uint32_t)((sizeof(packet) + len) * 8),
	    .major = 1,
	    .minor = 8,
	};
	struct tc_relay_cmd_header header = {
	    .data_size = htobe64(sizeof(payload) + sizeof(packet) + len),
	    .cmd = htobe32(TC_RELAY_SEND_METADATA),
	};
	struct iovec iov[4] = {{&header, sizeof(header)},
			       {&payload, sizeof(payload)},
			       {&packet, sizeof(packet)},
			       {(void *)text, len}};
	int ret;

	/* Packet sizes are 32-bit bit counts. */
	if (len > (UINT32_MAX / 8) - sizeof(packet))
		return -EFBIG;
	memcpy(packet.uuid, stream->uuid, sizeof(packet.uuid));
	ret = tc_consumerd_relay_control_drain_replies(relay, true);
	/* The relay does not answer metadata. */
	return ret < 0 ? ret : tc_consumerd_relay_socket_send_all(relay->control_fd, iov, 4);
}

/* Sends stream's ADD_STREAM, whose reply tc_consumerd_relay_announce_answered() reads. */
int
tc_consumerd_relay_announce_ask(struct tc_consumerd_relay *relay,
				const struct tc_consumerd_relay_stream *stream)
{
	char buf[COMMAND_MAX], name[CONSUMERD_RELAY_FILE_NAME_MAX + 16];
	int len, ret;

	ret = stream_file_name(relay, stream, name, sizeof(name));
	if (ret < 0)
		return ret;
	len = tc_consumerd_relay_wire_encode_add_stream(buf, sizeof(buf), name, stream->path,
							relay->chunk_id);
	if (len < 0)
		return len;
	return tc_consumerd_relay_control_send_command(relay, TC_RELAY_ADD_STREAM, buf,
						       (size_t)len);
}

/* Reads the reply of stream's ADD_STREAM; a metadata stream then gets
 * the whole metadata known so far. */
int
tc_consumerd_relay_announce_answered(struct tc_consumerd_relay *relay,
				     struct tc_consumerd_relay_stream *stream)
{
	struct tc_relay_status_stream reply;
	int ret = tc_consumerd_relay_socket_recv_reply(relay, &reply, sizeof(reply));

	if (ret < 0)
		return ret;
	if (be32toh(reply.ret_code) != TC_RELAY_LTTNG_OK)
		return -EPROTO;
	stream->handle = be64toh(reply.handle);
	stream->added = true;
	stream->net_seq = 0;
	stream->packets_on_connection = 0;
	if (stream->is_metadata && stream->metadata_size > 0)
		return tc_consumerd_relay_announce_metadata_range(relay, stream, stream->metadata,
								  stream->metadata_size);
	return 0;
}

int
tc_consumerd_relay_announce_stream(struct tc_consumerd_relay *relay,
				   struct tc_consumerd_relay_stream *stream)
{
	int ret = tc_consumerd_relay_control_drain_replies(relay, true);

	if (ret == 0)
		ret = tc_consumerd_relay_announce_ask(relay, stream);
	return ret < 0 ? ret : tc_consumerd_relay_announce_answered(relay, stream);
}

