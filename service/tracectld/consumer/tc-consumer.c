/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Starting and talking to tracectl-consumerd. The protocol is in
 * common/abi/tc-consumer-abi.h. A consumer that does not answer a request
 * within its bound (CONSUMER_REPLY_TIMEOUT_MS, CONSUMER_WRITE_TIMEOUT_MS
 * for the requests that write data out), that stays stopped for
 * CONSUMER_STOPPED_TIMEOUT_MS while a request waits (SIGSTOP, a debugger),
 * or that sends anything but the answer of a waiting request, is killed
 * and marked dead: every request waiting on it fails at once, the sessions
 * that used it report the loss, and the next session of that user starts
 * a new one.
 *
 * The link carries several requests at once (see "The link" below), so
 * one that waits on a relay, a disk or a snapshot holds none of its
 * owner's other requests. What it guarantees about order: the requests of
 * one thread leave in the order of its calls, and each call returns only
 * once its request is answered, so the requests of a session, issued under
 * its op_lock, reach the consumer one after the other (a channel before
 * its layouts, metadata chunks in sequence, a flush before the destroy).
 * Requests of different threads are answered in any order.
 *
 * A consumer runs as its user, who can stop it or replace it. So nothing
 * that waits on one user's consumer holds a lock another user needs:
 * consumers_lock covers the table only, never a start, a spawn, an accept
 * or a request; a consumer's own locks are its alone, never held across
 * a wait on it but a send it does not take (send_lock, bounded by the
 * request's deadline).
 */
#define G_LOG_DOMAIN "tracectld-consumer"

#include "tc-consumer.h"

#include <errno.h>
#include <glib-unix.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "tc-channel.h"
#include "tc-child-link.h"
#include "tc-consumer-abi.h"
#include "tc-consumer-route.h"
#include "tc-consumer-unit.h"
#include "tc-error.h"
#include "tc-trace-clock.h"
#include "tc-user-account.h"

/* A command's reply: the consumer only creates or maps something. */
#define CONSUMER_REPLY_TIMEOUT_MS 10000
/* Flushing (a destroy flushes too) and snapshots write buffers out to
 * the user's disk or relay. */
#define CONSUMER_WRITE_TIMEOUT_MS 30000
/* A stopped consumer cannot answer: fail long before the bounds above. */
#define CONSUMER_STOPPED_TIMEOUT_MS 1000
#define CONSUMER_POLL_SLICE_MS 100
/* What a consumer gets to write out its sessions when the service stops:
 * more than a flush gives a slow relay (CONSUMERD_RELAY_FLUSH_BUDGET_MS,
 * 15 s) and the wait for its last confirmation. */
#define CONSUMER_EXIT_TIMEOUT_MS 25000

struct _TcConsumer {
	gint refcount;
	uid_t uid;
	/* The command socket, open until the last reference goes: a link
	 * let go or broken is shut down, never closed under a reader. Its
	 * pid is for logs; signals go through its pidfd (-1 if unknown). */
	TcChildLink link;
	GSource *watch;   /* hang-up of fd, on the main loop */
	gboolean is_forgotten; /* atomic: unlinked and reported once */
	gboolean is_dead; /* atomic */
	gboolean is_child; /* spawned: the child watch holds a reference */
	/* Held briefly, never across I/O but the answer callbacks (see
	 * route_locked()), which take none of this module's locks. Never
	 * held with send_lock or consumers_lock, in either order: each of
	 * the three is taken alone. Covers the fields up to send_lock. */
	GMutex lock;
	GCond answered; /* a request ended, or the reader let go */
	GHashTable *pending; /* request_id -> TcConsumerRequest * waiting */
	guint32 last_request_id;
	gboolean has_reader; /* a waiting requester reads for all */
	gboolean is_closed;  /* let go: no new request */
	GError *broken;      /* why the link failed, NULL while it works */
	/* The reader's alone (has_reader): */
	guint64 *buffer; /* TC_CONSUMER_MSG_MAX bytes */
	gint64 stopped_since; /* monotonic us, 0: not seen stopped */
	/* One request on the socket at a time: held across a send that waits
	 * for room, to its request's deadline at most, with no other lock. */
	GMutex send_lock;
};

static GMutex consumers_lock; /* covers consumers and starting, held briefly */
static GCond consumers_changed; /* a start finished, with consumers_lock */
static GHashTable *consumers; /* uid -> TcConsumer * (a reference) */
static GHashTable *starting;  /* uids whose consumer a thread is starting */
/* Set once at start-up, before any consumer exists. */
static TcConsumerLostFunc consumer_lost_func;

void
tc_consumer_set_lost_func(TcConsumerLostFunc func)
{
	consumer_lost_func = func;
}

/* Forgets the consumer and reports the loss, without closing its socket:
 * callable from the main loop while a request holds consumer->lock. */
static void
consumer_forget(TcConsumer *consumer, const char *why)
{
	if (!g_atomic_int_compare_and_exchange(&consumer->is_forgotten, FALSE, TRUE))
		return;
	g_warning("Consumer of uid %u (pid %d) is gone: %s", (unsigned)consumer->uid,
		  (int)consumer->link.pid, why);
	g_atomic_int_set(&consumer->is_dead, TRUE);
	if (consumer_lost_func)
		consumer_lost_func(consumer->uid, why);
	g_mutex_lock(&consumers_lock);
	if (consumers && g_hash_table_lookup(consumers, GUINT_TO_POINTER(consumer->uid)) ==
				 consumer)
		g_hash_table_remove(consumers, GUINT_TO_POINTER(consumer->uid));
	g_mutex_unlock(&consumers_lock);
}

/* Ends the link both ways: the consumer reads EOF (and exits), a reader
 * wakes with EOF. The descriptor stays open, so a reader or the hang-up
 * watch never polls a number reused by something else. */
static void
consumer_shut_link(TcConsumer *consumer)
{
	if (consumer->watch)
		g_source_destroy(consumer->watch);
	tc_child_link_shut(&consumer->link);
}

static void
consumer_mark_dead(TcConsumer *consumer, const char *why)
{
	consumer_forget(consumer, why);
	consumer_shut_link(consumer);
}

/* Takes link, a started or adopted consumer. */
static TcConsumer *
consumer_new(uid_t uid, const TcChildLink *link)
{
	TcConsumer *consumer = g_new0(TcConsumer, 1);

	consumer->uid = uid;
	consumer->link = *link;
	g_mutex_init(&consumer->lock);
	g_cond_init(&consumer->answered);
	g_mutex_init(&consumer->send_lock);
	consumer->pending = g_hash_table_new(g_direct_hash, g_direct_equal);
	consumer->buffer = g_malloc(TC_CONSUMER_MSG_MAX);
	return consumer;
}

void
tc_consumer_unref(TcConsumer *consumer)
{
	if (consumer == NULL || !g_atomic_int_dec_and_test(&consumer->refcount))
		return;
	if (consumer->watch) {
		g_source_destroy(consumer->watch);
		g_source_unref(consumer->watch);
	}
	tc_child_link_clear(&consumer->link);
	g_mutex_clear(&consumer->lock);
	g_cond_clear(&consumer->answered);
	g_mutex_clear(&consumer->send_lock);
	g_hash_table_unref(consumer->pending);
	g_clear_error(&consumer->broken);
	g_free(consumer->buffer);
	g_free(consumer);
}

static TcConsumer *
consumer_ref(TcConsumer *consumer)
{
	g_atomic_int_inc(&consumer->refcount);
	return consumer;
}

/* The consumer binary: next to the service in a build tree, installed in
 * libexecdir otherwise; TRACECTL_CONSUMERD overrides both. */
static char *
consumerd_path(void)
{
	const char *env = g_getenv("TRACECTL_CONSUMERD");
	g_autofree char *self = g_file_read_link("/proc/self/exe", NULL);

	if (env && *env)
		return g_strdup(env);
	if (self && g_str_has_prefix(self, TRACECTL_BUILD_SERVICEDIR "/"))
		return g_build_filename(TRACECTL_BUILD_SERVICEDIR, "consumerd",
					"tracectl-consumerd", NULL);
	return g_build_filename(TRACECTL_LIBEXECDIR, "tracectl-consumerd", NULL);
}

static int consumer_rt_priority;

void
tc_consumer_set_rt_priority(int priority)
{
	consumer_rt_priority = priority;
}

typedef struct {
	uid_t uid;
	gid_t gid;
	gid_t groups[256];
	int n_groups;
	int rt_priority; /* SCHED_FIFO priority of the main thread, 0 for none */
} DropPrivileges;

/* Runs in the child between fork and exec: async-signal-safe calls only,
 * everything else was prepared by the parent. */
static void
drop_privileges_cb(gpointer data)
{
	const DropPrivileges *drop = data;

	/* While still privileged. Reset on fork: the threads the consumer
	 * starts keep the normal policy. A failure is reported by the parent. */
	if (drop->rt_priority > 0) {
		struct sched_param param = {.sched_priority = drop->rt_priority};

		sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &param);
	}
	if (getuid() != 0 && getuid() == drop->uid)
		return;
	if (setgroups(drop->n_groups, drop->groups) < 0 || setgid(drop->gid) < 0 ||
	    setuid(drop->uid) < 0)
		_exit(127);
	/* Make sure the change cannot be undone. */
	if (drop->uid != 0 && setuid(0) == 0)
		_exit(127);
}

