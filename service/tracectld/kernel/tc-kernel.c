/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-kernel"

#include "tc-kernel.h"

#include <errno.h>
#include <gio/gio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "tc-child-link.h"
#include "tc-error.h"
#include "tc-kernel-abi.h"

/*
 * A helper that does not answer within REPLY_TIMEOUT_MS is given up: the
 * request fails, and a helper tracectld started itself is killed (through
 * its pidfd) before its socket is closed, so that it removes nothing on its
 * way out; the next request starts a new one. One that died is started
 * again by the next request, which is sent again when the old helper could
 * not have read it. On a systemd machine the helper's unit has a watchdog
 * shorter than REPLY_TIMEOUT_MS, which kills a helper stuck in a request
 * before tracectld gives up on it.
 *
 * Every new connection starts with TC_KERNEL_PRUNE, listing the sessions
 * that have an instance: a restarted helper removes the instances and
 * probes of the others (sessions destroyed while it was away, or of a
 * previous tracectld) and keeps those of the live sessions.
 *
 * The helper names instances and probe groups after the session id, and
 * two services on one machine (two run directories: tests, containers
 * sharing the host's tracefs) both have a session 1. So every id sent to
 * the helper carries the service's scope in its upper 32 bits, a hash of
 * the run directory: stable across restarts, so that a restarted service
 * removes the leftovers of its previous run, and different for another
 * run directory, whose instances its PRUNE leaves alone. Session ids stay
 * below 2^32 (one counter per service run).
 *
 * Uprobes are the one request that touches a user's file, which may sit on
 * a file system that user controls and hang (a FUSE server that never
 * answers open()). Each goes on a connection of its own (probe_request),
 * outside kernel_lock: a slow one holds neither the other users' requests
 * nor the main connection, and giving up on it kills only the helper that
 * serves it (one started for that connection), never the main one with
 * the other sessions' requests in flight. Such a connection creates no
 * instance and sends no PRUNE, so its helper removes nothing when it ends.
 */
#define REPLY_TIMEOUT_MS 10000
/* A connection to a helper. */
struct link {
	/* pid: the helper tracectld started for it, not yet reaped, or 0 */
	TcChildLink child;
	gboolean is_main;    /* the shared one, which sends PRUNE */
	gboolean is_pruning; /* its PRUNE is under way */
};

static char *socket_path; /* set once at start */
static guint32 helper_scope; /* set once at start */
static GMutex kernel_lock; /* covers main_link, instances and trackers */
static struct link main_link = {
    .child = {.name = "the kernel helper", .fd = -1, .pidfd = -1},
    .is_main = TRUE,
};
static GArray *instances; /* guint64: the sessions whose instance exists */
/* The last TRACK of each session whose helper rescans /proc for it (its
 * helper session id -> struct tc_kernel_track_msg): a restarted helper
 * knows nothing of them, the rescans go on only if they are sent again. */
static GHashTable *trackers;
static GMutex killed_lock; /* covers killed_pids */
static GArray *killed_pids; /* GPid: killed helpers still to be reaped */
static guint next_seq = 1; /* atomic */

/* FNV-1a (Fowler, Noll, Vo): the same run directory gives the same scope
 * in every version of the service, which g_str_hash does not promise. */
static guint32
scope_of_rundir(const char *rundir)
{
	guint32 hash = 2166136261u;

	for (const char *p = rundir; *p; p++)
		hash = (hash ^ (guint8)*p) * 16777619u;
	return hash;
}

/* The id the helper knows session_id by: the service's scope above it. */
static guint64
helper_session_id(guint64 session_id)
{
	g_assert(session_id <= G_MAXUINT32);
	return (guint64)helper_scope << 32 | session_id;
}

char *
tc_kernel_probe_group(guint64 session_id)
{
	return g_strdup_printf("tracectl_%" G_GUINT64_FORMAT, helper_session_id(session_id));
}

void
tc_kernel_init(const char *rundir)
{
	socket_path = g_build_filename(rundir, TC_KERNEL_SOCKET_NAME, NULL);
	helper_scope = scope_of_rundir(rundir);
	instances = g_array_new(FALSE, FALSE, sizeof(guint64));
	trackers = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
	killed_pids = g_array_new(FALSE, FALSE, sizeof(GPid));
}

static char *
helper_binary(void)
{
	g_autofree char *self = g_file_read_link("/proc/self/exe", NULL);

	if (self && g_str_has_prefix(self, TRACECTL_BUILD_SERVICEDIR "/"))
		return g_build_filename(TRACECTL_BUILD_SERVICEDIR, "kernel-helper",
					"tracectl-kernel-helper", NULL);
	return g_build_filename(TRACECTL_LIBEXECDIR, "tracectl-kernel-helper", NULL);
}

