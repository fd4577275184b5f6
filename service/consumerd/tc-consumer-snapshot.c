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
 */
#include "tc-consumer-session.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tc-consumer-log.h"
#include "tc-consumer-output.h"
#include "tc-consumer-stream.h"

#define COPY_CHUNK 65536

static int
copy_metadata(int metadata_fd, uint64_t size, int dir_fd)
{
	uint64_t written = 0, offset = 0;
	char *chunk;
	int fd, ret = 0;

	fd = consumerd_output_create_file(dir_fd, "metadata");
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
		ret = consumerd_output_append(fd, &written, chunk, (size_t)n);
		if (ret < 0)
			break;
		offset += (uint64_t)n;
	}
	if (ret == 0)
		ret = consumerd_output_sync(fd);
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

static int
snapshot_stream(struct consumerd_stream *stream, uint8_t *packet, int dir_fd,
		uint64_t max_bytes, uint64_t *packets)
{
	uint32_t subbuf_size = stream->reader.rb.subbuf_size;
	char name[NAME_MAX + 1];
	uint64_t begin, end, size = 0;
	int fd, ret = 0;

	if (snprintf(name, sizeof(name), "%s_%" PRIu32, stream->channel_name, stream->cpu) >=
	    (int)sizeof(name))
		return -ENAMETOOLONG;
	fd = consumerd_output_create_file(dir_fd, name);
	if (fd < 0)
		return fd;
	consumerd_stream_close_current(stream, true);
	tc_rb_reader_snapshot_range(&stream->reader, &begin, &end);
	keep_newest(&begin, end, subbuf_size, max_bytes);
	for (uint64_t position = begin; position != end; position += subbuf_size) {
		if (tc_rb_reader_peek(&stream->reader, position, packet) != 1)
			continue;
		if (consumerd_packet_check(stream->layouts, packet, subbuf_size) !=
		    CONSUMERD_PACKET_VALID) {
			stream->reader.packets_corrupted++;
			continue;
		}
		ret = consumerd_output_append(fd, &size, packet, subbuf_size);
		if (ret < 0)
			break;
		(*packets)++;
	}
	if (ret == 0)
		ret = consumerd_output_sync(fd);
	close(fd);
	return ret;
}

int
consumerd_session_snapshot(struct consumerd_session *session, const char *dir,
			   uint64_t max_stream_bytes, uint64_t *packets)
{
	int dir_fd, ret;

	*packets = 0;
	dir_fd = consumerd_output_open_dir(dir);
	if (dir_fd < 0)
		return dir_fd;
	ret = copy_metadata(session->metadata_fd, session->metadata_size, dir_fd);
	for (struct consumerd_channel *channel = session->channels; channel && ret == 0;
	     channel = channel->next) {
		for (uint32_t cpu = 0; cpu < channel->nr_cpus && ret == 0; cpu++)
			ret = snapshot_stream(&channel->streams[cpu], channel->packet, dir_fd,
					      max_stream_bytes, packets);
	}
	close(dir_fd);
	if (ret < 0)
		consumerd_warning("session=%" PRIu64 ": Snapshot into \"%s\" failed: %s",
				  session->session_id, dir, strerror(-ret));
	else
		consumerd_info("session=%" PRIu64 ": Snapshot of %" PRIu64 " packets in \"%s\"",
			       session->session_id, *packets, dir);
	return ret;
}
