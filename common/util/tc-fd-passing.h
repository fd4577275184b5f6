/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Descriptor passing over AF_UNIX sockets (SCM_RIGHTS), the one copy that
 * the library, the consumer and the service use. Plain libc, no GLib, no
 * locks: safe in the library's listener thread.
 */
#ifndef TC_FD_PASSING_H
#define TC_FD_PASSING_H

#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

/* The most descriptors one message can carry: the kernel's SCM_MAX_FD. */
#define TC_FD_PASSING_MAX 253

/*
 * Sends len bytes of buf and nr_fds descriptors (at most
 * TC_FD_PASSING_MAX; none when nr_fds is 0) in one message, with
 * MSG_NOSIGNAL and flags (MSG_DONTWAIT for a peer that must never make
 * us wait), retrying on EINTR. Returns the bytes sent or -errno.
 */
ssize_t tc_fd_send(int sock, const void *buf, size_t len, const int *fds, size_t nr_fds,
		   int flags);

/*
 * Takes the descriptors of every SCM_RIGHTS message in mh: the first max
 * go to fds in order, the others are closed, so that a peer cannot make
 * us leak descriptors by sending more than expected. Returns how many
 * were received in total (more than max tells the caller the peer sent
 * too many).
 */
size_t tc_fd_collect(struct msghdr *mh, int *fds, size_t max);

#endif /* TC_FD_PASSING_H */