/* systemd holds the helper's socket: connecting starts it. */
static int
connect_socket(GError **error)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	g_strlcpy(addr.sun_path, socket_path, sizeof(addr.sun_path));
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    "Cannot reach the kernel helper at '%s': %s", socket_path,
			    g_strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Reaps the killed helpers that have exited. */
static void
reap_killed(void)
{
	g_mutex_lock(&killed_lock);
	for (guint i = 0; i < killed_pids->len; i++) {
		GPid pid = g_array_index(killed_pids, GPid, i);

		if (waitpid(pid, NULL, WNOHANG) != 0)
			g_array_remove_index_fast(killed_pids, i--);
	}
	g_mutex_unlock(&killed_lock);
}

/* No systemd: we are root, so we start the helper ourselves; we reap
 * it (disconnect(), reap_killed()). */
static gboolean
spawn_helper(struct link *link, GError **error)
{
	g_autofree char *path = helper_binary();
	const char *argv[] = {path, NULL};

	if (geteuid() != 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    "No kernel helper socket at '%s', and tracectld is not root",
			    socket_path);
		return FALSE;
	}
	reap_killed();
	if (!tc_child_link_spawn(&link->child, argv, NULL, TC_KERNEL_COMMAND_FD, NULL, NULL, error))
		return FALSE;
	g_message("Started the kernel helper, pid %d%s", (int)link->child.pid,
		  link->is_main ? "" : ", for one uprobe");
	return TRUE;
}

/* Closes the connection; a helper we started is killed first when
 * kill_it, or waited for (it exits at the end of its socket). */
static void
disconnect(struct link *link, gboolean kill_it)
{
	TcChildLink *child = &link->child;
	gboolean is_reaped;

	if (child->pid > 0 && kill_it) {
		if (tc_child_link_kill(child))
			g_warning("Killed the kernel helper, pid %d; the next request starts another",
				  (int)child->pid);
		else
			g_warning("Cannot kill the kernel helper, pid %d: %s", (int)child->pid,
				  g_strerror(errno));
	}
	if (child->pid <= 0) {
		tc_child_link_clear(child);
		return;
	}
	/* One that was not killed removes our instances first, at the end of
	 * its socket: it is waited for, with no bound. */
	if (kill_it) {
		tc_child_link_shut(child);
		is_reaped = tc_child_link_wait(child, TC_CHILD_LINK_KILL_WAIT_MS);
	} else {
		is_reaped = tc_child_link_stop(child, -1);
	}
	if (!is_reaped) {
		g_mutex_lock(&killed_lock);
		g_array_append_val(killed_pids, child->pid);
		g_mutex_unlock(&killed_lock);
	}
	tc_child_link_clear(child);
}

static gboolean request_locked_fds(struct link *link, struct tc_kernel_msg *msg, gsize size,
				   struct tc_kernel_msg *reply,
				   void (*on_fd)(const struct tc_kernel_msg *, int, gpointer),
				   gpointer data, GError **error);

/* After PRUNE on a new main connection: the helper rescans for the
 * sessions that track ids again. A refusal is logged, the session keeps
 * the processes set_event_pid lists. */
static void
resend_trackers_locked(void)
{
	GHashTableIter iter;
	gpointer msg;

	g_hash_table_iter_init(&iter, trackers);
	while (g_hash_table_iter_next(&iter, NULL, &msg)) {
		g_autofree struct tc_kernel_track_msg *copy = g_memdup2(msg, sizeof(*copy));
		struct tc_kernel_msg reply = {0};
		g_autoptr(GError) error = NULL;

		if (!request_locked_fds(&main_link, &copy->header, sizeof(*copy), &reply, NULL, NULL,
					&error))
			g_warning("Kernel session %u: the restarted kernel helper does not follow its "
				  "tracked ids: %s",
				  (unsigned)(copy->header.session_id & G_MAXUINT32), error->message);
		if (main_link.child.fd < 0)
			return;
	}
}

/* The first request of a connection: the sessions whose instances stay. */
static gboolean
prune_locked(GError **error)
{
	g_autofree struct tc_kernel_prune_msg *msg = g_new0(struct tc_kernel_prune_msg, 1);
	struct tc_kernel_msg reply = {0};
	gboolean ok;

	if (instances->len > TC_KERNEL_PRUNE_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    "%u sessions have kernel instances, the limit is %u", instances->len,
			    TC_KERNEL_PRUNE_MAX);
		return FALSE;
	}
	msg->header.type = TC_KERNEL_PRUNE;
	msg->count = instances->len;
	msg->scope = helper_scope;
	for (guint i = 0; i < instances->len; i++)
		msg->keep[i] = helper_session_id(g_array_index(instances, guint64, i));
	main_link.is_pruning = TRUE;
	ok = request_locked_fds(&main_link, &msg->header, sizeof(*msg), &reply, NULL, NULL, error);
	main_link.is_pruning = FALSE;
	if (!ok)
		return FALSE;
	g_message("Kernel helper: %u sessions with instances kept, %u leftovers removed "
		  "(scope %u)",
		  msg->count, reply.value, helper_scope);
	return TRUE;
}

