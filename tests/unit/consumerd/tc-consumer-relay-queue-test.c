/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A relay's data queue (tc-consumer-relay-queue.c) against a socket whose
 * peer reads little at a time: frames come out whole and in order, a
 * frame pushed with bytes already sent skips them, a send never waits
 * for a full socket, and a broken connection is an error, not a wait.
 */
#include <errno.h>
#include <glib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tc-consumer-relay-queue.h"

#define FRAME_BYTES 100000u
#define FRAMES 8u

/* A stream socket pair with small buffers: the queue meets EAGAIN. */
static void
small_pair(int fds[2])
{
	int size = 4096;

	g_assert_cmpint(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), ==, 0);
	g_assert_cmpint(setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size)), ==, 0);
	g_assert_cmpint(setsockopt(fds[1], SOL_SOCKET, SO_RCVBUF, &size, sizeof(size)), ==, 0);
}

/* Reads what is there without waiting. */
static gsize
read_some(int fd, GByteArray *into)
{
	guint8 buf[65536];
	ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

	if (n <= 0)
		return 0;
	g_byte_array_append(into, buf, (guint)n);
	return (gsize)n;
}

static void
test_order_and_skip(void)
{
	struct consumerd_relay_queue queue;
	g_autoptr(GByteArray) expected = g_byte_array_new();
	g_autoptr(GByteArray) received = g_byte_array_new();
	g_autofree guint8 *payload = g_malloc(FRAME_BYTES);
	int fds[2];

	small_pair(fds);
	consumerd_relay_queue_init(&queue);
	for (guint i = 0; i < FRAMES; i++) {
		guint8 header[24];
		struct iovec iov[2] = {{header, sizeof(header)}, {payload, FRAME_BYTES}};
		/* The first frame as left by a send that took 30 bytes. */
		gsize skip = i == 0 ? 30 : 0;

		memset(header, 'A' + (int)i, sizeof(header));
		memset(payload, 'a' + (int)i, FRAME_BYTES);
		g_byte_array_append(expected, header + (skip < sizeof(header) ? skip : 0),
				    (guint)(sizeof(header) - MIN(skip, sizeof(header))));
		g_byte_array_append(expected, payload + (skip > sizeof(header) ? skip - 24 : 0),
				    (guint)(FRAME_BYTES - (skip > sizeof(header) ? skip - 24 : 0)));
		g_assert_cmpint(consumerd_relay_queue_push(&queue, iov, 2, skip), ==, 0);
	}
	g_assert_cmpuint(queue.bytes, ==, expected->len);
	/* Each send takes what the socket takes and returns at once. */
	while (!consumerd_relay_queue_is_empty(&queue)) {
		gint64 start = g_get_monotonic_time();

		g_assert_cmpint(consumerd_relay_queue_send(&queue, fds[0]), ==, 0);
		g_assert_cmpint(g_get_monotonic_time() - start, <, G_USEC_PER_SEC / 10);
		read_some(fds[1], received);
	}
	while (read_some(fds[1], received) > 0)
		;
	g_assert_cmpuint(queue.bytes, ==, 0);
	g_assert_cmpuint(received->len, ==, expected->len);
	g_assert_true(memcmp(received->data, expected->data, expected->len) == 0);
	close(fds[0]);
	close(fds[1]);
}

static void
test_full_socket_never_waits(void)
{
	struct consumerd_relay_queue queue;
	g_autofree guint8 *payload = g_malloc0(FRAME_BYTES);
	struct iovec iov = {payload, FRAME_BYTES};
	gint64 start;
	int fds[2];

	small_pair(fds);
	consumerd_relay_queue_init(&queue);
	g_assert_cmpint(consumerd_relay_queue_push(&queue, &iov, 1, 0), ==, 0);
	start = g_get_monotonic_time();
	/* Nobody reads: the socket fills, and the send returns anyway. */
	g_assert_cmpint(consumerd_relay_queue_send(&queue, fds[0]), ==, 0);
	g_assert_cmpint(consumerd_relay_queue_send(&queue, fds[0]), ==, 0);
	g_assert_cmpint(g_get_monotonic_time() - start, <, G_USEC_PER_SEC / 10);
	g_assert_false(consumerd_relay_queue_is_empty(&queue));
	g_assert_cmpuint(queue.bytes, <, FRAME_BYTES);
	g_assert_cmpuint(queue.bytes, >, 0);
	/* The peer goes: an error, then nothing is left once cleared. */
	close(fds[1]);
	g_assert_cmpint(consumerd_relay_queue_send(&queue, fds[0]), ==, -EPIPE);
	g_assert_cmpuint(consumerd_relay_queue_clear(&queue), ==, 1);
	g_assert_true(consumerd_relay_queue_is_empty(&queue));
	g_assert_cmpuint(queue.bytes, ==, 0);
	close(fds[0]);
}

static void
test_bad_skip(void)
{
	struct consumerd_relay_queue queue;
	guint8 byte = 0;
	struct iovec iov = {&byte, 1};

	consumerd_relay_queue_init(&queue);
	g_assert_cmpint(consumerd_relay_queue_push(&queue, &iov, 1, 2), ==, -EINVAL);
	g_assert_true(consumerd_relay_queue_is_empty(&queue));
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/consumerd-relay-queue/order-and-skip", test_order_and_skip);
	g_test_add_func("/tracectl/consumerd-relay-queue/full-socket-never-waits",
			test_full_socket_never_waits);
	g_test_add_func("/tracectl/consumerd-relay-queue/bad-skip", test_bad_skip);
	return g_test_run();
}
