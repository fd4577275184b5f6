/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The consumer link (tc-consumer.c) carrying several requests at once,
 * against a fake consumer (fake-link-consumer.py) run as the test's user:
 * a request whose answer waits holds no other, answers of two requests
 * interleaved reach each its own request, and a consumer that answers a
 * request nobody waits for, misroutes an answer, sends a message of the
 * wrong kind, dies, or lets one request run past its deadline is killed
 * and fails every request waiting on it at once, not at their deadlines.
 */
#include <glib.h>
#include <string.h>
#include <unistd.h>

#include "tc-consumer-abi.h"
#include "fake-consumer.h"
#include "tc-consumer.h"
#include "tc-error.h"

/* How soon a request must end when it need not wait: well under the 1 s
 * a service request may take. */
#define PROMPT_US (500 * G_TIME_SPAN_MILLISECOND)
/* Long enough for the first request to be sent and waiting. */
#define SETTLE_US (300 * G_TIME_SPAN_MILLISECOND)

static char *wrapper_dir;

/* The fake consumer, told to behave as mode says, for the next start. */
static TcConsumer *
start(const char *mode)
{
	g_autoptr(GError) error = NULL;
	TcConsumer *consumer;

	fake_consumer_use(wrapper_dir, "TC_FAKE_LINK_CONSUMER", mode);
	consumer = tc_consumer_get(getuid(), &error);
	g_assert_no_error(error);
	return consumer;
}

/* One request and what came of it. kind: 'f' a flush of session, 's' the
 * relay status of session, 'a' SESSION_FILES answers tagged tag. */
typedef struct {
	TcConsumer *consumer;
	char kind;
	guint64 session;
	const char *tag;
	guint timeout_ms;
	gboolean ok;
	GError *error;
	gint64 sent, ended;
	GString *answers; /* the names of the answers, in order */
	GThread *thread;
	gint has_ended; /* atomic: read while the thread runs */
} Call;

static gboolean
take_answer_cb(const void *msg, gsize len, gpointer user_data, GError **error)
{
	const struct tc_consumer_session_file *file = msg;
	Call *call = user_data;

	if (len < sizeof(*file) || file->name[0] != call->tag[0]) {
		g_set_error(error, TC_ERROR, TC_ERROR_FAILED, "An answer for another request");
		return FALSE;
	}
	g_string_append_printf(call->answers, "%.8s ", file->name);
	return TRUE;
}

static void
call_run(Call *call)
{
	g_autofree struct tc_consumer_session_files *msg =
	    g_new0(struct tc_consumer_session_files, 1);
	TcRelayStatus status;

	call->answers = g_string_new(NULL);
	call->sent = g_get_monotonic_time();
	switch (call->kind) {
	case 'f':
		call->ok =
		    tc_consumer_flush_session(call->consumer, call->session, NULL, &call->error);
		break;
	case 's':
		call->ok =
		    tc_consumer_relay_status(call->consumer, call->session, &status, &call->error);
		break;
	default:
		g_strlcpy(msg->home, call->tag, sizeof(msg->home));
		call->ok = tc_consumer_request_answers(
		    call->consumer, msg, TC_CONSUMER_SESSION_FILES, sizeof(*msg),
		    TC_CONSUMER_SESSION_FILE, call->timeout_ms ? call->timeout_ms : 10000,
		    take_answer_cb, call, &call->error);
	}
	call->ended = g_get_monotonic_time();
	g_atomic_int_set(&call->has_ended, TRUE);
}

static gpointer
call_thread(gpointer data)
{
	call_run(data);
	return NULL;
}

/* Starts first in a thread, lets it wait, then runs second here. */
static void
run_two(Call *first, Call *second)
{
	first->thread = g_thread_new("first-request", call_thread, first);
	g_usleep(SETTLE_US);
	call_run(second);
}

static void
call_clear(Call *call)
{
	if (call->thread)
		g_thread_join(call->thread);
	g_clear_error(&call->error);
	g_string_free(call->answers, TRUE);
}

static gboolean
no_session(uid_t uid G_GNUC_UNUSED)
{
	return FALSE;
}

/* A consumer broken by what it sent: both requests failed, within a
 * moment of the second's send (the first's deadline was far), and it is
 * forgotten. */
static void
assert_both_failed(TcConsumer *consumer, Call *first, Call *second, const char *why_first,
		   const char *why_second)
{
	g_thread_join(g_steal_pointer(&first->thread));
	g_test_message("first: %s; second: %s", first->error ? first->error->message : "ok",
		       second->error ? second->error->message : "ok");
	g_assert_false(first->ok);
	g_assert_false(second->ok);
	g_assert_error(first->error, TC_ERROR, TC_ERROR_FAILED);
	g_assert_error(second->error, TC_ERROR, TC_ERROR_FAILED);
	g_assert_nonnull(strstr(first->error->message, why_first));
	g_assert_nonnull(strstr(second->error->message, why_second));
	g_assert_cmpint(second->ended - second->sent, <, PROMPT_US);
	g_assert_cmpint(first->ended - second->sent, <, PROMPT_US);
	g_assert_false(tc_consumer_retire_if_unused(consumer, no_session));
	g_assert_null(tc_consumer_find(getuid()));
}