static gboolean
ensure_connected(struct link *link, GError **error)
{
	g_autoptr(GError) socket_error = NULL;

	if (link->child.fd >= 0)
		return TRUE;
	if (g_file_test(socket_path, G_FILE_TEST_EXISTS)) {
		int fd = connect_socket(&socket_error);

		/* A socket nobody serves is the leftover of another run. */
		if (fd < 0 && geteuid() != 0) {
			g_propagate_error(error, g_steal_pointer(&socket_error));
			return FALSE;
		}
		if (fd < 0)
			g_debug("%s, starting the helper", socket_error->message);
		else
			tc_child_link_adopt(&link->child, fd, 0, -1);
	}
	if (link->child.fd < 0 && !spawn_helper(link, error))
		return FALSE;
	if (link->is_main && !prune_locked(error)) {
		g_prefix_error(error, "The kernel helper refused the list of live sessions: ");
		disconnect(link, TRUE);
		return FALSE;
	}
	if (link->is_main)
		resend_trackers_locked();
	return TRUE;
}

/* Receives one message of exactly a struct tc_kernel_msg's size at most
 * and at most one descriptor (-1 for none) before the deadline
 * (monotonic, us); tc_child_link_receive() says what it refuses. */
static gssize
receive(struct link *link, struct tc_kernel_msg *msg, int *fd, gint64 deadline)
{
	return tc_child_link_receive(&link->child, msg, sizeof(*msg), fd, 1, deadline);
}

/* Sends msg on a connection, reconnecting once when the helper is gone
 * (it has not read the request, so it is sent again as it is). */
static gboolean
send_locked(struct link *link, struct tc_kernel_msg *msg, gsize size, gint64 deadline,
	    GError **error)
{
	int res;

	for (int attempt = 0;; attempt++) {
		if (!ensure_connected(link, error))
			return FALSE;
		msg->magic = TC_KERNEL_MAGIC;
		msg->size = size;
		msg->seq = (guint32)g_atomic_int_add(&next_seq, 1);
		res = tc_child_link_send(&link->child, msg, size, NULL, 0, deadline);
		if (res == 0)
			return TRUE;
		/* A helper that does not read is hung, not gone: one started
		 * again would only have what is left of the deadline. */
		if (res == -ETIMEDOUT) {
			disconnect(link, TRUE);
			g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
				    "The kernel helper did not take the request within %d ms; it "
				    "was stopped, and the next request starts it again",
				    REPLY_TIMEOUT_MS);
			return FALSE;
		}
		g_warning("The kernel helper is gone (%s), starting it again", g_strerror(-res));
		disconnect(link, TRUE);
		/* A new helper that dies at once is not started again and again. */
		if (attempt > 0 || link->is_pruning) {
			g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
				    "The kernel helper went away twice in a row");
			return FALSE;
		}
	}
}

/* The link's lock held (kernel_lock for the main one). START sends
 * descriptors before its reply: each one goes to on_fd (which takes it),
 * or is closed. */
static gboolean
request_locked_fds(struct link *link, struct tc_kernel_msg *msg, gsize size, struct tc_kernel_msg *reply,
		   void (*on_fd)(const struct tc_kernel_msg *, int, gpointer), gpointer data,
		   GError **error)
{
	gint64 deadline = g_get_monotonic_time() + REPLY_TIMEOUT_MS * G_TIME_SPAN_MILLISECOND;
	gssize len = -1;
	int fd = -1;

	if (!send_locked(link, msg, size, deadline, error))
		return FALSE;
	while ((len = receive(link, reply, &fd, deadline)) == sizeof(*reply) &&
	       reply->magic == TC_KERNEL_MAGIC && reply->type != TC_KERNEL_REPLY && fd >= 0) {
		if (on_fd)
			on_fd(reply, fd, data);
		else
			close(fd);
	}
	if (fd >= 0)
		close(fd);
	if (len == -ETIMEDOUT) {
		disconnect(link, TRUE);
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    "The kernel helper did not answer within %d ms; it was stopped, and the "
			    "next request starts it again",
			    REPLY_TIMEOUT_MS);
		return FALSE;
	}
	if (len != sizeof(*reply) || reply->magic != TC_KERNEL_MAGIC ||
	    reply->type != TC_KERNEL_REPLY || reply->seq != msg->seq) {
		disconnect(link, TRUE);
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    len == -EPIPE
				? "The kernel helper went away during the request; the next "
				  "request starts it again"
				: "The kernel helper did not answer properly");
		return FALSE;
	}
	if (reply->status < 0) {
		g_set_error(error, TC_ERROR,
			    reply->status == -ENOENT ? TC_ERROR_NOT_FOUND : TC_ERROR_FAILED,
			    "The kernel helper failed: %s", g_strerror(-reply->status));
		return FALSE;
	}
	return TRUE;
}

