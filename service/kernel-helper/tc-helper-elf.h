/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Function and SDT probe offsets in ELF64 files, for uprobes. */
#ifndef TC_HELPER_ELF_H
#define TC_HELPER_ELF_H

#include <stdint.h>

/* The file offset of function in the ELF64 file fd, read
 * with bounded pread()s; the codes of tc-kernel-abi.h (PROBE_ADD). */
int tc_helper_elf_function_offset(int fd, const char *function, uint64_t *offset);

/* An SDT probe of an ELF64 file: where its one site is, and its
 * semaphore. */
struct tc_helper_elf_sdt {
	uint64_t address, semaphore;	    /* as the note says, moved as the file moved */
	uint64_t offset, semaphore_offset; /* in the file; semaphore_offset 0: none */
	uint32_t sites;
};
/* The SDT probe provider:name of the file fd, from its notes: 0, the
 * codes of tc_helper_elf_function_offset() (-ESRCH: no such probe), or
 * -ENOTUNIQ for a probe at several sites. */
int tc_helper_elf_sdt_probe(int fd, const char *provider, const char *name,
			    struct tc_helper_elf_sdt *sdt);

#endif /* TC_HELPER_ELF_H */
