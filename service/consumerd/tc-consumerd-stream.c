/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-consumerd-stream.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tc-consumer-abi.h"
#include "tc-consumerd-affinity.h"
#include "tc-consumerd-log.h"
#include "tc-consumerd-output.h"
#include "tc-consumerd-writer.h"
#include "tc-consumerd-yield.h"

/* memfd names are limited to 249 bytes; keep the CPU number readable. */
#define MEMFD_NAME_MAX 249
#define MEMFD_CHANNEL_NAME_MAX 192

static int
stream_file_name(char *buf, size_t size, const char *channel_name, uint32_t cpu)
{
	int len = snprintf(buf, size, "%s_%" PRIu32, channel_name, cpu);

	return len < 0 || (size_t)len >= size ? -ENAMETOOLONG : 0;
}

/*
 * Gives the buffer all its pages now, by writing zeros over it: they are
 * charged to the consumer (the owner's slice), a shortage is an error of
 * this stream instead of a fault in a writer later (MAP_POPULATE ignores
 * one), and whole blocks cost about 30 % less CPU than faulting the pages
 * in one by one. The source is never written: it reads as the zero page.
 */
static int
allocate_pages(int fd, uint64_t size)
{
	static uint8_t zeros[256 * 1024];
	uint64_t done = 0;

	while (done < size) {
		size_t chunk = size - done < sizeof(zeros) ? (size_t)(size - done) : sizeof(zeros);
		ssize_t written = pwrite(fd, zeros, chunk, (off_t)done);

		if (written < 0 && errno == EINTR)
			continue;
		if (written < 0)
			return -errno;
		if (written == 0)
			return -ENOSPC;
		done += (uint64_t)written;
	}
	return 0;
}

/* Creates, sizes, fills and seals the memfd of one buffer. Returns the fd
 * or -errno. */
static int
create_memfd(uint64_t session_id, const char *channel_name, uint32_t cpu, uint64_t size)
{
	char name[MEMFD_NAME_MAX + 1];
	int fd, ret;

	snprintf(name, sizeof(name), "tracectl-%" PRIu64 "-%.*s-%" PRIu32, session_id,
		 MEMFD_CHANNEL_NAME_MAX, channel_name, cpu);
	fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)size) < 0)
		goto fail;
	ret = allocate_pages(fd, size);
	if (ret < 0) {
		close(fd);
		return ret;
	}
	/* An application holds this fd too: without the seal it could shrink
	 * the file and every access of the consumer past the new end would
	 * raise SIGBUS. F_SEAL_SEAL keeps it from lifting the seal. */
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) < 0)
		goto fail;
	return fd;

fail:
	ret = -errno;
	close(fd);
	return ret;
}

int
tc_consumerd_stream_open(struct tc_consumerd_stream *stream,
			 const struct tc_consumerd_stream_place *place,
			 const struct tc_consumerd_channel_spec *spec, const char *channel_name,
			 uint32_t cpu)
{
	uint64_t size = tc_rb_shm_size(spec->geometry.subbuf_size, spec->geometry.num_subbuf);
	char file_name[NAME_MAX + 1];
	int ret;

	memset(stream, 0, sizeof(*stream));
	stream->memfd = -1;
	stream->wake_fd = -1;
	stream->file_fd = -1;
	stream->mapping = MAP_FAILED;
	stream->session_id = place->session_id;
	stream->channel_name = channel_name;
	stream->cpu = cpu;
	if (size == 0 || size > SIZE_MAX)
		return -EINVAL;
	ret = stream_file_name(file_name, sizeof(file_name), channel_name, cpu);
	if (ret < 0)
		return ret;

	ret = create_memfd(place->session_id, channel_name, cpu, size);
	if (ret < 0)
		goto fail;
	stream->memfd = ret;
	stream->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (stream->wake_fd < 0) {
		ret = -errno;
		goto fail;
	}
	/* The pages exist: the reader maps them as it reads, a fault for
	 * several pages at a time. */
	stream->mapping = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, stream->memfd, 0);
	if (stream->mapping == MAP_FAILED) {
		ret = -errno;
		goto fail;
	}
	stream->mapping_size = size;
	ret = tc_rb_init_mode(stream->mapping, spec->geometry.subbuf_size,
			      spec->geometry.num_subbuf, cpu, spec->stream_id, spec->uuid,
			      (spec->geometry.overwrite ? TC_RB_FLAG_OVERWRITE : 0) |
				      ((spec->flags & TC_CONSUMER_CHANNEL_CLOCK_TSC) ? TC_RB_FLAG_CLOCK_TSC
									     : 0));
	if (ret < 0)
		goto fail;
	ret = tc_rb_reader_init(&stream->reader, stream->mapping, size, spec->stream_id, cpu,
				spec->uuid);
	if (ret < 0)
		goto fail;
	/* The private copy keeps a writer from changing a packet after its
	 * checks. A writer of the consumer's own uid could write the trace
	 * files or talk to the relay itself, so against it the copy protects
	 * nothing: its packets are read in place. Overwrite mode keeps the
	 * copy, on which it detects laps. */
	stream->in_place = (spec->flags & TC_CONSUMER_CHANNEL_OWNER_WRITERS) &&
			   !spec->geometry.overwrite;
	if (place->relay) {
		ret = tc_consumerd_relay_stream_add(place->relay, &stream->relay, file_name,
						    place->trace_dir, false);
		if (ret < 0)
			goto fail;
		stream->relay_conn = place->relay;
		return 0;
	}
	/* Snapshot sessions write files only when a snapshot is taken. */
	if (place->dir_fd < 0)
		return 0;
	ret = tc_consumerd_output_create_file(place->dir_fd, file_name);
	if (ret < 0)
		goto fail;
	stream->file_fd = ret;
	stream->direct =
	    tc_consumerd_output_try_direct(stream->file_fd, spec->geometry.subbuf_size);
	stream->write_queued = stream->direct;
	return 0;

