/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

/*
 * LTTng's wait page: a page of POSIX shared memory (shm_name, such as
 * "/lttng-ust-wait-8") on whose first 32-bit word applications that found
 * no session daemon wait with FUTEX_WAIT while it is 0. A session daemon
 * sets it to 1 and wakes them all when it listens, and sets it back to 0
 * when it goes, as lttng-sessiond does, so that they wait passively again
 * instead of polling.
 */

/* Creates or opens the page (root's, writable by root only, readable by
 * all: any user's application may wait on it), sets it and wakes every
 * waiter. */
gboolean tc_lttng_wait_ready(const char *shm_name, GError **error);
/* Sets the page back to 0 and unmaps it. NULL-safe no-op before ready. */
void tc_lttng_wait_stopping(void);
