/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The protocol between tracectld and tracectl-kernel-helper, the only code
 * of tracectl that runs as root and the only one that touches tracefs.
 *
 * AF_UNIX SOCK_SEQPACKET: /run/tracectl/kernel-helper.sock on a systemd
 * machine (socket-activated, so the helper runs only while needed), or a
 * socket pair (descriptor 3 of the helper) when tracectld starts it
 * itself. The helper serves only peers whose uid (SO_PEERCRED) is root or
 * the tracectl service account. Requests are answered in order, one reply
 * each; every size and name is checked (tc-kernel-names.h, on both sides),
 * a malformed request gets -EINVAL and the connection goes on.
 *
 * tracectld sends TC_KERNEL_PRUNE first on its main connection: the
 * helper keeps no list of its own across restarts, so tracectld, which
 * knows which sessions still exist, tells it which instances and probe
 * groups to keep; everything else it named is a leftover. Several services
 * may share a machine (and its tracefs): each sends session ids whose upper
 * 32 bits are its scope, a number of its own, and PRUNE removes only what
 * lies in the sender's scope. Each
 * uprobe PROBE_ADD goes on a connection of its own, which sends nothing
 * else and owns no instance.
 */
#ifndef TC_KERNEL_ABI_H
#define TC_KERNEL_ABI_H

#include <stdint.h>
#include <assert.h>

#include "tc-kernel-own.h"

#define TC_KERNEL_MAGIC 0x54434b31u /* "TCK1" */
#define TC_KERNEL_VERSION 12u
#define TC_KERNEL_COMMAND_FD 3
#define TC_KERNEL_SOCKET_NAME "kernel-helper.sock"
/* Every tracefs instance the helper creates is named with this prefix and
 * the session id (in decimal, scope included), so leftovers of a crash are
 * found and removed. */
#define TC_KERNEL_INSTANCE_PREFIX "tracectl-"