static gboolean
request_locked(struct tc_kernel_msg *msg, struct tc_kernel_msg *reply, GError **error)
{
	return request_locked_fds(&main_link, msg, sizeof(*msg), reply, NULL, NULL, error);
}

static gboolean
simple_request(guint32 type, guint64 session_id, guint32 value, GError **error)
{
	struct tc_kernel_msg msg = {
		.type = type, .session_id = helper_session_id(session_id), .value = value};
	struct tc_kernel_msg reply = {0};
	gboolean ok;

	g_mutex_lock(&kernel_lock);
	ok = request_locked(&msg, &reply, error);
	g_mutex_unlock(&kernel_lock);
	return ok;
}

static void
forget_instance(guint64 session_id)
{
	g_mutex_lock(&kernel_lock);
	for (guint i = 0; i < instances->len; i++)
		if (g_array_index(instances, guint64, i) == session_id)
			g_array_remove_index_fast(instances, i--);
	g_hash_table_remove(trackers, &(guint64){helper_session_id(session_id)});
	g_mutex_unlock(&kernel_lock);
}

gboolean
tc_kernel_instance_create(guint64 session_id, guint32 buffer_size_kb, gboolean clock_tsc,
			  gboolean overwrite, GError **error)
{
	if (buffer_size_kb & (TC_KERNEL_CLOCK_TSC | TC_KERNEL_OVERWRITE)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT, "Kernel buffers of %u KiB are too big",
			    buffer_size_kb);
		return FALSE;
	}
	g_mutex_lock(&kernel_lock);
	if (instances->len >= TC_KERNEL_PRUNE_MAX) {
		g_mutex_unlock(&kernel_lock);
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    "%u sessions have kernel instances already, the limit is %u",
			    TC_KERNEL_PRUNE_MAX, TC_KERNEL_PRUNE_MAX);
		return FALSE;
	}
	/* Listed before it exists: a helper restarted meanwhile keeps it. */
	g_array_append_val(instances, session_id);
	g_mutex_unlock(&kernel_lock);
	if (simple_request(TC_KERNEL_INSTANCE_CREATE, session_id,
			   buffer_size_kb | (clock_tsc ? TC_KERNEL_CLOCK_TSC : 0) |
				   (overwrite ? TC_KERNEL_OVERWRITE : 0),
			   error))
		return TRUE;
	forget_instance(session_id);
	return FALSE;
}

gboolean
tc_kernel_instance_remove(guint64 session_id, GError **error)
{
	/* The session is gone whatever the helper says: a later PRUNE removes
	 * what this request could not. */
	forget_instance(session_id);
	return simple_request(TC_KERNEL_INSTANCE_REMOVE, session_id, 0, error);
}

gboolean
tc_kernel_stop(guint64 session_id, GError **error)
{
	return simple_request(TC_KERNEL_STOP, session_id, 0, error);
}

gboolean
tc_kernel_statedump(guint64 session_id, GError **error)
{
	return simple_request(TC_KERNEL_STATEDUMP, session_id, 0, error);
}

gboolean
tc_kernel_set_pids(guint64 session_id, const guint32 *pids, guint count, gboolean all,
		   GError **error)
{
	g_autofree struct tc_kernel_pids_msg *msg = g_new0(struct tc_kernel_pids_msg, 1);
	struct tc_kernel_msg reply = {0};
	gboolean ok;

	if (count > TC_KERNEL_PIDS_MAX || (all && count > 0)) {
		g_set_error(error, TC_ERROR, TC_ERROR_LIMIT_EXCEEDED,
			    "The kernel helper takes at most %u pids, not %u", TC_KERNEL_PIDS_MAX,
			    count);
		return FALSE;
	}
	msg->header.type = TC_KERNEL_PIDS;
	msg->header.session_id = helper_session_id(session_id);
	msg->count = count;
	msg->flags = all ? TC_KERNEL_PIDS_ALL : 0;
	for (guint i = 0; i < count; i++) {
		if (pids[i] == 0 || pids[i] > G_MAXINT32) {
			g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    "%u is not a process id", pids[i]);
			return FALSE;
		}
		msg->pids[i] = (gint32)pids[i];
	}
	g_mutex_lock(&kernel_lock);
	ok = request_locked_fds(&main_link, &msg->header, sizeof(*msg), &reply, NULL, NULL, error);
	if (ok)
		g_hash_table_remove(trackers, &msg->header.session_id);
	g_mutex_unlock(&kernel_lock);
	return ok;
}

