// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The own-process kernel tier: programs the root helper attaches for one
 * session, recording only tasks the owner could trace themselves (the rule
 * of ptrace, below), and only fields that describe that task or that it
 * supplied (tc-kernel-own.h).
 *
 * Nothing of another task is ever copied: a switch from or to another
 * user's task records only the owner's side, a wake-up does not name the
 * waker. The load-time constants (owner_uid and owner_gid, or a delegated
 * unit's control group) are read-only for the programs; the consumer holds
 * only the ring buffer, whose data pages the kernel maps read-only for it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>

#include "tc-kernel-own.h"
#include "tc-own-ptrace.h"

char LICENSE[] SEC("license") = "GPL";

/* The owner as a tracer (tc-own-ptrace.h): their uid and their account's
 * primary group. */
const volatile __u32 owner_uid = 0xffffffffu;
const volatile __u32 owner_gid = 0xffffffffu;
/* A delegated unit's programs (OWN_UNIT_START): the tasks of the control
 * group whose id is unit_cgroup_id, at depth unit_cgroup_level of the
 * unified hierarchy, and of its descendants, whatever their uid; 0 for
 * the uid scope above. */
const volatile __u64 unit_cgroup_id;
const volatile __u32 unit_cgroup_level;
/* The owner's consumer: reading the ring makes records that would wake
 * it to read them, without end. */
const volatile __s32 quiet_tgid;
/* The system calls named by the session (bit n of word n / 64 for number
 * n), whose entries and exits the syscall programs record. */
const volatile __u64 syscall_entry_set[TC_KERNEL_OWN_SYSCALL_WORDS];
const volatile __u64 syscall_exit_set[TC_KERNEL_OWN_SYSCALL_WORDS];
/* What the syscall programs copy of each named call's memory, by number
 * (tc-kernel-own.h); all TC_OWN_COPY_NONE for calls not decoded. */
const volatile struct tc_own_syscall_copy syscall_copy[TC_KERNEL_OWN_SYSCALLS_MAX];

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, TC_KERNEL_OWN_RING_BYTES);
} records SEC(".maps");

struct own_bucket {
	__u64 tokens;
	__u64 last_ns;
	__u64 dropped;      /* scheduling records the bucket refused */
	__u64 ring_dropped; /* records that found the ring buffer full */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct own_bucket);
} sched_buckets SEC(".maps");

/* Whether task's group in the unified hierarchy is the unit's or below
 * it: its ancestor at the unit's depth is the unit's group. */
static __always_inline bool
in_unit(struct task_struct *task)
{
	struct cgroup *group = BPF_CORE_READ(task, cgroups, dfl_cgrp);
	struct cgroup *ancestor = NULL;

	if (!group || BPF_CORE_READ(group, level) < (int)unit_cgroup_level)
		return false;
	bpf_core_read(&ancestor, sizeof(ancestor), &group->ancestors[unit_cgroup_level]);
	return ancestor && BPF_CORE_READ(ancestor, kn, id) == unit_cgroup_id;
}

/* Whether the programs record task: the unit's, or one its owner could
 * trace (tc-own-ptrace.h); never the owner's consumer. */
static __always_inline bool
is_owners(struct task_struct *task)
{
	if (unit_cgroup_id)
		return in_unit(task) && BPF_CORE_READ(task, tgid) != quiet_tgid;
	return tc_own_ptrace_may_trace(task, owner_uid, owner_gid) && task->tgid != quiet_tgid;
}

static __always_inline bool
current_is_owners(void)
{
	/* Cheap first: most tasks of a busy machine are someone else's. The
	 * helper gives the current task's uid and gid in one word. */
	if (unit_cgroup_id) {
		if (bpf_get_current_ancestor_cgroup_id(unit_cgroup_level) != unit_cgroup_id)
			return false;
	} else if (bpf_get_current_uid_gid() != ((__u64)owner_gid << 32 | owner_uid)) {
		return false;
	}
	return is_owners(bpf_get_current_task_btf());
}

/*
 * A system call's six argument slots are the task's registers, whatever
 * the call takes: unused ones hold whatever the task left there. Values in
 * the kernel's half of the address space are zeroed, so that not even a
 * register the kernel should have cleared can carry a kernel address out
 * (a user pointer is never there; -1 and -errno, in the top page, stay).
 */
