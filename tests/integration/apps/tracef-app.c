/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * printf-style events (tracectl/tracef.h): tracef-app COUNT [--pause]
 * records COUNT tracectl_tracef messages, one message longer than the
 * stack buffer, one tracectl_tracelog message at each log level and two
 * at levels out of range; then prints how many times the arguments of
 * the tracectl_tracef() calls were evaluated. With --pause it prints
 * "ready" and waits for SIGUSR1 first, so that it can be listed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app-pause.h"

#include <tracectl/tracef.h>

/* Longer than TRACECTL_TRACEF_STACK_SIZE, to take the heap path. */
#define LONG_MESSAGE 2000

static unsigned int evaluations;

static int
evaluated(int value)
{
	evaluations++;
	return value;
}

static void
emit_levels(void)
{
	for (int level = TRACECTL_LOGLEVEL_EMERG; level <= TRACECTL_LOGLEVEL_DEBUG; level++)
		tracectl_tracelog(level, "level %d", level);
	tracectl_tracelog(TRACECTL_LOGLEVEL_DEBUG + 1, "level %d", TRACECTL_LOGLEVEL_DEBUG + 1);
	tracectl_tracelog(-1, "level %d", -1);
}

int
main(int argc, char **argv)
{
	static char long_text[LONG_MESSAGE + 1];
	int count = argc > 1 ? atoi(argv[1]) : 1;

	if (argc > 2 && strcmp(argv[2], "--pause") == 0)
		app_pause_until_usr1();
	for (int i = 0; i < count; i++)
		tracectl_tracef("message %d of %s, %.2f", evaluated(i), "tracef-app", i * 0.25);
	memset(long_text, 'x', LONG_MESSAGE);
	tracectl_tracef("long %s end", long_text);
	emit_levels();
	printf("evaluations %u\n", evaluations);
	return 0;
}
