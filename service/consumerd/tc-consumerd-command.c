/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Request handling. Every request is checked before anything is done:
 *
 *   header  -> at least a header, TC_CONSUMER_MAGIC, size field equal to
 *              the bytes received, a known type, and the exact size of
 *              that type (a minimum for METADATA, whose text follows)
 *   strings -> NUL-terminated inside their array
 *   ids     -> sessions known (or unused for CREATE_SESSION), channel ids
 *              and stream ids unused within their session
 *   values  -> absolute paths without "..", ring buffer geometry accepted
 *              by tc_rb_shm_size(), 1 <= nr_cpus <= CONSUMERD_NR_CPUS_MAX
 *
 * The service is trusted to follow the protocol, but a bug there must cost
 * one error reply, never the consumer and the traces it holds.
 */
#include "tc-consumerd-command.h"

#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tc-consumer-abi.h"
#include "tc-consumerd-kernel-snapshot.h"
#include "tc-consumerd-log.h"
#include "tc-consumerd-lttng.h"
#include "tc-consumerd-output.h"
#include "tc-consumerd-rotate.h"
#include "tc-consumerd-session-files.h"
#include "tc-consumerd-snapshot.h"
#include "tc-consumerd-stream.h"
#include "tc-fd-passing.h"
#include "tc-ssh-names.h"

#define CONSUMERD_NR_CPUS_MAX 4096u

struct command {
	int fd;
	int *fds; /* the request's, -1 once taken */
	size_t nr_fds;
	struct tc_consumerd_registry *registry; /* the serving thread's */
	const void *msg;
	size_t len;
	struct tc_consumer_reply reply;
	bool is_socket_broken;
};

/* The request's id, which every message of its answer carries; 0 for a
 * message too short to have one (its reply then says so). */
static uint32_t
command_request_id(const struct command *command)
{
	const struct tc_consumer_header *header = command->msg;

	return command->len >= sizeof(*header) ? header->request_id : 0;
}

struct command_type {
	uint32_t type;
	const char *name;
	size_t size;       /* exact size, or minimum when has_payload */
	bool has_payload;  /* METADATA: text follows the struct */
	int (*handle)(struct command *command);
};

/* Fills the reply's message; returns status for the caller's return. */
static int __attribute__((format(printf, 3, 4)))
command_fail(struct command *command, int status, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	vsnprintf(command->reply.message, sizeof(command->reply.message), format, args);
	va_end(args);
	return status;
}

static bool
string_is_terminated(const char *array, size_t size)
{
	return memchr(array, '\0', size) != NULL;
}

static struct tc_consumerd_session *
command_find_session(struct command *command, uint64_t session_id)
{
	return tc_consumerd_session_find(command->registry, session_id);
}

static void
command_set_totals(struct command *command, const struct tc_consumerd_session *session)
{
	struct tc_consumerd_totals totals;

	tc_consumerd_session_totals(session, &totals);
	command->reply.packets_written = totals.packets_written;
	command->reply.packets_corrupted = totals.packets_corrupted;
}

/* A relay reached through ssh: its host and login go on ssh's command
 * line, so they keep to tc-ssh-names.h's alphabets whatever the service
 * sent. */
static int
check_relay_ssh(struct command *command, const struct tc_consumer_relay_output *relay)
{
	size_t position;
	const char *why;

	if (!string_is_terminated(relay->ssh_user, sizeof(relay->ssh_user)))
		return command_fail(command, -EINVAL, "The relay's SSH login is not terminated");
	why = tc_ssh_names_check_host(relay->host, strlen(relay->host), &position);
	if (!why && relay->ssh_user[0])
		why = tc_ssh_names_check_user(relay->ssh_user, strlen(relay->ssh_user), &position);
	return why ? command_fail(command, -EINVAL, "The relay's SSH destination: %s", why) : 0;
}

/* The relay's address and names, as the service parsed them from the
 * session's URL. The names become directory names on the relay. */
static int
check_relay_output(struct command *command, const struct tc_consumer_relay_output *relay)
{
	if (!string_is_terminated(relay->host, sizeof(relay->host)) || relay->host[0] == '\0' ||
	    !string_is_terminated(relay->hostname, sizeof(relay->hostname)) ||
	    !string_is_terminated(relay->session_name, sizeof(relay->session_name)))
		return command_fail(command, -EINVAL, "The relay's host or names are not terminated");
	if (relay->family != AF_UNSPEC && relay->family != AF_INET && relay->family != AF_INET6)
		return command_fail(command, -EINVAL, "Unknown address family %" PRIu32,
				    relay->family);
	if (relay->control_port == 0 || relay->data_port == 0)
		return command_fail(command, -EINVAL, "The relay's ports are not set");
	if (relay->live_timer_us != 0 && (relay->live_timer_us < TC_CONSUMER_TIMER_MIN_US ||
					  relay->live_timer_us > TC_CONSUMER_TIMER_MAX_US))
		return command_fail(command, -EINVAL,
				    "The live timer is %u to %u microseconds, not %" PRIu32,
				    TC_CONSUMER_TIMER_MIN_US, TC_CONSUMER_TIMER_MAX_US,
				    relay->live_timer_us);
	if (!tc_consumerd_output_relative_path_is_safe(relay->session_name) ||
	    strchr(relay->session_name, '/') ||
	    !tc_consumerd_output_relative_path_is_safe(relay->hostname) ||
	    strchr(relay->hostname, '/'))
		return command_fail(command, -EINVAL, "Bad session or host name for the relay");
	return relay->flags & TC_CONSUMER_RELAY_SSH ? check_relay_ssh(command, relay) : 0;
}

static int
check_trace_dir(struct command *command, const struct tc_consumer_session *msg)
{
	if (!string_is_terminated(msg->trace_dir, sizeof(msg->trace_dir)))
		return command_fail(command, -EINVAL, "The trace directory is not terminated");
	if (msg->flags & TC_CONSUMER_SESSION_RELAY) {
		if (!tc_consumerd_output_relative_path_is_safe(msg->trace_dir))
			return command_fail(command, -EINVAL,
					    "The trace path \"%s\" is not a relative path without "
					    "\"..\"",
					    msg->trace_dir);
		return check_relay_output(command, &msg->relay);
	}
	if (!tc_consumerd_output_path_is_safe(msg->trace_dir))
		return command_fail(command, -EINVAL,
				    "The trace directory \"%s\" is not an absolute path without "
				    "\"..\"",
				    msg->trace_dir);
	return 0;
}