static void
test_slow_neighbour(void)
{
	g_autoptr(TcConsumer) consumer = start("slow");
	Call first = {.consumer = consumer, .kind = 'f', .session = 1};
	Call second = {.consumer = consumer, .kind = 's', .session = 2};

	run_two(&first, &second);
	g_assert_no_error(second.error);
	g_assert_true(second.ok);
	g_test_message("second answered in %" G_GINT64_FORMAT " us", second.ended - second.sent);
	g_assert_cmpint(second.ended - second.sent, <, PROMPT_US);
	/* Each of a series too, while the first still waits. */
	for (guint i = 0; i < 5; i++) {
		Call next = {.consumer = consumer, .kind = 's', .session = 3 + i};

		call_run(&next);
		g_assert_no_error(next.error);
		g_assert_cmpint(next.ended - next.sent, <, PROMPT_US);
		call_clear(&next);
	}
	g_assert_false(g_atomic_int_get(&first.has_ended));
	g_thread_join(g_steal_pointer(&first.thread));
	g_assert_no_error(first.error);
	g_assert_true(first.ok);
	g_test_message("first answered in %" G_GINT64_FORMAT " us", first.ended - first.sent);
	g_assert_cmpint(first.ended - first.sent, >=, 3 * G_TIME_SPAN_SECOND - SETTLE_US);
	g_assert_true(tc_consumer_retire_if_unused(consumer, no_session));
	call_clear(&first);
	call_clear(&second);
}

static void
test_interleave(void)
{
	g_autoptr(TcConsumer) consumer = start("interleave");
	Call first = {.consumer = consumer, .kind = 'a', .tag = "A"};
	Call second = {.consumer = consumer, .kind = 'a', .tag = "B"};

	run_two(&first, &second);
	g_thread_join(g_steal_pointer(&first.thread));
	g_assert_no_error(first.error);
	g_assert_no_error(second.error);
	g_assert_cmpstr(first.answers->str, ==, "A0 A1 A2 ");
	g_assert_cmpstr(second.answers->str, ==, "B0 ");
	g_assert_true(tc_consumer_retire_if_unused(consumer, no_session));
	call_clear(&first);
	call_clear(&second);
}

static void
test_misroute(void)
{
	g_autoptr(TcConsumer) consumer = start("misroute");
	Call first = {.consumer = consumer, .kind = 'a', .tag = "A"};
	Call second = {.consumer = consumer, .kind = 'a', .tag = "B"};

	run_two(&first, &second);
	assert_both_failed(consumer, &first, &second, "An answer for another request",
			   "failed another request: An answer for another request");
	call_clear(&first);
	call_clear(&second);
}

static void
test_unknown_id(void)
{
	g_autoptr(TcConsumer) consumer = start("unknown");
	Call first = {.consumer = consumer, .kind = 'f', .session = 1};
	Call second = {.consumer = consumer, .kind = 's', .session = 2};

	run_two(&first, &second);
	assert_both_failed(consumer, &first, &second, "which is not waiting",
			   "which is not waiting");
	call_clear(&first);
	call_clear(&second);
}

static void
test_wrong_kind(void)
{
	g_autoptr(TcConsumer) consumer = start("stream");
	Call first = {.consumer = consumer, .kind = 'a', .tag = "A"};
	Call second = {.consumer = consumer, .kind = 'f', .session = 2};

	run_two(&first, &second);
	assert_both_failed(consumer, &first, &second, "unexpected message of type 16",
			   "failed another request");
	call_clear(&first);
	call_clear(&second);
}

static void
test_death(void)
{
	g_autoptr(TcConsumer) consumer = start("die");
	Call first = {.consumer = consumer, .kind = 'f', .session = 1};
	Call second = {.consumer = consumer, .kind = 's', .session = 2};

	run_two(&first, &second);
	assert_both_failed(consumer, &first, &second, "closed its connection",
			   "closed its connection");
	call_clear(&first);
	call_clear(&second);
}

/* The first request's deadline (1 s) breaks the consumer: the second,
 * whose own is 30 s away, fails with it. */
static void
test_deadline(void)
{
	g_autoptr(TcConsumer) consumer = start("silent");
	Call first = {.consumer = consumer, .kind = 'a', .tag = "A", .timeout_ms = 1000};
	Call second = {.consumer = consumer, .kind = 'f', .session = 2};

	run_two(&first, &second);
	g_thread_join(g_steal_pointer(&first.thread));
	g_test_message("first: %s; second: %s", first.error->message, second.error->message);
	g_assert_nonnull(strstr(first.error->message, "did not finish its answer within 1 s"));
	g_assert_nonnull(strstr(second.error->message, "failed another request"));
	g_assert_cmpint(first.ended - first.sent, >=, G_TIME_SPAN_SECOND);
	g_assert_cmpint(second.ended - first.ended, <, PROMPT_US);
	g_assert_null(tc_consumer_find(getuid()));
	call_clear(&first);
	call_clear(&second);
}

int
main(int argc, char **argv)
{
	int ret;

	g_test_init(&argc, &argv, NULL);
	/* Broken consumers are logged as warnings. */
	g_log_set_always_fatal(G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
	wrapper_dir = fake_consumer_dir_new("tc-consumer-link");
	g_test_add_func("/tracectld/consumer-link/slow-neighbour", test_slow_neighbour);
	g_test_add_func("/tracectld/consumer-link/interleave", test_interleave);
	g_test_add_func("/tracectld/consumer-link/misroute", test_misroute);
	g_test_add_func("/tracectld/consumer-link/unknown-id", test_unknown_id);
	g_test_add_func("/tracectld/consumer-link/wrong-kind", test_wrong_kind);
	g_test_add_func("/tracectld/consumer-link/death", test_death);
	g_test_add_func("/tracectld/consumer-link/deadline", test_deadline);
	ret = g_test_run();
	fake_consumer_dir_remove(wrapper_dir);
	return ret;
}
