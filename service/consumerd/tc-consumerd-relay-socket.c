/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The relay connection's sockets: connecting to the relay's ports without
 * waiting past a deadline, and whole sends and receives, each bounded.
 */
#include "tc-consumerd-relay.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "tc-consumerd-log.h"
#include "tc-consumerd-relay-private.h"
#include "tc-consumerd-relay-wire.h"
#include "tc-consumerd-tunnel.h"
#include "tc-rb.h"

/* A tunnel's socket that refuses a connection while ssh is between its
 * bind() and listen() is asked again this often, within the deadline. */
#define TUNNEL_RETRY_NS 2000000L

int
tc_consumerd_relay_socket_set_timeouts(int fd)
{
	struct timeval tv = {.tv_sec = CONSUMERD_RELAY_IO_TIMEOUT_MS / 1000,
			     .tv_usec = (CONSUMERD_RELAY_IO_TIMEOUT_MS % 1000) * 1000};
	int one = 1;

	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		return -errno;
	/* Commands and indexes are small and each one waits for its peer. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return 0;
}

/* The address ai with port. Returns false when it does not fit. */
static bool
address_with_port(const struct addrinfo *ai, uint16_t port, struct sockaddr_storage *address)
{
	if (ai->ai_addrlen > sizeof(*address))
		return false;
	memcpy(address, ai->ai_addr, ai->ai_addrlen);
	if (ai->ai_family == AF_INET)
		((struct sockaddr_in *)address)->sin_port = htons(port);
	else if (ai->ai_family == AF_INET6)
		((struct sockaddr_in6 *)address)->sin6_port = htons(port);
	else
		return false;
	return true;
}

/* Starts a connection to ai's address on port without waiting for it.
 * Returns the non-blocking socket or -errno. */
int
tc_consumerd_relay_socket_connect_start(const struct addrinfo *ai, uint16_t port)
{
	struct sockaddr_storage address;
	int fd;

	if (!address_with_port(ai, port, &address))
		return -EAFNOSUPPORT;
	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&address, ai->ai_addrlen) < 0 && errno != EINPROGRESS) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* Starts a connection to the tunnel's socket of the control port (or of
 * the data port) without waiting. Returns the non-blocking socket or
 * -errno: -ENOTCONN when there is no tunnel. */
int
tc_consumerd_relay_socket_connect_tunnel_start(const struct tc_consumerd_relay *relay,
					       bool is_data)
{
	struct sockaddr_un address = {.sun_family = AF_UNIX};
	int fd;

	if (!relay->tunnel)
		return -ENOTCONN;
	snprintf(address.sun_path, sizeof(address.sun_path), "%s",
		 tc_consumerd_tunnel_path(relay->tunnel, is_data));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&address, sizeof(address)) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* Connects to the tunnel's socket before deadline, blocking from then
 * on, with the relay's timeouts. Returns the fd or -errno. */