static int
handle_create_session(struct command *command)
{
	const struct tc_consumer_session *msg = command->msg;
	int ret;

	ret = check_trace_dir(command, msg);
	if (ret < 0)
		return ret;
	if (command_find_session(command, msg->session_id))
		return command_fail(command, -EEXIST, "Session %" PRIu64 " exists already",
				    msg->session_id);
	if (msg->flags & ~(TC_CONSUMER_SESSION_SNAPSHOT | TC_CONSUMER_SESSION_RELAY))
		return command_fail(command, -EINVAL, "Unknown session flags 0x%" PRIx32,
				    msg->flags);
	ret = tc_consumerd_session_create(command->registry, msg->session_id, msg->trace_dir,
					  msg->flags, &msg->relay, command->reply.message,
					  sizeof(command->reply.message));
	if (ret < 0 && (msg->flags & TC_CONSUMER_SESSION_RELAY) && command->reply.message[0])
		return ret;
	if (ret == -ENOTEMPTY || ret == -EEXIST)
		return command_fail(command, ret,
				    "The trace directory \"%s\" exists and is not empty",
				    msg->trace_dir);
	if (ret < 0)
		return command_fail(command, ret, "Cannot create the trace directory \"%s\": %s",
				    msg->trace_dir, strerror(-ret));
	return 0;
}

/* A channel name becomes a file name: "<name>_<cpu>". Hidden names are
 * refused too, since trace readers skip hidden files. */
static bool
channel_name_is_valid(const char *name)
{
	if (name[0] == '\0' || name[0] == '.')
		return false;
	for (const char *c = name; *c; c++) {
		if (*c == '/' || (unsigned char)*c < 0x20 || *c == 0x7f)
			return false;
	}
	return true;
}

static bool
timer_is_valid(uint32_t us)
{
	return us == 0 || (us >= TC_CONSUMER_TIMER_MIN_US && us <= TC_CONSUMER_TIMER_MAX_US);
}

static int
check_channel(struct command *command, const struct tc_consumer_channel *msg,
	      const struct tc_consumerd_session *session)
{
	if (!string_is_terminated(msg->name, sizeof(msg->name)))
		return command_fail(command, -EINVAL, "The channel name is not terminated");
	if (!channel_name_is_valid(msg->name))
		return command_fail(command, -EINVAL, "Invalid channel name \"%s\"", msg->name);
	if (tc_consumerd_session_find_channel(session, msg->channel_id))
		return command_fail(command, -EEXIST,
				    "Session %" PRIu64 " has a channel %" PRIu64 " already",
				    msg->session_id, msg->channel_id);
	if (tc_consumerd_session_find_stream_id(session, msg->stream_id))
		return command_fail(command, -EEXIST,
				    "Session %" PRIu64 " has a stream id %" PRIu32 " already",
				    msg->session_id, msg->stream_id);
	if (msg->nr_cpus < 1 || msg->nr_cpus > CONSUMERD_NR_CPUS_MAX)
		return command_fail(command, -EINVAL, "Invalid number of CPUs %" PRIu32,
				    msg->nr_cpus);
	if (msg->flags & ~TC_CONSUMER_CHANNEL_FLAGS)
		return command_fail(command, -EINVAL, "Unknown channel flags 0x%" PRIx32,
				    msg->flags);
	if (msg->geometry.overwrite > 1)
		return command_fail(command, -EINVAL, "Overwrite is 0 or 1, not %" PRIu32,
				    msg->geometry.overwrite);
	if (!timer_is_valid(msg->geometry.switch_timer_us) ||
	    !timer_is_valid(msg->geometry.read_timer_us) ||
	    !timer_is_valid(msg->geometry.monitor_timer_us))
		return command_fail(command, -EINVAL,
				    "Timers are 0 (off) or %u to %u microseconds", TC_CONSUMER_TIMER_MIN_US,
				    TC_CONSUMER_TIMER_MAX_US);
	if (tc_rb_shm_size(msg->geometry.subbuf_size, msg->geometry.num_subbuf) == 0)
		return command_fail(command, -EINVAL,
				    "Invalid buffer geometry %" PRIu32 " x %" PRIu32
				    " bytes: sizes are powers of two, %u to %u sub-buffers of "
				    "%u to %u bytes",
				    msg->geometry.num_subbuf, msg->geometry.subbuf_size, TC_RB_NUM_SUBBUF_MIN,
				    TC_RB_NUM_SUBBUF_MAX, TC_RB_SUBBUF_SIZE_MIN,
				    TC_RB_SUBBUF_SIZE_MAX);
	return 0;
}

/* Sends one buffer's memfd. Returns 0 or -errno of sendmsg(). */
static int
send_stream(int fd, uint32_t request_id, uint64_t channel_id,
	    const struct tc_consumerd_stream *stream)
{
	struct tc_consumer_stream msg = {
		.header = {.magic = TC_CONSUMER_MAGIC,
			   .type = TC_CONSUMER_STREAM,
			   .size = sizeof(msg),
			   .request_id = request_id},
		.channel_id = channel_id,
		.cpu = stream->cpu,
		.shm_size = stream->mapping_size,
	};
	int fds[2] = {stream->memfd, stream->wake_fd};
	ssize_t n = tc_fd_send(fd, &msg, sizeof(msg), fds, 2, 0);

	if (n < 0)
		return (int)n;
	return n == (ssize_t)sizeof(msg) ? 0 : -EPIPE;
}

static int
handle_create_channel(struct command *command)
{
	const struct tc_consumer_channel *msg = command->msg;
	struct tc_consumerd_session *session = command_find_session(command, msg->session_id);
	struct tc_consumerd_channel_spec spec;
	struct tc_consumerd_channel *channel;
	int ret;

	if (!session)
		return command_fail(command, -ENOENT, "No session %" PRIu64, msg->session_id);
	ret = check_channel(command, msg, session);
	if (ret < 0)
		return ret;
	spec = (struct tc_consumerd_channel_spec){
	    .channel_id = msg->channel_id,
	    .stream_id = msg->stream_id,
	    .nr_cpus = msg->nr_cpus,
	    .geometry = msg->geometry,
	    .flags = msg->flags,
	    .name = msg->name,
	};
	memcpy(spec.uuid, msg->uuid, sizeof(spec.uuid));
	ret = tc_consumerd_session_create_channel(session, &spec, &channel);
	if (ret < 0)
		return command_fail(command, ret,
				    "Session %" PRIu64 ": cannot create the buffers of channel "
				    "\"%s\": %s",
				    msg->session_id, msg->name, strerror(-ret));
	for (uint32_t cpu = 0; cpu < channel->nr_cpus; cpu++) {
		struct tc_consumerd_stream *stream = &channel->streams[cpu];

		ret = send_stream(command->fd, command_request_id(command), channel->channel_id,
				  stream);
		if (ret < 0) {
			/* The channel stays: the service is gone, and the shutdown
			 * that follows writes out whatever it holds. */
			command->is_socket_broken = true;
			return command_fail(command, ret, "Cannot send the buffers: %s",
					    strerror(-ret));
		}
		/* The mapping keeps the buffer; the service holds the fd now.
		 * With up to 4096 CPUs per channel, descriptors are precious. */
		tc_consumerd_stream_release_memfd(stream);
	}
	return 0;
}

