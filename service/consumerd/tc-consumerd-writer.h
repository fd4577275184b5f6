/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The writer threads: packets copied out of the ring buffers are written
 * to their stream files by a thread of their own, in the order they were
 * queued, while the session thread goes on emptying the buffers. Each
 * session thread has its writer (tc_consumerd_writer_start() from that
 * thread; every call below acts on the calling thread's writer, kept in
 * a thread-local), with its own queue, budget and idle wait: a session
 * whose disk hangs holds its own reading only, never another session's.
 *
 * A write to disk now and then stalls for several milliseconds, longer
 * than a small buffer lasts at full speed (docs/performance.md). A
 * writer that waited for it would leave the ring buffers unread meanwhile:
 * events lost. Queued, the
 * same stall costs queue memory instead, up to CONSUMERD_WRITER_QUEUE_MAX
 * bytes; beyond, the session thread waits for its writer.
 *
 * Only streams written with direct I/O go through it (stream->write_queued);
 * small packets through the page cache are written at once.
 *
 * The packets' buffers come from here (tc_consumerd_writer_job_new()), so that
 * the reader copies a sub-buffer once, straight into the memory that is
 * written. Everything a queued write touches (the stream's file, size,
 * direct flag, write-behind state, error rate limit) belongs to the writer
 * thread until tc_consumerd_writer_wait_idle() returned; the stream's packet
 * counters are atomics and may be read at any time.
 */
#ifndef TC_CONSUMERD_WRITER_H
#define TC_CONSUMERD_WRITER_H

#include <stdint.h>

#define CONSUMERD_WRITER_QUEUE_MAX (32u << 20)

struct tc_consumerd_stream;

/* One packet to write. */
struct tc_consumerd_writer_job {
	struct tc_consumerd_writer_job *next;
	struct tc_consumerd_stream *stream;
	uint8_t *data; /* size bytes, aligned to CONSUMERD_DIRECT_ALIGN */
	uint32_t size;
	uint32_t length; /* the packet's bytes to write, at most size */
};

/* Writes one packet: the stream's own write (tc-consumerd-stream.c). */
typedef void (*tc_consumerd_writer_fn)(struct tc_consumerd_stream *stream, const uint8_t *packet,
				       uint32_t size);

/* Starts the calling thread's writer. Without it (an error), submitted
 * packets are written at once by the caller with write_packet. Returns 0
 * or -errno. */
int tc_consumerd_writer_start(tc_consumerd_writer_fn write_packet);

/* Waits until everything the calling thread queued is written, then
 * ends its writer. */
void tc_consumerd_writer_stop(void);

/* A job with room for a packet of size bytes; waits for the writer while
 * the queue holds CONSUMERD_WRITER_QUEUE_MAX bytes. NULL when out of
 * memory. */
struct tc_consumerd_writer_job *tc_consumerd_writer_job_new(uint32_t size);

/* Gives back a job that will not be submitted. */
void tc_consumerd_writer_job_release(struct tc_consumerd_writer_job *job);

/* Queues the first length bytes of job (at most its size) for writing to
 * stream, which must stay open until tc_consumerd_writer_wait_idle(). The
 * job is the writer's from now on. */
void tc_consumerd_writer_submit(struct tc_consumerd_writer_job *job,
				struct tc_consumerd_stream *stream, uint32_t length);

/* Waits until every packet submitted so far is written. */
void tc_consumerd_writer_wait_idle(void);

#endif /* TC_CONSUMERD_WRITER_H */
