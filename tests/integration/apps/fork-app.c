/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An application that forks after it registered:
 *
 *   tracectl-fork-app COUNT
 *
 * emits COUNT stress:thread events with thread 0, forks; the child emits
 * COUNT with thread 1 from its first instruction after fork() and exits;
 * the parent then emits COUNT with thread 2. Prints "child=PID
 * fork_child_ms=T", T being how long fork() took to return in the child.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stress-tp.h"

static double
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void
emit(uint32_t thread, long count)
{
	for (long i = 0; i < count; i++)
		tracectl_tracepoint(stress, thread, thread, (uint64_t)i);
}

int
main(int argc, char **argv)
{
	long count = argc == 2 ? strtol(argv[1], NULL, 10) : -1;
	int pipe_fds[2], status = 0;
	double before, child_ms = -1;
	pid_t child;

	if (count < 0 || pipe(pipe_fds) < 0) {
		fprintf(stderr, "usage: tracectl-fork-app COUNT\n");
		return 2;
	}
	emit(0, count);
	before = now_ms();
	child = fork();
	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (child == 0) {
		double took = now_ms() - before;

		emit(1, count);
		if (write(pipe_fds[1], &took, sizeof(took)) != sizeof(took))
			_exit(1);
		_exit(0);
	}
	if (read(pipe_fds[0], &child_ms, sizeof(child_ms)) != sizeof(child_ms) ||
	    waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		fprintf(stderr, "the child failed\n");
		return 1;
	}
	emit(2, count);
	printf("child=%d fork_child_ms=%.3f\n", (int)child, child_ms);
	return 0;
}