gboolean
tc_kernel_track(guint64 session_id, guint32 all, const guint32 *counts, const guint32 *values,
		GError **error)
{
	g_autofree struct tc_kernel_track_msg *msg = g_new0(struct tc_kernel_track_msg, 1);
	struct tc_kernel_msg reply = {0};
	guint64 total = 0;
	gboolean ok;

	for (guint k = 0; k < TC_KERNEL_TRACK_KINDS; k++)
		total += counts[k];
	if (total > TC_KERNEL_TRACK_VALUES_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_LIMIT_EXCEEDED,
			    "The kernel domain of a session tracks at most %u values, not %" G_GUINT64_FORMAT,
			    TC_KERNEL_TRACK_VALUES_MAX, total);
		return FALSE;
	}
	msg->header.type = TC_KERNEL_TRACK;
	msg->header.session_id = helper_session_id(session_id);
	msg->all = all;
	memcpy(msg->counts, counts, sizeof(msg->counts));
	if (total > 0) /* values may be no array at all then */
		memcpy(msg->values, values, sizeof(guint32) * total);
	g_mutex_lock(&kernel_lock);
	ok = request_locked_fds(&main_link, &msg->header, sizeof(*msg), &reply, NULL, NULL, error);
	if (ok) {
		struct tc_kernel_track_msg *kept = g_steal_pointer(&msg);

		g_hash_table_replace(trackers, &kept->header.session_id, kept);
	}
	g_mutex_unlock(&kernel_lock);
	if (!ok && reply.status == -E2BIG) {
		g_clear_error(error);
		g_set_error(error, TC_ERROR, TC_ERROR_LIMIT_EXCEEDED,
			    "The processes with the tracked ids have more than %u threads, the "
			    "kernel helper's limit",
			    TC_KERNEL_PID_THREADS_MAX);
	}
	return ok;
}

/* An EVENT_ENABLE, EVENT_DISABLE or FORMATS_GET request. */
static gboolean
event_request(guint32 type, guint64 session_id, const char *system, const char *event,
	      void (*on_fd)(const struct tc_kernel_msg *, int, gpointer), gpointer data,
	      GError **error)
{
	struct tc_kernel_event_msg msg = {
		.header = {.type = type, .session_id = helper_session_id(session_id)},
	};
	struct tc_kernel_msg reply = {0};
	gboolean ok;

	if (g_strlcpy(msg.system, system, sizeof(msg.system)) >= sizeof(msg.system) ||
	    g_strlcpy(msg.event, event, sizeof(msg.event)) >= sizeof(msg.event)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT, "Event name too long");
		return FALSE;
	}
	g_mutex_lock(&kernel_lock);
	ok = request_locked_fds(&main_link, &msg.header, sizeof(msg), &reply, on_fd, data, error);
	g_mutex_unlock(&kernel_lock);
	return ok;
}

gboolean
tc_kernel_event(guint64 session_id, const char *system, const char *event, gboolean enable,
		GError **error)
{
	return event_request(enable ? TC_KERNEL_EVENT_ENABLE : TC_KERNEL_EVENT_DISABLE,
			     session_id, system, event, NULL, NULL, error);
}

gboolean
tc_kernel_event_filter(guint64 session_id, const char *system, const char *event,
		       const char *filter, GError **error)
{
	struct tc_kernel_filter_msg msg = {
		.header = {.type = TC_KERNEL_EVENT_FILTER, .session_id = helper_session_id(session_id)},
	};
	struct tc_kernel_msg reply = {0};
	g_autoptr(GError) local_error = NULL;
	gboolean ok;

	if (g_strlcpy(msg.system, system, sizeof(msg.system)) >= sizeof(msg.system) ||
	    g_strlcpy(msg.event, event, sizeof(msg.event)) >= sizeof(msg.event) ||
	    g_strlcpy(msg.filter, filter, sizeof(msg.filter)) >= sizeof(msg.filter)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "Event name or filter too long");
		return FALSE;
	}
	g_mutex_lock(&kernel_lock);
	ok = request_locked_fds(&main_link, &msg.header, sizeof(msg), &reply, NULL, NULL,
				&local_error);
	g_mutex_unlock(&kernel_lock);
	if (!ok && reply.status == -EINVAL) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "filter: the kernel refused '%s' for %s:%s (a field those events "
			    "lack, or of another type?)",
			    filter, system, event);
		return FALSE;
	}
	if (!ok)
		g_propagate_error(error, g_steal_pointer(&local_error));
	return ok;
}