static int __attribute__((unused))
handle_lttng_channel(struct command *command)
{
	const struct tc_consumer_lttng_channel *msg = command->msg;
	struct tc_consumerd_session *session = command_find_session(command, msg->session_id);
	struct tc_consumerd_lttng_channel *channel;
	char error[TC_CONSUMER_ERROR_MAX];
	int is_broken = 0;
	int ret;

	if (!session)
		return command_fail(command, -ENOENT, "No session %" PRIu64, msg->session_id);
	/* Written locally, kept in memory for snapshots, or streamed. */
	if (session->dir_fd < 0 && !session->snapshot && !session->relay)
		return command_fail(command, -EOPNOTSUPP,
				    "Session %" PRIu64 ": no output for LTTng-UST channels",
				    msg->session_id);
	if (!string_is_terminated(msg->name, sizeof(msg->name)) || !channel_name_is_valid(msg->name))
		return command_fail(command, -EINVAL, "Bad LTTng-UST channel name");
	/* LTTng-UST checks the geometry itself (powers of two, at least a
	 * page); the bounds here keep one request from asking for more than
	 * tracectl's own channels may. */
	if (msg->geometry.num_subbuf < 2 || msg->geometry.num_subbuf > TC_RB_NUM_SUBBUF_MAX ||
	    msg->geometry.subbuf_size < 4096 || msg->geometry.subbuf_size > TC_RB_SUBBUF_SIZE_MAX)
		return command_fail(command, -EINVAL, "Bad LTTng-UST channel geometry");
	for (struct tc_consumerd_lttng_channel *c = session->lttng_channels; c;
	     c = *tc_consumerd_lttng_channel_next(c))
		if (tc_consumerd_lttng_channel_id(c) == msg->channel_id)
			return command_fail(command, -EEXIST, "LTTng-UST channel %" PRIu64 " exists",
					    msg->channel_id);
	ret = tc_consumerd_lttng_channel_create(msg, session->dir_fd, session->relay,
						session->trace_dir, command->fd,
						command_request_id(command), &channel, &is_broken,
						error, sizeof(error));
	command->is_socket_broken = is_broken;
	if (ret < 0)
		return command_fail(command, ret, "Session %" PRIu64 ": %s", msg->session_id, error);
	tc_consumerd_session_add_lttng_channel(session, channel);
	return 0;
}

static int
handle_metadata(struct command *command)
{
	const struct tc_consumer_metadata *msg = command->msg;
	const char *text = (const char *)command->msg + sizeof(*msg);
	size_t len = command->len - sizeof(*msg);
	struct tc_consumerd_session *session = command_find_session(command, msg->session_id);
	int ret;

	if (!session)
		return command_fail(command, -ENOENT, "No session %" PRIu64, msg->session_id);
	if (memchr(text, '\0', len))
		return command_fail(command, -EINVAL,
				    "Session %" PRIu64 ": the metadata text holds a NUL byte",
				    msg->session_id);
	ret = tc_consumerd_session_append_metadata(session, text, len);
	if (ret < 0)
		return command_fail(command, ret, "Session %" PRIu64 ": cannot write metadata: %s",
				    msg->session_id, strerror(-ret));
	return 0;
}

static int
handle_flush_session(struct command *command)
{
	const struct tc_consumer_session_ref *msg = command->msg;
	struct tc_consumerd_session *session = command_find_session(command, msg->session_id);
	int ret;

	if (!session)
		return command_fail(command, -ENOENT, "No session %" PRIu64, msg->session_id);
	ret = tc_consumerd_session_flush(session);
	command_set_totals(command, session);
	if (ret < 0)
		return command_fail(command, ret,
				    "Session %" PRIu64 ": cannot sync the trace to disk: %s",
				    msg->session_id, strerror(-ret));
	return 0;
}

static int
handle_destroy_session(struct command *command)
{
	const struct tc_consumer_session_ref *msg = command->msg;
	struct tc_consumerd_session *session = command_find_session(command, msg->session_id);
	struct tc_consumerd_totals totals;
	int ret;

	if (!session)
		return command_fail(command, -ENOENT, "No session %" PRIu64, msg->session_id);
	ret = tc_consumerd_session_destroy(command->registry, session, &totals);
	command->reply.packets_written = totals.packets_written;
	command->reply.packets_corrupted = totals.packets_corrupted;
	if (ret < 0)
		return command_fail(command, ret,
				    "Session %" PRIu64 " destroyed, but its trace could not be "
				    "synced to disk: %s",
				    msg->session_id, strerror(-ret));
	return 0;
}

/* What a snapshot into a directory asks of the session and the path, the
 * user-space buffers' and the kernel's alike. */
static int
check_snapshot_dir(struct command *command, const struct tc_consumerd_session *session,
		   const struct tc_consumer_snapshot *msg)
{
	if (!session->snapshot)
		return command_fail(command, -EINVAL, "Session %" PRIu64 " is not a snapshot session",
				    msg->session_id);
	if (!string_is_terminated(msg->dir, sizeof(msg->dir)) ||
	    !tc_consumerd_output_path_is_safe(msg->dir))
		return command_fail(command, -EINVAL,
				    "The snapshot directory is not an absolute path without \"..\"");
	return 0;
}

static int
handle_snapshot(struct command *command)
{
	const struct tc_consumer_snapshot *msg = command->msg;
	struct tc_consumerd_session *session = command_find_session(command, msg->session_id);
	uint64_t packets;
	int ret;

	if (!session)
		return command_fail(command, -ENOENT, "No session %" PRIu64, msg->session_id);
	ret = check_snapshot_dir(command, session, msg);
	if (ret < 0)
		return ret;
	ret = tc_consumerd_snapshot_session(session, msg->dir, msg->max_stream_bytes, &packets);
	command->reply.packets_written = packets;
	if (ret < 0)
		return command_fail(command, ret, "Cannot write the snapshot into \"%s\": %s",
				    msg->dir, strerror(-ret));
	return 0;
}

static int
handle_kernel_snapshot(struct command *command)
{
	const struct tc_consumer_snapshot *msg = command->msg;
	struct tc_consumerd_session *session = command_find_session(command, msg->session_id);
	uint64_t packets = 0;
	int ret;

	if (!session || !session->kernel)
		return command_fail(command, -ENOENT, "Session %" PRIu64 " has no kernel trace",
				    msg->session_id);
	ret = check_snapshot_dir(command, session, msg);
	if (ret < 0)
		return ret;
	ret = tc_consumerd_kernel_snapshot_dir(session, msg->dir, msg->max_stream_bytes, &packets);
	command->reply.packets_written = packets;
	if (ret < 0)
		return command_fail(command, ret, "Cannot write the kernel snapshot into \"%s\": %s",
				    msg->dir, strerror(-ret));
	return 0;
}