fail:
	tc_consumerd_stream_close(stream, place->dir_fd, false);
	return ret;
}

void
tc_consumerd_stream_close(struct tc_consumerd_stream *stream, int dir_fd, bool unlink_file)
{
	char file_name[NAME_MAX + 1];

	if (stream->relay_conn) {
		tc_consumerd_relay_stream_remove(stream->relay_conn, &stream->relay);
		stream->relay_conn = NULL;
	}
	if (stream->file_fd >= 0) {
		/* Queued packets of ours are written first. */
		if (stream->write_queued)
			tc_consumerd_writer_wait_idle();
		close(stream->file_fd);
		stream->file_fd = -1;
		if (unlink_file &&
		    stream_file_name(file_name, sizeof(file_name), stream->channel_name,
				     stream->cpu) == 0 &&
		    unlinkat(dir_fd, file_name, 0) < 0)
			tc_consumerd_warning("session=%" PRIu64
					     ": Failed to remove %s, ignoring: %m",
					     stream->session_id, file_name);
	}
	if (stream->mapping != MAP_FAILED && stream->mapping != NULL) {
		munmap(stream->mapping, stream->mapping_size);
		stream->mapping = MAP_FAILED;
	}
	tc_consumerd_stream_release_memfd(stream);
	if (stream->wake_fd >= 0)
		close(stream->wake_fd);
	stream->wake_fd = -1;
}

int
tc_consumerd_stream_reopen_file(struct tc_consumerd_stream *stream, int dir_fd)
{
	char file_name[NAME_MAX + 1];
	int fd, ret;

	if (stream->file_fd >= 0)
		close(stream->file_fd);
	stream->file_fd = -1;
	stream->file_size = 0;
	/* The flush before reported every loss so far in the old chunk. */
	stream->discarded_base = stream->reader.events_discarded_seen;
	stream->write_behind = (struct tc_consumerd_write_behind){0};
	ret = stream_file_name(file_name, sizeof(file_name), stream->channel_name, stream->cpu);
	if (ret < 0)
		return ret;
	fd = tc_consumerd_output_create_file(dir_fd, file_name);
	if (fd < 0)
		return fd;
	stream->file_fd = fd;
	stream->direct = tc_consumerd_output_try_direct(fd, stream->reader.rb.subbuf_size);
	stream->write_queued = stream->direct;
	return 0;
}

int
tc_consumerd_stream_truncate_file(struct tc_consumerd_stream *stream)
{
	if (stream->file_fd < 0)
		return 0;
	if (ftruncate(stream->file_fd, 0) < 0)
		return -errno;
	stream->file_size = 0;
	/* The losses reported in what is gone are gone with it. */
	stream->discarded_base = stream->reader.events_discarded_seen;
	stream->write_behind = (struct tc_consumerd_write_behind){0};
	return 0;
}

