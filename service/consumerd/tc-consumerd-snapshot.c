/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Snapshots of a snapshot session: the metadata kept in memory and what
 * the overwrite-mode buffers hold now, written into a new directory,
 * without consuming anything, so tracing goes on and a later snapshot
 * holds the data that is newest then.
 *
 *   open the directory -> copy the metadata
 *     -> per stream: close the sub-buffer being filled (tc_rb_flush()),
 *        then peek every complete packet of the last buffer's worth, oldest
 *        first, into "<channel>_<cpu>"
 *     -> fdatasync every file
 *
 * A snapshot to a relay (tc_consumerd_snapshot_relay()) walks the
 * same packets but sends them: a relay session of its own, the metadata
 * and one stream per buffer under the snapshot's path, then every stream
 * closed and the relay session ended, so the relay holds a whole trace
 * that no later packet reaches.
 */
#include "tc-consumerd-snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tc-consumerd-log.h"
#include "tc-consumerd-lttng.h"
#include "tc-consumerd-output.h"
#include "tc-consumerd-relay.h"
#include "tc-consumerd-stream.h"

#define COPY_CHUNK 65536

static int
copy_metadata(int metadata_fd, uint64_t size, int dir_fd)
{
	uint64_t written = 0, offset = 0;
	char *chunk;
	int fd, ret = 0;

	fd = tc_consumerd_output_create_file(dir_fd, "metadata");
	if (fd < 0)
		return fd;
	chunk = malloc(COPY_CHUNK);
	if (!chunk) {
		close(fd);
		return -ENOMEM;
	}
	while (offset < size) {
		ssize_t n = pread(metadata_fd, chunk, COPY_CHUNK, (off_t)offset);

		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			break;
		}
		ret = tc_consumerd_output_append(fd, &written, chunk, (size_t)n);
		if (ret < 0)
			break;
		offset += (uint64_t)n;
	}
	if (ret == 0)
		ret = tc_consumerd_output_sync(fd);
	free(chunk);
	close(fd);
	return ret;
}

/* Moves *begin forward so that [begin, end) holds at most max_bytes of
 * whole sub-buffers, the newest. Positions are free-running counters, so
 * the distance is taken modulo 2^64. */
static void
keep_newest(uint64_t *begin, uint64_t end, uint32_t subbuf_size, uint64_t max_bytes)
{
	uint64_t keep = max_bytes / subbuf_size;

	if (max_bytes != 0 && (end - *begin) / subbuf_size > keep)
		*begin = end - keep * subbuf_size;
}

/* Where the packets of one stream's snapshot go: appended to a file, or
 * sent to a relay stream. Returns 0 or -errno. */
struct snapshot_sink {
	int fd;
	uint64_t file_size;
	struct tc_consumerd_relay *relay;
	struct tc_consumerd_relay_stream *relay_stream;
};

static int
sink_put(struct snapshot_sink *sink, const uint8_t *packet, uint32_t size)
{
	int ret;

	if (!sink->relay)
		return tc_consumerd_output_append(sink->fd, &sink->file_size, packet, size);
	ret = tc_consumerd_relay_send_packet(sink->relay, sink->relay_stream, packet, size);
	/* A snapshot's relay is connected first: nothing is held (1). */
	return ret > 0 ? 0 : ret;
}

/* Every complete, valid packet the stream's buffer holds, oldest first,
 * at most max_bytes of them (the newest), into sink. */
static int
snapshot_packets(struct tc_consumerd_stream *stream, uint8_t *packet, uint64_t max_bytes,
		 struct snapshot_sink *sink, uint64_t *packets)
{
	uint32_t subbuf_size = stream->reader.rb.subbuf_size;
	uint64_t begin, end;
	int ret = 0;

