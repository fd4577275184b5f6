/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The system's and users' own session files, loaded at start
 * (tc-session-autoload.h).
 *
 * Trust: only root may place a file in the system's directory (it must be
 * root's and writable by no one else), so a file there is the
 * administrator's word that its owner has these sessions: they become the
 * file's owner's, set up as that user's own CreateSession would (their
 * limits charged, their home, their consumer). No one but the owner may
 * write a file, so an edit only concerns the owner's own sessions. Files
 * are opened with O_NOFOLLOW relative to the checked directory and
 * checked through their descriptor (fstat), so nothing can be swapped in
 * between the check and the read. A user's own directory is read by that
 * user's consumer, with the user's rights (tc-home-sessions.h): its files
 * can only become that user's sessions. The parser (tc-session-file.h)
 * treats the contents as hostile either way: bounded, no DTD, every
 * element known.
 *
 * What needs no more than the owner's own manage-sessions is set up
 * through the operations the owner's calls use: a rotation schedule, a
 * relay URL or live timer (tc-session-output.h, CreateSessionWithOptions'
 * code) and snapshot outputs (AddSnapshotOutput's). The owner's consumer
 * opens a relay's connections, never the service. The relay may start
 * after the service at boot, so a relay not reached is no reason to lose
 * the session: with TC_CONSUMER_RELAY_CONNECT_LATER the consumer creates
 * it without waiting for the network (a relay behind a firewall or
 * stopped would otherwise hold the owner's other sessions and calls),
 * connects when the relay answers, and counts it lost if its first try
 * fails, which the session's Problem then names. What the service cannot
 * set up on its own is refused, naming it: the kernel domain of a file
 * that is not root's needs `tracectl load`, for at start there is no
 * caller whose kernel tracing polkit could authorize, and only root is
 * authorized without asking.
 */
#define G_LOG_DOMAIN "tracectld-autoload"

#include "tc-session-autoload.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tc-channel-config.h"
#include "tc-channel.h"
#include "tc-error.h"
#include "tc-event-rule.h"
#include "tc-consumer.h"
#include "tc-home-sessions.h"
#include "tc-idle.h"
#include "tc-owner-pool.h"
#include "tc-registry.h"
#include "tc-filter.h"
#include "tc-kernel-abi.h"
#include "tc-kernel-event-rule.h"
#include "tc-session-file-apply.h"
#include "tc-session-file-list.h"
#include "tc-session-file.h"
#include "tc-session-kernel.h"
#include "tc-session-ops.h"
#include "tc-session-op-kernel.h"
#include "tc-session-op-relay.h"
#include "tc-session-op-snapshot.h"
#include "tc-session-op-track.h"
#include "tc-session-output.h"
#include "tc-session-rotation.h"
#include "tc-session.h"
#include "tc-tracker.h"
#include "tc-user-account.h"
#include "tc-validate.h"

/* Users whose own directories are read; the rest are left out, logged. */
#define TC_AUTOLOAD_USERS_MAX 256

/* Refuses a descriptor that is not of type, or that group or others may
 * write; *owner: its owner. what: "file" or "directory", for the
 * message. */
static gboolean
check_type_and_mode(int fd, const char *path, const char *what, mode_t type, uid_t *owner,
		    GError **error)
{
	struct stat st;

	if (fstat(fd, &st) < 0) {
		int saved_errno = errno;

		g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "Cannot stat %s '%s': %s", what,
			    path, g_strerror(saved_errno));
		return FALSE;
	}
	if ((st.st_mode & S_IFMT) != type) {
		g_set_error(error, TC_ERROR, TC_ERROR_PERMISSION_DENIED, "Refusing '%s': not a %s",
			    path, type == S_IFREG ? "regular file" : "directory");
		return FALSE;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		g_set_error(error, TC_ERROR, TC_ERROR_PERMISSION_DENIED,
			    "Refusing %s '%s': writable by its group or others (mode %04o)", what,
			    path, (unsigned)(st.st_mode & 07777));
		return FALSE;
	}
	*owner = st.st_uid;
	return TRUE;
}

/* The directory decides who may place a file there: root only. */
static gboolean
check_directory(int dir_fd, const char *path, GError **error)
{
	uid_t owner;

	if (!check_type_and_mode(dir_fd, path, "directory", S_IFDIR, &owner, error))
		return FALSE;
	if (owner != 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_PERMISSION_DENIED,
			    "Refusing directory '%s': owned by uid %u, not root", path,
			    (unsigned)owner);
		return FALSE;
	}
	return TRUE;
}

/* A file's owner becomes its sessions' owner: a user the system knows,
 * whose home and consumer the session gets. */
static gboolean
check_file_owner(const char *path, uid_t owner, GError **error)
{
	g_auto(TcUserAccount) account = {0};

	if (owner != 0 && !tc_user_account_lookup(owner, &account, NULL)) {
		g_set_error(error, TC_ERROR, TC_ERROR_PERMISSION_DENIED,
			    "Refusing file '%s': owned by uid %u, which is no user of the system",
			    path, (unsigned)owner);
		return FALSE;
	}
	return TRUE;
}

/* The contents of the file name of the checked directory dir_fd, at most
 * TC_SESSION_FILE_MAX_BYTES, read through the descriptor checked; *owner:
 * the file's owner, whose sessions they become. */
