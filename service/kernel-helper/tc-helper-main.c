/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracectl-kernel-helper: the root side of kernel tracing. It does the
 * tracefs work tracectld (an unprivileged user) cannot: one tracefs
 * instance per tracing session. It trusts nobody: each connection's uid
 * must be root or the tracectl account, every request is checked, and
 * instance names are built here from a number, never taken from a peer.
 * Every request is bounded in time (non-blocking opens, bounded reads; a
 * uprobe's file, which may sit on a file system its owner controls, is
 * opened in a child while the other connections are served), and
 * tracectld kills and restarts a helper that does not answer in time.
 * It removes nothing when it starts: a restarted helper does not know which
 * sessions still exist, tracectld tells it (TC_KERNEL_PRUNE), so that the
 * probes and instances of live sessions survive a restart. It exits after
 * IDLE_EXIT_MS without a connection (systemd starts it again).
 */
#include "tc-helper-main.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <poll.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "tc-fd-passing.h"
#include "tc-helper-filter.h"
#include "tc-helper-log.h"
#include "tc-helper-own.h"
#include "tc-helper-pids.h"
#include "tc-helper-probe.h"
#include "tc-helper-request.h"
#include "tc-helper-statedump.h"
#include "tc-helper-target.h"
#include "tc-helper-tracefs.h"
#include "tc-helper-track.h"
#include "tc-kernel-abi.h"

#define IDLE_EXIT_MS 10000
/* tracectld's main connection, and one per uprobe request under way. */
#define MAX_CLIENTS 64
#define SERVICE_USER "tracectl"

/* Instance path of a session; the name is ours, only the number varies. */
static int
instance_path(uint64_t session_id, char *path, size_t size)
{
	char name[TC_HELPER_REQUEST_NAME_MAX];
	int len;

	tc_helper_request_instance_name(session_id, name, sizeof(name));
	len = snprintf(path, size, "%s/instances/%s", tc_helper_tracefs_root(), name);

	return len > 0 && (size_t)len < size ? 0 : -ENAMETOOLONG;
}

static int
instance_create(uint64_t session_id)
{
	char path[4096];
	int ret = instance_path(session_id, path, sizeof(path));

	if (ret < 0)
		return ret;
	if (mkdir(path, 0700) < 0)
		return -errno;
	tc_helper_log("info", "created instance %s%llu", TC_KERNEL_INSTANCE_PREFIX,
		 (unsigned long long)session_id);
	return 0;
}

static int
instance_remove(uint64_t session_id)
{
	char path[4096];
	int ret = instance_path(session_id, path, sizeof(path));

	if (ret < 0)
		return ret;
	if (rmdir(path) < 0)
		return -errno;
	tc_helper_track_forget(session_id);
	{
		char group[TC_HELPER_REQUEST_NAME_MAX];

		tc_helper_request_probe_group(session_id, group, sizeof(group));
		tc_helper_probe_remove_group(group);
	}
	tc_helper_log("info", "removed instance %s%llu", TC_KERNEL_INSTANCE_PREFIX,
		 (unsigned long long)session_id);
	return 0;
}

/*
 * The instances each connection created: when tracectld goes away (its
 * connection closes), so do they. Removing one fails with EBUSY while a
 * consumer still holds its raw buffers: the consumer of a dead service
 * flushes and exits, so the removal is retried for a while.
 */
#define OWNED_MAX 1024
#define REMOVE_RETRIES 50
#define REMOVE_RETRY_US 100000

static struct {
	int fd;
	uint64_t session_id;
} owned[OWNED_MAX];
static int nr_owned;

static void
own(int fd, uint64_t session_id)
{
	if (nr_owned < OWNED_MAX)
		owned[nr_owned++] = (__typeof__(owned[0])){.fd = fd, .session_id = session_id};
}

static void
disown(uint64_t session_id)
{
	for (int i = 0; i < nr_owned; i++)
		if (owned[i].session_id == session_id)
			owned[i--] = owned[--nr_owned];
}

