/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-ust-context.h"

#include <pthread.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracectl/tracepoint.h"

/* initial-exec like the nesting counter: no allocation on first access. */
static __thread int32_t cached_vtid __attribute__((tls_model("initial-exec")));
static __thread char cached_procname[TRACECTL_CONTEXT_PROCNAME_LEN]
	__attribute__((tls_model("initial-exec")));
static __thread int procname_cached __attribute__((tls_model("initial-exec")));
static int32_t cached_vpid; /* atomic */

static int32_t
current_vpid(void)
{
	int32_t pid = __atomic_load_n(&cached_vpid, __ATOMIC_RELAXED);

	if (__builtin_expect(pid == 0, 0)) {
		pid = (int32_t)getpid();
		__atomic_store_n(&cached_vpid, pid, __ATOMIC_RELAXED);
	}
	return pid;
}

static int32_t
current_vtid(void)
{
	if (__builtin_expect(cached_vtid == 0, 0))
		cached_vtid = (int32_t)gettid();
	return cached_vtid;
}

/* The thread's name when it first traced: renaming a thread later is not
 * seen, the price of not asking the kernel at every event. */
static const char *
current_procname(void)
{
	if (__builtin_expect(!procname_cached, 0)) {
		char name[TRACECTL_CONTEXT_PROCNAME_LEN + 1] = "";

		prctl(PR_GET_NAME, name);
		memcpy(cached_procname, name, sizeof(cached_procname));
		procname_cached = 1;
	}
	return cached_procname;
}

/*
 * The ids and namespaces change only when the process asks for it:
 * set*id(), setns(), unshare(), or a fork. Reading them at every event
 * would cost two system calls and eight stat()s; reading them once would
 * miss a daemon that drops its privileges after its first event. So each
 * thread keeps them with the generation they were read at, and reads them
 * again at its first event after the generation moved on. What moves the
 * ids' generation: tracectl_ust_ids_changed(), which the application calls
 * after a change, or libtracectl-ust-setid's wrappers of setuid() ...
 * setresgid() call for it; both generations: tracectl_ust_namespaces_changed()
 * (the wrappers of setns() and unshare(); a user namespace changes the ids
 * as seen too) and the fork child (tc_ust_context_forget()). Two
 * generations, since reading the namespaces costs fifty times more than
 * reading the ids (docs/performance.md), and a setuid() moves no namespace.
 *
 * Not caught, so recorded as they were before: a change made by a raw
 * system call (syscall(SYS_setns, ...)), by a library that calls the
 * kernel without the wrapped symbols, by clone() with CLONE_NEW* flags,
 * and any change in a process that neither loads the wrappers nor calls
 * these functions (LTTng-UST without liblttng-ust-fork misses the same
 * ones).
 *
 * Per thread rather than per process: at the kernel's level both are a
 * thread's (glibc's set*id() changes every thread, a raw system call the
 * caller only), and a thread's own cache needs no atomics. Generations are
 * 64-bit: they never come back to a value a cache holds.
 */
static uint64_t ids_generation = 1;	   /* atomic; a thread's caches start at 0 */
static uint64_t namespaces_generation = 1; /* atomic */

struct thread_ids {
	uint64_t generation; /* that the ids were read at; 0: never */
	uint32_t ids[6];     /* in the order of their TRACECTL_CONTEXT_* bits */
};

struct thread_namespaces {
	uint64_t generation;
	uint64_t inodes[8]; /* in the order of their bits, 0 where unknown */
};

static __thread struct thread_ids cached_ids __attribute__((tls_model("initial-exec")));
static __thread struct thread_namespaces cached_namespaces
	__attribute__((tls_model("initial-exec")));

static const char *const namespace_names[8] = {"cgroup", "ipc", "mnt",	"net",
					       "pid",	 "time", "user", "uts"};

/* A signal handler's tracepoint may interrupt a refill and refill the
 * cache itself: the generation is stored last, so a cache that says it is
 * current holds complete values, whichever refill stored them. */
static void
read_ids(uint64_t at)
{
	uid_t ruid, euid, suid;
	gid_t rgid, egid, sgid;
	uint32_t ids[6] = {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX};

	if (getresuid(&ruid, &euid, &suid) == 0) {
		ids[0] = ruid;
		ids[1] = euid;
		ids[2] = suid;
	}
	if (getresgid(&rgid, &egid, &sgid) == 0) {
		ids[3] = rgid;
		ids[4] = egid;
		ids[5] = sgid;
	}
	memcpy(cached_ids.ids, ids, sizeof(ids));
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	cached_ids.generation = at;
}

