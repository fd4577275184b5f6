/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The kernel benchmark's workload: N getppid() calls, then the seconds
 * they took. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 5000000;
	struct timespec start, end;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid); /* not cached by libc, a real system call each */
	clock_gettime(CLOCK_MONOTONIC, &end);
	printf("%.6f\n", (double)(end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9);
	return 0;
}