static char *
read_checked_file(int dir_fd, const char *path, const char *name, gsize *length, uid_t *owner,
		  GError **error)
{
	g_autofree char *contents = NULL;
	gsize used = 0;
	/* O_NONBLOCK: a FIFO or device there must not block the open; fstat
	 * then refuses it. */
	int fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0) {
		int saved_errno = errno;

		g_set_error(error, TC_ERROR, TC_ERROR_PERMISSION_DENIED, "Refusing '%s': %s", path,
			    saved_errno == ELOOP ? "a symbolic link" : g_strerror(saved_errno));
		return NULL;
	}
	if (!check_type_and_mode(fd, path, "file", S_IFREG, owner, error) ||
	    !check_file_owner(path, *owner, error)) {
		close(fd);
		return NULL;
	}
	contents = g_malloc(TC_SESSION_FILE_MAX_BYTES + 1);
	for (;;) {
		ssize_t got = read(fd, contents + used, TC_SESSION_FILE_MAX_BYTES + 1 - used);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int saved_errno = errno;

			g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "Cannot read '%s': %s", path,
				    g_strerror(saved_errno));
			close(fd);
			return NULL;
		}
		used += (gsize)got;
		if (got == 0 || used > TC_SESSION_FILE_MAX_BYTES)
			break;
	}
	close(fd);
	if (used > TC_SESSION_FILE_MAX_BYTES) {
		g_set_error(error, TC_ERROR, TC_ERROR_LIMIT_EXCEEDED,
			    "Refusing '%s': larger than %d bytes", path, TC_SESSION_FILE_MAX_BYTES);
		return NULL;
	}
	*length = used;
	return g_steal_pointer(&contents);
}

static gboolean
has_kernel_domain(const TcFileSession *file)
{
	for (guint i = 0; i < file->channels->len; i++)
		if (((TcFileChannel *)g_ptr_array_index(file->channels, i))->kernel)
			return TRUE;
	for (guint i = 0; i < file->trackers->len; i++)
		if (((TcFileTracker *)g_ptr_array_index(file->trackers, i))->kernel)
			return TRUE;
	return FALSE;
}

/* What the service leaves to `tracectl load`: set up only through calls
 * that polkit authorizes beyond the owner's own manage-sessions. Root is
 * authorized for kernel tracing without asking, so a file of root's may
 * have a kernel domain. */
static gboolean
check_supported(const TcFileSession *file, uid_t owner, GError **error)
{
	if (owner == 0 || !has_kernel_domain(file))
		return TRUE;
	g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
		    "auto-loading sets up the kernel domain of root's files only: there "
		    "is no caller to ask polkit whether uid %u may trace the kernel "
		    "(use 'tracectl load')",
		    (unsigned)owner);
	return FALSE;
}

/* A file's session applied through the session layer
 * (tc_session_file_apply()): each step makes the checks the D-Bus call
 * that `tracectl load` would make for it, then its operation. */
typedef struct {
	uid_t owner;
	TcSession *session; /* once created */
} TcAutoloadApply;

/* The rule the file's event asks for, as EnableEventWithOptions would
 * read it from `tracectl load`'s options. */
static TcEventRuleSpec
event_rule_spec(const TcFileEvent *event, const char *pattern)
{
	gboolean has_loglevel = event->loglevel >= 0;

	return (TcEventRuleSpec){
	    .pattern = pattern,
	    .has_loglevel = has_loglevel,
	    .loglevel = event->loglevel,
	    .loglevel_only = has_loglevel && event->loglevel_only,
	    .exclusions = (const char *const *)event->exclusions,
	    .filter = event->filter,
	};
}

static gboolean
refuse_not_tracepoint(const TcFileChannel *channel, const TcFileEvent *event, GError **error)
{
	g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
		    "event '%s' of channel '%s' is not a tracepoint", event->pattern,
		    channel->name);
	return FALSE;
}

/* The checks EnableEventWithOptions makes, through the same rule checks. */
static gboolean
enable_ust_event(TcSession *session, const TcFileChannel *channel, const TcFileEvent *event,
		 GError **error)
{
	TcEventRuleSpec spec = event_rule_spec(event, event->pattern);
	TcEventRule *rule;

	if (event->type != TC_FILE_EVENT_TRACEPOINT)
		return refuse_not_tracepoint(channel, event, error);
	if (!tc_validate_pattern(event->pattern, error))
		return FALSE;
	rule = tc_event_rule_new_from_spec(&spec, error);
	return rule && tc_session_ops_enable_event_rule(session, channel->name, rule, error);
}

static gboolean
enable_kernel_event(TcSession *session, const char *pattern, const TcFileEvent *event,
		    GError **error)
{
	TcEventRuleSpec spec = event_rule_spec(event, pattern);
	g_autofree char *filter = NULL;

	if (!tc_kernel_event_rule_check(&spec, &filter, error))
		return FALSE;
	if (filter == NULL)
		return tc_session_op_kernel_event(session, pattern, TRUE, error);
	return tc_session_op_kernel_filtered_event(session, pattern, filter, error);
}

