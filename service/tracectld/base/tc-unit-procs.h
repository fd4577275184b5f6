/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

/*
 * The processes in delegated units' control groups, read from the unified
 * hierarchy (cgroup.procs of each unit's group and of the groups below
 * it). They only name candidates: a pid read here may be reused by the
 * time it is looked at, so an application found by it is believed in the
 * unit only once its group is read again through its own socket
 * (tc-unit-watch.h).
 */

/* Bounds on one read of all the units: the groups opened, their depth
 * below the unit's group, and the pids gathered. */
#define TC_UNIT_PROCS_GROUPS_MAX 256
#define TC_UNIT_PROCS_DEPTH_MAX 8
#define TC_UNIT_PROCS_PIDS_MAX 4096

/* The pids (pid_t) in the groups cgroups (absolute paths of the unified
 * hierarchy, as TcTrackedUnit.cgroup) and below them, at most the bounds
 * above; *truncated tells whether a bound cut the read short. A group
 * that cannot be opened (gone, or no unified hierarchy) adds nothing.
 * Blocks on the file system: the watch thread only. */
GArray *tc_unit_procs_read(GPtrArray *cgroups, gboolean *truncated);
