/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An application whose ids and namespaces change as it goes, for the
 * tests of the ids, namespace and ip contexts:
 *
 *   tracectl-contexts-app STEP...
 *
 * runs its steps in order:
 *   here:N         contexts:mark with step N, from mark_here()
 *   there:N        contexts:mark with step N, from mark_there()
 *   drop:UID:GID   setresgid() then setresuid() to GID and UID, through
 *                  libc (or libtracectl-ust-setid's wrappers when preloaded)
 *   unshare-uts    unshare(CLONE_NEWUTS): a UTS namespace of its own
 *   tell-ids       tracectl_ust_ids_changed()
 *   tell-namespaces  tracectl_ust_namespaces_changed()
 *   pause          "ready" on stdout, then waits for SIGUSR1, so that the
 *                  test reads the process's ids, namespaces and mappings
 * Exits 2 on a step it does not know or that fails.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app-pause.h"
#include "contexts-tp.h"

/* Two call sites, each in a function of its own that the test finds in
 * the executable's symbols: neither inlined nor folded into the other,
 * which their identical code would allow. */
#if defined(__GNUC__) && !defined(__clang__)
#define CONTEXTS_APP_OWN_FUNCTION __attribute__((noipa))
#else
#define CONTEXTS_APP_OWN_FUNCTION __attribute__((noinline))
#endif

static CONTEXTS_APP_OWN_FUNCTION void
mark_here(uint32_t step)
{
	tracectl_tracepoint(contexts, mark, step);
}

static CONTEXTS_APP_OWN_FUNCTION void
mark_there(uint32_t step)
{
	tracectl_tracepoint(contexts, mark, step);
}

static int
drop(const char *ids)
{
	unsigned int uid, gid;

	if (sscanf(ids, "%u:%u", &uid, &gid) != 2)
		return -1;
	if (setresgid(gid, gid, gid) < 0)
		return -1;
	return setresuid(uid, uid, uid);
}

static int
run_step(const char *step)
{
	if (strncmp(step, "here:", 5) == 0)
		mark_here((uint32_t)atol(step + 5));
	else if (strncmp(step, "there:", 6) == 0)
		mark_there((uint32_t)atol(step + 6));
	else if (strncmp(step, "drop:", 5) == 0)
		return drop(step + 5);
	else if (strcmp(step, "unshare-uts") == 0)
		return unshare(CLONE_NEWUTS);
	else if (strcmp(step, "tell-ids") == 0)
		tracectl_ust_ids_changed();
	else if (strcmp(step, "tell-namespaces") == 0)
		tracectl_ust_namespaces_changed();
	else if (strcmp(step, "pause") == 0)
		app_pause_until_usr1();
	else
		return -1;
	return 0;
}

int
main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (run_step(argv[i]) < 0) {
			fprintf(stderr, "tracectl-contexts-app: step %s failed\n", argv[i]);
			return 2;
		}
	}
	return 0;
}
