/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-limits"

#include "tc-user-limits.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tc-error.h"
#include "tc-user-account.h"

#define KIB G_GUINT64_CONSTANT(1024)
#define MIB (KIB * KIB)
#define GROUPS_MAX 4096

typedef struct {
	const char *key;
	const char *what; /* "User U would hold N <what>" */
	guint64 builtin;
} TcLimitInfo;

/*
 * The built-in defaults, and why (docs/security.md has the arithmetic):
 * - sessions, channels: each channel costs tracectld 2 descriptors per CPU
 *   (a memfd and an eventfd per stream), and the unit's LimitNOFILE must
 *   hold every user's at once; LTTng users seldom use more than a handful.
 * - buffer memory: lives in the user's consumer, charged to the user's
 *   slice; 1 GiB keeps one user from pinning a large part of a small
 *   machine's memory with MAP_POPULATE, while 256 MiB per channel is 128
 *   times the default channel's 2 MiB per CPU on two CPUs.
 * - event descriptions and metadata: kept in tracectld's own memory, whose
 *   goal is 64 MB whatever one user does; 32 MiB holds 65,536 descriptions
 *   of typical events (a few fields, about 400 bytes each) and their TSDL.
 * - connections: one descriptor each; a thousand applications per user.
 * - tracked values: each is scanned at every application sync and sent
 *   to the kernel helper (which takes TC_KERNEL_PIDS_MAX pids); LTTng
 *   users track a few processes or users.
 * - subscriptions: each costs a copy of every signal the user may see;
 *   a desktop, a monitor and a few scripts need a handful.
 * - triggers: each costs a consumer round trip per monitor sample.
 */
static const TcLimitInfo limit_info[TC_LIMIT_COUNT] = {
	[TC_LIMIT_SESSIONS] = {"MaxSessions", "sessions", 64},
	[TC_LIMIT_CHANNELS] = {"MaxChannels", "channels", 256},
	[TC_LIMIT_BUFFER_BYTES] = {"MaxBufferBytes", "bytes of ring buffers", 1024 * MIB},
	[TC_LIMIT_EVENTS] = {"MaxEventDescriptions", "event descriptions", 65536},
	[TC_LIMIT_METADATA_BYTES] = {"MaxMetadataBytes",
				     "bytes of event descriptions and metadata", 32 * MIB},
	[TC_LIMIT_CONNECTIONS] = {"MaxConnections", "application connections", 1024},
	[TC_LIMIT_SUBSCRIPTIONS] = {"MaxSubscriptions", "bus connections subscribed to signals",
				    16},
	[TC_LIMIT_TRIGGERS] = {"MaxTriggers", "triggers", 64},
	/* Each holds two sockets (charged as connections too) and a listing
	 * of its events (charged as event descriptions). */
	[TC_LIMIT_LTTNG_APPLICATIONS] = {"MaxLttngApplications", "LTTng-UST applications", 1024},
	/* Each loads eBPF programs on hot tracepoints and pins a ring buffer
	 * of kernel memory. */
	[TC_LIMIT_KERNEL_OWN_SESSIONS] = {"MaxKernelOwnSessions",
					  "sessions tracing their own processes' kernel events", 4},
	[TC_LIMIT_CHANNELS_PER_SESSION] = {"MaxChannelsPerSession", "channels in one session",
					   64},
	[TC_LIMIT_CHANNEL_BUFFER_BYTES] = {"MaxChannelBufferBytes",
					   "bytes of ring buffers in one channel (sub-buffer "
					   "size x count x CPUs)",
					   256 * MIB},
	[TC_LIMIT_EVENTS_PER_APPLICATION] = {"MaxEventDescriptionsPerApplication",
					     "event descriptions in one application", 16384},
	[TC_LIMIT_TRACKED_VALUES_PER_SESSION] = {"MaxTrackedValuesPerSession",
						 "tracked process attributes in one session",
						 1024},
	/* Each output is a few hundred bytes of the service's memory; 16 is
	 * well over what anyone records to at once (LTTng has one). */
	[TC_LIMIT_SNAPSHOT_OUTPUTS_PER_SESSION] = {"MaxSnapshotOutputsPerSession",
						   "snapshot outputs in one session", 16},
};

