/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracectl-error-app COUNT CODE [ERRORS [INTERVAL_US]]: writes COUNT
 * app:request events, then ERRORS (default 1) app:error_io whose code is
 * CODE, INTERVAL_US apart, then prints "done". The events are written as soon as main runs: registration
 * completed before it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "error-tp.h"

int
main(int argc, char **argv)
{
	unsigned long count, errors = 1, interval_us = 0;

	if (argc < 3 || argc > 5) {
		fprintf(stderr, "Usage: tracectl-error-app COUNT CODE [ERRORS [INTERVAL_US]]\n");
		return 2;
	}
	count = strtoul(argv[1], NULL, 10);
	if (argc >= 4)
		errors = strtoul(argv[3], NULL, 10);
	if (argc == 5)
		interval_us = strtoul(argv[4], NULL, 10);
	for (unsigned long i = 0; i < count; i++)
		tracectl_tracepoint(app, request, i);
	for (unsigned long i = 0; i < errors; i++) {
		tracectl_tracepoint(app, error_io, atoi(argv[2]), "disk full");
		if (interval_us)
			usleep(interval_us);
	}
	printf("done\n");
	return 0;
}