static __always_inline __u64
scrub(__u64 value)
{
	return value >= 0xffff800000000000ull && value < 0xfffffffffffff000ull ? 0 : value;
}

static __always_inline void
emit(__u16 type, struct task_struct *task, __s32 id, __s64 value, const __u64 *args, int nargs)
{
	struct tc_own_record *record = bpf_ringbuf_reserve(&records, sizeof(*record), 0);
	__u32 zero = 0;
	struct own_bucket *bucket = bpf_map_lookup_elem(&sched_buckets, &zero);

	if (!record) {
		if (bucket)
			bucket->ring_dropped++;
		return;
	}
	if (bucket && bucket->ring_dropped && type != TC_OWN_LOST) {
		/* This record's slot says what was lost before it. */
		record->timestamp = bpf_ktime_get_ns();
		record->type = TC_OWN_LOST;
		record->cpu = (__u16)bpf_get_smp_processor_id();
		record->tid = BPF_CORE_READ(task, pid);
		record->pid = BPF_CORE_READ(task, tgid);
		record->id = 1;
		record->value = (__s64)bucket->ring_dropped + 1; /* and this one */
		for (int i = 0; i < 6; i++)
			record->args[i] = 0;
		bucket->ring_dropped = 0;
		bpf_ringbuf_submit(record, BPF_RB_NO_WAKEUP);
		return;
	}
	record->timestamp = bpf_ktime_get_ns();
	record->type = type;
	record->cpu = (__u16)bpf_get_smp_processor_id();
	record->tid = BPF_CORE_READ(task, pid);
	record->pid = BPF_CORE_READ(task, tgid);
	record->id = id;
	record->value = value;
	for (int i = 0; i < 6; i++)
		record->args[i] = args && i < nargs ? scrub(args[i]) : 0;
	/* The consumer reads on a timer: a wake-up per record would cost
	 * the traced task an interrupt each. */
	bpf_ringbuf_submit(record, BPF_RB_NO_WAKEUP);
}

/* A scheduling record may pass: the CPU's bucket had a token. What was
 * dropped since the last one that passed is recorded first. */
static __always_inline bool
sched_may_record(struct task_struct *task)
{
	__u32 zero = 0;
	struct own_bucket *bucket = bpf_map_lookup_elem(&sched_buckets, &zero);
	__u64 now = bpf_ktime_get_ns(), elapsed, earned;

	if (!bucket)
		return false;
	/* A second or more fills the bucket; below, the product cannot
	 * overflow. */
	elapsed = now - bucket->last_ns;
	earned = elapsed >= 1000000000ull
			 ? TC_KERNEL_OWN_SCHED_BURST
			 : elapsed * TC_KERNEL_OWN_SCHED_RATE / 1000000000ull;
	if (earned) {
		bucket->tokens += earned;
		if (bucket->tokens > TC_KERNEL_OWN_SCHED_BURST)
			bucket->tokens = TC_KERNEL_OWN_SCHED_BURST;
		bucket->last_ns = now;
	}
	if (bucket->tokens == 0) {
		bucket->dropped++;
		return false;
	}
	bucket->tokens--;
	if (bucket->dropped) {
		emit(TC_OWN_LOST, task, 0, (__s64)bucket->dropped, NULL, 0);
		bucket->dropped = 0;
	}
	return true;
}

/* A system call's six argument registers. Constant offsets: the verifier
 * refuses a context pointer moved by a loop index. */
static __always_inline void
copy_args(const struct trace_event_raw_sys_enter *ctx, __u64 args[6])
{
	args[0] = ctx->args[0];
	args[1] = ctx->args[1];
	args[2] = ctx->args[2];
	args[3] = ctx->args[3];
	args[4] = ctx->args[4];
	args[5] = ctx->args[5];
}

