/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The session registry and what happens to a whole session: creation,
 * metadata, flush, destruction, and the periodic drain.
 *
 * Flush protocol, for one session:
 *
 *   tc_rb_flush() every stream, note each stream's flush target
 *     -> drain every stream (bounded per pass)
 *     -> some stream still below its target? sleep 1 ms and drain again,
 *        until CONSUMERD_FLUSH_WAIT_MS have passed
 *     -> fdatasync() every stream file and the metadata file
 *
 * A stream stays below its target only while a writer that reserved space
 * before the flush has not committed it yet: normally microseconds, forever
 * if the application died or scribbled over its buffer, hence the deadline.
 */
#include "tc-consumerd-session.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "tc-consumer-abi.h"
#include "tc-consumerd-channel.h"
#include "tc-consumerd-log.h"
#include "tc-consumerd-output.h"
#include "tc-consumerd-stream.h"
#include "tc-consumerd-writer.h"

#define METADATA_FILE_NAME "metadata"
#define FLUSH_POLL_INTERVAL_NS 1000000L

struct tc_consumerd_session *
tc_consumerd_session_find(const struct tc_consumerd_registry *registry, uint64_t session_id)
{
	struct tc_consumerd_session *session;

	for (session = registry->sessions; session; session = session->next) {
		if (session->session_id == session_id)
			return session;
	}
	return NULL;
}

struct tc_consumerd_channel *
tc_consumerd_session_find_channel(const struct tc_consumerd_session *session, uint64_t channel_id)
{
	struct tc_consumerd_channel *channel;

	for (channel = session->channels; channel; channel = channel->next) {
		if (channel->channel_id == channel_id)
			return channel;
	}
	return NULL;
}

struct tc_consumerd_channel *
tc_consumerd_session_find_stream_id(const struct tc_consumerd_session *session, uint32_t stream_id)
{
	struct tc_consumerd_channel *channel;

	for (channel = session->channels; channel; channel = channel->next) {
		if (channel->stream_id == stream_id)
			return channel;
	}
	return NULL;
}

/* A snapshot session keeps its metadata in memory until a snapshot. */
static int
session_create_in_memory(struct tc_consumerd_session *session)
{
	int fd = memfd_create("tracectl-metadata", MFD_CLOEXEC);

	if (fd < 0)
		return -errno;
	session->dir_fd = -1;
	session->metadata_fd = fd;
	return 0;
}

/* A streaming session: the relay holds the trace; the metadata is kept
 * in memory too, for snapshots. */
static int
session_create_relay(struct tc_consumerd_session *session,
		     const struct tc_consumer_relay_output *relay, char *error, size_t error_size)
{
	int ret = session_create_in_memory(session);

	if (ret < 0)
		return ret;
	ret =
	    tc_consumerd_relay_open(relay, session->session_id, &session->relay, error, error_size);
	if (ret == 0)
		ret = tc_consumerd_relay_stream_add(session->relay, &session->relay_metadata,
						    METADATA_FILE_NAME, session->trace_dir, true);
	if (ret < 0) {
		tc_consumerd_relay_close(session->relay);
		session->relay = NULL;
		close(session->metadata_fd);
	}
	return ret;
}

