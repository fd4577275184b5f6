/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests of the session operations (tc-session-ops.c) and of the
 * shadow copy of a session into a registered application (tc-app-sync.c),
 * without root, polkitd or a bus: the operations are called directly, the
 * consumer is tracectl-consumerd started as the test's own uid, and the
 * application is the far end of a socketpair, answered by a thread that
 * plays the application listener.
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdarg.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tc-app-protocol.h"
#include "tc-app-sync.h"
#include "tc-app.h"
#include "tc-channel-config.h"
#include "tc-channel.h"
#include "tc-error.h"
#include "tc-perf-counter.h"
#include "tc-registry.h"
#include "tc-session-op-snapshot.h"
#include "tc-session-ops.h"
#include "tc-session.h"

typedef struct {
	char *root; /* a private temporary directory */
	TcSession *session;
} Fixture;

static guint session_counter;

static void
fixture_set_up(Fixture *fixture, gconstpointer unused)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *name = g_strdup_printf("unit-%u", ++session_counter);
	g_autofree char *output = NULL;

	fixture->root = g_dir_make_tmp("tc-session-test-XXXXXX", &error);
	g_assert_no_error(error);
	output = g_build_filename(fixture->root, name, NULL);
	fixture->session = tc_session_new(name, getuid(), output);
}

static void
fixture_tear_down(Fixture *fixture, gconstpointer unused)
{
	g_autofree char *command = g_strdup_printf("rm -rf '%s'", fixture->root);

	tc_session_unref(fixture->session);
	g_assert_cmpint(system(command), ==, 0);
	g_free(fixture->root);
}

static TcSessionState
session_state(TcSession *session)
{
	TcSessionState state;

	g_mutex_lock(&session->lock);
	state = session->state;
	g_mutex_unlock(&session->lock);
	return state;
}

/* Create, start, stop, start again, destroy: each operation moves the
 * session to the state it names, and the trace directory is made. */
static void
test_lifecycle(Fixture *fixture, gconstpointer unused)
{
	TcSession *session = fixture->session;
	g_autoptr(TcSession) found = NULL, gone = NULL;
	g_autoptr(GError) error = NULL;

	g_assert_true(tc_session_ops_create(session, &error));
	g_assert_no_error(error);
	g_assert_true(g_file_test(session->trace_dir, G_FILE_TEST_IS_DIR));
	found = tc_registry_find_session_by_name(getuid(), session->name);
	g_assert_true(found == session);
	g_assert_cmpint(session_state(session), ==, TC_SESSION_INACTIVE);

	g_assert_true(tc_session_ops_enable_event(session, "", "unit:*", &error));
	g_assert_no_error(error);
	g_mutex_lock(&session->lock);
	g_assert_nonnull(tc_session_find_channel_locked(session, TC_DEFAULT_CHANNEL));
	g_mutex_unlock(&session->lock);

	g_assert_true(tc_session_ops_start(session, &error));
	g_assert_no_error(error);
	g_assert_cmpint(session_state(session), ==, TC_SESSION_ACTIVE);
	g_assert_true(session->has_buffers);

	g_assert_true(tc_session_ops_stop(session, &error));
	g_assert_no_error(error);
	g_assert_cmpint(session_state(session), ==, TC_SESSION_INACTIVE);
	g_assert_true(tc_session_ops_start(session, &error));
	g_assert_no_error(error);

	g_assert_true(tc_session_ops_destroy(session, &error));
	g_assert_no_error(error);
	g_assert_true(session->destroyed);
	gone = tc_registry_find_session_by_name(getuid(), session->name);
	g_assert_null(gone);
}

/* Each operation refuses what the state of the session does not allow,
 * with the error a client is given, and leaves the state as it was. */
