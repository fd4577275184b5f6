/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

#include "tc-lttng-app.h"

/*
 * The LTTng-UST applications connected to the service, by id, in one
 * table apart from tracectl's own applications (tc-registry.h): they are
 * served by another protocol, and sessions are applied to them by
 * apps/tc-lttng-session.c.
 *
 * The table's lock is held for bookkeeping only, never across I/O; it
 * nests above an application's lock [L]. The table holds one reference
 * to each application. Every function may be called from any thread.
 */

/* Adds app (a new reference) in state TC_LTTNG_APP_PAIRING. */
void tc_lttng_registry_add(TcLttngApp *app);
/* A new reference to the application pairing whose command socket
 * registered for pid and uid, or NULL. */
TcLttngApp *tc_lttng_registry_find_pairing(pid_t pid, uid_t uid);
/* Marks app registered (listed from now on); FALSE when it is gone. */
gboolean tc_lttng_registry_publish(TcLttngApp *app);
/* A new reference to the application of id, or NULL. */
TcLttngApp *tc_lttng_registry_find(guint64 id);
/* Unlinks app (TC_LTTNG_APP_GONE) and drops the table's reference;
 * FALSE when it was not linked. */
gboolean tc_lttng_registry_remove(TcLttngApp *app);
/* New references to the registered applications of uid (all when all). */
GPtrArray *tc_lttng_registry_list(uid_t uid, gboolean all);
/* New references to the applications still pairing at now_us past their
 * deadline. */
GPtrArray *tc_lttng_registry_list_expired(gint64 now_us);
/* Unlinks every application (the service stops). */
void tc_lttng_registry_clear(void);
