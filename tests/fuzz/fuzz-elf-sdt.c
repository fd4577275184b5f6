/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes the kernel helper's reading of an SDT probe from a uprobe's
 * target file (tc_helper_elf_sdt_probe(), service/kernel-helper/
 * tc-helper-elf.c): an ELF64 file the user who asks for the probe names
 * and may write, whose section headers, section names, notes (their name
 * and description sizes, the strings in them) and segments are read. The
 * input is the file, in a memfd, but for its first byte, which picks the
 * probe looked for. Built with AddressSanitizer and UBSan.
 *
 * What must hold, beside no error under the sanitizers: the call returns
 * 0 or one of the codes tc-kernel-abi.h gives for PROBE_ADD (-ENOTUNIQ
 * for a probe at several sites among them); a probe found has one site,
 * its offset and its semaphore's (when it has one) lie in the file; and
 * the answer does not depend on how the file is read (a second call on
 * the same file gives the same).
 *
 * Built with libFuzzer, from the top of the source tree (Debian's clang):
 *
 *   clang -g -O1 -D_GNU_SOURCE -DFUZZ_LIBFUZZER \
 *     -fsanitize=fuzzer,address,undefined -Itests/fuzz -Icommon/abi \
 *     -Iservice/kernel-helper tests/fuzz/fuzz-elf-sdt.c \
 *     service/kernel-helper/tc-helper-elf.c -o fuzz-elf-sdt
 *   ./fuzz-elf-sdt -max_len=8192 tests/fuzz/corpus/fuzz-elf-sdt
 *
 * Otherwise fuzz-driver.c's main() mutates the seeds built below:
 * `fuzz-elf-sdt --seed N --runs M`.
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
		fprintf(stderr, "fuzz-elf-sdt: " __VA_ARGS__);                                     \
		fprintf(stderr, "\n");                                                             \
		abort();                                                                           \
	} while (0)

enum outcome {
	FOUND,
	FOUND_WITH_SEMAPHORE,
	NOT_FOUND,
	SEVERAL_SITES,
	NOT_ELF,
	TOO_BIG,
	OUTCOMES,
};
static const char *const outcome_names[OUTCOMES] = {
    "found", "found with a semaphore", "not found", "several sites", "not ELF", "too big"};
static unsigned long long outcomes[OUTCOMES];

static const struct {
	const char *provider, *name;
} probes[] = {{"example", "all_types"}, {"example", "done"}, {"app", "twice"}, {"", ""}};