/* Values of one configuration group; set tells which keys it has. */
typedef struct {
	guint64 value[TC_LIMIT_COUNT];
	guint32 set;
} TcLimitSet;

/* One user's totals, and the limits resolved for it when it first held
 * something. Freed when it holds nothing. */
typedef struct {
	guint64 held[TC_LIMIT_TOTALS];
	guint64 limit[TC_LIMIT_COUNT];
} TcUserTotals;

/* Written only by tc_user_limits_load() and _set_default(), at start,
 * before any other thread exists; read without the lock after. */
static TcLimitSet defaults;
static gboolean is_defaults_ready;
static GHashTable *user_sets;  /* uid -> TcLimitSet * */
static GHashTable *group_sets; /* gid -> TcLimitSet * */
static char *config_path;

static GMutex limits_lock;
static GHashTable *totals; /* [limits_lock] uid -> TcUserTotals * */

G_STATIC_ASSERT(TC_LIMIT_COUNT <= 32);

const char *
tc_user_limits_key(TcLimit limit)
{
	g_return_val_if_fail(limit < TC_LIMIT_COUNT, NULL);
	return limit_info[limit].key;
}

guint64
tc_user_limits_builtin_default(TcLimit limit)
{
	g_return_val_if_fail(limit < TC_LIMIT_COUNT, 0);
	return limit_info[limit].builtin;
}

static void
defaults_init_builtin(void)
{
	for (guint i = 0; i < TC_LIMIT_COUNT; i++)
		defaults.value[i] = limit_info[i].builtin;
	defaults.set = 0;
	is_defaults_ready = TRUE;
}

static void
defaults_ensure(void)
{
	if (!is_defaults_ready)
		defaults_init_builtin();
}

static const char *
config_path_or_default(void)
{
	return config_path ? config_path : "the configuration file";
}

void
tc_user_limits_reset(void)
{
	g_mutex_lock(&limits_lock);
	g_clear_pointer(&totals, g_hash_table_unref);
	g_mutex_unlock(&limits_lock);
	g_clear_pointer(&user_sets, g_hash_table_unref);
	g_clear_pointer(&group_sets, g_hash_table_unref);
	g_clear_pointer(&config_path, g_free);
	defaults_init_builtin();
}

void
tc_user_limits_set_default(TcLimit limit, guint64 value)
{
	g_return_if_fail(limit < TC_LIMIT_COUNT);
	defaults_ensure();
	defaults.value[limit] = value;
	defaults.set |= 1u << limit;
}

/* Configuration file. */

static gboolean
limit_from_key(const char *key, TcLimit *limit)
{
	for (guint i = 0; i < TC_LIMIT_COUNT; i++) {
		if (g_str_equal(key, limit_info[i].key)) {
			*limit = i;
			return TRUE;
		}
	}
	return FALSE;
}

/* "infinity", or a number with an optional K, M, G or T (powers of 1024). */
static gboolean
parse_value(const char *text, guint64 *value)
{
	g_autofree char *stripped = g_strstrip(g_strdup(text));
	guint64 number, unit = 1;
	char *end = NULL;

	if (g_str_equal(stripped, "infinity")) {
		*value = TC_LIMIT_UNLIMITED;
		return TRUE;
	}
	if (!g_ascii_isdigit(stripped[0]))
		return FALSE;
	errno = 0;
	number = g_ascii_strtoull(stripped, &end, 10);
	if (errno != 0)
		return FALSE;
	switch (*end) {
	case 'T':
		unit *= KIB;
		/* fall through */
	case 'G':
		unit *= KIB;
		/* fall through */
	case 'M':
		unit *= KIB;
		/* fall through */
	case 'K':
		unit *= KIB;
		end++;
		break;
	default:
		break;
	}
	if (*end != '\0' || (number != 0 && unit > G_MAXUINT64 / number))
		return FALSE;
	*value = number * unit;
	return TRUE;
}

