/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A kernel flight recorder's snapshot, to its two kinds of output:
 *
 *   directory: "metadata", then "kernel_<cpu>" for each CPU, each file
 *              fdatasync'ed before the next is made
 *   relay:     a relay session of its own (as a user-space snapshot's,
 *              tc-consumerd-snapshot.c), the metadata stream and one stream
 *              per CPU added first, then the metadata and the packets sent,
 *              the streams closed once the relay acknowledged them
 */
#include "tc-consumerd-kernel-snapshot.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tc-consumerd-kernel.h"
#include "tc-consumerd-log.h"
#include "tc-consumerd-output.h"
#include "tc-consumerd-relay.h"

struct dir_sink {
	int dir_fd;
	int fd; /* the file being written, or -1 */
	uint64_t size;
};

/* Syncs and closes the file being written. */
static int
dir_sink_close(struct dir_sink *sink)
{
	int ret = 0;

	if (sink->fd >= 0) {
		ret = tc_consumerd_output_sync(sink->fd);
		close(sink->fd);
	}
	sink->fd = -1;
	sink->size = 0;
	return ret;
}

static int
dir_sink_open(struct dir_sink *sink, const char *name)
{
	int ret = dir_sink_close(sink);

	if (ret < 0)
		return ret;
	sink->fd = tc_consumerd_output_create_file(sink->dir_fd, name);
	return sink->fd < 0 ? sink->fd : 0;
}

static int
dir_metadata(void *data, const char *text, size_t len)
{
	struct dir_sink *sink = data;
	int ret = dir_sink_open(sink, "metadata");

	return ret < 0 ? ret : tc_consumerd_output_append(sink->fd, &sink->size, text, len);
}

static int
dir_stream(void *data, uint32_t cpu)
{
	char name[32];

	snprintf(name, sizeof(name), "kernel_%" PRIu32, cpu);
	return dir_sink_open(data, name);
}

static int
dir_packet(void *data, const uint8_t *packet, uint32_t size)
{
	struct dir_sink *sink = data;

	return tc_consumerd_output_append(sink->fd, &sink->size, packet, size);
}

int
tc_consumerd_kernel_snapshot_dir(struct tc_consumerd_session *session, const char *dir,
				 uint64_t max_stream_bytes, uint64_t *packets)
{
	struct dir_sink sink = {.fd = -1};
	const struct tc_consumerd_kernel_snapshot_sink callbacks = {
	    .metadata = dir_metadata, .stream = dir_stream, .packet = dir_packet, .data = &sink};
	int ret, closed;

	*packets = 0;
	if (!session->kernel)
		return -ENOENT;
	sink.dir_fd = tc_consumerd_output_open_dir(dir);
	if (sink.dir_fd < 0)
		return sink.dir_fd;
	ret = tc_consumerd_kernel_trace_snapshot(session->kernel, max_stream_bytes, &callbacks,
						 packets);
	closed = dir_sink_close(&sink);
	close(sink.dir_fd);
	if (ret == 0)
		ret = closed;
	if (ret < 0)
		tc_consumerd_warning("session=%" PRIu64 ": Kernel snapshot into \"%s\" failed: %s",
				     session->session_id, dir, strerror(-ret));
	else
		tc_consumerd_info("session=%" PRIu64 ": Kernel snapshot of %" PRIu64
				  " packets in \"%s\"",
				  session->session_id, *packets, dir);
	return ret;
}

struct relay_sink {
	struct tc_consumerd_relay *relay;
	struct tc_consumerd_relay_stream metadata;
	struct tc_consumerd_relay_stream *streams; /* one per CPU */
	uint32_t nr_streams;
	struct tc_consumerd_relay_stream *current;
};

static int
relay_metadata(void *data, const char *text, size_t len)
{
	struct relay_sink *sink = data;
	int ret = tc_consumerd_relay_send_metadata(sink->relay, &sink->metadata, text, len);

	if (ret == 0)
		tc_consumerd_relay_streams_sent(sink->relay);
	return ret;
}

