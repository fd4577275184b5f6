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
 * are opened relative to the checked directory and checked through their
 * descriptor (tc-session-autoload-files.c). A user's own directory is
 * read by that user's consumer, with the user's rights
 * (tc-home-sessions.h): its files can only become that user's sessions.
 * The parser (tc-session-file.h) treats the contents as hostile either
 * way: bounded, no DTD, every element known.
 *
 * The module is cut into files along its seams: this one runs the loads,
 * the others check and read the files, apply a session, know the users
 * (tc-session-autoload-private.h).
 */
#define G_LOG_DOMAIN "tracectld-autoload"

#include "tc-session-autoload.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "tc-consumer.h"
#include "tc-home-sessions.h"
#include "tc-idle.h"
#include "tc-owner-pool.h"
#include "tc-registry.h"
#include "tc-session-autoload-private.h"
#include "tc-session-file-list.h"
#include "tc-session-file.h"
#include "tc-session.h"
#include "tc-user-account.h"

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
		TcSession *session = tc_session_autoload_apply(file, owner, &error);

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

	contents =
	    tc_session_autoload_files_read_checked(dir_fd, path, name, &length, &owner, &error);
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

	tc_session_autoload_files_list(dir_fd, directory, &list);
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
	if (!tc_session_autoload_files_check_directory(dir_fd, directory, &error)) {
		g_warning("Auto-load: %s", error->message);
		close(dir_fd);
		return;
	}
	read_directory_fd(dir_fd, directory, loads, hold);
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
	    (load->home == TC_AUTOLOAD_HOME_IF_LOADED && load->loaded > 0 &&
	     tc_session_autoload_users_claim(owner)))
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
	users = tc_session_autoload_users_logged_in(start->connection);
	for (guint i = 0; i < users->len; i++) {
		uid_t user = g_array_index(users, guint32, i);

		if (tc_session_autoload_users_claim(user))
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
	if (uid == 0 || loads_pool == NULL || !tc_session_autoload_users_claim(uid))
		return;
	g_message("Auto-load: uid %u logged in; reading their session directory", (unsigned)uid);
	hold = hold_new();
	if (!tc_owner_pool_push(loads_pool, uid, owner_load_new(TC_AUTOLOAD_HOME_CLAIMED, hold)))
		g_warning("Auto-load: uid %u: the service stops; not reading their directory",
			  (unsigned)uid);
	hold_unref(hold);
}

/* Main thread: before ListUsers is called, so that a user logging in
 * meanwhile is in one of the two (tc_session_autoload_users_claim()
 * keeps them from both). */
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
