/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Start-up of libtracectl-ust, provider registration and fork handling.
 *
 * Order of events in a traced program:
 *
 *   1. this library's constructor (it is a dependency of the program, so the
 *      dynamic loader runs it first): reads the environment and starts the
 *      listener thread, which tries to connect at once;
 *   2. the constructor of each module's TRACECTL_CREATE_PROBES file calls
 *      tracectl_ust_register_provider(): its events join the table and the
 *      caller waits, at most TRACECTL_UST_REGISTER_TIMEOUT ms, until
 *        - the first connection attempt failed (no service: no more waiting),
 *        - or the service answered EVENTS_DONE for the batch that carried
 *          these events: every session that applies to the process is then
 *          set up, so the first instructions of main() are traced;
 *   3. main().
 *
 * Waiting happens in step 2, not in step 1, because in step 1 no event is
 * known yet: sessions would be applied to an empty table.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "tc-ust-app-context.h"
#include "tc-ust-context.h"
#include "tc-ust-listener.h"
#include "tc-ust-log.h"
#include "tc-ust-perf.h"
#include "tc-ust-rcu.h"
#include "tc-ust-state.h"

#define TC_UST_REGISTER_TIMEOUT_DEFAULT_MS 3000

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
/* Milliseconds; 0: do not wait; -1: wait forever. */
static int register_timeout_ms = TC_UST_REGISTER_TIMEOUT_DEFAULT_MS;

static void
read_register_timeout(void)
{
	const char *value = secure_getenv("TRACECTL_UST_REGISTER_TIMEOUT");
	char *end;
	long timeout;

	if (!value || !*value)
		return;
	errno = 0;
	timeout = strtol(value, &end, 10);
	if (errno != 0 || *end != '\0' || timeout < -1 || timeout > 24L * 3600 * 1000) {
		tc_ust_debug("Ignoring TRACECTL_UST_REGISTER_TIMEOUT='%s'", value);
		return;
	}
	register_timeout_ms = (int)timeout;
}

static void
init_condition(void)
{
	pthread_condattr_t attr;

	/* Deadlines are on CLOCK_MONOTONIC, immune to clock changes. */
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&tc_ust_state.changed, &attr);
	pthread_condattr_destroy(&attr);
}

/* Starts the listener, or records that there will be no connection.
 * Requires tc_ust_state.lock or a single-threaded process. */
static void
start_listener(void)
{
	int ret;

	tc_ust_state.connection = TC_UST_CONNECTING;
	tc_ust_state.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ret = tc_ust_state.wake_fd < 0 ? -errno : tc_ust_listener_start();
	if (ret < 0) {
		tc_ust_debug("Cannot start the listener, tracing disabled: %s", strerror(-ret));
		tc_ust_state.connection = TC_UST_DISCONNECTED;
	}
}

static void
fork_prepare(void)
{
	pthread_mutex_lock(&tc_ust_state.lock);
}

static void
fork_parent(void)
{
	pthread_mutex_unlock(&tc_ust_state.lock);
}

static int wait_until_applied_locked(const struct tc_ust_entry *entry);

/*
 * The child must not talk on the parent's socket nor write into the
 * parent's buffers: it forgets the connection (every event disabled,
 * every channel freed with the parent's mappings) and registers anew as a
 * process of its own with a new listener thread. Only the forking thread
 * exists here, and it holds the state lock: the grace period is the
 * forking thread's own, out of any tracepoint.
 *
 * Then it waits, as a provider's constructor does, until the service has
 * applied its sessions to the child's events (or there is no service, or
 * TRACECTL_UST_REGISTER_TIMEOUT passed), so that fork() returns in the
 * child with tracing in place: without the wait, events the child emitted
 * right after fork() went unrecorded. A child
 * that only calls exec() pays one round trip to the service; posix_spawn(),
 * system() and popen() do not run fork handlers.
 */
static void
fork_child(void)
{
	if (tc_ust_state.connection_fd >= 0)
		close(tc_ust_state.connection_fd);
	tc_ust_state.connection_fd = -1;
	if (tc_ust_state.wake_fd >= 0)
		close(tc_ust_state.wake_fd);
	tc_ust_state.wake_fd = -1;
	tc_ust_rcu_forget();
	tc_ust_state_reset_connection();
	tc_ust_state_free_retired(tc_ust_state_take_retired());
	tc_ust_context_forget();
	tc_ust_perf_forget();
	/* Waiters of the parent's threads do not exist here. */
	init_condition();
	start_listener();
	if (tc_ust_state.nr_entries > 0 &&
	    wait_until_applied_locked(tc_ust_state.entries[tc_ust_state.nr_entries - 1]) < 0)
		tc_ust_debug("Registration of the child not confirmed in time, carrying on");
	pthread_mutex_unlock(&tc_ust_state.lock);
}