static void
collect_formats_fd(const struct tc_kernel_msg *msg, int fd, gpointer data)
{
	int *formats_fd = data;

	if (msg->type == TC_KERNEL_FORMATS && *formats_fd < 0)
		*formats_fd = fd;
	else
		close(fd);
}

static void
collect_tgids_fd(const struct tc_kernel_msg *msg, int fd, gpointer data)
{
	int *tgids_fd = data;

	if (msg->type == TC_KERNEL_TGIDS_FD && *tgids_fd < 0)
		*tgids_fd = fd;
	else
		close(fd);
}

int
tc_kernel_tgids(guint64 session_id, GError **error)
{
	struct tc_kernel_msg msg = {.type = TC_KERNEL_TGIDS,
				    .session_id = helper_session_id(session_id)};
	struct tc_kernel_msg reply = {0};
	int fd = -1;
	gboolean ok;

	g_mutex_lock(&kernel_lock);
	ok = request_locked_fds(&main_link, &msg, sizeof(msg), &reply, collect_tgids_fd, &fd, error);
	g_mutex_unlock(&kernel_lock);
	if (ok && fd < 0)
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "The kernel helper sent no tgid map");
	if (!ok && fd >= 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

int
tc_kernel_formats(guint64 session_id, const char *system, const char *event, GError **error)
{
	int fd = -1;

	if (!event_request(TC_KERNEL_FORMATS_GET, session_id, system, event, collect_formats_fd,
			   &fd, error)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (fd < 0)
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "The kernel helper sent no formats");
	return fd;
}

static void
collect_start_fd(const struct tc_kernel_msg *msg, int fd, gpointer data)
{
	TcKernelBuffers *buffers = data;

	if (msg->type == TC_KERNEL_CPU_FD && msg->value == buffers->cpu_fds->len) {
		g_array_append_val(buffers->cpu_fds, fd);
	} else if (msg->type == TC_KERNEL_CPU_STATS_FD && msg->value == buffers->stats_fds->len) {
		g_array_append_val(buffers->stats_fds, fd);
	} else if (msg->type == TC_KERNEL_FORMATS && buffers->formats_fd < 0) {
		buffers->formats_fd = fd;
	} else {
		close(fd);
	}
}

void
tc_kernel_buffers_clear(TcKernelBuffers *buffers)
{
	for (guint i = 0; buffers->cpu_fds && i < buffers->cpu_fds->len; i++)
		close(g_array_index(buffers->cpu_fds, int, i));
	g_clear_pointer(&buffers->cpu_fds, g_array_unref);
	for (guint i = 0; buffers->stats_fds && i < buffers->stats_fds->len; i++)
		close(g_array_index(buffers->stats_fds, int, i));
	g_clear_pointer(&buffers->stats_fds, g_array_unref);
	if (buffers->formats_fd >= 0)
		close(buffers->formats_fd);
	buffers->formats_fd = -1;
}

gboolean
tc_kernel_start(guint64 session_id, TcKernelBuffers *buffers, GError **error)
{
	struct tc_kernel_msg msg = {.type = TC_KERNEL_START,
				    .session_id = helper_session_id(session_id)};
	struct tc_kernel_msg reply = {0};
	gboolean ok;

	buffers->cpu_fds = g_array_new(FALSE, FALSE, sizeof(int));
	buffers->stats_fds = g_array_new(FALSE, FALSE, sizeof(int));
	buffers->formats_fd = -1;
	g_mutex_lock(&kernel_lock);
	ok = request_locked_fds(&main_link, &msg, sizeof(msg), &reply, collect_start_fd, buffers, error);
	g_mutex_unlock(&kernel_lock);
	if (ok && (buffers->cpu_fds->len == 0 || buffers->cpu_fds->len != reply.value ||
		   buffers->stats_fds->len != reply.value || buffers->formats_fd < 0)) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED,
			    "The kernel helper sent %u of %u CPU buffers", buffers->cpu_fds->len,
			    reply.value);
		ok = FALSE;
	}
	if (!ok)
		tc_kernel_buffers_clear(buffers);
	return ok;
}

gboolean
tc_kernel_ping(guint32 *version, GError **error)
{
	struct tc_kernel_msg msg = {.type = TC_KERNEL_PING}, reply = {0};
	gboolean ok;

	g_mutex_lock(&kernel_lock);
	ok = request_locked(&msg, &reply, error);
	g_mutex_unlock(&kernel_lock);
	if (ok)
		*version = reply.value;
	return ok;
}

void
tc_kernel_shutdown(void)
{
	g_mutex_lock(&kernel_lock);
	/* EOF on its socket ends it, after it removed our instances. */
	disconnect(&main_link, FALSE);
	reap_killed();
	g_mutex_unlock(&kernel_lock);
	g_clear_pointer(&socket_path, g_free);
	g_clear_pointer(&instances, g_array_unref);
	g_clear_pointer(&killed_pids, g_array_unref);
}