SEC("tracepoint/raw_syscalls/sys_enter")
int
own_sys_enter(struct trace_event_raw_sys_enter *ctx)
{
	__u64 args[6];

	if (!current_is_owners())
		return 0;
	copy_args(ctx, args);
	emit(TC_OWN_SYS_ENTER, bpf_get_current_task_btf(), (__s32)ctx->id, 0, args, 6);
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_exit")
int
own_sys_exit(struct trace_event_raw_sys_exit *ctx)
{
	if (!current_is_owners())
		return 0;
	emit(TC_OWN_SYS_EXIT, bpf_get_current_task_btf(), (__s32)ctx->id, ctx->ret, NULL, 0);
	return 0;
}

/*
 * The numbers in the sets are the native ABI's, those the service's table
 * has (<sys/syscall.h> at build time). A 32-bit task on a 64-bit kernel
 * makes its calls with another table's numbers, which would be recorded
 * under the wrong names: on x86, where the kernel marks such a call in
 * the task's thread_info (TS_COMPAT), they are left out.
 */
#define OWN_TS_COMPAT 0x0002

static __always_inline bool
in_named_set(const volatile __u64 *set, long id, struct task_struct *task)
{
	__u64 nr = (__u64)id;

	if (id < 0 || nr >= TC_KERNEL_OWN_SYSCALLS_MAX || !((set[nr >> 6] >> (nr & 63)) & 1))
		return false;
#ifdef __TARGET_ARCH_x86
	if (bpf_core_field_exists(task->thread_info.status) &&
	    (BPF_CORE_READ(task, thread_info.status) & OWN_TS_COMPAT))
		return false;
#endif
	return true;
}

/*
 * A named call's registers at its entry, kept per task for its exit:
 * lttng-modules' exit events carry the output arguments (read's buf,
 * pipe2's fildes), which are only known from the entry's registers. A
 * task makes one system call at a time; nr says which the registers are
 * of, so that an exit whose entry was not seen (the programs were
 * attached in between) finds none.
 */
struct saved_call {
	__s64 nr;
	__u64 args[6];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct saved_call);
} saved_calls SEC(".maps");

/* Copies what kind says of the task's memory into data; the bytes
 * copied (0 when the task's memory could not be read: the record then
 * says nothing of it). Only the task's own memory is read
 * (bpf_probe_read_user), and the task is one its owner could read. */
static __always_inline __u32
copy_memory(__u8 *data, __u8 kind, const __u64 *args, __u8 arg, __u8 len_arg)
{
	const void *from;
	__s32 user_len = 0;
	__u64 len;
	long copied;

	if (arg >= 6 || len_arg >= 6)
		return 0;
	from = (const void *)args[arg];
	switch (kind) {
	case TC_OWN_COPY_STRING:
		copied = bpf_probe_read_user_str(data, TC_OWN_SYSCALL_DATA_MAX, from);
		return copied > 0 ? (__u32)copied : 0;
	case TC_OWN_COPY_USER_INT:
		return bpf_probe_read_user(data, 4, from) == 0 ? 4 : 0;
	case TC_OWN_COPY_INT_PAIR:
		return bpf_probe_read_user(data, 8, from) == 0 ? 8 : 0;
	case TC_OWN_COPY_SOCKADDR:
		len = args[len_arg];
		break;
	case TC_OWN_COPY_SOCKADDR_OUT:
		/* The length the call wrote back, kept first in data. */
		if (bpf_probe_read_user(&user_len, 4, (const void *)args[len_arg]) != 0)
			return 0;
		__builtin_memcpy(data, &user_len, 4);
		len = user_len < 0 ? 0 : (__u64)user_len;
		if (len > TC_OWN_SOCKADDR_MAX)
			len = TC_OWN_SOCKADDR_MAX;
		if (len && bpf_probe_read_user(data + 4, len & 31, from) != 0)
			return 4;
		return 4 + (__u32)len;
	default:
		return 0;
	}
	if (len > TC_OWN_SOCKADDR_MAX)
		len = TC_OWN_SOCKADDR_MAX;
	if (len == 0 || bpf_probe_read_user(data, len & 31, from) != 0)
		return 0;
	return (__u32)len;
}

/* A named call's record with copied bytes is built here, then written
 * into the ring at its length: the room a path may take is reserved
 * nowhere in the ring, only here, once per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tc_own_syscall_record);
} syscall_scratch SEC(".maps");

#define SYSCALL_RECORD_HEAD_SIZE (sizeof(struct tc_own_syscall_record) - TC_OWN_SYSCALL_DATA_MAX)

/* A named call's record: a plain one when nothing is copied, else one
 * with the copied bytes (tc_own_syscall_record), as long as they are. */