static gboolean
prepare_privileges(uid_t uid, DropPrivileges *drop, char **home, char **user, GError **error)
{
	g_auto(TcUserAccount) account = {0};

	if (!tc_user_account_lookup(uid, &account, error))
		return FALSE;
	if (getuid() != 0 && getuid() != uid) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    "tracectld runs as uid %u and cannot start a consumer for uid %u "
			    "without systemd",
			    (unsigned)getuid(), (unsigned)uid);
		return FALSE;
	}
	drop->uid = uid;
	drop->gid = account.gid;
	drop->rt_priority = consumer_rt_priority;
	drop->n_groups = G_N_ELEMENTS(drop->groups);
	if (getgrouplist(account.name, account.gid, drop->groups, &drop->n_groups) < 0)
		drop->n_groups = 1; /* too many groups: keep the primary one only */
	*home = g_steal_pointer(&account.home);
	*user = g_steal_pointer(&account.name);
	return TRUE;
}

static void
consumer_exited_cb(GPid pid, gint status, gpointer data)
{
	TcConsumer *consumer = data;
	g_autoptr(GError) error = NULL;

	if (!g_spawn_check_wait_status(status, &error))
		g_warning("Consumer of uid %u (pid %d) exited: %s", (unsigned)consumer->uid,
			  (int)pid, error->message);
	else
		g_debug("Consumer of uid %u (pid %d) exited", (unsigned)consumer->uid, (int)pid);
	g_spawn_close_pid(pid);
	consumer_forget(consumer, "it exited");
	tc_consumer_unref(consumer);
}

/* systemd runs the consumer: it connects back to us. */
static TcConsumer *
consumer_start_unit(uid_t uid, GError **error)
{
	g_autofree char *name = g_strdup_printf("the consumer of uid %u", (unsigned)uid);
	TcChildLink link;
	TcConsumer *consumer;
	pid_t pid = 0;
	int fd, pidfd = -1;

	if (consumer_rt_priority > 0)
		g_warning_once("--consumer-rt-priority does not reach consumers run as systemd "
			       "units: give tracectl-consumer@.service a drop-in "
			       "(CPUSchedulingPolicy=fifo)");
	fd = tc_consumer_unit_start(uid, &pid, &pidfd, error);
	if (fd < 0)
		return NULL;
	tc_child_link_init(&link, name);
	tc_child_link_adopt(&link, fd, pid, pidfd);
	consumer = consumer_new(uid, &link);
	consumer->refcount = 1; /* the table's, once tc_consumer_get() adds it */
	g_message("Consumer unit of uid %u connected, pid %d", (unsigned)uid, (int)pid);
	return consumer;
}

