/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>
#include <urcu.h>
#include <urcu/rculfhash.h>

#include "tc-tracker.h"
#include "tc-user-limits.h"
#include "tracectl-abi.h"

/*
 * A registered application: what it described of its events, what it was
 * told of each session (its shadow copies) and the commands it has yet
 * to answer. Its lock [A] covers the fields so marked and every message
 * sent to it; it nests below a session's lock, and cgroup_lock is a leaf
 * below every lock (tc-registry.h gives the whole order). The registry
 * indexes it by pid and by socket (tc-registry.h).
 */

typedef struct _TcApp TcApp;

/* An enumeration the application described (TRACECTL_MSG_ENUM), in one
 * or more messages. It lives as long as its application, whose events'
 * enumeration fields point at it. */
typedef struct {
	char name[TRACECTL_ABI_EVENT_NAME_MAX];
	guint nr_entries;  /* announced */
	guint nr_received; /* so far: complete once nr_entries */
	/* Once complete: a digest of its name and entries, so that events of
	 * the same name and fields share a CTF id across applications only
	 * when their enumerations say the same (tc_app_event_key()). */
	char *digest;
	struct tracectl_abi_enum_entry entries[]; /* nr_entries of them */
} TcAppEnum;

/* An application context the application registered (APP_CONTEXT). */
typedef struct {
	char name[TRACECTL_ABI_APP_CONTEXT_NAME_MAX]; /* "provider:name" */
	guint32 type; /* the tag it declares, TRACECTL_ABI_APP_CONTEXT_* */
} TcAppContext;

typedef struct {
	char name[TRACECTL_ABI_EVENT_NAME_MAX];
	int loglevel;
	char *signature; /* "type name, type name", for listings and ids */
	/* The enumeration of each field (NULL but for enumeration fields), or
	 * NULL when the event has none: the application's, complete. */
	const TcAppEnum **enums;
	guint nr_fields;
	struct tracectl_abi_field fields[]; /* nr_fields of them */
} TcAppEvent;

typedef enum {
	TC_APP_REGISTERING, /* handshake in a registration worker */
	TC_APP_REGISTERED,  /* published */
	TC_APP_DEAD,	    /* socket closed, unlinked */
} TcAppState;

struct _TcApp {
	gint refcount;
	int fd;
	pid_t pid; /* from SO_PEERCRED */
	uid_t uid;
	gid_t gid;
	/* pid, uid, gid and their values in the application's namespaces,
	 * fixed at the connection, for the sessions' trackers. */
	TcProcessIds ids;
	/* Its control group, from the kernel (NULL when unknown), for the
	 * units sessions track: read when it connects, and again while a
	 * session that tracks a unit reaches it (tc-unit-watch.h). Read and
	 * written only under cgroup_lock, a leaf below every other lock, since
	 * its readers hold the lock of some session and not [A]. */
	char *cgroup;
	GMutex cgroup_lock;
	char procname[TRACECTL_ABI_PROCNAME_MAX + 1];
	guint tracer_major, tracer_minor;
	guint abi_version;   /* REGISTER's, TRACECTL_ABI_VERSION_MIN.. */
	gboolean is_greeted; /* REGISTER received */
	/* Its connection and event descriptions, counted against the limits
	 * of its accountable user (tc-peer-identity.h) until it is freed. */
	TcUserCharge charge;
	GMutex lock;	   /* [A] */
	TcAppState state;  /* [A] */
	GPtrArray *events; /* [A] TcAppEvent *, by application index */
	/* [A] TcAppEnum *, by application index; freed after the events */
	GPtrArray *enums;
	/* [A] TcAppContext, by application index, at most
	 * TRACECTL_ABI_APP_CONTEXTS_MAX (version 6 on) */
	GArray *app_contexts;
	guint batch_start; /* [A] index of the first event of the open batch */
	guint32 next_seq;  /* [A] */
	/* [A] It let an acknowledgement deadline pass: commands are still
	 * sent, but nobody waits for its answers until it answers one sent
	 * from unresponsive_seq on (it caught up). */
	gboolean is_unresponsive;
	guint32 unresponsive_seq; /* [A] */
	GHashTable *sessions;	  /* [A] session id -> TcAppSessionState *, or NULL */
	/* [A] notifier handle -> set of event indexes enabled in it, or NULL
	 * (tc-notifier.c) */
	GHashTable *notifiers;
	GHashTable *pending; /* [A] seq -> TcAckWaiter *, or NULL */
	/* [A] EVENTS_DONE answers waiting for a metadata flush: while any
	 * does, later answers queue behind them, so that batches are
	 * answered in order (tc_app_sync_all_sessions()). */
	guint answers_deferred;

	struct cds_lfht_node pid_node;
	struct cds_lfht_node fd_node;
	struct rcu_head rcu_head;
};

/* The shadow copy of one session in one application. */
typedef struct {
	gboolean active;
	GHashTable *channels_sent; /* channel handles */
	GHashTable *enabled;	   /* "<channel handle>:<event index>" */
	/* The filter each "<channel handle>:<event index>" has in the
	 * application, a GBytes; none when missing. */
	GHashTable *filters;
} TcAppSessionState;

TcApp *tc_app_new(int fd, pid_t pid, uid_t uid, gid_t gid);
TcApp *tc_app_ref(TcApp *app);
void tc_app_unref(TcApp *app);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TcApp, tc_app_unref)
void tc_app_event_free(TcAppEvent *event);
void tc_app_enum_free(TcAppEnum *enumeration);
/* An application context's declared type by name: "int64", "uint64" or
 * "double" (as it was checked at registration). */
const char *tc_app_context_type_name(guint32 type);
/* What makes an event the same in every application of a user, so that
 * they share its CTF id in a channel: its name, its fields' signature and
 * the digests of its enumerations. Freed by the caller. */
char *tc_app_event_key(const TcAppEvent *event);

/* Whether app's control group is unit_cgroup or below it. Any lock held
 * or none (cgroup_lock is a leaf). */
gboolean tc_app_in_cgroup(const TcApp *app, const char *unit_cgroup);
/* Replaces app's control group with cgroup (taken); TRUE when it changed.
 * Any lock held or none. */
gboolean tc_app_set_cgroup(TcApp *app, char *cgroup);
/* A copy of app's control group, or NULL. */
char *tc_app_dup_cgroup(const TcApp *app);

/* [A] held: app answered command seq; it is responsive again once it
 * answers a command sent after it was marked. */
void tc_app_answered_locked(TcApp *app, guint32 seq);
/* [A] held: app let a deadline pass. Marked until it catches up, so that
 * later commands, of any session, do not wait for it again. */
void tc_app_mark_unresponsive_locked(TcApp *app);