static const uint32_t *
current_ids(void)
{
	uint64_t now = __atomic_load_n(&ids_generation, __ATOMIC_ACQUIRE);

	if (__builtin_expect(cached_ids.generation != now, 0))
		read_ids(now);
	return cached_ids.ids;
}

/* stat() is async-signal-safe, as a tracepoint in a signal handler needs;
 * so is building the path without snprintf(). */
static void
read_namespaces(uint64_t at)
{
	static const char directory[] = "/proc/thread-self/ns/";
	char path[sizeof(directory) + 8];
	uint64_t inodes[8];
	struct stat st;

	memcpy(path, directory, sizeof(directory) - 1);
	for (int i = 0; i < 8; i++) {
		strcpy(path + sizeof(directory) - 1, namespace_names[i]);
		inodes[i] = stat(path, &st) == 0 ? (uint64_t)st.st_ino : 0;
	}
	memcpy(cached_namespaces.inodes, inodes, sizeof(inodes));
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	cached_namespaces.generation = at;
}

static const uint64_t *
current_namespaces(void)
{
	uint64_t now = __atomic_load_n(&namespaces_generation, __ATOMIC_ACQUIRE);

	if (__builtin_expect(cached_namespaces.generation != now, 0))
		read_namespaces(now);
	return cached_namespaces.inodes;
}

/* Appends the value's bytes at out + *size. */
static void
put(uint8_t *out, uint32_t *size, const void *value, uint32_t len)
{
	memcpy(out + *size, value, len);
	*size += len;
}

/* The ids and namespaces among contexts, in the order of their bits. */
static void
fill_ids_and_namespaces(uint32_t contexts, uint8_t *out, uint32_t *size)
{
	/* One pass per bit that is set, lowest first: a channel asks for one
	 * or two of the fourteen. */
	uint32_t bits = contexts & TRACECTL_CONTEXT_IDS;

	if (bits) {
		const uint32_t *ids = current_ids();

		for (; bits; bits &= bits - 1)
			put(out, size, &ids[__builtin_ctz(bits) - __builtin_ctz(TRACECTL_CONTEXT_VUID)],
			    sizeof(uint32_t));
	}
	bits = contexts & TRACECTL_CONTEXT_NAMESPACES;
	if (bits) {
		const uint64_t *inodes = current_namespaces();

		for (; bits; bits &= bits - 1)
			put(out, size,
			    &inodes[__builtin_ctz(bits) - __builtin_ctz(TRACECTL_CONTEXT_CGROUP_NS)],
			    sizeof(uint64_t));
	}
}

uint32_t
tc_ust_context_fill(uint32_t contexts, uint64_t ip, uint8_t out[TC_UST_CONTEXT_MAX])
{
	uint32_t size = 0;

	if (contexts & TRACECTL_CONTEXT_VPID) {
		int32_t vpid = current_vpid();

		put(out, &size, &vpid, sizeof(vpid));
	}
	if (contexts & TRACECTL_CONTEXT_VTID) {
		int32_t vtid = current_vtid();

		put(out, &size, &vtid, sizeof(vtid));
	}
	if (contexts & TRACECTL_CONTEXT_PROCNAME)
		put(out, &size, current_procname(), TRACECTL_CONTEXT_PROCNAME_LEN);
	if (contexts & TRACECTL_CONTEXT_PTHREAD_ID) {
		uint64_t id = (uint64_t)pthread_self();

		put(out, &size, &id, sizeof(id));
	}
	fill_ids_and_namespaces(contexts, out, &size);
	if (contexts & TRACECTL_CONTEXT_IP)
		put(out, &size, &ip, sizeof(ip));
	return size;
}

void TRACECTL_UST_EXPORT
tracectl_ust_ids_changed(void)
{
	__atomic_fetch_add(&ids_generation, 1, __ATOMIC_RELEASE);
}

void TRACECTL_UST_EXPORT
tracectl_ust_namespaces_changed(void)
{
	__atomic_fetch_add(&namespaces_generation, 1, __ATOMIC_RELEASE);
	tracectl_ust_ids_changed();
}

void
tc_ust_context_forget(void)
{
	/* Only the forking thread exists in the child. */
	__atomic_store_n(&cached_vpid, 0, __ATOMIC_RELAXED);
	cached_vtid = 0;
	procname_cached = 0;
	/* After unshare(CLONE_NEWPID) or (CLONE_NEWTIME), the child is in the
	 * new namespace while its parent stays in its own. */
	tracectl_ust_namespaces_changed();
}
