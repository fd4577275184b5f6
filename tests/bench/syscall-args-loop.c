/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The system call arguments' workload, for integration-kernel-own-syscall-args
 * and the syscall-args benchmark.
 *
 *   syscall-args-loop calls FILE READ WRITE PORT
 *     opens FILE, reads READ bytes of it, writes WRITE bytes to /dev/null,
 *     makes a pipe (pipe2), connects a TCP socket to 127.0.0.1:PORT and
 *     prints "pipe R W" and "read N";
 *   syscall-args-loop loop FILE N
 *     N times openat(FILE), read() of up to 64 bytes, close(), then the
 *     seconds they took.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int
calls(const char *file, size_t to_read, size_t to_write, int port)
{
	char *buf = calloc(1, to_read > to_write ? to_read : to_write);
	struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	int fd = openat(AT_FDCWD, file, O_RDONLY), out = open("/dev/null", O_WRONLY), fds[2], sock;
	ssize_t got, put;

	if (!buf || fd < 0 || out < 0 || pipe2(fds, O_CLOEXEC) < 0)
		return 1;
	got = read(fd, buf, to_read);
	put = write(out, buf, to_write);
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sock = socket(AF_INET, SOCK_STREAM, 0);
	if (got < 0 || put != (ssize_t)to_write || sock < 0 ||
	    connect(sock, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		return 1;
	printf("pipe %d %d\nread %zd\n", fds[0], fds[1], got);
	close(sock);
	close(fd);
	close(out);
	free(buf);
	return 0;
}

static int
loop(const char *file, long n)
{
	struct timespec start, end;
	char buf[64];

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (long i = 0; i < n; i++) {
		int fd = openat(AT_FDCWD, file, O_RDONLY);

		if (fd < 0 || read(fd, buf, sizeof(buf)) < 0)
			return 1;
		close(fd);
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	printf("%.6f\n", (double)(end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 6 && strcmp(argv[1], "calls") == 0)
		return calls(argv[2], strtoul(argv[3], NULL, 10), strtoul(argv[4], NULL, 10),
			     atoi(argv[5]));
	if (argc == 4 && strcmp(argv[1], "loop") == 0)
		return loop(argv[2], strtol(argv[3], NULL, 10));
	fprintf(stderr, "usage: %s calls FILE READ WRITE PORT | loop FILE N\n", argv[0]);
	return 2;
}