static int
handle_kernel_snapshot_relay(struct command *command)
{
	const struct tc_consumer_snapshot_relay *msg = command->msg;
	struct tc_consumerd_session *session = command_find_session(command, msg->session_id);
	uint64_t packets = 0;
	int ret;

	if (!session || !session->kernel)
		return command_fail(command, -ENOENT, "Session %" PRIu64 " has no kernel trace",
				    msg->session_id);
	if (!session->snapshot)
		return command_fail(command, -EINVAL, "Session %" PRIu64 " is not a snapshot session",
				    msg->session_id);
	if (!string_is_terminated(msg->trace_path, sizeof(msg->trace_path)) ||
	    !tc_consumerd_output_relative_path_is_safe(msg->trace_path))
		return command_fail(command, -EINVAL,
				    "The snapshot's trace path is not a relative path without "
				    "\"..\"");
	ret = check_relay_output(command, &msg->relay);
	if (ret < 0)
		return ret;
	if (msg->relay.live_timer_us != 0)
		return command_fail(command, -EINVAL, "A snapshot is not sent live");
	ret = tc_consumerd_kernel_snapshot_relay(session, &msg->relay, msg->trace_path,
						 msg->max_stream_bytes, &packets,
						 command->reply.message,
						 sizeof(command->reply.message));
	command->reply.packets_written = packets;
	if (ret < 0 && command->reply.message[0] == '\0')
		return command_fail(command, ret, "Cannot send the kernel snapshot to the relay: %s",
				    strerror(-ret));
	return ret;
}

static int
handle_snapshot_relay(struct command *command)
{
	const struct tc_consumer_snapshot_relay *msg = command->msg;
	struct tc_consumerd_session *session = command_find_session(command, msg->session_id);
	uint64_t packets = 0;
	int ret;

	if (!session)
		return command_fail(command, -ENOENT, "No session %" PRIu64, msg->session_id);
	if (!session->snapshot)
		return command_fail(command, -EINVAL, "Session %" PRIu64 " is not a snapshot session",
				    msg->session_id);
	if (!string_is_terminated(msg->trace_path, sizeof(msg->trace_path)) ||
	    !tc_consumerd_output_relative_path_is_safe(msg->trace_path))
		return command_fail(command, -EINVAL,
				    "The snapshot's trace path is not a relative path without "
				    "\"..\"");
	ret = check_relay_output(command, &msg->relay);
	if (ret < 0)
		return ret;
	if (msg->relay.live_timer_us != 0)
		return command_fail(command, -EINVAL, "A snapshot is not sent live");
	ret = tc_consumerd_snapshot_relay(session, &msg->relay, msg->trace_path,
					  msg->max_stream_bytes, &packets, command->reply.message,
					  sizeof(command->reply.message));
	command->reply.packets_written = packets;
	if (ret < 0 && command->reply.message[0] == '\0')
		return command_fail(command, ret, "Cannot send the snapshot to the relay: %s",
				    strerror(-ret));
	return ret;
}

/* The channel of that id of session, tracectl's own or LTTng-UST's, into
 * stats; FALSE when it has none. */
static bool
find_channel_stats(struct tc_consumerd_session *session, uint64_t channel_id,
		   struct tc_consumerd_channel_stats *stats)
{
	struct tc_consumerd_channel *channel = tc_consumerd_session_find_channel(session, channel_id);

	if (channel) {
		tc_consumerd_channel_stats(channel, stats);
		return true;
	}
	for (struct tc_consumerd_lttng_channel *lttng = session->lttng_channels; lttng;
	     lttng = *tc_consumerd_lttng_channel_next(lttng)) {
		if (tc_consumerd_lttng_channel_id(lttng) == channel_id) {
			tc_consumerd_lttng_channel_stats(lttng, stats);
			return true;
		}
	}
	return false;
}

static int
handle_channel_stats(struct command *command)
{
	const struct tc_consumer_channel_ref *msg = command->msg;
	struct tc_consumerd_session *session = command_find_session(command, msg->session_id);
	struct tc_consumerd_channel_stats stats;

	if (!session)
		return command_fail(command, -ENOENT, "No session %" PRIu64, msg->session_id);
	if (!find_channel_stats(session, msg->channel_id, &stats))
		return command_fail(command, -ENOENT, "Session %" PRIu64 " has no channel %" PRIu64,
				    msg->session_id, msg->channel_id);
	command->reply.buffer_bytes = stats.buffer_bytes;
	command->reply.bytes_used = stats.bytes_used;
	command->reply.bytes_used_peak = stats.bytes_used_peak;
	command->reply.events_discarded = stats.events_discarded;
	command->reply.packets_written = stats.packets_written;
	return 0;
}

static int
handle_event_layout(struct command *command)
{
	const struct tc_consumer_event_layout *msg = command->msg;
	struct tc_consumerd_session *session = command_find_session(command, msg->session_id);
	struct tc_consumerd_channel *channel;
	int ret;

	if (!session)
		return command_fail(command, -ENOENT, "No session %" PRIu64, msg->session_id);
	channel = tc_consumerd_session_find_stream_id(session, msg->stream_id);
	if (!channel)
		return command_fail(command, -ENOENT, "Session %" PRIu64 " has no stream id %" PRIu32,
				    msg->session_id, msg->stream_id);
	ret = tc_consumerd_layout_add(&channel->layouts, msg);
	if (ret < 0)
		return command_fail(command, ret, "Bad layout of event %" PRIu32 ": %s",
				    msg->event_id, strerror(-ret));
	return 0;
}

/* The session's clock, as the service described it: it goes into the
 * kernel trace's metadata as it is. */
static bool
tc_consumerd_clock_is_valid(const struct tc_consumer_clock *clock)
{
	return clock->freq >= TC_CONSUMER_CLOCK_FREQ_MIN &&
	       clock->freq <= TC_CONSUMER_CLOCK_FREQ_MAX && clock->offset_ticks < clock->freq &&
	       clock->tsc <= 1 && clock->pad == 0;
}

/* A snapshot session's kernel trace is a flight recorder of a bounded
 * size; the others' are not one. */
static bool
flight_geometry_is_valid(const struct tc_consumerd_session *session,
			 const struct tc_consumer_kernel_trace *msg)
{
	if (!session->snapshot)
		return msg->flight_subbuf_size == 0 && msg->flight_num_subbuf == 0;
	return msg->flight_subbuf_size >= TC_CONSUMER_KERNEL_FLIGHT_SUBBUF_MIN &&
	       msg->flight_subbuf_size <= TC_CONSUMER_KERNEL_FLIGHT_SUBBUF_MAX &&
	       msg->flight_num_subbuf >= 1 &&
	       (uint64_t)msg->flight_subbuf_size * msg->flight_num_subbuf <=
		   TC_CONSUMER_KERNEL_FLIGHT_BYTES_MAX;
}

