/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The file offset of a function in an ELF64 file, for uprobes: its
 * symbol's address (from .symtab or .dynsym), turned into a file offset
 * through the PT_LOAD segment that holds it; or of an SDT probe and its
 * semaphore, from the file's notes (below).
 *
 * The file belongs to whoever asked, who may rewrite or truncate it while
 * it is read: it is never mapped (a truncated mapping raises SIGBUS), only
 * read with pread() into the helper's own memory, every offset and size
 * read from it is checked against the file's size before it is used, and
 * a read that comes back short (the file shrank meanwhile) is a malformed
 * file. The parse is bounded: the file's size, the number of section and
 * program headers, the symbols walked and the bytes of one string table
 * all have limits (TC_KERNEL_ELF_*, tc-kernel-abi.h), so no file makes the
 * helper read or walk more than about 200 MiB whatever its headers claim.
 */
#include "tc-helper-elf.h"

#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tc-kernel-abi.h"

/* Symbols read with one pread(): 48 KiB. */
#define SYMBOLS_PER_READ 2048u

struct elf_file {
	int fd;
	uint64_t size; /* at the fstat; a later truncation makes reads short */
};

/* Reads len bytes at offset: 0, or -ENOEXEC when they are not all in the
 * file (its headers point outside it, or it was truncated meanwhile). */
