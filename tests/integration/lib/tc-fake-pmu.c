/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Preloaded into tracectld by integration-lttng-ust-refused-context: the
 * service sees a machine whose hardware counters it can open (every
 * perf_event_open() gives a descriptor of /dev/null), while the
 * applications, not preloaded, see the machine as it is and refuse the
 * counter. That is the case of a service whose check passes and an
 * application that cannot count (a seccomp filter, a container), which
 * this machine cannot otherwise show. Every other system call goes
 * through.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef long syscall_func(long number, ...);

long
syscall(long number, ...)
{
	static syscall_func *real;
	long args[6];
	va_list ap;

	va_start(ap, number);
	for (int i = 0; i < 6; i++)
		args[i] = va_arg(ap, long);
	va_end(ap);
	if (number == SYS_perf_event_open)
		return open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (!real)
		real = (syscall_func *)dlsym(RTLD_NEXT, "syscall");
	return real(number, args[0], args[1], args[2], args[3], args[4], args[5]);
}