static int
handle_kernel_trace(struct command *command)
{
	const struct tc_consumer_kernel_trace *msg = command->msg;
	struct tc_consumerd_session *session = command_find_session(command, msg->session_id);
	struct tc_consumerd_kernel_spec spec = {
	    .dir = msg->dir,
	    .cpu_fds = command->fds,
	    .nr_cpus = msg->nr_cpus,
	    .clock = msg->clock,
	    .session_id = msg->session_id,
	    .flags = msg->flags & ~TC_CONSUMER_KSTATS,
	};
	bool stats = msg->flags & TC_CONSUMER_KSTATS;
	/* The descriptors before the formats: buffers, then stats files. */
	size_t cpu_fds = stats ? 2 * (size_t)msg->nr_cpus : msg->nr_cpus;
	int ret;

	if (!session)
		return command_fail(command, -ENOENT, "No session %" PRIu64, msg->session_id);
	if (msg->flags & ~(TC_CONSUMER_KCTX_ALL | TC_CONSUMER_KHIDE_ALL | TC_CONSUMER_KSTATS))
		return command_fail(command, -EINVAL, "Unknown kernel trace flags 0x%" PRIx32,
				    msg->flags);
	if (!tc_consumerd_clock_is_valid(&msg->clock))
		return command_fail(command, -EINVAL, "Invalid trace clock (%" PRIu64 " Hz)",
				    msg->clock.freq);
	if (session->kernel)
		return command_fail(command, -EEXIST, "Session %" PRIu64 " has a kernel trace",
				    msg->session_id);
	if (msg->nr_cpus < 1 || msg->nr_cpus > TC_CONSUMER_KERNEL_CPUS_MAX ||
	    (stats && msg->nr_cpus > TC_CONSUMER_KERNEL_STATS_CPUS_MAX) ||
	    command->nr_fds != cpu_fds + 1 + !!(msg->flags & TC_CONSUMER_KCTX_PID))
		return command_fail(command, -EINVAL, "%zu descriptors for %" PRIu32 " CPUs",
				    command->nr_fds, msg->nr_cpus);
	if (!string_is_terminated(msg->dir, sizeof(msg->dir)) ||
	    !(session->relay ? tc_consumerd_output_relative_path_is_safe(msg->dir)
			     : tc_consumerd_output_path_is_safe(msg->dir)))
		return command_fail(command, -EINVAL, "Bad kernel trace directory");
	if (!flight_geometry_is_valid(session, msg))
		return command_fail(command, -EINVAL,
				    "Bad kernel flight recorder geometry: %" PRIu32 " x %" PRIu32
				    " bytes",
				    msg->flight_num_subbuf, msg->flight_subbuf_size);
	spec.relay = session->relay;
	spec.flight_subbuf_size = msg->flight_subbuf_size;
	spec.flight_num_subbuf = msg->flight_num_subbuf;
	memcpy(spec.uuid, msg->uuid, sizeof(spec.uuid));
	spec.stats_fds = stats ? command->fds + msg->nr_cpus : NULL;
	spec.formats_fd = command->fds[cpu_fds];
	spec.tgids_fd = (msg->flags & TC_CONSUMER_KCTX_PID) ? command->fds[cpu_fds + 1] : -1;
	ret = tc_consumerd_kernel_trace_open(&spec, &session->kernel);
	/* Taken: the CPU descriptors belong to the trace (closed on failure
	 * too); the formats were read. */
	for (uint32_t i = 0; i < cpu_fds; i++)
		command->fds[i] = -1;
	if (spec.tgids_fd >= 0)
		command->fds[cpu_fds + 1] = -1;
	if (ret < 0)
		return command_fail(command, ret, "Cannot write the kernel trace into \"%s\": %s",
				    msg->dir, strerror(-ret));
	return 0;
}

static int
handle_kernel_update(struct command *command)
{
	const struct tc_consumer_kernel_update *msg = command->msg;
	struct tc_consumerd_session *session = command_find_session(command, msg->session_id);
	int ret;

	if (!session || !session->kernel)
		return command_fail(command, -ENOENT, "Session %" PRIu64 " has no kernel trace",
				    msg->session_id);
	if (command->nr_fds > 1 || (msg->flags & ~TC_CONSUMER_KHIDE_ALL))
		return command_fail(command, -EINVAL, "Bad kernel update: %zu descriptors, "
				    "flags 0x%" PRIx32, command->nr_fds, msg->flags);
	ret = tc_consumerd_kernel_trace_update(session->kernel,
					       command->nr_fds ? command->fds[0] : -1, msg->flags);
	if (ret < 0)
		return command_fail(command, ret, "Cannot take the new kernel formats: %s",
				    strerror(-ret));
	return 0;
}

static int
handle_kernel_stats(struct command *command)
{
	const struct tc_consumer_session_ref *msg = command->msg;
	struct tc_consumerd_session *session = command_find_session(command, msg->session_id);
	struct tc_consumerd_kernel_stats stats;

	if (!session || !session->kernel)
		return command_fail(command, -ENOENT, "Session %" PRIu64 " has no kernel trace",
				    msg->session_id);
	tc_consumerd_kernel_trace_stats(session->kernel, &stats);
	command->reply.bytes_used = stats.bytes_unread;
	command->reply.events_discarded = stats.events_discarded;
	command->reply.packets_written = stats.packets_written;
	return 0;
}

static int
handle_rotate(struct command *command)
{
	const struct tc_consumer_rotate *msg = command->msg;
	struct tc_consumerd_session *session = command_find_session(command, msg->session_id);
	uint64_t archived = 0;
	int ret;

	if (!session)
		return command_fail(command, -ENOENT, "No session %" PRIu64, msg->session_id);
	if (session->snapshot)
		return command_fail(command, -EINVAL,
				    "Session %" PRIu64 " is a snapshot session: it has no chunk "
				    "to rotate",
				    msg->session_id);
	if (!string_is_terminated(msg->from_root, sizeof(msg->from_root)) ||
	    !string_is_terminated(msg->to_root, sizeof(msg->to_root)) ||
	    !tc_consumerd_output_path_is_safe(msg->from_root) ||
	    !tc_consumerd_output_path_is_safe(msg->to_root))
		return command_fail(command, -EINVAL,
				    "The rotation's directories are not absolute paths without "
				    "\"..\"");
	ret = tc_consumerd_rotate_session(session, msg->from_root, msg->to_root, &archived);
	command->reply.bytes_used = archived;
	command_set_totals(command, session);
	if (ret < 0)
		return command_fail(command, ret, "Session %" PRIu64 ": cannot archive into \"%s\": %s",
				    msg->session_id, msg->to_root, strerror(-ret));
	return 0;
}

static int
handle_clear(struct command *command)
{
	const struct tc_consumer_session_ref *msg = command->msg;
	struct tc_consumerd_session *session = command_find_session(command, msg->session_id);
	int ret;

	if (!session)
		return command_fail(command, -ENOENT, "No session %" PRIu64, msg->session_id);
	ret = tc_consumerd_rotate_clear(session);
	if (ret < 0)
		return command_fail(command, ret, "Session %" PRIu64 ": cannot clear: %s",
				    msg->session_id, strerror(-ret));
	return 0;
}

