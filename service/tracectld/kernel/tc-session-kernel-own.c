/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The own-process kernel tier of a session: kernel events of the owner's
 * own processes only (docs/kernel.md), recorded by eBPF programs the root
 * helper loads for the owner's uid and the primary group of their account
 * (the processes the owner could trace), and written by the owner's consumer
 * into <output>/kernel-own. A session that tracks a unit gets the unit's
 * tasks instead (its control group, whatever their uid).
 *
 *   start:   the helper loads the programs for the events enabled, the
 *            consumer gets their ring buffer (a restart: a new one)
 *   stop:    the helper detaches them; the consumer drains the ring
 *   destroy: the consumer closes the ring
 *
 * Only events whose every field the programs can restrict to the owner's
 * task are offered; a pattern naming any other is refused, never widened
 * or silently narrowed to something else.
 */
#define G_LOG_DOMAIN "tracectld-kernel"

#include "tc-session-kernel-own.h"

#include <string.h>
#include <unistd.h>

#include "tc-error.h"
#include "tc-kernel-own.h"
#include "tc-kernel.h"
#include "tc-session.h"
#include "tc-syscall-name.h"
#include "tc-user-account.h"
#include "tc-user-limits.h"
#include "tc-validate.h"

static const struct {
	const char *name;
	guint32 bit;
} allowed[] = {
	{"raw_syscalls:sys_enter", TC_KERNEL_OWN_SYS_ENTER},
	{"raw_syscalls:sys_exit", TC_KERNEL_OWN_SYS_EXIT},
	{"sched:sched_switch", TC_KERNEL_OWN_SCHED_SWITCH},
	{"sched:sched_wakeup", TC_KERNEL_OWN_SCHED_WAKEUP},
	{"sched:sched_migrate_task", TC_KERNEL_OWN_SCHED_MIGRATE},
	{"exceptions:page_fault_user", TC_KERNEL_OWN_PAGE_FAULT},
	{"signal:signal_deliver", TC_KERNEL_OWN_SIGNAL},
	{"block:block_bio_queue", TC_KERNEL_OWN_BLOCK_BIO_QUEUE},
	{"net:net_dev_queue", TC_KERNEL_OWN_NET_DEV_QUEUE},
};

static char *
allowed_names(void)
{
	GString *names = g_string_new(NULL);

	for (guint i = 0; i < G_N_ELEMENTS(allowed); i++)
		g_string_append_printf(names, "%s%s", i ? ", " : "", allowed[i].name);
	return g_string_free(names, FALSE);
}

/* Whether pattern names system calls: it is of the syscalls system, or
 * bare and starts with the prefix of their tracefs or LTTng names. Other
 * patterns ("*:*", "*", "sched:*") keep meaning the tier's other events:
 * system calls are named one by one, or with --all --syscall. The event
 * part goes into *event, and whether LTTng's names apply. */
static gboolean
names_syscalls(const char *pattern, const char **event, gboolean *is_bare)
{
	static const char *const prefixes[] = {"sys_enter_", "sys_exit_", "syscall_entry_",
					       "syscall_exit_"};
	const char *colon = strchr(pattern, ':');

	*is_bare = colon == NULL;
	if (colon) {
		*event = colon + 1;
		return colon - pattern == 8 && strncmp(pattern, "syscalls", 8) == 0;
	}
	*event = pattern;
	for (guint i = 0; i < G_N_ELEMENTS(prefixes); i++)
		if (g_str_has_prefix(pattern, prefixes[i]))
			return TRUE;
	return FALSE;
}

/* The system calls of the machine's table whose entry or exit event
 * matches, as bits of events' bitmaps and classes; FALSE when none does. */
