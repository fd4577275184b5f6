/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The field-types application: types-app COUNT [--pause] records COUNT
 * types:scalars events, the i-th with the values types-tp.h derives from
 * i, and "abcdefghij" for its strings (capped at 5 bytes in one field).
 * With --pause it prints "ready" and waits for SIGUSR1 first, so that it
 * can be listed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app-pause.h"

#include "types-tp.h"

int
main(int argc, char **argv)
{
	unsigned int count = argc > 1 ? (unsigned int)atoi(argv[1]) : 1;

	if (argc > 2 && strcmp(argv[2], "--pause") == 0)
		app_pause_until_usr1();
	for (uint32_t i = 0; i < count; i++)
		tracectl_tracepoint(types, scalars, i, "abcdefghij");
	return 0;
}
