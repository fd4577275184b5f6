/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Notifiers: the shared pages of event-rule triggers and what each
 * application was told about them (TcApp.notifiers: the notifier's
 * handle -> the set of event indexes enabled in it). Lock order: the
 * table's lock is taken alone; applications' locks are taken after it
 * was let go, on references.
 */
#define G_LOG_DOMAIN "tracectld-notifier"

#include "tc-notifier.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tc-app-protocol.h"
#include "tc-app.h"
#include "tc-error.h"
#include "tc-registry.h"

/* Notifier handles have the top bit set: channel handles count from 1 and
 * never reach it, so the two never name the same thing in an application. */
#define TC_NOTIFIER_HANDLE_BIT (G_GUINT64_CONSTANT(1) << 63)

struct _TcNotifier {
	gint refcount;
	guint64 handle;
	uid_t owner_uid;
	TcEventRule *rule;
	int memfd;
	const struct tracectl_notifier_page *page; /* read-only mapping */
};

static GMutex lock;
static GPtrArray *notifiers; /* [lock] TcNotifier * references */
static guint64 next_serial;  /* [lock] */

static TcNotifier *
notifier_ref(TcNotifier *notifier)
{
	g_atomic_int_inc(&notifier->refcount);
	return notifier;
}

static void
notifier_unref(TcNotifier *notifier)
{
	if (notifier == NULL || !g_atomic_int_dec_and_test(&notifier->refcount))
		return;
	if (notifier->page)
		munmap((void *)notifier->page, TRACECTL_NOTIFIER_PAGE_SIZE);
	if (notifier->memfd >= 0)
		close(notifier->memfd);
	tc_event_rule_free(notifier->rule);
	g_free(notifier);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TcNotifier, notifier_unref)

/* A page nobody can shrink, grow or unseal: an application holding the
 * descriptor cannot make the service's reads fault. */
static gboolean
make_page(TcNotifier *notifier, GError **error)
{
	void *mapping;

	notifier->memfd = memfd_create("tracectl-notifier", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (notifier->memfd < 0 || ftruncate(notifier->memfd, TRACECTL_NOTIFIER_PAGE_SIZE) < 0 ||
	    fcntl(notifier->memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "Cannot make a notifier page: %s",
			    g_strerror(errno));
		return FALSE;
	}
	mapping = mmap(NULL, TRACECTL_NOTIFIER_PAGE_SIZE, PROT_READ, MAP_SHARED, notifier->memfd,
		       0);
	if (mapping == MAP_FAILED) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "Cannot map a notifier page: %s",
			    g_strerror(errno));
		return FALSE;
	}
	notifier->page = mapping;
	return TRUE;
}

static gboolean
send_to_app(TcApp *app, void *msg, guint32 type, guint32 size, const int *fds, guint n_fds)
{
	guint32 seq = app->next_seq++;

	if (app->next_seq == 0)
		app->next_seq = 1;
	return tc_app_protocol_send_locked(app, msg, type, size, seq, fds, n_fds);
}

/* [A] The set of event indexes enabled in the notifier, NULL when the
 * application does not have it yet. */
static GHashTable *
app_notifier_events(TcApp *app, guint64 handle)
{
	return app->notifiers ? g_hash_table_lookup(app->notifiers, &handle) : NULL;
}

static GHashTable *
give_notifier_locked(TcApp *app, TcNotifier *notifier)
{
	struct tracectl_msg_notifier msg = {
		.channel_handle = notifier->handle,
		.shm_size = TRACECTL_NOTIFIER_PAGE_SIZE,
	};
	GHashTable *events;

	if (!send_to_app(app, &msg, TRACECTL_MSG_NOTIFIER_ADD, sizeof(msg), &notifier->memfd, 1))
		return NULL;
	if (app->notifiers == NULL)
		app->notifiers = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
						       (GDestroyNotify)g_hash_table_unref);
	events = g_hash_table_new(g_direct_hash, g_direct_equal);
	g_hash_table_insert(app->notifiers, g_memdup2(&notifier->handle, sizeof(guint64)), events);
	return events;
}

/* [A] Sends the event's filter, then enables it: never enabled with
 * another filter than the rule's. FALSE when the application is gone. */
static gboolean
enable_event_locked(TcApp *app, TcNotifier *notifier, guint index, GBytes *filter)
{
	struct tracectl_msg_event_enable enable = {
		.channel_handle = notifier->handle,
		.index = index,
	};
	gsize size = filter ? g_bytes_get_size(filter) : 0;

	if (size > 0) {
		g_autofree struct tracectl_msg_event_filter *msg =
			g_new0(struct tracectl_msg_event_filter, 1);

		g_assert(size <= TC_FILTER_BYTECODE_MAX);
		msg->channel_handle = notifier->handle;
		msg->index = index;
		msg->size = (guint32)size;
		memcpy(msg->bytecode, g_bytes_get_data(filter, NULL), size);
		if (!send_to_app(app, msg, TRACECTL_MSG_EVENT_FILTER, sizeof(*msg), NULL, 0))
			return FALSE;
	}
	return send_to_app(app, &enable, TRACECTL_MSG_EVENT_ENABLE, sizeof(enable), NULL, 0);
}

