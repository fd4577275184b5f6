/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-consumer.h"
#include "tc-session.h"

/* The own-process kernel tier of a session (tc-session-kernel-own.c). All
 * but the first with op_lock held, from worker threads. */
/* The allow-listed events a pattern names, into *events (emptied first):
 * event classes, and the system calls of syscalls:sys_enter_NAME and
 * sys_exit_NAME patterns (globs of them, LTTng's syscall_entry_NAME), by
 * this architecture's numbers. FALSE with PermissionDenied naming an
 * event the tier cannot scope, NotFound for a system call the machine's
 * table does not have. */
gboolean tc_session_kernel_own_parse(const char *pattern, TcKernelOwnEvents *events,
				     GError **error);
gboolean tc_session_kernel_own_event_locked(TcSession *session, const char *pattern,
					    gboolean enable, GError **error);
gboolean tc_session_kernel_own_start_locked(TcSession *session, TcConsumer *consumer,
					    GError **error);
gboolean tc_session_kernel_own_stop_locked(TcSession *session, GError **error);
void tc_session_kernel_own_destroyed_locked(TcSession *session);
