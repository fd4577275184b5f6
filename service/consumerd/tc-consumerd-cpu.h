/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the consumer's CPU offers that its choices depend on: AES
 * instructions, which make AES-GCM the cheapest cipher of an SSH tunnel
 * (tc-consumerd-tunnel.h).
 */
#ifndef TC_CONSUMERD_CPU_H
#define TC_CONSUMERD_CPU_H

#include <stdbool.h>

/* Whether the CPU has AES and carry-less multiplication instructions
 * (x86: AES-NI and PCLMULQDQ; arm64: AES and PMULL), which OpenSSL's
 * AES-GCM uses. No system call on x86 (cpuid) nor arm64 (the auxiliary
 * vector); false elsewhere. */
bool tc_consumerd_cpu_has_aes(void);

#endif /* TC_CONSUMERD_CPU_H */
