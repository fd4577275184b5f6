/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CPU's AES instructions (tc-consumerd-cpu.h). */
#include "tc-consumerd-cpu.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#elif defined(__aarch64__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

bool
tc_consumerd_cpu_has_aes(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned eax, ebx, ecx, edx;

	if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx))
		return false;
	return (ecx & bit_AES) && (ecx & bit_PCLMUL);
#elif defined(__aarch64__)
	unsigned long hwcap = getauxval(AT_HWCAP);

	return (hwcap & HWCAP_AES) && (hwcap & HWCAP_PMULL);
#else
	return false;
#endif
}
