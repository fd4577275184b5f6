/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

/*
 * A session's kernel domain, as the session holds it. The session
 * (tc-session.h) embeds it, so its definition is in core/; the kernel
 * layer (kernel/tc-session-kernel.c, kernel/tc-session-kernel-own.c)
 * changes it.
 */

/* A dynamic probe of the kernel domain (kprobe, kretprobe, uprobe). */
typedef struct {
	guint32 kind; /* TC_KERNEL_PROBE_* */
	char *name;
	char *location;
} TcKernelProbe;
