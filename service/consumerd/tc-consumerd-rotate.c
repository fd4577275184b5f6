/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Rotation and clear of a session's current trace chunk (see
 * TC_CONSUMER_ROTATE and TC_CONSUMER_CLEAR in tc-consumer-abi.h).
 *
 * Rotation, for one session:
 *
 *   flush as at a stop (every stream's open sub-buffer closed, everything
 *   reserved before written out, the writer thread idle, the kernel
 *   buffers drained, the files synced)
 *     -> rename the user-space trace directory and the kernel trace
 *        directory from <from_root>/<path> to <to_root>/<path>
 *     -> make new directories where they were, new empty stream files in
 *        them and a copy of the whole metadata so far
 *
 * The session's thread does all of it, so no packet is written
 * between the flush and the new files: whatever the writers commit
 * meanwhile stays in the ring buffers and goes to the new chunk. Every
 * packet is thus in exactly one chunk, and each chunk holds the metadata
 * that describes it. Renaming keeps the open files valid; they are
 * closed once the new ones exist.
 */
#include "tc-consumerd-rotate.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tc-consumerd-log.h"
#include "tc-consumerd-lttng.h"
#include "tc-consumerd-output.h"
#include "tc-consumerd-stream.h"
#include "tc-consumerd-writer.h"

/* The place of path under to_root, when path is under from_root: a new
 * string, or NULL (not under it, or no memory). */
static char *
rebase_path(const char *path, const char *from_root, const char *to_root)
{
	size_t from_len = strlen(from_root);
	char *result;

	while (from_len > 1 && from_root[from_len - 1] == '/')
		from_len--;
	if (strncmp(path, from_root, from_len) != 0 || path[from_len] != '/' ||
	    path[from_len + 1] == '\0')
		return NULL;
	if (asprintf(&result, "%s/%s", to_root, path + from_len + 1) < 0)
		return NULL;
	return result;
}

/* Moves directory path to its place under to_root and makes a new empty
 * one at path. Returns its descriptor or -errno. */
static int
move_directory(const char *path, const char *from_root, const char *to_root)
{
	char *target = rebase_path(path, from_root, to_root);
	int ret;

	if (!target)
		return -EINVAL;
	ret = tc_consumerd_output_make_parents(target);
	if (ret == 0 && renameat2(AT_FDCWD, path, AT_FDCWD, target, RENAME_NOREPLACE) < 0)
		ret = -errno;
	free(target);
	if (ret < 0)
		return ret;
	return tc_consumerd_output_open_dir(path);
}

/* After a failed rotation: the archive is closed, never written again;
 * the packets wait in the buffers for the next rotation or are lost. */
static void
close_stream_files(struct tc_consumerd_session *session)
{
	for (struct tc_consumerd_channel *channel = session->channels; channel;
	     channel = channel->next) {
		for (uint32_t cpu = 0; cpu < channel->nr_cpus; cpu++) {
			struct tc_consumerd_stream *stream = &channel->streams[cpu];

			if (stream->file_fd >= 0)
				close(stream->file_fd);
			stream->file_fd = -1;
		}
	}
}

/* The user-space trace goes on in dir_fd: new metadata file holding the
 * old one's text, new stream files. */
