/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Whether a session owner could trace a task with ptrace: the rule by which
 * the own-process tier records a task (tc-own.bpf.c).
 *
 * The owner stands for an unprivileged process of the initial user
 * namespace whose real uid is the owner's, whose real gid is the primary
 * group of the owner's account, and which holds no capability, as the
 * owner's consumer does. The kernel lets such a process read a task
 * (ptrace_may_access() with PTRACE_MODE_READ_REALCREDS, what
 * perf_event_open() asks for a task: __ptrace_may_access() in
 * kernel/ptrace.c, cap_ptrace_access_check() in security/commoncap.c) only
 * when
 *   - the task's real, effective and saved uids are all the owner's uid,
 *     and its real, effective and saved gids all the owner's gid;
 *   - its memory is dumpable by its user (SUID_DUMP_USER), which executing
 *     a setuid, setgid or file-capability program, changing effective ids
 *     or gaining capabilities (commit_creds()), and
 *     prctl(PR_SET_DUMPABLE, 0) all undo;
 *   - its permitted capabilities are a subset of the owner's (none) and
 *     its credentials belong to the initial user namespace.
 * The last two are waived where the owner holds CAP_SYS_PTRACE: in a user
 * namespace the owner created directly under the initial one and in that
 * namespace's descendants (cap_capable()), so the processes of the owner's
 * rootless containers and sandboxes stay theirs.
 *
 * Deliberately narrower than the kernel: a task with no memory (one that
 * is exiting, whose dumpability went with its memory) is refused; a task
 * whose ids are not the owner's is refused even in a namespace the owner
 * created, where the kernel would let the owner trace it; nothing the
 * security modules add (Yama) is asked, and they only ever refuse more.
 *
 * Nothing is cached: every event reads the task's credentials and memory
 * flags as they are at that event, so a setuid(), an exec or a prctl()
 * counts from the task's next event on. The task read is the one running
 * the event, or one that is not running (switched, woken, migrated), so it
 * is not halfway through changing its credentials.
 */
#ifndef TC_OWN_PTRACE_H
#define TC_OWN_PTRACE_H

/* include/linux/sched/coredump.h and mm_types.h: the dumpability, two
 * bits at the bottom of the memory's flags. */
#define OWN_MMF_DUMPABLE_MASK 0x3ul
#define OWN_SUID_DUMP_USER 0x1ul
/* include/linux/user_namespace.h: how deep user namespaces nest. */
#define OWN_USER_NS_LEVEL_MAX 32

/* The memory's flags were an unsigned long before they became a bitmap
 * (mm_flags_t); the dumpable bits are in the first word either way. Both
 * shapes are spelt here, whatever the kernel of the build has. */
struct mm_struct___flags_word {
	unsigned long flags;
} __attribute__((preserve_access_index));

struct own_mm_flags___bitmap {
	unsigned long __mm_flags[1];
} __attribute__((preserve_access_index));

struct mm_struct___flags_bitmap {
	struct own_mm_flags___bitmap flags;
} __attribute__((preserve_access_index));

static __always_inline unsigned long
tc_own_ptrace_mm_flags(const struct mm_struct *mm)
{
	if (bpf_core_field_exists(struct mm_struct___flags_bitmap, flags.__mm_flags))
		return ((const struct mm_struct___flags_bitmap *)mm)->flags.__mm_flags[0];
	return ((const struct mm_struct___flags_word *)mm)->flags;
}

/* The permitted set, 64 bits whether the kernel spells kernel_cap_t as one
 * u64 or as two u32. */
static __always_inline __u64
tc_own_ptrace_cap_permitted(const struct cred *cred)
{
	return *(const __u64 *)&cred->cap_permitted;
}

/*
 * ns_capable(ns, CAP_SYS_PTRACE) for the owner. cap_capable() walks up
 * from ns: the initial namespace, where the owner has no capability,
 * refuses; a namespace whose parent is the initial one grants it when the
 * owner created it. So: ns's ancestor at level 1 is the owner's.
 */
static __always_inline bool
tc_own_ptrace_capable_in(const struct user_namespace *ns, __u32 uid)
{
	for (int i = 0; i < OWN_USER_NS_LEVEL_MAX && ns; i++) {
		int level = ns->level;

		if (level <= 0)
			return false;
		if (level == 1)
			return ns->owner.val == uid;
		ns = ns->parent;
	}
	return false;
}

static __always_inline bool
tc_own_ptrace_ids_are(const struct cred *cred, __u32 uid, __u32 gid)
{
	return cred->uid.val == uid && cred->euid.val == uid && cred->suid.val == uid &&
	       cred->gid.val == gid && cred->egid.val == gid && cred->sgid.val == gid;
}

/* Whether the owner (uid, gid) could trace task: the rule above, in the
 * kernel's order. The cheapest refusal, another user's ids, comes first. */
static __always_inline bool
tc_own_ptrace_may_trace(const struct task_struct *task, __u32 uid, __u32 gid)
{
	const struct cred *cred = task->real_cred;
	const struct user_namespace *cred_ns;
	const struct mm_struct *mm;

	if (!cred || !tc_own_ptrace_ids_are(cred, uid, gid))
		return false;
	mm = task->mm;
	if (!mm)
		return false;
	if ((tc_own_ptrace_mm_flags(mm) & OWN_MMF_DUMPABLE_MASK) != OWN_SUID_DUMP_USER &&
	    !tc_own_ptrace_capable_in(mm->user_ns, uid))
		return false;
	cred_ns = cred->user_ns;
	if (tc_own_ptrace_cap_permitted(cred) == 0 && cred_ns && cred_ns->level == 0)
		return true;
	return tc_own_ptrace_capable_in(cred_ns, uid);
}

#endif
