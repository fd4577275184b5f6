/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The enumerations application: enums-app COUNT [--pause] records, for i
 * from 0 to COUNT - 1, enums:transition with from = i, to = 255 - i,
 * change = (i - 4) * 100 and after = i, then enums:status with state =
 * i - 1 and load = i / 2 (test-field-enums.py derives the labels). With
 * --pause it prints "ready" and waits for SIGUSR1 first, so that it can
 * be listed.
 */
#include <stdlib.h>
#include <string.h>

#include "app-pause.h"

#include "enums-tp.h"

int
main(int argc, char **argv)
{
	unsigned int count = argc > 1 ? (unsigned int)atoi(argv[1]) : 1;

	if (argc > 2 && strcmp(argv[2], "--pause") == 0)
		app_pause_until_usr1();
	for (uint32_t i = 0; i < count; i++) {
		tracectl_tracepoint(enums, transition, i, 255 - i, ((int64_t)i - 4) * 100, i);
		tracectl_tracepoint(enums, status, (int32_t)i - 1, (float)i / 2);
	}
	return 0;
}