static int
relay_stream(void *data, uint32_t cpu)
{
	struct relay_sink *sink = data;

	if (cpu >= sink->nr_streams)
		return -EINVAL;
	sink->current = &sink->streams[cpu];
	return 0;
}

static int
relay_packet(void *data, const uint8_t *packet, uint32_t size)
{
	struct relay_sink *sink = data;
	int ret = tc_consumerd_relay_send_packet(sink->relay, sink->current, packet, size);

	/* A snapshot's relay is connected first: nothing is held (1). */
	return ret > 0 ? 0 : ret;
}

/* The metadata stream and one per CPU, added before anything is sent. */
static int
relay_add_streams(struct relay_sink *sink, const char *trace_path)
{
	int ret = tc_consumerd_relay_stream_add(sink->relay, &sink->metadata, "metadata",
						trace_path, true);

	for (uint32_t cpu = 0; cpu < sink->nr_streams && ret == 0; cpu++) {
		char name[32];

		snprintf(name, sizeof(name), "kernel_%" PRIu32, cpu);
		ret = tc_consumerd_relay_stream_add(sink->relay, &sink->streams[cpu], name,
						    trace_path, false);
	}
	return ret;
}

static int
send_relay(struct tc_consumerd_session *session, struct relay_sink *sink, const char *trace_path,
	   uint64_t max_stream_bytes, uint64_t *packets)
{
	const struct tc_consumerd_kernel_snapshot_sink callbacks = {
	    .metadata = relay_metadata, .stream = relay_stream, .packet = relay_packet, .data = sink};
	int ret;

	sink->nr_streams = tc_consumerd_kernel_trace_nr_cpus(session->kernel);
	sink->streams = calloc(sink->nr_streams, sizeof(*sink->streams));
	if (!sink->streams)
		return -ENOMEM;
	ret = relay_add_streams(sink, trace_path);
	if (ret == 0)
		ret = tc_consumerd_kernel_trace_snapshot(session->kernel, max_stream_bytes,
							 &callbacks, packets);
	if (ret == 0)
		ret = tc_consumerd_relay_wait_received(sink->relay, CONSUMERD_RELAY_IO_TIMEOUT_MS);
	for (uint32_t cpu = 0; cpu < sink->nr_streams; cpu++)
		if (sink->streams[cpu].path)
			tc_consumerd_relay_stream_remove(sink->relay, &sink->streams[cpu]);
	if (sink->metadata.path)
		tc_consumerd_relay_stream_remove(sink->relay, &sink->metadata);
	free(sink->metadata.metadata);
	free(sink->streams);
	return ret;
}

int
tc_consumerd_kernel_snapshot_relay(struct tc_consumerd_session *session,
				   const struct tc_consumer_relay_output *out,
				   const char *trace_path, uint64_t max_stream_bytes,
				   uint64_t *packets, char *error, size_t error_size)
{
	struct relay_sink sink = {0};
	struct tc_consumer_relay_output now = *out;
	struct tc_consumerd_relay_status status = {0};
	int ret;

	*packets = 0;
	if (!session->kernel)
		return -ENOENT;
	/* A snapshot is sent now or refused, never later. */
	now.flags &= ~TC_CONSUMER_RELAY_CONNECT_LATER;
	ret = tc_consumerd_relay_open(&now, session->session_id, &sink.relay, error, error_size);
	if (ret < 0)
		return ret;
	ret = send_relay(session, &sink, trace_path, max_stream_bytes, packets);
	tc_consumerd_relay_get_status(sink.relay, &status);
	tc_consumerd_relay_close(sink.relay);
	if (ret == -ENOTCONN && status.last_error < 0)
		ret = status.last_error;
	if (ret < 0) {
		snprintf(error, error_size, "Cannot send the kernel snapshot to the relay at %s: %s",
			 status.address, strerror(-ret));
		tc_consumerd_warning("session=%" PRIu64 ": %s", session->session_id, error);
	} else {
		tc_consumerd_info("session=%" PRIu64 ": Kernel snapshot of %" PRIu64
				  " packets sent to the relay at %s under \"%s\"",
				  session->session_id, *packets, status.address, trace_path);
	}
	return ret;
}