static void
collect_list_fd(const struct tc_kernel_msg *msg, int fd, gpointer data)
{
	int *list_fd = data;

	if (msg->type == TC_KERNEL_LIST_FD && *list_fd < 0)
		*list_fd = fd;
	else
		close(fd);
}

/* Reads at most this much of the helper's list. */
#define LIST_MAX (4u << 20)

char **
tc_kernel_list(gboolean syscalls, GError **error)
{
	struct tc_kernel_msg msg = {.type = TC_KERNEL_LIST, .value = syscalls ? 1 : 0};
	struct tc_kernel_msg reply = {0};
	g_autofree char *text = NULL;
	int fd = -1;
	gssize len;
	gboolean ok;

	g_mutex_lock(&kernel_lock);
	ok = request_locked_fds(&main_link, &msg, sizeof(msg), &reply, collect_list_fd, &fd, error);
	g_mutex_unlock(&kernel_lock);
	if (ok && fd < 0)
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "The kernel helper sent no list");
	if (!ok || fd < 0) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	text = g_malloc(LIST_MAX + 1);
	len = pread(fd, text, LIST_MAX, 0);
	close(fd);
	if (len < 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "Cannot read the kernel helper's list");
		return NULL;
	}
	text[len] = '\0';
	return g_strsplit(g_strchomp(text), "\n", -1);
}

/* The helper's refusal of a uprobe target (tc-kernel-abi.h), in words. */
static void
name_uprobe_refusal(int code, const char *location, GError **error)
{
	gboolean is_sdt = g_str_has_prefix(location, "sdt:");
	const char *file = is_sdt ? location + 4 : location;
	g_autofree char *path = g_strndup(file, strcspn(file, ":"));
	const char *function = strchr(file, ':') ? strchr(file, ':') + 1 : "";
	g_autofree char *why = NULL;

	switch (code) {
	case EMEDIUMTYPE:
		why = g_strdup("it is not a regular file (a FIFO, a device or a directory)");
		break;
	case EFBIG:
		why = g_strdup_printf("it is bigger than %llu MiB, the kernel helper's limit",
				      TC_KERNEL_ELF_FILE_MAX >> 20);
		break;
	case E2BIG:
		why = g_strdup_printf("its ELF headers exceed the kernel helper's limits (%u "
				      "sections, %u symbols, %u MiB of symbol names, %u MiB of "
				      "notes)",
				      TC_KERNEL_ELF_SECTIONS_MAX, TC_KERNEL_ELF_SYMBOLS_MAX,
				      TC_KERNEL_ELF_NAMES_MAX >> 20, TC_KERNEL_ELF_NOTES_MAX >> 20);
		break;
	case ENOEXEC:
		why = g_strdup("it is not an ELF64 file, or its headers point past its end "
			       "(truncated?)");
		break;
	case ESRCH:
		why = is_sdt ? g_strdup_printf("it has no SDT probe '%s' in its notes (.note.stapsdt)",
					       function)
			     : g_strdup_printf("it has no function named '%s'", function);
		break;
	case ENOTUNIQ:
		why = g_strdup_printf("its SDT probe '%s' is at several places, and a uprobe is "
				      "one place",
				      function);
		break;
	case ETIMEDOUT:
		why = g_strdup_printf("it did not open within %d ms (a slow or hung file "
				      "system?); the kernel helper gave up on it",
				      TC_KERNEL_UPROBE_FILE_MS);
		break;
	case EACCES:
	case EPERM:
		why = g_strdup("the session owner may not read it");
		break;
	default:
		return;
	}
	g_clear_error(error);
	g_set_error(error, TC_ERROR, code == ESRCH ? TC_ERROR_NOT_FOUND : TC_ERROR_INVALID_ARGUMENT,
		    "Cannot probe '%s': %s", path, why);
}

/* A uprobe request on a connection of its own: see the top of the file.
 * Kprobes touch no user's file and take the main connection. */
static gboolean
probe_request(struct tc_kernel_probe_msg *msg, struct tc_kernel_msg *reply, GError **error)
{
	struct link link = {0};
	gboolean ok;

	if (msg->kind != TC_KERNEL_PROBE_UPROBE) {
		g_mutex_lock(&kernel_lock);
		ok = request_locked_fds(&main_link, &msg->header, sizeof(*msg), reply, NULL, NULL,
					error);
		g_mutex_unlock(&kernel_lock);
		return ok;
	}
	tc_child_link_init(&link.child, "the kernel helper");
	ok = request_locked_fds(&link, &msg->header, sizeof(*msg), reply, NULL, NULL, error);
	/* A helper that failed the request is gone already; one that answered
	 * ends with its socket, owning nothing. */
	disconnect(&link, FALSE);
	return ok;
}