static void
remove_owned_by(int fd)
{
	for (int i = 0; i < nr_owned; i++) {
		uint64_t id = owned[i].session_id;
		int ret, attempt = 0;

		if (owned[i].fd != fd)
			continue;
		while ((ret = instance_remove(id)) == -EBUSY && attempt++ < REMOVE_RETRIES) {
			tc_helper_main_watchdog_ping();
			usleep(REMOVE_RETRY_US);
		}
		if (ret < 0)
			tc_helper_log("warning", "cannot remove the instance of session %" PRIu64
				      " whose service went away: %s", id, strerror(-ret));
		owned[i--] = owned[--nr_owned];
	}
}

static bool
is_kept(uint64_t session_id, const void *data)
{
	const struct tc_kernel_prune_msg *msg = data;

	if (session_id >> 32 != msg->scope)
		return true; /* another service's */
	for (uint32_t i = 0; i < msg->count; i++)
		if (msg->keep[i] == session_id)
			return true;
	return false;
}

/* Instances of sessions that are gone, then their probe groups. */
static int
remove_instances_not_kept(const struct tc_kernel_prune_msg *msg)
{
	char path[4096];
	struct dirent *entry;
	int removed = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/instances", tc_helper_tracefs_root());
	dir = opendir(path);
	while (dir && (entry = readdir(dir)) != NULL) {
		const char *digits = entry->d_name + strlen(TC_KERNEL_INSTANCE_PREFIX);
		unsigned long long id;
		char *end;

		if (strncmp(entry->d_name, TC_KERNEL_INSTANCE_PREFIX,
			    strlen(TC_KERNEL_INSTANCE_PREFIX)) != 0 ||
		    *digits < '0' || *digits > '9')
			continue;
		errno = 0;
		id = strtoull(digits, &end, 10);
		if (*end || errno || is_kept(id, msg))
			continue;
		if (instance_remove(id) == 0) {
			tc_helper_log("info", "removed instance %s, whose session is gone",
				      entry->d_name);
			removed++;
		}
	}
	if (dir)
		closedir(dir);
	return removed + tc_helper_probe_prune(is_kept, msg);
}

/* PRUNE: what tracectld keeps is owned by this connection, the rest of its
 * scope goes. */
static int
prune(int sock, const void *buf, uint32_t *removed)
{
	const struct tc_kernel_prune_msg *msg = buf;

	for (uint32_t i = 0; i < msg->count; i++) {
		disown(msg->keep[i]);
		own(sock, msg->keep[i]);
	}
	*removed = (uint32_t)remove_instances_not_kept(msg);
	return 0;
}

static bool
peer_is_allowed(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct passwd *pw;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return false;
	if (cred.uid == 0)
		return true;
	pw = getpwnam(SERVICE_USER);
	if (pw && cred.uid == pw->pw_uid)
		return true;
	tc_helper_log("warning", "refused a connection from pid %ld uid %ld", (long)cred.pid,
		 (long)cred.uid);
	return false;
}

#define CPUS_MAX 1024

/* Sends a message of the START sequence carrying one descriptor. */
static bool
send_fd(int sock, uint32_t type, const struct tc_kernel_msg *request, uint32_t value, int fd)
{
	struct tc_kernel_msg msg = {
		.magic = TC_KERNEL_MAGIC, .type = type, .size = sizeof(msg),
		.seq = request->seq, .session_id = request->session_id, .value = value,
	};

	return tc_fd_send(sock, &msg, sizeof(msg), &fd, 1, 0) == sizeof(msg);
}

/* START: recording on, then the raw buffers and the formats. */
static int
start_session(int sock, const struct tc_kernel_msg *request, uint32_t *nr_cpus)
{
	static int fds[CPUS_MAX], stats_fds[CPUS_MAX];
	int count, formats, ret;

	ret = tc_helper_tracefs_open_cpu_buffers(request->session_id, fds, stats_fds, CPUS_MAX,
						 &count);
	if (ret < 0)
		return ret;
	formats = tc_helper_tracefs_formats_memfd(request->session_id, NULL, NULL, NULL);
	ret = formats < 0 ? formats : tc_helper_tracefs_tracing_on(request->session_id, true);
	for (int cpu = 0; ret == 0 && cpu < count; cpu++)
		if (!send_fd(sock, TC_KERNEL_CPU_FD, request, (uint32_t)cpu, fds[cpu]) ||
		    !send_fd(sock, TC_KERNEL_CPU_STATS_FD, request, (uint32_t)cpu, stats_fds[cpu]))
			ret = -EPIPE;
	if (ret == 0 && !send_fd(sock, TC_KERNEL_FORMATS, request, 0, formats))
		ret = -EPIPE;
	for (int cpu = 0; cpu < count; cpu++) {
		close(fds[cpu]);
		close(stats_fds[cpu]);
	}
	if (formats >= 0)
		close(formats);
	*nr_cpus = (uint32_t)count;
	tc_helper_log("info", "session %" PRIu64 ": recording on %d CPUs (%s)",
		      request->session_id, count, ret == 0 ? "ok" : strerror(-ret));
	return ret;
}

