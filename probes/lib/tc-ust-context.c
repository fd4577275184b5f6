/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-ust-context.h"

#include <pthread.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

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

uint32_t
tc_ust_context_fill(uint32_t contexts, uint8_t out[TC_UST_CONTEXT_MAX])
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
	return size;
}

void
tc_ust_context_forget(void)
{
	/* Only the forking thread exists in the child. */
	__atomic_store_n(&cached_vpid, 0, __ATOMIC_RELAXED);
	cached_vtid = 0;
	procname_cached = 0;
}
