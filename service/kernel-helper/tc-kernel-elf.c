/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The file offset of a function in an ELF64 file, for uprobes: its
 * symbol's address (from .symtab or .dynsym), turned into a file offset
 * through the PT_LOAD segment that holds it. The file belongs to whoever
 * asked: every offset and size read from it is checked against the
 * mapping before it is used.
 */
#include "tc-kernel-helper.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define ELF_SIZE_MAX (1ull << 30)

struct image {
	const uint8_t *data;
	uint64_t size;
};

/* A pointer to count items of size bytes at offset, or NULL. */
static const void *
at(const struct image *image, uint64_t offset, uint64_t size, uint64_t count)
{
	if (size && count > (image->size / size))
		return NULL;
	if (offset > image->size || size * count > image->size - offset)
		return NULL;
	return image->data + offset;
}

static int
symbol_address(const struct image *image, const Elf64_Ehdr *ehdr, const char *name,
	       uint64_t *address)
{
	const Elf64_Shdr *sections = at(image, ehdr->e_shoff, sizeof(Elf64_Shdr), ehdr->e_shnum);

	if (!sections || ehdr->e_shentsize != sizeof(Elf64_Shdr))
		return -ENOEXEC;
	for (unsigned int i = 0; i < ehdr->e_shnum; i++) {
		const Elf64_Shdr *table = &sections[i], *strings;
		const Elf64_Sym *symbols;
		const char *names;

		if ((table->sh_type != SHT_SYMTAB && table->sh_type != SHT_DYNSYM) ||
		    table->sh_link >= ehdr->e_shnum || table->sh_entsize != sizeof(Elf64_Sym))
			continue;
		strings = &sections[table->sh_link];
		symbols = at(image, table->sh_offset, sizeof(Elf64_Sym),
			     table->sh_size / sizeof(Elf64_Sym));
		names = at(image, strings->sh_offset, 1, strings->sh_size);
		if (!symbols || !names || strings->sh_size == 0)
			continue;
		for (uint64_t s = 0; s < table->sh_size / sizeof(Elf64_Sym); s++) {
			const Elf64_Sym *sym = &symbols[s];
			const char *sym_name = names + sym->st_name;

			if (sym->st_name >= strings->sh_size || ELF64_ST_TYPE(sym->st_info) != STT_FUNC ||
			    sym->st_value == 0 ||
			    strnlen(sym_name, strings->sh_size - sym->st_name) ==
				    strings->sh_size - sym->st_name ||
			    strcmp(sym_name, name) != 0)
				continue;
			*address = sym->st_value;
			return 0;
		}
	}
	return -ENOENT;
}

static int
address_to_offset(const struct image *image, const Elf64_Ehdr *ehdr, uint64_t address,
		  uint64_t *offset)
{
	const Elf64_Phdr *segments = at(image, ehdr->e_phoff, sizeof(Elf64_Phdr), ehdr->e_phnum);

	if (!segments || ehdr->e_phentsize != sizeof(Elf64_Phdr))
		return -ENOEXEC;
	for (unsigned int i = 0; i < ehdr->e_phnum; i++) {
		const Elf64_Phdr *p = &segments[i];

		if (p->p_type == PT_LOAD && address >= p->p_vaddr &&
		    address - p->p_vaddr < p->p_filesz) {
			*offset = address - p->p_vaddr + p->p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

int
tc_helper_elf_function_offset(int fd, const char *function, uint64_t *offset)
{
	struct stat st;
	struct image image;
	const Elf64_Ehdr *ehdr;
	uint64_t address;
	void *map;
	int ret;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size < sizeof(Elf64_Ehdr) ||
	    (uint64_t)st.st_size > ELF_SIZE_MAX)
		return -ENOEXEC;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	image = (struct image){.data = map, .size = (uint64_t)st.st_size};
	ehdr = map;
	if (memcmp(ehdr->e_ident, ELFMAG, SELFMAG) != 0 || ehdr->e_ident[EI_CLASS] != ELFCLASS64)
		ret = -ENOEXEC;
	else if ((ret = symbol_address(&image, ehdr, function, &address)) == 0)
		ret = address_to_offset(&image, ehdr, address, offset);
	munmap(map, (size_t)st.st_size);
	return ret;
}