static gboolean
load_set(GKeyFile *file, const char *group, TcLimitSet *set, GError **error)
{
	g_auto(GStrv) keys = g_key_file_get_keys(file, group, NULL, NULL);

	for (guint i = 0; keys && keys[i]; i++) {
		g_autofree char *text = g_key_file_get_value(file, group, keys[i], NULL);
		TcLimit limit;

		if (!limit_from_key(keys[i], &limit)) {
			g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    "[%s] has an unknown key '%s'", group, keys[i]);
			return FALSE;
		}
		if (text == NULL || !parse_value(text, &set->value[limit])) {
			g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    "[%s] %s='%s' is not a number (a count or bytes, with an "
				    "optional K, M, G or T) nor 'infinity'",
				    group, keys[i], text ? text : "");
			return FALSE;
		}
		set->set |= 1u << limit;
	}
	return TRUE;
}

/* A user or group named in a group's title: its name, or a number. */
static gboolean
resolve_id(const char *kind, const char *name, guint32 *id)
{
	guint64 number;

	if (g_ascii_string_to_unsigned(name, 10, 0, G_MAXUINT32 - 1, &number, NULL)) {
		*id = (guint32)number;
		return TRUE;
	}
	if (g_str_equal(kind, "User")) {
		struct passwd *pw = getpwnam(name);

		if (pw)
			*id = pw->pw_uid;
		return pw != NULL;
	}
	{
		struct group *gr = getgrnam(name);

		if (gr)
			*id = gr->gr_gid;
		return gr != NULL;
	}
}

static gboolean
load_group(GKeyFile *file, const char *group, GError **error)
{
	g_autofree TcLimitSet *set = g_new0(TcLimitSet, 1);
	const char *space = strchr(group, ' ');
	g_autofree char *kind = space ? g_strndup(group, space - group) : g_strdup(group);
	GHashTable *table;
	guint32 id;

	if (g_str_equal(group, "Limits"))
		return load_set(file, group, &defaults, error);
	if (g_str_equal(kind, "User"))
		table = user_sets;
	else if (g_str_equal(kind, "Group"))
		table = group_sets;
	else
		table = NULL;
	if (table == NULL || space == NULL || space[1] == '\0') {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "unknown group [%s] (expected [Limits], [User NAME] or [Group NAME])",
			    group);
		return FALSE;
	}
	if (!load_set(file, group, set, error))
		return FALSE;
	if (!resolve_id(kind, space + 1, &id)) {
		g_warning("%s: [%s] names no %s of this system, ignoring it",
			  config_path_or_default(), group, g_str_equal(kind, "User") ? "user"
										      : "group");
		return TRUE;
	}
	g_hash_table_replace(table, GUINT_TO_POINTER(id), g_steal_pointer(&set));
	return TRUE;
}

/* Starts a load from path: its sets forgotten, the defaults kept aside
 * in *saved for load_key_file(). */
static void
load_begin(const char *path, TcLimitSet *saved)
{
	defaults_ensure();
	*saved = defaults;
	g_free(config_path);
	config_path = g_strdup(path);
	g_clear_pointer(&user_sets, g_hash_table_unref);
	g_clear_pointer(&group_sets, g_hash_table_unref);
	user_sets = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	group_sets = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
}

static gboolean
load_key_file(GKeyFile *file, const char *path, const TcLimitSet *saved, GError **error)
{
	g_auto(GStrv) groups = g_key_file_get_groups(file, NULL);

	for (guint i = 0; groups[i]; i++) {
		if (!load_group(file, groups[i], error)) {
			g_prefix_error(error, "%s: ", path);
			defaults = *saved;
			return FALSE;
		}
	}
	/* Options given on the command line win over the file's [Limits]. */
	for (guint i = 0; i < TC_LIMIT_COUNT; i++)
		if (saved->set & (1u << i))
			defaults.value[i] = saved->value[i];
	defaults.set |= saved->set;
	return TRUE;
}

