/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-uid-trace.h"

char *
tc_uid_trace_dir(const char *root, uid_t uid)
{
	return g_strdup_printf("%s%sust/uid/%u/%u-bit", root, *root ? "/" : "", (unsigned)uid,
			       (unsigned)(sizeof(long) * 8));
}