static __always_inline void
emit_syscall(__u16 type, struct task_struct *task, __s32 nr, __s64 value, const __u64 *args,
	     __u8 kind, __u8 arg, __u8 len_arg)
{
	struct tc_own_syscall_record *record;
	__u32 zero = 0, size;
	struct own_bucket *bucket;

	if (kind == TC_OWN_COPY_NONE) {
		emit(type, task, nr, value, args, 6);
		return;
	}
	bucket = bpf_map_lookup_elem(&sched_buckets, &zero);
	record = bpf_map_lookup_elem(&syscall_scratch, &zero);
	if (!record || (bucket && bucket->ring_dropped)) {
		/* emit() records the loss first, in a slot of its own. */
		emit(type, task, nr, value, args, 6);
		return;
	}
	record->head.timestamp = bpf_ktime_get_ns();
	record->head.type = type;
	record->head.cpu = (__u16)bpf_get_smp_processor_id();
	record->head.tid = BPF_CORE_READ(task, pid);
	record->head.pid = BPF_CORE_READ(task, tgid);
	record->head.id = nr;
	record->head.value = value;
	for (int i = 0; i < 6; i++)
		record->head.args[i] = scrub(args[i]);
	record->reserved = 0;
	record->data_len = copy_memory(record->data, kind, args, arg, len_arg);
	size = SYSCALL_RECORD_HEAD_SIZE + (record->data_len & (2 * TC_OWN_SYSCALL_DATA_MAX - 1));
	if (size > sizeof(*record))
		size = sizeof(*record);
	if (bpf_ringbuf_output(&records, record, size, BPF_RB_NO_WAKEUP) != 0 && bucket)
		bucket->ring_dropped++;
}

/*
 * The named calls' programs are BTF tracepoints (tp_btf), called with the
 * tracepoint's own arguments: a classic tracepoint program first has
 * perf's buffer filled with the event's fields, which costs every call
 * of every task while the programs are attached. The registers are the
 * task's saved user registers, read as the architecture passes a system
 * call's arguments.
 */
static __always_inline void
regs_args(struct pt_regs *regs, __u64 args[6])
{
#if defined(__TARGET_ARCH_x86)
	args[0] = BPF_CORE_READ(regs, di);
	args[1] = BPF_CORE_READ(regs, si);
	args[2] = BPF_CORE_READ(regs, dx);
	args[3] = BPF_CORE_READ(regs, r10);
	args[4] = BPF_CORE_READ(regs, r8);
	args[5] = BPF_CORE_READ(regs, r9);
#elif defined(__TARGET_ARCH_arm64)
	args[0] = BPF_CORE_READ(regs, orig_x0);
	args[1] = BPF_CORE_READ(regs, regs[1]);
	args[2] = BPF_CORE_READ(regs, regs[2]);
	args[3] = BPF_CORE_READ(regs, regs[3]);
	args[4] = BPF_CORE_READ(regs, regs[4]);
	args[5] = BPF_CORE_READ(regs, regs[5]);
#else
#error "the own tier's system call arguments: unknown architecture"
#endif
}

/* The number of the system call regs is the task's registers in. */
static __always_inline long
regs_syscall_nr(struct pt_regs *regs)
{
#if defined(__TARGET_ARCH_x86)
	return (long)BPF_CORE_READ(regs, orig_ax);
#else
	return (long)BPF_CORE_READ(regs, syscallno);
#endif
}

/* A named system call's entry: its number and six argument registers,
 * and what the table copies of its memory (a path, a socket address),
 * under its own record type so that the consumer names it. Its
 * registers are kept for its exit when the exit is recorded too. */
