/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tc-consumerd-session-files.c against a home made by the test: the
 * answers come in name order with contiguous chunks that add up to each
 * file, files that are links, directories, FIFOs (without blocking),
 * writable by others, too big or (as root) someone else's are refused by
 * name, other names are not listed, the count bound keeps the first
 * names, a missing directory sends nothing and is no error, a linked or
 * group-writable step refuses the whole directory, and a bad request is
 * refused before anything is opened.
 */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tc-consumerd-session-files.h"

typedef struct {
	char *name;
	int status;
	GByteArray *bytes; /* contents, or the reason */
} Answer;

static void
answer_free(Answer *answer)
{
	g_free(answer->name);
	g_byte_array_unref(answer->bytes);
	g_free(answer);
}

typedef struct {
	int fd;
	struct tc_consumer_session_files msg;
	char reason[TC_CONSUMER_ERROR_MAX];
	bool broken;
	int ret;
} Sender;

static gpointer
send_thread(gpointer data)
{
	Sender *sender = data;

	sender->ret = tc_consumerd_session_files_send(sender->fd, &sender->msg, sender->reason,
						      sizeof(sender->reason), &sender->broken);
	shutdown(sender->fd, SHUT_WR);
	return NULL;
}

/* Runs a request for home; returns the answers, checked for order and
 * contiguity, and *ret, reason. */
static GPtrArray *
request(const char *home, guint32 max_files, guint32 max_bytes, int *ret, char **reason)
{
	GPtrArray *answers = g_ptr_array_new_with_free_func((GDestroyNotify)answer_free);
	static guint8 buf[TC_CONSUMER_MSG_MAX];
	Sender sender = {0};
	int pair[2];
	GThread *thread;
	Answer *current = NULL;
	guint64 size = 0;

	g_assert_cmpint(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair), ==, 0);
	sender.fd = pair[1];
	sender.msg.max_files = max_files;
	sender.msg.max_file_bytes = max_bytes;
	g_strlcpy(sender.msg.home, home, sizeof(sender.msg.home));
	thread = g_thread_new("sender", send_thread, &sender);
	for (;;) {
		const struct tc_consumer_session_file *msg = (const void *)buf;
		ssize_t n = recv(pair[0], buf, sizeof(buf), 0);
		gsize chunk;

		g_assert_cmpint(n, >=, 0);
		if (n == 0)
			break;
		g_assert_cmpint(n, >=, sizeof(*msg));
		g_assert_cmpuint(msg->header.magic, ==, TC_CONSUMER_MAGIC);
		g_assert_cmpuint(msg->header.type, ==, TC_CONSUMER_SESSION_FILE);
		g_assert_cmpuint(msg->header.size, ==, n);
		chunk = (gsize)n - sizeof(*msg);
		g_assert_cmpuint(chunk, <=, TC_CONSUMER_SESSION_FILE_CHUNK_MAX);
		if (current == NULL || current->bytes->len == size) {
			g_assert_cmpuint(msg->index, ==, answers->len);
			if (current)
				g_assert_cmpstr(current->name, <, msg->name);
			g_assert_cmpuint(msg->offset, ==, 0);
			current = g_new0(Answer, 1);
			current->name = g_strdup(msg->name);
			current->status = msg->status;
			current->bytes = g_byte_array_new();
			size = msg->status < 0 ? chunk : msg->size;
			g_ptr_array_add(answers, current);
		} else {
			g_assert_cmpuint(msg->index + 1, ==, answers->len);
			g_assert_cmpstr(msg->name, ==, current->name);
			g_assert_cmpuint(msg->offset, ==, current->bytes->len);
		}
		g_byte_array_append(current->bytes, buf + sizeof(*msg), (guint)chunk);
		g_assert_cmpuint(current->bytes->len, <=, size);
	}
	g_thread_join(thread);
	close(pair[0]);
	close(pair[1]);
	g_assert_false(sender.broken);
	*ret = sender.ret;
	*reason = g_strdup(sender.reason);
	return answers;
}

static char *
make_home(void)
{
	g_autoptr(GError) error = NULL;
	char *home = g_dir_make_tmp("tc-session-files-XXXXXX", &error);
	g_autofree char *dir = NULL;

	g_assert_no_error(error);
	g_assert_cmpint(chmod(home, 0700), ==, 0);
	dir = g_build_filename(home, TC_CONSUMER_SESSION_FILES_DIR, NULL);
	g_assert_cmpint(g_mkdir_with_parents(dir, 0700), ==, 0);
	return home;
}

