/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One thread per session: it owns the session (its channels, streams,
 * kernel trace, relay connection and files) and does all of its work,
 * the channel timers, the wake-ups, reading packets, writing them or
 * sending them to the relay, and the requests that name the session.
 * A slow relay, a full disk or a long snapshot then holds that session
 * only: the main thread, which receives every request, and the other
 * sessions' threads go on.
 *
 * The main thread owns the list of threads (it alone adds, finds and
 * removes entries, so the list has no lock). It hands a request to its
 * session's thread through the thread's queue, under the thread's lock,
 * and wakes it with an eventfd that the thread polls with its wake-ups;
 * the thread serves its queue between packets and answers each request
 * itself. Under the same lock the thread publishes what the main thread
 * answers without waiting for it: whether the session is gone, and the
 * relay's status.
 */
#ifndef TC_CONSUMERD_SESSION_THREAD_H
#define TC_CONSUMERD_SESSION_THREAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "tc-consumerd-affinity.h"
#include "tc-consumerd-command.h"
#include "tc-consumerd-relay.h"
#include "tc-consumerd-session.h"

/* Each session thread's name (its /proc/PID/task/TID/comm). */
#define CONSUMERD_SESSION_THREAD_NAME "tc-session"

struct tc_consumerd_session_thread {
	/* The main thread's. */
	struct tc_consumerd_session_thread *next;
	uint64_t session_id;
	pthread_t thread;
	int wake_fd; /* eventfd: a request was queued, or stop */

	pthread_mutex_t lock;		       /* covers the fields below, up to the thread's own */
	struct tc_consumerd_request *head, *tail; /* FIFO of requests to serve */
	/* Set with a request queued, cleared when the thread takes its
	 * queue; read without the lock between packets (tc-consumerd-yield.h). */
	atomic_bool requests_waiting;
	bool finished; /* the session is gone: requests are refused */
	bool stopping; /* the consumer stops: write out, end */
	uint64_t exit_deadline; /* with stopping: written out by then (consumer clock) */
	bool streams;  /* the session streams to a relay: relay_status holds */
	struct tc_consumerd_relay_status relay_status;

	/* The session thread's own, untouched by others once it runs. */
	struct tc_consumerd_registry registry; /* this session only, or empty */
	struct tc_consumerd_affinity affinity;
	struct tc_consumerd_relay_status published; /* relay_status as last published */
	struct tc_consumerd_request *create;	    /* the first request, until served */
	pthread_t main_thread;			 /* whose scheduling policy to take */
	bool drain_cut; /* a drain gave way to requests: drain again at once */
	uint64_t relay_flush_deadline; /* the exit's, once stopping was seen; 0: none */
};

/*
 * Starts the thread of the session that create (a CREATE_SESSION request
 * for session_id, taken) makes, and adds it to *list. The thread serves
 * create first; when the creation fails it answers so and ends. Returns
 * 0, or -errno (create was answered).
 */
int tc_consumerd_session_thread_start(struct tc_consumerd_session_thread **list,
				      uint64_t session_id, struct tc_consumerd_request *create);

/* The thread of session_id, if its session is not gone. */
struct tc_consumerd_session_thread *
tc_consumerd_session_thread_find(struct tc_consumerd_session_thread *list, uint64_t session_id);

/* Hands request to thread; false, request not taken, when the session is
 * gone meanwhile. */
bool tc_consumerd_session_thread_submit(struct tc_consumerd_session_thread *thread,
					struct tc_consumerd_request *request);

/* Copies the status the thread published last; false when the session
 * does not stream. */
bool tc_consumerd_session_thread_relay_status(struct tc_consumerd_session_thread *thread,
					      struct tc_consumerd_relay_status *status);

/* Joins and frees the threads whose session is gone. */
void tc_consumerd_session_thread_reap(struct tc_consumerd_session_thread **list);

/*
 * What the consumer's exit gives its sessions, all at once, to write out:
 * a drain under way stops after its packet, and a slow relay gets what
 * is left of this instead of a flush's whole budget; the last
 * confirmation (CONSUMERD_RELAY_IO_TIMEOUT_MS) and the syncs fit in what
 * tracectld waits for the consumer to exit (CONSUMER_EXIT_TIMEOUT_MS,
 * 25 s).
 */
#define CONSUMERD_EXIT_BUDGET_MS 18000

/* Asks every thread to write its session out and end, and joins them all
 * (the service went away, or a stop signal came), within about
 * CONSUMERD_EXIT_BUDGET_MS whatever their relays do. */
void tc_consumerd_session_thread_stop_all(struct tc_consumerd_session_thread **list);

#endif /* TC_CONSUMERD_SESSION_THREAD_H */
