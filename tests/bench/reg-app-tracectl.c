/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The registration benchmark's application, instrumented with tracectl:
 * prints CLOCK_MONOTONIC (ns) first thing in main, then waits for stdin
 * to close when given "wait". */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TRACECTL_CREATE_PROBES
#include <tracectl/tracepoint.h>

TRACECTL_EVENT(bench, event,
	TRACECTL_ARGS(uint64_t, a, uint64_t, b),
	TRACECTL_FIELDS(
		tracectl_field_integer(uint64_t, a, a),
		tracectl_field_integer(uint64_t, b, b)))

int
main(int argc, char **argv)
{
	struct timespec now;
	char c;

	clock_gettime(CLOCK_MONOTONIC, &now);
	printf("%lld\n", (long long)now.tv_sec * 1000000000LL + now.tv_nsec);
	fflush(stdout);
	tracectl_tracepoint(bench, event, 1, 2);
	if (argc > 1 && strcmp(argv[1], "wait") == 0)
		while (read(0, &c, 1) > 0)
			;
	return 0;
}