SEC("tp_btf/sys_enter")
int
BPF_PROG(own_syscall_entry, struct pt_regs *regs, long id)
{
	struct task_struct *task = bpf_get_current_task_btf();
	bool entry = in_named_set(syscall_entry_set, id, task);
	bool exit = in_named_set(syscall_exit_set, id, task);
	__u64 nr = (__u64)id & (TC_KERNEL_OWN_SYSCALLS_MAX - 1);
	struct saved_call *saved;
	__u64 args[6];

	if (!(entry || exit) || !current_is_owners())
		return 0;
	regs_args(regs, args);
	if (exit) {
		saved = bpf_task_storage_get(&saved_calls, task, NULL,
					     BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (saved) {
			saved->nr = id;
			for (int i = 0; i < 6; i++)
				saved->args[i] = args[i];
		}
	}
	if (entry)
		emit_syscall(TC_OWN_SYSCALL_ENTRY, task, (__s32)id, 0, args,
			     syscall_copy[nr].entry, syscall_copy[nr].entry_arg,
			     syscall_copy[nr].entry_len_arg);
	return 0;
}

/* A named call's exit: its return value, the registers of its entry and
 * what the table copies of the memory the call wrote (pipe2's two
 * descriptors, accept's peer address), read only when it succeeded. */
SEC("tp_btf/sys_exit")
int
BPF_PROG(own_syscall_exit, struct pt_regs *regs, long ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	long id = regs_syscall_nr(regs);
	__u64 nr = (__u64)id & (TC_KERNEL_OWN_SYSCALLS_MAX - 1);
	__u64 args[6] = {};
	struct saved_call *saved;
	__u8 kind = TC_OWN_COPY_NONE;

	if (!in_named_set(syscall_exit_set, id, task) || !current_is_owners())
		return 0;
	saved = bpf_task_storage_get(&saved_calls, task, NULL, 0);
	if (saved && saved->nr == id) {
		for (int i = 0; i < 6; i++)
			args[i] = saved->args[i];
		saved->nr = -1;
		if (ret >= 0)
			kind = syscall_copy[nr].exit;
	}
	emit_syscall(TC_OWN_SYSCALL_EXIT, task, (__s32)id, ret, args, kind,
		     syscall_copy[nr].exit_arg, syscall_copy[nr].exit_len_arg);
	return 0;
}

SEC("tp_btf/sched_switch")
int
BPF_PROG(own_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	 unsigned int prev_state)
{
	bool prev_owned = is_owners(prev), next_owned = is_owners(next);

	if (prev_owned && sched_may_record(prev))
		emit(TC_OWN_SWITCH_OUT, prev, (__s32)prev_state, 0, NULL, 0);
	if (next_owned && sched_may_record(next))
		emit(TC_OWN_SWITCH_IN, next, BPF_CORE_READ(next, prio), 0, NULL, 0);
	return 0;
}

SEC("tp_btf/sched_wakeup")
int
BPF_PROG(own_sched_wakeup, struct task_struct *task)
{
	if (is_owners(task) && sched_may_record(task))
		emit(TC_OWN_WAKEUP, task, BPF_CORE_READ(task, wake_cpu), 0, NULL, 0);
	return 0;
}

SEC("tp_btf/sched_migrate_task")
int
BPF_PROG(own_sched_migrate, struct task_struct *task, int dest_cpu)
{
	if (is_owners(task) && sched_may_record(task))
		emit(TC_OWN_MIGRATE, task, dest_cpu, 0, NULL, 0);
	return 0;
}

/* Only faults in user mode: their address and ip are the task's own. */
SEC("tp_btf/page_fault_user")
int
BPF_PROG(own_page_fault, unsigned long address, struct pt_regs *regs, unsigned long error_code)
{
	__u64 args[2];

	if (!current_is_owners())
		return 0;
	args[0] = address;
	args[1] = BPF_CORE_READ(regs, ip);
	emit(TC_OWN_PAGE_FAULT, bpf_get_current_task_btf(), 0, (__s64)error_code, args, 2);
	return 0;
}

/* The signal the task is about to handle; not who sent it. */
SEC("tracepoint/signal/signal_deliver")
int
own_signal_deliver(struct trace_event_raw_signal_deliver *ctx)
{
	if (!current_is_owners())
		return 0;
	emit(TC_OWN_SIGNAL, bpf_get_current_task_btf(), ctx->sig, ctx->code, NULL, 0);
	return 0;
}

/*
 * Block and network records are taken where the kernel runs in the
 * context of the task that issues the request, and only there: not in a
 * softirq (whose `current` is whichever task it interrupted; softirqs
 * send TCP acknowledgements and retransmissions, forward packets, resubmit
 * stacked devices' bios) and not while the task reclaims memory for the
 * machine (PF_MEMALLOC: direct reclaim swaps out any process's pages).
 * Neither event comes from a hardware interrupt (submit_bio() and
 * __dev_queue_xmit() are not called there). The kernel's preempt count,
 * which says so, is a per-CPU variable that a kernel without
 * CONFIG_KALLSYMS_ALL does not let a program address; so the programs
 * count the softirqs running on each CPU themselves, from the softirq
 * tracepoints, which fire on PREEMPT_RT as well. The exit program comes
 * first in this file, so it is attached first: an entry seen always has
 * its exit counted, and an exit whose entry came before the attachment
 * does not take the count below zero.
 */
#define OWN_PF_MEMALLOC 0x00000800

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} softirq_depth SEC(".maps");