void
tc_consumerd_stream_discard(struct tc_consumerd_stream *stream, uint8_t *packet)
{
	/* One buffer's worth and one more: writers that keep closing
	 * sub-buffers meanwhile cannot hold the consumer here. */
	uint32_t budget = stream->reader.rb.num_subbuf + 1;

	tc_consumerd_stream_close_current(stream, true);
	for (uint32_t i = 0; i < budget; i++) {
		int ret = tc_rb_reader_get(&stream->reader, packet);

		if (ret == 1)
			tc_rb_reader_put(&stream->reader);
		else if (ret != -EBADMSG)
			break;
	}
}

void
tc_consumerd_stream_release_memfd(struct tc_consumerd_stream *stream)
{
	if (stream->memfd >= 0)
		close(stream->memfd);
	stream->memfd = -1;
}

static void
log_corrupt_packet(struct tc_consumerd_stream *stream)
{
	uint64_t suppressed;

	if (!tc_consumerd_log_ratelimit_check(&stream->corrupt_limit, tc_rb_clock_now(),
					      &suppressed))
		return;
	tc_consumerd_warning("session=%" PRIu64 ": Dropped a corrupt packet of stream %s_%" PRIu32
			     " (%" PRIu64 " so far, %" PRIu64 " not logged): its application "
			     "wrote over its ring buffer",
			     stream->session_id, stream->channel_name, stream->cpu,
			     stream->reader.packets_corrupted, suppressed);
}

/* The relay counts what it drops while it is away; a packet it could not
 * take is lost here the same way as one the disk refused. One it holds
 * until its first connection is counted by the relay stream once sent
 * or lost (tc_consumerd_stream_packets_written()). */
static void
write_to_relay(struct tc_consumerd_stream *stream, const uint8_t *packet, uint32_t size)
{
	int ret = tc_consumerd_relay_send_packet(stream->relay_conn, &stream->relay, packet, size);

	if (ret == 0)
		__atomic_fetch_add(&stream->packets_written, 1, __ATOMIC_RELAXED);
	else if (ret < 0)
		__atomic_fetch_add(&stream->packets_lost, 1, __ATOMIC_RELAXED);
}

uint64_t
tc_consumerd_stream_packets_written(const struct tc_consumerd_stream *stream)
{
	return __atomic_load_n(&stream->packets_written, __ATOMIC_RELAXED) +
	       __atomic_load_n(&stream->relay.held_sent, __ATOMIC_RELAXED);
}

uint64_t
tc_consumerd_stream_packets_lost(const struct tc_consumerd_stream *stream)
{
	return __atomic_load_n(&stream->packets_lost, __ATOMIC_RELAXED) +
	       __atomic_load_n(&stream->relay.held_lost, __ATOMIC_RELAXED);
}

void
tc_consumerd_stream_write_packet(struct tc_consumerd_stream *stream, const uint8_t *packet,
				 uint32_t size)
{
	uint64_t suppressed, lost;
	int ret;

	if (stream->relay_conn) {
		write_to_relay(stream, packet, size);
		return;
	}
	ret = tc_consumerd_output_append(stream->file_fd, &stream->file_size, packet, size);
	if (ret == -EINVAL && stream->direct) {
		/* A file system that took O_DIRECT but not this write. */
		tc_consumerd_info("session=%" PRIu64 ": Stream %s_%" PRIu32 " refused direct I/O, "
				  "writing it through the page cache",
				  stream->session_id, stream->channel_name, stream->cpu);
		stream->direct = false;
		tc_consumerd_output_stop_direct(stream->file_fd);
		ret = tc_consumerd_output_append(stream->file_fd, &stream->file_size, packet, size);
	}
	if (ret == 0) {
		__atomic_fetch_add(&stream->packets_written, 1, __ATOMIC_RELAXED);
		if (!stream->direct)
			tc_consumerd_output_write_behind(stream->file_fd, &stream->write_behind,
							 stream->file_size);
		return;
	}
	/* A full disk or any other write error costs this packet, not the
	 * consumer: count it and go on with the next one. */
	lost = __atomic_add_fetch(&stream->packets_lost, 1, __ATOMIC_RELAXED);
	if (!tc_consumerd_log_ratelimit_check(&stream->write_limit, tc_rb_clock_now(), &suppressed))
		return;
	tc_consumerd_warning("session=%" PRIu64 ": Failed to write a packet of stream %s_%" PRIu32
			     ", dropping it (%" PRIu64 " lost so far, %" PRIu64 " not logged): %s",
			     stream->session_id, stream->channel_name, stream->cpu, lost,
			     suppressed, strerror(-ret));
}

/* Events discarded and sub-buffers overwritten by the writers so far:
 * shared memory, but a scribbled value only shortens a wait. */
