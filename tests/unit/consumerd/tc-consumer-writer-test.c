/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The writer thread of tc-consumerd-writer.c with a slow fake write: packets
 * are written in the order queued, waiting for idle waits for the last
 * one, a full queue makes the caller wait, and stopping writes what is
 * left.
 */
#include <glib.h>
#include <string.h>

#include "tc-consumerd-writer.h"

#define SLOW_WRITE_US 20000

static GMutex lock;
static GArray *written; /* the first byte of each packet, in write order */

static void
slow_write(struct tc_consumerd_stream *stream, const uint8_t *packet, uint32_t size)
{
	(void)stream;
	g_assert_cmpuint(size, >, 0);
	/* Big packets ten times as slow, so that filling the queue (memset
	 * of fresh memory) takes less than one write. */
	g_usleep(size > (1u << 20) ? 10 * SLOW_WRITE_US : SLOW_WRITE_US);
	g_mutex_lock(&lock);
	g_array_append_val(written, packet[0]);
	g_mutex_unlock(&lock);
}

static guint
nr_written(void)
{
	guint n;

	g_mutex_lock(&lock);
	n = written->len;
	g_mutex_unlock(&lock);
	return n;
}

static void
submit(uint8_t tag, uint32_t size)
{
	struct tc_consumerd_writer_job *job = tc_consumerd_writer_job_new(size);

	g_assert_nonnull(job);
	g_assert_cmpuint((uintptr_t)job->data % 4096, ==, 0);
	memset(job->data, tag, size);
	tc_consumerd_writer_submit(job, NULL, size);
}

static void
test_order_and_idle(void)
{
	written = g_array_new(FALSE, FALSE, 1);
	g_assert_cmpint(tc_consumerd_writer_start(slow_write), ==, 0);
	for (uint8_t tag = 0; tag < 10; tag++)
		submit(tag, 4096);
	/* Queued, not written: the writer takes 20 ms per packet. */
	g_assert_cmpuint(nr_written(), <, 10);
	tc_consumerd_writer_wait_idle();
	g_assert_cmpuint(nr_written(), ==, 10);
	for (guint i = 0; i < 10; i++)
		g_assert_cmpuint(g_array_index(written, uint8_t, i), ==, i);
	/* A job given back is not written. */
	tc_consumerd_writer_job_release(tc_consumerd_writer_job_new(4096));
	tc_consumerd_writer_wait_idle();
	g_assert_cmpuint(nr_written(), ==, 10);
	tc_consumerd_writer_stop();
	g_array_unref(written);
}

/* A job that does not fit in the queue waits until a write made room. */
static void
test_full_queue_waits(void)
{
	const uint32_t half = CONSUMERD_WRITER_QUEUE_MAX / 2;
	struct tc_consumerd_writer_job *job;

	written = g_array_new(FALSE, FALSE, 1);
	g_assert_cmpint(tc_consumerd_writer_start(slow_write), ==, 0);
	submit(1, half);
	submit(2, half);
	job = tc_consumerd_writer_job_new(half);
	g_assert_nonnull(job);
	/* Room came from the first write, finished before we got the job. */
	g_assert_cmpuint(nr_written(), >=, 1);
	memset(job->data, 3, half);
	tc_consumerd_writer_submit(job, NULL, half);
	tc_consumerd_writer_stop();
	g_assert_cmpuint(written->len, ==, 3);
	g_array_unref(written);
}

/* Without the thread (stopped), packets are written at once; a restart
 * queues again. */
static void
test_inline_after_stop(void)
{
	written = g_array_new(FALSE, FALSE, 1);
	g_assert_cmpint(tc_consumerd_writer_start(slow_write), ==, 0);
	tc_consumerd_writer_stop();
	submit(7, 4096);
	g_assert_cmpuint(nr_written(), ==, 1);
	g_assert_cmpint(tc_consumerd_writer_start(slow_write), ==, 0);
	submit(8, 4096);
	tc_consumerd_writer_wait_idle();
	g_assert_cmpuint(nr_written(), ==, 2);
	tc_consumerd_writer_stop();
	g_array_unref(written);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/consumerd-writer/order-and-idle", test_order_and_idle);
	g_test_add_func("/tracectl/consumerd-writer/full-queue-waits", test_full_queue_waits);
	g_test_add_func("/tracectl/consumerd-writer/inline-after-stop", test_inline_after_stop);
	return g_test_run();
}
