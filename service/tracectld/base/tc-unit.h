/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

/*
 * Delegation of a systemd unit (docs/security.md, "Delegating a unit"): a
 * session that tracks a unit records the applications that run in the
 * unit's control group or below it, whatever their uid. The unit's group
 * comes from systemd (the manager places the unit's processes there, and
 * only root moves them out); an application's group from the kernel
 * (/proc/PID/cgroup of the peer, tc-peer-identity.h), never from what
 * either the caller or the application says.
 */

/* A session holds at most this many units. */
#define TC_UNITS_PER_SESSION_MAX 16

typedef struct {
	char *name;   /* "nginx.service" */
	char *cgroup; /* "/system.slice/nginx.service", never "/" */
} TcTrackedUnit;

void tc_unit_tracked_free(TcTrackedUnit *unit);

/* TRUE when name is a unit name that has a control group: systemd's
 * grammar ([A-Za-z0-9:_.@\-\\], at most 255 bytes) with the suffix
 * .service, .scope, .slice or .socket, no "..", and an instance for a
 * template. Refuses anything else (wildcards, paths) with InvalidArgument
 * naming it. */
gboolean tc_unit_name_check(const char *name, GError **error);

/* The control group systemd placed unit in, asked over the system bus.
 * NotSupported without systemd, NotFound for a unit systemd has not
 * loaded, InvalidState for one with no group (not running). Blocks:
 * worker threads only. */
char *tc_unit_resolve_cgroup(const char *unit, GError **error);

/* Whether group (an application's) is unit_cgroup or below it. */
gboolean tc_unit_cgroup_contains(const char *unit_cgroup, const char *group);

/* The unified hierarchy's path in the contents of a /proc/PID/cgroup
 * file ("0::PATH", or systemd's named v1 hierarchy); NULL when none. */
char *tc_unit_parse_proc_cgroup(const char *contents);