gboolean
tc_kernel_probe_add(guint64 session_id, guint32 kind, const char *name, const char *location,
		    uid_t uid, gid_t gid, gboolean enable, GError **error)
{
	struct tc_kernel_probe_msg msg = {
		.header = {.type = TC_KERNEL_PROBE_ADD,
			   .session_id = helper_session_id(session_id)},
		.kind = kind,
		.uid = uid,
		.gid = gid,
		.flags = enable ? 0 : TC_KERNEL_PROBE_DISABLED,
	};
	struct tc_kernel_msg reply = {0};
	gboolean ok;

	if (g_strlcpy(msg.name, name, sizeof(msg.name)) >= sizeof(msg.name) ||
	    g_strlcpy(msg.location, location, sizeof(msg.location)) >= sizeof(msg.location)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT, "Probe name or place too long");
		return FALSE;
	}
	ok = probe_request(&msg, &reply, error);
	if (!ok && reply.magic == TC_KERNEL_MAGIC && reply.type == TC_KERNEL_REPLY &&
	    reply.status < 0 && kind == TC_KERNEL_PROBE_UPROBE)
		name_uprobe_refusal(-reply.status, location, error);
	return ok;
}

static void
collect_own_fd(const struct tc_kernel_msg *msg, int fd, gpointer data)
{
	int *ring_fd = data;

	if (msg->type == TC_KERNEL_OWN_FD && *ring_fd < 0)
		*ring_fd = fd;
	else
		close(fd);
}

/* Sends an own-tier start and returns the ring buffer's descriptor the
 * helper answers with, or -1 with error set. */
static int
request_own_ring(struct tc_kernel_msg *request, size_t size, GError **error)
{
	struct tc_kernel_msg reply = {0};
	int fd = -1;
	gboolean ok;

	g_mutex_lock(&kernel_lock);
	ok = request_locked_fds(&main_link, request, size, &reply, collect_own_fd, &fd, error);
	g_mutex_unlock(&kernel_lock);
	if (!ok && reply.type == TC_KERNEL_REPLY && reply.status == -EOPNOTSUPP) {
		g_clear_error(error);
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
			    "The own-process kernel tier was not built into the kernel helper "
			    "(it needs clang, bpftool, libbpf and a kernel with BTF)");
	}
	if (ok && fd < 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "The kernel helper sent no ring buffer");
		ok = FALSE;
	}
	if (!ok && fd >= 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

int
tc_kernel_own_start(guint64 session_id, uid_t uid, gid_t gid, const TcKernelOwnEvents *events,
		    GPid quiet_pid, GError **error)
{
	struct tc_kernel_own_msg msg = {
		.header = {.type = TC_KERNEL_OWN_START, .session_id = helper_session_id(session_id)},
		.uid = uid,
		.gid = gid,
		.events = events->events,
		.quiet_tgid = quiet_pid > 0 ? (guint32)quiet_pid : 0,
	};

	G_STATIC_ASSERT(sizeof(msg.syscall_entry) == sizeof(events->syscall_entry));
	memcpy(msg.syscall_entry, events->syscall_entry, sizeof(msg.syscall_entry));
	memcpy(msg.syscall_exit, events->syscall_exit, sizeof(msg.syscall_exit));
	return request_own_ring(&msg.header, sizeof(msg), error);
}

int
tc_kernel_own_unit_start(guint64 session_id, const char *cgroup, const TcKernelOwnEvents *events,
			 GPid quiet_pid, GError **error)
{
	struct tc_kernel_own_unit_msg msg = {
		.header = {.type = TC_KERNEL_OWN_UNIT_START,
			   .session_id = helper_session_id(session_id)},
		.events = events->events,
		.quiet_tgid = quiet_pid > 0 ? (guint32)quiet_pid : 0,
	};
	int fd;

	memcpy(msg.syscall_entry, events->syscall_entry, sizeof(msg.syscall_entry));
	memcpy(msg.syscall_exit, events->syscall_exit, sizeof(msg.syscall_exit));

	if (strlen(cgroup) >= sizeof(msg.cgroup)) {
		g_set_error(error, TC_ERROR, TC_ERROR_LIMIT_EXCEEDED,
			    "The control group path '%.64s...' is longer than %u bytes", cgroup,
			    TC_KERNEL_CGROUP_PATH_MAX - 1);
		return -1;
	}
	strcpy(msg.cgroup, cgroup);
	fd = request_own_ring(&msg.header, sizeof(msg), error);
	if (fd < 0)
		g_prefix_error(error, "control group '%s': ", cgroup);
	return fd;
}

gboolean
tc_kernel_own_remove(guint64 session_id, GError **error)
{
	return simple_request(TC_KERNEL_OWN_REMOVE, session_id, 0, error);
}