static int
reopen_user_space(struct tc_consumerd_session *session, int dir_fd)
{
	uint64_t size = 0;
	int fd, ret;

	fd = tc_consumerd_output_create_file(dir_fd, "metadata");
	if (fd < 0) {
		close_stream_files(session);
		return fd;
	}
	ret = tc_consumerd_output_copy(session->metadata_fd, session->metadata_size, fd, &size);
	if (ret < 0) {
		close(fd);
		close_stream_files(session);
		return ret;
	}
	close(session->metadata_fd);
	session->metadata_fd = fd;
	session->metadata_size = size;
	close(session->dir_fd);
	session->dir_fd = dir_fd;
	for (struct tc_consumerd_channel *channel = session->channels; channel;
	     channel = channel->next) {
		for (uint32_t cpu = 0; cpu < channel->nr_cpus; cpu++) {
			ret = tc_consumerd_stream_reopen_file(&channel->streams[cpu], dir_fd);
			if (ret < 0)
				return ret;
		}
	}
	for (struct tc_consumerd_lttng_channel *lttng = session->lttng_channels; lttng;
	     lttng = *tc_consumerd_lttng_channel_next(lttng)) {
		ret = tc_consumerd_lttng_channel_reopen_files(lttng, dir_fd);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int
rotate_user_space(struct tc_consumerd_session *session, const char *from_root, const char *to_root)
{
	int dir_fd, ret;

	/* A trace without buffers has nothing to archive yet. */
	if (!session->channels && !session->lttng_channels)
		return 0;
	dir_fd = move_directory(session->trace_dir, from_root, to_root);
	if (dir_fd < 0)
		return dir_fd;
	ret = reopen_user_space(session, dir_fd);
	if (ret < 0 && session->dir_fd != dir_fd)
		close(dir_fd);
	return ret;
}

static int
rotate_kernel(struct tc_consumerd_session *session, const char *from_root, const char *to_root)
{
	int dir_fd, ret;

	if (!session->kernel)
		return 0;
	dir_fd = move_directory(tc_consumerd_kernel_trace_dir(session->kernel), from_root, to_root);
	if (dir_fd < 0)
		return dir_fd;
	ret = tc_consumerd_kernel_trace_reopen(session->kernel, dir_fd);
	close(dir_fd);
	return ret;
}

uint64_t
tc_consumerd_rotate_chunk_bytes(const struct tc_consumerd_session *session)
{
	uint64_t bytes = 0;

	for (const struct tc_consumerd_channel *channel = session->channels; channel;
	     channel = channel->next) {
		for (uint32_t cpu = 0; cpu < channel->nr_cpus; cpu++)
			bytes += channel->streams[cpu].file_size +
				 channel->streams[cpu].relay.chunk_bytes;
	}
	if (session->kernel)
		bytes += tc_consumerd_kernel_trace_bytes(session->kernel);
	return bytes + tc_consumerd_lttng_channels_file_bytes(session->lttng_channels);
}

int
tc_consumerd_rotate_session(struct tc_consumerd_session *session, const char *from_root,
			    const char *to_root, uint64_t *archived_bytes)
{
	int ret;

	*archived_bytes = 0;
	if (session->snapshot)
		return -EINVAL;
	/* A failed sync is reported by the flush's own warning; the packets
	 * are in the files all the same. */
	(void)tc_consumerd_session_flush(session);
	*archived_bytes = tc_consumerd_rotate_chunk_bytes(session);
	ret = rotate_user_space(session, from_root, to_root);
	if (ret == 0)
		ret = rotate_kernel(session, from_root, to_root);
	if (ret < 0)
		tc_consumerd_warning("session=%" PRIu64 ": Rotation into \"%s\" failed: %s",
				     session->session_id, to_root, strerror(-ret));
	else
		tc_consumerd_info("session=%" PRIu64 ": Archived %" PRIu64 " bytes into \"%s\"",
				  session->session_id, *archived_bytes, to_root);
	return ret;
}

int
tc_consumerd_rotate_relay(struct tc_consumerd_session *session, uint32_t command, uint32_t steps,
			  int64_t timestamp, char *path, size_t path_size, uint64_t *archived_bytes)
{
	int ret;

	*archived_bytes = 0;
	if (session->snapshot || !session->relay)
		return -EINVAL;
	if (steps & CONSUMERD_RELAY_CHUNK_BEGIN) {
		/* Every packet reserved so far goes to the relay before the cut. */
		(void)tc_consumerd_session_flush(session);
		*archived_bytes = tc_consumerd_rotate_chunk_bytes(session);
	}
	ret = tc_consumerd_relay_chunk_rotate(session->relay, command, steps, timestamp, path,
					      path_size);
	if (ret < 0)
		tc_consumerd_warning("session=%" PRIu64 ": Rotation on the relay failed: %s",
				     session->session_id, strerror(-ret));
	return ret;
}

static void
discard_buffers(struct tc_consumerd_session *session)
{
	for (struct tc_consumerd_channel *channel = session->channels; channel;
	     channel = channel->next) {
		for (uint32_t cpu = 0; cpu < channel->nr_cpus; cpu++)
			tc_consumerd_stream_discard(&channel->streams[cpu], channel->packet);
	}
}

int
tc_consumerd_rotate_clear(struct tc_consumerd_session *session)
{
	int ret = 0;

	if (session->snapshot) {
		discard_buffers(session);
		for (struct tc_consumerd_lttng_channel *lttng = session->lttng_channels;
		     lttng && ret == 0; lttng = *tc_consumerd_lttng_channel_next(lttng))
			ret = tc_consumerd_lttng_channel_clear(lttng);
		tc_consumerd_info("session=%" PRIu64 ": Buffers cleared", session->session_id);
		return ret;
	}
	/* Written out first, then cut: what the buffers held goes too, and
	 * a packet a writer commits later is recorded after the clear. */
	(void)tc_consumerd_session_flush(session);
	for (struct tc_consumerd_channel *channel = session->channels; channel && ret == 0;
	     channel = channel->next) {
		for (uint32_t cpu = 0; cpu < channel->nr_cpus && ret == 0; cpu++)
			ret = tc_consumerd_stream_truncate_file(&channel->streams[cpu]);
	}
	if (ret == 0 && session->kernel)
		ret = tc_consumerd_kernel_trace_truncate(session->kernel);
	for (struct tc_consumerd_lttng_channel *lttng = session->lttng_channels; lttng && ret == 0;
	     lttng = *tc_consumerd_lttng_channel_next(lttng))
		ret = tc_consumerd_lttng_channel_clear(lttng);
	if (ret < 0)
		tc_consumerd_warning("session=%" PRIu64 ": Clear failed: %s", session->session_id,
				     strerror(-ret));
	else
		tc_consumerd_info("session=%" PRIu64 ": Trace cleared", session->session_id);
	return ret;
}
