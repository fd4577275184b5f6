/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The own-process kernel tier (tc-kernel-own.h): one set of eBPF programs
 * per session, loaded with the owner's uid and gid as read-only constants and
 * attached to the classes of events the session asked for. The programs
 * stay attached while the connection that asked for them is open and the
 * session has not been removed; the ring buffer lives on while the
 * consumer holds its descriptor.
 */
#include "tc-helper-own.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "tc-helper-log.h"
#include "tc-helper-request.h"
#include "tc-kernel-abi.h"
#include "tc-kernel-own.h"
#include "tc-own.skel.h"
#include "tc-syscall-args.h"
#include "tc-syscall-name.h"

/* The unified hierarchy, where the "0::" paths of /proc/PID/cgroup start
 * and whose groups bpf_get_current_ancestor_cgroup_id() names: at
 * /sys/fs/cgroup, or at /sys/fs/cgroup/unified on a machine with systemd's
 * hybrid layout (the v1 controllers beside it). */
#define TC_CGROUP_ROOT "/sys/fs/cgroup"
#define TC_CGROUP_HYBRID_ROOT "/sys/fs/cgroup/unified"

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
		{TC_KERNEL_OWN_BLOCK_BIO_QUEUE, skel->progs.own_block_bio_queue},
		{TC_KERNEL_OWN_NET_DEV_QUEUE, skel->progs.own_net_dev_queue},
		{TC_KERNEL_OWN_SYSCALL_ENTRY, skel->progs.own_syscall_entry},
		{TC_KERNEL_OWN_SYSCALL_EXIT, skel->progs.own_syscall_exit},
	};

	/* Block and network records need the softirqs counted. */
	bool softirqs = (events & (TC_KERNEL_OWN_BLOCK_BIO_QUEUE | TC_KERNEL_OWN_NET_DEV_QUEUE)) != 0;

	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		bpf_program__set_autoload(classes[i].program, (events & classes[i].bit) != 0);
	/* The entry program keeps the registers each exit reports. */
	bpf_program__set_autoload(skel->progs.own_syscall_entry,
				  (events & TC_KERNEL_OWN_SYSCALLS) != 0);
	bpf_program__set_autoload(skel->progs.own_softirq_exit, softirqs);
	bpf_program__set_autoload(skel->progs.own_softirq_entry, softirqs);
}

/* The program's copy of a field the table copies from memory. */
static void
copy_of(const struct tc_syscall_args_layout *layout, uint8_t *kind, uint8_t *arg,
	uint8_t *len_arg)
{
	const struct tc_syscall_args_field *field;

	*kind = TC_OWN_COPY_NONE;
	if (layout->copy < 0)
		return;
	field = &layout->fields[layout->copy];
	*arg = field->arg;
	*len_arg = field->arg2;
	switch (field->kind) {
	case TC_SYSCALL_ARGS_STRING:
		*kind = TC_OWN_COPY_STRING;
		break;
	case TC_SYSCALL_ARGS_USER_INT:
		*kind = TC_OWN_COPY_USER_INT;
		break;
	case TC_SYSCALL_ARGS_SOCKADDR:
		*kind = TC_OWN_COPY_SOCKADDR;
		break;
	case TC_SYSCALL_ARGS_SOCKADDR_OUT:
		*kind = TC_OWN_COPY_SOCKADDR_OUT;
		break;
	case TC_SYSCALL_ARGS_INT_PAIR:
		*kind = TC_OWN_COPY_INT_PAIR;
		break;
	default:
		break;
	}
}

/* What the programs copy of each named call's memory, from the table of
 * the calls tracectl decodes; the others copy nothing. */
static void
set_copies(struct tc_own *skel, const struct tc_helper_own_events *asked)
{
	struct tc_own_syscall_copy *copies = (struct tc_own_syscall_copy *)skel->rodata->syscall_copy;

	memset(copies, 0, sizeof(skel->rodata->syscall_copy));
	if (!asked->syscall_entry || !asked->syscall_exit)
		return;
	for (unsigned int nr = 0; nr < TC_KERNEL_OWN_SYSCALLS_MAX; nr++) {
		bool entry = (asked->syscall_entry[nr / 64] >> (nr % 64)) & 1;
		bool exit = (asked->syscall_exit[nr / 64] >> (nr % 64)) & 1;
		const char *name = entry || exit ? tc_syscall_name_of(nr) : NULL;
		struct tc_syscall_args_layout layout;

		if (!name)
			continue;
		if (entry && tc_syscall_args_layout(name, false, &layout))
			copy_of(&layout, &copies[nr].entry, &copies[nr].entry_arg,
				&copies[nr].entry_len_arg);
		if (exit && tc_syscall_args_layout(name, true, &layout))
			copy_of(&layout, &copies[nr].exit, &copies[nr].exit_arg,
				&copies[nr].exit_len_arg);
	}
}