#define RELAY_ROTATE_FLAGS                                                                         \
	(TC_CONSUMER_RELAY_ROTATE_BEGIN | TC_CONSUMER_RELAY_ROTATE_CLOSE |                         \
	 TC_CONSUMER_RELAY_ROTATE_NO_WAIT)
_Static_assert(TC_CONSUMER_RELAY_ROTATE_BEGIN == CONSUMERD_RELAY_CHUNK_BEGIN &&
		   TC_CONSUMER_RELAY_ROTATE_CLOSE == CONSUMERD_RELAY_CHUNK_CLOSE &&
		   TC_CONSUMER_RELAY_ROTATE_NO_WAIT == CONSUMERD_RELAY_CHUNK_NO_WAIT,
	       "rotation steps differ");

static int
handle_relay_rotate(struct command *command)
{
	const struct tc_consumer_relay_rotate *msg = command->msg;
	struct tc_consumerd_session *session = command_find_session(command, msg->session_id);
	uint64_t archived = 0;
	uint32_t steps;
	int ret;

	if (!session)
		return command_fail(command, -ENOENT, "No session %" PRIu64, msg->session_id);
	if (session->snapshot || !session->relay)
		return command_fail(command, -EINVAL,
				    "Session %" PRIu64 " does not stream a trace to a relay",
				    msg->session_id);
	if (msg->close_command != TC_CONSUMER_RELAY_CHUNK_ARCHIVE &&
	    msg->close_command != TC_CONSUMER_RELAY_CHUNK_DELETE)
		return command_fail(command, -EINVAL, "Unknown trace chunk close command %" PRIu32,
				    msg->close_command);
	if (msg->flags & ~RELAY_ROTATE_FLAGS)
		return command_fail(command, -EINVAL, "Unknown rotation flags %#" PRIx32,
				    msg->flags);
	steps = msg->flags & (TC_CONSUMER_RELAY_ROTATE_BEGIN | TC_CONSUMER_RELAY_ROTATE_CLOSE)
		    ? msg->flags
		    : msg->flags | TC_CONSUMER_RELAY_ROTATE_BEGIN | TC_CONSUMER_RELAY_ROTATE_CLOSE;
	ret = tc_consumerd_rotate_relay(session, msg->close_command, steps, msg->timestamp,
					command->reply.message, sizeof(command->reply.message),
					&archived);
	command->reply.bytes_used = archived;
	command_set_totals(command, session);
	if (ret == -EPERM) {
		struct tc_consumerd_relay_status status = {0};

		tc_consumerd_relay_get_status(session->relay, &status);
		return command_fail(command, ret,
				    "The relay at %s does not allow clearing sessions "
				    "(lttng-relayd --disallow-clear)",
				    status.address);
	}
	if (ret < 0)
		return command_fail(command, ret,
				    "Session %" PRIu64 ": the relay did not rotate its trace "
				    "chunk: %s",
				    msg->session_id, strerror(-ret));
	return 0;
}

static int
handle_chunk_size(struct command *command)
{
	const struct tc_consumer_session_ref *msg = command->msg;
	struct tc_consumerd_session *session = command_find_session(command, msg->session_id);

	if (!session)
		return command_fail(command, -ENOENT, "No session %" PRIu64, msg->session_id);
	command->reply.bytes_used = tc_consumerd_rotate_chunk_bytes(session);
	return 0;
}

/* RELAY_STATUS's answer, from what the session's relay said. */
static void
reply_relay_status(struct tc_consumer_reply *reply, const struct tc_consumerd_relay_status *status)
{
	reply->relay_connected = status->up;
	reply->relay_lost_packets = status->lost_packets;
	reply->relay_lost_since = status->lost_since;
	reply->relay_errno = (uint32_t)-status->last_error;
	/* A URL longer than the message is cut: it is for a person. */
	memcpy(reply->message, status->address, sizeof(reply->message) - 1);
	reply->message[sizeof(reply->message) - 1] = '\0';
	snprintf(reply->relay_reason, sizeof(reply->relay_reason), "%s", status->reason);
}

static int
handle_relay_status(struct command *command)
{
	const struct tc_consumer_session_ref *msg = command->msg;
	struct tc_consumerd_session *session = command_find_session(command, msg->session_id);
	struct tc_consumerd_relay_status status = {0};

	if (!session)
		return command_fail(command, -ENOENT, "No session %" PRIu64, msg->session_id);
	if (!session->relay)
		return command_fail(command, -EINVAL, "Session %" PRIu64 " does not stream",
				    msg->session_id);
	tc_consumerd_relay_get_status(session->relay, &status);
	reply_relay_status(&command->reply, &status);
	return 0;
}

static int
handle_kernel_own(struct command *command)
{
	const struct tc_consumer_kernel_own *msg = command->msg;
	struct tc_consumerd_session *session = command_find_session(command, msg->session_id);
	int ret, ring_fd;

	if (!session)
		return command_fail(command, -ENOENT, "No session %" PRIu64, msg->session_id);
	if (command->nr_fds != 1)
		return command_fail(command, -EINVAL, "%zu descriptors for a ring buffer",
				    command->nr_fds);
	if (!string_is_terminated(msg->dir, sizeof(msg->dir)) ||
	    !tc_consumerd_output_path_is_safe(msg->dir))
		return command_fail(command, -EINVAL, "Bad kernel trace directory");
	ring_fd = command->fds[0];
	command->fds[0] = -1; /* taken, closed on failure too */
	if (session->own)
		ret = tc_consumerd_kernel_own_replace_ring(session->own, ring_fd);
	else
		ret = tc_consumerd_kernel_own_open(msg->dir, msg->uuid, ring_fd, &session->own);
	if (ret < 0)
		return command_fail(command, ret, "Cannot write the own-process kernel trace "
				    "into \"%s\": %s", msg->dir, strerror(-ret));
	return 0;
}

static int
handle_session_files(struct command *command)
{
	return tc_consumerd_session_files_send(command->fd, command->msg, command->reply.message,
					       sizeof(command->reply.message),
					       &command->is_socket_broken);
}