static void
put(const char *home, const char *name, gsize size, int mode)
{
	g_autofree char *path = g_build_filename(home, TC_CONSUMER_SESSION_FILES_DIR, name, NULL);
	g_autofree char *text = g_malloc(size);
	g_autoptr(GError) error = NULL;

	for (gsize i = 0; i < size; i++)
		text[i] = (char)('a' + (i * 7 + strlen(name)) % 26);
	g_file_set_contents(path, text, (gssize)size, &error);
	g_assert_no_error(error);
	g_assert_cmpint(chmod(path, mode), ==, 0);
}

static void
remove_home(const char *home)
{
	g_autofree char *command = g_strdup_printf("rm -rf '%s'", home);

	g_assert_cmpint(system(command), ==, 0);
}

static const Answer *
find(GPtrArray *answers, const char *name)
{
	for (guint i = 0; i < answers->len; i++) {
		const Answer *answer = g_ptr_array_index(answers, i);

		if (strcmp(answer->name, name) == 0)
			return answer;
	}
	g_assert_not_reached();
}

static void
assert_refused(GPtrArray *answers, const char *name, const char *why)
{
	const Answer *answer = find(answers, name);

	g_assert_cmpint(answer->status, <, 0);
	g_assert_cmpuint(answer->bytes->len, >, 0);
	g_assert_cmpint(answer->bytes->data[answer->bytes->len - 1], ==, '\0');
	g_assert_nonnull(strstr((const char *)answer->bytes->data, name));
	g_assert_nonnull(strstr((const char *)answer->bytes->data, why));
}

static void
test_files(void)
{
	g_autofree char *home = make_home();
	g_autofree char *dir = g_build_filename(home, TC_CONSUMER_SESSION_FILES_DIR, NULL);
	g_autofree char *link = g_build_filename(dir, "d-link.lttng", NULL);
	g_autofree char *subdir = g_build_filename(dir, "e-dir.lttng", NULL);
	g_autofree char *fifo = g_build_filename(dir, "f-fifo.lttng", NULL);
	g_autofree char *reason = NULL;
	g_autoptr(GPtrArray) answers = NULL;
	gsize big = 3 * TC_CONSUMER_SESSION_FILE_CHUNK_MAX + 17;
	int ret;

	put(home, "a-small.lttng", 100, 0600);
	put(home, "b-chunks.lttng", big, 0644);
	put(home, "c-writable.lttng", 10, 0664);
	g_assert_cmpint(symlink("a-small.lttng", link), ==, 0);
	g_assert_cmpint(mkdir(subdir, 0700), ==, 0);
	g_assert_cmpint(mkfifo(fifo, 0600), ==, 0);
	put(home, "g-toobig.lttng", big + 1, 0600);
	put(home, "h-empty.lttng", 0, 0600);
	put(home, ".hidden.lttng", 10, 0600);
	put(home, "notes.txt", 10, 0600);
	put(home, ".lttng", 10, 0600);
	if (geteuid() == 0) {
		g_autofree char *path = g_build_filename(dir, "i-other.lttng", NULL);

		put(home, "i-other.lttng", 10, 0644);
		g_assert_cmpint(chown(path, 1, 1), ==, 0);
	}

	answers = request(home, TC_CONSUMER_SESSION_FILES_MAX, (guint32)big, &ret, &reason);
	g_assert_cmpint(ret, ==, 0);
	g_assert_cmpuint(answers->len, ==, geteuid() == 0 ? 9 : 8);
	g_assert_cmpint(find(answers, "a-small.lttng")->status, ==, 0);
	g_assert_cmpuint(find(answers, "a-small.lttng")->bytes->len, ==, 100);
	g_assert_cmpint(find(answers, "b-chunks.lttng")->status, ==, 0);
	g_assert_cmpuint(find(answers, "b-chunks.lttng")->bytes->len, ==, big);
	g_assert_cmpint(find(answers, "h-empty.lttng")->status, ==, 0);
	g_assert_cmpuint(find(answers, "h-empty.lttng")->bytes->len, ==, 0);
	{
		g_autofree char *path = g_build_filename(dir, "b-chunks.lttng", NULL);
		g_autofree char *expected = NULL;
		gsize length;

		g_assert_true(g_file_get_contents(path, &expected, &length, NULL));
		g_assert_cmpmem(find(answers, "b-chunks.lttng")->bytes->data, big, expected,
				length);
	}
	assert_refused(answers, "c-writable.lttng", "writable by its group or others (mode 0664)");
	assert_refused(answers, "d-link.lttng", "a symbolic link");
	assert_refused(answers, "e-dir.lttng", "not a regular file");
	assert_refused(answers, "f-fifo.lttng", "not a regular file");
	assert_refused(answers, "g-toobig.lttng", "larger than");
	if (geteuid() == 0)
		assert_refused(answers, "i-other.lttng", "owned by uid 1, not uid 0");
	g_clear_pointer(&answers, g_ptr_array_unref);
	g_clear_pointer(&reason, g_free);

	/* The count bound keeps the first names. */
	answers = request(home, 2, (guint32)big, &ret, &reason);
	g_assert_cmpint(ret, ==, 0);
	g_assert_cmpuint(answers->len, ==, 2);
	g_assert_cmpstr(((Answer *)g_ptr_array_index(answers, 0))->name, ==, "a-small.lttng");
	g_assert_cmpstr(((Answer *)g_ptr_array_index(answers, 1))->name, ==, "b-chunks.lttng");
	remove_home(home);
}

