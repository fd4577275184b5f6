/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

/* The readiness page <rundir>/wait of struct tracectl_wait_page
 * (common/abi/tracectl-abi.h): waking applications that wait for us. */

/* Marks the service ready and wakes every waiting application. */
gboolean tc_wake_ready(const char *rundir, GError **error);
/* Marks the service gone (at exit). NULL-safe no-op before ready. */
void tc_wake_stopping(void);