static TcConsumer *
consumer_spawn(uid_t uid, GError **error)
{
	DropPrivileges drop;
	g_autofree char *home = NULL, *user = NULL, *path = consumerd_path();
	g_autofree char *uid_text = g_strdup_printf("%u", (unsigned)uid);
	g_autofree char *env_home = NULL, *env_user = NULL;
	const char *argv[] = {path, "--uid", uid_text, NULL};
	g_autofree char *name = g_strdup_printf("the consumer of uid %u", (unsigned)uid);
	const char *envp[6];
	guint n_env = 0;
	TcChildLink link;
	TcConsumer *consumer;
	GPid pid;

	if (!prepare_privileges(uid, &drop, &home, &user, error))
		return NULL;
	env_home = g_strdup_printf("HOME=%s", home);
	env_user = g_strdup_printf("USER=%s", user);
	envp[n_env++] = env_home;
	envp[n_env++] = env_user;
	envp[n_env++] = "PATH=/usr/local/bin:/usr/bin:/bin";
	if (g_getenv("G_MESSAGES_DEBUG"))
		envp[n_env++] = "TRACECTL_CONSUMERD_DEBUG=1";
	envp[n_env] = NULL;
	tc_child_link_init(&link, name);
	if (!tc_child_link_spawn(&link, argv, envp, TC_CONSUMER_COMMAND_FD, drop_privileges_cb,
				 &drop, error)) {
		g_prefix_error(error, "Failed to start %s: ", path);
		return NULL;
	}
	pid = link.pid;
	consumer = consumer_new(uid, &link);
	consumer->refcount = 2; /* the table's and the child watch's */
	consumer->is_child = TRUE;
	/* The link reaps nothing: the child watch does, pidfd or not. */
	g_child_watch_add(pid, consumer_exited_cb, consumer);
	g_message("Started consumer for uid %u (%s), pid %d", (unsigned)uid, user, (int)pid);
	/* The child set it before its exec, which g_spawn waited for. */
	if (drop.rt_priority > 0 && (sched_getscheduler(pid) & ~SCHED_RESET_ON_FORK) != SCHED_FIFO)
		g_warning("Consumer of uid %u (pid %d) runs without the realtime priority %d "
			  "it was given: %s",
			  (unsigned)uid, (int)pid, drop.rt_priority,
			  getuid() == 0 ? "refused by the kernel" : "tracectld is not root");
	return consumer;
}

/* Main loop: the consumer closed its end, it died. */
static gboolean
consumer_hangup_cb(int fd, GIOCondition condition, gpointer user_data)
{
	TcConsumer *consumer = user_data;

	/* Waiting requests read the end themselves; the socket is closed
	 * with the last reference. */
	consumer_forget(consumer, "it closed its connection");
	return G_SOURCE_REMOVE;
}

/* Notices a consumer's death at once, not at the next request. */
static void
consumer_watch(TcConsumer *consumer)
{
	consumer->watch = g_unix_fd_source_new(consumer->link.fd, G_IO_HUP | G_IO_ERR);
	g_source_set_callback(consumer->watch, G_SOURCE_FUNC(consumer_hangup_cb), consumer, NULL);
	g_source_attach(consumer->watch, NULL);
}

static TcConsumer *
consumer_start(uid_t uid, GError **error)
{
	TcConsumer *consumer = tc_consumer_unit_available() ? consumer_start_unit(uid, error)
							    : consumer_spawn(uid, error);

	if (consumer)
		consumer_watch(consumer);
	return consumer;
}

/*
 * Starting a consumer waits on systemd and on the new process, for as long
 * as CONNECT_TIMEOUT_MS: it runs with no lock held, while the uid is in
 * starting, so that other users' consumers are found and started
 * meanwhile, and a second caller for the same uid waits for this start
 * instead of making a second consumer.
 */
TcConsumer *
tc_consumer_get(uid_t uid, GError **error)
{
	TcConsumer *consumer;

	g_mutex_lock(&consumers_lock);
	if (consumers == NULL) {
		consumers = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
						  (GDestroyNotify)tc_consumer_unref);
		starting = g_hash_table_new(g_direct_hash, g_direct_equal);
	}
	while ((consumer = g_hash_table_lookup(consumers, GUINT_TO_POINTER(uid))) == NULL &&
	       g_hash_table_contains(starting, GUINT_TO_POINTER(uid)))
		g_cond_wait(&consumers_changed, &consumers_lock);
	if (consumer) {
		consumer_ref(consumer);
		g_mutex_unlock(&consumers_lock);
		return consumer;
	}
	g_hash_table_add(starting, GUINT_TO_POINTER(uid));
	g_mutex_unlock(&consumers_lock);

	consumer = consumer_start(uid, error);

	g_mutex_lock(&consumers_lock);
	g_hash_table_remove(starting, GUINT_TO_POINTER(uid));
	/* The start's reference becomes the table's, unless the consumer died
	 * already: then it is the caller's, whose request reports it. */
	if (consumer && !g_atomic_int_get(&consumer->is_forgotten)) {
		g_hash_table_insert(consumers, GUINT_TO_POINTER(uid), consumer);
		consumer_ref(consumer);
	}
	g_cond_broadcast(&consumers_changed);
	g_mutex_unlock(&consumers_lock);
	return consumer;
}

TcConsumer *
tc_consumer_find(uid_t uid)
{
	TcConsumer *consumer = NULL;

	g_mutex_lock(&consumers_lock);
	if (consumers)
		consumer = g_hash_table_lookup(consumers, GUINT_TO_POINTER(uid));
	if (consumer)
		consumer_ref(consumer);
	g_mutex_unlock(&consumers_lock);
	return consumer;
}

/*
 * The link: several requests at once on one socket.
 *
 * A requester registers its TcConsumerRequest (on its own stack) under a
 * fresh id in consumer->pending, sends the request under send_lock, and
 * waits. The waiting requesters take turns reading the socket, leader and
 * followers: whoever finds no reader becomes it, reads one message with
 * consumer->lock released, then routes it under the lock to the request
 * whose id it carries (a stream's descriptors into its array, an answer
 * to its callback, the reply into its reply: tc-consumer-route.c, which
 * does no I/O and takes no lock) and wakes the waiters. The
 * reader is one of the requesters, so no thread outlives the requests and
 * nothing is read while nobody waits; the hang-up watch notices a death
 * in between.
 *
 * Every request ends by its own deadline. A message that answers no
 * waiting request, a bad one, descriptors where none belong, a callback's
 * refusal, a stopped consumer or a deadline passed: the consumer is
 * broken, killed and forgotten, and every request waiting on it fails at
 * once (consumer_break()). Nothing is queued: each message goes straight
 * into its request, so the link holds at most one message (the reader's
 * buffer) and one request per waiting thread.
 */

/* Whether the process is stopped by a signal or a tracer: /proc/<pid>/stat
 * is readable by anybody, whoever the process runs as. */
static gboolean
process_is_stopped(pid_t pid)
{
	g_autofree char *path = g_strdup_printf("/proc/%d/stat", (int)pid);
	g_autofree char *text = NULL;
	const char *end;

	if (pid <= 0 || !g_file_get_contents(path, &text, NULL, NULL))
		return FALSE;
	/* "pid (comm) S ...": comm may hold anything, ')' included. */
	end = strrchr(text, ')');
	return end && end[1] == ' ' && (end[2] == 'T' || end[2] == 't');
}

/* Gives every waiting request its error and wakes them, consumer->lock
 * held. culprit (or NULL) is the request whose answer showed the fault:
 * it gets why itself, the others say that another request broke it. */
