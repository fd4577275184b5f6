/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The test applications' --pause: "ready" on stdout, then nothing until
 * SIGUSR1, so that a test can list the application before it records. */
#ifndef APP_PAUSE_H
#define APP_PAUSE_H

#include <signal.h>
#include <stdio.h>

static inline void
app_pause_until_usr1(void)
{
	sigset_t usr1;
	int signal_number;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	printf("ready\n");
	fflush(stdout);
	sigwait(&usr1, &signal_number);
}

#endif /* APP_PAUSE_H */
