/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

#include "config.h"

/*
 * Applications instrumented with LTTng-UST, served the way lttng-sessiond
 * serves them: on LTTng's global application socket and wait page. This
 * registers and lists them, and has sessions applied to them
 * (docs/lttng-ust-pipeline.md).
 */

/* LTTng-UST 2.13's global paths (its ABI's socket and wait page). */
#define TC_LTTNG_APPS_GLOBAL_SOCKET "/var/run/lttng/lttng-ust-sock-8"
#define TC_LTTNG_APPS_GLOBAL_WAIT "/lttng-ust-wait-8"
/* lttng-sessiond's default application socket timeout: every send and
 * receive on an application's sockets is bounded by it. */
#define TC_LTTNG_APPS_SOCKET_TIMEOUT_MS 5000
/* How long a listing waits for the applications' owners' threads to list
 * them again. */
#define TC_LTTNG_APPS_REFRESH_TIMEOUT_MS 2000
/* How long a registration whose session is busy with an operation
 * pauses before it is queued again behind the operation's works. */
#define TC_LTTNG_APPS_REQUEUE_PAUSE_MS 5

#if TRACECTL_HAVE_LTTNG_UST

/* Listens on socket_path and wakes the applications waiting on the wait
 * page wait_shm, unless another session daemon answers on socket_path.
 * Either way, tc_lttng_apps_dup_status() says what came of it. */
void tc_lttng_apps_start(const char *socket_path, const char *wait_shm);
/* Stops listening, lets the waiting applications wait again, drops every
 * application. NULL-safe: a no-op when not started. */
void tc_lttng_apps_stop(void);
/* Has the registered applications of uid (all when all) listed again by
 * their owners' threads, waiting for them at most
 * TC_LTTNG_APPS_REFRESH_TIMEOUT_MS. Any thread but the main loop's. */
void tc_lttng_apps_refresh(uid_t uid, gboolean all);
/* One sentence for the status: whether LTTng-UST applications are
 * served, and if not, why. */
char *tc_lttng_apps_dup_status(void);

#else

static inline void
tc_lttng_apps_start(const char *socket_path, const char *wait_shm)
{
}
static inline void
tc_lttng_apps_stop(void)
{
}
static inline void
tc_lttng_apps_refresh(uid_t uid, gboolean all)
{
}
static inline char *
tc_lttng_apps_dup_status(void)
{
	return g_strdup("not served: tracectld was built without liblttng-ust-ctl");
}

#endif
