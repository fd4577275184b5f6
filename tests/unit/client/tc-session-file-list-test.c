/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The listing of a directory's session files: only "NAME.lttng" names
 * not starting with '.', the smallest max of them, sorted, and a count
 * of all. */
#include "tc-session-file-list.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <unistd.h>

/* A directory holding these (empty) files; its path to remove. */
static int
make_directory(const char *const *names, char **path)
{
	g_autoptr(GError) error = NULL;

	*path = g_dir_make_tmp("tc-list-XXXXXX", &error);
	g_assert_no_error(error);
	for (guint i = 0; names[i]; i++) {
		g_autofree char *file = g_build_filename(*path, names[i], NULL);

		g_assert_true(g_file_set_contents(file, "", 0, &error));
		g_assert_no_error(error);
	}
	return open(*path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static void
remove_directory(int fd, const char *path, const char *const *names)
{
	close(fd);
	for (guint i = 0; names[i]; i++) {
		g_autofree char *file = g_build_filename(path, names[i], NULL);

		g_assert_cmpint(g_unlink(file), ==, 0);
	}
	g_assert_cmpint(g_rmdir(path), ==, 0);
}

static const char *const files[] = {
    "d.lttng", "b.lttng", ".hidden.lttng", "notes.txt", ".lttng", "a.lttng.bak",
    "lttng",   "c.lttng", "a.lttng",	   "e.LTTNG",	NULL,
};

static void
assert_names(const struct tc_session_file_list *list, const char *const *expected)
{
	g_assert_cmpuint(list->count, ==, g_strv_length((char **)expected));
	for (size_t i = 0; i < list->count; i++)
		g_assert_cmpstr(list->names[i], ==, expected[i]);
}

/* Every session file, sorted; the others skipped. */
static void
test_skipped_and_sorted(void)
{
	static const char *const expected[] = {"a.lttng", "b.lttng", "c.lttng", "d.lttng", NULL};
	g_autofree char *path = NULL;
	int fd = make_directory(files, &path);
	struct tc_session_file_list list;

	g_assert_cmpint(fd, >=, 0);
	g_assert_cmpint(tc_session_file_list(fd, 64, &list), ==, 0);
	assert_names(&list, expected);
	g_assert_cmpuint(list.seen, ==, 4);
	tc_session_file_list_clear(&list);
	g_assert_null(list.names);
	/* Listed from the start again: the first listing moved fd's offset. */
	g_assert_cmpint(tc_session_file_list(fd, 64, &list), ==, 0);
	assert_names(&list, expected);
	tc_session_file_list_clear(&list);
	remove_directory(fd, path, files);
}

/* At most max names, the smallest, whatever order readdir() gives. */
static void
test_bound(void)
{
	static const char *const expected[] = {"a.lttng", "b.lttng", NULL};
	static const char *const one[] = {"a.lttng", NULL};
	g_autofree char *path = NULL;
	int fd = make_directory(files, &path);
	struct tc_session_file_list list;

	g_assert_cmpint(tc_session_file_list(fd, 2, &list), ==, 0);
	assert_names(&list, expected);
	g_assert_cmpuint(list.seen, ==, 4);
	g_assert_cmpuint(list.max, ==, 2);
	tc_session_file_list_clear(&list);
	g_assert_cmpint(tc_session_file_list(fd, 1, &list), ==, 0);
	assert_names(&list, one);
	g_assert_cmpuint(list.seen, ==, 4);
	tc_session_file_list_clear(&list);
	remove_directory(fd, path, files);
}

/* Many names offered in an order that makes the bound drop some: the
 * kept ones are still the smallest. */
static void
test_bound_many(void)
{
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	g_autofree char *path = NULL;
	struct tc_session_file_list list;
	int fd;

	for (guint i = 0; i < 50; i++)
		g_ptr_array_add(names, g_strdup_printf("s%02u.lttng", (i * 37) % 50));
	g_ptr_array_add(names, NULL);
	fd = make_directory((const char *const *)names->pdata, &path);
	g_assert_cmpint(tc_session_file_list(fd, 10, &list), ==, 0);
	g_assert_cmpuint(list.count, ==, 10);
	g_assert_cmpuint(list.seen, ==, 50);
	for (size_t i = 0; i < list.count; i++) {
		g_autofree char *expected = g_strdup_printf("s%02zu.lttng", i);

		g_assert_cmpstr(list.names[i], ==, expected);
	}
	tc_session_file_list_clear(&list);
	remove_directory(fd, path, (const char *const *)names->pdata);
}

static void
test_errors(void)
{
	struct tc_session_file_list list;
	int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	g_assert_cmpint(tc_session_file_list(fd, 0, &list), ==, -EINVAL);
	g_assert_null(list.names);
	close(fd);
	g_assert_cmpint(tc_session_file_list(-1, 4, &list), ==, -EBADF);
	g_assert_null(list.names);
	g_assert_cmpuint(list.count, ==, 0);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	g_assert_cmpint(tc_session_file_list(fd, 4, &list), ==, -ENOTDIR);
	close(fd);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/session-file-list/skipped-and-sorted", test_skipped_and_sorted);
	g_test_add_func("/session-file-list/bound", test_bound);
	g_test_add_func("/session-file-list/bound-many", test_bound_many);
	g_test_add_func("/session-file-list/errors", test_errors);
	return g_test_run();
}