SEC("tp_btf/softirq_exit")
int
BPF_PROG(own_softirq_exit, unsigned int vec_nr)
{
	__u32 zero = 0, *depth = bpf_map_lookup_elem(&softirq_depth, &zero);

	if (depth && *depth)
		(*depth)--;
	return 0;
}

SEC("tp_btf/softirq_entry")
int
BPF_PROG(own_softirq_entry, unsigned int vec_nr)
{
	__u32 zero = 0, *depth = bpf_map_lookup_elem(&softirq_depth, &zero);

	if (depth)
		(*depth)++;
	return 0;
}

static __always_inline bool
in_issuing_context(struct task_struct *task)
{
	__u32 zero = 0, *depth = bpf_map_lookup_elem(&softirq_depth, &zero);

	return depth && *depth == 0 && !(BPF_CORE_READ(task, flags) & OWN_PF_MEMALLOC);
}

/*
 * block_bio_queue, not block_rq_issue or block_rq_complete: a bio is
 * queued by submit_bio() in the context of whoever submits it (the task's
 * read or direct write, its fsync's writeback, its page cache misses),
 * while a request is issued from a plug flush, a kworker or another
 * task's dispatch, and completed in an interrupt. Buffered writes the
 * flusher threads write back later are theirs, not the task's. Only the
 * request's own integers are copied: the device number, the sector, the
 * size and the operation; not the bio, its pages or its block device.
 */
SEC("tp_btf/block_bio_queue")
int
BPF_PROG(own_block_bio_queue, struct bio *bio)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 args[2];

	if (!current_is_owners() || !in_issuing_context(task))
		return 0;
	args[0] = BPF_CORE_READ(bio, bi_iter.bi_sector);
	args[1] = BPF_CORE_READ(bio, bi_opf);
	emit(TC_OWN_BIO_QUEUE, task, (__s32)BPF_CORE_READ(bio, bi_bdev, bd_dev),
	     BPF_CORE_READ(bio, bi_iter.bi_size), args, 2);
	return 0;
}

/*
 * net_dev_queue fires in __dev_queue_xmit() for the packet being queued,
 * in the context of the task whose sendmsg() or write() built it; the
 * packets a qdisc then sends from that context fire net_dev_start_xmit,
 * not this. Packets sent from a softirq (TCP acknowledgements and
 * retransmissions, forwarding) are refused by the task-context check, so
 * a packet of another user's socket never lands on the task that the
 * softirq interrupted. Receive is not offered: the kernel delivers
 * packets in softirqs whatever task runs (the task's own receives show as
 * its system calls' return values). Copied: length, protocol, ifindex;
 * not the skb, its socket or its device.
 */
SEC("tp_btf/net_dev_queue")
int
BPF_PROG(own_net_dev_queue, struct sk_buff *skb)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 args[1];

	if (!current_is_owners() || !in_issuing_context(task))
		return 0;
	args[0] = bpf_ntohs(BPF_CORE_READ(skb, protocol));
	emit(TC_OWN_NET_DEV_QUEUE, task, BPF_CORE_READ(skb, dev, ifindex), BPF_CORE_READ(skb, len),
	     args, 1);
	return 0;
}
