/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Wake-ups, so that a busy buffer is read as soon as it has something to
 * read, not only at the next read timer:
 *
 *   streams  each has an eventfd that the applications signal when a
 *            reservation closes a sub-buffer (one system call per
 *            sub-buffer, none per event)
 *   LTTng-UST  each stream's wait fd, the read end of a pipe that
 *            LTTng-UST's writers write a byte to when they close a
 *            sub-buffer (the channel has no read timer): a burst is read
 *            as it fills the buffers, not at the next 100 ms poll
 *   kernel   each CPU's trace_pipe_raw polls readable once the kernel
 *            filled the instance's buffer_percent of its buffer (the
 *            helper sets it), so a burst starting while the consumer
 *            waits for its idle period is read before the kernel
 *            overwrites it
 *
 * and where the consumer waits for the next one: where a late one says
 * it should (tc-consumerd-affinity.h).
 */
#include "tc-consumerd-wake.h"

#include "tc-consumerd-affinity.h"
#include "tc-consumerd-stream.h"

static size_t
add_stream_fds(struct tc_consumerd_session *session, struct pollfd *pfds,
	       struct tc_consumerd_wake_source *sources, size_t count, size_t max)
{
	for (struct tc_consumerd_channel *channel = session->channels; channel;
	     channel = channel->next) {
		for (uint32_t cpu = 0; cpu < channel->nr_cpus; cpu++) {
			struct tc_consumerd_stream *stream = &channel->streams[cpu];

			/* Snapshot sessions read only when asked. */
			if (!tc_consumerd_stream_has_output(stream) || stream->wake_fd < 0)
				continue;
			if (count == max)
				return count;
			pfds[count] = (struct pollfd){.fd = stream->wake_fd, .events = POLLIN};
			sources[count++] = (struct tc_consumerd_wake_source){.stream = stream};
		}
	}
	return count;
}

static size_t
add_kernel_fds(struct tc_consumerd_session *session, struct pollfd *pfds,
	       struct tc_consumerd_wake_source *sources, size_t count, size_t max)
{
	size_t added;

	/* While busy, the kernel buffers are drained every few ms anyway. */
	if (!session->kernel || session->kernel_busy)
		return count;
	added = tc_consumerd_kernel_trace_poll_fds(session->kernel, pfds + count, max - count);
	for (size_t i = count; i < count + added; i++)
		sources[i] = (struct tc_consumerd_wake_source){.kernel_session = session};
	return count + added;
}

static size_t
add_lttng_fds(struct tc_consumerd_session *session, struct pollfd *pfds,
	      struct tc_consumerd_wake_source *sources, size_t count, size_t max)
{
	for (struct tc_consumerd_lttng_channel *channel = session->lttng_channels;
	     channel && count < max; channel = *tc_consumerd_lttng_channel_next(channel)) {
		size_t added = tc_consumerd_lttng_channel_wait_fds(channel, pfds + count,
								   max - count);

		for (size_t i = count; i < count + added; i++)
			sources[i] = (struct tc_consumerd_wake_source){.lttng_session = session};
		count += added;
	}
	return count;
}

size_t
tc_consumerd_wake_fds(struct tc_consumerd_registry *registry, struct pollfd *pfds,
		      struct tc_consumerd_wake_source *sources, size_t max)
{
	size_t count = 0;

	for (struct tc_consumerd_session *session = registry->sessions; session;
	     session = session->next) {
		count = add_stream_fds(session, pfds, sources, count, max);
		count = add_kernel_fds(session, pfds, sources, count, max);
		count = add_lttng_fds(session, pfds, sources, count, max);
	}
	return count;
}

void
tc_consumerd_wake_sources_woken(const struct tc_consumerd_wake_source *sources,
				const struct pollfd *pfds, size_t count,
				struct tc_consumerd_affinity *affinity, uint64_t now)
{
	for (size_t i = 0; i < count; i++) {
		if (!pfds[i].revents)
			continue;
		if (sources[i].stream)
			tc_consumerd_stream_woken(sources[i].stream, affinity, now);
		else if (sources[i].kernel_session) {
			sources[i].kernel_session->kernel_next_read = now;
			sources[i].kernel_session->kernel_woken = true;
		} else if (sources[i].lttng_session) {
			tc_consumerd_lttng_wait_fd_clear(pfds[i].fd);
			sources[i].lttng_session->lttng_woken = true;
		}
	}
}