static uint64_t
writers_lost(const struct tc_consumerd_stream *stream)
{
	const struct tc_rb_shm *shm = stream->reader.rb.shm;

	return __atomic_load_n(&shm->events_discarded, __ATOMIC_RELAXED) +
	       __atomic_load_n(&shm->packets_overwritten, __ATOMIC_RELAXED);
}

static uint64_t
layout_wait_ns(const struct tc_consumerd_stream *stream)
{
	return writers_lost(stream) != stream->lost_when_waiting ? CONSUMERD_LAYOUT_WAIT_LOSING_NS
								  : CONSUMERD_LAYOUT_WAIT_NS;
}

/*
 * Checks the records of a packet got from the reader. Returns true when
 * it may be written, false when it was dropped (released and counted) or
 * must wait, unreleased, for the layout of one of its event classes.
 */
static bool
accept_packet(struct tc_consumerd_stream *stream, const uint8_t *packet, bool *wait)
{
	uint32_t size = stream->reader.rb.subbuf_size;
	uint64_t now;

	*wait = false;
	switch (tc_consumerd_layout_check_packet(stream->layouts, packet, size)) {
	case CONSUMERD_PACKET_VALID:
		stream->unknown_event_since = 0;
		return true;
	case CONSUMERD_PACKET_UNKNOWN_EVENT:
		now = tc_rb_clock_now();
		if (stream->unknown_event_since == 0) {
			stream->unknown_event_since = now;
			stream->lost_when_waiting = writers_lost(stream);
		}
		if (now - stream->unknown_event_since < layout_wait_ns(stream)) {
			*wait = true;
			return false;
		}
		break;
	case CONSUMERD_PACKET_CORRUPT:
		break;
	}
	stream->unknown_event_since = 0;
	tc_rb_reader_put(&stream->reader);
	stream->reader.packets_corrupted++;
	log_corrupt_packet(stream);
	return false;
}

/* Writes a packet copied out of the stream: queued to the writer thread
 * when it is in job; otherwise at once from the scratch copy, after the
 * writer wrote what it holds for a queued stream (no memory for a job). */
static void
write_copy(struct tc_consumerd_stream *stream, struct tc_consumerd_writer_job *job,
	   const uint8_t *copy, uint32_t size)
{
	if (job) {
		tc_consumerd_writer_submit(job, stream, size);
		return;
	}
	if (stream->write_queued)
		tc_consumerd_writer_wait_idle();
	tc_consumerd_stream_write_packet(stream, copy, size);
}

/*
 * Gets, checks and writes one packet where the writers left it, then hands
 * it back: the write is synchronous (relay or page cache), so the mapping
 * is read before the put. Returns what tc_rb_reader_get() does, 1 also
 * for a packet accept_packet() dropped or made *wait.
 */
static int
drain_one_in_place(struct tc_consumerd_stream *stream, bool *wait)
{
	uint8_t *packet;
	uint32_t length;
	int ret = tc_rb_reader_get_in_place(&stream->reader, &packet);

	if (ret != 1 || !accept_packet(stream, packet, wait))
		return ret;
	((struct tc_packet_header *)packet)->events_discarded -= stream->discarded_base;
	length = tc_rb_reader_trim(&stream->reader, packet);
	tc_consumerd_stream_write_packet(stream, packet, length);
	tc_rb_reader_put(&stream->reader);
	return 1;
}

uint32_t
tc_consumerd_stream_drain(struct tc_consumerd_stream *stream, uint8_t *packet)
{
	uint32_t budget = stream->reader.rb.num_subbuf, size = stream->reader.rb.subbuf_size;
	uint32_t done, length;
	bool wait = false;
	int ret;

	if (!tc_consumerd_stream_has_output(stream))
		return 0;
	for (done = 0; done < budget; done++) {
		struct tc_consumerd_writer_job *job = NULL;
		uint8_t *copy;

		/* A request of the session waits: it goes first (at least
		 * one packet per drain, so a drain always progresses). */
		if (done > 0 && tc_consumerd_yield_now())
			break;

		if (stream->in_place && !stream->write_queued) {
			ret = drain_one_in_place(stream, &wait);
			if (ret == -EBADMSG)
				log_corrupt_packet(stream);
			else if (ret != 1 || wait)
				break;
			continue;
		}
		/* Taking a job buffer may wait for the writer thread: only
		 * for a packet that is there. */
		if (stream->write_queued) {
			if (!tc_rb_reader_ready(&stream->reader))
				break;
			job = tc_consumerd_writer_job_new(size);
		}
		copy = job ? job->data : packet;

		ret = tc_rb_reader_get(&stream->reader, copy);
		if (ret == 1 && accept_packet(stream, copy, &wait)) {
			/* copy is private: hand the sub-buffer back to the
			 * writers before the possibly slow write. */
			tc_rb_reader_put(&stream->reader);
			((struct tc_packet_header *)copy)->events_discarded -= stream->discarded_base;
			/* A flushed packet goes out without the padding of its
			 * sub-buffer's unused tail. */
			length = tc_rb_reader_trim(&stream->reader, copy);
			write_copy(stream, job, copy, length);
			continue;
		}
		if (job)
			tc_consumerd_writer_job_release(job);
		/* -EBADMSG: already released by the reader, never written. */
		if (ret == -EBADMSG)
			log_corrupt_packet(stream);
		else if (ret != 1 || wait)
			break;
	}
	return done;
}

