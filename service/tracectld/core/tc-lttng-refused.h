/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

/*
 * LTTng-UST applications the service cannot serve (another ABI major,
 * another word size or byte order): refused at registration, as
 * lttng-sessiond refuses them, and kept here while their process lives so
 * that `tracectl list -u` shows them and why (lttng-sessiond only logs
 * it). A process is known by its pid and start time: a pid reused by
 * another process is not taken for it. At most TC_LTTNG_REFUSED_MAX are
 * kept, the oldest forgotten first, and one uid may hold at most
 * TC_LTTNG_REFUSED_PER_UID_MAX of them: another user's refused programs
 * never push one's own out. Any thread.
 */

#define TC_LTTNG_REFUSED_MAX 256
#define TC_LTTNG_REFUSED_PER_UID_MAX 16

typedef struct {
	pid_t pid;
	uid_t uid;
	char *procname;
	char *why;
} TcLttngRefused;

/* Keeps (or updates) the refusal of process pid of uid, refused for why;
 * FALSE when it was known already for the same reason (the application
 * retries its registration every few seconds: log it once). */
gboolean tc_lttng_refused_add(pid_t pid, uid_t uid, const char *why);
/* Copies of the refusals of uid (of all when all) whose process still
 * runs; those of processes gone are forgotten. */
GPtrArray *tc_lttng_refused_list(uid_t uid, gboolean all);
void tc_lttng_refused_clear(void);
