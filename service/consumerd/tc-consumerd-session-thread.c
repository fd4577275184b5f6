/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-consumerd-session-thread.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "tc-consumerd-log.h"
#include "tc-consumerd-sched.h"
#include "tc-consumerd-stream.h"
#include "tc-consumerd-timer.h"
#include "tc-consumerd-wake.h"
#include "tc-consumerd-writer.h"
#include "tc-consumerd-yield.h"
#include "tc-rb.h"

/* Polled descriptors beyond the queue's eventfd: the session's stream and
 * kernel wake-ups. Buffers past this many are read by their timers only. */
#define WAKE_FDS_MAX 4096

/* What a session thread polls, allocated once per thread. */
struct session_poll {
	struct pollfd pfds[1 + WAKE_FDS_MAX];
	struct tc_consumerd_wake_source sources[WAKE_FDS_MAX];
};

/* The earlier of two deadlines, 0 being none. */
static uint64_t
earliest_deadline(uint64_t a, uint64_t b)
{
	if (!a || !b)
		return a ? a : b;
	return a < b ? a : b;
}

static void
refuse_gone(struct tc_consumerd_request *request, uint64_t session_id, int status)
{
	char why[64];

	if (status == -ENOENT)
		snprintf(why, sizeof(why), "No session %" PRIu64, session_id);
	else
		snprintf(why, sizeof(why), "The consumer is stopping");
	tc_consumerd_command_refuse(request, status, why);
}

/* Refuses every request in the list starting at head. */
static void
refuse_all(struct tc_consumerd_request *head, uint64_t session_id, int status)
{
	while (head) {
		struct tc_consumerd_request *next = head->next;

		refuse_gone(head, session_id, status);
		head = next;
	}
}

/* Publishes the relay's status for the main thread; marks the thread
 * finished, taking its queue, once its session is gone. Returns the
 * requests to refuse (NULL while the session lives). */
static struct tc_consumerd_request *
publish(struct tc_consumerd_session_thread *thread)
{
	const struct tc_consumerd_session *session = thread->registry.sessions;
	struct tc_consumerd_request *orphans = NULL;
	struct tc_consumerd_relay_status status;

	/* Zeroed whole, padding included, for the comparison. */
	memset(&status, 0, sizeof(status));
	if (session && session->relay)
		tc_consumerd_relay_get_status(session->relay, &status);
	/* Nothing new: no lock taken (this runs at every wake-up). */
	if (session && memcmp(&status, &thread->published, sizeof(status)) == 0)
		return NULL;
	thread->published = status;
	pthread_mutex_lock(&thread->lock);
	thread->streams = session && session->relay;
	if (thread->streams)
		thread->relay_status = status;
	if (!session) {
		thread->finished = true;
		orphans = thread->head;
		thread->head = thread->tail = NULL;
	}
	pthread_mutex_unlock(&thread->lock);
	return orphans;
}

/* Serves one request. Returns false once the session is gone: what was
 * queued after it is refused then. The session being gone is published
 * before the answer, so that the service, once answered, may create a
 * session of the same id. */
static bool
serve(struct tc_consumerd_session_thread *thread, struct tc_consumerd_request *request)
{
	struct tc_consumerd_request *orphans;
	struct tc_consumer_reply reply;
	bool is_broken;

	is_broken = tc_consumerd_command_run(request, &thread->registry, &reply) < 0;
	orphans = publish(thread);
	tc_consumerd_command_answer(request, &reply, is_broken);
	if (!thread->registry.sessions) {
		refuse_all(orphans, thread->session_id, -ENOENT);
		return false;
	}
	return true;
}

/* Serves the queued requests, in order. Returns false once the thread
 * is to end (its session gone, or stopping). */
static bool
serve_queue(struct tc_consumerd_session_thread *thread)
{
	struct tc_consumerd_request *head;
	uint64_t count;
	bool stopping;
	uint64_t exit_deadline;

	if (read(thread->wake_fd, &count, sizeof(count)) < 0 && errno != EAGAIN)
		tc_consumerd_warning("Session %" PRIu64 ": cannot read its queue's eventfd: %m",
				     thread->session_id);
	pthread_mutex_lock(&thread->lock);
	head = thread->head;
	thread->head = thread->tail = NULL;
	atomic_store_explicit(&thread->requests_waiting, false, memory_order_relaxed);
	stopping = thread->stopping;
	exit_deadline = thread->exit_deadline;
	pthread_mutex_unlock(&thread->lock);
	if (stopping) {
		thread->relay_flush_deadline = exit_deadline;
		refuse_all(head, thread->session_id, -ECANCELED);
		return false;
	}
	while (head) {
		struct tc_consumerd_request *next = head->next;

		if (!serve(thread, head)) {
			refuse_all(next, thread->session_id, -ENOENT);
			return false;
		}
		head = next;
	}
	return true;
}

/* One pass of what the consumer's loop does, for this session only:
 * timers, wait, wake-ups, requests. Returns false once the thread is to
 * end. */
