/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

#include "tc-tracker.h"

/*
 * A session's kernel domain: its events, probes, geometry, tracker and
 * the state of its tracefs instance and own-process tier. The session
 * (tc-session.h) embeds it by value, so its definition is in core/, below
 * the session; the kernel layer (kernel/tc-session-kernel.c,
 * kernel/tc-session-kernel-own.c) changes it, and so do two session
 * operations above it: the kernel channel's geometry and disabling
 * (session/tc-session-op-kernel.c) and its tracker
 * (session/tc-session-track.c).
 */

/* A dynamic probe of the kernel domain (kprobe, kretprobe, uprobe). */
typedef struct {
	guint32 kind; /* TC_KERNEL_PROBE_* */
	char *name;
	char *location;
} TcKernelProbe;

/* What the own-process tier records: event classes (TC_KERNEL_OWN_*), and
 * the system calls named for their entries and exits, bit n of word n / 64
 * for number n (tc-kernel-own.h's bitmaps). */
typedef struct {
	guint32 events;
	guint64 syscall_entry[8];
	guint64 syscall_exit[8];
} TcKernelOwnEvents;

/* The kernel domain, [op_lock] (tc-session.h); what the Channels property
 * shows (events, probes, contexts, geometry) is written with [S] held too. */
typedef struct {
	GPtrArray *events; /* "system:event" patterns */
	/* pattern of events -> its tracefs filter, for those with one */
	GHashTable *filters;
	GPtrArray *probes; /* TcKernelProbe * */
	guint32 buffer_kb; /* per CPU, 0: the kernel's default */
	/* As EnableChannel "kernel" gave it, 0 and 0: the kernel's default. */
	guint64 subbuf_size;
	guint32 num_subbuf;
	guint32 contexts;     /* TC_CONSUMER_KCTX_* */
	TcTracker tracker;    /* pids the tracefs instance records */
	gboolean instance;    /* the helper made the tracefs instance */
	gboolean trace;	      /* the consumer writes <output>/kernel */
	gboolean disabled;    /* disable-channel -k: the instance is off */
	guint64 buffer_bytes; /* [op_lock] counted in the session's charge */
	/* The own-process tier, [op_lock] (tc-session-kernel-own.c). */
	TcKernelOwnEvents own_events;
	gboolean own_charged; /* counted in the session's charge */
	gboolean own_running; /* the helper's programs are attached */
} TcKernelDomain;
