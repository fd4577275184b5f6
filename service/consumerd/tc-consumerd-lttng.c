/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * LTTng-UST channels. How their descriptors leave the consumer:
 * liblttng-ust-ctl keeps a channel's and its streams' object data (the
 * serialized channel, the shm and wake-up descriptors) private and only
 * sends it on a socket in LTTng's own format. The consumer sends it to
 * itself on a socket pair and receives it back as struct
 * lttng_ust_abi_object_data, whose fields it then sends to the service
 * in tracectl's protocol: the service never parses LTTng's consumer
 * format, and the bytes it forwards to applications are bounded here and
 * there (TC_CONSUMER_LTTNG_CHANNEL_DATA_MAX).
 */
#include "tc-consumerd-lttng.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tc-consumerd-log.h"
#include "tc-consumerd-output.h"
#include "tc-consumerd-relay.h"
#include "tc-fd-passing.h"

#if TC_CONSUMERD_HAVE_LTTNG

#include <lttng/ust-ctl.h>
#include <lttng/ust-sigbus.h>

/* liblttng-ust-ctl's state for the SIGBUS a truncated shm would raise
 * while reading. The buffers' sizes are sealed (lttng_seal()), so no
 * handler is installed. */
DEFINE_LTTNG_UST_SIGBUS_STATE();

/* A flush waits this long at most for sub-buffers still being written,
 * looking this often. */
#define CONSUMERD_LTTNG_PENDING_MAX_MS 200u
#define CONSUMERD_LTTNG_PENDING_PAUSE_MS 5u

struct lttng_stream {
	struct lttng_ust_ctl_consumer_stream *ustream;
	int file_fd;
	uint64_t file_size; /* written into file_fd: the current chunk's */
	/* The events_discarded of the last packet read: LTTng-UST counts
	 * them per stream, from the stream's start, in each packet. */
	uint64_t events_discarded;
	/* A streaming session's: the relay's stream, added with the channel. */
	struct tc_consumerd_relay_stream relay;
	bool relay_added;
};

struct tc_consumerd_lttng_channel {
	struct tc_consumerd_lttng_channel *next;
	uint64_t channel_id;
	char name[TC_CONSUMER_NAME_MAX];
	/* A snapshot session's: no stream files, nothing consumed; its
	 * sub-buffers are read only by tc_consumerd_lttng_channel_snapshot(). */
	bool in_memory;
	/* A streaming session's relay (its session's, which outlives it):
	 * no stream files, each packet goes there with its index. */
	struct tc_consumerd_relay *relay;
	struct lttng_ust_ctl_consumer_channel *uchan;
	int *shm_fds;
	uint32_t nr_streams;
	struct lttng_stream *streams;
	uint64_t packets;
	uint64_t buffer_bytes; /* of all its streams */
	/* Its read and monitor timers (tc-consumerd-timer.c); the switch
	 * timer is LTTng-UST's own (switch_ns 0 here): see
	 * lttng_create_buffers(). */
	struct tc_consumerd_timers timers;
	uint64_t bytes_used;	  /* at the last monitor sample, all streams */
	uint64_t bytes_used_peak; /* the highest sample */
};

uint64_t
tc_consumerd_lttng_channel_id(const struct tc_consumerd_lttng_channel *channel)
{
	return channel->channel_id;
}

struct tc_consumerd_lttng_channel **
tc_consumerd_lttng_channel_next(struct tc_consumerd_lttng_channel *channel)
{
	return &channel->next;
}

uint64_t
tc_consumerd_lttng_channel_packets(const struct tc_consumerd_lttng_channel *channel)
{
	return channel->packets;
}

static int
lttng_fail(char *error, size_t error_size, int ret, const char *what)
{
	snprintf(error, error_size, "LTTng-UST channel: %s: %s", what, strerror(-ret));
	return ret;
}

/* One memfd per stream, given to liblttng-ust-ctl, which sizes and maps
 * it; sealed once sized (lttng_seal()). */
static int
lttng_create_shm_fds(struct tc_consumerd_lttng_channel *channel)
{
	channel->shm_fds = calloc(channel->nr_streams, sizeof(int));
	if (!channel->shm_fds)
		return -ENOMEM;
	for (uint32_t i = 0; i < channel->nr_streams; i++)
		channel->shm_fds[i] = -1;
	for (uint32_t i = 0; i < channel->nr_streams; i++) {
		channel->shm_fds[i] =
			memfd_create("tracectl-lttng-stream", MFD_CLOEXEC | MFD_ALLOW_SEALING);
		if (channel->shm_fds[i] < 0)
			return -errno;
	}
	return 0;
}

/*
 * The applications get these descriptors writable: one that shrank a
 * buffer would make the consumer's next read of it fault (SIGBUS), and
 * with root's sessions the consumer reading other users' buffers is
 * root's. The size is sealed instead, so no writer can change it.
 */
