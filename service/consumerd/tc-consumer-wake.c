/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Wake-ups from the writers: each stream has an eventfd that the
 * applications signal when a reservation closes a sub-buffer (one system
 * call per sub-buffer, none per event), so a busy buffer is read as soon
 * as it has something to read, not only at the next read timer.
 */
#include "tc-consumer-session.h"

size_t
consumerd_registry_wake_fds(struct consumerd_registry *registry, struct pollfd *pfds,
			    struct consumerd_stream **streams, size_t max)
{
	size_t count = 0;

	for (struct consumerd_session *session = registry->sessions; session;
	     session = session->next) {
		for (struct consumerd_channel *channel = session->channels; channel;
		     channel = channel->next) {
			for (uint32_t cpu = 0; cpu < channel->nr_cpus; cpu++) {
				struct consumerd_stream *stream = &channel->streams[cpu];

				/* Snapshot sessions read only when asked. */
				if (stream->file_fd < 0 || stream->wake_fd < 0)
					continue;
				if (count == max)
					return count;
				pfds[count] = (struct pollfd){.fd = stream->wake_fd, .events = POLLIN};
				streams[count++] = stream;
			}
		}
	}
	return count;
}