	tc_consumerd_stream_close_current(stream, true);
	tc_rb_reader_snapshot_range(&stream->reader, &begin, &end);
	keep_newest(&begin, end, subbuf_size, max_bytes);
	for (uint64_t position = begin; position != end; position += subbuf_size) {
		if (tc_rb_reader_peek(&stream->reader, position, packet) != 1)
			continue;
		if (tc_consumerd_layout_check_packet(stream->layouts, packet, subbuf_size) !=
		    CONSUMERD_PACKET_VALID) {
			stream->reader.packets_corrupted++;
			continue;
		}
		ret = sink_put(sink, packet, tc_rb_reader_trim(&stream->reader, packet));
		if (ret < 0)
			break;
		(*packets)++;
	}
	return ret;
}

static int
stream_file_name(const struct tc_consumerd_stream *stream, char *name, size_t size)
{
	if (snprintf(name, size, "%s_%" PRIu32, stream->channel_name, stream->cpu) >= (int)size)
		return -ENAMETOOLONG;
	return 0;
}

static int
snapshot_stream(struct tc_consumerd_stream *stream, uint8_t *packet, int dir_fd, uint64_t max_bytes,
		uint64_t *packets)
{
	struct snapshot_sink sink = {.fd = -1};
	char name[NAME_MAX + 1];
	int ret = stream_file_name(stream, name, sizeof(name));

	if (ret < 0)
		return ret;
	sink.fd = tc_consumerd_output_create_file(dir_fd, name);
	if (sink.fd < 0)
		return sink.fd;
	ret = snapshot_packets(stream, packet, max_bytes, &sink, packets);
	if (ret == 0)
		ret = tc_consumerd_output_sync(sink.fd);
	close(sink.fd);
	return ret;
}

int
tc_consumerd_snapshot_session(struct tc_consumerd_session *session, const char *dir,
			      uint64_t max_stream_bytes, uint64_t *packets)
{
	int dir_fd, ret;

	*packets = 0;
	dir_fd = tc_consumerd_output_open_dir(dir);
	if (dir_fd < 0)
		return dir_fd;
	ret = copy_metadata(session->metadata_fd, session->metadata_size, dir_fd);
	for (struct tc_consumerd_channel *channel = session->channels; channel && ret == 0;
	     channel = channel->next) {
		for (uint32_t cpu = 0; cpu < channel->nr_cpus && ret == 0; cpu++)
			ret = snapshot_stream(&channel->streams[cpu], channel->packet, dir_fd,
					      max_stream_bytes, packets);
	}
	for (struct tc_consumerd_lttng_channel *lttng = session->lttng_channels; lttng && ret == 0;
	     lttng = *tc_consumerd_lttng_channel_next(lttng))
		ret = tc_consumerd_lttng_channel_snapshot(lttng, dir_fd, max_stream_bytes, packets);
	close(dir_fd);
	if (ret < 0)
		tc_consumerd_warning("session=%" PRIu64 ": Snapshot into \"%s\" failed: %s",
				     session->session_id, dir, strerror(-ret));
	else
		tc_consumerd_info("session=%" PRIu64 ": Snapshot of %" PRIu64 " packets in \"%s\"",
				  session->session_id, *packets, dir);
	return ret;
}

/* The session's whole metadata so far, sent as one piece. */
static int
send_metadata(const struct tc_consumerd_session *session, struct tc_consumerd_relay *relay,
	      struct tc_consumerd_relay_stream *stream)
{
	char *text;
	int ret;

	if (session->metadata_size == 0)
		return 0;
	if (session->metadata_size > SIZE_MAX / 2)
		return -EFBIG;
	text = malloc(session->metadata_size);
	if (!text)
		return -ENOMEM;
	ret = 0;
	if (pread(session->metadata_fd, text, session->metadata_size, 0) !=
	    (ssize_t)session->metadata_size)
		ret = -EIO;
	if (ret == 0)
		ret = tc_consumerd_relay_send_metadata(relay, stream, text, session->metadata_size);
	free(text);
	return ret;
}