static bool
run_once(struct tc_consumerd_session_thread *thread, struct session_poll *poll_set)
{
	uint64_t now = tc_rb_clock_now(), next;
	struct tc_consumerd_request *orphans;
	struct timespec timeout;
	size_t nr_wake;
	int ret;

	/* Drains give way to the session's requests (tc-consumerd-yield.h);
	 * what a drain left for them is drained again first. */
	tc_consumerd_yield_enable(true);
	if (thread->drain_cut)
		tc_consumerd_session_drain_all(&thread->registry);
	/* No channel, no timer, no wake-up. */
	next = tc_consumerd_timer_run(&thread->registry, now);
	tc_consumerd_session_drain_woken_lttng(&thread->registry);
	thread->drain_cut = tc_consumerd_yield_take_cut();
	if (thread->drain_cut)
		next = now ? now : 1;
	next = earliest_deadline(next, tc_consumerd_affinity_expire(&thread->affinity, now));
	/* Only a request ends a session today; should anything else, the
	 * thread ends as after one, its queue refused, never waiting on for
	 * ever with the main thread about to join it. */
	orphans = publish(thread);
	if (!thread->registry.sessions) {
		refuse_all(orphans, thread->session_id, -ENOENT);
		return false;
	}
	if (next) {
		uint64_t wait_ns = next > now ? next - now : 0;

		timeout.tv_sec = (time_t)(wait_ns / 1000000000ull);
		timeout.tv_nsec = (long)(wait_ns % 1000000000ull);
	}
	poll_set->pfds[0] = (struct pollfd){.fd = thread->wake_fd, .events = POLLIN};
	nr_wake = tc_consumerd_wake_fds(&thread->registry, poll_set->pfds + 1, poll_set->sources,
					WAKE_FDS_MAX);
	ret = ppoll(poll_set->pfds, 1 + nr_wake, next ? &timeout : NULL, NULL);
	if (ret < 0 && errno == EINTR)
		return true;
	if (ret < 0) {
		tc_consumerd_error("Session %" PRIu64 ": failed to wait: %m", thread->session_id);
		return false;
	}
	/* Any event counts, POLLERR included (see tc_consumerd_wake_sources_woken()). */
	if (ret > 0)
		tc_consumerd_wake_sources_woken(poll_set->sources, poll_set->pfds + 1, nr_wake,
						&thread->affinity, tc_rb_clock_now());
	tc_consumerd_yield_enable(false);
	thread->drain_cut |= tc_consumerd_yield_take_cut();
	/* A request may destroy the streams polled above: handled last. */
	if (poll_set->pfds[0].revents)
		return serve_queue(thread);
	return true;
}

/* After the writer thread's start: a session thread, which wake-ups are
 * for, takes the main thread's realtime policy (tracectld
 * --consumer-rt-priority) where its RLIMIT_RTPRIO lets it, else the short
 * slice (tc-consumerd-sched.h). */
static void
use_short_slice(pthread_t main_thread)
{
	int ret = tc_consumerd_sched_take_realtime(main_thread);

	if (ret == 0)
		return;
	if (ret < 0)
		tc_consumerd_debug("A session thread cannot take the main thread's realtime "
				   "policy: %s",
				   strerror(-ret));
	ret = tc_consumerd_sched_short_slice();
	if (ret < 0 && ret != -EOPNOTSUPP)
		tc_consumerd_debug("Cannot shorten a session thread's slice: %s", strerror(-ret));
}

static void *
session_thread_main(void *arg)
{
	struct tc_consumerd_session_thread *thread = arg;
	struct session_poll *poll_set = malloc(sizeof(*poll_set));
	struct tc_consumerd_request *create = thread->create;
	bool is_running;

	thread->create = NULL;
	/* A name that tools and tests find the session's thread by. */
	pthread_setname_np(pthread_self(), CONSUMERD_SESSION_THREAD_NAME);
	/* Started before the short slice, which it is not to inherit. */
	tc_consumerd_writer_start(tc_consumerd_stream_write_packet);
	if (tc_consumerd_affinity_init(&thread->affinity) < 0)
		tc_consumerd_debug("Session %" PRIu64
				   ": its thread will not follow the writers' CPU",
				   thread->session_id);
	use_short_slice(thread->main_thread);
	tc_consumerd_yield_attach(&thread->requests_waiting);
	if (!poll_set) {
		tc_consumerd_command_refuse(create, -ENOMEM, "Out of memory for a session thread");
		refuse_all(publish(thread), thread->session_id, -ENOENT);
		tc_consumerd_affinity_fini(&thread->affinity);
		tc_consumerd_writer_stop();
		return NULL;
	}
	is_running = serve(thread, create);
	while (is_running)
		is_running = run_once(thread, poll_set);
	/* Stopping, or a failed wait: everything written out, as the
	 * consumer's end promises, without giving way to requests. */
	tc_consumerd_yield_enable(false);
	tc_consumerd_session_destroy_all(&thread->registry, thread->relay_flush_deadline);
	refuse_all(publish(thread), thread->session_id, -ECANCELED);
	tc_consumerd_writer_stop();
	tc_consumerd_affinity_fini(&thread->affinity);
	free(poll_set);
	return NULL;
}