static void
fail_pending_locked(TcConsumer *consumer, TcConsumerRequest *culprit, const GError *why)
{
	tc_consumer_route_fail_all(consumer->pending, culprit, why, consumer->uid,
				   consumer->link.pid);
	g_cond_broadcast(&consumer->answered);
}

/*
 * The consumer broke the protocol or stopped answering: every request
 * waiting on it fails now rather than at its own deadline, with the first
 * fault found, and the first caller kills and forgets it (as a request
 * that went unanswered always did). Called with no lock held: the lost
 * callback runs from here.
 */
static void
consumer_break(TcConsumer *consumer, TcConsumerRequest *culprit, const GError *why)
{
	gboolean is_first, is_closed;

	g_mutex_lock(&consumer->lock);
	is_first = consumer->broken == NULL;
	is_closed = consumer->is_closed;
	if (is_first) {
		consumer->broken = g_error_copy(why);
		fail_pending_locked(consumer, culprit, why);
	}
	g_mutex_unlock(&consumer->lock);
	/* A consumer let go exits by itself on its socket's end. */
	if (is_first && !is_closed) {
		tc_child_link_kill(&consumer->link);
		consumer_mark_dead(consumer, why->message);
	}
}

/* Registers request under a fresh id, never 0 nor one still waiting, and
 * stamps msg's header with it; every message of the answer must carry it.
 * Fails if the consumer is gone or let go. */
static gboolean
request_register(TcConsumer *consumer, TcConsumerRequest *request, void *msg, guint32 type,
		 guint32 size, GError **error)
{
	struct tc_consumer_header *header = msg;

	g_mutex_lock(&consumer->lock);
	if (consumer->broken || consumer->is_closed || g_atomic_int_get(&consumer->is_dead)) {
		g_mutex_unlock(&consumer->lock);
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "The consumer of uid %u is gone",
			    (unsigned)consumer->uid);
		return FALSE;
	}
	do {
		if (++consumer->last_request_id == 0)
			consumer->last_request_id = 1;
	} while (
	    g_hash_table_contains(consumer->pending, GUINT_TO_POINTER(consumer->last_request_id)));
	request->id = consumer->last_request_id;
	request->deadline = g_get_monotonic_time() + (gint64)request->timeout_ms * 1000;
	header->magic = TC_CONSUMER_MAGIC;
	header->type = type;
	header->size = size;
	header->request_id = request->id;
	g_hash_table_insert(consumer->pending, GUINT_TO_POINTER(request->id), request);
	g_mutex_unlock(&consumer->lock);
	return TRUE;
}

/* Sends one request with count descriptors, one sender at a time, so that
 * a thread's requests leave in the order of its calls. A consumer that
 * stops reading its socket holds the sender until the request's deadline
 * at most. Returns 0 or a negative errno. */
static int
request_send(TcConsumer *consumer, const TcConsumerRequest *request, const void *msg, guint32 size,
	     const int *fds, guint count)
{
	int res;

	g_mutex_lock(&consumer->send_lock);
	res = tc_child_link_send(&consumer->link, msg, size, fds, count, request->deadline);
	g_mutex_unlock(&consumer->send_lock);
	return res;
}

/*
 * The reader's turn, without consumer->lock but as the only reader: waits
 * at most one slice (and not past deadline) for a message into
 * consumer->buffer, with at most two descriptors (-1 for none). Returns
 * its length, 0 if none came, or -1 with error set: the link closed, a
 * bad message, or a consumer stopped for CONSUMER_STOPPED_TIMEOUT_MS (it
 * cannot answer until its owner resumes it).
 */
static gssize
reader_receive(TcConsumer *consumer, gint64 deadline, int fds[2], GError **error)
{
	gint64 now = g_get_monotonic_time();
	gssize len =
	    tc_child_link_receive(&consumer->link, consumer->buffer, TC_CONSUMER_MSG_MAX, fds, 2,
				  MIN(deadline, now + CONSUMER_POLL_SLICE_MS * 1000));

	if (len == -ETIMEDOUT) {
		now = g_get_monotonic_time();
		if (!process_is_stopped(consumer->link.pid))
			consumer->stopped_since = 0;
		else if (consumer->stopped_since == 0)
			consumer->stopped_since = now;
		if (consumer->stopped_since &&
		    now - consumer->stopped_since >= CONSUMER_STOPPED_TIMEOUT_MS * 1000) {
			g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
				    "The consumer of uid %u (pid %d) is stopped and cannot answer",
				    (unsigned)consumer->uid, (int)consumer->link.pid);
			return -1;
		}
		return 0;
	}
	consumer->stopped_since = 0;
	/* The link refused what does not fit: more than the two descriptors
	 * a stream comes with, a message past TC_CONSUMER_MSG_MAX. */
	if (len == -EPIPE || len == -EPROTO) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    "The consumer closed its connection or sent a bad message");
		return -1;
	}
	if (len < 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    "Cannot wait for the consumer of uid %u (pid %d): %s",
			    (unsigned)consumer->uid, (int)consumer->link.pid,
			    g_strerror((int)-len));
		return -1;
	}
	return len;
}

/* Hands the message in consumer->buffer to the request it answers,
 * consumer->lock held (answer callbacks run here, under it). Returns FALSE
 * with error if the consumer broke the protocol, *culprit then being the
 * request the message named (or NULL). The descriptors are taken or
 * closed. */
static gboolean
route_locked(TcConsumer *consumer, gssize len, int fds[2], TcConsumerRequest **culprit,
	     GError **error)
{
	return tc_consumer_route(consumer->pending, consumer->buffer, len, fds, culprit, error);
}

/* One turn as the reader for every waiting request, consumer->lock held
 * (released while reading). Wakes the waiters when something happened. */
static void
read_turn_locked(TcConsumer *consumer, TcConsumerRequest *request)
{
	g_autoptr(GError) error = NULL;
	TcConsumerRequest *culprit = NULL;
	int fds[2];
	gssize len;
	gboolean ok = TRUE;

	consumer->has_reader = TRUE;
	g_mutex_unlock(&consumer->lock);
	len = reader_receive(consumer, request->deadline, fds, &error);
	g_mutex_lock(&consumer->lock);
	consumer->has_reader = FALSE;
	if (len < 0)
		ok = FALSE;
	else if (len > 0 && consumer->broken == NULL)
		ok = route_locked(consumer, len, fds, &culprit, &error);
	else if (len > 0)
		tc_consumer_route_close_fds(fds);
	if (len != 0)
		g_cond_broadcast(&consumer->answered);
	if (ok)
		return;
	g_mutex_unlock(&consumer->lock);
	consumer_break(consumer, culprit, error);
	g_mutex_lock(&consumer->lock);
}