static const struct command_type command_types[] = {
	{TC_CONSUMER_SESSION_FILES, "SESSION_FILES", sizeof(struct tc_consumer_session_files),
	 false, handle_session_files},
	{TC_CONSUMER_KERNEL_STATS, "KERNEL_STATS", sizeof(struct tc_consumer_session_ref), false,
	 handle_kernel_stats},
	{TC_CONSUMER_ROTATE, "ROTATE", sizeof(struct tc_consumer_rotate), false, handle_rotate},
	{TC_CONSUMER_CLEAR, "CLEAR", sizeof(struct tc_consumer_session_ref), false, handle_clear},
	{TC_CONSUMER_CHUNK_SIZE, "CHUNK_SIZE", sizeof(struct tc_consumer_session_ref), false,
	 handle_chunk_size},
	{TC_CONSUMER_RELAY_STATUS, "RELAY_STATUS", sizeof(struct tc_consumer_session_ref), false,
	 handle_relay_status},
	{TC_CONSUMER_KERNEL_OWN, "KERNEL_OWN", sizeof(struct tc_consumer_kernel_own), false,
	 handle_kernel_own},
	{TC_CONSUMER_KERNEL_UPDATE, "KERNEL_UPDATE", sizeof(struct tc_consumer_kernel_update),
	 false, handle_kernel_update},
	{TC_CONSUMER_KERNEL_TRACE, "KERNEL_TRACE", sizeof(struct tc_consumer_kernel_trace), false,
	 handle_kernel_trace},
	{TC_CONSUMER_EVENT_LAYOUT, "EVENT_LAYOUT", sizeof(struct tc_consumer_event_layout), false,
	 handle_event_layout},
	{TC_CONSUMER_SNAPSHOT, "SNAPSHOT", sizeof(struct tc_consumer_snapshot), false,
	 handle_snapshot},
	{TC_CONSUMER_SNAPSHOT_RELAY, "SNAPSHOT_RELAY", sizeof(struct tc_consumer_snapshot_relay),
	 false, handle_snapshot_relay},
	{TC_CONSUMER_KERNEL_SNAPSHOT, "KERNEL_SNAPSHOT", sizeof(struct tc_consumer_snapshot), false,
	 handle_kernel_snapshot},
	{TC_CONSUMER_KERNEL_SNAPSHOT_RELAY, "KERNEL_SNAPSHOT_RELAY",
	 sizeof(struct tc_consumer_snapshot_relay), false, handle_kernel_snapshot_relay},
	{TC_CONSUMER_RELAY_ROTATE, "RELAY_ROTATE", sizeof(struct tc_consumer_relay_rotate), false,
	 handle_relay_rotate},
	{TC_CONSUMER_CHANNEL_STATS, "CHANNEL_STATS", sizeof(struct tc_consumer_channel_ref), false,
	 handle_channel_stats},
	{TC_CONSUMER_CREATE_SESSION, "CREATE_SESSION", sizeof(struct tc_consumer_session), false,
	 handle_create_session},
	{TC_CONSUMER_CREATE_CHANNEL, "CREATE_CHANNEL", sizeof(struct tc_consumer_channel), false,
	 handle_create_channel},
#if TC_CONSUMERD_HAVE_LTTNG
	{TC_CONSUMER_LTTNG_CHANNEL, "LTTNG_CHANNEL", sizeof(struct tc_consumer_lttng_channel),
	 false, handle_lttng_channel},
#endif
	{TC_CONSUMER_METADATA, "METADATA", sizeof(struct tc_consumer_metadata), true,
	 handle_metadata},
	{TC_CONSUMER_FLUSH_SESSION, "FLUSH_SESSION", sizeof(struct tc_consumer_session_ref), false,
	 handle_flush_session},
	{TC_CONSUMER_DESTROY_SESSION, "DESTROY_SESSION", sizeof(struct tc_consumer_session_ref),
	 false, handle_destroy_session},
};

static const struct command_type *
command_type_find(uint32_t type)
{
	for (size_t i = 0; i < sizeof(command_types) / sizeof(command_types[0]); i++) {
		if (command_types[i].type == type)
			return &command_types[i];
	}
	return NULL;
}

/* Checks the header and the size. Returns the request's type, or NULL
 * with the reason in the reply. */
static const struct command_type *
command_check(struct command *command, bool is_truncated)
{
	const struct tc_consumer_header *header = command->msg;
	const struct command_type *type;

	if (is_truncated) {
		command->reply.status = command_fail(command, -EMSGSIZE,
						     "Request longer than %u bytes",
						     TC_CONSUMER_MSG_MAX);
		return NULL;
	}
	if (command->len < sizeof(*header)) {
		command->reply.status = command_fail(command, -EBADMSG,
						     "Request of %zu bytes has no header",
						     command->len);
		return NULL;
	}
	if (header->magic != TC_CONSUMER_MAGIC) {
		command->reply.status = command_fail(command, -EBADMSG,
						     "Request with bad magic 0x%08" PRIx32,
						     header->magic);
		return NULL;
	}
	if (header->size != command->len) {
		command->reply.status = command_fail(
			command, -EBADMSG, "Request size field %" PRIu32 " but %zu bytes received",
			header->size, command->len);
		return NULL;
	}
	type = command_type_find(header->type);
	if (!type) {
		command->reply.status = command_fail(command, -EOPNOTSUPP,
						     "Unknown request type %" PRIu32, header->type);
		return NULL;
	}
	if (type->has_payload ? command->len < type->size : command->len != type->size) {
		command->reply.status = command_fail(
			command, -EBADMSG, "%s request of %zu bytes, expected %s%zu", type->name,
			command->len, type->has_payload ? "at least " : "", type->size);
		return NULL;
	}
	return type;
}

static void
command_init(struct command *command, struct tc_consumerd_request *request,
	     struct tc_consumerd_registry *registry)
{
	*command = (struct command){
		.fd = request->fd,
		.fds = request->fds,
		.nr_fds = request->nr_fds,
		.registry = registry,
		.msg = request->msg,
		.len = request->len,
	};
}

/* Every request type but SESSION_FILES names its session right after the
 * header, at the same place. */
_Static_assert(offsetof(struct tc_consumer_session, session_id) ==
			   offsetof(struct tc_consumer_session_ref, session_id) &&
		       offsetof(struct tc_consumer_channel, session_id) ==
			   offsetof(struct tc_consumer_session_ref, session_id) &&
		       offsetof(struct tc_consumer_snapshot, session_id) ==
			   offsetof(struct tc_consumer_session_ref, session_id) &&
		       offsetof(struct tc_consumer_snapshot_relay, session_id) ==
			   offsetof(struct tc_consumer_session_ref, session_id) &&
		       offsetof(struct tc_consumer_rotate, session_id) ==
			   offsetof(struct tc_consumer_session_ref, session_id) &&
		       offsetof(struct tc_consumer_relay_rotate, session_id) ==
			   offsetof(struct tc_consumer_session_ref, session_id) &&
		       offsetof(struct tc_consumer_channel_ref, session_id) ==
			   offsetof(struct tc_consumer_session_ref, session_id) &&
		       offsetof(struct tc_consumer_metadata, session_id) ==
			   offsetof(struct tc_consumer_session_ref, session_id) &&
		       offsetof(struct tc_consumer_event_layout, session_id) ==
			   offsetof(struct tc_consumer_session_ref, session_id) &&
		       offsetof(struct tc_consumer_kernel_trace, session_id) ==
			   offsetof(struct tc_consumer_session_ref, session_id) &&
		       offsetof(struct tc_consumer_kernel_update, session_id) ==
			   offsetof(struct tc_consumer_session_ref, session_id) &&
		       offsetof(struct tc_consumer_kernel_own, session_id) ==
			   offsetof(struct tc_consumer_session_ref, session_id) &&
		       offsetof(struct tc_consumer_lttng_channel, session_id) ==
			   offsetof(struct tc_consumer_session_ref, session_id),
	       "a request names its session elsewhere");