gboolean
tc_user_limits_load(const char *path, gboolean must_exist, GError **error)
{
	g_autoptr(GKeyFile) file = g_key_file_new();
	g_autoptr(GError) local_error = NULL;
	TcLimitSet saved;

	g_return_val_if_fail(path != NULL, FALSE);
	load_begin(path, &saved);
	if (!g_key_file_load_from_file(file, path, G_KEY_FILE_NONE, &local_error)) {
		if (!must_exist && g_error_matches(local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
			return TRUE;
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT, "%s: %s", path,
			    local_error->message);
		return FALSE;
	}
	return load_key_file(file, path, &saved, error);
}

gboolean
tc_user_limits_load_data(const char *data, gsize length, const char *name, GError **error)
{
	g_autoptr(GKeyFile) file = g_key_file_new();
	g_autoptr(GError) local_error = NULL;
	TcLimitSet saved;

	g_return_val_if_fail(data != NULL && name != NULL, FALSE);
	load_begin(name, &saved);
	if (!g_key_file_load_from_data(file, data, length, G_KEY_FILE_NONE, &local_error)) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT, "%s: %s", name,
			    local_error->message);
		return FALSE;
	}
	return load_key_file(file, name, &saved, error);
}

/* Resolving a user's limits. */

static void
merge_most_generous(const TcLimitSet *set, TcLimitSet *into)
{
	for (guint i = 0; set && i < TC_LIMIT_COUNT; i++) {
		if (!(set->set & (1u << i)))
			continue;
		if (!(into->set & (1u << i)) || set->value[i] > into->value[i])
			into->value[i] = set->value[i];
		into->set |= 1u << i;
	}
}

/* Reads the passwd and group databases: no lock held. */
static void
resolve_limits(uid_t user, guint64 limit[TC_LIMIT_COUNT])
{
	TcLimitSet found = {0};

	defaults_ensure();
	if (user == 0) {
		for (guint i = 0; i < TC_LIMIT_COUNT; i++)
			limit[i] = TC_LIMIT_UNLIMITED;
		return;
	}
	if (user_sets)
		merge_most_generous(g_hash_table_lookup(user_sets, GUINT_TO_POINTER(user)), &found);
	if (group_sets && g_hash_table_size(group_sets) > 0) {
		g_auto(TcUserAccount) account = {0};

		if (tc_user_account_lookup(user, &account, NULL)) {
			gid_t groups[GROUPS_MAX];
			int n = GROUPS_MAX;

			if (getgrouplist(account.name, account.gid, groups, &n) < 0)
				n = GROUPS_MAX;
			for (int i = 0; i < n; i++)
				merge_most_generous(g_hash_table_lookup(group_sets,
									GUINT_TO_POINTER(groups[i])),
						    &found);
		}
	}
	for (guint i = 0; i < TC_LIMIT_COUNT; i++)
		limit[i] = (found.set & (1u << i)) ? found.value[i] : defaults.value[i];
}

guint64
tc_user_limits_get(uid_t user, TcLimit limit)
{
	guint64 resolved[TC_LIMIT_COUNT];

	g_return_val_if_fail(limit < TC_LIMIT_COUNT, 0);
	resolve_limits(user, resolved);
	return resolved[limit];
}

/* Accounting. */

void
tc_user_limits_charge_init(TcUserCharge *charge, uid_t user)
{
	memset(charge, 0, sizeof(*charge));
	charge->user = user;
}

/* [limits_lock] The totals of user, created with its limits. The lock is
 * dropped while the limits are resolved (the group database may be slow);
 * returns NULL for root, which is not counted. */
static TcUserTotals *
totals_get_locked(uid_t user)
{
	guint64 resolved[TC_LIMIT_COUNT];
	TcUserTotals *entry;

	if (user == 0)
		return NULL;
	if (totals == NULL)
		totals = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	entry = g_hash_table_lookup(totals, GUINT_TO_POINTER(user));
	if (entry)
		return entry;
	g_mutex_unlock(&limits_lock);
	resolve_limits(user, resolved);
	g_mutex_lock(&limits_lock);
	if (totals == NULL)
		totals = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	entry = g_hash_table_lookup(totals, GUINT_TO_POINTER(user));
	if (entry == NULL) {
		entry = g_new0(TcUserTotals, 1);
		memcpy(entry->limit, resolved, sizeof(resolved));
		g_hash_table_insert(totals, GUINT_TO_POINTER(user), entry);
	}
	return entry;
}