/* Waits for request's end, reading for everyone when nobody does; a
 * deadline passed breaks the consumer. Unregisters request. */
static gboolean
request_wait(TcConsumer *consumer, TcConsumerRequest *request, GError **error)
{
	g_mutex_lock(&consumer->lock);
	while (!request->is_done) {
		if (g_get_monotonic_time() >= request->deadline) {
			g_autoptr(GError) late = NULL;

			if (request->answer_type != 0)
				late = g_error_new(TC_ERROR, TC_ERROR_FAILED,
						   "The consumer of uid %u (pid %d) did not finish "
						   "its answer within %u s",
						   (unsigned)consumer->uid, (int)consumer->link.pid,
						   request->timeout_ms / 1000);
			else
				late = g_error_new(TC_ERROR, TC_ERROR_FAILED,
						   "The consumer of uid %u (pid %d) did not answer "
						   "within %u s",
						   (unsigned)consumer->uid, (int)consumer->link.pid,
						   request->timeout_ms / 1000);

			g_mutex_unlock(&consumer->lock);
			consumer_break(consumer, request, late);
			g_mutex_lock(&consumer->lock);
		} else if (!consumer->has_reader) {
			read_turn_locked(consumer, request);
		} else {
			g_cond_wait_until(&consumer->answered, &consumer->lock, request->deadline);
		}
	}
	g_hash_table_remove(consumer->pending, GUINT_TO_POINTER(request->id));
	g_cond_broadcast(&consumer->answered); /* for tc_consumer_shutdown_all() */
	g_mutex_unlock(&consumer->lock);
	if (request->error) {
		g_propagate_error(error, request->error);
		return FALSE;
	}
	return TRUE;
}

/* Registers, sends and waits for one request; a consumer that cannot be
 * reached is broken as one that does not answer. */
static gboolean
request_run(TcConsumer *consumer, TcConsumerRequest *request, void *msg, guint32 type, guint32 size,
	    const int *send_fds, guint n_send, GError **error)
{
	int res;

	if (!request_register(consumer, request, msg, type, size, error))
		return FALSE;
	res = request_send(consumer, request, msg, size, send_fds, n_send);
	if (res < 0) {
		g_autoptr(GError) why =
		    g_error_new(TC_ERROR, TC_ERROR_FAILED, "Failed to reach the consumer: %s",
				g_strerror(-res));

		consumer_break(consumer, request, why);
	}
	return request_wait(consumer, request, error);
}

static gboolean
request_full(TcConsumer *consumer, void *msg, guint32 type, guint32 size, const int *send_fds,
	     guint n_send, int *fds, guint max_fds, guint64 *shm_size,
	     struct tc_consumer_reply *reply, GError **error)
{
	/* Flushing (a destroy flushes too), snapshots, rotations and clears
	 * write out to the user's disk or relay. */
	gboolean writes = type == TC_CONSUMER_FLUSH_SESSION || type == TC_CONSUMER_SNAPSHOT ||
			  type == TC_CONSUMER_ROTATE || type == TC_CONSUMER_CLEAR ||
			  type == TC_CONSUMER_DESTROY_SESSION || type == TC_CONSUMER_RELAY_ROTATE ||
			  type == TC_CONSUMER_SNAPSHOT_RELAY;
	TcConsumerRequest request = {
	    .fds = fds,
	    .max_streams = max_fds,
	    .shm_size = shm_size,
	    .reply = reply,
	    .timeout_ms = writes ? CONSUMER_WRITE_TIMEOUT_MS : CONSUMER_REPLY_TIMEOUT_MS,
	};

	return request_run(consumer, &request, msg, type, size, send_fds, n_send, error);
}

static gboolean
request(TcConsumer *consumer, void *msg, guint32 type, guint32 size, int *fds, guint max_fds,
	guint64 *shm_size, struct tc_consumer_reply *reply, GError **error)
{
	return request_full(consumer, msg, type, size, NULL, 0, fds, max_fds, shm_size, reply,
			    error);
}

gboolean
tc_consumer_request_answers(TcConsumer *consumer, void *msg, guint32 type, guint32 size,
			    guint32 answer_type, guint timeout_ms, TcConsumerAnswerFunc func,
			    gpointer user_data, GError **error)
{
	struct tc_consumer_reply reply = {0};
	TcConsumerRequest request = {
	    .answer_type = answer_type,
	    .func = func,
	    .user_data = user_data,
	    .reply = &reply,
	    .timeout_ms = timeout_ms,
	};

	g_return_val_if_fail(answer_type != TC_CONSUMER_REPLY && answer_type != 0, FALSE);
	return request_run(consumer, &request, msg, type, size, NULL, 0, error);
}

gboolean
tc_consumer_request_streams(TcConsumer *consumer, void *msg, guint32 type, guint32 size,
			    guint32 answer_type, TcConsumerAnswerFunc func, gpointer user_data,
			    int *answer_fd, int *fds, guint max_streams, guint64 *shm_size,
			    GError **error)
{
	struct tc_consumer_reply reply = {0};
	TcConsumerRequest request = {
	    .answer_type = answer_type,
	    .func = func,
	    .user_data = user_data,
	    .answer_fd = answer_fd,
	    .fds = fds,
	    .max_streams = max_streams,
	    .shm_size = shm_size,
	    .reply = &reply,
	    .timeout_ms = CONSUMER_REPLY_TIMEOUT_MS,
	};

	g_return_val_if_fail(answer_type != TC_CONSUMER_REPLY && answer_type != 0, FALSE);
	*answer_fd = -1;
	for (guint i = 0; i < 2 * max_streams; i++)
		fds[i] = -1;
	*shm_size = 0;
	return request_run(consumer, &request, msg, type, size, NULL, 0, error);
}

gboolean
tc_consumer_retire_if_unused(TcConsumer *consumer, gboolean (*has_sessions)(uid_t uid))
{
	/* The table's, the caller's, and the child watch's for a child. */
	gint unused = consumer->is_child ? 3 : 2;
	gpointer key = GUINT_TO_POINTER(consumer->uid);
	gboolean retire;

	g_mutex_lock(&consumers_lock);
	retire = consumers && g_hash_table_lookup(consumers, key) == consumer &&
		 g_atomic_int_get(&consumer->refcount) == unused &&
		 !g_atomic_int_get(&consumer->is_forgotten) && !has_sessions(consumer->uid);
	if (retire) {
		g_hash_table_steal(consumers, key);
		/* Nothing is lost: no loss to report when it exits. */
		g_atomic_int_set(&consumer->is_forgotten, TRUE);
	}
	g_mutex_unlock(&consumers_lock);
	if (!retire)
		return FALSE;
	g_mutex_lock(&consumer->lock);
	consumer->is_closed = TRUE;
	g_mutex_unlock(&consumer->lock);
	g_atomic_int_set(&consumer->is_dead, TRUE);
	/* EOF on its socket makes the consumer exit. */
	consumer_shut_link(consumer);
	g_message("Consumer of uid %u (pid %d) retired: no session of that user",
		  (unsigned)consumer->uid, (int)consumer->link.pid);
	tc_consumer_unref(consumer); /* the table's */
	return TRUE;
}