enum tc_kernel_msg_type {
	TC_KERNEL_PING = 1,            /* -> reply.value = TC_KERNEL_VERSION */
	/* session_id, value = per-CPU buffer size in KiB (0: the kernel's
	 * default), with TC_KERNEL_CLOCK_TSC or not, TC_KERNEL_OVERWRITE or
	 * not -> creates the instance, trace_clock "x86-tsc" or "mono" (the
	 * session's clock, the one of its applications), recording off */
	TC_KERNEL_INSTANCE_CREATE = 2,
	TC_KERNEL_INSTANCE_REMOVE = 3, /* session_id -> removes it */
	/* struct tc_kernel_event_msg: names or '*' globs; -ENOENT when no
	 * event matched */
	TC_KERNEL_EVENT_ENABLE = 4,
	TC_KERNEL_EVENT_DISABLE = 5,
	/* session_id -> recording on; before the reply, one TC_KERNEL_CPU_FD
	 * message per CPU (value = the CPU) carrying its trace_pipe_raw
	 * (O_NONBLOCK), each followed by a TC_KERNEL_CPU_STATS_FD message
	 * (value = the CPU) carrying its per_cpu stats file (the kernel's
	 * exact counts of what it overwrote and dropped; the raw pages only
	 * say that events were lost when a page is full), then one
	 * TC_KERNEL_FORMATS message carrying a sealed
	 * memfd: "== header_page header_page\n" and events/header_page, then
	 * "== <system> <event>\n" and the format file of every enabled event.
	 * reply.value = the number of CPUs */
	TC_KERNEL_START = 6,
	TC_KERNEL_STOP = 7, /* session_id -> recording off, descriptors stay */
	TC_KERNEL_CPU_FD = 8,
	TC_KERNEL_FORMATS = 9,
	/* value = 0: every event as "system:event", 1: the system calls by
	 * name -> one TC_KERNEL_LIST_FD message carrying a sealed memfd, a
	 * name per line, then the reply */
	TC_KERNEL_LIST = 10,
	TC_KERNEL_LIST_FD = 11,
	/* struct tc_kernel_probe_msg -> a dynamic event in the group
	 * "tracectl_<session id>", enabled in the session's instance;
	 * removed with the instance */
	TC_KERNEL_PROBE_ADD = 12,
	/* struct tc_kernel_event_msg (globs) -> one TC_KERNEL_FORMATS message
	 * as START's, holding the formats of the matching events, enabled or
	 * not, then the reply (value = how many). The service hands them to
	 * the consumer before it enables events in a running session, so no
	 * record comes before its format. */
	TC_KERNEL_FORMATS_GET = 13,
	/* session_id -> the instance records thread group ids (its option
	 * record-tgid); one TC_KERNEL_TGIDS_FD message carrying saved_tgids
	 * opened for reading ("tid tgid" lines), then the reply. For the
	 * consumer's pid context. */
	TC_KERNEL_TGIDS = 14,
	TC_KERNEL_TGIDS_FD = 15,
	TC_KERNEL_REPLY = 16,
	TC_KERNEL_CPU_STATS_FD = 17,
	/* struct tc_kernel_prune_msg -> removes every instance and probe
	 * group named by tracectl whose session id is in the message's scope
	 * and not in the list, and the connection owns the listed ones
	 * (removed when it closes). reply.value = how many were removed. */
	TC_KERNEL_PRUNE = 18,
	/* struct tc_kernel_pids_msg -> which processes the instance records
	 * (set_event_pid): with TC_KERNEL_PIDS_ALL (count 0) every one;
	 * otherwise the listed pids, which need not exist, with the threads
	 * they have now and, from then on, the threads and children they
	 * create (the instance's option event-fork); none at all when count
	 * is 0. -E2BIG when the listed processes have more than
	 * TC_KERNEL_PID_THREADS_MAX threads in all. */
	TC_KERNEL_PIDS = 19,
	/* struct tc_kernel_filter_msg -> writes the filter of every event of
	 * the instance that matches the globs; "0" removes it. When the
	 * kernel refuses the filter for one of them (a field it lacks), every
	 * one of them is left without filter and the reply is -EINVAL (the
	 * service does not enable them then). -ENOENT when nothing matched. */
	TC_KERNEL_EVENT_FILTER = 20,
	/* struct tc_kernel_own_msg -> the own-process tier's programs for
	 * the session (tc-kernel-own.h), attached; one TC_KERNEL_OWN_FD
	 * message carrying the ring buffer's map, then the reply. -EINVAL
	 * for uid 0, gid -1, no event or an unknown event bit, a system call
	 * bitmap whose class is not asked for or is empty, -EEXIST when the
	 * session has them already, -EMFILE past
	 * TC_KERNEL_OWN_SESSIONS_MAX. Owned by the connection. */
	TC_KERNEL_OWN_START = 21,
	TC_KERNEL_OWN_FD = 22,
	/* session_id -> detaches and drops them; -ENOENT when none */
	TC_KERNEL_OWN_REMOVE = 23,
	/* struct tc_kernel_own_unit_msg -> as OWN_START, for the tasks of
	 * a control group and its descendants (a delegated unit's) instead
	 * of a uid's: the helper opens the group under /sys/fs/cgroup itself.
	 * -EINVAL for a path that is not absolute, has "." or ".." or empty
	 * components, or is the root group; -ENOENT for no such group. */
	TC_KERNEL_OWN_UNIT_START = 24,
	/* struct tc_kernel_track_msg -> the instance records the processes
	 * whose ids are in every set that does not hold every value
	 * (LTTng's inclusion sets): set_event_pid lists them now, event-fork
	 * adds their children at once, and the helper rescans /proc every
	 * TC_KERNEL_TRACK_RESCAN_MS to add the processes that changed into
	 * tracked ids and drop those that changed out. Only for a tracker with
	 * a set of uids, vuids, gids, vgids or vpids; pid-only trackers and
	 * "everyone" are PIDS requests (which end the rescans). -E2BIG as
	 * PIDS'. */
	TC_KERNEL_TRACK = 25,
	/* session_id -> the state dump (tc-kernel-statedump.h): what exists
	 * now (processes and threads with their names and namespaces, their
	 * descriptors and memory maps, block devices, network interfaces,
	 * interrupts, CPUs) written into the recording instance through its
	 * trace_marker_raw, as lttng-modules' lttng_statedump_* events
	 * between a start and an end, within TC_HELPER_STATEDUMP_MS and fixed
	 * bounds. START's formats include ftrace/raw_data's for the consumer
	 * to find them. reply.value = the records written. */
	TC_KERNEL_STATEDUMP = 26,
};

/* In INSTANCE_CREATE's value: the session's clock is the TSC. */
#define TC_KERNEL_CLOCK_TSC 0x80000000u
/* In INSTANCE_CREATE's value: a flight recorder (a snapshot session's
 * kernel channel). The instance's options/overwrite is set, whatever the
 * top instance's (which new instances inherit), so that full buffers
 * keep the newest events when the consumer lags. */
#define TC_KERNEL_OVERWRITE 0x40000000u

struct tc_kernel_msg {
	uint32_t magic;
	uint32_t type;
	uint32_t size; /* sizeof(struct tc_kernel_msg) */
	uint32_t seq;
	uint64_t session_id;
	int32_t status; /* replies: 0 or -errno */
	uint32_t value; /* replies: PING's version */
};

static_assert(sizeof(struct tc_kernel_msg) == 32, "ABI size changed");

#define TC_KERNEL_NAME_MAX 128u