static void
thread_free(struct tc_consumerd_session_thread *thread)
{
	close(thread->wake_fd);
	pthread_mutex_destroy(&thread->lock);
	free(thread);
}

int
tc_consumerd_session_thread_start(struct tc_consumerd_session_thread **list, uint64_t session_id,
				  struct tc_consumerd_request *create)
{
	struct tc_consumerd_session_thread *thread = calloc(1, sizeof(*thread));
	sigset_t all, saved;
	int ret;

	if (!thread) {
		tc_consumerd_command_refuse(create, -ENOMEM, "Out of memory for a session");
		return -ENOMEM;
	}
	thread->session_id = session_id;
	thread->create = create;
	thread->main_thread = pthread_self();
	pthread_mutex_init(&thread->lock, NULL);
	thread->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (thread->wake_fd < 0) {
		ret = -errno;
		tc_consumerd_command_refuse(create, ret, "Cannot make a session thread's eventfd");
		pthread_mutex_destroy(&thread->lock);
		free(thread);
		return ret;
	}
	/* Signals stay with the main thread, which waits for them in ppoll(). */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	ret = pthread_create(&thread->thread, NULL, session_thread_main, thread);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	if (ret != 0) {
		tc_consumerd_command_refuse(create, -ret, "Cannot start a session thread");
		thread_free(thread);
		return -ret;
	}
	thread->next = *list;
	*list = thread;
	return 0;
}

static bool
thread_is_finished(struct tc_consumerd_session_thread *thread)
{
	bool finished;

	pthread_mutex_lock(&thread->lock);
	finished = thread->finished;
	pthread_mutex_unlock(&thread->lock);
	return finished;
}

struct tc_consumerd_session_thread *
tc_consumerd_session_thread_find(struct tc_consumerd_session_thread *list, uint64_t session_id)
{
	for (struct tc_consumerd_session_thread *thread = list; thread; thread = thread->next) {
		if (thread->session_id == session_id && !thread_is_finished(thread))
			return thread;
	}
	return NULL;
}

static void
wake(struct tc_consumerd_session_thread *thread)
{
	uint64_t one = 1;

	/* Fails only when the counter is full: the thread is woken already. */
	if (write(thread->wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		tc_consumerd_warning("Session %" PRIu64 ": cannot wake its thread: %m",
				     thread->session_id);
}

bool
tc_consumerd_session_thread_submit(struct tc_consumerd_session_thread *thread,
				   struct tc_consumerd_request *request)
{
	pthread_mutex_lock(&thread->lock);
	if (thread->finished) {
		pthread_mutex_unlock(&thread->lock);
		return false;
	}
	request->next = NULL;
	if (thread->tail)
		thread->tail->next = request;
	else
		thread->head = request;
	thread->tail = request;
	atomic_store_explicit(&thread->requests_waiting, true, memory_order_relaxed);
	pthread_mutex_unlock(&thread->lock);
	wake(thread);
	return true;
}

bool
tc_consumerd_session_thread_relay_status(struct tc_consumerd_session_thread *thread,
					 struct tc_consumerd_relay_status *status)
{
	bool streams;

	pthread_mutex_lock(&thread->lock);
	streams = thread->streams;
	if (streams)
		*status = thread->relay_status;
	pthread_mutex_unlock(&thread->lock);
	return streams;
}

void
tc_consumerd_session_thread_reap(struct tc_consumerd_session_thread **list)
{
	struct tc_consumerd_session_thread **link = list;

	while (*link) {
		struct tc_consumerd_session_thread *thread = *link;

		if (!thread_is_finished(thread)) {
			link = &thread->next;
			continue;
		}
		*link = thread->next;
		pthread_join(thread->thread, NULL);
		thread_free(thread);
	}
}

void
tc_consumerd_session_thread_stop_all(struct tc_consumerd_session_thread **list)
{
	uint64_t deadline = tc_rb_clock_now() + CONSUMERD_EXIT_BUDGET_MS * 1000000ull;
	struct tc_consumerd_session_thread *thread;

	/* All asked first: the sessions are written out side by side, each
	 * drain under way cut after its packet as for a request. */
	for (thread = *list; thread; thread = thread->next) {
		pthread_mutex_lock(&thread->lock);
		thread->stopping = true;
		thread->exit_deadline = deadline;
		atomic_store_explicit(&thread->requests_waiting, true, memory_order_relaxed);
		pthread_mutex_unlock(&thread->lock);
		wake(thread);
	}
	while ((thread = *list)) {
		*list = thread->next;
		pthread_join(thread->thread, NULL);
		thread_free(thread);
	}
}