static int
find_session(uint64_t session_id)
{
	for (int i = 0; i < nr_sessions; i++)
		if (sessions[i].session_id == session_id)
			return i;
	return -1;
}

/* Loads and attaches the programs, scoped to what the owner (uid, gid)
 * could trace or, when cgroup_id is not 0, to that control group at depth
 * level and below; *ring_fd is the ring buffer's map, a descriptor of its
 * own for the caller to send and close. */
static int
own_start(int owner_fd, uint64_t session_id, uint32_t uid, uint32_t gid, uint64_t cgroup_id,
	  uint32_t level, const struct tc_helper_own_events *asked, uint32_t quiet_tgid,
	  int *ring_fd)
{
	uint32_t events = asked->classes;
	struct tc_own *skel;
	int ret;

	if ((cgroup_id == 0 && (uid == 0 || gid == (uint32_t)-1)) || events == 0 ||
	    !tc_helper_request_own_syscalls_are_valid(events, asked->syscall_entry,
						      asked->syscall_exit))
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
	skel->rodata->owner_gid = gid;
	skel->rodata->unit_cgroup_id = cgroup_id;
	skel->rodata->unit_cgroup_level = level;
	skel->rodata->quiet_tgid = (int32_t)quiet_tgid;
	memcpy((void *)skel->rodata->syscall_entry_set, asked->syscall_entry,
	       sizeof(skel->rodata->syscall_entry_set));
	memcpy((void *)skel->rodata->syscall_exit_set, asked->syscall_exit,
	       sizeof(skel->rodata->syscall_exit_set));
	set_copies(skel, asked);
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
	if (cgroup_id)
		tc_helper_log("info",
			      "session %" PRIu64 ": own-process programs for control group %" PRIu64
			      " (depth %u), events 0x%x",
			      session_id, cgroup_id, level, events);
	else
		tc_helper_log("info",
			      "session %" PRIu64
			      ": own-process programs for uid %u gid %u, events 0x%x",
			      session_id, uid, gid, events);
	return 0;
}

int
tc_helper_own_start(int owner_fd, uint64_t session_id, uint32_t uid, uint32_t gid,
		    const struct tc_helper_own_events *events, uint32_t quiet_tgid, int *ring_fd)
{
	return own_start(owner_fd, session_id, uid, gid, 0, 0, events, quiet_tgid, ring_fd);
}

/* The depth of an absolute group path with no empty, "." or ".."
 * component, not the root: its number of components; -EINVAL otherwise. */
static int
cgroup_depth(const char *path)
{
	int depth = 0;

	if (path[0] != '/' || path[1] == '\0')
		return -EINVAL;
	for (const char *at = path; *at; ) {
		const char *end = strchr(at + 1, '/');
		size_t length = end ? (size_t)(end - at - 1) : strlen(at + 1);

		if (length == 0 || (length == 1 && at[1] == '.') ||
		    (length == 2 && at[1] == '.' && at[2] == '.'))
			return -EINVAL;
		depth++;
		at = end ? end : at + 1 + length;
	}
	return depth;
}

static const char *
unified_root(void)
{
	struct statfs fs;

	if (statfs(TC_CGROUP_ROOT, &fs) == 0 && fs.f_type == CGROUP2_SUPER_MAGIC)
		return TC_CGROUP_ROOT;
	return TC_CGROUP_HYBRID_ROOT;
}

int
tc_helper_own_unit_start(int owner_fd, uint64_t session_id, const char *cgroup,
			 const struct tc_helper_own_events *events, uint32_t quiet_tgid,
			 int *ring_fd)
{
	char path[sizeof(TC_CGROUP_HYBRID_ROOT) + TC_KERNEL_CGROUP_PATH_MAX];
	int depth = cgroup_depth(cgroup), fd;
	struct statfs fs;
	struct stat st;

	if (depth < 0)
		return depth;
	snprintf(path, sizeof(path), "%s%s", unified_root(), cgroup);
	/* The id of a group of the unified hierarchy is its directory's
	 * inode number (kernfs), what bpf_get_current_ancestor_cgroup_id()
	 * gives. O_NOFOLLOW: cgroupfs has no links, a path that goes through
	 * one is not a group. */
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || fstatfs(fd, &fs) < 0) {
		int saved = errno;

		close(fd);
		return -saved;
	}
	close(fd);
	if (fs.f_type != CGROUP2_SUPER_MAGIC)
		return -ENOENT;
	return own_start(owner_fd, session_id, 0, 0, (uint64_t)st.st_ino, (uint32_t)depth, events,
			 quiet_tgid, ring_fd);
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
