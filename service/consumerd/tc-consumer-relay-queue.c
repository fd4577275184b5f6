/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-consumer-relay-queue.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

void
consumerd_relay_queue_init(struct consumerd_relay_queue *queue)
{
	queue->head = NULL;
	queue->tail = &queue->head;
	queue->bytes = 0;
	queue->frames = 0;
}

int
consumerd_relay_queue_push(struct consumerd_relay_queue *queue, const struct iovec *iov, int iovcnt,
			   size_t skip)
{
	struct consumerd_relay_frame *frame;
	size_t total = 0, at = 0;

	for (int i = 0; i < iovcnt; i++)
		total += iov[i].iov_len;
	if (skip > total || total - skip > UINT32_MAX)
		return -EINVAL;
	frame = malloc(sizeof(*frame) + (total - skip));
	if (!frame)
		return -ENOMEM;
	for (int i = 0; i < iovcnt; i++) {
		size_t len = iov[i].iov_len, from = 0;

		if (skip >= len) {
			skip -= len;
			continue;
		}
		from = skip;
		skip = 0;
		memcpy(frame->data + at, (const uint8_t *)iov[i].iov_base + from, len - from);
		at += len - from;
	}
	frame->next = NULL;
	frame->size = (uint32_t)at;
	frame->sent = 0;
	*queue->tail = frame;
	queue->tail = &frame->next;
	queue->bytes += at;
	queue->frames++;
	return 0;
}

static void
pop_head(struct consumerd_relay_queue *queue)
{
	struct consumerd_relay_frame *frame = queue->head;

	queue->head = frame->next;
	if (!queue->head)
		queue->tail = &queue->head;
	queue->frames--;
	free(frame);
}

int
consumerd_relay_queue_send(struct consumerd_relay_queue *queue, int fd)
{
	while (queue->head) {
		struct consumerd_relay_frame *frame = queue->head;
		ssize_t n = send(fd, frame->data + frame->sent, frame->size - frame->sent,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? 0 : -errno;
		frame->sent += (uint32_t)n;
		queue->bytes -= (size_t)n;
		if (frame->sent < frame->size)
			return 0;
		pop_head(queue);
	}
	return 0;
}

size_t
consumerd_relay_queue_clear(struct consumerd_relay_queue *queue)
{
	size_t count = queue->frames;

	while (queue->head)
		pop_head(queue);
	queue->bytes = 0;
	return count;
}