int
tc_consumerd_session_create(struct tc_consumerd_registry *registry, uint64_t session_id,
			    const char *trace_dir, uint32_t flags,
			    const struct tc_consumer_relay_output *relay, char *error,
			    size_t error_size)
{
	struct tc_consumerd_session *session;
	size_t dir_len = strlen(trace_dir);
	int ret;

	if (tc_consumerd_session_find(registry, session_id))
		return -EEXIST;
	session = calloc(1, sizeof(*session) + dir_len + 1);
	if (!session)
		return -ENOMEM;
	session->session_id = session_id;
	session->metadata_fd = -1;
	session->snapshot = (flags & TC_CONSUMER_SESSION_SNAPSHOT) != 0;
	memcpy(session->trace_dir, trace_dir, dir_len + 1);
	/* A snapshot session with a relay connects at each snapshot only
	 * (tc_consumerd_snapshot_relay()): until then it is in memory. */
	if ((flags & TC_CONSUMER_SESSION_RELAY) && !session->snapshot) {
		ret = session_create_relay(session, relay, error, error_size);
		if (ret < 0)
			goto fail;
		goto done;
	}
	if (session->snapshot) {
		ret = session_create_in_memory(session);
		if (ret < 0)
			goto fail;
		goto done;
	}
	ret = tc_consumerd_output_open_dir(trace_dir);
	if (ret < 0)
		goto fail;
	session->dir_fd = ret;
	ret = tc_consumerd_output_create_file(session->dir_fd, METADATA_FILE_NAME);
	if (ret < 0) {
		close(session->dir_fd);
		goto fail;
	}
	session->metadata_fd = ret;
done:
	session->next = registry->sessions;
	registry->sessions = session;
	tc_consumerd_info("session=%" PRIu64 ": Created, writing to %s\"%s\"", session_id,
			  session->relay ? "the relay, under " : "", trace_dir);
	return 0;

fail:
	free(session);
	return ret;
}

int
tc_consumerd_session_create_channel(struct tc_consumerd_session *session,
				    const struct tc_consumerd_channel_spec *spec,
				    struct tc_consumerd_channel **result)
{
	const struct tc_consumerd_stream_place place = {
	    .session_id = session->session_id,
	    .dir_fd = session->dir_fd,
	    .relay = session->relay,
	    .trace_dir = session->trace_dir,
	};
	struct tc_consumerd_channel *channel;
	int ret;

	ret = tc_consumerd_channel_new(&place, spec, &channel);
	if (ret < 0)
		return ret;
	channel->next = session->channels;
	session->channels = channel;
	/* Live viewers see the new streams from now on. */
	if (session->relay)
		tc_consumerd_relay_streams_sent(session->relay);
	tc_consumerd_info(
	    "session=%" PRIu64 ": Created channel \"%s\" (id %" PRIu64 ", stream id %" PRIu32
	    ", %" PRIu32 " CPUs, %" PRIu32 " x %" PRIu32 " bytes)",
	    session->session_id, channel->name, channel->channel_id, channel->stream_id,
	    channel->nr_cpus, channel->num_subbuf, channel->subbuf_size);
	*result = channel;
	return 0;
}

int
tc_consumerd_session_append_metadata(struct tc_consumerd_session *session, const void *text,
				     size_t len)
{
	int ret =
	    tc_consumerd_output_append(session->metadata_fd, &session->metadata_size, text, len);

	if (ret == 0 && session->relay)
		ret = tc_consumerd_relay_send_metadata(session->relay, &session->relay_metadata,
						       text, len);
	if (ret < 0)
		tc_consumerd_warning("session=%" PRIu64
				     ": Failed to append %zu bytes of metadata: %s",
				     session->session_id, len, strerror(-ret));
	return ret;
}

static uint64_t
monotonic_ns(void)
{
	return tc_rb_clock_now();
}

/* Drains every stream of the session once. Returns true when a stream is
 * still below its flush target. */
static bool
session_drain(struct tc_consumerd_session *session)
{
	bool is_behind = false;

	for (struct tc_consumerd_channel *channel = session->channels; channel;
	     channel = channel->next) {
		for (uint32_t cpu = 0; cpu < channel->nr_cpus; cpu++) {
			struct tc_consumerd_stream *stream = &channel->streams[cpu];

			tc_consumerd_stream_drain(stream, channel->packet);
			if (tc_consumerd_stream_is_behind(stream))
				is_behind = true;
		}
	}
	return is_behind;
}

