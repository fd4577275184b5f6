/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Starting and talking to tracectl-consumerd. The protocol is in
 * common/abi/tc-consumer-abi.h. A consumer that does not answer within
 * its bound (CONSUMER_REPLY_TIMEOUT_MS, CONSUMER_WRITE_TIMEOUT_MS for the
 * requests that write data out), or that stays stopped for
 * CONSUMER_STOPPED_TIMEOUT_MS while a request waits (SIGSTOP, a debugger),
 * is killed and marked dead: the sessions that used it report the loss,
 * and the next session of that user starts a new one.
 *
 * A consumer runs as its user, who can stop it. So nothing that waits on
 * one user's consumer holds a lock another user needs: consumers_lock
 * covers the table only, never a start, a spawn, an accept or a request;
 * a request holds only its own consumer's lock.
 */
#define G_LOG_DOMAIN "tracectld-consumer"

#include "tc-consumer.h"

#include <errno.h>
#include <glib-unix.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "tc-consumer-abi.h"
#include "tc-consumer-unit.h"
#include "tc-error.h"
#include "tc-fd-passing.h"
#include "tc-process.h"
#include "tc-user-account.h"

/* A command's reply: the consumer only creates or maps something. */
#define CONSUMER_REPLY_TIMEOUT_MS 10000
/* Flushing (a destroy flushes too) and snapshots write buffers out to
 * the user's disk or relay. */
#define CONSUMER_WRITE_TIMEOUT_MS 30000
/* A stopped consumer cannot answer: fail long before the bounds above. */
#define CONSUMER_STOPPED_TIMEOUT_MS 1000
#define CONSUMER_POLL_SLICE_MS 100
#define CONSUMER_EXIT_TIMEOUT_MS 10000

struct _TcConsumer {
	gint refcount;
	uid_t uid;
	GPid pid;         /* for logs; signals go through pidfd */
	int pidfd;        /* the consumer process, -1 if unknown */
	int fd;           /* command socket, -1 once dead */
	GSource *watch;   /* hang-up of fd, on the main loop */
	gboolean is_forgotten; /* atomic: unlinked and reported once */
	GMutex lock;      /* one request at a time; covers fd and last_request_id */
	guint32 last_request_id;
	gboolean is_dead; /* atomic */
	gboolean is_child; /* spawned: the child watch holds a reference */
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
		  (int)consumer->pid, why);
	g_atomic_int_set(&consumer->is_dead, TRUE);
	if (consumer_lost_func)
		consumer_lost_func(consumer->uid, why);
	g_mutex_lock(&consumers_lock);
	if (consumers && g_hash_table_lookup(consumers, GUINT_TO_POINTER(consumer->uid)) ==
				 consumer)
		g_hash_table_remove(consumers, GUINT_TO_POINTER(consumer->uid));
	g_mutex_unlock(&consumers_lock);
}

