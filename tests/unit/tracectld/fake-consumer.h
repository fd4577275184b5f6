/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

/*
 * Fake consumers for the tests of tracectld's consumer link: a Python
 * script (its path in an environment variable) started by tracectld in
 * place of tracectl-consumerd, told how to behave by a mode, through a
 * wrapper script in a directory of the test's own.
 */

/* A directory for the wrappers, readable by the consumer's user. */
char *fake_consumer_dir_new(const char *prefix);

/* The next consumer started is the script named by script_env, run with
 * mode as its argument. */
void fake_consumer_use(const char *dir, const char *script_env, const char *mode);

/* Removes the directory and frees its name. */
void fake_consumer_dir_remove(char *dir);
