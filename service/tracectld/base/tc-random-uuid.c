/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-random-uuid.h"

#include <string.h>

void
tc_random_uuid(guint8 uuid[16])
{
	for (guint i = 0; i < 16; i += 4) {
		guint32 r = g_random_int();

		memcpy(uuid + i, &r, 4);
	}
	uuid[6] = (uuid[6] & 0x0f) | 0x40; /* version 4 */
	uuid[8] = (uuid[8] & 0x3f) | 0x80; /* RFC 4122 variant */
}