static void
session_drain_until_flushed(struct tc_consumerd_session *session)
{
	const uint64_t deadline = monotonic_ns() + CONSUMERD_FLUSH_WAIT_MS * 1000000ull;
	const struct timespec interval = {.tv_sec = 0, .tv_nsec = FLUSH_POLL_INTERVAL_NS};

	for (struct tc_consumerd_channel *channel = session->channels; channel;
	     channel = channel->next) {
		for (uint32_t cpu = 0; cpu < channel->nr_cpus; cpu++)
			tc_consumerd_stream_flush_begin(&channel->streams[cpu], channel->packet);
	}
	while (session_drain(session)) {
		if (monotonic_ns() >= deadline) {
			tc_consumerd_warning("session=%" PRIu64
					     ": Writers did not commit within %d ms "
					     "of the flush, their last packets are missing",
					     session->session_id, CONSUMERD_FLUSH_WAIT_MS);
			break;
		}
		/* EINTR only shortens one interval; the deadline bounds the loop. */
		nanosleep(&interval, NULL);
	}
}

/* Syncs every file of the session. Returns 0 or the first error. */
static int
session_sync(struct tc_consumerd_session *session)
{
	int ret, first_error = 0;

	for (struct tc_consumerd_channel *channel = session->channels; channel;
	     channel = channel->next) {
		for (uint32_t cpu = 0; cpu < channel->nr_cpus; cpu++) {
			const struct tc_consumerd_stream *stream = &channel->streams[cpu];

			if (stream->file_fd < 0)
				continue;
			ret = tc_consumerd_output_sync(stream->file_fd);
			if (ret < 0 && first_error == 0)
				first_error = ret;
		}
	}
	ret = tc_consumerd_output_sync(session->metadata_fd);
	if (ret < 0 && first_error == 0)
		first_error = ret;
	if (first_error < 0)
		tc_consumerd_warning("session=%" PRIu64 ": Failed to sync the trace to disk: %s",
				     session->session_id, strerror(-first_error));
	return first_error;
}

int
tc_consumerd_session_flush(struct tc_consumerd_session *session)
{
	struct tc_consumerd_totals totals;
	uint64_t give_up = tc_rb_clock_now() + CONSUMERD_RELAY_FLUSH_BUDGET_MS * 1000000ull;

	/* A slow relay is given so long, not the time its packets take. */
	if (session->relay_flush_deadline && session->relay_flush_deadline < give_up)
		give_up = session->relay_flush_deadline;
	if (session->relay)
		tc_consumerd_relay_set_give_up(session->relay, give_up);
	session_drain_until_flushed(session);
	/* The trace is complete once the writer thread wrote it out. */
	tc_consumerd_writer_wait_idle();
	if (session->kernel)
		tc_consumerd_kernel_trace_drain(session->kernel);
	/* Stopped means the relay has it all, as it means on disk. */
	if (session->relay && tc_consumerd_relay_wait_received(
				  session->relay, CONSUMERD_RELAY_IO_TIMEOUT_MS) == -ETIMEDOUT)
		tc_consumerd_warning("session=%" PRIu64 ": The relay did not confirm the last "
				     "packets within %d ms",
				     session->session_id, CONSUMERD_RELAY_IO_TIMEOUT_MS);
	if (session->own)
		tc_consumerd_kernel_own_drain(session->own);
	for (struct tc_consumerd_lttng_channel *lttng = session->lttng_channels; lttng;
	     lttng = *tc_consumerd_lttng_channel_next(lttng))
		tc_consumerd_lttng_channel_flush(lttng);
	if (session->relay)
		tc_consumerd_relay_set_give_up(session->relay, 0);
	tc_consumerd_session_totals(session, &totals);
	tc_consumerd_debug("session=%" PRIu64 ": Flushed: %" PRIu64 " packets written, %" PRIu64
			   " corrupt, %" PRIu64 " lost",
			   session->session_id, totals.packets_written, totals.packets_corrupted,
			   totals.packets_lost);
	return session_sync(session);
}

