/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Unit tests of the acknowledgement deadlines and of unresponsive
 * applications (tc-ack-waiter.c, tc-ack-waiter-wait.c, tc-app.c). */
#include <glib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tc-ack-waiter-wait.h"
#include "tc-ack-waiter.h"
#include "tc-app.h"
#include "tc-registry.h"

#define OWNER_UID 1000
#define OTHER_UID 1001
#define OWNER_TIMEOUT_MS 2000

typedef struct {
	int fds[2];
	TcApp *app;
} FakeApp;

static void
fake_app_init(FakeApp *fake, uid_t uid)
{
	g_assert_cmpint(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fake->fds), ==, 0);
	fake->app = tc_app_new(fake->fds[0], getpid(), uid, uid);
	fake->app->state = TC_APP_REGISTERED;
	tc_registry_add_app(fake->app);
}

static void
fake_app_clear(FakeApp *fake)
{
	g_mutex_lock(&fake->app->lock);
	tc_registry_remove_app_locked(fake->app);
	g_mutex_unlock(&fake->app->lock);
	tc_app_unref(fake->app);
	close(fake->fds[0]);
	close(fake->fds[1]);
}

/* As tc-app-sync.c does when it sends command seq: an answer is due. */
static guint32
expect_answer(TcAckWaiter *waiter, TcApp *app)
{
	guint32 seq;

	g_mutex_lock(&app->lock);
	seq = app->next_seq++;
	tc_ack_waiter_expect_locked(waiter, app);
	if (app->pending == NULL)
		app->pending = g_hash_table_new(g_direct_hash, g_direct_equal);
	g_hash_table_insert(app->pending, GUINT_TO_POINTER(seq), waiter);
	g_mutex_unlock(&app->lock);
	return seq;
}

/* Another user's mute application holds a command of the owner's session
 * for TC_ACK_OTHER_USERS_TIMEOUT_MS, not the owner's deadline, and is
 * then not waited for until it answers a later command. */
static void
test_other_users_deadline(void)
{
	FakeApp mute;
	TcAckWaiter waiter;
	gint64 started, elapsed_ms;
	guint32 missed, later;

	fake_app_init(&mute, OTHER_UID);
	tc_ack_waiter_init(&waiter, OWNER_UID);
	missed = expect_answer(&waiter, mute.app);
	started = g_get_monotonic_time();
	tc_ack_waiter_wait(&waiter, OWNER_TIMEOUT_MS);
	elapsed_ms = (g_get_monotonic_time() - started) / 1000;
	g_assert_cmpint(elapsed_ms, >=, TC_ACK_OTHER_USERS_TIMEOUT_MS - 10);
	g_assert_cmpint(elapsed_ms, <, OWNER_TIMEOUT_MS / 2);

	g_mutex_lock(&mute.app->lock);
	g_assert_true(mute.app->is_unresponsive);
	g_assert_cmpuint(g_hash_table_size(mute.app->pending), ==, 0);
	/* A late answer to the missed command: still behind. */
	tc_app_answered_locked(mute.app, missed);
	g_assert_true(mute.app->is_unresponsive);
	/* The answer to a command sent after the mark: caught up. */
	later = mute.app->next_seq++;
	tc_app_answered_locked(mute.app, later);
	g_assert_false(mute.app->is_unresponsive);
	g_mutex_unlock(&mute.app->lock);
	fake_app_clear(&mute);
}

typedef struct {
	TcApp *app;
	TcAckWaiter *waiter;
	guint32 seq;
} Answer;

static gpointer
answer_later_thread(gpointer data)
{
	Answer *answer = data;

	g_usleep(50 * 1000);
	g_mutex_lock(&answer->app->lock);
	tc_app_answered_locked(answer->app, answer->seq);
	g_hash_table_remove(answer->app->pending, GUINT_TO_POINTER(answer->seq));
	tc_ack_waiter_signal_locked(answer->waiter, answer->app);
	g_mutex_unlock(&answer->app->lock);
	return NULL;
}

/* The owner's application that answers is waited for, once, together
 * with another user's mute one: the wait ends with the short deadline. */
static void
test_waited_together(void)
{
	FakeApp owners, mute;
	TcAckWaiter waiter;
	Answer answer;
	GThread *thread;
	gint64 started, elapsed_ms;

	fake_app_init(&owners, OWNER_UID);
	fake_app_init(&mute, OTHER_UID);
	tc_ack_waiter_init(&waiter, OWNER_UID);
	answer.app = owners.app;
	answer.waiter = &waiter;
	answer.seq = expect_answer(&waiter, owners.app);
	expect_answer(&waiter, mute.app);
	expect_answer(&waiter, mute.app);
	started = g_get_monotonic_time();
	thread = g_thread_new("answer", answer_later_thread, &answer);
	tc_ack_waiter_wait(&waiter, OWNER_TIMEOUT_MS);
	elapsed_ms = (g_get_monotonic_time() - started) / 1000;
	g_thread_join(thread);
	g_assert_cmpint(elapsed_ms, >=, TC_ACK_OTHER_USERS_TIMEOUT_MS - 10);
	g_assert_cmpint(elapsed_ms, <, OWNER_TIMEOUT_MS / 2);
	g_assert_false(owners.app->is_unresponsive);
	g_assert_true(mute.app->is_unresponsive);
	fake_app_clear(&owners);
	fake_app_clear(&mute);
}

int
main(int argc, char **argv)
{
	int ret;

	g_test_init(&argc, &argv, NULL);
	rcu_register_thread();
	tc_registry_init();
	g_test_add_func("/tracectl/ack-waiter/other-users-deadline", test_other_users_deadline);
	g_test_add_func("/tracectl/ack-waiter/waited-together", test_waited_together);
	ret = g_test_run();
	rcu_barrier();
	rcu_unregister_thread();
	return ret;
}
