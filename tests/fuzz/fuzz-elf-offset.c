/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the kernel helper's reading of a uprobe's target file
 * (service/kernel-helper/tc-helper-elf.c): an ELF64 file the user who
 * asks for the probe names and may write, read to find a function's file
 * offset. The input is the file, in a memfd, but for its first byte,
 * which picks the function looked for. Built with AddressSanitizer and
 * UBSan.
 *
 * What must hold, beside no error under the sanitizers: the call returns
 * 0 or one of the codes tc-kernel-abi.h gives for PROBE_ADD; an offset
 * found lies in the file; and the answer does not depend on how the file
 * is read (a second call on the same file gives the same).
 *
 * Built with libFuzzer, from the top of the source tree (Debian's clang):
 *
 *   clang -g -O1 -D_GNU_SOURCE -DFUZZ_LIBFUZZER \
 *     -fsanitize=fuzzer,address,undefined -Itests/fuzz -Icommon/abi \
 *     -Iservice/kernel-helper tests/fuzz/fuzz-elf-offset.c \
 *     service/kernel-helper/tc-helper-elf.c -o fuzz-elf-offset
 *   ./fuzz-elf-offset -max_len=8192 tests/fuzz/corpus/fuzz-elf-offset
 *
 * Otherwise fuzz-driver.c's main() mutates the seeds built below:
 * `fuzz-elf-offset --seed N --runs M`.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz-driver.h"
#include "tc-helper-elf.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		fprintf(stderr, "fuzz-elf-offset: " __VA_ARGS__);                                  \
		fprintf(stderr, "\n");                                                             \
		abort();                                                                           \
	} while (0)

enum outcome {
	FOUND,
	NOT_FOUND,
	NOT_ELF,
	TOO_BIG,
	OUTCOMES,
};
static const char *const outcome_names[OUTCOMES] = {"found", "not found", "not ELF", "too big"};
static unsigned long long outcomes[OUTCOMES];

static const char *const functions[] = {"main", "target", "f", ""};

static int file_fd = -1;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t offset = UINT64_MAX, again = UINT64_MAX;
	const char *function;
	int ret, ret_again;

	if (size < 1)
		return 0;
	if (file_fd < 0 && (file_fd = memfd_create("fuzz-elf", MFD_CLOEXEC)) < 0)
		FAIL("memfd_create: %s", strerror(errno));
	function = functions[data[0] % ARRAY_LEN(functions)];
	if (ftruncate(file_fd, 0) < 0 ||
	    pwrite(file_fd, data + 1, size - 1, 0) != (ssize_t)(size - 1))
		FAIL("writing the file: %s", strerror(errno));
	ret = tc_helper_elf_function_offset(file_fd, function, &offset);
	ret_again = tc_helper_elf_function_offset(file_fd, function, &again);
	if (ret != ret_again || (ret == 0 && offset != again))
		FAIL("the same file read twice gave %d (%llu), then %d (%llu)", ret,
		     (unsigned long long)offset, ret_again, (unsigned long long)again);
	switch (ret) {
	case 0:
		if (offset >= size - 1)
			FAIL("offset %llu of '%s' is outside a file of %zu bytes",
			     (unsigned long long)offset, function, size - 1);
		outcomes[FOUND]++;
		break;
	case -ESRCH:
		outcomes[NOT_FOUND]++;
		break;
	case -ENOEXEC:
		outcomes[NOT_ELF]++;
		break;
	case -E2BIG:
		outcomes[TOO_BIG]++;
		break;
	default:
		FAIL("an answer that is not PROBE_ADD's: %d", ret);
	}
	return 0;
}

#ifndef FUZZ_LIBFUZZER
/* A small ELF64 executable: one PT_LOAD, a .symtab and its .strtab, a
 * .dynsym sharing them, as a linker lays them out. */
struct tiny_elf {
	uint8_t pick;
	Elf64_Ehdr ehdr;
	Elf64_Phdr phdr[2];
	Elf64_Shdr shdr[5];
	Elf64_Sym sym[5];
	char strtab[32];
	uint8_t text[64];
} __attribute__((packed));

static struct tiny_elf tiny[4];
static struct fuzz_seed seeds[4];

#define OFFSET(field) (offsetof(struct tiny_elf, field) - 1)

