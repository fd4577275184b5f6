/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The own-process kernel tier (tc-kernel-own.h): one set of eBPF programs
 * per session, loaded with the owner's uid as a read-only constant and
 * attached to the classes of events the session asked for. The programs
 * stay attached while the connection that asked for them is open and the
 * session has not been removed; the ring buffer lives on while the
 * consumer holds its descriptor.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "tc-kernel-abi.h"
#include "tc-kernel-helper.h"
#include "tc-kernel-own.h"
#include "tc-own.skel.h"

static struct {
	int fd; /* the connection that owns it */
	uint64_t session_id;
	struct tc_own *skel;
} sessions[TC_KERNEL_OWN_SESSIONS_MAX];
static int nr_sessions;

static int
log_libbpf(enum libbpf_print_level level, const char *format, va_list args)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, format, args);
}

/* Each event class is one program; the others are not even loaded. */
static void
select_programs(struct tc_own *skel, uint32_t events)
{
	const struct {
		uint32_t bit;
		struct bpf_program *program;
	} classes[] = {
		{TC_KERNEL_OWN_SYS_ENTER, skel->progs.own_sys_enter},
		{TC_KERNEL_OWN_SYS_EXIT, skel->progs.own_sys_exit},
		{TC_KERNEL_OWN_SCHED_SWITCH, skel->progs.own_sched_switch},
		{TC_KERNEL_OWN_SCHED_WAKEUP, skel->progs.own_sched_wakeup},
		{TC_KERNEL_OWN_SCHED_MIGRATE, skel->progs.own_sched_migrate},
		{TC_KERNEL_OWN_PAGE_FAULT, skel->progs.own_page_fault},
		{TC_KERNEL_OWN_SIGNAL, skel->progs.own_signal_deliver},
	};

	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		bpf_program__set_autoload(classes[i].program, (events & classes[i].bit) != 0);
}

static int
find_session(uint64_t session_id)
{
	for (int i = 0; i < nr_sessions; i++)
		if (sessions[i].session_id == session_id)
			return i;
	return -1;
}

/* Loads and attaches the programs; *ring_fd is the ring buffer's map, a
 * descriptor of its own for the caller to send and close. */
int
tc_helper_own_start(int owner_fd, uint64_t session_id, uint32_t uid, uint32_t events,
		    uint32_t quiet_tgid, int *ring_fd)
{
	struct tc_own *skel;
	int ret;

	if (uid == 0 || events == 0 || (events & ~TC_KERNEL_OWN_ALL))
		return -EINVAL;
	if (find_session(session_id) >= 0)
		return -EEXIST;
	if (nr_sessions == TC_KERNEL_OWN_SESSIONS_MAX)
		return -EMFILE;
	libbpf_set_print(log_libbpf);
	skel = tc_own__open();
	if (!skel)
		return errno ? -errno : -ENOMEM;
	skel->rodata->owner_uid = uid;
	skel->rodata->quiet_tgid = (int32_t)quiet_tgid;
	select_programs(skel, events);
	ret = tc_own__load(skel);
	if (ret == 0)
		ret = tc_own__attach(skel);
	if (ret == 0) {
		*ring_fd = fcntl(bpf_map__fd(skel->maps.records), F_DUPFD_CLOEXEC, 3);
		if (*ring_fd < 0)
			ret = -errno;
	}
	if (ret < 0) {
		tc_own__destroy(skel);
		tc_helper_log("warning", "session %" PRIu64 ": own-process programs for uid %u: %s",
			      session_id, uid, strerror(-ret));
		return ret;
	}
	sessions[nr_sessions++] = (__typeof__(sessions[0])){
		.fd = owner_fd, .session_id = session_id, .skel = skel};
	tc_helper_log("info", "session %" PRIu64 ": own-process programs for uid %u, events 0x%x",
		      session_id, uid, events);
	return 0;
}

static void
destroy_at(int i)
{
	tc_helper_log("info", "session %" PRIu64 ": own-process programs removed",
		      sessions[i].session_id);
	tc_own__destroy(sessions[i].skel);
	sessions[i] = sessions[--nr_sessions];
}

int
tc_helper_own_remove(uint64_t session_id)
{
	int i = find_session(session_id);

	if (i < 0)
		return -ENOENT;
	destroy_at(i);
	return 0;
}

void
tc_helper_own_remove_owned_by(int fd)
{
	for (int i = 0; i < nr_sessions; i++)
		if (sessions[i].fd == fd)
			destroy_at(i--);
}
