/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libtracectl-ust-setid: wrappers of the functions that change the
 * process's user and group ids or the calling thread's namespaces, so that
 * the ids and namespace contexts follow what the program does: each calls
 * the next definition of its function (libc's) and, when it succeeded,
 * tracectl_ust_ids_changed() or tracectl_ust_namespaces_changed().
 * Preloaded (LD_PRELOAD) or linked before libc,
 * as LTTng-UST's liblttng-ust-fork is; libtracectl-ust itself exports
 * nothing but its own names.
 *
 * A wrapper is as async-signal-safe as the function it wraps: the next
 * definitions are looked up when the library loads, and only a wrapper
 * called before that (from another library's constructor) looks its own
 * up at the call, which no signal handler does.
 */
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "tracectl/tracepoint.h"

/* X(name, parameters, arguments, what changed) of each function wrapped. */
#define TC_UST_SETID_FUNCTIONS(X)                                                          \
	X(setuid, (uid_t uid), (uid), ids)                                                  \
	X(seteuid, (uid_t euid), (euid), ids)                                               \
	X(setreuid, (uid_t ruid, uid_t euid), (ruid, euid), ids)                            \
	X(setresuid, (uid_t ruid, uid_t euid, uid_t suid), (ruid, euid, suid), ids)         \
	X(setgid, (gid_t gid), (gid), ids)                                                  \
	X(setegid, (gid_t egid), (egid), ids)                                               \
	X(setregid, (gid_t rgid, gid_t egid), (rgid, egid), ids)                            \
	X(setresgid, (gid_t rgid, gid_t egid, gid_t sgid), (rgid, egid, sgid), ids)         \
	X(setns, (int fd, int nstype), (fd, nstype), namespaces)                            \
	X(unshare, (int flags), (flags), namespaces)

/* The next definition of each (atomic: racing lookups store the same). */
#define TC_UST_SETID_NEXT(name, parameters, arguments, changed)                            \
	static int(*next_##name) parameters;
TC_UST_SETID_FUNCTIONS(TC_UST_SETID_NEXT)

/* The next definition of name into *function, a function pointer: through
 * memcpy(), as ISO C converts no object pointer to a function pointer. */
static void
look_up(const char *name, void *function, size_t size)
{
	void *symbol = dlsym(RTLD_NEXT, name);

	memcpy(function, &symbol, size);
}

/* What the wrapped function returned, with its errno, once the library
 * was told of a change (tell: tracectl_ust_ids_changed() or
 * tracectl_ust_namespaces_changed()). */
static int
after_change(int ret, void (*tell)(void))
{
	int saved_errno = errno;

	if (ret == 0)
		tell();
	errno = saved_errno;
	return ret;
}

#define TC_UST_SETID_WRAPPER(name, parameters, arguments, changed)                         \
	int TRACECTL_UST_EXPORT name parameters                                             \
	{                                                                                   \
		int(*next) parameters = __atomic_load_n(&next_##name, __ATOMIC_RELAXED);    \
                                                                                            \
		if (__builtin_expect(next == NULL, 0)) {                                    \
			look_up(#name, &next, sizeof(next));                                \
			if (next == NULL) {                                                 \
				errno = ENOSYS;                                             \
				return -1;                                                  \
			}                                                                   \
			__atomic_store_n(&next_##name, next, __ATOMIC_RELAXED);             \
		}                                                                           \
		return after_change(next arguments, tracectl_ust_##changed##_changed);       \
	}
TC_UST_SETID_FUNCTIONS(TC_UST_SETID_WRAPPER)

#define TC_UST_SETID_LOOK_UP(name, parameters, arguments, changed)                         \
	look_up(#name, &next_##name, sizeof(next_##name));

static void __attribute__((constructor))
tc_ust_setid_constructor(void)
{
	TC_UST_SETID_FUNCTIONS(TC_UST_SETID_LOOK_UP)
}
