/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "fake-consumer.h"

#include <glib/gstdio.h>
#include <stdlib.h>

char *
fake_consumer_dir_new(const char *prefix)
{
	g_autofree char *template = g_strdup_printf("%s-XXXXXX", prefix);
	g_autoptr(GError) error = NULL;
	char *dir = g_dir_make_tmp(template, &error);

	g_assert_no_error(error);
	g_assert_cmpint(g_chmod(dir, 0755), ==, 0);
	return dir;
}

void
fake_consumer_use(const char *dir, const char *script_env, const char *mode)
{
	const char *fake = g_getenv(script_env);
	g_autofree char *path = g_build_filename(dir, mode, NULL);
	g_autofree char *script = NULL;
	g_autoptr(GError) error = NULL;

	g_assert_nonnull(fake);
	script = g_strdup_printf("#!/bin/sh\nexec /usr/bin/python3 '%s' %s\n", fake, mode);
	g_file_set_contents(path, script, -1, &error);
	g_assert_no_error(error);
	g_assert_cmpint(g_chmod(path, 0755), ==, 0);
	g_setenv("TRACECTL_CONSUMERD", path, TRUE);
}

void
fake_consumer_dir_remove(char *dir)
{
	g_autofree char *command = g_strdup_printf("rm -rf '%s'", dir);

	if (system(command) != 0)
		g_printerr("Cannot remove %s\n", dir);
	g_free(dir);
}
