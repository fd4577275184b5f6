/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-id-sequence.h"

static guint64 next_id = 1; /* atomic */

guint64
tc_id_sequence_next(void)
{
	return __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED);
}
