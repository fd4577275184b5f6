/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The own-process kernel tier: the records the root helper's eBPF
 * programs write into a BPF ring buffer for the session owner's consumer.
 * Shared by the programs (built with clang -target bpf on vmlinux.h) and
 * the consumer.
 *
 * Every record describes a task the session owner could trace with ptrace
 * (same uids and gids, dumpable, no capability the owner lacks: the rule
 * is the programs' tc-own-ptrace.h), or a task of the delegated unit the
 * session tracks, and holds only what that task supplied (system call
 * numbers, arguments, return values, its own fault addresses, the block
 * requests and packets it issued) or integers about that task: never a
 * kernel address, never another task's name, pid or state. Scheduling records
 * pass a per-CPU token bucket (TC_KERNEL_OWN_SCHED_RATE per second, bursts
 * of TC_KERNEL_OWN_SCHED_BURST), so they cannot sample other users'
 * scheduling at high resolution; what the bucket drops is counted in a
 * TC_OWN_LOST record.
 */
#ifndef TC_KERNEL_OWN_H
#define TC_KERNEL_OWN_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* The event classes a session may ask for (tc_kernel_own_msg.events). */
#define TC_KERNEL_OWN_SYS_ENTER 0x01u     /* raw_syscalls:sys_enter */
#define TC_KERNEL_OWN_SYS_EXIT 0x02u      /* raw_syscalls:sys_exit */
#define TC_KERNEL_OWN_SCHED_SWITCH 0x04u  /* sched:sched_switch */
#define TC_KERNEL_OWN_SCHED_WAKEUP 0x08u  /* sched:sched_wakeup */
#define TC_KERNEL_OWN_SCHED_MIGRATE 0x10u /* sched:sched_migrate_task */
#define TC_KERNEL_OWN_PAGE_FAULT 0x20u    /* exceptions:page_fault_user */
#define TC_KERNEL_OWN_SIGNAL 0x40u        /* signal:signal_deliver */
#define TC_KERNEL_OWN_BLOCK_BIO_QUEUE 0x80u /* block:block_bio_queue */
#define TC_KERNEL_OWN_NET_DEV_QUEUE 0x100u  /* net:net_dev_queue */
#define TC_KERNEL_OWN_ALL 0x1ffu
/* The system calls of the bitmaps of tc_kernel_own_msg, by number
 * (syscalls:sys_enter_NAME and sys_exit_NAME): never part of "all", since
 * they are named one by one. */
#define TC_KERNEL_OWN_SYSCALL_ENTRY 0x200u
#define TC_KERNEL_OWN_SYSCALL_EXIT 0x400u
#define TC_KERNEL_OWN_SYSCALLS (TC_KERNEL_OWN_SYSCALL_ENTRY | TC_KERNEL_OWN_SYSCALL_EXIT)
/* System call numbers in the bitmaps are below this: 8 words of 64 bits. */
#define TC_KERNEL_OWN_SYSCALLS_MAX 512u
#define TC_KERNEL_OWN_SYSCALL_WORDS (TC_KERNEL_OWN_SYSCALLS_MAX / 64u)

#define TC_KERNEL_OWN_SCHED_RATE 20000u /* scheduling records per second per CPU */
#define TC_KERNEL_OWN_SCHED_BURST 2000u
/* The ring buffer every session gets: a power of two of pages. */
#define TC_KERNEL_OWN_RING_BYTES (4u << 20)

enum tc_own_record_type {
	TC_OWN_SYS_ENTER = 1,
	TC_OWN_SYS_EXIT = 2,
	TC_OWN_SWITCH_OUT = 3, /* the task left its CPU; to whom is not said */
	TC_OWN_SWITCH_IN = 4,  /* the task got its CPU; from whom is not said */
	TC_OWN_WAKEUP = 5,     /* the task was woken; by whom is not said */
	TC_OWN_MIGRATE = 6,
	TC_OWN_PAGE_FAULT = 7,
	TC_OWN_SIGNAL = 8,
	/* value: records lost before this one; id 0: scheduling records the
	 * bucket refused, 1: records that found the ring buffer full */
	TC_OWN_LOST = 9,
	/* A block I/O request the task submitted. id: the device (the
	 * kernel's dev_t, major << 20 | minor), value: bytes, args[0]: first
	 * sector, args[1]: the request's operation and flags (bi_opf) */
	TC_OWN_BIO_QUEUE = 10,
	/* A packet the task handed to a network device. id: the device's
	 * ifindex, value: bytes, args[0]: the protocol (host order ethertype) */
	TC_OWN_NET_DEV_QUEUE = 11,
	/* A system call of the entry bitmap began (id: its number, args:
	 * its six argument registers) or one of the exit bitmap returned
	 * (value: its return value); a native one only: a 32-bit task's
	 * calls have other numbers and are left out. */
	TC_OWN_SYSCALL_ENTRY = 12,
	TC_OWN_SYSCALL_EXIT = 13,
	TC_OWN_RECORD_TYPE_LAST = TC_OWN_SYSCALL_EXIT,
};

/* One layout for every record: 80 bytes. */
struct tc_own_record {
	__u64 timestamp; /* CLOCK_MONOTONIC, ns */
	__u16 type;      /* enum tc_own_record_type */
	__u16 cpu;
	__s32 tid;
	__s32 pid;       /* the thread group id */
	__s32 id;        /* system call number, signal, target CPU, prev_state, prio,
			  * device, ifindex */
	__s64 value;     /* return value, fault error code, lost count, signal code,
			  * bytes */
	__u64 args[6];   /* system call arguments; fault: address, ip; bio: sector,
			  * op; packet: protocol */
};

/*
 * A named system call whose arguments point to memory the programs copy
 * (the table of common/util/tc-syscall-args.c): the record above, type
 * TC_OWN_SYSCALL_ENTRY or TC_OWN_SYSCALL_EXIT, followed by the bytes
 * copied from the task. It is written into the ring only as long as
 * data_len makes it (at least up to data, at most the whole struct): a
 * reader takes data_len bytes only when the record holds them. An exit's args are the registers its entry had
 * (the programs keep them per task), so that output arguments are known
 * at exit. A call that copies nothing makes a plain tc_own_record.
 */
#define TC_OWN_SYSCALL_DATA_MAX 256u

struct tc_own_syscall_record {
	struct tc_own_record head;
	__u32 data_len; /* bytes of data filled, at most TC_OWN_SYSCALL_DATA_MAX */
	__u32 reserved;
	__u8 data[TC_OWN_SYSCALL_DATA_MAX];
};

/* What the programs copy of a call's memory, per number and per side
 * (entry, exit), as the helper loads them from the table. */
enum tc_own_copy {
	TC_OWN_COPY_NONE = 0,
	TC_OWN_COPY_STRING = 1,       /* text at args[arg], NUL included */
	TC_OWN_COPY_USER_INT = 2,     /* 4 bytes at args[arg] */
	TC_OWN_COPY_SOCKADDR = 3,     /* args[len_arg] bytes (at most 28) at args[arg] */
	TC_OWN_COPY_SOCKADDR_OUT = 4, /* the int at args[len_arg], then that many
				       * bytes (at most 28) at args[arg] */
	TC_OWN_COPY_INT_PAIR = 5,     /* 8 bytes at args[arg] */
};

/* Socket addresses are copied as far as sockaddr_in6 goes: lttng-modules
 * decodes AF_INET and AF_INET6 only. */
#define TC_OWN_SOCKADDR_MAX 28u

struct tc_own_syscall_copy {
	__u8 entry, entry_arg, entry_len_arg;
	__u8 exit, exit_arg, exit_len_arg;
	__u8 reserved[2];
};

#endif /* TC_KERNEL_OWN_H */
