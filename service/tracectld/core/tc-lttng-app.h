/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

#include "tc-user-limits.h"

/*
 * An application instrumented with LTTng-UST, as tracectld's registry of
 * such applications keeps it (tc-lttng-registry.h). Unlike a TcApp it
 * speaks LTTng's protocol, through liblttng-ust-ctl, on two sockets of
 * its own: the command socket, on which the service asks and the
 * application answers, and the notify socket, on which the application
 * describes what sessions make it record.
 *
 * Both sockets belong to the thread of the application's owner
 * (tc-lttng-apps.c): only that thread sends or receives on them, one
 * command at a time. They are closed when the last reference goes, so a
 * descriptor number can never be reused while a thread still talks on
 * it. Identity (pid, uid, gid) is SO_PEERCRED's, fixed at the connection.
 *
 * Its lock [L] covers the fields so marked; it is a leaf, held for
 * bookkeeping only, never across I/O.
 */

/* LTTng's process names: LTTNG_UST_ABI_PROCNAME_LEN bytes, which need
 * not end in a NUL. */
#define TC_LTTNG_APP_PROCNAME_MAX 16

typedef struct {
	char *name; /* "provider:event" */
	int loglevel;
	char *fields; /* "type name, type name", as tracectl's applications' */
} TcLttngEvent;

typedef enum {
	TC_LTTNG_APP_PAIRING,	 /* command socket registered, no notify socket yet */
	TC_LTTNG_APP_REGISTERED, /* both sockets, register_done sent: listed */
	TC_LTTNG_APP_GONE,	 /* unlinked */
} TcLttngAppState;

typedef struct {
	gint refcount;
	guint64 id; /* unique for the service's life, never reused */
	pid_t pid;
	uid_t uid;
	gid_t gid;
	char procname[TC_LTTNG_APP_PROCNAME_MAX + 1];
	/* When it connected (g_get_real_time()): names its per-PID traces,
	 * as lttng-sessiond names them after its registration. */
	gint64 registered_us;
	guint32 abi_major, abi_minor;
	guint32 bits_per_long;
	int cmd_fd;    /* the owner's thread's */
	int notify_fd; /* the owner's thread's; -1 while pairing */
	/* Its command connection and its place among the owner's LTTng-UST
	 * applications; its notify connection; its listed events. */
	TcUserCharge charge;
	TcUserCharge notify_charge;
	TcUserCharge events_charge;
	/* Held while a command is sent on cmd_fd and its answer awaited,
	 * which only the owner's thread does (tc-lttng-owner.h); never
	 * held while an op_lock is waited for; above [L]. Never taken for
	 * the notify socket, which is served while a command waits (the
	 * application registers its channels and events there before it
	 * answers some commands). */
	GMutex cmd_lock;
	GMutex lock;		 /* [L] */
	TcLttngAppState state;	 /* [L] */
	GPtrArray *events;	 /* [L] TcLttngEvent *, replaced whole by each listing */
	gint64 deadline_us;	 /* pairing: its notify socket must come by then */
} TcLttngApp;

/* A new application on command socket fd (taken), of the peer whose
 * SO_PEERCRED is pid, uid, gid; charge is what its connection holds
 * (taken). */
TcLttngApp *tc_lttng_app_new(int cmd_fd, pid_t pid, uid_t uid, gid_t gid, const TcUserCharge *charge);
TcLttngApp *tc_lttng_app_ref(TcLttngApp *app);
/* The last reference closes both sockets and gives back every charge. */
void tc_lttng_app_unref(TcLttngApp *app);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TcLttngApp, tc_lttng_app_unref)

void tc_lttng_app_event_free(TcLttngEvent *event);

/* A new reference to the events last listed (empty before any). Takes
 * [L]. */
GPtrArray *tc_lttng_app_dup_events(TcLttngApp *app);
/* Replaces the events listed (events taken). Takes [L]. */
void tc_lttng_app_set_events(TcLttngApp *app, GPtrArray *events);