/* [limits_lock] Frees the totals of a user that holds nothing. */
static void
totals_drop_if_empty_locked(uid_t user, TcUserTotals *entry)
{
	for (guint i = 0; i < TC_LIMIT_TOTALS; i++)
		if (entry->held[i])
			return;
	g_hash_table_remove(totals, GUINT_TO_POINTER(user));
}

static void
set_exceeded(GError **error, uid_t user, TcLimit limit, guint64 would_hold, guint64 max)
{
	g_set_error(error, TC_ERROR, TC_ERROR_LIMIT_EXCEEDED,
		    "User %u would hold %" G_GUINT64_FORMAT " %s, over the limit '%s' of %" G_GUINT64_FORMAT
		    "; an administrator may raise it in %s ([Limits], [User NAME] or [Group NAME])",
		    (unsigned)user, would_hold, limit_info[limit].what, limit_info[limit].key, max,
		    config_path_or_default());
}

/* [limits_lock] */
static gboolean
check_item_locked(const TcUserTotals *entry, uid_t user, TcLimit limit, guint64 value,
		  GError **error)
{
	if (entry == NULL || value <= entry->limit[limit])
		return TRUE;
	set_exceeded(error, user, limit, value, entry->limit[limit]);
	return FALSE;
}

/* [limits_lock] */
static gboolean
check_total_locked(const TcUserTotals *entry, uid_t user, TcLimit limit, guint64 amount,
		   GError **error)
{
	guint64 would_hold;

	if (entry == NULL)
		return TRUE;
	would_hold = entry->held[limit] + amount;
	if (would_hold >= entry->held[limit] && would_hold <= entry->limit[limit])
		return TRUE;
	set_exceeded(error, user, limit, would_hold < amount ? G_MAXUINT64 : would_hold,
		     entry->limit[limit]);
	return FALSE;
}

/* [limits_lock] The checks were made. */
static void
add_locked(TcUserCharge *charge, TcUserTotals *entry, TcLimit limit, guint64 amount)
{
	if (entry == NULL)
		return;
	entry->held[limit] += amount;
	charge->held[limit] += amount;
}

/* [limits_lock] */
static void
take_back_locked(TcUserCharge *charge, TcUserTotals *entry, TcLimit limit, guint64 amount)
{
	amount = MIN(amount, charge->held[limit]);
	charge->held[limit] -= amount;
	if (entry)
		entry->held[limit] -= MIN(amount, entry->held[limit]);
}

/* [limits_lock] Whether the user has anything; NULL for root or nothing. */
static TcUserTotals *
totals_find_locked(uid_t user)
{
	return totals ? g_hash_table_lookup(totals, GUINT_TO_POINTER(user)) : NULL;
}

gboolean
tc_user_limits_charge(TcUserCharge *charge, TcLimit limit, guint64 amount, GError **error)
{
	TcUserTotals *entry;
	gboolean ok;

	g_return_val_if_fail(limit < TC_LIMIT_TOTALS, FALSE);
	g_mutex_lock(&limits_lock);
	entry = totals_get_locked(charge->user);
	ok = check_total_locked(entry, charge->user, limit, amount, error);
	if (ok)
		add_locked(charge, entry, limit, amount);
	else if (entry)
		totals_drop_if_empty_locked(charge->user, entry);
	g_mutex_unlock(&limits_lock);
	return ok;
}

void
tc_user_limits_release(TcUserCharge *charge)
{
	TcUserTotals *entry;

	g_mutex_lock(&limits_lock);
	entry = totals_find_locked(charge->user);
	for (guint i = 0; i < TC_LIMIT_TOTALS; i++)
		take_back_locked(charge, entry, i, charge->held[i]);
	if (entry)
		totals_drop_if_empty_locked(charge->user, entry);
	g_mutex_unlock(&limits_lock);
}

