/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-syscall-name.h"

#include <stdlib.h>
#include <string.h>

#include "tc-syscall-name-table.h"

#define N_CALLS (sizeof(syscall_table) / sizeof(syscall_table[0]))

static int
compare_name(const void *key, const void *entry)
{
	return strcmp(key, ((const __typeof__(syscall_table[0]) *)entry)->name);
}

int
tc_syscall_name_number(const char *name)
{
	const __typeof__(syscall_table[0]) *found =
	    bsearch(name, syscall_table, N_CALLS, sizeof(syscall_table[0]), compare_name);

	return found ? (int)found->number : -1;
}

const char *
tc_syscall_name_of(unsigned int number)
{
	for (size_t i = 0; i < N_CALLS; i++)
		if (syscall_table[i].number == number)
			return syscall_table[i].name;
	return NULL;
}

const char *
tc_syscall_name_at(size_t i, unsigned int *number)
{
	*number = syscall_table[i].number;
	return syscall_table[i].name;
}

size_t
tc_syscall_name_count(void)
{
	return N_CALLS;
}