static size_t
session_stream_count(const struct tc_consumerd_session *session)
{
	size_t count = 0;

	for (const struct tc_consumerd_channel *channel = session->channels; channel;
	     channel = channel->next)
		count += channel->nr_cpus;
	for (struct tc_consumerd_lttng_channel *lttng = session->lttng_channels; lttng;
	     lttng = *tc_consumerd_lttng_channel_next(lttng))
		count += tc_consumerd_lttng_channel_nr_streams(lttng);
	return count;
}

/* The relay streams of the session's LTTng-UST channels, after its own
 * channels' (from *i on), in channel and stream order. */
static int
add_lttng_relay_streams(struct tc_consumerd_session *session, struct tc_consumerd_relay *relay,
			const char *trace_path, struct tc_consumerd_relay_stream *streams,
			size_t i)
{
	int ret = 0;

	for (struct tc_consumerd_lttng_channel *lttng = session->lttng_channels; lttng && ret == 0;
	     lttng = *tc_consumerd_lttng_channel_next(lttng)) {
		for (uint32_t n = 0; n < tc_consumerd_lttng_channel_nr_streams(lttng) && ret == 0;
		     n++, i++) {
			char name[NAME_MAX + 1];

			if (snprintf(name, sizeof(name), "%s_%" PRIu32,
				     tc_consumerd_lttng_channel_name(lttng), n) >= (int)sizeof(name))
				return -ENAMETOOLONG;
			ret = tc_consumerd_relay_stream_add(relay, &streams[i], name, trace_path,
							    false);
		}
	}
	return ret;
}

/* Adds the metadata and one relay stream per buffer, in channel and CPU
 * order (the LTTng-UST channels' last), then tells the relay they are
 * all there. */
static int
add_relay_streams(struct tc_consumerd_session *session, struct tc_consumerd_relay *relay,
		  const char *trace_path, struct tc_consumerd_relay_stream *metadata,
		  struct tc_consumerd_relay_stream *streams)
{
	size_t i = 0;
	int ret = tc_consumerd_relay_stream_add(relay, metadata, "metadata", trace_path, true);

	for (struct tc_consumerd_channel *channel = session->channels; channel && ret == 0;
	     channel = channel->next) {
		for (uint32_t cpu = 0; cpu < channel->nr_cpus && ret == 0; cpu++, i++) {
			char name[NAME_MAX + 1];

			ret = stream_file_name(&channel->streams[cpu], name, sizeof(name));
			if (ret == 0)
				ret = tc_consumerd_relay_stream_add(relay, &streams[i], name,
								    trace_path, false);
		}
	}
	if (ret == 0)
		ret = add_lttng_relay_streams(session, relay, trace_path, streams, i);
	if (ret == 0)
		ret = send_metadata(session, relay, metadata);
	if (ret == 0)
		tc_consumerd_relay_streams_sent(relay);
	return ret;
}

struct lttng_relay_sink {
	struct tc_consumerd_relay *relay;
	struct tc_consumerd_relay_stream *stream;
};

static int
lttng_relay_put(void *data, const struct tc_consumerd_lttng_packet *packet)
{
	const struct lttng_relay_sink *sink = data;
	const struct tc_consumerd_relay_packet_info info = {
	    .packet_size = packet->packet_size,
	    .content_size = packet->content_size,
	    .timestamp_begin = packet->timestamp_begin,
	    .timestamp_end = packet->timestamp_end,
	    .events_discarded = packet->events_discarded,
	    .stream_id = packet->stream_id,
	    .stream_instance_id = packet->stream_instance_id,
	    .packet_seq_num = packet->packet_seq_num,
	};

	return tc_consumerd_relay_send_packet_with_info(sink->relay, sink->stream, packet->data,
							packet->size, &info);
}

/* The LTTng-UST channels' snapshots, to their relay streams (from *i
 * on). */
