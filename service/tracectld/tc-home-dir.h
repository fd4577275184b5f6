/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

/*
 * A directory under a user's home, opened by the service (root) without
 * letting the user point it anywhere else: the home and each component
 * of relative below it are opened with O_NOFOLLOW | O_DIRECTORY relative
 * to the one before, and each must be owned by user and writable by no
 * one else, checked through the descriptor opened. A symbolic link
 * anywhere from the home down is refused.
 *
 * relative: the service's own constant, components separated by '/',
 * such as ".config/tracectl" (no "..").
 * Returns the directory's descriptor (O_CLOEXEC), or -1 with error:
 * NotFound when a component does not exist (the user has none),
 * PermissionDenied naming the component and why otherwise. May block on
 * a home on a network file system: call it from a worker thread.
 */
int tc_home_dir_open(uid_t user, const char *relative, GError **error);