static int
read_at(const struct elf_file *file, uint64_t offset, void *buf, size_t len)
{
	size_t done = 0;

	if (offset > file->size || len > file->size - offset)
		return -ENOEXEC;
	while (done < len) {
		ssize_t n = pread(file->fd, (char *)buf + done, len - done, (off_t)(offset + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ENOEXEC;
		done += (size_t)n;
	}
	return 0;
}

/* Whether a section's bytes lie in the file. */
static bool
section_is_in_file(const struct elf_file *file, const Elf64_Shdr *section)
{
	return section->sh_offset <= file->size && section->sh_size <= file->size - section->sh_offset;
}

/* Reads count headers of size entsize at offset into a new buffer. */
static int
read_table(const struct elf_file *file, uint64_t offset, uint32_t count, size_t entsize,
	   void **table)
{
	int ret;

	if (count > TC_KERNEL_ELF_SECTIONS_MAX)
		return -E2BIG;
	*table = calloc(count ? count : 1, entsize);
	if (!*table)
		return -ENOMEM;
	ret = read_at(file, offset, *table, (size_t)count * entsize);
	if (ret < 0) {
		free(*table);
		*table = NULL;
	}
	return ret;
}

/* The string table of a symbol table, NUL-terminated at its end so that
 * no name runs past it. */
static int
read_names(const struct elf_file *file, const Elf64_Shdr *strings, char **names)
{
	int ret;

	if (strings->sh_type != SHT_STRTAB || strings->sh_size == 0)
		return -ESRCH;
	if (strings->sh_size > TC_KERNEL_ELF_NAMES_MAX)
		return -E2BIG;
	if (!section_is_in_file(file, strings))
		return -ENOEXEC;
	*names = malloc(strings->sh_size + 1);
	if (!*names)
		return -ENOMEM;
	ret = read_at(file, strings->sh_offset, *names, strings->sh_size);
	if (ret < 0) {
		free(*names);
		return ret;
	}
	(*names)[strings->sh_size] = '\0';
	return 0;
}

/* The symbols of table, read a chunk at a time. *budget: the symbols left
 * to walk. 0 and *address, -ESRCH when not there, or -errno. */
static int
search_table(const struct elf_file *file, const Elf64_Shdr *sections, uint32_t nr_sections,
	     const Elf64_Shdr *table, const char *function, uint64_t *budget, uint64_t *address)
{
	static Elf64_Sym symbols[SYMBOLS_PER_READ];
	uint64_t count = table->sh_size / sizeof(Elf64_Sym);
	const Elf64_Shdr *strings;
	char *names = NULL;
	int ret;

	if (table->sh_entsize != sizeof(Elf64_Sym) || table->sh_link >= nr_sections)
		return -ESRCH;
	if (!section_is_in_file(file, table))
		return -ENOEXEC;
	if (count > *budget)
		return -E2BIG;
	*budget -= count;
	strings = &sections[table->sh_link];
	ret = read_names(file, strings, &names);
	if (ret < 0)
		return ret;
	ret = -ESRCH;
	for (uint64_t first = 0; ret == -ESRCH && first < count; first += SYMBOLS_PER_READ) {
		uint64_t n = count - first < SYMBOLS_PER_READ ? count - first : SYMBOLS_PER_READ;
		int read_ret = read_at(file, table->sh_offset + first * sizeof(Elf64_Sym), symbols,
				       n * sizeof(Elf64_Sym));

		if (read_ret < 0) {
			ret = read_ret;
			break;
		}
		for (uint64_t s = 0; s < n; s++) {
			const Elf64_Sym *sym = &symbols[s];

			if (ELF64_ST_TYPE(sym->st_info) != STT_FUNC || sym->st_value == 0 ||
			    sym->st_name >= strings->sh_size ||
			    strcmp(names + sym->st_name, function) != 0)
				continue;
			*address = sym->st_value;
			ret = 0;
			break;
		}
	}
	free(names);
	return ret;
}

static int
symbol_address(const struct elf_file *file, const Elf64_Ehdr *ehdr, const char *function,
	       uint64_t *address)
{
	uint64_t budget = TC_KERNEL_ELF_SYMBOLS_MAX;
	Elf64_Shdr *sections;
	int ret;

	/* Extended numbering (e_shnum 0) is for more sections than the limit. */
	if (ehdr->e_shnum == 0)
		return ehdr->e_shoff ? -E2BIG : -ESRCH;
	if (ehdr->e_shentsize != sizeof(Elf64_Shdr))
		return -ENOEXEC;
	ret = read_table(file, ehdr->e_shoff, ehdr->e_shnum, sizeof(Elf64_Shdr),
			 (void **)&sections);
	if (ret < 0)
		return ret;
	ret = -ESRCH;
	for (uint32_t i = 0; ret == -ESRCH && i < ehdr->e_shnum; i++)
		if (sections[i].sh_type == SHT_SYMTAB || sections[i].sh_type == SHT_DYNSYM)
			ret = search_table(file, sections, ehdr->e_shnum, &sections[i], function,
					   &budget, address);
	free(sections);
	return ret;
}

static int
address_to_offset(const struct elf_file *file, const Elf64_Ehdr *ehdr, uint64_t address,
		  uint64_t *offset)
{
	Elf64_Phdr *segments;
	int ret;

	if (ehdr->e_phentsize != sizeof(Elf64_Phdr) || ehdr->e_phnum == PN_XNUM)
		return -ENOEXEC;
	ret = read_table(file, ehdr->e_phoff, ehdr->e_phnum, sizeof(Elf64_Phdr),
			 (void **)&segments);
	if (ret < 0)
		return ret;
	ret = -ESRCH;
	for (uint32_t i = 0; i < ehdr->e_phnum; i++) {
		const Elf64_Phdr *p = &segments[i];

		if (p->p_type == PT_LOAD && address >= p->p_vaddr &&
		    address - p->p_vaddr < p->p_filesz && p->p_offset <= file->size &&
		    address - p->p_vaddr < file->size - p->p_offset) {
			*offset = address - p->p_vaddr + p->p_offset;
			ret = 0;
			break;
		}
	}
	free(segments);
	return ret;
}

/* The file's size and ELF64 header, checked. */
static int
open_file(int fd, struct elf_file *file, Elf64_Ehdr *ehdr)
{
	struct stat st;
	int ret;

	file->fd = fd;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EMEDIUMTYPE;
	if ((uint64_t)st.st_size > TC_KERNEL_ELF_FILE_MAX)
		return -EFBIG;
	file->size = (uint64_t)st.st_size;
	ret = read_at(file, 0, ehdr, sizeof(*ehdr));
	if (ret < 0)
		return ret;
	if (memcmp(ehdr->e_ident, ELFMAG, SELFMAG) != 0 || ehdr->e_ident[EI_CLASS] != ELFCLASS64)
		return -ENOEXEC;
	return 0;
}

int
tc_helper_elf_function_offset(int fd, const char *function, uint64_t *offset)
{
	struct elf_file file;
	Elf64_Ehdr ehdr;
	uint64_t address = 0;
	int ret = open_file(fd, &file, &ehdr);

	if (ret == 0)
		ret = symbol_address(&file, &ehdr, function, &address);
	if (ret == 0)
		ret = address_to_offset(&file, &ehdr, address, offset);
	return ret;
}

/*
 * SDT probes (SystemTap's sys/sdt.h): each call site is a note of the
 * SHT_NOTE section .note.stapsdt, owner "stapsdt", type NT_STAPSDT (3),
 * whose description is three addresses (the probe's pc, the link-time
 * address of the section .stapsdt.base, the semaphore's address or 0)
 * and three NUL-terminated strings (provider, name, arguments). A program
 * whose addresses moved after linking (prelink) has .stapsdt.base
 * elsewhere: the addresses move by the same amount. The semaphore, a
 * 16-bit counter in the section .probes, is what a tool raises while it
 * is attached; the kernel does it for a uprobe given its file offset
 * (ref_ctr_offset).
 *
 * The notes are the file owner's text like the rest: every size is
 * checked against what was read (a note's name and description, padded
 * to 4 bytes, must lie inside its section), the strings inside the
 * description, and all the note sections together read at most
 * TC_KERNEL_ELF_NOTES_MAX bytes.
 */
#define NT_STAPSDT 3
#define SDT_OWNER "stapsdt"

/* The address of the section named name, or 0 (section names read from
 * e_shstrndx's table, bounded as symbol names are). */
static int
section_address(const struct elf_file *file, const Elf64_Ehdr *ehdr, const Elf64_Shdr *sections,
		const char *name, uint64_t *address)
{
	char *names = NULL;
	int ret;

	*address = 0;
	if (ehdr->e_shstrndx == SHN_UNDEF || ehdr->e_shstrndx >= ehdr->e_shnum)
		return 0;
	ret = read_names(file, &sections[ehdr->e_shstrndx], &names);
	if (ret == -ESRCH)
		return 0;
	if (ret < 0)
		return ret;
	for (uint32_t i = 0; i < ehdr->e_shnum; i++)
		if (sections[i].sh_name < sections[ehdr->e_shstrndx].sh_size &&
		    strcmp(names + sections[i].sh_name, name) == 0) {
			*address = sections[i].sh_addr;
			break;
		}
	free(names);
	return 0;
}

/* The notes of one SHT_NOTE section: the probe provider:name's pc and
 * semaphore addresses, moved as .stapsdt.base (at base, 0 for none) did;
 * *found counts the sites. *budget: the note bytes left to read. */
static int
search_notes(const struct elf_file *file, const Elf64_Shdr *section, const char *provider,
	     const char *name, uint64_t base, uint64_t *budget, struct tc_helper_elf_sdt *sdt,
	     uint32_t *found)
{
	uint8_t *notes;
	uint64_t at = 0;
	int ret;

	/* All the note sections together, whatever their headers claim. */
	if (section->sh_size > *budget)
		return -E2BIG;
	*budget -= section->sh_size;
	if (!section_is_in_file(file, section))
		return -ENOEXEC;
	notes = malloc(section->sh_size ? section->sh_size : 1);
	if (!notes)
		return -ENOMEM;
	ret = read_at(file, section->sh_offset, notes, section->sh_size);
	while (ret == 0 && section->sh_size - at >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr header;
		uint64_t name_size, desc_size, desc_at;
		const uint8_t *desc;
		const char *strings, *end;
		uint64_t pc, note_base, semaphore;

		memcpy(&header, notes + at, sizeof(header));
		at += sizeof(header);
		/* Both padded to 4 bytes, which 64-bit sums cannot overflow. */
		name_size = ((uint64_t)header.n_namesz + 3) & ~3ull;
		desc_size = ((uint64_t)header.n_descsz + 3) & ~3ull;
		if (name_size > section->sh_size - at ||
		    desc_size > section->sh_size - at - name_size) {
			ret = -ENOEXEC;
			break;
		}
		desc_at = at + name_size;
		at = desc_at + desc_size;
		if (header.n_type != NT_STAPSDT || header.n_namesz != sizeof(SDT_OWNER) ||
		    memcmp(notes + desc_at - name_size, SDT_OWNER, sizeof(SDT_OWNER)) != 0 ||
		    header.n_descsz < 3 * sizeof(uint64_t))
			continue;
		desc = notes + desc_at;
		strings = (const char *)desc + 3 * sizeof(uint64_t);
		end = (const char *)desc + header.n_descsz;
		/* The provider and the name, each NUL-terminated inside the note. */
		{
			const char *provider_end = memchr(strings, '\0', (size_t)(end - strings));
			const char *name_end = provider_end
						       ? memchr(provider_end + 1, '\0',
								(size_t)(end - provider_end - 1))
						       : NULL;

			if (!name_end) {
				ret = -ENOEXEC;
				break;
			}
			if (strcmp(strings, provider) != 0 || strcmp(provider_end + 1, name) != 0)
				continue;
		}
		memcpy(&pc, desc, 8);
		memcpy(&note_base, desc + 8, 8);
		memcpy(&semaphore, desc + 16, 8);
		if (base && note_base) {
			pc += base - note_base;
			if (semaphore)
				semaphore += base - note_base;
		}
		if (++*found == 1) {
			sdt->address = pc;
			sdt->semaphore = semaphore;
		}
	}
	free(notes);
	return ret;
}

int
tc_helper_elf_sdt_probe(int fd, const char *provider, const char *name,
			struct tc_helper_elf_sdt *sdt)
{
	struct elf_file file;
	Elf64_Ehdr ehdr;
	Elf64_Shdr *sections = NULL;
	uint64_t base = 0, budget = TC_KERNEL_ELF_NOTES_MAX;
	uint32_t found = 0;
	int ret = open_file(fd, &file, &ehdr);

	*sdt = (struct tc_helper_elf_sdt){0};
	if (ret < 0)
		return ret;
	if (ehdr.e_shnum == 0)
		return ehdr.e_shoff ? -E2BIG : -ESRCH;
	if (ehdr.e_shentsize != sizeof(Elf64_Shdr))
		return -ENOEXEC;
	ret = read_table(&file, ehdr.e_shoff, ehdr.e_shnum, sizeof(Elf64_Shdr), (void **)&sections);
	if (ret == 0)
		ret = section_address(&file, &ehdr, sections, ".stapsdt.base", &base);
	for (uint32_t i = 0; ret == 0 && i < ehdr.e_shnum; i++)
		if (sections[i].sh_type == SHT_NOTE)
			ret = search_notes(&file, &sections[i], provider, name, base, &budget, sdt,
					   &found);
	free(sections);
	if (ret < 0)
		return ret;
	if (found == 0)
		return -ESRCH;
	/* One uprobe event is one place: a probe at several sites (inlined
	 * code, a macro used twice) would be recorded at the first only. */
	if (found > 1)
		return -ENOTUNIQ;
	sdt->sites = found;
	ret = address_to_offset(&file, &ehdr, sdt->address, &sdt->offset);
	if (ret == 0 && sdt->semaphore)
		ret = address_to_offset(&file, &ehdr, sdt->semaphore, &sdt->semaphore_offset);
	/* Offset 0 is the ELF header, and says "no semaphore" to the caller. */
	if (ret == 0 && sdt->semaphore && sdt->semaphore_offset == 0)
		ret = -ENOEXEC;
	return ret;
}