gboolean
tc_user_limits_charge_channel(TcUserCharge *charge, guint channels_before, guint64 buffer_bytes,
			      GError **error)
{
	TcUserTotals *entry;
	gboolean ok;

	g_mutex_lock(&limits_lock);
	entry = totals_get_locked(charge->user);
	ok = check_item_locked(entry, charge->user, TC_LIMIT_CHANNELS_PER_SESSION,
			       (guint64)channels_before + 1, error) &&
	     check_item_locked(entry, charge->user, TC_LIMIT_CHANNEL_BUFFER_BYTES, buffer_bytes,
			       error) &&
	     check_total_locked(entry, charge->user, TC_LIMIT_CHANNELS, 1, error) &&
	     check_total_locked(entry, charge->user, TC_LIMIT_BUFFER_BYTES, buffer_bytes, error);
	if (ok) {
		add_locked(charge, entry, TC_LIMIT_CHANNELS, 1);
		add_locked(charge, entry, TC_LIMIT_BUFFER_BYTES, buffer_bytes);
	} else if (entry) {
		totals_drop_if_empty_locked(charge->user, entry);
	}
	g_mutex_unlock(&limits_lock);
	return ok;
}

gboolean
tc_user_limits_recharge_buffer(TcUserCharge *charge, guint64 old_bytes, guint64 new_bytes,
			       GError **error)
{
	TcUserTotals *entry;
	gboolean ok;

	g_mutex_lock(&limits_lock);
	entry = totals_get_locked(charge->user);
	old_bytes = MIN(old_bytes, charge->held[TC_LIMIT_BUFFER_BYTES]);
	ok = check_item_locked(entry, charge->user, TC_LIMIT_CHANNEL_BUFFER_BYTES, new_bytes,
			       error) &&
	     (new_bytes <= old_bytes ||
	      check_total_locked(entry, charge->user, TC_LIMIT_BUFFER_BYTES,
				 new_bytes - old_bytes, error));
	if (ok) {
		take_back_locked(charge, entry, TC_LIMIT_BUFFER_BYTES, old_bytes);
		add_locked(charge, entry, TC_LIMIT_BUFFER_BYTES, new_bytes);
	}
	if (entry)
		totals_drop_if_empty_locked(charge->user, entry);
	g_mutex_unlock(&limits_lock);
	return ok;
}

gboolean
tc_user_limits_charge_event(TcUserCharge *charge, guint events_before, guint64 bytes,
			    GError **error)
{
	TcUserTotals *entry;
	gboolean ok;

	g_mutex_lock(&limits_lock);
	entry = totals_get_locked(charge->user);
	ok = check_item_locked(entry, charge->user, TC_LIMIT_EVENTS_PER_APPLICATION,
			       (guint64)events_before + 1, error) &&
	     check_total_locked(entry, charge->user, TC_LIMIT_EVENTS, 1, error) &&
	     check_total_locked(entry, charge->user, TC_LIMIT_METADATA_BYTES, bytes, error);
	if (ok) {
		add_locked(charge, entry, TC_LIMIT_EVENTS, 1);
		add_locked(charge, entry, TC_LIMIT_METADATA_BYTES, bytes);
	} else if (entry) {
		totals_drop_if_empty_locked(charge->user, entry);
	}
	g_mutex_unlock(&limits_lock);
	return ok;
}

gboolean
tc_user_limits_check_item(uid_t user, TcLimit limit, guint64 value, GError **error)
{
	TcUserTotals *entry;
	gboolean ok;

	g_return_val_if_fail(limit >= TC_LIMIT_TOTALS && limit < TC_LIMIT_COUNT, FALSE);
	g_mutex_lock(&limits_lock);
	entry = totals_get_locked(user);
	ok = check_item_locked(entry, user, limit, value, error);
	if (entry)
		totals_drop_if_empty_locked(user, entry);
	g_mutex_unlock(&limits_lock);
	return ok;
}

/* The trackers are a per-item limit like any other. */
gboolean
tc_user_limits_check_tracked_values(const TcUserCharge *charge, guint64 count, GError **error)
{
	return tc_user_limits_check_item(charge->user, TC_LIMIT_TRACKED_VALUES_PER_SESSION, count,
					 error);
}