static gboolean
apply_enable_event_cb(gpointer data, const TcFileChannel *channel, const TcFileEvent *event,
		      const char *pattern, GError **error)
{
	TcAutoloadApply *apply = data;

	if (channel->kernel)
		return enable_kernel_event(apply->session, pattern, event, error);
	return enable_ust_event(apply->session, channel, event, error);
}

static gboolean
apply_add_probe_cb(gpointer data, const TcFileChannel *channel, const TcFileEvent *event,
		   GError **error)
{
	static const guint32 probe_kinds[] = {
	    [TC_FILE_EVENT_KPROBE] = TC_KERNEL_PROBE_KPROBE,
	    [TC_FILE_EVENT_KRETPROBE] = TC_KERNEL_PROBE_KRETPROBE,
	    [TC_FILE_EVENT_UPROBE] = TC_KERNEL_PROBE_UPROBE,
	};
	TcAutoloadApply *apply = data;

	if (!channel->kernel)
		return refuse_not_tracepoint(channel, event, error);
	return tc_validate_kernel_probe(probe_kinds[event->type], event->pattern, event->location,
					error) &&
	       tc_session_op_kernel_probe(apply->session, probe_kinds[event->type], event->pattern,
					  event->location, error);
}

static gboolean
channel_config(const TcFileSession *file, const TcFileChannel *channel, TcChannelConfig *config,
	       GError **error)
{
	guint64 subbuf_size;

	tc_channel_config_init_default(config, file->snapshot);
	subbuf_size = channel->subbuf_size ? channel->subbuf_size : config->subbuf_size;
	if (channel->num_subbuf)
		config->num_subbuf = (guint32)MIN(channel->num_subbuf, G_MAXUINT32);
	config->overwrite = channel->overwrite;
	config->switch_timer_us = channel->switch_timer_us;
	/* LTTng's 0 (the application wakes the consumer) is tracectl's
	 * default polling. */
	if (channel->read_timer_us)
		config->read_timer_us = channel->read_timer_us;
	config->monitor_timer_us = (guint32)MIN(channel->monitor_timer_us, G_MAXUINT32);
	if (!tc_channel_config_check(subbuf_size, config, error))
		return FALSE;
	config->subbuf_size = (guint32)subbuf_size;
	return TRUE;
}

/* The channel's context names, NULL-terminated; the strings stay the
 * file's (a g_ptr_array_copy() would free them with its own copy). */
static const char **
context_names(const TcFileChannel *channel)
{
	const char **names = g_new0(const char *, channel->contexts->len + 1);

	for (guint i = 0; i < channel->contexts->len; i++)
		names[i] = g_ptr_array_index(channel->contexts, i);
	return names;
}

/* The kernel domain has one channel (check_supported() let only root's
 * files have it). */
static gboolean
add_kernel_channel(TcSession *session, const TcFileSession *file, const TcFileChannel *channel,
		   GError **error)
{
	TcChannelConfig config;

	if (!g_str_equal(channel->name, TC_DEFAULT_CHANNEL)) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
			    "the kernel domain has one channel, '%s', not '%s'", TC_DEFAULT_CHANNEL,
			    channel->name);
		return FALSE;
	}
	return channel_config(file, channel, &config, error) &&
	       tc_session_op_kernel_channel(session, &config, error);
}

static gboolean
apply_add_channel_cb(gpointer data, const TcFileSession *file, const TcFileChannel *channel,
		     GError **error)
{
	TcAutoloadApply *apply = data;
	TcChannelConfig config;

	if (channel->kernel)
		return add_kernel_channel(apply->session, file, channel, error);
	return tc_validate_name("channel", channel->name, error) &&
	       channel_config(file, channel, &config, error) &&
	       tc_session_ops_enable_channel(apply->session, channel->name, &config, error);
}

static gboolean
apply_add_contexts_cb(gpointer data, const TcFileChannel *channel, GError **error)
{
	TcAutoloadApply *apply = data;
	g_autofree const char **names = context_names(channel);
	guint32 contexts = 0;

	if (channel->kernel)
		return tc_channel_config_kernel_context_bits(names, &contexts, error) &&
		       tc_session_op_kernel_context(apply->session, contexts, error);
	return tc_channel_config_ust_context_bits(names, &contexts, error) &&
	       tc_session_ops_add_context(apply->session, channel->name, contexts, error);
}

static gboolean
apply_set_tracker_cb(gpointer data, const TcFileTracker *tracker, GError **error)
{
	TcAutoloadApply *apply = data;
	TcTrackKind kind;

	if (!tc_tracker_kind_parse(tracker->kind, &kind)) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED, "unknown tracker kind '%s'",
			    tracker->kind);
		return FALSE;
	}
	if (!tc_tracker_check_values(kind, (const guint32 *)tracker->values->data,
				     tracker->values->len, error))
		return FALSE;
	/* The set holds only the values listed: untrack all, track them. */
	return tc_session_op_track(apply->session, tracker->kernel, kind, NULL, 0, TRUE, FALSE,
				   error) &&
	       (tracker->values->len == 0 ||
		tc_session_op_track(apply->session, tracker->kernel, kind,
				    (const guint32 *)tracker->values->data, tracker->values->len,
				    FALSE, TRUE, error));
}

