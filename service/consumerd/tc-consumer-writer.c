/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-consumer-writer.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tc-consumer-log.h"
#include "tc-consumer-output.h"

/* Free jobs kept for reuse, as fresh memory costs page faults; at most
 * this many and this many bytes, as a packet buffer is up to 64 MiB and
 * idle channels should not pin memory. */
#define CONSUMERD_WRITER_FREE_MAX 8u
#define CONSUMERD_WRITER_FREE_BYTES_MAX CONSUMERD_WRITER_QUEUE_MAX

static struct {
	pthread_mutex_t lock;
	pthread_cond_t queued;  /* a job was queued, or stopping */
	pthread_cond_t written; /* a job was written */
	pthread_t thread;
	bool running, stopping;
	consumerd_writer_fn write_packet;
	struct consumerd_writer_job *head, *tail; /* FIFO */
	struct consumerd_writer_job *free_jobs;
	uint32_t nr_free;
	uint64_t free_bytes;
	uint64_t busy_bytes; /* queued or being written */
} writer = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.queued = PTHREAD_COND_INITIALIZER,
	.written = PTHREAD_COND_INITIALIZER,
};

static void
job_free(struct consumerd_writer_job *job)
{
	free(job->data);
	free(job);
}

/* Requires the lock. */
static void
job_recycle_locked(struct consumerd_writer_job *job)
{
	if (writer.nr_free >= CONSUMERD_WRITER_FREE_MAX ||
	    writer.free_bytes + job->size > CONSUMERD_WRITER_FREE_BYTES_MAX) {
		job_free(job);
		return;
	}
	job->next = writer.free_jobs;
	writer.free_jobs = job;
	writer.nr_free++;
	writer.free_bytes += job->size;
}

static void *
writer_main(void *unused)
{
	struct consumerd_writer_job *job;

	(void)unused;
	pthread_mutex_lock(&writer.lock);
	for (;;) {
		while (!writer.head && !writer.stopping)
			pthread_cond_wait(&writer.queued, &writer.lock);
		job = writer.head;
		if (!job)
			break;
		writer.head = job->next;
		if (!writer.head)
			writer.tail = NULL;
		pthread_mutex_unlock(&writer.lock);
		writer.write_packet(job->stream, job->data, job->length);
		pthread_mutex_lock(&writer.lock);
		writer.busy_bytes -= job->size;
		job_recycle_locked(job);
		pthread_cond_broadcast(&writer.written);
	}
	pthread_mutex_unlock(&writer.lock);
	return NULL;
}

int
consumerd_writer_start(consumerd_writer_fn write_packet)
{
	sigset_t all, saved;
	int ret;

	writer.write_packet = write_packet;
	writer.stopping = false;
	/* Signals stay with the main thread, which waits for them in ppoll(). */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	ret = pthread_create(&writer.thread, NULL, writer_main, NULL);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	if (ret != 0) {
		consumerd_warning("Cannot start the writer thread, writing packets inline: %s",
				  strerror(ret));
		return -ret;
	}
	writer.running = true;
	return 0;
}

void
consumerd_writer_stop(void)
{
	struct consumerd_writer_job *job;

	if (writer.running) {
		pthread_mutex_lock(&writer.lock);
		writer.stopping = true;
		pthread_cond_signal(&writer.queued);
		pthread_mutex_unlock(&writer.lock);
		pthread_join(writer.thread, NULL);
		writer.running = false;
	}
	while ((job = writer.free_jobs)) {
		writer.free_jobs = job->next;
		job_free(job);
	}
	writer.nr_free = 0;
	writer.free_bytes = 0;
}

struct consumerd_writer_job *
consumerd_writer_job_new(uint32_t size)
{
	struct consumerd_writer_job *job = NULL, **link;

	pthread_mutex_lock(&writer.lock);
	while (writer.busy_bytes != 0 && writer.busy_bytes + size > CONSUMERD_WRITER_QUEUE_MAX)
		pthread_cond_wait(&writer.written, &writer.lock);
	for (link = &writer.free_jobs; *link; link = &(*link)->next) {
		if ((*link)->size == size) {
			job = *link;
			*link = job->next;
			writer.nr_free--;
			writer.free_bytes -= size;
			break;
		}
	}
	pthread_mutex_unlock(&writer.lock);
	if (job)
		return job;
	job = calloc(1, sizeof(*job));
	if (!job)
		return NULL;
	job->data = aligned_alloc(CONSUMERD_DIRECT_ALIGN, size);
	if (!job->data) {
		free(job);
		return NULL;
	}
	job->size = size;
	return job;
}

void
consumerd_writer_job_release(struct consumerd_writer_job *job)
{
	pthread_mutex_lock(&writer.lock);
	job_recycle_locked(job);
	pthread_mutex_unlock(&writer.lock);
}

void
consumerd_writer_submit(struct consumerd_writer_job *job, struct consumerd_stream *stream,
			uint32_t length)
{
	job->stream = stream;
	job->length = length < job->size ? length : job->size;
	job->next = NULL;
	if (!writer.running) {
		writer.write_packet(stream, job->data, job->length);
		consumerd_writer_job_release(job);
		return;
	}
	pthread_mutex_lock(&writer.lock);
	if (writer.tail)
		writer.tail->next = job;
	else
		writer.head = job;
	writer.tail = job;
	writer.busy_bytes += job->size;
	pthread_cond_signal(&writer.queued);
	pthread_mutex_unlock(&writer.lock);
}

void
consumerd_writer_wait_idle(void)
{
	pthread_mutex_lock(&writer.lock);
	while (writer.busy_bytes != 0)
		pthread_cond_wait(&writer.written, &writer.lock);
	pthread_mutex_unlock(&writer.lock);
}