static void
consumer_mark_dead(TcConsumer *consumer, const char *why)
{
	consumer_forget(consumer, why);
	if (consumer->watch)
		g_source_destroy(consumer->watch); /* it must not poll a closed fd */
	if (consumer->fd >= 0) {
		close(consumer->fd);
		consumer->fd = -1;
	}
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
	if (consumer->fd >= 0)
		close(consumer->fd);
	if (consumer->pidfd >= 0)
		close(consumer->pidfd);
	g_mutex_clear(&consumer->lock);
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
	consumer = g_new0(TcConsumer, 1);
	consumer->refcount = 1; /* the table's, once tc_consumer_get() adds it */
	consumer->uid = uid;
	consumer->pid = pid;
	consumer->pidfd = pidfd;
	consumer->fd = fd;
	g_mutex_init(&consumer->lock);
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
	const char *envp[6];
	int pair[2], source_fds[1], target_fds[1] = {TC_CONSUMER_COMMAND_FD};
	guint n_env = 0;
	TcConsumer *consumer;
	GPid pid;

	if (!prepare_privileges(uid, &drop, &home, &user, error))
		return NULL;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "socketpair: %s",
			    g_strerror(errno));
		return NULL;
	}
	env_home = g_strdup_printf("HOME=%s", home);
	env_user = g_strdup_printf("USER=%s", user);
	envp[n_env++] = env_home;
	envp[n_env++] = env_user;
	envp[n_env++] = "PATH=/usr/local/bin:/usr/bin:/bin";
	if (g_getenv("G_MESSAGES_DEBUG"))
		envp[n_env++] = "TRACECTL_CONSUMERD_DEBUG=1";
	envp[n_env] = NULL;
	source_fds[0] = pair[1];
	if (!g_spawn_async_with_pipes_and_fds("/", argv, envp, G_SPAWN_DO_NOT_REAP_CHILD,
					      drop_privileges_cb, &drop, -1, -1, -1, source_fds,
					      target_fds, 1, &pid, NULL, NULL, NULL, error)) {
		close(pair[0]);
		close(pair[1]);
		g_prefix_error(error, "Failed to start %s: ", path);
		return NULL;
	}
	close(pair[1]);
	consumer = g_new0(TcConsumer, 1);
	consumer->refcount = 2; /* the table's and the child watch's */
	consumer->is_child = TRUE;
	consumer->uid = uid;
	consumer->pid = pid;
	/* Our child, not reaped before the child watch runs: pid is still its. */
	consumer->pidfd = tc_process_open(pid);
	if (consumer->pidfd < 0)
		g_warning("Cannot open a pidfd of the consumer of uid %u (pid %d), it cannot be "
			  "killed if it hangs: %s",
			  (unsigned)uid, (int)pid, g_strerror(errno));
	consumer->fd = pair[0];
	g_mutex_init(&consumer->lock);
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

	/* The socket itself is closed by the next request, under its lock. */
	consumer_forget(consumer, "it closed its connection");
	return G_SOURCE_REMOVE;
}

/* Notices a consumer's death at once, not at the next request. */
static void
consumer_watch(TcConsumer *consumer)
{
	consumer->watch = g_unix_fd_source_new(consumer->fd, G_IO_HUP | G_IO_ERR);
	g_source_set_callback(consumer->watch, G_SOURCE_FUNC(consumer_hangup_cb), consumer, NULL);
	g_source_attach(consumer->watch, NULL);
}

static TcConsumer *
consumer_start(uid_t uid, GError **error)
{
	TcConsumer *consumer = tc_consumer_units_available() ? consumer_start_unit(uid, error)
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

/* Request/reply, consumer->lock held. */

/* Stamps a request with the next id, never 0; every message of its answer
 * must carry it. */
static void
stamp_request(TcConsumer *consumer, struct tc_consumer_header *header, guint32 type,
	      guint32 size)
{
	if (++consumer->last_request_id == 0)
		consumer->last_request_id = 1;
	header->magic = TC_CONSUMER_MAGIC;
	header->type = type;
	header->size = size;
	header->request_id = consumer->last_request_id;
}

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

/* Waits for the consumer's next message, at most timeout_ms, and less when
 * the consumer is stopped (it cannot answer until its owner resumes it). */
static gboolean
wait_readable(TcConsumer *consumer, guint timeout_ms, GError **error)
{
	gint64 now = g_get_monotonic_time();
	gint64 deadline = now + (gint64)timeout_ms * 1000;
	gint64 stopped_since = 0;

	for (;;) {
		struct pollfd pfd = {.fd = consumer->fd, .events = POLLIN};
		int n = poll(&pfd, 1, CONSUMER_POLL_SLICE_MS);

		if (n > 0)
			return TRUE;
		if (n < 0 && errno != EINTR) {
			g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
				    "Cannot wait for the consumer of uid %u (pid %d): %s",
				    (unsigned)consumer->uid, (int)consumer->pid, g_strerror(errno));
			return FALSE;
		}
		now = g_get_monotonic_time();
		if (!process_is_stopped(consumer->pid))
			stopped_since = 0;
		else if (stopped_since == 0)
			stopped_since = now;
		if (stopped_since && now - stopped_since >= CONSUMER_STOPPED_TIMEOUT_MS * 1000) {
			g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
				    "The consumer of uid %u (pid %d) is stopped and cannot answer",
				    (unsigned)consumer->uid, (int)consumer->pid);
			return FALSE;
		}
		if (now >= deadline) {
			g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
				    "The consumer of uid %u (pid %d) did not answer within %u s",
				    (unsigned)consumer->uid, (int)consumer->pid, timeout_ms / 1000);
			return FALSE;
		}
	}
}

