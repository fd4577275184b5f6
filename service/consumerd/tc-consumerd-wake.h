/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The descriptors a session thread polls and what each one wakes. */
#ifndef TC_CONSUMERD_WAKE_H
#define TC_CONSUMERD_WAKE_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "tc-consumerd-affinity.h"
#include "tc-consumerd-session.h"

/* What a polled descriptor wakes: a stream (its eventfd), or the kernel
 * trace of a session (one of its trace_pipe_raw descriptors). */
struct tc_consumerd_wake_source {
	struct tc_consumerd_stream *stream;
	struct tc_consumerd_session *kernel_session;
	struct tc_consumerd_session *lttng_session;
};

/*
 * The descriptors to wake the consumer, for ppoll(): the eventfds of every
 * stream that writes a file, and the kernel buffers of every session
 * tracing the kernel. Fills up to max entries of pfds (events POLLIN) and
 * of sources, what each one wakes. Returns how many it filled. In
 * tc-consumerd-wake.c.
 */
size_t tc_consumerd_wake_fds(struct tc_consumerd_registry *registry, struct pollfd *pfds,
			     struct tc_consumerd_wake_source *sources, size_t max);
/*
 * The descriptors of sources with revents set (pfds and sources as filled
 * by tc_consumerd_wake_fds(), count entries) are readable: a
 * stream's eventfd is emptied and the stream written out; a kernel trace
 * is drained at the next timer pass, once however many of its CPUs woke.
 */
void tc_consumerd_wake_sources_woken(const struct tc_consumerd_wake_source *sources,
				     const struct pollfd *pfds, size_t count,
				     struct tc_consumerd_affinity *affinity, uint64_t now);

#endif /* TC_CONSUMERD_WAKE_H */
