/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Function offsets in ELF64 files, for uprobes. */
#ifndef TC_HELPER_ELF_H
#define TC_HELPER_ELF_H

#include <stdint.h>

/* The file offset of function in the ELF64 file fd, read
 * with bounded pread()s; the codes of tc-kernel-abi.h (PROBE_ADD). */
int tc_helper_elf_function_offset(int fd, const char *function, uint64_t *offset);

#endif /* TC_HELPER_ELF_H */