/* [A] Gives app the notifier and enables in it the events the rule
 * selects that are not enabled yet. An event its filter cannot apply to
 * (a field it lacks) is left out. */
static void
sync_app_locked(TcApp *app, TcNotifier *notifier)
{
	GHashTable *events;

	if (app->state != TC_APP_REGISTERED ||
	    (notifier->owner_uid != 0 && app->uid != notifier->owner_uid))
		return;
	events = app_notifier_events(app, notifier->handle);
	if (events == NULL && (events = give_notifier_locked(app, notifier)) == NULL)
		return;
	for (guint index = 0; index < app->events->len; index++) {
		const TcAppEvent *event = g_ptr_array_index(app->events, index);
		g_autoptr(GBytes) filter = NULL;

		if (g_hash_table_contains(events, GUINT_TO_POINTER(index)) ||
		    !tc_event_rule_selects(notifier->rule, event->name, event->loglevel))
			continue;
		if (notifier->rule->filter != NULL) {
			filter = tc_filter_compile(&notifier->rule->filter, 1, event->fields,
						   event->nr_fields, NULL);
			if (filter == NULL)
				continue;
		}
		if (!enable_event_locked(app, notifier, index, filter))
			return;
		g_hash_table_add(events, GUINT_TO_POINTER(index));
	}
}

static void
sync_apps(TcNotifier *notifier)
{
	g_autoptr(GPtrArray) apps =
		tc_registry_list_apps(notifier->owner_uid, notifier->owner_uid == 0);

	for (guint i = 0; i < apps->len; i++) {
		TcApp *app = g_ptr_array_index(apps, i);

		g_mutex_lock(&app->lock);
		sync_app_locked(app, notifier);
		g_mutex_unlock(&app->lock);
	}
}

TcNotifier *
tc_notifier_new(uid_t owner, TcEventRule *rule, GError **error)
{
	g_autoptr(TcNotifier) notifier = g_new0(TcNotifier, 1);

	notifier->refcount = 1;
	notifier->owner_uid = owner;
	notifier->rule = rule;
	notifier->memfd = -1;
	if (!make_page(notifier, error))
		return NULL;
	g_mutex_lock(&lock);
	if (notifiers == NULL)
		notifiers = g_ptr_array_new_with_free_func((GDestroyNotify)notifier_unref);
	notifier->handle = TC_NOTIFIER_HANDLE_BIT | ++next_serial;
	g_ptr_array_add(notifiers, notifier_ref(notifier));
	g_mutex_unlock(&lock);
	sync_apps(notifier);
	return g_steal_pointer(&notifier);
}

/* [A] Dead already when the application has it no more. */
static void
take_back_locked(TcApp *app, TcNotifier *notifier)
{
	struct tracectl_msg_channel msg = {
		.session_handle = TRACECTL_NOTIFIER_SESSION,
		.channel_handle = notifier->handle,
	};

	if (app_notifier_events(app, notifier->handle) == NULL)
		return;
	if (app->state != TC_APP_DEAD)
		send_to_app(app, &msg, TRACECTL_MSG_CHANNEL_REMOVE, sizeof(msg), NULL, 0);
	g_hash_table_remove(app->notifiers, &notifier->handle);
}

void
tc_notifier_free(TcNotifier *notifier)
{
	g_autoptr(GPtrArray) apps = NULL;

	if (notifier == NULL)
		return;
	g_mutex_lock(&lock);
	g_ptr_array_remove(notifiers, notifier);
	g_mutex_unlock(&lock);
	apps = tc_registry_list_apps(notifier->owner_uid, notifier->owner_uid == 0);
	for (guint i = 0; i < apps->len; i++) {
		TcApp *app = g_ptr_array_index(apps, i);

		g_mutex_lock(&app->lock);
		take_back_locked(app, notifier);
		g_mutex_unlock(&app->lock);
	}
	notifier_unref(notifier);
}

guint64
tc_notifier_count(const TcNotifier *notifier)
{
	return __atomic_load_n(&notifier->page->count, __ATOMIC_RELAXED);
}

const char *
tc_notifier_pattern(const TcNotifier *notifier)
{
	return notifier->rule->pattern;
}

void
tc_notifier_sync_app(TcApp *app)
{
	g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func((GDestroyNotify)notifier_unref);

	g_mutex_lock(&lock);
	for (guint i = 0; notifiers != NULL && i < notifiers->len; i++)
		g_ptr_array_add(all, notifier_ref(g_ptr_array_index(notifiers, i)));
	g_mutex_unlock(&lock);
	g_mutex_lock(&app->lock);
	for (guint i = 0; i < all->len; i++)
		sync_app_locked(app, g_ptr_array_index(all, i));
	g_mutex_unlock(&app->lock);
}
