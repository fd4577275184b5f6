/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The listener thread, one per process.
 *
 *   connect ──fail──> mark DISCONNECTED, sleep TC_UST_RETRY_INTERVAL_MS, retry
 *      │
 *   REGISTER, APP_CONTEXT × m, EVENT × n, EVENTS_END {batch}  (CONNECTED from here)
 *      │
 *   loop: poll(socket, wake_fd)
 *      socket  -> one command, applied under the state lock, then REPLY
 *      quiet for TC_UST_RECLAIM_DELAY_MS, or TC_UST_RETIRED_MAX objects
 *      removed -> what commands removed freed after a grace period
 *      wake_fd -> a provider registered new events, or the application new
 *                 contexts: APP_CONTEXT × j, EVENT × k, EVENTS_END
 *      │
 *   any error: close, reset the state (nothing recorded, events unsent)
 *
 * Only this thread sends on the socket, so messages never interleave, and it
 * never holds the state lock while it sends or receives. Sends time out
 * (TC_UST_SEND_TIMEOUT_MS) so that a stuck service cannot block us forever;
 * waiting for commands is this thread's only job, so receives block.
 * A malformed message from the service ends the connection; a well-formed
 * command that cannot be applied is answered with a negative status.
 */
#include "tc-ust-listener.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "tc-fd-passing.h"
#include "tc-ust-app-context.h"
#include "tc-ust-log.h"
#include "tc-ust-perf-channel.h"
#include "tc-ust-wait.h"
#include "tc-ust-state.h"

#define TC_UST_RETRY_INTERVAL_MS 1000
/* Removed objects are freed in batches: once the commands have been quiet
 * that long, or at once when that many wait. A grace period waits for
 * every tracepoint under way, which a thread preempted in one can make
 * last a time slice: one per burst of commands, not one per command. */
#define TC_UST_RECLAIM_DELAY_MS 20
#define TC_UST_RETIRED_MAX 256u
#define TC_UST_SEND_TIMEOUT_MS 1000
#define TC_UST_DEFAULT_RUNDIR "/run/tracectl"
#define TC_UST_TRACER_MAJOR 0
#define TC_UST_TRACER_MINOR 1
/* More than one fd is a protocol error, but they must all be closed. */
#define TC_UST_FDS_MAX 8

static struct sockaddr_un service_address;
static bool service_address_is_valid;
static char wait_path[sizeof(service_address.sun_path) + 8];

union message {
	struct tracectl_msg_header header;
	struct tracectl_msg_channel channel;
	struct tracectl_msg_stream stream;
	struct tracectl_msg_event_enable event_enable;
	struct tracectl_msg_event_filter event_filter;
	struct tracectl_msg_session session;
	struct tracectl_msg_batch batch;
	struct tracectl_msg_notifier notifier;
	struct tracectl_msg_channel_app_contexts app_contexts;
	struct tracectl_msg_channel_perf_counters perf_counters;
	uint8_t bytes[TRACECTL_ABI_MSG_MAX];
};

void
tc_ust_listener_configure(void)
{
	const char *rundir = secure_getenv("TRACECTL_RUNDIR");
	int len;

	if (!rundir || !*rundir)
		rundir = TC_UST_DEFAULT_RUNDIR;
	service_address.sun_family = AF_UNIX;
	len = snprintf(service_address.sun_path, sizeof(service_address.sun_path), "%s/app.sock",
		       rundir);
	service_address_is_valid = len > 0 && (size_t)len < sizeof(service_address.sun_path);
	snprintf(wait_path, sizeof(wait_path), "%s/%s", rundir, TRACECTL_WAIT_FILE);
	if (!service_address_is_valid)
		tc_ust_debug("Run directory '%s' is too long, tracing disabled", rundir);
}