/* Events discarded since the last packet the reader took? */
static bool
discards_unreported(const struct tc_consumerd_stream *stream)
{
	uint64_t counted = __atomic_load_n(&stream->reader.rb.shm->events_discarded,
					   __ATOMIC_RELAXED);

	return counted != stream->reader.events_discarded_seen;
}

void
tc_consumerd_stream_close_current(struct tc_consumerd_stream *stream, bool final)
{
	uint64_t suppressed;

	if (tc_rb_flush_status(&stream->reader.rb, final ? TC_RB_UNREACHABLE_WAIT_NS : 0) !=
		-EAGAIN ||
	    !tc_consumerd_log_ratelimit_check(&stream->close_limit, tc_rb_clock_now(), &suppressed))
		return;
	tc_consumerd_warning("session=%" PRIu64 ": Cannot close the sub-buffer being filled of "
			     "stream %s_%" PRIu32 " (%" PRIu64 " times not logged): the consumer "
			     "cannot run on CPU %" PRIu32 ", which it must visit to lock out the "
			     "writers there; its events wait until the writers fill it or the "
			     "session stops",
			     stream->session_id, stream->channel_name, stream->cpu, suppressed,
			     stream->cpu);
}

void
tc_consumerd_stream_flush_begin(struct tc_consumerd_stream *stream, uint8_t *packet)
{
	struct tc_rb *rb = &stream->reader.rb;
	uint64_t write_offset;

	if (!tc_consumerd_stream_has_output(stream))
		return;
	/* Make room first: a full discard-mode buffer has no sub-buffer left
	 * for the packet that reports its last discards. */
	tc_consumerd_stream_drain(stream, packet);
	tc_consumerd_stream_close_current(stream, true);
	tc_consumerd_stream_drain(stream, packet);
	if (discards_unreported(stream))
		tc_rb_close_empty_packet(rb);
	write_offset = __atomic_load_n(&rb->shm->write_offset, __ATOMIC_ACQUIRE);
	/* Sub-buffers below the boundary are closed; the one above it, if any,
	 * was opened after the flush and is not waited for. */
	stream->flush_target = write_offset & ~(uint64_t)(rb->subbuf_size - 1);
}

bool
tc_consumerd_stream_is_behind(const struct tc_consumerd_stream *stream)
{
	const struct tc_rb *rb = &stream->reader.rb;
	uint64_t consumed = stream->reader.consumed;
	uint64_t buffer_size = (uint64_t)rb->subbuf_size * rb->num_subbuf;

	if (!tc_consumerd_stream_has_output(stream) || stream->flush_target <= consumed)
		return false;
	return stream->flush_target - consumed <= buffer_size;
}

void
tc_consumerd_stream_woken(struct tc_consumerd_stream *stream,
			  struct tc_consumerd_affinity *affinity, uint64_t now)
{
	eventfd_t count;
	uint32_t closed_found;

	/* Non-blocking: nothing to read is fine, the drain decides. Every
	 * sub-buffer the drain consumed was closed when it came, a corrupt
	 * one too: that is what lateness counts, not the packets written. */
	eventfd_read(stream->wake_fd, &count);
	closed_found = tc_consumerd_stream_drain(stream, stream->packet);
	if (closed_found > tc_rb_wake_packets(&stream->reader.rb))
		tc_consumerd_affinity_late_wake(affinity, stream->cpu, sched_getcpu(), now);
	else if (!tc_consumerd_yield_is_cut())
		tc_consumerd_affinity_keep(affinity, now);
	/* Otherwise a drain gave way to a request, maybe this one before it
	 * counted all it found: neither late nor in time as far as it knows. */
}