static void
session_unlink(struct tc_consumerd_registry *registry, struct tc_consumerd_session *session)
{
	struct tc_consumerd_session **link;

	for (link = &registry->sessions; *link; link = &(*link)->next) {
		if (*link == session) {
			*link = session->next;
			return;
		}
	}
}

int
tc_consumerd_session_destroy(struct tc_consumerd_registry *registry,
			     struct tc_consumerd_session *session,
			     struct tc_consumerd_totals *final_totals)
{
	struct tc_consumerd_channel *channel, *next;
	struct tc_consumerd_totals totals;
	int ret;

	ret = tc_consumerd_session_flush(session);
	/* What a first connection still held counts in the last totals. */
	tc_consumerd_relay_give_up_first_connection(session->relay);
	tc_consumerd_session_totals(session, &totals);
	if (final_totals)
		*final_totals = totals;
	session_unlink(registry, session);
	tc_consumerd_kernel_trace_close(session->kernel);
	tc_consumerd_kernel_own_close(session->own);
	for (channel = session->channels; channel; channel = next) {
		next = channel->next;
		tc_consumerd_channel_free(channel, session->dir_fd);
	}
	while (session->lttng_channels) {
		struct tc_consumerd_lttng_channel *lttng = session->lttng_channels;

		session->lttng_channels = *tc_consumerd_lttng_channel_next(lttng);
		tc_consumerd_lttng_channel_free(lttng);
	}
	close(session->metadata_fd);
	if (session->dir_fd >= 0)
		close(session->dir_fd);
	tc_consumerd_relay_close(session->relay);
	tc_consumerd_info("session=%" PRIu64 ": Destroyed: %" PRIu64 " packets written, %" PRIu64
			  " corrupt, %" PRIu64 " lost",
			  session->session_id, totals.packets_written, totals.packets_corrupted,
			  totals.packets_lost);
	free(session);
	return ret;
}

void
tc_consumerd_session_drain_all(struct tc_consumerd_registry *registry)
{
	struct tc_consumerd_session *session;

	for (session = registry->sessions; session; session = session->next)
		session_drain(session);
}

void
tc_consumerd_session_add_lttng_channel(struct tc_consumerd_session *session,
				       struct tc_consumerd_lttng_channel *channel)
{
	*tc_consumerd_lttng_channel_next(channel) = session->lttng_channels;
	session->lttng_channels = channel;
}

void
tc_consumerd_session_drain_woken_lttng(struct tc_consumerd_registry *registry)
{
	for (struct tc_consumerd_session *session = registry->sessions; session;
	     session = session->next) {
		if (!session->lttng_woken)
			continue;
		for (struct tc_consumerd_lttng_channel *lttng = session->lttng_channels; lttng;
		     lttng = *tc_consumerd_lttng_channel_next(lttng))
			tc_consumerd_lttng_channel_drain(lttng);
		session->lttng_woken = false;
	}
}

void
tc_consumerd_session_destroy_all(struct tc_consumerd_registry *registry, uint64_t deadline)
{
	while (registry->sessions) {
		registry->sessions->relay_flush_deadline = deadline;
		tc_consumerd_session_destroy(registry, registry->sessions, NULL);
	}
}

void
tc_consumerd_session_totals(const struct tc_consumerd_session *session,
			    struct tc_consumerd_totals *totals)
{
	memset(totals, 0, sizeof(*totals));
	for (const struct tc_consumerd_channel *channel = session->channels; channel;
	     channel = channel->next) {
		for (uint32_t cpu = 0; cpu < channel->nr_cpus; cpu++) {
			const struct tc_consumerd_stream *stream = &channel->streams[cpu];

			totals->packets_written += tc_consumerd_stream_packets_written(stream);
			totals->packets_corrupted += stream->reader.packets_corrupted;
			totals->packets_lost += tc_consumerd_stream_packets_lost(stream);
		}
	}
}
