/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

#include "tc-kernel-domain.h"

/*
 * The client side of tracectl-kernel-helper (common/abi/tc-kernel-abi.h):
 * on a systemd machine its socket, <rundir>/kernel-helper.sock, starts it
 * on demand; otherwise (tracectld running as root) tracectld starts it
 * with a socket pair. Worker threads only: requests wait for the reply.
 */
void tc_kernel_init(const char *rundir);
/* Checks the helper answers, starting it if needed; its protocol version. */
gboolean tc_kernel_ping(guint32 *version, GError **error);
void tc_kernel_shutdown(void);

/* The session's tracefs instance (see tc-kernel-abi.h). */
/* Creates the session's instance, recording on the session's clock; with
 * overwrite, a flight recorder whose full buffers keep the newest events. */
gboolean tc_kernel_instance_create(guint64 session_id, guint32 buffer_size_kb, gboolean clock_tsc,
				   gboolean overwrite,
				   GError **error);
gboolean tc_kernel_instance_remove(guint64 session_id, GError **error);
/* NotFound when no event matched. */
gboolean tc_kernel_event(guint64 session_id, const char *system, const char *event,
			 gboolean enable, GError **error);
/* Writes filter (tracefs syntax, tc_filter_to_tracefs(); "0" removes it)
 * into every event matching the globs. InvalidArgument when the kernel
 * refuses it for one of them (then none of them has a filter), NotFound
 * when no event matched. */
gboolean tc_kernel_event_filter(guint64 session_id, const char *system, const char *event,
				const char *filter, GError **error);
/* The formats of the events matching the globs, enabled or not: a sealed
 * memfd for the consumer, or -1. */
int tc_kernel_formats(guint64 session_id, const char *system, const char *event, GError **error);
/* The instance records thread group ids: the kernel's saved_tgids, open
 * for reading, or -1. */
int tc_kernel_tgids(guint64 session_id, GError **error);
gboolean tc_kernel_stop(guint64 session_id, GError **error);
/* The state dump into the recording instance (TC_KERNEL_STATEDUMP): the
 * helper answers once it is written, within TC_HELPER_STATEDUMP_MS. */
gboolean tc_kernel_statedump(guint64 session_id, GError **error);
/* The processes the instance records: every one when all, else the
 * count pids (none when 0), with their threads and what they start. */
gboolean tc_kernel_set_pids(guint64 session_id, const guint32 *pids, guint count, gboolean all,
			    GError **error);
/* The processes whose ids are in every set that does not hold every value
 * (bit 1 << enum tc_kernel_track_kind of all), kept up to date by the
 * helper's rescans: counts[TC_KERNEL_TRACK_KINDS] values per set, one set
 * after the other in values. For trackers with some set beyond pids. */
gboolean tc_kernel_track(guint64 session_id, guint32 all, const guint32 *counts,
			 const guint32 *values, GError **error);

typedef struct {
	GArray *cpu_fds;   /* int, trace_pipe_raw per CPU */
	GArray *stats_fds; /* int, per_cpu stats per CPU */
	int formats_fd;
} TcKernelBuffers;

/* Recording on; the raw buffers and formats to hand to the consumer. */
gboolean tc_kernel_start(guint64 session_id, TcKernelBuffers *buffers, GError **error);
void tc_kernel_buffers_clear(TcKernelBuffers *buffers);
/* A dynamic probe (TC_KERNEL_PROBE_*) in the session's instance, enabled
 * or not; uprobe files are opened with uid's and gid's rights. */
gboolean tc_kernel_probe_add(guint64 session_id, guint32 kind, const char *name,
			     const char *location, uid_t uid, gid_t gid, gboolean enable,
			     GError **error);
/* The machine's kernel events ("system:event"), or its system calls. */
char **tc_kernel_list(gboolean syscalls, GError **error);
/* The tracefs group of the session's probes, as the helper names it:
 * "tracectl_<id>", the id with the service's scope (see tc-kernel.c). */
char *tc_kernel_probe_group(guint64 session_id);

/* The own-process tier (tc-kernel-own.h): the helper's programs for the
 * session, recording the tasks that uid, with gid the primary group of its
 * account, could trace, but quiet_pid's (the consumer); the ring buffer's
 * map for the consumer, or -1. NotSupported when the helper was built
 * without it. */
int tc_kernel_own_start(guint64 session_id, uid_t uid, gid_t gid, const TcKernelOwnEvents *events,
			GPid quiet_pid, GError **error);
/* The same for a delegated unit's control group (a path of the unified
 * hierarchy) and its descendants, whatever their uid. */
int tc_kernel_own_unit_start(guint64 session_id, const char *cgroup,
			     const TcKernelOwnEvents *events, GPid quiet_pid, GError **error);
gboolean tc_kernel_own_remove(guint64 session_id, GError **error);