static int
list_events(int sock, const struct tc_kernel_msg *request)
{
	int fd = tc_helper_tracefs_list_memfd(request->value == 1);
	int ret = 0;

	if (fd < 0)
		return fd;
	if (!send_fd(sock, TC_KERNEL_LIST_FD, request, 0, fd))
		ret = -EPIPE;
	close(fd);
	return ret;
}

/* The functions below get requests tc_helper_request_is_valid() passed. */

static int
change_event(const void *buf, bool enable)
{
	const struct tc_kernel_event_msg *msg = buf;

	return tc_helper_tracefs_event_enable(msg->header.session_id, msg->system, msg->event,
					      enable);
}

/* FORMATS_GET: the formats of events matching the globs, enabled or not. */
static int
send_formats(int sock, const void *buf, uint32_t *count)
{
	const struct tc_kernel_event_msg *msg = buf;
	int fd, matched = 0, ret = 0;

	fd = tc_helper_tracefs_formats_memfd(msg->header.session_id, msg->system, msg->event,
					     &matched);
	if (fd < 0)
		return fd;
	if (!send_fd(sock, TC_KERNEL_FORMATS, &msg->header, 0, fd))
		ret = -EPIPE;
	close(fd);
	*count = (uint32_t)matched;
	return ret;
}

/* TGIDS: record-tgid in the instance, and the kernel's map to read. */
static int
send_tgids(int sock, const struct tc_kernel_msg *request)
{
	char path[4096];
	int fd, ret = tc_helper_tracefs_record_tgids(request->session_id);

	if (ret < 0)
		return ret;
	snprintf(path, sizeof(path), "%s/saved_tgids", tc_helper_tracefs_root());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = send_fd(sock, TC_KERNEL_TGIDS_FD, request, 0, fd) ? 0 : -EPIPE;
	close(fd);
	return ret;
}

static int
set_pids(const void *buf)
{
	const struct tc_kernel_pids_msg *msg = buf;

	tc_helper_track_forget(msg->header.session_id);
	return tc_helper_pids_set(msg->header.session_id, msg->pids, msg->count,
				  msg->flags & TC_KERNEL_PIDS_ALL);
}

static int
create_instance(int sock, const struct tc_kernel_msg *request)
{
	int ret = instance_create(request->session_id);

	if (ret == 0)
		ret = tc_helper_tracefs_instance_setup(request->session_id, request->value);
	if (ret < 0)
		instance_remove(request->session_id);
	else
		own(sock, request->session_id);
	return ret;
}

static int
remove_instance(uint64_t session_id)
{
	int ret = instance_remove(session_id);

	if (ret == 0)
		disown(session_id);
	return ret;
}

/* Answers an own-tier start with its ring buffer's descriptor, which the
 * helper then closes: it keeps no copy of a buffer it made for a session. */
static int
send_own_ring(int sock, const struct tc_kernel_msg *header, int ring_fd)
{
	int ret = send_fd(sock, TC_KERNEL_OWN_FD, header, 0, ring_fd) ? 0 : -EPIPE;

	close(ring_fd);
	return ret;
}

/* OWN_START: the programs, then their ring buffer. */
static int
start_own(int sock, const void *buf)
{
	const struct tc_kernel_own_msg *msg = buf;
	int ring_fd = -1, ret;

#ifdef TRACECTL_HAVE_OWN_TIER
	const struct tc_helper_own_events events = {msg->events, msg->syscall_entry,
						    msg->syscall_exit};

	ret = tc_helper_own_start(sock, msg->header.session_id, msg->uid, msg->gid, &events,
				  msg->quiet_tgid, &ring_fd);
#else
	ret = -EOPNOTSUPP;
#endif
	return ret < 0 ? ret : send_own_ring(sock, &msg->header, ring_fd);
}