/* The checks SetRotationSchedule makes, then its operation. */
static gboolean
apply_set_rotation_cb(gpointer data, const TcFileSession *file, GError **error)
{
	TcAutoloadApply *apply = data;

	return tc_session_rotation_validate_schedule(file->rotation_timer_us, file->rotation_size,
						     error) &&
	       tc_session_rotation_set_schedule(apply->session, file->rotation_timer_us,
						file->rotation_size, error);
}

/* The checks AddSnapshotOutput makes, then its operation: the owner's
 * consumer writes each snapshot there, or sends it to the relay, with
 * the owner's rights. */
static gboolean
apply_add_snapshot_output_cb(gpointer data, const TcFileSnapshotOutput *output, const char *url,
			     GError **error)
{
	TcAutoloadApply *apply = data;
	const char *name = output->name ? output->name : "";
	guint32 id = 0;

	return (!*name || tc_validate_name("snapshot output", name, error)) &&
	       tc_session_op_snapshot_add_output(apply->session, name, url, output->max_size, &id,
						 error);
}

static gboolean
apply_disable_channel_cb(gpointer data, const TcFileChannel *channel, GError **error)
{
	TcAutoloadApply *apply = data;

	if (channel->kernel)
		return tc_session_op_kernel_disable_channel(apply->session, error);
	return tc_session_ops_disable_channel(apply->session, channel->name, error);
}

static gboolean
apply_start_cb(gpointer data, GError **error)
{
	TcAutoloadApply *apply = data;

	return tc_session_ops_start(apply->session, error);
}

/* The file's output as CreateSessionWithOptions takes it from `tracectl
 * load`, through the same checks: a directory ("" for the owner's
 * default) or a relay (*relay). */
static gboolean
file_output(const TcFileSession *file, char **directory,
	    struct tc_consumer_relay_output **relay, GError **error)
{
	g_autofree char *control =
		file->control_url ? tc_session_file_relay_url(file->control_url) : NULL;
	g_autofree char *data = file->data_url ? tc_session_file_relay_url(file->data_url) : NULL;
	const TcSessionOutputOptions options = {
		.snapshot = file->snapshot,
		.ctrl_url = control,
		.data_url = data,
		.has_live_timer = file->live_timer_us != 0,
		.live_timer_us = file->live_timer_us,
	};

	if (file->path && !tc_validate_output_directory(file->path, error))
		return FALSE;
	return tc_session_output_resolve(&options, file->path ? file->path : "", directory, relay,
					 error);
}

/* Worker thread: the session of the file, not yet created, with its
 * output. A relay is connected to by the owner's consumer when it
 * answers: at boot it may come up after the service, and a session the
 * administrator asked for must not be lost for that (its Problem says
 * the relay is unreachable meanwhile). */
static TcSession *
new_session(const TcFileSession *file, uid_t owner, GError **error)
{
	g_autofree struct tc_consumer_relay_output *relay = NULL;
	g_autofree char *directory = NULL;
	g_autoptr(TcSession) session = NULL;

	if (!file_output(file, &directory, &relay, error))
		return NULL;
	if (relay == NULL && *directory == '\0') {
		g_free(directory);
		directory = tc_session_output_default_directory(owner, file->name, error);
		if (directory == NULL)
			return NULL;
	}
	/* A relay session has no local directory: its paths are the relay's. */
	session = tc_session_new(file->name, owner, relay ? "" : directory);
	session->output_is_default = relay == NULL && file->path == NULL;
	session->snapshot = file->snapshot;
	if (relay) {
		relay->flags |= TC_CONSUMER_RELAY_CONNECT_LATER;
		if (!tc_session_output_set_relay(session, g_steal_pointer(&relay), error))
			return NULL;
	}
	return g_steal_pointer(&session);
}

/* Worker thread: the session, set up as a CreateSession call of the
 * owner's would (owner's limits, home and consumer). */
static gboolean
apply_create_session_cb(gpointer data, const TcFileSession *file, GError **error)
{
	TcAutoloadApply *apply = data;
	g_autoptr(TcSession) session = NULL;

	if (!check_supported(file, apply->owner, error) ||
	    !tc_validate_name("session", file->name, error))
		return FALSE;
	session = new_session(file, apply->owner, error);
	if (session == NULL || !tc_session_ops_create(session, error))
		return FALSE;
	apply->session = g_steal_pointer(&session);
	return TRUE;
}

static void
apply_discard_cb(gpointer data, const TcFileSession *file, GError **error G_GNUC_UNUSED)
{
	TcAutoloadApply *apply = data;
	g_autoptr(GError) destroy_error = NULL;

	if (!tc_session_ops_destroy(apply->session, &destroy_error)) {
		g_autofree char *name = g_strescape(file->name, NULL);

		g_warning("Cannot destroy the half-loaded session '%s': %s", name,
			  destroy_error->message);
	}
}

static const TcSessionFileApplyFuncs autoload_apply_funcs = TC_SESSION_FILE_APPLY_FUNCS(apply);

/* Worker thread: owner's session of the file, set up as a CreateSession
 * call of owner's would (owner's limits, home and consumer), or NULL with
 * nothing left behind. */