static int file_fd = -1;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tc_helper_elf_sdt sdt, again;
	int ret, ret_again;
	size_t pick;

	if (size < 1)
		return 0;
	if (file_fd < 0 && (file_fd = memfd_create("fuzz-elf-sdt", MFD_CLOEXEC)) < 0)
		FAIL("memfd_create: %s", strerror(errno));
	pick = data[0] % ARRAY_LEN(probes);
	if (ftruncate(file_fd, 0) < 0 ||
	    pwrite(file_fd, data + 1, size - 1, 0) != (ssize_t)(size - 1))
		FAIL("writing the file: %s", strerror(errno));
	ret = tc_helper_elf_sdt_probe(file_fd, probes[pick].provider, probes[pick].name, &sdt);
	ret_again =
	    tc_helper_elf_sdt_probe(file_fd, probes[pick].provider, probes[pick].name, &again);
	if (ret != ret_again || (ret == 0 && memcmp(&sdt, &again, sizeof(sdt)) != 0))
		FAIL("the same file read twice gave %d (offset %llu), then %d (offset %llu)", ret,
		     (unsigned long long)sdt.offset, ret_again, (unsigned long long)again.offset);
	switch (ret) {
	case 0:
		if (sdt.offset >= size - 1 || sdt.semaphore_offset >= size - 1 || sdt.sites != 1)
			FAIL("probe %s:%s at offset %llu, semaphore %llu, %u sites, in a file of "
			     "%zu bytes",
			     probes[pick].provider, probes[pick].name,
			     (unsigned long long)sdt.offset,
			     (unsigned long long)sdt.semaphore_offset, sdt.sites, size - 1);
		if ((sdt.semaphore != 0) != (sdt.semaphore_offset != 0))
			FAIL("a semaphore at 0x%llx, at offset %llu in the file",
			     (unsigned long long)sdt.semaphore,
			     (unsigned long long)sdt.semaphore_offset);
		outcomes[sdt.semaphore_offset ? FOUND_WITH_SEMAPHORE : FOUND]++;
		break;
	case -ESRCH:
		outcomes[NOT_FOUND]++;
		break;
	case -ENOTUNIQ:
		outcomes[SEVERAL_SITES]++;
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
/*
 * A small ELF64 executable with SDT probes as a linker lays them out: one
 * PT_LOAD over the whole file, a .text, a .stapsdt.base, a .probes holding
 * the semaphores, a .note.stapsdt with one note per site (all_types with
 * a semaphore, done without, twice at two sites) and the section names.
 * pick chooses the probe looked for; moved says the file was prelinked:
 * its .stapsdt.base is 0x100 further than the notes say.
 */
#define NOTE_DESC_MAX 64

struct sdt_note {
	Elf64_Nhdr header;
	char owner[8];
	uint8_t desc[NOTE_DESC_MAX];
} __attribute__((packed));

struct tiny_elf {
	uint8_t pick;
	Elf64_Ehdr ehdr;
	Elf64_Phdr phdr[1];
	Elf64_Shdr shdr[6];
	char shstrtab[64];
	uint8_t text[64];
	uint8_t base[8];
	uint16_t semaphores[4];
	struct sdt_note notes[4];
} __attribute__((packed));

static struct tiny_elf tiny[4];
static struct fuzz_seed seeds[4];

#define OFFSET(field) (offsetof(struct tiny_elf, field) - 1)
#define BASE_ADDRESS 0x400000ull

/* One note: pc, base, semaphore, then provider, name and arguments. */
static void
make_note(struct sdt_note *note, uint64_t pc, uint64_t base, uint64_t semaphore,
	  const char *provider, const char *name)
{
	size_t at = 24;

	memset(note, 0, sizeof(*note));
	note->header.n_namesz = sizeof("stapsdt");
	note->header.n_type = 3;
	memcpy(note->owner, "stapsdt", sizeof("stapsdt"));
	memcpy(note->desc, &pc, 8);
	memcpy(note->desc + 8, &base, 8);
	memcpy(note->desc + 16, &semaphore, 8);
	memcpy(note->desc + at, provider, strlen(provider) + 1);
	at += strlen(provider) + 1;
	memcpy(note->desc + at, name, strlen(name) + 1);
	at += strlen(name) + 1;
	memcpy(note->desc + at, "8@%rdi", sizeof("8@%rdi"));
	/* The description is the note's whole room, zeros after the strings,
	 * so that the next note starts where the structure says. */
	note->header.n_descsz = NOTE_DESC_MAX;
}

static void
make_tiny(struct tiny_elf *e, uint8_t pick, int moved)
{
	static const char names[] = "\0.text\0.stapsdt.base\0.probes\0.note.stapsdt\0.shstrtab";
	const uint64_t text = BASE_ADDRESS + OFFSET(text);
	const uint64_t base = BASE_ADDRESS + OFFSET(base), noted_base = base - (moved ? 0x100 : 0);
	const uint64_t semaphores = BASE_ADDRESS + OFFSET(semaphores), shift = base - noted_base;

	memset(e, 0, sizeof(*e));
	e->pick = pick;
	memcpy(e->ehdr.e_ident, ELFMAG, SELFMAG);
	e->ehdr.e_ident[EI_CLASS] = ELFCLASS64;
	e->ehdr.e_ident[EI_DATA] = ELFDATA2LSB;
	e->ehdr.e_ident[EI_VERSION] = EV_CURRENT;
	e->ehdr.e_type = ET_EXEC;
	e->ehdr.e_machine = EM_X86_64;
	e->ehdr.e_version = EV_CURRENT;
	e->ehdr.e_entry = text;
	e->ehdr.e_phoff = OFFSET(phdr);
	e->ehdr.e_shoff = OFFSET(shdr);
	e->ehdr.e_ehsize = sizeof(Elf64_Ehdr);
	e->ehdr.e_phentsize = sizeof(Elf64_Phdr);
	e->ehdr.e_phnum = 1;
	e->ehdr.e_shentsize = sizeof(Elf64_Shdr);
	e->ehdr.e_shnum = 6;
	e->ehdr.e_shstrndx = 5;
	e->phdr[0] = (Elf64_Phdr){.p_type = PT_LOAD,
				  .p_flags = PF_R | PF_W | PF_X,
				  .p_vaddr = BASE_ADDRESS,
				  .p_paddr = BASE_ADDRESS,
				  .p_filesz = sizeof(*e) - 1,
				  .p_memsz = sizeof(*e) - 1,
				  .p_align = 0x1000};
	e->shdr[1] = (Elf64_Shdr){.sh_name = 1,
				  .sh_type = SHT_PROGBITS,
				  .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
				  .sh_addr = text,
				  .sh_offset = OFFSET(text),
				  .sh_size = sizeof(e->text)};
	e->shdr[2] = (Elf64_Shdr){.sh_name = 7,
				  .sh_type = SHT_PROGBITS,
				  .sh_flags = SHF_ALLOC,
				  .sh_addr = base,
				  .sh_offset = OFFSET(base),
				  .sh_size = sizeof(e->base)};
	e->shdr[3] = (Elf64_Shdr){.sh_name = 21,
				  .sh_type = SHT_PROGBITS,
				  .sh_flags = SHF_ALLOC | SHF_WRITE,
				  .sh_addr = semaphores,
				  .sh_offset = OFFSET(semaphores),
				  .sh_size = sizeof(e->semaphores)};
	e->shdr[4] = (Elf64_Shdr){.sh_name = 29,
				  .sh_type = SHT_NOTE,
				  .sh_offset = OFFSET(notes),
				  .sh_size = sizeof(e->notes)};
	e->shdr[5] = (Elf64_Shdr){.sh_name = 43,
				  .sh_type = SHT_STRTAB,
				  .sh_offset = OFFSET(shstrtab),
				  .sh_size = sizeof(names)};
	memcpy(e->shstrtab, names, sizeof(names));
	memset(e->text, 0x90, sizeof(e->text));
	make_note(&e->notes[0], text + 4 - shift, noted_base, semaphores - shift, "example",
		  "all_types");
	make_note(&e->notes[1], text + 12 - shift, noted_base, 0, "example", "done");
	make_note(&e->notes[2], text + 20 - shift, noted_base, semaphores + 2 - shift, "app",
		  "twice");
	make_note(&e->notes[3], text + 28 - shift, noted_base, semaphores + 2 - shift, "app",
		  "twice");
}

__attribute__((constructor)) static void
make_seeds(void)
{
	make_tiny(&tiny[0], 0, 0);
	make_tiny(&tiny[1], 1, 0);
	make_tiny(&tiny[2], 2, 0);
	make_tiny(&tiny[3], 0, 1);
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