enum tc_consumerd_request_kind
tc_consumerd_command_classify(struct tc_consumerd_request *request, uint64_t *session_id)
{
	const struct tc_consumer_session_ref *ref = (const void *)request->msg;
	const struct command_type *type;
	struct command command;

	command_init(&command, request, NULL);
	type = command_check(&command, request->is_truncated);
	if (!type || type->type == TC_CONSUMER_SESSION_FILES)
		return CONSUMERD_REQUEST_NO_SESSION;
	*session_id = ref->session_id;
	switch (type->type) {
	case TC_CONSUMER_CREATE_SESSION:
		return CONSUMERD_REQUEST_CREATE;
	case TC_CONSUMER_RELAY_STATUS:
		return CONSUMERD_REQUEST_RELAY_STATUS;
	case TC_CONSUMER_DESTROY_SESSION:
		return CONSUMERD_REQUEST_DESTROY;
	default:
		return CONSUMERD_REQUEST_SESSION;
	}
}

static int
send_reply(int fd, uint32_t request_id, struct tc_consumer_reply *reply)
{
	ssize_t n;

	reply->header.request_id = request_id;
	reply->header.magic = TC_CONSUMER_MAGIC;
	reply->header.type = TC_CONSUMER_REPLY;
	reply->header.size = sizeof(*reply);
	do
		n = send(fd, reply, sizeof(*reply), MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(*reply) ? 0 : -EPIPE;
}

/* Sends the reply, then frees the request and what no handler took. A
 * failed send is not reported: the service is gone, and the main thread
 * sees the socket's end. */
static void
command_answer(struct tc_consumerd_request *request, struct command *command)
{
	if (command->reply.status < 0)
		tc_consumerd_warning("Request failed: %s", command->reply.message);
	if (!command->is_socket_broken)
		send_reply(command->fd, command_request_id(command), &command->reply);
	tc_consumerd_command_request_free(request);
}

int
tc_consumerd_command_run(struct tc_consumerd_request *request,
			 struct tc_consumerd_registry *registry, struct tc_consumer_reply *reply)
{
	const struct command_type *type;
	struct command command;

	command_init(&command, request, registry);
	type = command_check(&command, request->is_truncated);
	if (type) {
		tc_consumerd_debug("%s request", type->name);
		command.reply.status = type->handle(&command);
	}
	*reply = command.reply;
	return command.is_socket_broken ? -EPIPE : 0;
}

void
tc_consumerd_command_answer(struct tc_consumerd_request *request,
			    const struct tc_consumer_reply *reply, bool is_socket_broken)
{
	struct command command;

	command_init(&command, request, NULL);
	command.reply = *reply;
	command.is_socket_broken = is_socket_broken;
	command_answer(request, &command);
}

void
tc_consumerd_command_serve(struct tc_consumerd_request *request,
			   struct tc_consumerd_registry *registry)
{
	struct tc_consumer_reply reply;
	bool is_broken = tc_consumerd_command_run(request, registry, &reply) < 0;

	tc_consumerd_command_answer(request, &reply, is_broken);
}

void
tc_consumerd_command_refuse(struct tc_consumerd_request *request, int status, const char *why)
{
	struct command command;

	command_init(&command, request, NULL);
	command.reply.status = command_fail(&command, status, "%s", why);
	command_answer(request, &command);
}

void
tc_consumerd_command_answer_relay_status(struct tc_consumerd_request *request,
					 const struct tc_consumerd_relay_status *status)
{
	const struct tc_consumer_session_ref *msg = (const void *)request->msg;
	struct command command;

	command_init(&command, request, NULL);
	if (!status) {
		command.reply.status = command_fail(&command, -EINVAL,
						    "Session %" PRIu64 " does not stream",
						    msg->session_id);
		command_answer(request, &command);
		return;
	}
	reply_relay_status(&command.reply, status);
	command_answer(request, &command);
}

void
tc_consumerd_command_request_free(struct tc_consumerd_request *request)
{
	for (size_t i = 0; i < request->nr_fds; i++)
		if (request->fds[i] >= 0)
			close(request->fds[i]);
	free(request);
}

/* Collects the descriptors that came with a request (those beyond
 * CONSUMERD_REQUEST_FDS_MAX are closed and not counted). */
static size_t
collect_received_fds(struct msghdr *mh, int *fds)
{
	size_t count = tc_fd_collect(mh, fds, CONSUMERD_REQUEST_FDS_MAX);

	return count < CONSUMERD_REQUEST_FDS_MAX ? count : CONSUMERD_REQUEST_FDS_MAX;
}

int
tc_consumerd_command_receive(int fd, struct tc_consumerd_request **request)
{
	/* 64 KiB: static rather than on the stack; only the main thread
	 * receives, and the request keeps a copy of what it needs. */
	static union {
		struct tc_consumer_header header;
		uint64_t align;
		uint8_t bytes[TC_CONSUMER_MSG_MAX];
	} buffer;
	union {
		char buf[CMSG_SPACE(CONSUMERD_REQUEST_FDS_MAX * sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = {.iov_base = buffer.bytes, .iov_len = sizeof(buffer.bytes)};
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = control.buf,
		.msg_controllen = sizeof(control.buf),
	};
	int fds[CONSUMERD_REQUEST_FDS_MAX];
	struct tc_consumerd_request *new;
	size_t nr_fds;
	ssize_t n;

	n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return -EAGAIN;
	if (n < 0) {
		tc_consumerd_warning("Failed to read from the service: %m");
		return -EPIPE;
	}
	nr_fds = collect_received_fds(&mh, fds);
	/* SOCK_SEQPACKET: 0 is the end of the connection (the service never
	 * sends an empty request), or an empty datagram whose descriptors
	 * are closed all the same. */
	new = n == 0 ? NULL : calloc(1, sizeof(*new) + (size_t)n);
	if (!new) {
		for (size_t i = 0; i < nr_fds; i++)
			close(fds[i]);
		if (n == 0)
			return -EPIPE;
		/* Refused at once, as any request this consumer cannot serve:
		 * unanswered, it would get the consumer killed. */
		tc_consumerd_error("Out of memory for a request of %zd bytes", n);
		if ((size_t)n >= sizeof(buffer.header)) {
			struct tc_consumer_reply reply = {.status = -ENOMEM};

			snprintf(reply.message, sizeof(reply.message),
				 "The consumer is out of memory");
			if (send_reply(fd, buffer.header.request_id, &reply) < 0)
				return -EPIPE;
		}
		return -EAGAIN;
	}
	new->fd = fd;
	memcpy(new->fds, fds, nr_fds * sizeof(int));
	new->nr_fds = nr_fds;
	new->len = (size_t)n;
	new->is_truncated = (mh.msg_flags & MSG_TRUNC) != 0;
	memcpy(new->msg, buffer.bytes, (size_t)n);
	*request = new;
	return 0;
}