static TcSession *
load_session(const TcFileSession *file, uid_t owner, GError **error)
{
	TcAutoloadApply apply = {.owner = owner};
	g_autoptr(TcSession) session = NULL;
	gboolean ok = tc_session_file_apply(file, &autoload_apply_funcs, &apply, error);

	session = g_steal_pointer(&apply.session);
	if (!ok)
		return NULL;
	tc_session_op_relay_refresh_problem(session);
	return g_steal_pointer(&session);
}

/* Owner's thread: a file refused whole, logged with its path, owner and
 * line apart (journal fields) and in the message, then left: a user's bad
 * file stops neither that user's other files nor anyone else's. */
static void
log_refused_file(const char *path, uid_t owner, const GError *error)
{
	g_auto(TcUserAccount) account = {0};
	const char *user = tc_user_account_lookup(owner, &account, NULL) ? account.name : "?";
	/* Both may hold what the file's owner chose: one line each. */
	g_autofree char *shown = g_strescape(path, NULL);
	g_autofree char *why = g_strescape(error->message, NULL);
	g_autofree char *uid = g_strdup_printf("%u", (unsigned)owner);
	g_autofree char *line = g_strdup_printf("%ld", tc_session_file_error_line(error));

	g_log_structured(G_LOG_DOMAIN, G_LOG_LEVEL_WARNING, "TRACECTL_FILE", path, "TRACECTL_LINE",
			 line, "TRACECTL_OWNER_UID", uid, "TRACECTL_USER", user, "MESSAGE",
			 "Auto-load: '%s' of user %s (uid %s) refused at line %s: %s", shown, user,
			 uid, line, why);
}

/* An owner's loading (tc_owner_pool_push()): the owner's files of the
 * system's directory, then, as home says, the owner's own directory. */
typedef enum {
	TC_AUTOLOAD_HOME_NO,
	TC_AUTOLOAD_HOME_CLAIMED,   /* claimed by whoever pushed the load */
	TC_AUTOLOAD_HOME_IF_LOADED, /* if a session of the system's files loaded */
} TcAutoloadHome;

/* A tc_idle_hold() taken on the main loop for loads under way, given
 * back on the main loop once the last of them is done. */
typedef struct {
	gint refcount;
} TcAutoloadHold;

typedef struct {
	GPtrArray *paths;    /* char *: the system's files of the owner, */
	GPtrArray *contents; /* GBytes *: and what they hold, read and checked */
	TcAutoloadHome home;
	guint loaded; /* sessions loaded so far */
	TcAutoloadHold *hold;
} TcOwnerLoad;

/* A loaded session, to export on the main loop. */
typedef struct {
	TcSession *session;
	TcAutoloadHold *hold;
} TcAutoloadPublish;

/* Main thread: one more tc_idle_hold(). */
static TcAutoloadHold *
hold_new(void)
{
	TcAutoloadHold *hold = g_new0(TcAutoloadHold, 1);

	hold->refcount = 1;
	tc_idle_hold();
	return hold;
}

static TcAutoloadHold *
hold_ref(TcAutoloadHold *hold)
{
	g_atomic_int_inc(&hold->refcount);
	return hold;
}

static gboolean
hold_release_cb(gpointer data)
{
	g_free(data);
	tc_idle_release();
	return G_SOURCE_REMOVE;
}

/* Any thread: idle sources of one priority run in the order they were
 * added, so the release comes after every publish_cb() of the loads. */
static void
hold_unref(TcAutoloadHold *hold)
{
	if (g_atomic_int_dec_and_test(&hold->refcount))
		g_idle_add(hold_release_cb, hold);
}

/* Set at start, before any thread of ours runs: read on the main loop. */
static TcAutoloadPublishFunc autoload_publish;

/* Main thread: a loaded session gets its D-Bus objects. */
static gboolean
publish_cb(gpointer data)
{
	TcAutoloadPublish *publish = data;
	g_autoptr(GError) error = NULL;

	if (!autoload_publish(publish->session, &error))
		g_warning("Auto-load: cannot export session '%s': %s", publish->session->name,
			  error->message);
	tc_session_unref(publish->session);
	hold_unref(publish->hold);
	g_free(publish);
	return G_SOURCE_REMOVE;
}

/* Owner's thread: session, just loaded, is exported now, not once every
 * load is done: its owner may manage it at once. Takes session. */
static void
publish_later(TcOwnerLoad *load, TcSession *session)
{
	TcAutoloadPublish *publish = g_new0(TcAutoloadPublish, 1);

	publish->session = session;
	publish->hold = hold_ref(load->hold);
	load->loaded++;
	g_idle_add(publish_cb, publish);
}

/* Set once loading stops: loads under way end at their next session. */
static gint autoload_stopping;

/* Owner's thread: every session of one file's contents, owner's, each
 * published once loaded; path names the file in logs. */
static void
load_contents(const char *path, const char *contents, gsize length, uid_t owner, TcOwnerLoad *load)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) sessions = tc_session_file_parse(contents, length, &error);
	/* The path, the session names and the reasons hold what the file's
	 * owner chose: escaped, one line each. */
	g_autofree char *shown = g_strescape(path, NULL);

	if (sessions == NULL) {
		log_refused_file(path, owner, error);
		return;
	}
	for (guint i = 0; i < sessions->len && !g_atomic_int_get(&autoload_stopping); i++) {
		const TcFileSession *file = g_ptr_array_index(sessions, i);
		TcSession *session = load_session(file, owner, &error);

		g_autofree char *name = g_strescape(file->name, NULL);

		if (session == NULL) {
			g_autofree char *why = g_strescape(error->message, NULL);

			g_warning("Auto-load: '%s': session '%s' not loaded: %s", shown, name, why);
			g_clear_error(&error);
			continue;
		}
		g_message("Auto-load: '%s': session '%s' loaded for uid %u%s", shown, name,
			  (unsigned)owner, file->started ? ", recording" : "");
		publish_later(load, session);
	}
}