/* OWN_UNIT_START: the same, for a delegated unit's control group. */
static int
start_own_unit(int sock, const void *buf)
{
	const struct tc_kernel_own_unit_msg *msg = buf;
	int ring_fd = -1, ret;

#ifdef TRACECTL_HAVE_OWN_TIER
	const struct tc_helper_own_events events = {msg->events, msg->syscall_entry,
						    msg->syscall_exit};

	ret = tc_helper_own_unit_start(sock, msg->header.session_id, msg->cgroup, &events,
				       msg->quiet_tgid, &ring_fd);
#else
	ret = -EOPNOTSUPP;
#endif
	return ret < 0 ? ret : send_own_ring(sock, &msg->header, ring_fd);
}

static int
remove_own(uint64_t session_id)
{
#ifdef TRACECTL_HAVE_OWN_TIER
	return tc_helper_own_remove(session_id);
#else
	(void)session_id;
	return -ENOENT;
#endif
}

static void
handle_request(int sock, const void *buf, size_t len, struct tc_kernel_msg *reply)
{
	const struct tc_kernel_msg *request = buf;

	reply->seq = request->seq;
	reply->session_id = request->session_id;
	if (request->type == TC_KERNEL_PING)
		reply->value = TC_KERNEL_VERSION;
	if (!tc_helper_request_is_valid(buf, len)) {
		reply->status = -EINVAL;
		return;
	}
	switch (request->type) {
	case TC_KERNEL_PING:
		reply->status = 0;
		break;
	case TC_KERNEL_INSTANCE_CREATE:
		reply->status = create_instance(sock, request);
		break;
	case TC_KERNEL_INSTANCE_REMOVE:
		reply->status = remove_instance(request->session_id);
		break;
	case TC_KERNEL_EVENT_ENABLE:
	case TC_KERNEL_EVENT_DISABLE:
		reply->status = change_event(buf, request->type == TC_KERNEL_EVENT_ENABLE);
		break;
	case TC_KERNEL_START:
		reply->status = start_session(sock, request, &reply->value);
		break;
	case TC_KERNEL_TGIDS:
		reply->status = send_tgids(sock, request);
		break;
	case TC_KERNEL_EVENT_FILTER:
		reply->status = tc_helper_filter_event(buf);
		break;
	case TC_KERNEL_FORMATS_GET:
		reply->status = send_formats(sock, buf, &reply->value);
		break;
	case TC_KERNEL_PROBE_ADD:
		/* A kprobe: uprobes are begun in serve(). */
		reply->status = tc_helper_probe_add(buf);
		break;
	case TC_KERNEL_LIST:
		reply->status = list_events(sock, request);
		break;
	case TC_KERNEL_PRUNE:
		reply->status = prune(sock, buf, &reply->value);
		break;
	case TC_KERNEL_PIDS:
		reply->status = set_pids(buf);
		break;
	case TC_KERNEL_TRACK:
		reply->status = tc_helper_track(buf);
		break;
	case TC_KERNEL_STOP:
		reply->status = tc_helper_tracefs_tracing_on(request->session_id, false);
		break;
	case TC_KERNEL_STATEDUMP:
		reply->status = tc_helper_statedump(request->session_id, &reply->value);
		break;
	case TC_KERNEL_OWN_START:
		reply->status = start_own(sock, buf);
		break;
	case TC_KERNEL_OWN_UNIT_START:
		reply->status = start_own_unit(sock, buf);
		break;
	case TC_KERNEL_OWN_REMOVE:
		reply->status = remove_own(request->session_id);
		break;
	default:
		reply->status = -EINVAL;
	}
}

/*
 * A connection, and the uprobe request it waits for, if any: the part of
 * a uprobe that touches the owner's file runs in a child (tc-kernel-
 * target.c) while the loop serves the other connections; the waiting one
 * sends nothing more until it has its reply.
 */
