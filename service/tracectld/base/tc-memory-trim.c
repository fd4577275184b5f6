/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-memory-trim.h"

#include <glib.h>
#include <malloc.h>

static guint trim_id; /* the pending trim's source, 0 when none */

static gboolean
trim_cb(gpointer user_data)
{
	trim_id = 0;
	malloc_trim(0);
	return G_SOURCE_REMOVE;
}

void
tc_memory_trim_soon(void)
{
	if (trim_id != 0)
		g_source_remove(trim_id);
	trim_id = g_timeout_add_seconds(1, trim_cb, NULL);
}