static void
test_steps(void)
{
	g_autofree char *home = make_home();
	g_autofree char *config = g_build_filename(home, ".config", NULL);
	g_autofree char *real = g_build_filename(home, "real-config", NULL);
	g_autofree char *tracectl = g_build_filename(config, "tracectl", NULL);
	g_autofree char *reason = NULL;
	g_autoptr(GPtrArray) answers = NULL;
	int ret;

	put(home, "a.lttng", 10, 0600);
	/* A group-writable step refuses the directory. */
	g_assert_cmpint(chmod(tracectl, 0770), ==, 0);
	answers = request(home, 4, 1024, &ret, &reason);
	g_assert_cmpint(ret, ==, -EPERM);
	g_assert_cmpuint(answers->len, ==, 0);
	g_assert_nonnull(strstr(reason, tracectl));
	g_assert_nonnull(strstr(reason, "writable by its group or others"));
	g_clear_pointer(&answers, g_ptr_array_unref);
	g_clear_pointer(&reason, g_free);
	g_assert_cmpint(chmod(tracectl, 0700), ==, 0);

	/* A linked step refuses it too, though it leads to a good one. */
	g_assert_cmpint(rename(config, real), ==, 0);
	g_assert_cmpint(symlink(real, config), ==, 0);
	answers = request(home, 4, 1024, &ret, &reason);
	g_assert_true(ret == -ELOOP || ret == -ENOTDIR);
	g_assert_cmpuint(answers->len, ==, 0);
	g_assert_nonnull(strstr(reason, "a symbolic link"));
	g_clear_pointer(&answers, g_ptr_array_unref);
	g_clear_pointer(&reason, g_free);

	/* No directory: nothing sent, no error. */
	g_assert_cmpint(unlink(config), ==, 0);
	answers = request(home, 4, 1024, &ret, &reason);
	g_assert_cmpint(ret, ==, 0);
	g_assert_cmpuint(answers->len, ==, 0);
	g_clear_pointer(&answers, g_ptr_array_unref);
	g_clear_pointer(&reason, g_free);
	remove_home(home);
}

static void
test_bad_request(void)
{
	g_autofree char *reason = NULL;
	g_autoptr(GPtrArray) answers = NULL;
	int ret;

	answers = request("relative/home", 4, 1024, &ret, &reason);
	g_assert_cmpint(ret, ==, -EINVAL);
	g_clear_pointer(&answers, g_ptr_array_unref);
	g_clear_pointer(&reason, g_free);
	answers = request("/", 0, 1024, &ret, &reason);
	g_assert_cmpint(ret, ==, -EINVAL);
	g_clear_pointer(&answers, g_ptr_array_unref);
	g_clear_pointer(&reason, g_free);
	answers = request("/", 4, TC_CONSUMER_SESSION_FILE_BYTES_MAX + 1, &ret, &reason);
	g_assert_cmpint(ret, ==, -EINVAL);
	g_assert_cmpuint(answers->len, ==, 0);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/consumerd/session-files/files", test_files);
	g_test_add_func("/consumerd/session-files/steps", test_steps);
	g_test_add_func("/consumerd/session-files/bad-request", test_bad_request);
	return g_test_run();
}
