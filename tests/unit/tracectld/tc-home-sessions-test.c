/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tc-home-sessions.c against a fake consumer (fake-session-files-consumer.py)
 * run as the test's user: a well-behaved answer gives the files in order
 * with their bytes and the home the password database gives, a refused
 * file is logged and skipped, a refused directory is an error naming it;
 * every way of breaking the protocol (order, indices, offsets, sizes,
 * names, the count bound, descriptors, short messages, a file left
 * unfinished) is refused, and a consumer that broke it is killed and
 * replaced at the next use. A consumer no one uses is retired.
 */
#include <glib.h>
#include <pwd.h>
#include <string.h>
#include <unistd.h>

#include "fake-consumer.h"
#include "tc-consumer.h"
#include "tc-error.h"
#include "tc-home-sessions.h"

static char *wrapper_dir;
static GString *warnings;

static void
log_handler(const char *domain, GLogLevelFlags level, const char *message, gpointer data)
{
	g_string_append_printf(warnings, "%s\n", message);
}

static TcConsumer *
start(const char *mode)
{
	g_autoptr(GError) error = NULL;
	TcConsumer *consumer;

	fake_consumer_use(wrapper_dir, "TC_FAKE_CONSUMER", mode);
	consumer = tc_consumer_get(getuid(), &error);
	g_assert_no_error(error);
	return consumer;
}

static const char *
contents(GPtrArray *files, guint i, gsize *length)
{
	TcHomeSessionFile *file = g_ptr_array_index(files, i);

	return g_bytes_get_data(file->contents, length);
}

static void
assert_path(GPtrArray *files, guint i, const char *name)
{
	TcHomeSessionFile *file = g_ptr_array_index(files, i);
	g_autofree char *expected =
		g_build_filename(getpwuid(getuid())->pw_dir, ".config/tracectl/sessions", name, NULL);

	g_assert_cmpstr(file->path, ==, expected);
}

static gboolean
no_session(uid_t uid G_GNUC_UNUSED)
{
	return FALSE;
}

static gboolean
a_session(uid_t uid G_GNUC_UNUSED)
{
	return TRUE;
}

static void
test_good(void)
{
	g_autoptr(TcConsumer) consumer = start("good");
	g_autoptr(TcConsumer) next = NULL;
	g_autoptr(GPtrArray) files = NULL;
	g_autoptr(GError) error = NULL;
	gsize length;

	files = tc_home_sessions_read(consumer, getuid(), &error);
	g_assert_no_error(error);
	g_assert_cmpuint(files->len, ==, 3);
	assert_path(files, 0, "a.lttng");
	assert_path(files, 1, "b.lttng");
	assert_path(files, 2, "c.lttng");
	g_assert_cmpmem(contents(files, 0, &length), length, "<sessions/>", 11);
	g_assert_cmpmem(contents(files, 1, &length), length, "hello!", 6);
	contents(files, 2, &length);
	g_assert_cmpuint(length, ==, 0);
	/* Kept while its user has a session, let go when used by no one
	 * else, and the next use starts another. */
	g_assert_false(tc_consumer_retire_if_unused(consumer, a_session));
	g_assert_true(tc_consumer_retire_if_unused(consumer, no_session));
	next = start("good");
	g_assert_true(next != consumer);
	g_assert_cmpint(tc_consumer_pid(next), !=, tc_consumer_pid(consumer));
	g_assert_true(tc_consumer_retire_if_unused(next, no_session));
}

static void
test_refusals(void)
{
	g_autoptr(TcConsumer) consumer = start("refusal");
	g_autoptr(GPtrArray) files = NULL;
	g_autoptr(GError) error = NULL;
	gsize length;

	g_string_truncate(warnings, 0);
	files = tc_home_sessions_read(consumer, getuid(), &error);
	g_assert_no_error(error);
	g_assert_cmpuint(files->len, ==, 1);
	assert_path(files, 0, "b.lttng");
	g_assert_cmpmem(contents(files, 0, &length), length, "x", 1);
	g_assert_nonnull(strstr(warnings->str, "Refusing 'a.lttng': not yours"));
	g_clear_pointer(&files, g_ptr_array_unref);
	g_assert_true(tc_consumer_retire_if_unused(consumer, no_session));
	g_clear_pointer(&consumer, tc_consumer_unref);

	/* A refused directory: an error, and the consumer stays. */
	consumer = start("refused");
	files = tc_home_sessions_read(consumer, getuid(), &error);
	g_assert_null(files);
	g_assert_nonnull(strstr(error->message, ".config/tracectl/sessions"));
	g_assert_nonnull(strstr(error->message, "a symbolic link"));
	g_assert_true(tc_consumer_retire_if_unused(consumer, no_session));
}

static const struct {
	const char *mode;
	const char *why;
	gboolean killed;
} hostile[] = {
	{"order", "session file 1 out of order", TRUE},
	{"index", "session file 1 out of order", TRUE},
	{"count", "session file 64 out of order", TRUE},
	{"gap", "bad piece of session file 0", TRUE},
	{"overflow", "more than the 2 bytes of session file 0", TRUE},
	{"toobig", "of at most 1048576", TRUE},
	{"name", "bad session file name", TRUE},
	{"suffix", "bad session file name", TRUE},
	{"unterminated", "bad refusal", TRUE},
	{"fds", "descriptors", TRUE},
	{"short", "answer of 16 bytes", TRUE},
	{"other-request", "answered request", TRUE},
	{"truncated", "inside session file 0", FALSE},
};

static void
test_hostile(void)
{
	for (guint i = 0; i < G_N_ELEMENTS(hostile); i++) {
		g_autoptr(TcConsumer) consumer = start(hostile[i].mode);
		g_autoptr(GError) error = NULL;
		GPtrArray *files = tc_home_sessions_read(consumer, getuid(), &error);

		g_test_message("%s: %s", hostile[i].mode, error ? error->message : "accepted");
		g_assert_null(files);
		g_assert_error(error, TC_ERROR, TC_ERROR_FAILED);
		g_assert_nonnull(strstr(error->message, hostile[i].why));
		/* A killed consumer is forgotten: nothing left to retire. */
		g_assert_true(tc_consumer_retire_if_unused(consumer, no_session) == !hostile[i].killed);
	}
}

int
main(int argc, char **argv)
{
	int ret;

	g_test_init(&argc, &argv, NULL);
	/* The refusals and the broken consumers are logged as warnings. */
	g_log_set_always_fatal(G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
	warnings = g_string_new(NULL);
	g_log_set_handler("tracectld-autoload", G_LOG_LEVEL_WARNING, log_handler, NULL);
	wrapper_dir = fake_consumer_dir_new("tc-home-sessions");
	g_test_add_func("/tracectld/home-sessions/good", test_good);
	g_test_add_func("/tracectld/home-sessions/refusals", test_refusals);
	g_test_add_func("/tracectld/home-sessions/hostile", test_hostile);
	ret = g_test_run();
	fake_consumer_dir_remove(wrapper_dir);
	return ret;
}