static int
send_lttng_relay_snapshot(struct tc_consumerd_session *session, struct tc_consumerd_relay *relay,
			  struct tc_consumerd_relay_stream *streams, size_t i,
			  uint64_t max_stream_bytes, uint64_t *packets)
{
	int ret = 0;

	for (struct tc_consumerd_lttng_channel *lttng = session->lttng_channels; lttng && ret == 0;
	     lttng = *tc_consumerd_lttng_channel_next(lttng)) {
		for (uint32_t n = 0; n < tc_consumerd_lttng_channel_nr_streams(lttng) && ret == 0;
		     n++, i++) {
			struct lttng_relay_sink sink = {.relay = relay, .stream = &streams[i]};

			ret = tc_consumerd_lttng_stream_snapshot(lttng, n, max_stream_bytes,
								 lttng_relay_put, &sink, packets);
		}
	}
	return ret;
}

static int
send_relay_snapshot(struct tc_consumerd_session *session, struct tc_consumerd_relay *relay,
		    const char *trace_path, uint64_t max_stream_bytes, uint64_t *packets)
{
	size_t count = session_stream_count(session), i = 0;
	struct tc_consumerd_relay_stream metadata = {0};
	struct tc_consumerd_relay_stream *streams = calloc(count ? count : 1, sizeof(*streams));
	int ret;

	if (!streams)
		return -ENOMEM;
	ret = add_relay_streams(session, relay, trace_path, &metadata, streams);
	for (struct tc_consumerd_channel *channel = session->channels; channel && ret == 0;
	     channel = channel->next) {
		for (uint32_t cpu = 0; cpu < channel->nr_cpus && ret == 0; cpu++, i++) {
			struct snapshot_sink sink = {
			    .fd = -1, .relay = relay, .relay_stream = &streams[i]};

			ret = snapshot_packets(&channel->streams[cpu], channel->packet,
					       max_stream_bytes, &sink, packets);
		}
	}
	if (ret == 0)
		ret = send_lttng_relay_snapshot(session, relay, streams, i, max_stream_bytes,
						packets);
	/* The relay has it all once it acknowledged what came before the
	 * closes; a relay that went away meanwhile (-ENOTCONN) fails the
	 * snapshot. */
	if (ret == 0)
		ret = tc_consumerd_relay_wait_received(relay, CONSUMERD_RELAY_IO_TIMEOUT_MS);
	for (size_t j = 0; j < count; j++)
		tc_consumerd_relay_stream_remove(relay, &streams[j]);
	tc_consumerd_relay_stream_remove(relay, &metadata);
	free(metadata.metadata);
	free(streams);
	return ret;
}

int
tc_consumerd_snapshot_relay(struct tc_consumerd_session *session,
			    const struct tc_consumer_relay_output *out, const char *trace_path,
			    uint64_t max_stream_bytes, uint64_t *packets, char *error,
			    size_t error_size)
{
	struct tc_consumerd_relay *relay = NULL;
	struct tc_consumer_relay_output now = *out;
	struct tc_consumerd_relay_status status = {0};
	int ret;

	/* A snapshot is sent now or refused, never later. */
	now.flags &= ~TC_CONSUMER_RELAY_CONNECT_LATER;
	*packets = 0;
	ret = tc_consumerd_relay_open(&now, session->session_id, &relay, error, error_size);
	if (ret < 0)
		return ret;
	ret = send_relay_snapshot(session, relay, trace_path, max_stream_bytes, packets);
	tc_consumerd_relay_get_status(relay, &status);
	tc_consumerd_relay_close(relay);
	/* A failed exchange takes the relay down, and the steps after it
	 * only see it down: the relay's own error says why. */
	if (ret == -ENOTCONN && status.last_error < 0)
		ret = status.last_error;
	if (ret < 0) {
		snprintf(error, error_size, "Cannot send the snapshot to the relay at %s: %s",
			 status.address, strerror(-ret));
		tc_consumerd_warning("session=%" PRIu64 ": %s", session->session_id, error);
	} else {
		tc_consumerd_info("session=%" PRIu64 ": Snapshot of %" PRIu64
				  " packets sent to the relay at %s under \"%s\"",
				  session->session_id, *packets, status.address, trace_path);
	}
	return ret;
}