#define TC_KERNEL_LOCATION_MAX 256u

/*
 * PROBE_ADD's refusals of a uprobe target, so that the service names the
 * reason (other codes are the open's, as the owner: ENOENT, EACCES...):
 *   -EINVAL       the location is not /absolute/path:function nor
 *                 sdt:/absolute/path:provider:name (see tc-kernel-names.h)
 *   -EMEDIUMTYPE  not a regular file (a FIFO, a device, a directory)
 *   -EFBIG        bigger than TC_KERNEL_ELF_FILE_MAX
 *   -E2BIG        more sections, symbols, symbol names or notes than the
 *                 limits below
 *   -ENOEXEC      not an ELF64 file, or one whose headers point outside it
 *                 (a truncated file)
 *   -ESRCH        no function of that name in its symbol tables, or no
 *                 SDT probe provider:name in its notes
 *   -ENOTUNIQ     an SDT probe at several sites (one uprobe is one place)
 *   -ETIMEDOUT    the file was not opened and parsed within
 *                 TC_KERNEL_UPROBE_FILE_MS (a slow or hung file system,
 *                 such as a FUSE mount whose server does not answer)
 * The limits bound what one request makes the helper read (file size
 * aside, at most about 200 MiB) and are far above what real programs
 * need: a large C++ library has a few hundred thousand symbols.
 */
#define TC_KERNEL_ELF_FILE_MAX (4ull << 30)        /* bytes */
#define TC_KERNEL_ELF_SECTIONS_MAX 16384u           /* section headers */
#define TC_KERNEL_ELF_SYMBOLS_MAX (4u << 20)       /* symbols walked, all tables */
#define TC_KERNEL_ELF_NAMES_MAX (64u << 20)        /* bytes of one string table */
#define TC_KERNEL_ELF_NOTES_MAX (16u << 20)        /* bytes of note sections, all of them */
/* How long the helper's child may take to open and parse a uprobe target. */
#define TC_KERNEL_UPROBE_FILE_MS 3000

enum tc_kernel_probe_kind {
	TC_KERNEL_PROBE_KPROBE = 1,    /* location: symbol[+offset] or 0xADDRESS */
	TC_KERNEL_PROBE_KRETPROBE = 2, /* the same, on return */
	/* location: /absolute/path/to/ELF:function, or an SDT probe of the
	 * file's notes, sdt:/absolute/path/to/ELF:provider:name, with its
	 * semaphore raised by the kernel while the probe is enabled */
	TC_KERNEL_PROBE_UPROBE = 3,
};

/* Created but not enabled: the service enables it once the consumer has
 * its format (TC_KERNEL_FORMATS_GET). */
#define TC_KERNEL_PROBE_DISABLED 0x1u

struct tc_kernel_probe_msg {
	struct tc_kernel_msg header; /* header.size = sizeof(this) */
	uint32_t kind;               /* enum tc_kernel_probe_kind */
	uint32_t uid, gid;           /* the session owner: uprobe files are opened as them */
	uint32_t flags;              /* TC_KERNEL_PROBE_* */
	char name[64];               /* [A-Za-z0-9_], the event's name */
	char location[TC_KERNEL_LOCATION_MAX];
};

struct tc_kernel_event_msg {
	struct tc_kernel_msg header;   /* header.size = sizeof(this) */
	char system[TC_KERNEL_NAME_MAX]; /* [A-Za-z0-9_*], NUL-terminated */
	char event[TC_KERNEL_NAME_MAX];
};

struct tc_kernel_filter_msg {
	struct tc_kernel_msg header;     /* header.size = sizeof(this) */
	char system[TC_KERNEL_NAME_MAX]; /* as tc_kernel_event_msg's */
	char event[TC_KERNEL_NAME_MAX];
	char filter[256]; /* tc_kernel_check_filter(), NUL-terminated */
};

/* At most this many sessions with kernel instances per tracectld. */
#define TC_KERNEL_PRUNE_MAX 1024u

struct tc_kernel_prune_msg {
	struct tc_kernel_msg header; /* header.size = sizeof(this) */
	uint32_t count;              /* <= TC_KERNEL_PRUNE_MAX */
	/* The sender's sessions are those whose id >> 32 is scope; the
	 * others belong to other services and are left alone. */
	uint32_t scope;
	uint64_t keep[TC_KERNEL_PRUNE_MAX]; /* session ids, count of them, in scope */
};

static_assert(sizeof(struct tc_kernel_prune_msg) == 40 + 8 * TC_KERNEL_PRUNE_MAX,
	      "ABI size changed");

/* At most this many pids in one PIDS request, and threads they expand to. */
#define TC_KERNEL_PIDS_MAX 1024u
#define TC_KERNEL_PID_THREADS_MAX 65536u
/* In PIDS' flags: no filter, every process records. */
#define TC_KERNEL_PIDS_ALL 0x1u