static void
library_init(void)
{
	tc_ust_log_init();
	tc_ust_rcu_init();
	read_register_timeout();
	tc_ust_listener_configure();
	init_condition();
	if (pthread_atfork(fork_prepare, fork_parent, fork_child) != 0)
		tc_ust_debug("Cannot install fork handlers, ignoring");
	pthread_mutex_lock(&tc_ust_state.lock);
	start_listener();
	pthread_mutex_unlock(&tc_ust_state.lock);
}

static void __attribute__((constructor))
library_constructor(void)
{
	pthread_once(&init_once, library_init);
}

static void
deadline_after(struct timespec *deadline, int timeout_ms)
{
	clock_gettime(CLOCK_MONOTONIC, deadline);
	deadline->tv_sec += timeout_ms / 1000;
	deadline->tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (deadline->tv_nsec >= 1000000000) {
		deadline->tv_sec++;
		deadline->tv_nsec -= 1000000000;
	}
}

/*
 * Waits until the service applied its sessions to entry and every entry
 * before it (batches are sent in index order), or there is no service.
 * Requires tc_ust_state.lock. Returns 0 or -ETIMEDOUT.
 */
static int
wait_until_applied_locked(const struct tc_ust_entry *entry)
{
	struct timespec deadline;

	if (register_timeout_ms > 0)
		deadline_after(&deadline, register_timeout_ms);
	for (;;) {
		int ret;

		if (tc_ust_state.connection == TC_UST_DISCONNECTED)
			return 0;
		if (tc_ust_state.connection == TC_UST_CONNECTED) {
			if (entry->sent_batch == 0)
				tc_ust_listener_request_batch_locked();
			else if ((int32_t)(tc_ust_state.done_batch - entry->sent_batch) >= 0)
				return 0;
		}
		if (register_timeout_ms == 0)
			return 0;
		if (register_timeout_ms < 0)
			ret = pthread_cond_wait(&tc_ust_state.changed, &tc_ust_state.lock);
		else
			ret = pthread_cond_timedwait(&tc_ust_state.changed, &tc_ust_state.lock,
						     &deadline);
		if (ret == ETIMEDOUT)
			return -ETIMEDOUT;
	}
}

int TRACECTL_UST_EXPORT
tracectl_ust_register_provider(uint32_t api_version, struct tracectl_ust_event *const *events,
			       size_t nr_events)
{
	struct tc_ust_entry *last = NULL;
	int ret = 0;

	/* Version 1 modules give every length, version 2 ones no field_enums:
	 * the library reads every version. */
	if (api_version < 1 || api_version > TRACECTL_UST_API_VERSION || (!events && nr_events))
		return -EINVAL;
	/* In case a module's constructor runs before ours (preloading). */
	pthread_once(&init_once, library_init);

	pthread_mutex_lock(&tc_ust_state.lock);
	for (size_t i = 0; i < nr_events; i++) {
		struct tc_ust_entry *entry =
			events[i] ? tc_ust_state_add_event(events[i], api_version) : NULL;

		if (entry && (!last || entry->index > last->index))
			last = entry;
	}
	if (last)
		ret = wait_until_applied_locked(last);
	pthread_mutex_unlock(&tc_ust_state.lock);
	if (ret < 0)
		tc_ust_debug("Registration of %zu event(s) not confirmed in time, carrying on",
			     nr_events);
	return ret;
}

void TRACECTL_UST_EXPORT
tracectl_ust_unregister_provider(struct tracectl_ust_event *const *events, size_t nr_events)
{
	if (!events)
		return;
	pthread_mutex_lock(&tc_ust_state.lock);
	for (size_t i = 0; i < nr_events; i++) {
		if (events[i])
			tc_ust_state_remove_event(events[i]);
	}
	pthread_mutex_unlock(&tc_ust_state.lock);
}

int TRACECTL_UST_EXPORT
tracectl_app_context_register(const char *provider, const char *name,
			      enum tracectl_app_context_type type, tracectl_app_context_cb get,
			      void *priv)
{
	int ret;

	pthread_once(&init_once, library_init);
	pthread_mutex_lock(&tc_ust_state.lock);
	ret = tc_ust_app_context_add(provider, name, type, get, priv);
	/* The service learns of it for its listings; recording it needs no
	 * answer, the channels find it by name. */
	if (ret == 0 && tc_ust_state.connection == TC_UST_CONNECTED)
		tc_ust_listener_request_batch_locked();
	pthread_mutex_unlock(&tc_ust_state.lock);
	return ret;
}

int TRACECTL_UST_EXPORT
tracectl_app_context_unregister(const char *provider, const char *name)
{
	void *getter;
	int ret;

	pthread_mutex_lock(&tc_ust_state.lock);
	getter = tc_ust_app_context_remove(provider, name, &ret);
	/* Under the lock, which serializes grace periods: once it returns
	 * no tracepoint still runs the callback. One that never ends keeps
	 * the callback's object, leaked rather than freed under it. */
	if (getter && tc_ust_rcu_synchronize())
		free(getter);
	pthread_mutex_unlock(&tc_ust_state.lock);
	return ret;
}