gboolean
tc_consumer_create_session(TcConsumer *consumer, guint64 session_id, const char *trace_dir,
			   gboolean snapshot, const struct tc_consumer_relay_output *relay,
			   GError **error)
{
	g_autofree struct tc_consumer_session *msg = g_new0(struct tc_consumer_session, 1);
	struct tc_consumer_reply reply = {0};

	msg->session_id = session_id;
	msg->flags = snapshot ? TC_CONSUMER_SESSION_SNAPSHOT : 0;
	if (relay != NULL) {
		msg->flags |= TC_CONSUMER_SESSION_RELAY;
		msg->relay = *relay;
	}
	if (g_strlcpy(msg->trace_dir, trace_dir, sizeof(msg->trace_dir)) >=
	    sizeof(msg->trace_dir)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "The trace directory is too long");
		return FALSE;
	}
	return request(consumer, msg, TC_CONSUMER_CREATE_SESSION, sizeof(*msg), NULL, 0, NULL,
		       &reply, error);
}

gboolean
tc_consumer_create_channel(TcConsumer *consumer, guint64 session_id, const TcChannel *channel,
			   const guint8 uuid[16], const TcTraceClock *clock, guint nr_cpus,
			   gboolean owner_writers, int **fds, guint64 *shm_size, GError **error)
{
	const TcChannelConfig *config = &channel->config;
	const char *name = channel->name;
	struct tc_consumer_channel msg = {
		.session_id = session_id,
		.channel_id = channel->handle,
		.stream_id = channel->stream_id,
		.nr_cpus = nr_cpus,
		.geometry = *config,
		.flags = (clock->tsc ? TC_CONSUMER_CHANNEL_CLOCK_TSC : 0) |
			 (owner_writers ? TC_CONSUMER_CHANNEL_OWNER_WRITERS : 0),
	};
	struct tc_consumer_reply reply = {0};
	int *result = g_new(int, 2 * nr_cpus);

	for (guint i = 0; i < 2 * nr_cpus; i++)
		result[i] = -1;
	memcpy(msg.uuid, uuid, sizeof(msg.uuid));
	g_strlcpy(msg.name, name, sizeof(msg.name));
	*shm_size = 0;
	if (!request(consumer, &msg, TC_CONSUMER_CREATE_CHANNEL, sizeof(msg), result, nr_cpus,
		     shm_size, &reply, error) ||
	    result[2 * nr_cpus - 1] < 0) {
		for (guint i = 0; i < 2 * nr_cpus; i++)
			if (result[i] >= 0)
				close(result[i]);
		g_free(result);
		if (error && *error == NULL)
			g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
				    "The consumer sent fewer buffers than CPUs");
		return FALSE;
	}
	*fds = result;
	return TRUE;
}

gboolean
tc_consumer_append_metadata(TcConsumer *consumer, guint64 session_id, const char *text,
			    gsize len, GError **error)
{
	g_autofree guint8 *buf = g_malloc(TC_CONSUMER_MSG_MAX);
	struct tc_consumer_metadata *msg = (void *)buf;
	struct tc_consumer_reply reply = {0};
	gsize max_chunk = TC_CONSUMER_MSG_MAX - sizeof(*msg);

	for (gsize done = 0; done < len;) {
		gsize chunk = MIN(len - done, max_chunk);

		memset(msg, 0, sizeof(*msg));
		msg->session_id = session_id;
		memcpy(buf + sizeof(*msg), text + done, chunk);
		if (!request(consumer, msg, TC_CONSUMER_METADATA, sizeof(*msg) + chunk, NULL, 0,
			     NULL, &reply, error))
			return FALSE;
		done += chunk;
	}
	return TRUE;
}

gboolean
tc_consumer_send_layouts(TcConsumer *consumer, guint64 session_id, GArray *layouts,
			 GError **error)
{
	for (guint i = 0; i < layouts->len; i++) {
		struct tc_consumer_event_layout msg =
			g_array_index(layouts, struct tc_consumer_event_layout, i);
		struct tc_consumer_reply reply = {0};

		msg.session_id = session_id;
		if (!request(consumer, &msg, TC_CONSUMER_EVENT_LAYOUT, sizeof(msg), NULL, 0, NULL,
			     &reply, error))
			return FALSE;
	}
	return TRUE;
}

gboolean
tc_consumer_kernel_trace(TcConsumer *consumer, guint64 session_id, const char *dir,
			 const guint8 uuid[16], const TcTraceClock *clock, const int *cpu_fds,
			 const int *stats_fds, guint nr_cpus, int formats_fd, int tgids_fd,
			 guint32 flags, guint32 flight_subbuf_size, guint32 flight_num_subbuf,
			 GError **error)
{
	g_autofree struct tc_consumer_kernel_trace *msg = g_new0(struct tc_consumer_kernel_trace, 1);
	g_autofree int *fds = g_new(int, 2 * nr_cpus + 2);
	guint n_fds = 0;
	struct tc_consumer_reply reply = {0};

	if (nr_cpus == 0 || nr_cpus > TC_CONSUMER_KERNEL_CPUS_MAX ||
	    g_strlcpy(msg->dir, dir, sizeof(msg->dir)) >= sizeof(msg->dir)) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "Cannot trace %u CPUs into '%s'",
			    nr_cpus, dir);
		return FALSE;
	}
	msg->session_id = session_id;
	msg->nr_cpus = nr_cpus;
	msg->flags = flags;
	msg->flight_subbuf_size = flight_subbuf_size;
	msg->flight_num_subbuf = flight_num_subbuf;
	msg->clock = *clock;
	memcpy(msg->uuid, uuid, sizeof(msg->uuid));
	memcpy(fds, cpu_fds, nr_cpus * sizeof(int));
	n_fds = nr_cpus;
	/* One message carries at most 253 descriptors: with more CPUs, the
	 * consumer counts losses from the pages only. */
	if (stats_fds && nr_cpus <= TC_CONSUMER_KERNEL_STATS_CPUS_MAX) {
		memcpy(fds + n_fds, stats_fds, nr_cpus * sizeof(int));
		n_fds += nr_cpus;
		msg->flags |= TC_CONSUMER_KSTATS;
	}
	fds[n_fds++] = formats_fd;
	if (tgids_fd >= 0)
		fds[n_fds++] = tgids_fd;
	return request_full(consumer, msg, TC_CONSUMER_KERNEL_TRACE, sizeof(*msg), fds, n_fds,
			    NULL, 0, NULL, &reply, error);
}