struct tc_kernel_pids_msg {
	struct tc_kernel_msg header; /* header.size = sizeof(this) */
	uint32_t count;              /* <= TC_KERNEL_PIDS_MAX, 0 with PIDS_ALL */
	uint32_t flags;              /* TC_KERNEL_PIDS_* */
	int32_t pids[TC_KERNEL_PIDS_MAX]; /* count of them, each > 0 */
};

static_assert(sizeof(struct tc_kernel_pids_msg) == 40 + 4 * TC_KERNEL_PIDS_MAX,
	      "ABI size changed");

/* TRACK's sets, in this order (the service's TcTrackKind's). A process'
 * pid and uid/gid are its thread group id and real ids as the initial
 * namespaces see them; vpid, vuid and vgid are the same ids as its own
 * pid and user namespaces see them. */
enum tc_kernel_track_kind {
	TC_KERNEL_TRACK_PID,
	TC_KERNEL_TRACK_VPID,
	TC_KERNEL_TRACK_UID,
	TC_KERNEL_TRACK_VUID,
	TC_KERNEL_TRACK_GID,
	TC_KERNEL_TRACK_VGID,
	TC_KERNEL_TRACK_KINDS,
};

/* At most this many values in one TRACK request, all sets together. */
#define TC_KERNEL_TRACK_VALUES_MAX 1024u
/* How often the helper looks for processes whose ids changed: a process
 * that setuid()s into a tracked uid records within about this long. */
#define TC_KERNEL_TRACK_RESCAN_MS 250

struct tc_kernel_track_msg {
	struct tc_kernel_msg header; /* header.size = sizeof(this) */
	uint32_t all;   /* bit 1 << kind: that set holds every value (its count 0) */
	uint32_t counts[TC_KERNEL_TRACK_KINDS]; /* the values of each set */
	uint32_t reserved; /* 0 */
	/* The sets' values one after the other, in kind order: counts[] add
	 * up to at most TC_KERNEL_TRACK_VALUES_MAX. */
	uint32_t values[TC_KERNEL_TRACK_VALUES_MAX];
};

static_assert(sizeof(struct tc_kernel_track_msg) == 64 + 4 * TC_KERNEL_TRACK_VALUES_MAX,
	      "ABI size changed");

/* Sessions with own-process programs, per helper. */
#define TC_KERNEL_OWN_SESSIONS_MAX 256

struct tc_kernel_own_msg {
	struct tc_kernel_msg header; /* header.size = sizeof(this) */
	uint32_t uid;                /* the session owner, not 0 */
	uint32_t events;             /* TC_KERNEL_OWN_* of tc-kernel-own.h */
	/* The owner's consumer, or 0: its own work (reading the ring buffer,
	 * writing the trace) is not recorded, or it would feed itself. */
	uint32_t quiet_tgid;
	/* The primary group of the owner's account: the programs record the
	 * tasks the owner could trace, whose gids are all this one. */
	uint32_t gid;
	/* With TC_KERNEL_OWN_SYSCALL_ENTRY (EXIT) in events, the system
	 * calls whose entries (exits) are recorded, bit n of word n / 64 for
	 * number n; all 0 otherwise. */
	uint64_t syscall_entry[TC_KERNEL_OWN_SYSCALL_WORDS];
	uint64_t syscall_exit[TC_KERNEL_OWN_SYSCALL_WORDS];
};

static_assert(sizeof(struct tc_kernel_own_msg) == 48 + 16 * TC_KERNEL_OWN_SYSCALL_WORDS,
	      "ABI size changed");

#define TC_KERNEL_CGROUP_PATH_MAX 1024u

struct tc_kernel_own_unit_msg {
	struct tc_kernel_msg header; /* header.size = sizeof(this) */
	uint32_t events;             /* TC_KERNEL_OWN_* of tc-kernel-own.h */
	uint32_t quiet_tgid;         /* as in tc_kernel_own_msg */
	/* The group, as /proc/PID/cgroup shows it ("/system.slice/x.service"),
	 * NUL-terminated. */
	char cgroup[TC_KERNEL_CGROUP_PATH_MAX];
	uint64_t syscall_entry[TC_KERNEL_OWN_SYSCALL_WORDS]; /* as in tc_kernel_own_msg */
	uint64_t syscall_exit[TC_KERNEL_OWN_SYSCALL_WORDS];
};

static_assert(sizeof(struct tc_kernel_own_unit_msg) ==
		      40 + TC_KERNEL_CGROUP_PATH_MAX + 16 * TC_KERNEL_OWN_SYSCALL_WORDS,
	      "ABI size changed");

#endif /* TC_KERNEL_ABI_H */