static int
lttng_seal(struct tc_consumerd_lttng_channel *channel)
{
	for (uint32_t i = 0; i < channel->nr_streams; i++)
		if (fcntl(channel->shm_fds[i], F_ADD_SEALS,
			  F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
			return -errno;
	return 0;
}

/* The stream's wait fd is the read end of the pipe its writers signal
 * when they close a sub-buffer. The consumer empties it at each wake-up,
 * so it must never block; only the consumer holds this end. The consumer
 * holds the write end too (in the stream it made), so the pipe never
 * reads as closed and poll() never spins on it. */
static int
lttng_wait_fd_nonblocking(struct lttng_ust_ctl_consumer_stream *ustream)
{
	int fd = lttng_ust_ctl_stream_get_wait_fd(ustream);
	int flags = fd < 0 ? -1 : fcntl(fd, F_GETFL);

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return fd < 0 ? -EBADF : -errno;
	return 0;
}

static int
lttng_create_buffers(struct tc_consumerd_lttng_channel *channel,
		     const struct tc_consumer_lttng_channel *msg)
{
	struct lttng_ust_ctl_consumer_channel_attr attr = {
		.type = LTTNG_UST_ABI_CHAN_PER_CPU,
		.subbuf_size = msg->geometry.subbuf_size,
		.num_subbuf = msg->geometry.num_subbuf,
		.overwrite = msg->geometry.overwrite ? 1 : 0,
		/* LTTng-UST's ring buffer runs the switch timer in the
		 * process that creates the channel, this one, as in
		 * lttng-consumerd: a thread of liblttng-ust-ctl's, woken by a
		 * signal every period, closes each stream's sub-buffer when it
		 * holds anything, which wakes the session thread like a full
		 * one (the applications run no timer). */
		.switch_timer_interval = msg->geometry.switch_timer_us,
		/* 0: the writers wake the consumer when they close a
		 * sub-buffer (LTTng-UST's read timer would have them stop,
		 * and wake it from that same thread only once a period); the
		 * channel's read timer is the consumer's period to read
		 * without a wake-up (tc-consumerd-timer.c). */
		.read_timer_interval = 0,
		.output = LTTNG_UST_ABI_MMAP,
		.chan_id = msg->chan_id,
		.blocking_timeout = 0,
	};
	int ret = lttng_ust_ctl_get_nr_stream_per_channel();

	if (ret <= 0)
		return ret < 0 ? ret : -EINVAL;
	channel->nr_streams = (uint32_t)ret;
	channel->buffer_bytes =
	    (uint64_t)msg->geometry.subbuf_size * msg->geometry.num_subbuf * channel->nr_streams;
	memcpy(attr.uuid, msg->uuid, sizeof(attr.uuid));
	ret = lttng_create_shm_fds(channel);
	if (ret < 0)
		return ret;
	channel->uchan = lttng_ust_ctl_create_channel(&attr, channel->shm_fds,
						      (int)channel->nr_streams);
	if (!channel->uchan)
		return -ENOMEM;
	ret = lttng_seal(channel);
	if (ret < 0)
		return ret;
	channel->streams = calloc(channel->nr_streams, sizeof(*channel->streams));
	if (!channel->streams)
		return -ENOMEM;
	for (uint32_t i = 0; i < channel->nr_streams; i++) {
		channel->streams[i].file_fd = -1;
		channel->streams[i].ustream = lttng_ust_ctl_create_stream(channel->uchan, (int)i);
		if (!channel->streams[i].ustream)
			return -ENOMEM;
		ret = lttng_wait_fd_nonblocking(channel->streams[i].ustream);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static void
lttng_file_name(char *path, size_t size, const char *name, uint32_t index)
{
	snprintf(path, size, "%s_%" PRIu32, name, index);
}

/* Removes the stream files made so far: a request that fails leaves the
 * trace directory as it was. */
static void
lttng_remove_files(struct tc_consumerd_lttng_channel *channel, const char *name, int dir_fd)
{
	for (uint32_t i = 0; i < channel->nr_streams && channel->streams[i].file_fd >= 0; i++) {
		char path[TC_CONSUMER_NAME_MAX + 16];

		lttng_file_name(path, sizeof(path), name, i);
		close(channel->streams[i].file_fd);
		channel->streams[i].file_fd = -1;
		(void)unlinkat(dir_fd, path, 0);
	}
}

/* A snapshot session's channel makes its files at each snapshot only:
 * names too long for a file are refused when it is made, not then. */
static int
lttng_check_file_names(const struct tc_consumerd_lttng_channel *channel)
{
	char path[TC_CONSUMER_NAME_MAX + 16];

	lttng_file_name(path, sizeof(path), channel->name, channel->nr_streams - 1);
	return strlen(path) > NAME_MAX ? -ENAMETOOLONG : 0;
}

/* A streaming session's channel: one relay stream per stream, named as
 * its file would be, under the trace's path on the relay; live viewers
 * see them once all are added. */
static int
lttng_add_relay_streams(struct tc_consumerd_lttng_channel *channel, const char *name,
			const char *trace_dir)
{
	int ret = lttng_check_file_names(channel);

	for (uint32_t i = 0; i < channel->nr_streams && ret == 0; i++) {
		char path[TC_CONSUMER_NAME_MAX + 16];

		lttng_file_name(path, sizeof(path), name, i);
		ret = tc_consumerd_relay_stream_add(channel->relay, &channel->streams[i].relay, path,
						    trace_dir, false);
		channel->streams[i].relay_added = ret == 0;
	}
	if (ret == 0)
		tc_consumerd_relay_streams_sent(channel->relay);
	return ret;
}

static void
lttng_remove_relay_streams(struct tc_consumerd_lttng_channel *channel)
{
	for (uint32_t i = 0; channel->streams && i < channel->nr_streams; i++) {
		if (!channel->streams[i].relay_added)
			continue;
		tc_consumerd_relay_stream_remove(channel->relay, &channel->streams[i].relay);
		channel->streams[i].relay_added = false;
	}
}

/* New files only, as tracectl's own channels make theirs: a file there
 * already (another channel's, or a symbolic link) is not truncated. */
static int
lttng_open_files(struct tc_consumerd_lttng_channel *channel, const char *name, int dir_fd)
{
	for (uint32_t i = 0; i < channel->nr_streams; i++) {
		char path[TC_CONSUMER_NAME_MAX + 16];
		int ret;

		lttng_file_name(path, sizeof(path), name, i);
		ret = tc_consumerd_output_create_file(dir_fd, path);
		if (ret < 0) {
			lttng_remove_files(channel, name, dir_fd);
			return ret;
		}
		channel->streams[i].file_fd = ret;
	}
	return 0;
}

static int
lttng_send_channel_data(struct tc_consumerd_lttng_channel *channel, int fd,
			uint32_t request_id, const struct lttng_ust_abi_object_data *obj)
{
	size_t len = sizeof(struct tc_consumer_lttng_channel_data) + obj->size;
	struct tc_consumer_lttng_channel_data *msg;
	int wakeup_fd;
	ssize_t n;

	if (obj->size == 0 || obj->size > TC_CONSUMER_LTTNG_CHANNEL_DATA_MAX ||
	    obj->u.channel.wakeup_fd < 0)
		return -EINVAL;
	msg = calloc(1, len);
	if (!msg)
		return -ENOMEM;
	*msg = (struct tc_consumer_lttng_channel_data){
		.header = {.magic = TC_CONSUMER_MAGIC,
			   .type = TC_CONSUMER_LTTNG_CHANNEL_DATA,
			   .size = (uint32_t)len,
			   .request_id = request_id},
		.channel_id = channel->channel_id,
		.nr_streams = channel->nr_streams,
		.chan_type = obj->u.channel.type,
	};
	memcpy(msg + 1, obj->u.channel.data, obj->size);
	wakeup_fd = obj->u.channel.wakeup_fd;
	n = tc_fd_send(fd, msg, len, &wakeup_fd, 1, 0);
	free(msg);
	if (n < 0)
		return (int)n;
	return n == (ssize_t)len ? 0 : -EPIPE;
}

static int
lttng_send_stream(struct tc_consumerd_lttng_channel *channel, int fd, uint32_t request_id,
		  uint32_t index, const struct lttng_ust_abi_object_data *obj)
{
	struct tc_consumer_stream msg = {
		.header = {.magic = TC_CONSUMER_MAGIC,
			   .type = TC_CONSUMER_STREAM,
			   .size = sizeof(msg),
			   .request_id = request_id},
		.channel_id = channel->channel_id,
		.cpu = index,
		.shm_size = obj->size,
	};
	int fds[2] = {obj->u.stream.shm_fd, obj->u.stream.wakeup_fd};
	ssize_t n;

	if (obj->u.stream.stream_nr != index || fds[0] < 0 || fds[1] < 0)
		return -EINVAL;
	n = tc_fd_send(fd, &msg, sizeof(msg), fds, 2, 0);
	if (n < 0)
		return (int)n;
	return n == (ssize_t)sizeof(msg) ? 0 : -EPIPE;
}

/* Frees what lttng_ust_ctl_recv_*_from_consumer() allocated: its
 * descriptors (received, so ours) and memory. */
static void
lttng_object_free(struct lttng_ust_abi_object_data *obj)
{
	if (!obj)
		return;
	(void)lttng_ust_ctl_release_object(-1, obj);
	free(obj);
}

/* The object data of the channel and its streams, through the socket
 * pair pair (see the top of the file), sent on to the service. */
static int
lttng_export(struct tc_consumerd_lttng_channel *channel, int pair[2], int fd,
	     uint32_t request_id, int *is_socket_broken)
{
	struct lttng_ust_abi_object_data *obj = NULL;
	int ret;

	ret = lttng_ust_ctl_send_channel_to_sessiond(pair[0], channel->uchan);
	if (ret >= 0)
		ret = lttng_ust_ctl_recv_channel_from_consumer(pair[1], &obj);
	if (ret >= 0) {
		ret = lttng_send_channel_data(channel, fd, request_id, obj);
		*is_socket_broken = ret == -EPIPE;
	}
	lttng_object_free(obj);
	for (uint32_t i = 0; ret >= 0 && i < channel->nr_streams; i++) {
		obj = NULL;
		ret = lttng_ust_ctl_send_stream_to_sessiond(pair[0], channel->streams[i].ustream);
		if (ret >= 0)
			ret = lttng_ust_ctl_recv_stream_from_consumer(pair[1], &obj);
		if (ret >= 0) {
			ret = lttng_send_stream(channel, fd, request_id, i, obj);
			*is_socket_broken = ret == -EPIPE;
		}
		lttng_object_free(obj);
	}
	return ret < 0 ? ret : 0;
}

int
tc_consumerd_lttng_channel_create(const struct tc_consumer_lttng_channel *msg, int dir_fd,
				  struct tc_consumerd_relay *relay, const char *trace_dir, int fd,
				  uint32_t request_id, struct tc_consumerd_lttng_channel **out,
				  int *is_socket_broken, char *error, size_t error_size)
{
	struct tc_consumerd_lttng_channel *channel = calloc(1, sizeof(*channel));
	int pair[2] = {-1, -1};
	int ret;

	*is_socket_broken = 0;
	if (!channel)
		return lttng_fail(error, error_size, -ENOMEM, "allocation");
	channel->channel_id = msg->channel_id;
	snprintf(channel->name, sizeof(channel->name), "%s", msg->name);
	channel->relay = relay;
	channel->in_memory = dir_fd < 0 && !relay;
	channel->timers = (struct tc_consumerd_timers){
	    .read_ns = (uint64_t)msg->geometry.read_timer_us * 1000,
	    .monitor_ns = (uint64_t)msg->geometry.monitor_timer_us * 1000,
	};
	ret = lttng_create_buffers(channel, msg);
	if (ret < 0) {
		lttng_fail(error, error_size, ret, "creating the buffers");
		goto fail;
	}
	if (relay)
		ret = lttng_add_relay_streams(channel, msg->name, trace_dir);
	else
		ret = channel->in_memory ? lttng_check_file_names(channel)
					 : lttng_open_files(channel, msg->name, dir_fd);
	if (ret < 0) {
		lttng_fail(error, error_size, ret, "creating the stream files");
		goto fail;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) < 0) {
		ret = lttng_fail(error, error_size, -errno, "socketpair");
		goto fail_files;
	}
	ret = lttng_export(channel, pair, fd, request_id, is_socket_broken);
	close(pair[0]);
	close(pair[1]);
	if (ret < 0) {
		lttng_fail(error, error_size, ret, "sending the object data");
		goto fail_files;
	}
	*out = channel;
	return 0;
fail_files:
	if (!channel->in_memory && !relay)
		lttng_remove_files(channel, msg->name, dir_fd);
fail:
	tc_consumerd_lttng_channel_free(channel);
	return ret;
}

static int lttng_packet_info(struct lttng_ust_ctl_consumer_stream *ustream,
			     struct tc_consumerd_lttng_packet *packet);

/* The sub-buffer got (padded bytes at data) to the relay, with the index
 * its packet context gives. The relay counts what it drops while down:
 * the packet is consumed either way, as when written to a file. */
static int
lttng_send_to_relay(struct tc_consumerd_relay *relay, struct lttng_stream *stream,
		    const char *data, unsigned long padded)
{
	struct tc_consumerd_lttng_packet packet = {0};
	struct tc_consumerd_relay_packet_info info;
	int ret = lttng_packet_info(stream->ustream, &packet);

	if (ret < 0)
		return ret;
	if (padded > UINT32_MAX)
		return -EFBIG;
	info = (struct tc_consumerd_relay_packet_info){
	    .packet_size = packet.packet_size,
	    .content_size = packet.content_size,
	    .timestamp_begin = packet.timestamp_begin,
	    .timestamp_end = packet.timestamp_end,
	    .events_discarded = packet.events_discarded,
	    .stream_id = packet.stream_id,
	    .stream_instance_id = packet.stream_instance_id,
	    .packet_seq_num = packet.packet_seq_num,
	};
	(void)tc_consumerd_relay_send_packet_with_info(relay, &stream->relay, (const uint8_t *)data,
						       (uint32_t)padded, &info);
	return 0;
}

/* Writes padded bytes at data to the stream's file. */
static int
lttng_write_file(struct lttng_stream *stream, const char *data, unsigned long padded)
{
	for (size_t done = 0; done < padded;) {
		ssize_t n = write(stream->file_fd, data + done, padded - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	stream->file_size += padded;
	return 0;
}

/* Writes one complete sub-buffer of stream, to its file or the relay, if
 * there is one. Returns 1 when it wrote one, 0 when none was ready,
 * -errno on failure. */
static int
lttng_drain_one(struct tc_consumerd_lttng_channel *channel, struct lttng_stream *stream)
{
	unsigned long padded = 0, offset = 0;
	const char *base;
	int ret = lttng_ust_ctl_get_next_subbuf(stream->ustream);

	if (ret < 0)
		return ret == -EAGAIN || ret == -ENODATA ? 0 : ret;
	/* Best effort: a packet that does not say keeps the last count. */
	(void)lttng_ust_ctl_get_events_discarded(stream->ustream, &stream->events_discarded);
	base = lttng_ust_ctl_get_mmap_base(stream->ustream);
	ret = lttng_ust_ctl_get_padded_subbuf_size(stream->ustream, &padded);
	if (ret >= 0)
		ret = lttng_ust_ctl_get_mmap_read_offset(stream->ustream, &offset);
	if (ret >= 0 && !base)
		ret = -EFAULT;
	if (ret >= 0)
		ret = channel->relay ? lttng_send_to_relay(channel->relay, stream, base + offset, padded)
				     : lttng_write_file(stream, base + offset, padded);
	(void)lttng_ust_ctl_put_next_subbuf(stream->ustream);
	return ret < 0 ? ret : 1;
}

uint64_t
tc_consumerd_lttng_channel_drain(struct tc_consumerd_lttng_channel *channel)
{
	uint64_t written = 0;

	for (uint32_t i = 0; i < channel->nr_streams; i++) {
		struct lttng_stream *stream = &channel->streams[i];
		int ret;

		if (!stream->ustream || (stream->file_fd < 0 && !stream->relay_added))
			continue;
		while ((ret = lttng_drain_one(channel, stream)) > 0)
			written++;
		if (ret < 0)
			tc_consumerd_warning("LTTng-UST channel %" PRIu64 " stream %" PRIu32
					     ": cannot write a packet: %s",
					     channel->channel_id, i, strerror(-ret));
	}
	channel->packets += written;
	return written;
}

size_t
tc_consumerd_lttng_channel_wait_fds(struct tc_consumerd_lttng_channel *channel,
				    struct pollfd *pfds, size_t max)
{
	size_t count = 0;

	for (uint32_t i = 0; i < channel->nr_streams && count < max; i++) {
		struct lttng_stream *stream = &channel->streams[i];
		int fd;

		if (!stream->ustream || (stream->file_fd < 0 && !stream->relay_added))
			continue;
		fd = lttng_ust_ctl_stream_get_wait_fd(stream->ustream);
		if (fd >= 0)
			pfds[count++] = (struct pollfd){.fd = fd, .events = POLLIN};
	}
	return count;
}

void
tc_consumerd_lttng_wait_fd_clear(int fd)
{
	char bytes[64];

	/* One byte per sub-buffer closed; the drain that follows reads them all. */
	while (read(fd, bytes, sizeof(bytes)) > 0)
		;
}

/* Whether a sub-buffer of the channel is closed but not read yet: one a
 * writer has not committed whole (it stopped in the middle of an event)
 * cannot be read until it has. */
static bool
lttng_has_pending(struct tc_consumerd_lttng_channel *channel)
{
	for (uint32_t i = 0; i < channel->nr_streams; i++)
		if (channel->streams[i].ustream &&
		    lttng_ust_ctl_snapshot(channel->streams[i].ustream) == 0)
			return true;
	return false;
}

void
tc_consumerd_lttng_channel_flush(struct tc_consumerd_lttng_channel *channel)
{
	struct timespec pause = {.tv_nsec = CONSUMERD_LTTNG_PENDING_PAUSE_MS * 1000000L};
	unsigned int waited_ms = 0;

	for (uint32_t i = 0; i < channel->nr_streams; i++)
		if (channel->streams[i].ustream)
			(void)lttng_ust_ctl_flush_buffer(channel->streams[i].ustream, 1);
	/* A snapshot session's sub-buffers stay for the next snapshot. */
	if (channel->in_memory)
		return;
	tc_consumerd_lttng_channel_drain(channel);
	/* What the applications were writing when they stopped is waited
	 * for, within a bound: a writer killed in the middle of an event
	 * never commits its sub-buffer. */
	while (lttng_has_pending(channel) && waited_ms < CONSUMERD_LTTNG_PENDING_MAX_MS) {
		nanosleep(&pause, NULL);
		waited_ms += CONSUMERD_LTTNG_PENDING_PAUSE_MS;
		tc_consumerd_lttng_channel_drain(channel);
	}
	if (lttng_has_pending(channel))
		tc_consumerd_warning("LTTng-UST channel %" PRIu64 ": a sub-buffer still uncommitted "
				     "after %u ms is left for the next read",
				     channel->channel_id, waited_ms);
}

/* One stream's live period, as lttng-consumerd's live timer does it:
 * the sub-buffer being written closed if it holds anything and sent; a
 * stream the relay has nothing of yet gets an empty packet (viewers
 * skip only a stream that has sent data). One with nothing sent this
 * period and nothing left to read gets a beacon at the buffer's time
 * read before the flush, so viewers move past it: an event reserved
 * after that read is not older than the beacon, and one reserved before
 * it is in a sub-buffer the flush closed, which a beacon never skips
 * (lttng_ust_ctl_snapshot() finds it produced, committed or not). */
static void
lttng_stream_live_tick(struct tc_consumerd_lttng_channel *channel, struct lttng_stream *stream,
		       uint64_t period_start)
{
	uint64_t timestamp = 0, stream_id = 0;
	bool has_time = lttng_ust_ctl_get_current_timestamp(stream->ustream, &timestamp) == 0;

	(void)lttng_ust_ctl_flush_buffer(stream->ustream, 1);
	while (lttng_drain_one(channel, stream) > 0)
		channel->packets++;
	if (stream->relay.packets_on_connection == 0) {
		(void)lttng_ust_ctl_flush_buffer(stream->ustream, 0);
		while (lttng_drain_one(channel, stream) > 0)
			channel->packets++;
	}
	if (!has_time || stream->relay.last_packet_ns >= period_start ||
	    lttng_ust_ctl_snapshot(stream->ustream) == 0 ||
	    lttng_ust_ctl_get_stream_id(stream->ustream, &stream_id) < 0)
		return;
	tc_consumerd_relay_send_beacon(channel->relay, &stream->relay, stream_id, timestamp);
}

void
tc_consumerd_lttng_channel_live_tick(struct tc_consumerd_lttng_channel *channel,
				     uint64_t period_start)
{
	for (uint32_t i = 0; channel->relay && i < channel->nr_streams; i++)
		if (channel->streams[i].ustream && channel->streams[i].relay_added)
			lttng_stream_live_tick(channel, &channel->streams[i], period_start);
}

/* The index of the sub-buffer got at *position, from its packet's
 * context as liblttng-ust-ctl reads it. */
static int
lttng_packet_info(struct lttng_ust_ctl_consumer_stream *ustream,
		  struct tc_consumerd_lttng_packet *packet)
{
	int ret = lttng_ust_ctl_get_packet_size(ustream, &packet->packet_size);

	if (ret >= 0)
		ret = lttng_ust_ctl_get_content_size(ustream, &packet->content_size);
	if (ret >= 0)
		ret = lttng_ust_ctl_get_timestamp_begin(ustream, &packet->timestamp_begin);
	if (ret >= 0)
		ret = lttng_ust_ctl_get_timestamp_end(ustream, &packet->timestamp_end);
	if (ret >= 0)
		ret = lttng_ust_ctl_get_events_discarded(ustream, &packet->events_discarded);
	if (ret >= 0)
		ret = lttng_ust_ctl_get_stream_id(ustream, &packet->stream_id);
	if (ret >= 0)
		ret = lttng_ust_ctl_get_instance_id(ustream, &packet->stream_instance_id);
	if (ret >= 0)
		ret = lttng_ust_ctl_get_sequence_number(ustream, &packet->packet_seq_num);
	return ret;
}

/* Gives the sub-buffer at *position, read in place, to sink. Returns 1
 * when given, 0 when the writers overwrote it meanwhile (overwrite mode:
 * skipped), -errno on failure. */
static int
lttng_snapshot_subbuf(struct lttng_ust_ctl_consumer_stream *ustream, unsigned long *position,
		      tc_consumerd_lttng_sink sink, void *data)
{
	struct tc_consumerd_lttng_packet packet = {0};
	unsigned long padded = 0, offset = 0;
	const char *base;
	int ret = lttng_ust_ctl_get_subbuf(ustream, position);

	if (ret < 0)
		return ret == -EAGAIN ? 0 : ret;
	base = lttng_ust_ctl_get_mmap_base(ustream);
	ret = lttng_ust_ctl_get_padded_subbuf_size(ustream, &padded);
	if (ret >= 0)
		ret = lttng_ust_ctl_get_mmap_read_offset(ustream, &offset);
	if (ret >= 0)
		ret = lttng_packet_info(ustream, &packet);
	if (ret >= 0 && (!base || padded > UINT32_MAX))
		ret = -EFAULT;
	if (ret >= 0) {
		packet.data = (const uint8_t *)base + offset;
		packet.size = (uint32_t)padded;
		ret = sink(data, &packet);
	}
	(void)lttng_ust_ctl_put_subbuf(ustream);
	return ret < 0 ? ret : 1;
}

int
tc_consumerd_lttng_stream_snapshot(struct tc_consumerd_lttng_channel *channel, uint32_t index,
				   uint64_t max_bytes, tc_consumerd_lttng_sink sink, void *data,
				   uint64_t *packets)
{
	struct lttng_ust_ctl_consumer_stream *ustream = channel->streams[index].ustream;
	unsigned long consumed = 0, produced = 0, subbuf_size = 0;
	int ret;

	if (!ustream)
		return 0;
	/* Closes the sub-buffer being written: it is in the snapshot. */
	(void)lttng_ust_ctl_flush_buffer(ustream, 1);
	ret = lttng_ust_ctl_get_max_subbuf_size(ustream, &subbuf_size);
	if (ret == 0 && lttng_ust_ctl_snapshot(ustream) == 0) {
		ret = lttng_ust_ctl_snapshot_get_consumed(ustream, &consumed);
		if (ret == 0)
			ret = lttng_ust_ctl_snapshot_get_produced(ustream, &produced);
	}
	/* Positions run free: distances are taken modulo the word. */
	if (ret == 0 && subbuf_size > 0 && max_bytes != 0 &&
	    (produced - consumed) / subbuf_size > max_bytes / subbuf_size)
		consumed = produced - max_bytes / subbuf_size * subbuf_size;
	while (ret >= 0 && subbuf_size > 0 && (long)(consumed - produced) < 0) {
		ret = lttng_snapshot_subbuf(ustream, &consumed, sink, data);
		*packets += ret > 0;
		consumed += subbuf_size;
	}
	return ret < 0 ? ret : 0;
}

/* The bytes written into the stream and not consumed yet, now: the
 * distance between the positions LTTng-UST's ring buffer samples. */
static uint64_t
lttng_stream_bytes_used(struct lttng_stream *stream)
{
	unsigned long consumed = 0, produced = 0;

	if (!stream->ustream || lttng_ust_ctl_snapshot_sample_positions(stream->ustream) < 0 ||
	    lttng_ust_ctl_snapshot_get_consumed(stream->ustream, &consumed) < 0 ||
	    lttng_ust_ctl_snapshot_get_produced(stream->ustream, &produced) < 0)
		return 0;
	/* Positions run free: their distance is taken modulo the word. */
	return (uint64_t)(produced - consumed);
}

struct tc_consumerd_timers *
tc_consumerd_lttng_channel_timers(struct tc_consumerd_lttng_channel *channel)
{
	return &channel->timers;
}

void
tc_consumerd_lttng_channel_sample(struct tc_consumerd_lttng_channel *channel)
{
	uint64_t used = 0;

	for (uint32_t i = 0; i < channel->nr_streams; i++)
		used += lttng_stream_bytes_used(&channel->streams[i]);
	channel->bytes_used = used;
	if (used > channel->bytes_used_peak)
		channel->bytes_used_peak = used;
}

void
tc_consumerd_lttng_channel_stats(struct tc_consumerd_lttng_channel *channel,
				 struct tc_consumerd_channel_stats *stats)
{
	*stats = (struct tc_consumerd_channel_stats){.buffer_bytes = channel->buffer_bytes};
	for (uint32_t i = 0; i < channel->nr_streams; i++)
		stats->events_discarded += channel->streams[i].events_discarded;
	stats->bytes_used = channel->bytes_used;
	stats->bytes_used_peak = channel->bytes_used_peak;
	stats->packets_written = channel->packets;
}

const char *
tc_consumerd_lttng_channel_name(const struct tc_consumerd_lttng_channel *channel)
{
	return channel->name;
}

uint32_t
tc_consumerd_lttng_channel_nr_streams(const struct tc_consumerd_lttng_channel *channel)
{
	return channel->nr_streams;
}

struct file_sink {
	int fd;
	uint64_t size;
};

static int
file_sink_put(void *data, const struct tc_consumerd_lttng_packet *packet)
{
	struct file_sink *file = data;

	return tc_consumerd_output_append(file->fd, &file->size, packet->data, packet->size);
}

/* One stream's snapshot into a new file "<name>_<n>" of dir_fd: what
 * lttng-consumerd's snapshot of a channel writes. */
static int
lttng_snapshot_stream(struct tc_consumerd_lttng_channel *channel, uint32_t index, int dir_fd,
		      uint64_t max_bytes, uint64_t *packets)
{
	char path[TC_CONSUMER_NAME_MAX + 16];
	struct file_sink file = {.fd = -1};
	int ret;

	lttng_file_name(path, sizeof(path), channel->name, index);
	file.fd = tc_consumerd_output_create_file(dir_fd, path);
	if (file.fd < 0)
		return file.fd;
	ret = tc_consumerd_lttng_stream_snapshot(channel, index, max_bytes, file_sink_put, &file,
						 packets);
	if (ret >= 0)
		ret = tc_consumerd_output_sync(file.fd);
	close(file.fd);
	return ret < 0 ? ret : 0;
}

int
tc_consumerd_lttng_channel_snapshot(struct tc_consumerd_lttng_channel *channel, int dir_fd,
				    uint64_t max_stream_bytes, uint64_t *packets)
{
	int ret = 0;

	for (uint32_t i = 0; i < channel->nr_streams && ret == 0; i++)
		if (channel->streams[i].ustream)
			ret = lttng_snapshot_stream(channel, i, dir_fd, max_stream_bytes, packets);
	return ret;
}

uint64_t
tc_consumerd_lttng_channels_file_bytes(const struct tc_consumerd_lttng_channel *list)
{
	uint64_t bytes = 0;

	for (const struct tc_consumerd_lttng_channel *channel = list; channel;
	     channel = channel->next)
		for (uint32_t i = 0; i < channel->nr_streams; i++)
			bytes += channel->streams[i].file_size;
	return bytes;
}

int
tc_consumerd_lttng_channel_reopen_files(struct tc_consumerd_lttng_channel *channel, int dir_fd)
{
	if (channel->in_memory || channel->relay)
		return 0;
	for (uint32_t i = 0; i < channel->nr_streams; i++) {
		if (channel->streams[i].file_fd >= 0)
			close(channel->streams[i].file_fd);
		channel->streams[i].file_fd = -1;
		channel->streams[i].file_size = 0;
	}
	return lttng_open_files(channel, channel->name, dir_fd);
}

int
tc_consumerd_lttng_channel_clear(struct tc_consumerd_lttng_channel *channel)
{
	for (uint32_t i = 0; i < channel->nr_streams; i++) {
		struct lttng_stream *stream = &channel->streams[i];

		/* In memory: what the buffers hold goes (the next snapshot
		 * starts after it); on file: the file starts again. */
		if (channel->in_memory && stream->ustream &&
		    lttng_ust_ctl_clear_buffer(stream->ustream) < 0)
			return -EIO;
		if (stream->file_fd < 0)
			continue;
		if (ftruncate(stream->file_fd, 0) < 0 || lseek(stream->file_fd, 0, SEEK_SET) < 0)
			return -errno;
		stream->file_size = 0;
	}
	return 0;
}

void
tc_consumerd_lttng_channel_free(struct tc_consumerd_lttng_channel *channel)
{
	if (!channel)
		return;
	if (channel->streams) {
		if (channel->uchan)
			tc_consumerd_lttng_channel_flush(channel);
		lttng_remove_relay_streams(channel);
		for (uint32_t i = 0; i < channel->nr_streams; i++) {
			if (channel->streams[i].ustream)
				lttng_ust_ctl_destroy_stream(channel->streams[i].ustream);
			if (channel->streams[i].file_fd >= 0)
				close(channel->streams[i].file_fd);
		}
	}
	if (channel->uchan)
		lttng_ust_ctl_destroy_channel(channel->uchan);
	for (uint32_t i = 0; channel->shm_fds && i < channel->nr_streams; i++)
		if (channel->shm_fds[i] >= 0)
			close(channel->shm_fds[i]);
	free(channel->shm_fds);
	free(channel->streams);
	free(channel);
}

#else /* !TC_CONSUMERD_HAVE_LTTNG */

int
tc_consumerd_lttng_channel_create(const struct tc_consumer_lttng_channel *msg, int dir_fd,
				  struct tc_consumerd_relay *relay, const char *trace_dir, int fd,
				  uint32_t request_id, struct tc_consumerd_lttng_channel **channel,
				  int *is_socket_broken, char *error, size_t error_size)
{
	*is_socket_broken = 0;
	snprintf(error, error_size, "built without liblttng-ust-ctl");
	return -EOPNOTSUPP;
}

uint64_t
tc_consumerd_lttng_channel_id(const struct tc_consumerd_lttng_channel *channel)
{
	return 0;
}

struct tc_consumerd_lttng_channel **
tc_consumerd_lttng_channel_next(struct tc_consumerd_lttng_channel *channel)
{
	abort();
}

uint64_t
tc_consumerd_lttng_channel_drain(struct tc_consumerd_lttng_channel *channel)
{
	return 0;
}

size_t
tc_consumerd_lttng_channel_wait_fds(struct tc_consumerd_lttng_channel *channel,
				    struct pollfd *pfds, size_t max)
{
	return 0;
}

void
tc_consumerd_lttng_wait_fd_clear(int fd)
{
}

void
tc_consumerd_lttng_channel_flush(struct tc_consumerd_lttng_channel *channel)
{
}

void
tc_consumerd_lttng_channel_live_tick(struct tc_consumerd_lttng_channel *channel,
				     uint64_t period_start)
{
}

int
tc_consumerd_lttng_channel_snapshot(struct tc_consumerd_lttng_channel *channel, int dir_fd,
				    uint64_t max_stream_bytes, uint64_t *packets)
{
	return -EOPNOTSUPP;
}

int
tc_consumerd_lttng_stream_snapshot(struct tc_consumerd_lttng_channel *channel, uint32_t index,
				   uint64_t max_bytes, tc_consumerd_lttng_sink sink, void *data,
				   uint64_t *packets)
{
	return -EOPNOTSUPP;
}

struct tc_consumerd_timers *
tc_consumerd_lttng_channel_timers(struct tc_consumerd_lttng_channel *channel)
{
	abort();
}

void
tc_consumerd_lttng_channel_sample(struct tc_consumerd_lttng_channel *channel)
{
}

void
tc_consumerd_lttng_channel_stats(struct tc_consumerd_lttng_channel *channel,
				 struct tc_consumerd_channel_stats *stats)
{
	*stats = (struct tc_consumerd_channel_stats){0};
}

const char *
tc_consumerd_lttng_channel_name(const struct tc_consumerd_lttng_channel *channel)
{
	return "";
}

uint32_t
tc_consumerd_lttng_channel_nr_streams(const struct tc_consumerd_lttng_channel *channel)
{
	return 0;
}

uint64_t
tc_consumerd_lttng_channels_file_bytes(const struct tc_consumerd_lttng_channel *list)
{
	return 0;
}

int
tc_consumerd_lttng_channel_reopen_files(struct tc_consumerd_lttng_channel *channel, int dir_fd)
{
	return -EOPNOTSUPP;
}

int
tc_consumerd_lttng_channel_clear(struct tc_consumerd_lttng_channel *channel)
{
	return -EOPNOTSUPP;
}

uint64_t
tc_consumerd_lttng_channel_packets(const struct tc_consumerd_lttng_channel *channel)
{
	return 0;
}

void
tc_consumerd_lttng_channel_free(struct tc_consumerd_lttng_channel *channel)
{
}

#endif