/* Receives one message of at most max bytes and at most two fds (-1 for
 * none). Returns its length, or -1 with error set. */
static void
close_fds(int fds[2])
{
	for (int i = 0; i < 2; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
}

static gssize
receive_message(TcConsumer *consumer, void *buf, gsize max, int fds[2], guint timeout_ms,
		GError **error)
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = {.iov_base = buf, .iov_len = max};
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = control.buf,
		.msg_controllen = sizeof(control.buf),
	};
	gssize len;

	fds[0] = fds[1] = -1;
	if (!wait_readable(consumer, timeout_ms, error))
		return -1;
	len = recvmsg(consumer->fd, &mh, MSG_CMSG_CLOEXEC);
	/* At most the two a stream comes with; any more are closed. */
	if (len > 0)
		tc_fd_collect(&mh, fds, 2);
	if (len <= 0 || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		close_fds(fds);
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    "The consumer closed its connection or sent a bad message");
		return -1;
	}
	return len;
}

/* Whether a message received for the request request_id answers it; a
 * message too short for a header is left to the caller's checks. */
static gboolean
answers_request(const void *buf, gssize len, guint32 request_id, GError **error)
{
	const struct tc_consumer_header *header = buf;

	if (len < (gssize)sizeof(*header) || header->request_id == request_id)
		return TRUE;
	g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
		    "The consumer answered request %u while request %u waited",
		    (unsigned)header->request_id, (unsigned)request_id);
	return FALSE;
}

static gboolean
check_reply(const struct tc_consumer_reply *reply, gssize len, GError **error)
{
	if (len != sizeof(*reply) || reply->header.magic != TC_CONSUMER_MAGIC ||
	    reply->header.size != sizeof(*reply)) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "The consumer sent a bad reply");
		return FALSE;
	}
	if (reply->status < 0) {
		char message[TC_CONSUMER_ERROR_MAX];
		/* Something there already (a trace in the directory) is taken,
		 * as a name can be; anything else the service could not do. */
		int code = reply->status == -EEXIST || reply->status == -ENOTEMPTY
				   ? TC_ERROR_ALREADY_EXISTS
				   : TC_ERROR_FAILED;

		g_strlcpy(message, reply->message, sizeof(message));
		g_set_error(error, TC_ERROR, code, "%s",
			    *message ? message : g_strerror(-reply->status));
		return FALSE;
	}
	return TRUE;
}

/*
 * Sends a request and collects up to max_streams streams before the
 * reply. Each stream's memfd goes to fds[2 * cpu], its wake-up eventfd to
 * fds[2 * cpu + 1]. Returns the reply in *reply.
 */
/* Sends a request with count descriptors (KERNEL_TRACE), or none. */
static gboolean
send_request(TcConsumer *consumer, void *msg, guint32 size, const int *fds, guint count)
{
	return tc_fd_send(consumer->fd, msg, size, fds, count, 0) == (gssize)size;
}

static gboolean
request_locked(TcConsumer *consumer, void *msg, guint32 type, guint32 size,
	       const int *send_fds, guint n_send, int *fds, guint max_fds, guint64 *shm_size,
	       struct tc_consumer_reply *reply, GError **error)
{
	struct tc_consumer_header *header = msg;
	guint64 buf[sizeof(struct tc_consumer_reply) / sizeof(guint64) + 1];
	guint n_streams = 0;
	guint timeout_ms = type == TC_CONSUMER_FLUSH_SESSION || type == TC_CONSUMER_SNAPSHOT ||
					   type == TC_CONSUMER_ROTATE || type == TC_CONSUMER_CLEAR ||
					   type == TC_CONSUMER_DESTROY_SESSION
				   ? CONSUMER_WRITE_TIMEOUT_MS
				   : CONSUMER_REPLY_TIMEOUT_MS;