struct client {
	int fd;
	bool is_waiting;
	struct tc_kernel_probe_msg probe;
	struct tc_target_child child;
};

static bool
send_reply(int fd, const struct tc_kernel_msg *request, int status, uint32_t value)
{
	struct tc_kernel_msg reply = {
		.magic = TC_KERNEL_MAGIC, .type = TC_KERNEL_REPLY, .size = sizeof(reply),
		.seq = request->seq, .session_id = request->session_id, .status = status,
		.value = value,
	};

	return send(fd, &reply, sizeof(reply), MSG_NOSIGNAL) == sizeof(reply);
}

static bool
is_uprobe_request(const void *buf, size_t len)
{
	const struct tc_kernel_probe_msg *msg = buf;

	return msg->header.type == TC_KERNEL_PROBE_ADD && tc_helper_request_probe_is_valid(buf, len) &&
	       msg->kind == TC_KERNEL_PROBE_UPROBE;
}

/* Serves one message, or starts a uprobe's child; false when the
 * connection is over. */
static bool
serve(struct client *client)
{
	union {
		struct tc_kernel_msg header;
		struct tc_kernel_event_msg event;
		struct tc_kernel_filter_msg filter;
		struct tc_kernel_probe_msg probe;
		struct tc_kernel_prune_msg prune;
		struct tc_kernel_pids_msg pids;
		struct tc_kernel_track_msg track;
		struct tc_kernel_own_unit_msg own_unit;
	} request;
	struct tc_kernel_msg reply = {
		.magic = TC_KERNEL_MAGIC, .type = TC_KERNEL_REPLY, .size = sizeof(reply),
		.status = -EINVAL,
	};
	ssize_t len = recv(client->fd, &request, sizeof(request), MSG_TRUNC);
	int ret;

	if (len <= 0)
		return false;
	if ((size_t)len < sizeof(request.header) || (size_t)len > sizeof(request) ||
	    request.header.magic != TC_KERNEL_MAGIC || request.header.size != (size_t)len)
		return send(client->fd, &reply, sizeof(reply), MSG_NOSIGNAL) == sizeof(reply);
	if (is_uprobe_request(&request, (size_t)len)) {
		client->probe = request.probe;
		ret = tc_helper_probe_uprobe_begin(&client->probe, &client->child);
		client->is_waiting = ret == 0;
		return ret == 0 || send_reply(client->fd, &request.header, ret, 0);
	}
	handle_request(client->fd, &request, (size_t)len, &reply);
	return send(client->fd, &reply, sizeof(reply), MSG_NOSIGNAL) == sizeof(reply);
}

/* The waiting uprobe's child answered or ran out of time. */
static bool
finish_uprobe(struct client *client)
{
	int status = tc_helper_probe_uprobe_end(&client->probe, &client->child);

	client->is_waiting = false;
	return send_reply(client->fd, &client->probe.header, status, 0);
}

/* systemd's watchdog (WatchdogSec= of the unit), 0 without: it kills a
 * helper stuck in one request before tracectld gives up on it. */
static uint64_t watchdog_usec;

void
tc_helper_main_watchdog_ping(void)
{
	if (watchdog_usec)
		sd_notify(0, "WATCHDOG=1");
}

static int64_t
earlier(int64_t timeout, int64_t deadline)
{
	int64_t left = deadline - tc_helper_log_now_ms();

	left = left < 0 ? 0 : left;
	return timeout < 0 || left < timeout ? left : timeout;
}

/* The poll timeout: the watchdog's half period, the idle exit, the
 * deadlines of the uprobes' children and the next rescan of tracking. */
static int
poll_timeout_ms(bool is_idle, int64_t idle_deadline, const struct client *clients, int n)
{
	int64_t timeout = watchdog_usec ? (int64_t)(watchdog_usec / 2000) : -1;
	int64_t rescan = tc_helper_track_deadline_ms();

	if (is_idle)
		timeout = earlier(timeout, idle_deadline);
	for (int i = 0; i < n; i++)
		if (clients[i].is_waiting)
			timeout = earlier(timeout, clients[i].child.deadline_ms);
	if (rescan >= 0)
		timeout = earlier(timeout, rescan);
	return (int)timeout;
}