void
tc_ust_listener_request_batch_locked(void)
{
	uint64_t one = 1;

	if (tc_ust_state.batch_requested || tc_ust_state.wake_fd < 0)
		return;
	if (write(tc_ust_state.wake_fd, &one, sizeof(one)) == sizeof(one))
		tc_ust_state.batch_requested = true;
}

/* Returns a connected socket or a negative errno. */
static int
connect_service(void)
{
	struct timeval send_timeout = {
		.tv_sec = TC_UST_SEND_TIMEOUT_MS / 1000,
		.tv_usec = (TC_UST_SEND_TIMEOUT_MS % 1000) * 1000,
	};
	int fd, ret;

	if (!service_address_is_valid)
		return -ENAMETOOLONG;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (const struct sockaddr *)&service_address, sizeof(service_address)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof(send_timeout)) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

static int
send_message(int fd, const void *message, size_t size)
{
	ssize_t sent;

	do {
		sent = send(fd, message, size, MSG_NOSIGNAL);
	} while (sent < 0 && errno == EINTR);
	if (sent < 0)
		return -errno;
	return (size_t)sent == size ? 0 : -EIO;
}

static void
fill_header(struct tracectl_msg_header *header, uint32_t type, uint32_t size, uint32_t seq)
{
	header->magic = TRACECTL_ABI_MAGIC;
	header->type = type;
	header->size = size;
	header->seq = seq;
}

static int
send_register(int fd)
{
	struct tracectl_msg_register msg = { 0 };

	fill_header(&msg.header, TRACECTL_MSG_REGISTER, sizeof(msg), 0);
	msg.abi_version = TRACECTL_ABI_VERSION;
	msg.bits_per_long = sizeof(long) * 8;
	msg.tracer_major = TC_UST_TRACER_MAJOR;
	msg.tracer_minor = TC_UST_TRACER_MINOR;
	msg.pid = getpid();
	msg.uid = getuid();
	strncpy(msg.procname, program_invocation_short_name, sizeof(msg.procname) - 1);
	return send_message(fd, &msg, sizeof(msg));
}

/*
 * Sends every event not sent yet on this connection as one batch. The
 * initial call (right after REGISTER) also publishes the connection and
 * always ends with EVENTS_END, even without events, so that waiters learn
 * when the service has applied its sessions. Returns 0 or a negative errno.
 */
static int
send_pending_events(int fd, bool initial)
{
	struct tracectl_msg_batch end = { 0 };
	uint32_t first, last, batch, first_enum, last_enum, first_context, last_context;
	int ret;

	pthread_mutex_lock(&tc_ust_state.lock);
	if (initial) {
		tc_ust_state.connection = TC_UST_CONNECTED;
		tc_ust_state.connection_fd = fd;
	}
	tc_ust_state.batch_requested = false;
	first = tc_ust_state.nr_sent;
	last = tc_ust_state.nr_entries;
	/* Every enumeration the events use was added with them, or before. */
	first_enum = tc_ust_state.nr_enums_sent;
	last_enum = tc_ust_state.nr_enums;
	first_context = tc_ust_state.nr_app_contexts_sent;
	last_context = tc_ust_app_context_count();
	if (first == last && first_context == last_context && !initial) {
		pthread_mutex_unlock(&tc_ust_state.lock);
		return 0;
	}
	batch = ++tc_ust_state.last_batch;
	if (batch == 0)
		batch = ++tc_ust_state.last_batch;
	for (uint32_t i = first; i < last; i++)
		tc_ust_state.entries[i]->sent_batch = batch;
	tc_ust_state.nr_sent = last;
	tc_ust_state.nr_enums_sent = last_enum;
	tc_ust_state.nr_app_contexts_sent = last_context;
	pthread_cond_broadcast(&tc_ust_state.changed);
	pthread_mutex_unlock(&tc_ust_state.lock);

	for (uint32_t i = first_context; i < last_context; i++) {
		struct tracectl_msg_app_context context;

		pthread_mutex_lock(&tc_ust_state.lock);
		tc_ust_app_context_describe(i, &context);
		pthread_mutex_unlock(&tc_ust_state.lock);
		ret = send_message(fd, &context, sizeof(context));
		if (ret < 0)
			return ret;
	}
	/* Enumerations first, before the events that use them. */
	for (uint32_t i = first_enum; i < last_enum; i++) {
		const struct tc_ust_enum *enumeration;

		pthread_mutex_lock(&tc_ust_state.lock);
		enumeration = tc_ust_state.enums[i];
		pthread_mutex_unlock(&tc_ust_state.lock);
		for (uint32_t m = 0; m < enumeration->nr_msgs; m++) {
			ret = send_message(fd, &enumeration->msgs[m], sizeof(enumeration->msgs[m]));
			if (ret < 0)
				return ret;
		}
	}
	for (uint32_t i = first; i < last; i++) {
		const struct tc_ust_entry *entry;

		/* The table may be reallocated; entries and their messages never move. */
		pthread_mutex_lock(&tc_ust_state.lock);
		entry = tc_ust_state.entries[i];
		pthread_mutex_unlock(&tc_ust_state.lock);
		ret = send_message(fd, &entry->msg, sizeof(entry->msg));
		if (ret < 0)
			return ret;
	}
	fill_header(&end.header, TRACECTL_MSG_EVENTS_END, sizeof(end), 0);
	end.batch = batch;
	tc_ust_debug("Sent events %u..%u in batch %u", first, last, batch);
	return send_message(fd, &end, sizeof(end));
}