	if (consumer->fd < 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "The consumer of uid %u is gone",
			    (unsigned)consumer->uid);
		return FALSE;
	}
	stamp_request(consumer, header, type, size);
	if (!send_request(consumer, msg, size, send_fds, n_send)) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "Failed to reach the consumer: %s",
			    g_strerror(errno));
		return FALSE;
	}
	for (;;) {
		const struct tc_consumer_stream *stream = (const void *)buf;
		int received[2];
		gssize len =
			receive_message(consumer, buf, sizeof(buf), received, timeout_ms, error);

		if (len < 0)
			return FALSE;
		if (!answers_request(buf, len, header->request_id, error)) {
			close_fds(received);
			return FALSE;
		}
		if (len >= (gssize)sizeof(struct tc_consumer_header) &&
		    stream->header.type == TC_CONSUMER_REPLY) {
			memcpy(reply, buf, MIN((gsize)len, sizeof(*reply)));
			close_fds(received);
			return check_reply(reply, len, error);
		}
		if (len != sizeof(*stream) || stream->header.type != TC_CONSUMER_STREAM ||
		    stream->header.magic != TC_CONSUMER_MAGIC || received[0] < 0 ||
		    received[1] < 0 || n_streams >= max_fds || stream->cpu != n_streams) {
			close_fds(received);
			g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
				    "The consumer sent an unexpected stream");
			return FALSE;
		}
		fds[2 * n_streams] = received[0];
		fds[2 * n_streams + 1] = received[1];
		n_streams++;
		*shm_size = stream->shm_size;
	}
}

/* Ends a request made with consumer->lock held, and releases it. A
 * consumer that answered "no" (reply_type is a reply) is alive; one that
 * failed to talk is killed and forgotten. */
static gboolean
finish_request_unlock(TcConsumer *consumer, gboolean ok, guint32 reply_type,
		      GError **local_error, GError **error)
{
	if (!ok && reply_type != TC_CONSUMER_REPLY) {
		if (consumer->fd >= 0)
			tc_process_signal(consumer->pidfd, SIGKILL);
		consumer_mark_dead(consumer, (*local_error)->message);
	}
	g_mutex_unlock(&consumer->lock);
	if (!ok)
		g_propagate_error(error, g_steal_pointer(local_error));
	return ok;
}

static gboolean
request_full(TcConsumer *consumer, void *msg, guint32 type, guint32 size, const int *send_fds,
	     guint n_send, int *fds, guint max_fds, guint64 *shm_size,
	     struct tc_consumer_reply *reply, GError **error)
{
	g_autoptr(GError) local_error = NULL;
	gboolean ok;

	g_mutex_lock(&consumer->lock);
	reply->header.type = 0;
	ok = request_locked(consumer, msg, type, size, send_fds, n_send, fds, max_fds, shm_size,
			    reply, &local_error);
	return finish_request_unlock(consumer, ok, reply->header.type, &local_error, error);
}

static gboolean
request(TcConsumer *consumer, void *msg, guint32 type, guint32 size, int *fds, guint max_fds,
	guint64 *shm_size, struct tc_consumer_reply *reply, GError **error)
{
	return request_full(consumer, msg, type, size, NULL, 0, fds, max_fds, shm_size, reply,
			    error);
}

/* Receives answers of answer_type until the reply, consumer->lock held;
 * the whole exchange ends by deadline (monotonic, us). */
static gboolean
receive_answers_locked(TcConsumer *consumer, guint32 request_id, guint32 answer_type,
		       gint64 deadline, TcConsumerAnswerFunc func, gpointer user_data,
		       struct tc_consumer_reply *reply, GError **error)
{
	g_autofree guint64 *buf = g_malloc(TC_CONSUMER_MSG_MAX);
	const struct tc_consumer_header *header = (const void *)buf;