static struct client clients[MAX_CLIENTS];
static int nr_clients;

static void
drop_client(int i)
{
	if (clients[i].is_waiting)
		tc_helper_target_abort(&clients[i].child);
	remove_owned_by(clients[i].fd);
#ifdef TRACECTL_HAVE_OWN_TIER
	tc_helper_own_remove_owned_by(clients[i].fd);
#endif
	close(clients[i].fd);
	clients[i] = clients[--nr_clients];
}

/* Serves what poll() found for each connection; false for a closed one. */
static bool
serve_ready(struct client *client, short revents)
{
	if (client->is_waiting)
		return (!revents && tc_helper_log_now_ms() < client->child.deadline_ms) ||
		       finish_uprobe(client);
	return !revents || serve(client);
}

/* Listening (socket activation) or one connected socket (fd 3). */
static int
run(int fd, bool is_listening)
{
	struct pollfd fds[1 + MAX_CLIENTS];
	int64_t idle_deadline = tc_helper_log_now_ms() + IDLE_EXIT_MS;

	if (!is_listening)
		clients[nr_clients++] = (struct client){.fd = fd};
	for (;;) {
		bool is_idle = is_listening && nr_clients == 0;
		int ready, polled;

		fds[0] = (struct pollfd){.fd = is_listening ? fd : -1,
					 .events = nr_clients < MAX_CLIENTS ? POLLIN : 0};
		for (int i = 0; i < nr_clients; i++)
			fds[1 + i] = (struct pollfd){
				.fd = clients[i].is_waiting ? clients[i].child.sock : clients[i].fd,
				.events = POLLIN};
		ready = poll(fds, 1 + nr_clients,
			     poll_timeout_ms(is_idle, idle_deadline, clients, nr_clients));
		tc_helper_main_watchdog_ping();
		tc_helper_track_tick();
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready < 0)
			return EXIT_FAILURE;
		if (ready == 0 && is_idle && tc_helper_log_now_ms() >= idle_deadline)
			return EXIT_SUCCESS;
		polled = nr_clients;
		if (fds[0].revents & POLLIN) {
			int client = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

			if (client >= 0 && peer_is_allowed(client))
				clients[nr_clients++] = (struct client){.fd = client};
			else if (client >= 0)
				close(client);
		}
		/* From the end: a dropped client's place takes the last one,
		 * which has been served already. fds[] holds the clients
		 * polled, the one accepted since comes after them. */
		for (int i = nr_clients - 1; i >= 0; i--) {
			if (!serve_ready(&clients[i], i < polled ? fds[1 + i].revents : 0))
				drop_client(i);
		}
		if (!is_listening && nr_clients == 0)
			return EXIT_SUCCESS;
		if (nr_clients == 0)
			idle_deadline = tc_helper_log_now_ms() + IDLE_EXIT_MS;
	}
}

int
main(int argc, char **argv)
{
	int n = sd_listen_fds(true);

	if (argc > 1 && strcmp(argv[1], "--version") == 0) {
		printf("tracectl-kernel-helper %s\n", PACKAGE_VERSION);
		return EXIT_SUCCESS;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "tracectl-kernel-helper: must run as root\n");
		return EXIT_FAILURE;
	}
	umask(0077);
	if (sd_watchdog_enabled(false, &watchdog_usec) <= 0)
		watchdog_usec = 0;
	/* Root's supplementary groups would open group-readable files for
	 * whoever asks for a uprobe: the helper has none. */
	if (setgroups(0, NULL) < 0) {
		fprintf(stderr, "tracectl-kernel-helper: setgroups: %s\n", strerror(errno));
		return EXIT_FAILURE;
	}
	if (n == 1 && sd_is_socket_unix(SD_LISTEN_FDS_START, SOCK_SEQPACKET, 1, NULL, 0) > 0)
		return run(SD_LISTEN_FDS_START, true);
	if (!peer_is_allowed(TC_KERNEL_COMMAND_FD)) {
		fprintf(stderr, "tracectl-kernel-helper: descriptor %d is no allowed peer\n",
			TC_KERNEL_COMMAND_FD);
		return EXIT_FAILURE;
	}
	return run(TC_KERNEL_COMMAND_FD, false);
}
