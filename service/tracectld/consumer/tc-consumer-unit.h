/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

/* Consumers started as systemd transient units (tc-consumer-unit.c). */

/* Listens on <rundir>/consumer.sock when systemd runs the machine, unless
 * TRACECTL_CONSUMER_LAUNCHER=direct. */
void tc_consumer_unit_init(const char *rundir);
gboolean tc_consumer_unit_available(void);
void tc_consumer_unit_shutdown(void);
/* Starts tracectl-consumer@<uid>.service (or finds it running) and returns
 * its connected command socket, or -1 with error; *pidfd names the
 * consumer process (-1 if it could not be taken). Caller serializes. */
int tc_consumer_unit_start(uid_t uid, pid_t *pid, int *pidfd, GError **error);