gboolean
tc_consumer_kernel_update(TcConsumer *consumer, guint64 session_id, int formats_fd,
			  guint32 hide_flags, GError **error)
{
	struct tc_consumer_kernel_update msg = {.session_id = session_id, .flags = hide_flags};
	struct tc_consumer_reply reply = {0};

	return request_full(consumer, &msg, TC_CONSUMER_KERNEL_UPDATE, sizeof(msg), &formats_fd,
			    formats_fd >= 0 ? 1 : 0, NULL, 0, NULL, &reply, error);
}

/* SNAPSHOT or KERNEL_SNAPSHOT, which take the same message. */
static gboolean
snapshot_to_dir(TcConsumer *consumer, guint32 type, guint64 session_id, const char *dir,
		guint64 max_stream_bytes, guint64 *packets, GError **error)
{
	g_autofree struct tc_consumer_snapshot *msg = g_new0(struct tc_consumer_snapshot, 1);
	struct tc_consumer_reply reply = {0};

	msg->session_id = session_id;
	msg->max_stream_bytes = max_stream_bytes;
	if (g_strlcpy(msg->dir, dir, sizeof(msg->dir)) >= sizeof(msg->dir)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "The snapshot directory is too long");
		return FALSE;
	}
	if (!request(consumer, msg, type, sizeof(*msg), NULL, 0, NULL, &reply, error))
		return FALSE;
	*packets = reply.packets_written;
	return TRUE;
}

gboolean
tc_consumer_snapshot(TcConsumer *consumer, guint64 session_id, const char *dir,
		     guint64 max_stream_bytes, guint64 *packets, GError **error)
{
	return snapshot_to_dir(consumer, TC_CONSUMER_SNAPSHOT, session_id, dir, max_stream_bytes,
			       packets, error);
}

gboolean
tc_consumer_kernel_snapshot(TcConsumer *consumer, guint64 session_id, const char *dir,
			    guint64 max_stream_bytes, guint64 *packets, GError **error)
{
	return snapshot_to_dir(consumer, TC_CONSUMER_KERNEL_SNAPSHOT, session_id, dir,
			       max_stream_bytes, packets, error);
}

/* SNAPSHOT_RELAY or KERNEL_SNAPSHOT_RELAY, which take the same message. */
static gboolean
snapshot_to_relay(TcConsumer *consumer, guint32 type, guint64 session_id,
		  const struct tc_consumer_relay_output *relay, const char *trace_path,
		  guint64 max_stream_bytes, guint64 *packets, GError **error)
{
	g_autofree struct tc_consumer_snapshot_relay *msg =
		g_new0(struct tc_consumer_snapshot_relay, 1);
	struct tc_consumer_reply reply = {0};

	msg->session_id = session_id;
	msg->max_stream_bytes = max_stream_bytes;
	msg->relay = *relay;
	if (g_strlcpy(msg->trace_path, trace_path, sizeof(msg->trace_path)) >=
	    sizeof(msg->trace_path)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "The snapshot's trace path is too long");
		return FALSE;
	}
	if (!request(consumer, msg, type, sizeof(*msg), NULL, 0, NULL, &reply, error))
		return FALSE;
	*packets = reply.packets_written;
	return TRUE;
}

gboolean
tc_consumer_snapshot_relay(TcConsumer *consumer, guint64 session_id,
			   const struct tc_consumer_relay_output *relay, const char *trace_path,
			   guint64 max_stream_bytes, guint64 *packets, GError **error)
{
	return snapshot_to_relay(consumer, TC_CONSUMER_SNAPSHOT_RELAY, session_id, relay,
				 trace_path, max_stream_bytes, packets, error);
}

gboolean
tc_consumer_kernel_snapshot_relay(TcConsumer *consumer, guint64 session_id,
				  const struct tc_consumer_relay_output *relay,
				  const char *trace_path, guint64 max_stream_bytes,
				  guint64 *packets, GError **error)
{
	return snapshot_to_relay(consumer, TC_CONSUMER_KERNEL_SNAPSHOT_RELAY, session_id, relay,
				 trace_path, max_stream_bytes, packets, error);
}

gboolean
tc_consumer_channel_stats(TcConsumer *consumer, guint64 session_id, guint64 channel_id,
			  TcChannelStats *stats, GError **error)
{
	struct tc_consumer_channel_ref msg = {.session_id = session_id, .channel_id = channel_id};
	struct tc_consumer_reply reply = {0};

	if (!request(consumer, &msg, TC_CONSUMER_CHANNEL_STATS, sizeof(msg), NULL, 0, NULL, &reply,
		     error))
		return FALSE;
	stats->buffer_bytes += reply.buffer_bytes;
	stats->bytes_used += reply.bytes_used;
	stats->bytes_used_peak += reply.bytes_used_peak;
	stats->events_discarded += reply.events_discarded;
	stats->packets_written += reply.packets_written;
	return TRUE;
}

/* A request that names only a session (struct tc_consumer_session_ref). */
static gboolean
session_request(TcConsumer *consumer, guint32 type, guint64 session_id,
		struct tc_consumer_reply *reply, GError **error)
{
	struct tc_consumer_session_ref msg = {.session_id = session_id};

	return request(consumer, &msg, type, sizeof(msg), NULL, 0, NULL, reply, error);
}

gboolean
tc_consumer_kernel_stats(TcConsumer *consumer, guint64 session_id, TcChannelStats *stats,
			 GError **error)
{
	struct tc_consumer_reply reply = {0};

	if (!session_request(consumer, TC_CONSUMER_KERNEL_STATS, session_id, &reply, error))
		return FALSE;
	stats->bytes_used += reply.bytes_used;
	stats->events_discarded += reply.events_discarded;
	stats->packets_written += reply.packets_written;
	return TRUE;
}

