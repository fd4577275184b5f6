/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

/*
 * Per-user limits: what one user may make the service hold. Any local
 * user may connect applications and call the bus, so without a bound one
 * user could take all of the service's memory or descriptors and keep
 * every other user from tracing. Each limit has a default, read from the
 * [Limits] group of the configuration file (tracectld.conf), which
 * [User NAME] and [Group NAME] groups override for some users: the most
 * generous value among the groups that apply to a user wins, and [Limits]
 * applies only where none of them sets the key. Root is never limited.
 *
 * A holder (an application connection, a session) keeps what it charged
 * in a TcUserCharge and gives it all back with tc_user_limits_release().
 * Totals are kept per accountable user: the session owner for sessions,
 * the login user for applications (tc-peer-identity.h).
 *
 * Every function may be called from any thread: one module lock, a leaf
 * (taken under session and application locks, never held across anything
 * else), guards the totals and every TcUserCharge.
 */

typedef enum {
	/* Totals per user. */
	TC_LIMIT_SESSIONS,
	TC_LIMIT_CHANNELS,
	TC_LIMIT_BUFFER_BYTES,
	TC_LIMIT_EVENTS,
	TC_LIMIT_METADATA_BYTES,
	TC_LIMIT_CONNECTIONS,
	TC_LIMIT_SUBSCRIPTIONS, /* bus connections subscribed to signals */
	TC_LIMIT_TRIGGERS,
	TC_LIMIT_LTTNG_APPLICATIONS, /* LTTng-UST applications registered */
	TC_LIMIT_KERNEL_OWN_SESSIONS, /* sessions with own-process kernel programs */
	/* Per item. */
	TC_LIMIT_CHANNELS_PER_SESSION,
	TC_LIMIT_CHANNEL_BUFFER_BYTES,
	TC_LIMIT_EVENTS_PER_APPLICATION,
	TC_LIMIT_TRACKED_VALUES_PER_SESSION,
	TC_LIMIT_SNAPSHOT_OUTPUTS_PER_SESSION,
	TC_LIMIT_COUNT,
} TcLimit;

#define TC_LIMIT_TOTALS (TC_LIMIT_KERNEL_OWN_SESSIONS + 1)
#define TC_LIMIT_UNLIMITED G_MAXUINT64

typedef struct {
	uid_t user;
	guint64 held[TC_LIMIT_TOTALS]; /* [module lock] */
} TcUserCharge;

/* The key of a limit in the configuration file, such as "MaxSessions". */
const char *tc_user_limits_key(TcLimit limit);
/* The built-in default of a limit. */
guint64 tc_user_limits_builtin_default(TcLimit limit);

/*
 * Loads the configuration file at path, replacing the limits in force.
 * A missing file is no error unless must_exist; anything else wrong in it
 * (an unknown group or key, a value that is not a number) is, naming the
 * group and the key. Users and groups named are resolved now; one that
 * does not exist is skipped with a warning. Called at start, before any
 * charge.
 */
gboolean tc_user_limits_load(const char *path, gboolean must_exist, GError **error);
/* The same for a file's contents already read (the fuzz target's way in);
 * name stands for its path in errors. */
gboolean tc_user_limits_load_data(const char *data, gsize length, const char *name, GError **error);
/* Overrides the [Limits] default of limit (a command-line option). */
void tc_user_limits_set_default(TcLimit limit, guint64 value);
/* The limit in force for user. */
guint64 tc_user_limits_get(uid_t user, TcLimit limit);

void tc_user_limits_charge_init(TcUserCharge *charge, uid_t user);

/* Adds amount to what charge holds of limit (a total), unless the user's
 * total would exceed the limit: then LimitExceeded naming the limit, its
 * value and where to raise it, and nothing charged. */
gboolean tc_user_limits_charge(TcUserCharge *charge, TcLimit limit, guint64 amount,
			       GError **error);
/* Gives back everything charge holds; it may be charged again after. */
void tc_user_limits_release(TcUserCharge *charge);

/* One more channel of buffer_bytes in a session that has channels_before:
 * the per-session and per-channel limits, then the user's totals of
 * channels and buffer memory, all or nothing. */
gboolean tc_user_limits_charge_channel(TcUserCharge *charge, guint channels_before,
				       guint64 buffer_bytes, GError **error);
/* Replaces buffers of old_bytes (0: none yet) by buffers of new_bytes:
 * the per-channel limit and the user's total of buffer memory. */
gboolean tc_user_limits_recharge_buffer(TcUserCharge *charge, guint64 old_bytes,
					guint64 new_bytes, GError **error);
/* The events_before + 1st event description of an application, holding
 * bytes of the service's memory: the per-application limit, then the
 * user's totals of descriptions and metadata bytes, all or nothing. */
gboolean tc_user_limits_charge_event(TcUserCharge *charge, guint events_before, guint64 bytes,
				     GError **error);

/* A session's trackers holding count values in all (both domains):
 * the per-session limit. Nothing is held: the values live and die with
 * the session. */
gboolean tc_user_limits_check_tracked_values(const TcUserCharge *charge, guint64 count,
					     GError **error);

/* Whether user may hold value of a per-item limit (such as the
 * count_before + 1st snapshot output of a session): LimitExceeded naming
 * the limit otherwise. Nothing is charged. */
gboolean tc_user_limits_check_item(uid_t user, TcLimit limit, guint64 value, GError **error);
/* For tests: forgets every total and override, back to the built-in
 * defaults. */
void tc_user_limits_reset(void);