static gboolean
match_syscalls(const char *event, gboolean is_bare, TcKernelOwnEvents *events)
{
	gboolean any = FALSE;

	for (gsize i = 0; i < tc_syscall_name_count(); i++) {
		unsigned int nr;
		const char *name = tc_syscall_name_at(i, &nr);
		g_autofree char *enter = g_strconcat("sys_enter_", name, NULL);
		g_autofree char *exit = g_strconcat("sys_exit_", name, NULL);
		g_autofree char *entry_lttng = g_strconcat("syscall_entry_", name, NULL);
		g_autofree char *exit_lttng = g_strconcat("syscall_exit_", name, NULL);

		if (nr >= TC_KERNEL_OWN_SYSCALLS_MAX)
			continue;
		if (g_pattern_match_simple(event, enter) ||
		    (is_bare && g_pattern_match_simple(event, entry_lttng))) {
			events->syscall_entry[nr / 64] |= G_GUINT64_CONSTANT(1) << (nr % 64);
			events->events |= TC_KERNEL_OWN_SYSCALL_ENTRY;
			any = TRUE;
		}
		if (g_pattern_match_simple(event, exit) ||
		    (is_bare && g_pattern_match_simple(event, exit_lttng))) {
			events->syscall_exit[nr / 64] |= G_GUINT64_CONSTANT(1) << (nr % 64);
			events->events |= TC_KERNEL_OWN_SYSCALL_EXIT;
			any = TRUE;
		}
	}
	return any;
}

gboolean
tc_session_kernel_own_parse(const char *pattern, TcKernelOwnEvents *events, GError **error)
{
	g_autofree char *names = NULL;
	const char *event;
	gboolean is_bare;

	G_STATIC_ASSERT(G_N_ELEMENTS(events->syscall_entry) == TC_KERNEL_OWN_SYSCALL_WORDS);
	if (!tc_validate_kernel_event(pattern, error))
		return FALSE;
	*events = (TcKernelOwnEvents){0};
	if (names_syscalls(pattern, &event, &is_bare)) {
		if (match_syscalls(event, is_bare, events))
			return TRUE;
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_FOUND,
			    "%s: no system call of this machine's (the native ones of its "
			    "architecture, %u of them) has that name",
			    pattern, (unsigned)tc_syscall_name_count());
		return FALSE;
	}
	/* LTTng's bare names match the event's name without its system. */
	for (guint i = 0; i < G_N_ELEMENTS(allowed); i++)
		if (g_pattern_match_simple(pattern, strchr(pattern, ':')
							   ? allowed[i].name
							   : strchr(allowed[i].name, ':') + 1))
			events->events |= allowed[i].bit;
	if (events->events)
		return TRUE;
	names = allowed_names();
	g_set_error(error, TC_ERROR, TC_ERROR_PERMISSION_DENIED,
		    "%s: not available in the own-process tier (it cannot be restricted to "
		    "your own processes); the tier offers %s, and system calls by name "
		    "(--syscall)",
		    pattern, names);
	return FALSE;
}

/* Adds or removes what events holds; the classes of named system calls
 * go with their last bit. */
static void
change_events(TcKernelOwnEvents *own, const TcKernelOwnEvents *events, gboolean enable)
{
	guint64 entry = 0, exit = 0;

	for (guint i = 0; i < TC_KERNEL_OWN_SYSCALL_WORDS; i++) {
		if (enable) {
			own->syscall_entry[i] |= events->syscall_entry[i];
			own->syscall_exit[i] |= events->syscall_exit[i];
		} else {
			own->syscall_entry[i] &= ~events->syscall_entry[i];
			own->syscall_exit[i] &= ~events->syscall_exit[i];
		}
		entry |= own->syscall_entry[i];
		exit |= own->syscall_exit[i];
	}
	if (enable)
		own->events |= events->events;
	else
		own->events &= ~(events->events & TC_KERNEL_OWN_ALL);
	own->events = (own->events & TC_KERNEL_OWN_ALL) |
		      (entry ? TC_KERNEL_OWN_SYSCALL_ENTRY : 0) |
		      (exit ? TC_KERNEL_OWN_SYSCALL_EXIT : 0);
}

gboolean
tc_session_kernel_own_event_locked(TcSession *session, const char *pattern, gboolean enable,
				   GError **error)
{
	TcKernelOwnEvents events;

	if (!tc_session_kernel_own_parse(pattern, &events, error))
		return FALSE;
	if (session->state == TC_SESSION_ACTIVE) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_STATE,
			    "Own-process kernel events of session '%s' change only while it is "
			    "stopped",
			    session->name);
		return FALSE;
	}
	if (session->snapshot) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
			    "Snapshot sessions do not record kernel events in this version");
		return FALSE;
	}
	change_events(&session->kernel.own_events, &events, enable);
	g_message("Session '%s' of uid %u: own-process kernel events 0x%x ('%s' %s)",
		  session->name, (unsigned)session->owner_uid, session->kernel.own_events.events,
		  pattern, enable ? "enabled" : "disabled");
	return TRUE;
}

