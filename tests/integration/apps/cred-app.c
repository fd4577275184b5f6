/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A program whose credentials and dumpability change as it goes, for the
 * own-process kernel tier's tests:
 *
 *   tracectl-cred-app STEP...
 *
 * runs its steps in order:
 *   mark:N      getppid() TC_CRED_MARKS times with TC_CRED_MARK_BASE + N in
 *               its first argument register (getppid() ignores it; the
 *               tier records it), so a trace shows which steps it holds
 *   drop        setresuid() to the real uid: a setuid program going back to
 *               the user who ran it
 *   dumpable:V  prctl(PR_SET_DUMPABLE, V)
 *   sleep:MS    sleeps MS milliseconds: the task leaves its CPU asleep
 *   state       prints "ruid=R euid=E suid=S rgid=G egid=G sgid=G
 *               dumpable=D cap_permitted=HEX" on one line
 * Exits 2 on a step it does not know or that fails.
 */
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define TC_CRED_MARKS 200
#define TC_CRED_MARK_BASE 0x7c4d0000L

static int
print_state(void)
{
	struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {0};
	uid_t ruid, euid, suid;
	gid_t rgid, egid, sgid;

	if (getresuid(&ruid, &euid, &suid) < 0 || getresgid(&rgid, &egid, &sgid) < 0 ||
	    syscall(SYS_capget, &header, data) < 0)
		return -1;
	printf("ruid=%u euid=%u suid=%u rgid=%u egid=%u sgid=%u dumpable=%d "
	       "cap_permitted=%08x%08x\n",
	       ruid, euid, suid, rgid, egid, sgid, prctl(PR_GET_DUMPABLE), data[1].permitted,
	       data[0].permitted);
	return fflush(stdout) == 0 ? 0 : -1;
}

static int
run_step(const char *step)
{
	uid_t uid = getuid();

	if (strncmp(step, "mark:", 5) == 0) {
		for (int i = 0; i < TC_CRED_MARKS; i++)
			syscall(SYS_getppid, TC_CRED_MARK_BASE + atol(step + 5));
		return 0;
	}
	if (strcmp(step, "drop") == 0)
		return setresuid(uid, uid, uid);
	if (strncmp(step, "dumpable:", 9) == 0)
		return prctl(PR_SET_DUMPABLE, atol(step + 9), 0, 0, 0);
	if (strncmp(step, "sleep:", 6) == 0) {
		long ms = atol(step + 6);
		struct timespec delay = {.tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000};

		return nanosleep(&delay, NULL);
	}
	if (strcmp(step, "state") == 0)
		return print_state();
	return -1;
}

int
main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (run_step(argv[i]) < 0) {
			fprintf(stderr, "tracectl-cred-app: step %s failed\n", argv[i]);
			return 2;
		}
	}
	return 0;
}
