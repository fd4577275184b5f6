/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-ust-context.h"

#include <pthread.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* initial-exec like the nesting counter: no allocation on first access. */
static __thread int32_t cached_vtid __attribute__((tls_model("initial-exec")));
static __thread char cached_procname[TRACECTL_CONTEXT_PROCNAME_LEN]
	__attribute__((tls_model("initial-exec")));
static __thread int procname_cached __attribute__((tls_model("initial-exec")));
static int32_t cached_vpid; /* atomic */

/* The process's ids, in the order of their TRACECTL_CONTEXT_* bits: read
 * once, at the first event that wants one (set with release once they
 * are all there; fillers racing store the same values). */
static int32_t cached_ids[6]; /* atomic */
static int ids_cached;        /* atomic */

/* The thread's namespaces, in the order of their bits, read at its first
 * event that wants one. */
static const char *const namespace_names[8] = {"cgroup", "ipc", "mnt",	"net",
					       "pid",	 "time", "user", "uts"};
static __thread uint64_t cached_namespaces[8] __attribute__((tls_model("initial-exec")));
static __thread int namespaces_cached __attribute__((tls_model("initial-exec")));

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

/* The ids a process changes with setuid() and the like are the first
 * ones it traced with, as the thread's name is: the price of not asking
 * the kernel at every event. */
static const int32_t *
current_ids(void)
{
	if (__builtin_expect(!__atomic_load_n(&ids_cached, __ATOMIC_ACQUIRE), 0)) {
		uid_t ruid, euid, suid;
		gid_t rgid, egid, sgid;
		int32_t ids[6] = {-1, -1, -1, -1, -1, -1};

		if (getresuid(&ruid, &euid, &suid) == 0) {
			ids[0] = (int32_t)ruid;
			ids[1] = (int32_t)euid;
			ids[2] = (int32_t)suid;
		}
		if (getresgid(&rgid, &egid, &sgid) == 0) {
			ids[3] = (int32_t)rgid;
			ids[4] = (int32_t)egid;
			ids[5] = (int32_t)sgid;
		}
		for (int i = 0; i < 6; i++)
			__atomic_store_n(&cached_ids[i], ids[i], __ATOMIC_RELAXED);
		__atomic_store_n(&ids_cached, 1, __ATOMIC_RELEASE);
	}
	return cached_ids;
}

/* The namespaces the thread is in at its first event that asks; one it
 * enters later (unshare(), setns()) is not seen. stat() is
 * async-signal-safe, as a tracepoint in a signal handler needs. */
static const uint64_t *
current_namespaces(void)
{
	if (__builtin_expect(!namespaces_cached, 0)) {
		static const char directory[] = "/proc/thread-self/ns/";
		char path[sizeof(directory) + 8];
		struct stat st;

		memcpy(path, directory, sizeof(directory) - 1);
		for (int i = 0; i < 8; i++) {
			/* Not snprintf(): this may run in a signal handler. */
			strcpy(path + sizeof(directory) - 1, namespace_names[i]);
			cached_namespaces[i] = stat(path, &st) == 0 ? (uint64_t)st.st_ino : 0;
		}
		namespaces_cached = 1;
	}
	return cached_namespaces;
}

uint32_t
tc_ust_context_fill(uint32_t contexts, uint64_t ip, uint8_t out[TC_UST_CONTEXT_MAX])
{
	uint32_t size = 0;

	if (contexts & TRACECTL_CONTEXT_VPID) {
		int32_t vpid = current_vpid();

		memcpy(out + size, &vpid, sizeof(vpid));
		size += sizeof(vpid);
	}
	if (contexts & TRACECTL_CONTEXT_VTID) {
		int32_t vtid = current_vtid();

		memcpy(out + size, &vtid, sizeof(vtid));
		size += sizeof(vtid);
	}
	if (contexts & TRACECTL_CONTEXT_PROCNAME) {
		memcpy(out + size, current_procname(), TRACECTL_CONTEXT_PROCNAME_LEN);
		size += TRACECTL_CONTEXT_PROCNAME_LEN;
	}
	if (contexts & TRACECTL_CONTEXT_PTHREAD_ID) {
		uint64_t id = (uint64_t)pthread_self();

		memcpy(out + size, &id, sizeof(id));
		size += sizeof(id);
	}
	if (contexts & TRACECTL_CONTEXT_IDS) {
		const int32_t *ids = current_ids();

		for (int i = 0; i < 6; i++) {
			if (contexts & (TRACECTL_CONTEXT_VUID << i)) {
				int32_t id = __atomic_load_n(&ids[i], __ATOMIC_RELAXED);

				memcpy(out + size, &id, sizeof(id));
				size += sizeof(id);
			}
		}
	}
	if (contexts & TRACECTL_CONTEXT_NAMESPACES) {
		const uint64_t *namespaces = current_namespaces();

		for (int i = 0; i < 8; i++) {
			if (contexts & (TRACECTL_CONTEXT_CGROUP_NS << i)) {
				memcpy(out + size, &namespaces[i], sizeof(uint64_t));
				size += sizeof(uint64_t);
			}
		}
	}
	if (contexts & TRACECTL_CONTEXT_IP) {
		memcpy(out + size, &ip, sizeof(ip));
		size += sizeof(ip);
	}
	return size;
}

void
tc_ust_context_forget(void)
{
	/* Only the forking thread exists in the child. */
	__atomic_store_n(&cached_vpid, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&ids_cached, 0, __ATOMIC_RELAXED);
	cached_vtid = 0;
	procname_cached = 0;
	namespaces_cached = 0;
}