static void
test_state_errors(Fixture *fixture, gconstpointer unused)
{
	TcSession *session = fixture->session;
	TcChannelConfig config, other;
	g_autoptr(GError) error = NULL;

	g_assert_true(tc_session_ops_create(session, &error));
	g_assert_no_error(error);
	g_assert_false(tc_session_ops_stop(session, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_STATE);
	g_clear_error(&error);

	tc_channel_config_init_default(&config, FALSE);
	g_assert_true(tc_session_ops_enable_channel(session, "c1", &config, TC_BUFFERS_UNSET, &error));
	g_assert_no_error(error);
	/* The same channel again: fine with the same settings only. */
	g_assert_true(tc_session_ops_enable_channel(session, "c1", &config, TC_BUFFERS_UNSET, &error));
	g_assert_no_error(error);
	other = config;
	other.num_subbuf *= 2;
	g_assert_false(tc_session_ops_enable_channel(session, "c1", &other, TC_BUFFERS_UNSET, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_ALREADY_EXISTS);
	g_clear_error(&error);
	/* The first channel set per-uid buffers: every channel has them. */
	g_assert_cmpint(fixture->session->ust_buffers, ==, TC_BUFFERS_PER_UID);
	g_assert_false(tc_session_ops_enable_channel(session, "c3", &config, TC_BUFFERS_PER_PID,
						     &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
	g_assert_nonnull(strstr(error->message, "per-UID buffers"));
	g_clear_error(&error);
	g_assert_true(tc_session_ops_enable_channel(session, "c3", &config, TC_BUFFERS_PER_UID,
						    &error));
	g_assert_no_error(error);
	g_assert_cmpuint(fixture->session->channels->len, ==, 2);
	g_assert_false(tc_session_ops_enable_event(session, "nope", "a:b", &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_NOT_FOUND);
	g_clear_error(&error);
	g_assert_false(tc_session_op_snapshot_record(session, &(char *){NULL}, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_STATE);
	g_clear_error(&error);

	g_assert_true(tc_session_ops_start(session, &error));
	g_assert_no_error(error);
	g_assert_false(tc_session_ops_start(session, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_STATE);
	g_clear_error(&error);
	g_assert_cmpint(session_state(session), ==, TC_SESSION_ACTIVE);
	/* Channels only before the first start. */
	g_assert_false(tc_session_ops_enable_channel(session, "c2", &config, TC_BUFFERS_UNSET, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_STATE);
	g_clear_error(&error);

	/* Destroying a started session stops it first. */
	g_assert_true(tc_session_ops_destroy(session, &error));
	g_assert_no_error(error);
	g_assert_cmpint(session_state(session), ==, TC_SESSION_INACTIVE);
	g_assert_false(tc_session_ops_start(session, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_NOT_FOUND);
	g_clear_error(&error);
	g_assert_false(tc_session_ops_destroy(session, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_NOT_FOUND);
}

/* The same session name twice for one user is refused. */
static void
test_create_twice(Fixture *fixture, gconstpointer unused)
{
	g_autoptr(TcSession) twin = tc_session_new(fixture->session->name, getuid(),
						   fixture->root);
	g_autoptr(GError) error = NULL;

	g_assert_true(tc_session_ops_create(fixture->session, &error));
	g_assert_no_error(error);
	g_assert_false(tc_session_ops_create(twin, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_ALREADY_EXISTS);
	g_clear_error(&error);
	g_assert_true(tc_session_ops_destroy(fixture->session, &error));
	g_assert_no_error(error);
}

/* A lost consumer (reported by the consumer client through the callback
 * the daemon sets) marks the sessions of its uid that have buffers, and
 * only those, with a Problem naming the cause. */
static void
test_consumer_lost(Fixture *fixture, gconstpointer unused)
{
	TcSession *session = fixture->session;
	g_autofree char *idle_name = g_strconcat(session->name, "-idle", NULL);
	g_autoptr(TcSession) idle = tc_session_new(idle_name, getuid(), fixture->root);
	g_autoptr(GError) error = NULL;

	g_assert_true(tc_session_ops_create(session, &error));
	g_assert_no_error(error);
	g_assert_true(tc_session_ops_create(idle, &error));
	g_assert_no_error(error);
	g_assert_true(tc_session_ops_start(session, &error));
	g_assert_no_error(error);
	g_test_expect_message("tracectld-session", G_LOG_LEVEL_WARNING, "*unit test*");
	tc_session_ops_consumer_lost(getuid(), "unit test");
	g_test_assert_expected_messages();
	g_mutex_lock(&session->lock);
	g_assert_nonnull(session->problem);
	g_assert_nonnull(strstr(session->problem, "unit test"));
	g_mutex_unlock(&session->lock);
	g_mutex_lock(&idle->lock);
	g_assert_null(idle->problem);
	g_mutex_unlock(&idle->lock);
	g_assert_true(tc_session_ops_destroy(session, &error));
	g_assert_no_error(error);
	g_assert_true(tc_session_ops_destroy(idle, &error));
	g_assert_no_error(error);
}

/*
 * A registered application at the far end of a socketpair. A thread
 * reads what the service sends it, keeps the message types, and answers
 * every command as the application listener would on a REPLY.
 */
typedef struct {
	int fds[2];
	TcApp *app;
	GThread *thread;
	GMutex lock;
	GArray *types;    /* [lock] guint32: the messages received, in order */
	guint streams_fds; /* [lock] descriptors received with STREAM_ADD */
} FakeApp;

static void
answer(FakeApp *fake, guint32 seq)
{
	struct tracectl_msg_reply reply = {
		.header = {.magic = TRACECTL_ABI_MAGIC, .type = TRACECTL_MSG_REPLY,
			   .size = sizeof(reply), .seq = seq},
	};

	g_mutex_lock(&fake->app->lock);
	tc_app_protocol_handle_reply(fake->app, &reply);
	g_mutex_unlock(&fake->app->lock);
}

static gpointer
fake_app_thread(gpointer data)
{
	FakeApp *fake = data;

	for (;;) {
		guint64 buf[TRACECTL_ABI_MSG_MAX / sizeof(guint64)];
		union {
			char buf[CMSG_SPACE(2 * sizeof(int))];
			struct cmsghdr align;
		} control;
		struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
		struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1,
				    .msg_control = control.buf,
				    .msg_controllen = sizeof(control.buf)};
		const struct tracectl_msg_header *header = (const void *)buf;
		ssize_t n = recvmsg(fake->fds[1], &mh, MSG_CMSG_CLOEXEC);

		if (n <= 0)
			return NULL;
		g_assert_cmpint(n, >=, sizeof(*header));
		g_assert_cmpuint(header->magic, ==, TRACECTL_ABI_MAGIC);
		g_assert_cmpuint(header->size, ==, n);
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
			guint count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			int fds[2];

			memcpy(fds, CMSG_DATA(c), count * sizeof(int));
			for (guint i = 0; i < count; i++)
				close(fds[i]);
			g_mutex_lock(&fake->lock);
			fake->streams_fds += count;
			g_mutex_unlock(&fake->lock);
		}
		g_mutex_lock(&fake->lock);
		g_array_append_val(fake->types, header->type);
		g_mutex_unlock(&fake->lock);
		if (header->seq != 0)
			answer(fake, header->seq);
	}
}

static void
fake_app_init(FakeApp *fake)
{
	g_assert_cmpint(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fake->fds), ==, 0);
	fake->app = tc_app_new(fake->fds[0], getpid(), getuid(), getgid());
	fake->app->state = TC_APP_REGISTERED;
	g_mutex_init(&fake->lock);
	fake->types = g_array_new(FALSE, FALSE, sizeof(guint32));
	tc_registry_add_app(fake->app);
	fake->thread = g_thread_new("fake-app", fake_app_thread, fake);
}

static void
fake_app_clear(FakeApp *fake)
{
	g_mutex_lock(&fake->app->lock);
	tc_registry_remove_app_locked(fake->app);
	g_mutex_unlock(&fake->app->lock);
	shutdown(fake->fds[1], SHUT_RDWR);
	g_thread_join(fake->thread);
	tc_app_unref(fake->app);
	close(fake->fds[0]);
	close(fake->fds[1]);
	g_array_unref(fake->types);
	g_mutex_clear(&fake->lock);
}

/* How many messages of type the application received so far. */
static guint
received(FakeApp *fake, guint32 type)
{
	guint count = 0;

	g_mutex_lock(&fake->lock);
	for (guint i = 0; i < fake->types->len; i++)
		count += g_array_index(fake->types, guint32, i) == type;
	g_mutex_unlock(&fake->lock);
	return count;
}

static gboolean
app_is_active_in(FakeApp *fake, TcSession *session)
{
	TcAppSessionState *state;
	gboolean active;

	g_mutex_lock(&fake->app->lock);
	state = fake->app->sessions ? g_hash_table_lookup(fake->app->sessions, &session->id)
				    : NULL;
	active = state && state->active;
	g_mutex_unlock(&fake->app->lock);
	return active;
}

/*
 * The shadow copy: starting the session gives the registered application
 * its channel and a stream (with its memory) per CPU, then the start; the
 * application answers each command, so the operation does not wait for a
 * deadline. Stopping sends the stop, and destroying makes it forget the
 * session and its channel.
 */
static void
test_sync_registered_app(Fixture *fixture, gconstpointer unused)
{
	TcSession *session = fixture->session;
	g_autoptr(GError) error = NULL;
	guint nr_cpus = MAX(1, sysconf(_SC_NPROCESSORS_CONF));
	FakeApp fake;
	gint64 started;

	fake_app_init(&fake);
	g_assert_true(tc_session_ops_create(session, &error));
	g_assert_no_error(error);
	g_assert_true(tc_session_ops_enable_event(session, "", "unit:*", &error));
	g_assert_no_error(error);
	/* Nothing to copy before the session has buffers. */
	g_assert_cmpuint(received(&fake, TRACECTL_MSG_CHANNEL_ADD), ==, 0);

	started = g_get_monotonic_time();
	g_assert_true(tc_session_ops_start(session, &error));
	g_assert_no_error(error);
	g_assert_cmpint(g_get_monotonic_time() - started, <, TC_APP_ACK_TIMEOUT_MS * 1000 / 2);
	g_assert_cmpuint(received(&fake, TRACECTL_MSG_CHANNEL_ADD), ==, 1);
	g_assert_cmpuint(received(&fake, TRACECTL_MSG_STREAM_ADD), ==, nr_cpus);
	g_assert_cmpuint(received(&fake, TRACECTL_MSG_SESSION_START), ==, 1);
	g_assert_true(app_is_active_in(&fake, session));
	g_mutex_lock(&fake.lock);
	g_assert_cmpuint(fake.streams_fds, >=, nr_cpus);
	g_mutex_unlock(&fake.lock);

	/* Idempotent: the same state again sends nothing new. */
	g_mutex_lock(&session->lock);
	g_mutex_lock(&fake.app->lock);
	tc_app_sync_locked(fake.app, session, NULL);
	g_mutex_unlock(&fake.app->lock);
	g_mutex_unlock(&session->lock);
	g_assert_cmpuint(received(&fake, TRACECTL_MSG_CHANNEL_ADD), ==, 1);
	g_assert_cmpuint(received(&fake, TRACECTL_MSG_SESSION_START), ==, 1);

	g_assert_true(tc_session_ops_stop(session, &error));
	g_assert_no_error(error);
	g_assert_cmpuint(received(&fake, TRACECTL_MSG_SESSION_STOP), ==, 1);
	g_assert_false(app_is_active_in(&fake, session));

	g_assert_true(tc_session_ops_destroy(session, &error));
	g_assert_no_error(error);
	g_assert_cmpuint(received(&fake, TRACECTL_MSG_CHANNEL_REMOVE), ==, 1);
	g_mutex_lock(&fake.app->lock);
	g_assert_true(fake.app->sessions == NULL ||
		      g_hash_table_lookup(fake.app->sessions, &session->id) == NULL);
	g_assert_false(fake.app->is_unresponsive);
	g_mutex_unlock(&fake.app->lock);
	fake_app_clear(&fake);
}

/* A channel with application contexts and perf counters: a version 6
 * application is sent both lists before the channel's streams; one of
 * version 5, whose library would write records of another layout into the
 * same buffers, is not given the channel. */
static void
test_sync_app_contexts(Fixture *fixture, gconstpointer unused)
{
	TcSession *session = fixture->session;
	g_autoptr(GError) error = NULL;
	g_autoptr(GArray) counters = g_array_new(FALSE, FALSE, sizeof(struct tc_perf_counter));
	g_autoptr(GPtrArray) app_contexts = g_ptr_array_new_with_free_func(g_free);
	guint nr_cpus = MAX(1, sysconf(_SC_NPROCESSORS_CONF));
	struct tc_perf_counter task_clock;
	FakeApp current, older;

	fake_app_init(&current);
	fake_app_init(&older);
	current.app->abi_version = TRACECTL_ABI_VERSION_APP_CONTEXTS;
	older.app->abi_version = TRACECTL_ABI_VERSION_APP_CONTEXTS - 1;
	g_assert_cmpint(tc_perf_counter_parse("perf:thread:task-clock", &task_clock), ==, 0);
	g_array_append_val(counters, task_clock);
	g_ptr_array_add(app_contexts, g_strdup("p:a"));
	g_assert_true(tc_session_ops_create(session, &error));
	g_assert_true(tc_session_ops_enable_event(session, "", "unit:*", &error));
	g_assert_true(
	    tc_session_ops_add_context(session, "", 0, counters, app_contexts, &error));
	g_assert_no_error(error);
	g_assert_true(tc_session_ops_start(session, &error));
	g_assert_no_error(error);
	g_assert_cmpuint(received(&current, TRACECTL_MSG_CHANNEL_ADD), ==, 1);
	g_assert_cmpuint(received(&current, TRACECTL_MSG_CHANNEL_PERF_COUNTERS), ==, 1);
	g_assert_cmpuint(received(&current, TRACECTL_MSG_CHANNEL_APP_CONTEXTS), ==, 1);
	g_assert_cmpuint(received(&current, TRACECTL_MSG_STREAM_ADD), ==, nr_cpus);
	g_mutex_lock(&current.lock);
	g_assert_cmpuint(g_array_index(current.types, guint32, 1), ==,
			 TRACECTL_MSG_CHANNEL_PERF_COUNTERS);
	g_assert_cmpuint(g_array_index(current.types, guint32, 2), ==,
			 TRACECTL_MSG_CHANNEL_APP_CONTEXTS);
	g_mutex_unlock(&current.lock);
	g_assert_cmpuint(received(&older, TRACECTL_MSG_CHANNEL_ADD), ==, 0);
	g_assert_cmpuint(received(&older, TRACECTL_MSG_STREAM_ADD), ==, 0);
	g_assert_cmpuint(received(&older, TRACECTL_MSG_CHANNEL_APP_CONTEXTS), ==, 0);
	g_assert_true(tc_session_ops_destroy(session, &error));
	fake_app_clear(&current);
	fake_app_clear(&older);
}

/* Per-PID buffers are the first channel's choice: the channels after it
 * that say nothing get them too, one that asks for per-UID is refused. */
static void
test_buffer_scheme(Fixture *fixture, gconstpointer unused)
{
	TcSession *session = fixture->session;
	TcChannelConfig config;
	g_autoptr(GError) error = NULL;

	g_assert_true(tc_session_ops_create(session, &error));
	g_assert_cmpint(session->ust_buffers, ==, TC_BUFFERS_UNSET);
	tc_channel_config_init_default(&config, FALSE);
	g_assert_true(tc_session_ops_enable_channel(session, "a", &config, TC_BUFFERS_PER_PID,
						    &error));
	g_assert_no_error(error);
	g_assert_true(tc_session_ops_enable_channel(session, "b", &config, TC_BUFFERS_UNSET,
						    &error));
	g_assert_no_error(error);
	g_assert_cmpint(session->ust_buffers, ==, TC_BUFFERS_PER_PID);
	g_assert_false(tc_session_ops_enable_channel(session, "c", &config, TC_BUFFERS_PER_UID,
						     &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
	g_assert_nonnull(strstr(error->message, "per-PID buffers"));
	g_assert_cmpuint(session->channels->len, ==, 2);
	g_assert_cmpint(session->ust_buffers, ==, TC_BUFFERS_PER_PID);
}

/* count new raw counters from first on, parsed as AddContext parses
 * them. */
static GArray *
raw_counters(guint first, guint count)
{
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	GArray *counters = g_array_new(FALSE, FALSE, sizeof(struct tc_perf_counter));
	guint32 bits;

	for (guint i = first; i < first + count; i++)
		g_ptr_array_add(names, g_strdup_printf("perf:thread:raw:r%x:c%u", i, i));
	g_ptr_array_add(names, g_strdup("ip"));
	g_ptr_array_add(names, NULL);
	g_autoptr(GPtrArray) apps = g_ptr_array_new_with_free_func(g_free);

	g_assert_true(tc_channel_config_ust_contexts_parse((const char *const *)names->pdata, &bits,
							   counters, apps, NULL));
	return counters;
}

/* A channel's perf counters: each once, at most 16, none added when one
 * call would pass the bound; they are not among the contexts' bits. */
static void
test_perf_counters(Fixture *fixture, gconstpointer unused)
{
	TcSession *session = fixture->session;
	g_autoptr(GError) error = NULL;
	g_autoptr(GArray) ten = raw_counters(0, 10), seven = raw_counters(10, 7);
	g_autoptr(GArray) six = raw_counters(10, 6);
	g_autoptr(GPtrArray) no_apps = g_ptr_array_new();
	TcChannel *channel;

	g_assert_true(tc_session_ops_create(session, &error));
	g_assert_true(tc_session_ops_add_context(session, "", TRACECTL_CONTEXT_VPID |
						 TRACECTL_CONTEXT_IP, ten, no_apps, &error));
	g_assert_no_error(error);
	channel = g_ptr_array_index(session->channels, 0);
	g_assert_cmpuint(channel->perf_counters->len, ==, 10);
	g_assert_true(tc_session_ops_add_context(session, "channel0", TRACECTL_CONTEXT_IP, ten,
						 no_apps, &error));
	g_assert_cmpuint(channel->perf_counters->len, ==, 10);
	g_assert_false(tc_session_ops_add_context(session, "", 0, seven, no_apps, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
	g_assert_nonnull(strstr(error->message, "would record 17 perf counters, at most 16"));
	g_clear_error(&error);
	g_assert_cmpuint(channel->perf_counters->len, ==, 10);
	g_assert_true(tc_session_ops_add_context(session, "", 0, six, no_apps, &error));
	g_assert_no_error(error);
	g_assert_cmpuint(channel->perf_counters->len, ==, 16);
	g_assert_cmpstr(g_array_index(channel->perf_counters, struct tc_perf_counter, 15).name, ==,
			"perf_thread_raw_rf_c15");
	g_assert_cmphex(channel->contexts, ==, TRACECTL_CONTEXT_VPID | TRACECTL_CONTEXT_IP);
	g_assert_true(tc_session_ops_destroy(session, &error));
}

static GPtrArray *
app_contexts(const char *first, ...)
{
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
	va_list args;

	va_start(args, first);
	for (const char *name = first; name; name = va_arg(args, const char *))
		g_ptr_array_add(names, g_strdup(name));
	va_end(args);
	return names;
}

/* A channel's application contexts: each once, in the order added, at
 * most 8, none added when one call would pass the bound or two would
 * share a CTF field name. */
static void
test_app_contexts(Fixture *fixture, gconstpointer unused)
{
	TcSession *session = fixture->session;
	g_autoptr(GError) error = NULL;
	g_autoptr(GArray) no_counters = g_array_new(FALSE, FALSE, sizeof(struct tc_perf_counter));
	g_autoptr(GPtrArray) six = app_contexts("p:a", "p:b", "p:c", "p:d", "p:e", "p:f", NULL);
	g_autoptr(GPtrArray) three = app_contexts("p:a", "q:a", "q:b", "q:c", NULL);
	g_autoptr(GPtrArray) clash = app_contexts("p_a:x", "p:a_x", NULL);
	g_autoptr(GPtrArray) two = app_contexts("p:b", "q:a", "q:b", NULL);
	TcChannel *channel;

	g_assert_true(tc_session_ops_create(session, &error));
	g_assert_true(tc_session_ops_add_context(session, "", 0, no_counters, six, &error));
	g_assert_no_error(error);
	channel = g_ptr_array_index(session->channels, 0);
	g_assert_cmpuint(channel->app_contexts->len, ==, 6);
	g_assert_false(tc_session_ops_add_context(session, "", 0, no_counters, three, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
	g_assert_nonnull(strstr(error->message, "would record 9 application contexts, at most 8"));
	g_clear_error(&error);
	g_assert_false(tc_session_ops_add_context(session, "", 0, no_counters, clash, &error));
	g_assert_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT);
	g_assert_nonnull(strstr(error->message, "would be recorded as '_app_p_a_x'"));
	g_clear_error(&error);
	g_assert_cmpuint(channel->app_contexts->len, ==, 6);
	g_assert_true(tc_session_ops_add_context(session, "channel0", 0, no_counters, two, &error));
	g_assert_no_error(error);
	g_assert_cmpuint(channel->app_contexts->len, ==, 8);
	g_assert_cmpstr(g_ptr_array_index(channel->app_contexts, 7), ==, "q:b");
	g_assert_cmphex(channel->contexts, ==, 0);
	g_assert_true(tc_session_ops_destroy(session, &error));
}

int
main(int argc, char **argv)
{
	int ret;

	g_test_init(&argc, &argv, NULL);
	rcu_register_thread();
	tc_registry_init();
	g_test_add("/tracectl/session/lifecycle", Fixture, NULL, fixture_set_up, test_lifecycle,
		   fixture_tear_down);
	g_test_add("/tracectl/session/perf-counters", Fixture, NULL, fixture_set_up,
		   test_perf_counters, fixture_tear_down);
	g_test_add("/tracectl/session/app-contexts", Fixture, NULL, fixture_set_up,
		   test_app_contexts, fixture_tear_down);
	g_test_add("/tracectl/session/state-errors", Fixture, NULL, fixture_set_up,
		   test_state_errors, fixture_tear_down);
	g_test_add("/tracectl/session/create-twice", Fixture, NULL, fixture_set_up,
		   test_create_twice, fixture_tear_down);
	g_test_add("/tracectl/session/consumer-lost", Fixture, NULL, fixture_set_up,
		   test_consumer_lost, fixture_tear_down);
	g_test_add("/tracectl/session/sync-registered-app", Fixture, NULL, fixture_set_up,
		   test_sync_registered_app, fixture_tear_down);
	g_test_add("/tracectl/session/sync-app-contexts", Fixture, NULL, fixture_set_up,
		   test_sync_app_contexts, fixture_tear_down);
	g_test_add("/tracectl/session/buffer-scheme", Fixture, NULL, fixture_set_up,
		   test_buffer_scheme, fixture_tear_down);
	ret = g_test_run();
	rcu_barrier();
	rcu_unregister_thread();
	return ret;
}