/* The exact size of each message the service may send, 0 for others. */
static size_t
command_size(uint32_t type)
{
	switch (type) {
	case TRACECTL_MSG_CHANNEL_ADD:
	case TRACECTL_MSG_CHANNEL_REMOVE:
		return sizeof(struct tracectl_msg_channel);
	case TRACECTL_MSG_STREAM_ADD:
		return sizeof(struct tracectl_msg_stream);
	case TRACECTL_MSG_EVENT_ENABLE:
	case TRACECTL_MSG_EVENT_DISABLE:
		return sizeof(struct tracectl_msg_event_enable);
	case TRACECTL_MSG_EVENT_FILTER:
		return sizeof(struct tracectl_msg_event_filter);
	case TRACECTL_MSG_SESSION_START:
	case TRACECTL_MSG_SESSION_STOP:
		return sizeof(struct tracectl_msg_session);
	case TRACECTL_MSG_EVENTS_DONE:
		return sizeof(struct tracectl_msg_batch);
	case TRACECTL_MSG_NOTIFIER_ADD:
		return sizeof(struct tracectl_msg_notifier);
	case TRACECTL_MSG_CHANNEL_APP_CONTEXTS:
		return sizeof(struct tracectl_msg_channel_app_contexts);
	case TRACECTL_MSG_CHANNEL_PERF_COUNTERS:
		return sizeof(struct tracectl_msg_channel_perf_counters);
	default:
		return 0;
	}
}

/* Applies one well-formed command. Requires the state lock. Returns the
 * status for the REPLY. */
