/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spawn-timer N PROGRAM: runs PROGRAM N times, one after the other, and
 * prints the median time in microseconds from just before fork() to the
 * first instruction of its main() (which PROGRAM prints). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int
compare(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[1]) : 0;
	long long *samples = calloc(n > 0 ? n : 1, sizeof(*samples));

	if (n <= 0)
		return 2;
	for (int i = 0; i < n; i++) {
		struct timespec before;
		char line[64] = {0};
		int pipe_fds[2];
		FILE *in;
		pid_t pid;

		if (pipe(pipe_fds) < 0)
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &before);
		pid = fork();
		if (pid == 0) {
			dup2(pipe_fds[1], 1);
			execv(argv[2], argv + 2);
			_exit(127);
		}
		close(pipe_fds[1]);
		in = fdopen(pipe_fds[0], "r");
		if (!fgets(line, sizeof(line), in))
			return 1;
		fclose(in);
		waitpid(pid, NULL, 0);
		samples[i] = atoll(line) - ((long long)before.tv_sec * 1000000000LL + before.tv_nsec);
	}
	qsort(samples, n, sizeof(*samples), compare);
	printf("%.1f\n", samples[n / 2] / 1000.0);
	return 0;
}
