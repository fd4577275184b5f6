/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-fd-passing.h"

#include <errno.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

ssize_t
tc_fd_send(int sock, const void *buf, size_t len, const int *fds, size_t nr_fds, int flags)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * TC_FD_PASSING_MAX)];
		struct cmsghdr align;
	} control;
	struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	ssize_t n;

	if (nr_fds > TC_FD_PASSING_MAX)
		return -EINVAL;
	if (nr_fds > 0) {
		struct cmsghdr *cmsg;

		memset(&control, 0, sizeof(control));
		mh.msg_control = control.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nr_fds);
		cmsg = CMSG_FIRSTHDR(&mh);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int) * nr_fds);
		memcpy(CMSG_DATA(cmsg), fds, sizeof(int) * nr_fds);
	}
	do
		n = sendmsg(sock, &mh, MSG_NOSIGNAL | flags);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

size_t
tc_fd_collect(struct msghdr *mh, int *fds, size_t max)
{
	size_t count = 0;

	for (struct cmsghdr *cmsg = CMSG_FIRSTHDR(mh); cmsg; cmsg = CMSG_NXTHDR(mh, cmsg)) {
		size_t n;

		if (cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS)
			continue;
		n = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++, count++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cmsg) + i * sizeof(int), sizeof(int));
			if (count < max)
				fds[count] = fd;
			else
				close(fd);
		}
	}
	return count;
}