static void
make_tiny(struct tiny_elf *e, uint8_t pick, uint16_t phnum, uint32_t symtab_type)
{
	static const char names[] = "\0main\0target\0f\0_start";
	const uint64_t base = 0x400000;

	memset(e, 0, sizeof(*e));
	e->pick = pick;
	memcpy(e->ehdr.e_ident, ELFMAG, SELFMAG);
	e->ehdr.e_ident[EI_CLASS] = ELFCLASS64;
	e->ehdr.e_ident[EI_DATA] = ELFDATA2LSB;
	e->ehdr.e_ident[EI_VERSION] = EV_CURRENT;
	e->ehdr.e_type = ET_EXEC;
	e->ehdr.e_machine = EM_X86_64;
	e->ehdr.e_version = EV_CURRENT;
	e->ehdr.e_entry = base + OFFSET(text);
	e->ehdr.e_phoff = OFFSET(phdr);
	e->ehdr.e_shoff = OFFSET(shdr);
	e->ehdr.e_ehsize = sizeof(Elf64_Ehdr);
	e->ehdr.e_phentsize = sizeof(Elf64_Phdr);
	e->ehdr.e_phnum = phnum;
	e->ehdr.e_shentsize = sizeof(Elf64_Shdr);
	e->ehdr.e_shnum = 5;
	e->ehdr.e_shstrndx = 0;
	e->phdr[0] = (Elf64_Phdr){.p_type = PT_LOAD,
				  .p_flags = PF_R | PF_X,
				  .p_offset = 0,
				  .p_vaddr = base,
				  .p_paddr = base,
				  .p_filesz = sizeof(*e) - 1,
				  .p_memsz = sizeof(*e) - 1,
				  .p_align = 0x1000};
	e->phdr[1] = (Elf64_Phdr){.p_type = PT_NOTE};
	e->shdr[1] = (Elf64_Shdr){.sh_type = symtab_type,
				  .sh_offset = OFFSET(sym),
				  .sh_size = sizeof(e->sym),
				  .sh_link = 2,
				  .sh_info = 1,
				  .sh_entsize = sizeof(Elf64_Sym)};
	e->shdr[2] = (Elf64_Shdr){
	    .sh_type = SHT_STRTAB, .sh_offset = OFFSET(strtab), .sh_size = sizeof(names)};
	e->shdr[3] = (Elf64_Shdr){.sh_type = SHT_PROGBITS,
				  .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
				  .sh_addr = base + OFFSET(text),
				  .sh_offset = OFFSET(text),
				  .sh_size = sizeof(e->text)};
	e->shdr[4] = (Elf64_Shdr){.sh_type = SHT_DYNSYM,
				  .sh_offset = OFFSET(sym),
				  .sh_size = 2 * sizeof(Elf64_Sym),
				  .sh_link = 2,
				  .sh_entsize = sizeof(Elf64_Sym)};
	memcpy(e->strtab, names, sizeof(names));
	for (int i = 1; i < 5; i++)
		e->sym[i] = (Elf64_Sym){.st_name = (uint32_t[]){0, 1, 6, 13, 15}[i],
					.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
					.st_shndx = 3,
					.st_value = base + OFFSET(text) + 8 * (uint64_t)i,
					.st_size = 8};
	memset(e->text, 0xc3, sizeof(e->text));
}

__attribute__((constructor)) static void
make_seeds(void)
{
	make_tiny(&tiny[0], 0, 2, SHT_SYMTAB);
	make_tiny(&tiny[1], 1, 1, SHT_SYMTAB);
	make_tiny(&tiny[2], 2, 2, SHT_PROGBITS); /* stripped: .dynsym only */
	make_tiny(&tiny[3], 3, 2, SHT_SYMTAB);
	for (size_t i = 0; i < ARRAY_LEN(seeds); i++)
		seeds[i] = (struct fuzz_seed){(const uint8_t *)&tiny[i], sizeof(tiny[i])};
}

const struct fuzz_harness fuzz_harness = {
    .seeds = seeds,
    .nr_seeds = ARRAY_LEN(seeds),
    .input_max = 8192,
    .outcome_names = outcome_names,
    .outcomes = outcomes,
    .nr_outcomes = OUTCOMES,
};
#endif
