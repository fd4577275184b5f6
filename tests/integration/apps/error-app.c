/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tracectl-error-app COUNT CODE: writes COUNT app:request events, then one
 * app:error_io whose code is CODE, then prints "done". The events are
 * written as soon as main runs: registration completed before it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "error-tp.h"

int
main(int argc, char **argv)
{
	unsigned long count;

	if (argc != 3) {
		fprintf(stderr, "Usage: tracectl-error-app COUNT CODE\n");
		return 2;
	}
	count = strtoul(argv[1], NULL, 10);
	for (unsigned long i = 0; i < count; i++)
		tracectl_tracepoint(app, request, i);
	tracectl_tracepoint(app, error_io, atoi(argv[2]), "disk full");
	printf("done\n");
	return 0;
}