static TcOwnerLoad *
owner_load_new(TcAutoloadHome home, TcAutoloadHold *hold)
{
	TcOwnerLoad *load = g_new0(TcOwnerLoad, 1);

	load->paths = g_ptr_array_new_with_free_func(g_free);
	load->contents = g_ptr_array_new_with_free_func((GDestroyNotify)g_bytes_unref);
	load->home = home;
	load->hold = hold_ref(hold);
	return load;
}

/* Any thread: a load done or dropped. */
static void
owner_load_free(TcOwnerLoad *load)
{
	g_ptr_array_unref(load->paths);
	g_ptr_array_unref(load->contents);
	hold_unref(load->hold);
	g_free(load);
}

/* Start thread: one checked file of the system's directory, read, into
 * its owner's load (uid -> TcOwnerLoad in loads). */
static void
read_file(int dir_fd, const char *directory, const char *name, GHashTable *loads,
	  TcAutoloadHold *hold)
{
	g_autofree char *path = g_build_filename(directory, name, NULL);
	g_autoptr(GError) error = NULL;
	char *contents = NULL;
	gsize length = 0;
	uid_t owner = 0;
	TcOwnerLoad *load;

	contents = read_checked_file(dir_fd, path, name, &length, &owner, &error);
	if (contents == NULL) {
		g_autofree char *why = g_strescape(error->message, NULL);

		g_warning("Auto-load: %s", why);
		return;
	}
	load = g_hash_table_lookup(loads, GUINT_TO_POINTER(owner));
	if (load == NULL) {
		load = owner_load_new(TC_AUTOLOAD_HOME_IF_LOADED, hold);
		g_hash_table_insert(loads, GUINT_TO_POINTER(owner), load);
	}
	g_ptr_array_add(load->paths, g_steal_pointer(&path));
	g_ptr_array_add(load->contents, g_bytes_new_take(contents, length));
}

/* The session file names of the directory (tc-session-file-list.h), at
 * most TC_AUTOLOAD_FILES_MAX, sorted; none when it cannot be listed.
 * dir_fd stays the caller's. */
static void
list_session_files(int dir_fd, const char *directory, struct tc_session_file_list *list)
{
	int ret = tc_session_file_list(dir_fd, TC_AUTOLOAD_FILES_MAX, list);

	if (ret < 0) {
		g_warning("Auto-load: cannot list '%s': %s", directory, g_strerror(-ret));
		return;
	}
	if (list->seen > list->max)
		g_warning("Auto-load: '%s' holds %zu session files; reading the first %d",
			  directory, list->seen, TC_AUTOLOAD_FILES_MAX);
}

/* Main thread: the start thread, until tc_session_autoload_wait(), and
 * the owners' threads, from start to tc_session_autoload_wait(). */
static GThread *autoload_thread_handle;
static TcOwnerPool *loads_pool;

typedef struct {
	GDBusConnection *connection; /* the service's bus, for logind */
	char *directory;	     /* the system's */
	TcAutoloadHold *hold;
} TcAutoloadStart;

static void
autoload_start_free(TcAutoloadStart *start)
{
	g_clear_object(&start->connection);
	g_free(start->directory);
	hold_unref(start->hold);
	g_free(start);
}

/* Every checked file of the directory dir_fd, in name order, read into
 * its owner's load. Takes dir_fd. */
static void
read_directory_fd(int dir_fd, const char *directory, GHashTable *loads, TcAutoloadHold *hold)
{
	struct tc_session_file_list list;

	list_session_files(dir_fd, directory, &list);
	for (size_t i = 0; i < list.count; i++)
		read_file(dir_fd, directory, list.names[i], loads, hold);
	tc_session_file_list_clear(&list);
	close(dir_fd);
}

/* Every checked file of the system's directory, in name order, read into
 * its owner's load (uid -> TcOwnerLoad in loads). Only reads: the files
 * are bounded, local and root's directory's; the loading, which waits on
 * the owners' consumers, is each owner's thread's. */
static void
read_directory(const char *directory, GHashTable *loads, TcAutoloadHold *hold)
{
	g_autoptr(GError) error = NULL;
	int dir_fd = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (dir_fd < 0) {
		if (errno == ELOOP)
			g_warning("Auto-load: refusing '%s': a symbolic link", directory);
		else if (errno != ENOENT)
			g_warning("Auto-load: cannot open '%s': %s", directory, g_strerror(errno));
		return;
	}
	if (!check_directory(dir_fd, directory, &error)) {
		g_warning("Auto-load: %s", error->message);
		close(dir_fd);
		return;
	}
	read_directory_fd(dir_fd, directory, loads, hold);
}