	for (;;) {
		gint64 left_ms = (deadline - g_get_monotonic_time()) / 1000;
		int received[2];
		gssize len;

		if (left_ms <= 0) {
			g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
				    "The consumer of uid %u (pid %d) did not finish its answer in "
				    "time",
				    (unsigned)consumer->uid, (int)consumer->pid);
			return FALSE;
		}
		len = receive_message(consumer, buf, TC_CONSUMER_MSG_MAX, received, (guint)left_ms,
				      error);
		if (len < 0)
			return FALSE;
		if (!answers_request(buf, len, request_id, error)) {
			close_fds(received);
			return FALSE;
		}
		if (received[0] >= 0 || received[1] >= 0) {
			close_fds(received);
			g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
				    "The consumer sent descriptors with an answer");
			return FALSE;
		}
		if (len >= (gssize)sizeof(*header) && header->type == TC_CONSUMER_REPLY) {
			memcpy(reply, buf, MIN((gsize)len, sizeof(*reply)));
			return check_reply(reply, len, error);
		}
		if (len < (gssize)sizeof(*header) || header->magic != TC_CONSUMER_MAGIC ||
		    header->type != answer_type || header->size != (guint32)len) {
			g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
				    "The consumer sent an unexpected message");
			return FALSE;
		}
		if (!func(buf, (gsize)len, user_data, error))
			return FALSE;
	}
}

gboolean
tc_consumer_request_answers(TcConsumer *consumer, void *msg, guint32 type, guint32 size,
			    guint32 answer_type, guint timeout_ms, TcConsumerAnswerFunc func,
			    gpointer user_data, GError **error)
{
	struct tc_consumer_header *header = msg;
	struct tc_consumer_reply reply = {0};
	g_autoptr(GError) local_error = NULL;
	gboolean ok = FALSE;

	g_mutex_lock(&consumer->lock);
	stamp_request(consumer, header, type, size);
	if (consumer->fd < 0)
		g_set_error(&local_error, TC_ERROR, TC_ERROR_FAILED,
			    "The consumer of uid %u is gone", (unsigned)consumer->uid);
	else if (!send_request(consumer, msg, size, NULL, 0))
		g_set_error(&local_error, TC_ERROR, TC_ERROR_FAILED,
			    "Failed to reach the consumer: %s", g_strerror(errno));
	else
		ok = receive_answers_locked(consumer, header->request_id, answer_type,
					    g_get_monotonic_time() + (gint64)timeout_ms * 1000,
					    func, user_data, &reply, &local_error);
	return finish_request_unlock(consumer, ok, reply.header.type, &local_error, error);
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
	g_atomic_int_set(&consumer->is_dead, TRUE);
	if (consumer->watch)
		g_source_destroy(consumer->watch);
	/* EOF on its socket makes the consumer exit. */
	if (consumer->fd >= 0) {
		close(consumer->fd);
		consumer->fd = -1;
	}
	g_mutex_unlock(&consumer->lock);
	g_message("Consumer of uid %u (pid %d) retired: no session of that user",
		  (unsigned)consumer->uid, (int)consumer->pid);
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
			 guint32 flags, GError **error)
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

gboolean
tc_consumer_snapshot(TcConsumer *consumer, guint64 session_id, const char *dir,
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
	if (!request(consumer, msg, TC_CONSUMER_SNAPSHOT, sizeof(*msg), NULL, 0, NULL, &reply,
		     error))
		return FALSE;
	*packets = reply.packets_written;
	return TRUE;
}

gboolean
tc_consumer_snapshot_relay(TcConsumer *consumer, guint64 session_id,
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
	if (!request(consumer, msg, TC_CONSUMER_SNAPSHOT_RELAY, sizeof(*msg), NULL, 0, NULL,
		     &reply, error))
		return FALSE;
	*packets = reply.packets_written;
	return TRUE;
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
tc_consumers_shutdown(void)
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
		gint64 deadline = g_get_monotonic_time() + CONSUMER_EXIT_TIMEOUT_MS * 1000;
		int status;

		g_mutex_lock(&consumer->lock);
		if (consumer->fd >= 0) {
			close(consumer->fd);
			consumer->fd = -1;
		}
		g_mutex_unlock(&consumer->lock);
		/* EOF on its socket makes the consumer write out and exit. */
		while (waitpid(consumer->pid, &status, WNOHANG) == 0) {
			if (g_get_monotonic_time() > deadline) {
				g_warning("Consumer of uid %u did not exit, killing it",
					  (unsigned)consumer->uid);
				tc_process_signal(consumer->pidfd, SIGKILL);
				waitpid(consumer->pid, &status, 0);
				break;
			}
			g_usleep(10000);
		}
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
	return consumer->pid;
}