static int
connect_tunnel(struct tc_consumerd_relay *relay, bool is_data, uint64_t deadline)
{
	const struct timespec interval = {.tv_sec = 0, .tv_nsec = TUNNEL_RETRY_NS};
	int fd;

	while ((fd = tc_consumerd_relay_socket_connect_tunnel_start(relay, is_data)) ==
		   -ECONNREFUSED &&
	       tc_rb_clock_now() < deadline)
		nanosleep(&interval, NULL);
	if (fd < 0)
		return fd;
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0 ||
	    tc_consumerd_relay_socket_set_timeouts(fd) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* Connects to one address within timeout_ms. Returns the fd or -errno. */
static int
connect_address(const struct addrinfo *ai, uint16_t port, int timeout_ms)
{
	struct pollfd pfd;
	socklen_t len = sizeof(int);
	int fd, err = 0, ret;

	fd = tc_consumerd_relay_socket_connect_start(ai, port);
	if (fd < 0)
		return fd;
	pfd = (struct pollfd){.fd = fd, .events = POLLOUT};
	do
		ret = poll(&pfd, 1, timeout_ms);
	while (ret < 0 && errno == EINTR);
	if (ret == 0) {
		err = -ETIMEDOUT;
		goto fail;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err != 0) {
		err = err ? -err : -errno;
		goto fail;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0 ||
	    tc_consumerd_relay_socket_set_timeouts(fd) < 0) {
		err = -errno;
		goto fail;
	}
	return fd;

fail:
	close(fd);
	return err;
}

/* The resolved address at index (wrapping), NULL when none. */
const struct addrinfo *
tc_consumerd_relay_socket_address_at(const struct tc_consumerd_relay *relay, unsigned index,
				     unsigned *count)
{
	const struct addrinfo *list =
	    relay->resolved ? tc_consumerd_resolve_addresses(relay->resolved) : NULL;
	unsigned n = 0;

	for (const struct addrinfo *ai = list; ai; ai = ai->ai_next)
		n++;
	*count = n;
	if (n == 0)
		return NULL;
	index %= n;
	while (index-- > 0)
		list = list->ai_next;
	return list;
}

/* What one connection may take of what is left before deadline: at most
 * the connect timeout, 0 once it passed. */
static int
connect_budget_ms(uint64_t deadline)
{
	uint64_t now = tc_rb_clock_now();
	uint64_t left_ms = now < deadline ? (deadline - now) / 1000000u : 0;

	return left_ms < CONSUMERD_RELAY_CONNECT_TIMEOUT_MS ? (int)left_ms
							   : CONSUMERD_RELAY_CONNECT_TIMEOUT_MS;
}

/* Connects to port, trying the resolved addresses from address_next on,
 * each for the connect timeout at most, all before deadline (consumer
 * clock). The address that answered is the next to try. */
int
tc_consumerd_relay_socket_connect_port(struct tc_consumerd_relay *relay, uint16_t port,
				       uint64_t deadline)
{
	unsigned count = 0;
	int fd = -EHOSTUNREACH;

	if (tc_consumerd_relay_is_ssh(relay))
		return connect_tunnel(relay, false, deadline);
	tc_consumerd_relay_socket_address_at(relay, 0, &count);
	for (unsigned i = 0; i < count; i++) {
		const struct addrinfo *ai =
		    tc_consumerd_relay_socket_address_at(relay, relay->address_next, &count);
		int budget_ms = connect_budget_ms(deadline);

		if (budget_ms == 0)
			return fd == -EHOSTUNREACH ? -ETIMEDOUT : fd;
		fd = connect_address(ai, port, budget_ms);
		if (fd >= 0)
			return fd;
		relay->address_next = (relay->address_next + 1) % count;
	}
	return fd;
}

/* Connects the data port at the address the control connection reached
 * (address_next: tc_consumerd_relay_socket_connect_port() and the probe leave it there), before
 * deadline: the two connections of a session go to one relay daemon,
 * even behind a name with several addresses. */
int
tc_consumerd_relay_socket_connect_data_port(struct tc_consumerd_relay *relay, uint64_t deadline)
{
	unsigned count;
	const struct addrinfo *ai =
	    tc_consumerd_relay_socket_address_at(relay, relay->address_next, &count);
	int budget_ms = connect_budget_ms(deadline);

	if (tc_consumerd_relay_is_ssh(relay))
		return connect_tunnel(relay, true, deadline);
	if (ai == NULL)
		return -EHOSTUNREACH;
	if (budget_ms == 0)
		return -ETIMEDOUT;
	return connect_address(ai, relay->out.data_port, budget_ms);
}

/* Sends the whole iovec by deadline (consumer clock; 0: none), however
 * slowly the peer reads. Each blocking sendmsg() ends within the socket's
 * send timeout (CONSUMERD_RELAY_IO_TIMEOUT_MS: EAGAIN when nothing went),
 * so the deadline is overshot by one timeout at most; a peer that takes a
 * little each time, which the timeout alone would let go on for ever,
 * stops at the deadline. */
int
tc_consumerd_relay_socket_send_all_by(int fd, struct iovec *iov, int iovcnt, uint64_t deadline)
{
	while (iovcnt > 0) {
		struct msghdr mh = {.msg_iov = iov, .msg_iovlen = (size_t)iovcnt};
		ssize_t n;

		if (deadline && tc_rb_clock_now() >= deadline)
			return -ETIMEDOUT;
		n = sendmsg(fd, &mh, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		while (iovcnt > 0 && (size_t)n >= iov->iov_len) {
			n -= (ssize_t)iov->iov_len;
			iov++;
			iovcnt--;
		}
		if (iovcnt > 0) {
			iov->iov_base = (char *)iov->iov_base + n;
			iov->iov_len -= (size_t)n;
		}
	}
	return 0;
}

/* Sends the whole iovec; a timeout or a short write breaks the stream. */
int
tc_consumerd_relay_socket_send_all(int fd, struct iovec *iov, int iovcnt)
{
	return tc_consumerd_relay_socket_send_all_by(fd, iov, iovcnt, 0);
}

/* Receives len bytes before deadline (consumer clock): a peer that
 * trickles a reply gets no more time than one that sends nothing, which
 * the socket's own timeout, renewed by every byte, would not ensure. */
int
tc_consumerd_relay_socket_recv_all(int fd, void *buf, size_t len, uint64_t deadline)
{
	size_t done = 0;

	while (done < len) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		uint64_t now = tc_rb_clock_now();
		ssize_t n;
		int ready;

		if (now >= deadline)
			return -ETIMEDOUT;
		ready = poll(&pfd, 1, (int)((deadline - now + 999999u) / 1000000u));
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready < 0)
			return -errno;
		if (ready == 0)
			return -ETIMEDOUT;
		n = recv(fd, (char *)buf + done, len - done, MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ECONNRESET;
		done += (size_t)n;
	}
	return 0;
}

/* When a reply read now must have come: the exchange's end, or the I/O
 * timeout from now. */
uint64_t
tc_consumerd_relay_socket_reply_deadline(const struct tc_consumerd_relay *relay)
{
	return relay->exchange_end ? relay->exchange_end
				   : tc_rb_clock_now() + CONSUMERD_RELAY_IO_TIMEOUT_MS * 1000000ull;
}

int
tc_consumerd_relay_socket_recv_reply(struct tc_consumerd_relay *relay, void *buf, size_t len)
{
	return tc_consumerd_relay_socket_recv_all(relay->control_fd, buf, len,
						  tc_consumerd_relay_socket_reply_deadline(relay));
}