/* The users logind knows are logged in; none without logind. */
static void
add_logged_in_users(GDBusConnection *connection, GArray *users)
{
	g_autoptr(GVariant) reply = NULL;
	g_autoptr(GVariantIter) iter = NULL;
	g_autoptr(GError) error = NULL;
	guint32 uid;

	if (connection)
		reply = g_dbus_connection_call_sync(
			connection, "org.freedesktop.login1", "/org/freedesktop/login1",
			"org.freedesktop.login1.Manager", "ListUsers", NULL,
			G_VARIANT_TYPE("(a(uso))"), G_DBUS_CALL_FLAGS_NONE, 5000, NULL, &error);
	if (reply == NULL) {
		g_debug("Auto-load: no logged-in users from logind: %s",
			error ? error->message : "no bus");
		return;
	}
	g_variant_get(reply, "(a(uso))", &iter);
	while (g_variant_iter_loop(iter, "(u&s&o)", &uid, NULL, NULL))
		g_array_append_val(users, uid);
}

static gint
compare_uids(gconstpointer a, gconstpointer b)
{
	guint32 x = *(const guint32 *)a, y = *(const guint32 *)b;

	return x < y ? -1 : x > y;
}

/* The users logged in now whose own directories are read at start, but
 * not root (root's are the system's), sorted, each once, at most
 * TC_AUTOLOAD_USERS_MAX. (The owners of the system's files read theirs
 * on their own thread, once a session of theirs loaded.) */
static GArray *
home_users(GDBusConnection *connection)
{
	GArray *users = g_array_new(FALSE, FALSE, sizeof(guint32));
	guint kept = 0;

	add_logged_in_users(connection, users);
	g_array_sort(users, compare_uids);
	for (guint i = 0; i < users->len; i++) {
		guint32 uid = g_array_index(users, guint32, i);

		if (uid != 0 && (kept == 0 || g_array_index(users, guint32, kept - 1) != uid))
			g_array_index(users, guint32, kept++) = uid;
	}
	g_array_set_size(users, kept);
	if (users->len > TC_AUTOLOAD_USERS_MAX) {
		g_warning("Auto-load: %u users; reading the directories of the first %d",
			  users->len, TC_AUTOLOAD_USERS_MAX);
		g_array_set_size(users, TC_AUTOLOAD_USERS_MAX);
	}
	return users;
}

/* The files of user's own directory, read by user's consumer with user's
 * rights (tc-home-sessions.h): the service reads no home. The consumer
 * is started for this if the user has none; it is let go again when the
 * user has no session after the load, so a login without session files
 * leaves no consumer behind. */
static void
load_home(uid_t user, TcOwnerLoad *load)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(TcConsumer) consumer = tc_consumer_get(user, &error);
	g_autoptr(GPtrArray) files = NULL;

	if (consumer)
		files = tc_home_sessions_read(consumer, user, &error);
	if (files == NULL) {
		/* The consumer runs as the user, and may say anything. */
		g_autofree char *why = g_strescape(error->message, NULL);

		g_warning("Auto-load: uid %u: %s", (unsigned)user, why);
	} else {
		for (guint i = 0; i < files->len; i++) {
			TcHomeSessionFile *file = g_ptr_array_index(files, i);
			gsize length = 0;
			const char *contents = g_bytes_get_data(file->contents, &length);

			/* An empty file's bytes may be NULL; the parser wants text. */
			load_contents(file->path, contents ? contents : "", length, user, load);
		}
	}
	if (consumer)
		tc_consumer_retire_if_unused(consumer, tc_registry_user_has_sessions);
}

/* The users whose own directory was read (or is being read) since the
 * service started, from the start-time thread and at logind's UserNew
 * alike: each user's directory is read once per service lifetime, so a
 * user's second login, or a UserNew racing ListUsers, never loads the
 * same sessions twice. At most TC_AUTOLOAD_USERS_MAX. */
static GMutex claimed_lock;
static GHashTable *claimed_users; /* uid → itself, under claimed_lock */

/* Any thread: TRUE if user's directory is still to be read, and now
 * claimed by the caller. */
static gboolean
claim_user(uid_t user)
{
	g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&claimed_lock);

	if (claimed_users == NULL)
		claimed_users = g_hash_table_new(NULL, NULL);
	if (g_hash_table_contains(claimed_users, GUINT_TO_POINTER(user)))
		return FALSE;
	if (g_hash_table_size(claimed_users) >= TC_AUTOLOAD_USERS_MAX) {
		g_warning("Auto-load: uid %u: the directories of %d users were read already; "
			  "not reading more",
			  (unsigned)user, TC_AUTOLOAD_USERS_MAX);
		return FALSE;
	}
	g_hash_table_add(claimed_users, GUINT_TO_POINTER(user));
	return TRUE;
}

/* loads_pool's function: the owner's files of the system's directory,
 * then their own directory. On a thread of the owner's, as every load
 * waits on the owner's consumer (a relay or an output of theirs that
 * hangs holds it): another owner's sessions and logins never wait for
 * them, and each session is published as soon as it is loaded. */
