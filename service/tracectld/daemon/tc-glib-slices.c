/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * GLib's slice allocator (GLib 2.74, Debian 12's) keeps every freed slice
 * in per-thread magazines and a depot it empties on its own schedule,
 * outside malloc's view: after one listing of a hundred LTTng-UST
 * applications, whose reply is made of thousands of GVariants, the service
 * held 1.4 MB more for as long as the applications lived. GLib 2.76 made
 * plain malloc() the slice allocator; G_SLICE=always-malloc asks 2.74 for
 * the same, so freed memory goes back to malloc, which tc-memory-trim.h
 * gives back to the system.
 *
 * GLib takes that setting before its first slice, which its own
 * constructor allocates, before main(); an executable's
 * pre-initialisation functions run before any shared library's
 * constructor (and setenv() there is lost: the C library sets environ up
 * again after them), so the setting is made there, through the
 * deprecated call that only works before the first slice. Later GLibs
 * ignore it.
 */
#include <glib.h>

static void
prefer_malloc_to_slices(int argc, char **argv, char **envp)
{
	(void)argc;
	(void)argv;
	(void)envp;
	G_GNUC_BEGIN_IGNORE_DEPRECATIONS
	g_slice_set_config(G_SLICE_CONFIG_ALWAYS_MALLOC, TRUE);
	G_GNUC_END_IGNORE_DEPRECATIONS
}

__attribute__((section(".preinit_array"), used)) static void (*const preinit)(int, char **,
									     char **) =
    prefer_malloc_to_slices;