gboolean
tc_consumer_relay_status(TcConsumer *consumer, guint64 session_id, TcRelayStatus *status,
			 GError **error)
{
	struct tc_consumer_reply reply = {0};

	if (!session_request(consumer, TC_CONSUMER_RELAY_STATUS, session_id, &reply, error))
		return FALSE;
	status->connected = reply.relay_connected != 0;
	status->lost_packets = reply.relay_lost_packets;
	status->lost_since = reply.relay_lost_since;
	/* An errno for g_strerror(), which keeps the text of every value it
	 * was asked for: values past the kernel's (4095) are nobody's. */
	status->last_errno = reply.relay_errno < 4096 ? (int)reply.relay_errno : 0;
	/* The consumer is the user's: its text is bounded and terminated here. */
	reply.message[sizeof(reply.message) - 1] = '\0';
	g_strlcpy(status->url, reply.message, sizeof(status->url));
	/* ssh's words, which go into Problem, the bus and the journal: no
	 * byte there may be a control character or invalid UTF-8. */
	reply.relay_reason[sizeof(reply.relay_reason) - 1] = '\0';
	for (char *p = reply.relay_reason; *p; p++)
		if (!g_ascii_isprint(*p))
			*p = '?';
	g_strlcpy(status->reason, reply.relay_reason, sizeof(status->reason));
	return TRUE;
}

gboolean
tc_consumer_flush_session(TcConsumer *consumer, guint64 session_id, guint64 *packets_corrupted,
			  GError **error)
{
	struct tc_consumer_reply reply = {0};

	if (!session_request(consumer, TC_CONSUMER_FLUSH_SESSION, session_id, &reply, error))
		return FALSE;
	if (packets_corrupted)
		*packets_corrupted = reply.packets_corrupted;
	return TRUE;
}

gboolean
tc_consumer_destroy_session(TcConsumer *consumer, guint64 session_id, GError **error)
{
	struct tc_consumer_reply reply = {0};

	return session_request(consumer, TC_CONSUMER_DESTROY_SESSION, session_id, &reply, error);
}

void
tc_consumer_shutdown_all(void)
{
	g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func((GDestroyNotify)tc_consumer_unref);
	GHashTableIter iter;
	gpointer value;

	g_mutex_lock(&consumers_lock);
	if (consumers) {
		g_hash_table_iter_init(&iter, consumers);
		while (g_hash_table_iter_next(&iter, NULL, &value))
			g_ptr_array_add(all, consumer_ref(value));
	}
	g_mutex_unlock(&consumers_lock);
	for (guint i = 0; i < all->len; i++) {
		TcConsumer *consumer = g_ptr_array_index(all, i);

		/* The requests under way end first, by their deadlines at most;
		 * no new one starts. */
		g_mutex_lock(&consumer->lock);
		consumer->is_closed = TRUE;
		while (g_hash_table_size(consumer->pending) > 0)
			g_cond_wait(&consumer->answered, &consumer->lock);
		g_mutex_unlock(&consumer->lock);
		/* EOF on its socket makes the consumer write out and exit; one
		 * systemd started is stopped by systemd, not waited for. */
		consumer_shut_link(consumer);
		tc_child_link_stop(&consumer->link, CONSUMER_EXIT_TIMEOUT_MS);
	}
}

gboolean
tc_consumer_rotate_session(TcConsumer *consumer, guint64 session_id, const char *from_root,
			   const char *to_root, guint64 *archived_bytes, GError **error)
{
	g_autofree struct tc_consumer_rotate *msg = g_new0(struct tc_consumer_rotate, 1);
	struct tc_consumer_reply reply = {0};

	msg->session_id = session_id;
	if (g_strlcpy(msg->from_root, from_root, sizeof(msg->from_root)) >= sizeof(msg->from_root) ||
	    g_strlcpy(msg->to_root, to_root, sizeof(msg->to_root)) >= sizeof(msg->to_root)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "The archive directory is longer than %u bytes", TC_CONSUMER_PATH_MAX - 1);
		return FALSE;
	}
	if (!request(consumer, msg, TC_CONSUMER_ROTATE, sizeof(*msg), NULL, 0, NULL, &reply,
		     error))
		return FALSE;
	if (archived_bytes)
		*archived_bytes = reply.bytes_used;
	return TRUE;
}

gboolean
tc_consumer_relay_rotate(TcConsumer *consumer, guint64 session_id, guint32 close_command,
			 guint32 steps, gint64 timestamp, char **relay_path,
			 guint64 *archived_bytes, GError **error)
{
	struct tc_consumer_relay_rotate msg = {
	    .session_id = session_id,
	    .close_command = close_command,
	    .flags = steps,
	    .timestamp = timestamp,
	};
	struct tc_consumer_reply reply = {0};

	if (!request(consumer, &msg, TC_CONSUMER_RELAY_ROTATE, sizeof(msg), NULL, 0, NULL, &reply,
		     error))
		return FALSE;
	/* The relay's words, through the owner's consumer: text only. */
	reply.message[sizeof(reply.message) - 1] = '\0';
	if (relay_path)
		*relay_path = g_utf8_make_valid(reply.message, -1);
	if (archived_bytes)
		*archived_bytes = reply.bytes_used;
	return TRUE;
}

gboolean
tc_consumer_clear_session(TcConsumer *consumer, guint64 session_id, GError **error)
{
	struct tc_consumer_reply reply = {0};

	return session_request(consumer, TC_CONSUMER_CLEAR, session_id, &reply, error);
}

gboolean
tc_consumer_chunk_size(TcConsumer *consumer, guint64 session_id, guint64 *bytes, GError **error)
{
	struct tc_consumer_reply reply = {0};

	if (!session_request(consumer, TC_CONSUMER_CHUNK_SIZE, session_id, &reply, error))
		return FALSE;
	*bytes = reply.bytes_used;
	return TRUE;
}

gboolean
tc_consumer_kernel_own(TcConsumer *consumer, guint64 session_id, const char *dir,
		       const guint8 uuid[16], int ring_fd, GError **error)
{
	g_autofree struct tc_consumer_kernel_own *msg = g_new0(struct tc_consumer_kernel_own, 1);
	struct tc_consumer_reply reply = {0};

	if (g_strlcpy(msg->dir, dir, sizeof(msg->dir)) >= sizeof(msg->dir)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "The kernel trace directory is too long");
		return FALSE;
	}
	msg->session_id = session_id;
	memcpy(msg->uuid, uuid, sizeof(msg->uuid));
	return request_full(consumer, msg, TC_CONSUMER_KERNEL_OWN, sizeof(*msg), &ring_fd, 1, NULL,
			    0, NULL, &reply, error);
}

GPid
tc_consumer_pid(TcConsumer *consumer)
{
	return consumer->link.pid;
}