static void
owner_load_run(TcOwnerPool *pool, uid_t owner, gpointer data, gpointer unused)
{
	TcOwnerLoad *load = data;

	for (guint i = 0; i < load->paths->len && !tc_owner_pool_is_stopping(pool); i++) {
		GBytes *bytes = g_ptr_array_index(load->contents, i);
		gsize length = 0;
		const char *contents = g_bytes_get_data(bytes, &length);

		load_contents(g_ptr_array_index(load->paths, i), contents ? contents : "", length,
			      owner, load);
	}
	if (tc_owner_pool_is_stopping(pool) || owner == 0)
		return;
	if (load->home == TC_AUTOLOAD_HOME_CLAIMED ||
	    (load->home == TC_AUTOLOAD_HOME_IF_LOADED && load->loaded > 0 && claim_user(owner)))
		load_home(owner, load);
}

/* Start thread: each owner's load to the owner's thread. Takes loads. */
static void
push_loads(GHashTable *loads)
{
	GHashTableIter iter;
	gpointer key, value;

	g_hash_table_iter_init(&iter, loads);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		g_hash_table_iter_steal(&iter);
		tc_owner_pool_push(loads_pool, GPOINTER_TO_UINT(key), value);
	}
	g_hash_table_unref(loads);
}

/* A thread of the service's own, for logind's ListUsers: it reads the
 * system's directory and hands each owner's files, then each logged-in
 * user's directory, to that owner's thread. */
static gpointer
autoload_thread(gpointer data)
{
	TcAutoloadStart *start = data;
	GHashTable *loads =
	    g_hash_table_new_full(NULL, NULL, NULL, (GDestroyNotify)owner_load_free);
	g_autoptr(GArray) users = NULL;

	read_directory(start->directory, loads, start->hold);
	push_loads(loads);
	users = home_users(start->connection);
	for (guint i = 0; i < users->len; i++) {
		uid_t user = g_array_index(users, guint32, i);

		if (claim_user(user))
			tc_owner_pool_push(loads_pool, user,
					   owner_load_new(TC_AUTOLOAD_HOME_CLAIMED, start->hold));
	}
	autoload_start_free(start);
	return NULL;
}

/* Main thread: the watch on logind's UserNew. */
static guint user_new_subscription;
static GDBusConnection *user_new_connection;

/* Main thread: logind's UserNew (uid, object path). Only logind can send
 * it: the match names its bus name, which only logind may own on the
 * system bus. Root's sessions are the system directory's. */
static void
user_new_cb(GDBusConnection *connection G_GNUC_UNUSED, const char *sender G_GNUC_UNUSED,
	    const char *path G_GNUC_UNUSED, const char *interface G_GNUC_UNUSED,
	    const char *signal G_GNUC_UNUSED, GVariant *parameters, gpointer user_data G_GNUC_UNUSED)
{
	TcAutoloadHold *hold;
	guint32 uid;

	if (!g_variant_is_of_type(parameters, G_VARIANT_TYPE("(uo)")))
		return;
	g_variant_get(parameters, "(u&o)", &uid, NULL);
	if (uid == 0 || loads_pool == NULL || !claim_user(uid))
		return;
	g_message("Auto-load: uid %u logged in; reading their session directory", (unsigned)uid);
	hold = hold_new();
	if (!tc_owner_pool_push(loads_pool, uid, owner_load_new(TC_AUTOLOAD_HOME_CLAIMED, hold)))
		g_warning("Auto-load: uid %u: the service stops; not reading their directory",
			  (unsigned)uid);
	hold_unref(hold);
}

/* Main thread: before ListUsers is called, so that a user logging in
 * meanwhile is in one of the two (claim_user() keeps them from both). */
static void
watch_user_new(GDBusConnection *connection)
{
	user_new_connection = g_object_ref(connection);
	user_new_subscription = g_dbus_connection_signal_subscribe(
		connection, "org.freedesktop.login1", "org.freedesktop.login1.Manager", "UserNew",
		"/org/freedesktop/login1", NULL, G_DBUS_SIGNAL_FLAGS_NONE, user_new_cb, NULL, NULL);
}

void
tc_session_autoload_start(GDBusConnection *connection, const char *directory,
			  TcAutoloadPublishFunc publish)
{
	TcAutoloadStart *start = g_new0(TcAutoloadStart, 1);

	autoload_publish = publish;

	/* Threads as owners loading at once: one each at most. */
	loads_pool = tc_owner_pool_new(owner_load_run, (GDestroyNotify)owner_load_free, NULL);
	if (connection)
		watch_user_new(connection);
	start->connection = connection ? g_object_ref(connection) : NULL;
	start->directory = g_strdup(directory);
	/* Busy until the sessions are published: an idle exit now would
	 * drop them half-made. */
	start->hold = hold_new();
	autoload_thread_handle = g_thread_new("tc-autoload", autoload_thread, start);
}

void
tc_session_autoload_wait(void)
{
	if (user_new_subscription)
		g_dbus_connection_signal_unsubscribe(user_new_connection, user_new_subscription);
	user_new_subscription = 0;
	g_clear_object(&user_new_connection);
	if (autoload_thread_handle)
		g_thread_join(g_steal_pointer(&autoload_thread_handle));
	/* Waits for the session each owner's thread is loading; the rest are
	 * dropped: each may wait on a consumer for long, and a stopping
	 * service publishes nothing more. */
	g_atomic_int_set(&autoload_stopping, TRUE);
	g_clear_pointer(&loads_pool, tc_owner_pool_free);
}