static int
apply_command_locked(const union message *msg, int fd, int wake_fd)
{
	switch (msg->header.type) {
	case TRACECTL_MSG_CHANNEL_ADD:
		return tc_ust_state_channel_add(&msg->channel);
	case TRACECTL_MSG_CHANNEL_REMOVE:
		return tc_ust_state_channel_remove(&msg->channel);
	case TRACECTL_MSG_STREAM_ADD:
		return tc_ust_state_stream_add(&msg->stream, fd, wake_fd);
	case TRACECTL_MSG_EVENT_ENABLE:
		return tc_ust_state_event_enable(&msg->event_enable, true);
	case TRACECTL_MSG_EVENT_DISABLE:
		return tc_ust_state_event_enable(&msg->event_enable, false);
	case TRACECTL_MSG_EVENT_FILTER:
		return tc_ust_state_event_filter(&msg->event_filter);
	case TRACECTL_MSG_NOTIFIER_ADD:
		return tc_ust_state_notifier_add(&msg->notifier, fd);
	case TRACECTL_MSG_CHANNEL_APP_CONTEXTS:
		return tc_ust_app_context_channel_set(&msg->app_contexts);
	case TRACECTL_MSG_CHANNEL_PERF_COUNTERS:
		return tc_ust_perf_channel_set(&msg->perf_counters);
	case TRACECTL_MSG_SESSION_START:
		return tc_ust_state_session_set_active(msg->session.session_handle, true);
	case TRACECTL_MSG_SESSION_STOP:
		return tc_ust_state_session_set_active(msg->session.session_handle, false);
	case TRACECTL_MSG_EVENTS_DONE:
		tc_ust_state.done_batch = msg->batch.batch;
		pthread_cond_broadcast(&tc_ust_state.changed);
		return 0;
	default:
		return -EPROTO;
	}
}

/*
 * Checks the framing of a received message, applies it and replies.
 * Returns 0, or a negative errno when the connection must end.
 */
static int
handle_command(int sock, const union message *msg, size_t len, const int *fds, int nr_fds)
{
	struct tracectl_msg_reply reply = { 0 };
	int status;

	if (len < sizeof(msg->header) || msg->header.magic != TRACECTL_ABI_MAGIC ||
	    msg->header.size != len || command_size(msg->header.type) != len) {
		tc_ust_debug("Malformed message (type %u, %zu bytes), disconnecting",
			     len >= sizeof(msg->header) ? msg->header.type : 0, len);
		return -EPROTO;
	}
	/* STREAM_ADD: the buffer's memfd and the consumer's wake-up eventfd;
	 * NOTIFIER_ADD: the notifier's page. */
	if (nr_fds != (msg->header.type == TRACECTL_MSG_STREAM_ADD	  ? 2
		       : msg->header.type == TRACECTL_MSG_NOTIFIER_ADD ? 1
								    : 0)) {
		tc_ust_debug("Message type %u came with %d descriptors, disconnecting",
			     msg->header.type, nr_fds);
		return -EPROTO;
	}

	pthread_mutex_lock(&tc_ust_state.lock);
	status = apply_command_locked(msg, nr_fds ? fds[0] : -1, nr_fds ? fds[1] : -1);
	pthread_mutex_unlock(&tc_ust_state.lock);
	if (status < 0)
		tc_ust_debug("Command type %u seq %u failed: %s", msg->header.type,
			     msg->header.seq, strerror(-status));

	if (msg->header.seq == 0)
		return 0;
	fill_header(&reply.header, TRACECTL_MSG_REPLY, sizeof(reply), msg->header.seq);
	reply.status = status;
	return send_message(sock, &reply, sizeof(reply));
}

/* Receives and handles one command. Returns 0 or a negative errno when the
 * connection must end (including end of file). */
static int
receive_command(int sock)
{
	static union message msg; /* only this thread uses it */
	union {
		struct cmsghdr align;
		char bytes[CMSG_SPACE(sizeof(int) * TC_UST_FDS_MAX)];
	} control;
	struct iovec iov = { .iov_base = &msg, .iov_len = sizeof(msg) };
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = &control,
		.msg_controllen = sizeof(control),
	};
	int fds[TC_UST_FDS_MAX];
	int nr_fds, ret;
	ssize_t len;

	len = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	if (len < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -errno;
	/* Even an empty datagram may carry descriptors: ours to close. */
	nr_fds = (int)tc_fd_collect(&mh, fds, TC_UST_FDS_MAX);
	if (len == 0) {
		ret = -ECONNRESET;
	} else if (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
		tc_ust_debug("Truncated message, disconnecting");
		ret = -EPROTO;
	} else {
		ret = handle_command(sock, &msg, (size_t)len, fds, nr_fds);
	}
	for (int i = 0; i < nr_fds && i < TC_UST_FDS_MAX; i++)
		close(fds[i]);
	return ret;
}

