/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* lttng-burst EVENTS: an LTTng-UST application that records EVENTS
 * bench:event events in bursts of 1000, a millisecond apart, so that a
 * consumer that keeps up loses none: what the consumer spends on them
 * is then the same work for every consumer compared. */
#include <stdlib.h>
#include <time.h>

#define TRACEPOINT_DEFINE
#define TRACEPOINT_CREATE_PROBES
#include "reg-app-lttng-tp.h"

#define BURST 1000

int
main(int argc, char **argv)
{
	long events = argc > 1 ? atol(argv[1]) : 0;
	const struct timespec pause = {.tv_sec = 0, .tv_nsec = 1000000};

	if (events <= 0)
		return 2;
	for (long i = 0; i < events; i++) {
		tracepoint(bench, event, (uint64_t)i, (uint64_t)events);
		if (i % BURST == BURST - 1)
			nanosleep(&pause, NULL);
	}
	return 0;
}