/* The own trace's uuid, derived from the session's. */
static void
own_uuid(const TcSession *session, guint8 uuid[16])
{
	memcpy(uuid, session->uuid, 16);
	uuid[15] ^= 0x4f;
}

/* The programs for what the owner could trace: their uid, and the gid
 * of their account (the password database's, as their consumer runs
 * with), which every task the kernel lets them trace has. */
static int
own_owner_programs_start(TcSession *session, TcConsumer *consumer, GError **error)
{
	g_auto(TcUserAccount) owner = {0};

	if (!tc_user_account_lookup(session->owner_uid, &owner, error))
		return -1;
	return tc_kernel_own_start(session->id, owner.uid, owner.gid, &session->kernel.own_events,
				   tc_consumer_pid(consumer), error);
}

/* The programs scoped to the processes the owner could trace, or to the
 * one unit the session tracks (tc-unit.h): a delegated unit's kernel
 * activity, whatever its uid. op_lock held. */
static int
own_programs_start(TcSession *session, TcConsumer *consumer, GError **error)
{
	const TcTrackedUnit *unit;

	if (session->units->len == 0)
		return own_owner_programs_start(session, consumer, error);
	if (session->units->len > 1) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
			    "The own-process kernel tier of session '%s' follows one unit, and "
			    "it tracks %u",
			    session->name, session->units->len);
		return -1;
	}
	unit = g_ptr_array_index(session->units, 0);
	g_message("Session '%s' of uid %u: own-process kernel events of unit '%s'",
		  session->name, (unsigned)session->owner_uid, unit->name);
	return tc_kernel_own_unit_start(session->id, unit->cgroup, &session->kernel.own_events,
					tc_consumer_pid(consumer), error);
}

gboolean
tc_session_kernel_own_start_locked(TcSession *session, TcConsumer *consumer, GError **error)
{
	g_autofree char *dir = NULL;
	guint8 uuid[16];
	gboolean ok;
	int ring_fd;

	if (session->kernel.own_events.events == 0)
		return TRUE;
	/* Counted once per session, given back with the rest of its charge. */
	if (!session->kernel.own_charged &&
	    !tc_user_limits_charge(&session->charge, TC_LIMIT_KERNEL_OWN_SESSIONS, 1, error))
		return FALSE;
	session->kernel.own_charged = TRUE;
	ring_fd = own_programs_start(session, consumer, error);
	if (ring_fd < 0)
		return FALSE;
	dir = g_build_filename(session->output_directory, "kernel-own", NULL);
	own_uuid(session, uuid);
	ok = tc_consumer_kernel_own(consumer, session->id, dir, uuid, ring_fd, error);
	close(ring_fd);
	session->kernel.own_running = TRUE;
	if (!ok) {
		tc_session_kernel_own_stop_locked(session, NULL);
		return FALSE;
	}
	g_message("Session '%s' of uid %u: own-process kernel events recorded into '%s'",
		  session->name, (unsigned)session->owner_uid, dir);
	return TRUE;
}

gboolean
tc_session_kernel_own_stop_locked(TcSession *session, GError **error)
{
	g_autoptr(GError) local_error = NULL;

	if (!session->kernel.own_running)
		return TRUE;
	session->kernel.own_running = FALSE;
	if (tc_kernel_own_remove(session->id, &local_error))
		return TRUE;
	/* A helper that went away took the programs with it. */
	if (g_error_matches(local_error, TC_ERROR, TC_ERROR_NOT_FOUND))
		return TRUE;
	g_propagate_error(error, g_steal_pointer(&local_error));
	return FALSE;
}

void
tc_session_kernel_own_destroyed_locked(TcSession *session)
{
	g_autoptr(GError) error = NULL;

	if (!tc_session_kernel_own_stop_locked(session, &error))
		g_warning("Session '%s': cannot remove its own-process programs: %s",
			  session->name, error->message);
}
