/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-consumerd-writer.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tc-consumerd-log.h"
#include "tc-consumerd-output.h"

/* Free jobs kept for reuse, as fresh memory costs page faults; at most
 * this many and this many bytes, as a packet buffer is up to 64 MiB and
 * idle channels should not pin memory. */
#define CONSUMERD_WRITER_FREE_MAX 8u
#define CONSUMERD_WRITER_FREE_BYTES_MAX CONSUMERD_WRITER_QUEUE_MAX

/* One writer per thread that reads packets (a session's thread), so that
 * a session whose disk hangs holds its own reading only: its queue, its
 * budget, its idle wait. */
struct writer_state {
	pthread_mutex_t lock;
	pthread_cond_t queued;	/* a job was queued, or stopping */
	pthread_cond_t written; /* a job was written */
	pthread_t thread;
	bool stopping;
	tc_consumerd_writer_fn write_packet;
	struct tc_consumerd_writer_job *head, *tail; /* FIFO */
	struct tc_consumerd_writer_job *free_jobs;
	uint32_t nr_free;
	uint64_t free_bytes;
	uint64_t busy_bytes; /* queued or being written */
};

/* The calling thread's writer, from tc_consumerd_writer_start() to
 * tc_consumerd_writer_stop(); NULL: packets are written by the caller. */
static _Thread_local struct writer_state *writer;
/* What the calling thread writes with when it has no writer thread. */
static _Thread_local tc_consumerd_writer_fn write_inline;

static void
job_free(struct tc_consumerd_writer_job *job)
{
	free(job->data);
	free(job);
}

/* Requires the lock. */
static void
job_recycle_locked(struct writer_state *state, struct tc_consumerd_writer_job *job)
{
	if (state->nr_free >= CONSUMERD_WRITER_FREE_MAX ||
	    state->free_bytes + job->size > CONSUMERD_WRITER_FREE_BYTES_MAX) {
		job_free(job);
		return;
	}
	job->next = state->free_jobs;
	state->free_jobs = job;
	state->nr_free++;
	state->free_bytes += job->size;
}

static void *
writer_main(void *arg)
{
	struct writer_state *state = arg;
	struct tc_consumerd_writer_job *job;

	pthread_setname_np(pthread_self(), "tc-writer");
	pthread_mutex_lock(&state->lock);
	for (;;) {
		while (!state->head && !state->stopping)
			pthread_cond_wait(&state->queued, &state->lock);
		job = state->head;
		if (!job)
			break;
		state->head = job->next;
		if (!state->head)
			state->tail = NULL;
		pthread_mutex_unlock(&state->lock);
		state->write_packet(job->stream, job->data, job->length);
		pthread_mutex_lock(&state->lock);
		state->busy_bytes -= job->size;
		job_recycle_locked(state, job);
		pthread_cond_broadcast(&state->written);
	}
	pthread_mutex_unlock(&state->lock);
	return NULL;
}

int
tc_consumerd_writer_start(tc_consumerd_writer_fn write_packet)
{
	struct writer_state *state = calloc(1, sizeof(*state));
	sigset_t all, saved;
	int ret;

	write_inline = write_packet;
	if (!state) {
		tc_consumerd_warning("No memory for a writer thread, writing packets inline");
		return -ENOMEM;
	}
	pthread_mutex_init(&state->lock, NULL);
	pthread_cond_init(&state->queued, NULL);
	pthread_cond_init(&state->written, NULL);
	state->write_packet = write_packet;
	/* Signals stay with the main thread, which waits for them in ppoll(). */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	ret = pthread_create(&state->thread, NULL, writer_main, state);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	if (ret != 0) {
		tc_consumerd_warning("Cannot start a writer thread, writing packets inline: %s",
				     strerror(ret));
		pthread_cond_destroy(&state->written);
		pthread_cond_destroy(&state->queued);
		pthread_mutex_destroy(&state->lock);
		free(state);
		return -ret;
	}
	writer = state;
	return 0;
}

void
tc_consumerd_writer_stop(void)
{
	struct tc_consumerd_writer_job *job;

	if (!writer)
		return;
	pthread_mutex_lock(&writer->lock);
	writer->stopping = true;
	pthread_cond_signal(&writer->queued);
	pthread_mutex_unlock(&writer->lock);
	pthread_join(writer->thread, NULL);
	while ((job = writer->free_jobs)) {
		writer->free_jobs = job->next;
		job_free(job);
	}
	pthread_cond_destroy(&writer->written);
	pthread_cond_destroy(&writer->queued);
	pthread_mutex_destroy(&writer->lock);
	free(writer);
	writer = NULL;
}

static struct tc_consumerd_writer_job *
job_alloc(uint32_t size)
{
	struct tc_consumerd_writer_job *job = calloc(1, sizeof(*job));

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

struct tc_consumerd_writer_job *
tc_consumerd_writer_job_new(uint32_t size)
{
	struct tc_consumerd_writer_job *job = NULL, **link;

	if (!writer)
		return job_alloc(size);
	pthread_mutex_lock(&writer->lock);
	while (writer->busy_bytes != 0 && writer->busy_bytes + size > CONSUMERD_WRITER_QUEUE_MAX)
		pthread_cond_wait(&writer->written, &writer->lock);
	for (link = &writer->free_jobs; *link; link = &(*link)->next) {
		if ((*link)->size == size) {
			job = *link;
			*link = job->next;
			writer->nr_free--;
			writer->free_bytes -= size;
			break;
		}
	}
	pthread_mutex_unlock(&writer->lock);
	return job ? job : job_alloc(size);
}

void
tc_consumerd_writer_job_release(struct tc_consumerd_writer_job *job)
{
	if (!writer) {
		job_free(job);
		return;
	}
	pthread_mutex_lock(&writer->lock);
	job_recycle_locked(writer, job);
	pthread_mutex_unlock(&writer->lock);
}

void
tc_consumerd_writer_submit(struct tc_consumerd_writer_job *job, struct tc_consumerd_stream *stream,
			   uint32_t length)
{
	job->stream = stream;
	job->length = length < job->size ? length : job->size;
	job->next = NULL;
	if (!writer) {
		write_inline(stream, job->data, job->length);
		tc_consumerd_writer_job_release(job);
		return;
	}
	pthread_mutex_lock(&writer->lock);
	if (writer->tail)
		writer->tail->next = job;
	else
		writer->head = job;
	writer->tail = job;
	writer->busy_bytes += job->size;
	pthread_cond_signal(&writer->queued);
	pthread_mutex_unlock(&writer->lock);
}

void
tc_consumerd_writer_wait_idle(void)
{
	if (!writer)
		return;
	pthread_mutex_lock(&writer->lock);
	while (writer->busy_bytes != 0)
		pthread_cond_wait(&writer->written, &writer->lock);
	pthread_mutex_unlock(&writer->lock);
}
