/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-ust-prefault.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>

#include "tc-ust-log.h"
#include "tc-ust-state.h"

struct queued_buffer {
	const struct tc_rb *rb;
	struct queued_buffer *next;
};

/* Under tc_ust_state.lock. */
static struct queued_buffer *queue_head;
static struct queued_buffer **queue_tail = &queue_head;
static bool thread_running;

static struct queued_buffer *
dequeue_locked(void)
{
	struct queued_buffer *queued = queue_head;

	if (queued) {
		queue_head = queued->next;
		if (!queue_head)
			queue_tail = &queue_head;
	} else {
		thread_running = false;
	}
	return queued;
}

static void *
prefault_main(void *data)
{
	struct sched_param idle = { 0 };

	if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle) != 0)
		tc_ust_debug("Cannot make the prefault thread SCHED_IDLE, ignoring");
	for (;;) {
		struct queued_buffer *queued;

		pthread_mutex_lock(&tc_ust_state.lock);
		queued = dequeue_locked();
		pthread_mutex_unlock(&tc_ust_state.lock);
		if (!queued)
			return NULL;
		tc_rb_prefault(queued->rb);
		free(queued);
	}
}

static bool
start_thread_locked(void)
{
	sigset_t all, saved;
	pthread_attr_t attr;
	pthread_t thread;
	int ret;

	if (pthread_attr_init(&attr) != 0)
		return false;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/* The application's signals are never delivered to it. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &saved);
	ret = pthread_create(&thread, &attr, prefault_main, NULL);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	pthread_attr_destroy(&attr);
	if (ret != 0)
		return false;
	pthread_setname_np(thread, "tracectl-prefault");
	return true;
}

void
tc_ust_prefault_queue_locked(const struct tc_rb *rb)
{
	struct queued_buffer *queued = calloc(1, sizeof(*queued));

	if (!queued)
		return;
	queued->rb = rb;
	*queue_tail = queued;
	queue_tail = &queued->next;
	if (!thread_running) {
		thread_running = start_thread_locked();
		if (!thread_running)
			tc_ust_debug("Cannot start the prefault thread; buffers fill in their first lap");
	}
}

void
tc_ust_prefault_forget_locked(void)
{
	while (queue_head) {
		struct queued_buffer *queued = queue_head;

		queue_head = queued->next;
		free(queued);
	}
	queue_tail = &queue_head;
	thread_running = false;
}