static void
drain_wake_fd(void)
{
	uint64_t count;

	if (read(tc_ust_state.wake_fd, &count, sizeof(count)) < 0) {
		/* EAGAIN: nothing pending. */
	}
}

static uint32_t
count_retired(void)
{
	uint32_t count;

	pthread_mutex_lock(&tc_ust_state.lock);
	count = tc_ust_state.nr_retired;
	pthread_mutex_unlock(&tc_ust_state.lock);
	return count;
}

/* Frees what commands removed, after a grace period, without the lock. */
static void
reclaim(void)
{
	struct tc_ust_retired *retired;

	pthread_mutex_lock(&tc_ust_state.lock);
	retired = tc_ust_state_take_retired();
	pthread_mutex_unlock(&tc_ust_state.lock);
	tc_ust_state_free_retired(retired);
}

/* Registers and serves one connection until it fails. Returns why. */
static int
serve_connection(int sock)
{
	int ret;

	ret = send_register(sock);
	if (ret == 0)
		ret = send_pending_events(sock, true);
	while (ret == 0) {
		struct pollfd fds[2] = {
			{ .fd = sock, .events = POLLIN },
			{ .fd = tc_ust_state.wake_fd, .events = POLLIN },
		};
		int ready = poll(fds, 2, count_retired() ? TC_UST_RECLAIM_DELAY_MS : -1);

		if (ready < 0) {
			ret = errno == EINTR ? 0 : -errno;
			continue;
		}
		if (ready == 0) {
			reclaim();
			continue;
		}
		if (fds[1].revents & POLLIN) {
			drain_wake_fd();
			ret = send_pending_events(sock, false);
		}
		if (ret == 0 && fds[0].revents)
			ret = receive_command(sock);
		if (count_retired() >= TC_UST_RETIRED_MAX)
			reclaim();
	}
	return ret;
}

static void
connection_ended(void)
{
	struct tc_ust_retired *retired;

	pthread_mutex_lock(&tc_ust_state.lock);
	tc_ust_state_reset_connection();
	retired = tc_ust_state_take_retired();
	tc_ust_state.connection = TC_UST_DISCONNECTED;
	tc_ust_state.connection_fd = -1;
	pthread_cond_broadcast(&tc_ust_state.changed);
	pthread_mutex_unlock(&tc_ust_state.lock);
	tc_ust_state_free_retired(retired);
}

static void *
listener_main(void *data)
{
	for (;;) {
		int sock = connect_service();
		int ret;

		if (sock >= 0) {
			tc_ust_debug("Connected to %s", service_address.sun_path);
			ret = serve_connection(sock);
			tc_ust_debug("Connection ended: %s", strerror(-ret));
			pthread_mutex_lock(&tc_ust_state.lock);
			tc_ust_state.connection_fd = -1;
			pthread_mutex_unlock(&tc_ust_state.lock);
			close(sock);
		} else {
			tc_ust_debug("Cannot connect to %s: %s", service_address.sun_path,
				     strerror(-sock));
		}
		connection_ended();
		/* Wait for the service, passively. Registrations in the meantime
		 * need no wake: the next connection sends every event. */
		tc_ust_wait_for_service(wait_path, TC_UST_RETRY_INTERVAL_MS);
	}
	return NULL;
}

int
tc_ust_listener_start(void)
{
	sigset_t all, saved;
	pthread_attr_t attr;
	pthread_t thread;
	int ret;

	if (pthread_attr_init(&attr) != 0)
		return -ENOMEM;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/* The thread inherits the mask: the application's signals are never
	 * delivered to it. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &saved);
	ret = pthread_create(&thread, &attr, listener_main, NULL);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	pthread_attr_destroy(&attr);
	if (ret != 0)
		return -ret;
	pthread_setname_np(thread, "tracectl-ust");
	return 0;
}
