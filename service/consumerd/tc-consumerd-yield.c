/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "tc-consumerd-yield.h"

#include <stddef.h>

static _Thread_local const atomic_bool *waiting;
static _Thread_local bool enabled, cut;

void
tc_consumerd_yield_attach(const atomic_bool *requests_waiting)
{
	waiting = requests_waiting;
}

void
tc_consumerd_yield_enable(bool enable)
{
	enabled = enable;
}

bool
tc_consumerd_yield_now(void)
{
	if (!enabled || !waiting || !atomic_load_explicit(waiting, memory_order_relaxed))
		return false;
	cut = true;
	return true;
}

bool
tc_consumerd_yield_is_cut(void)
{
	return cut;
}

bool
tc_consumerd_yield_take_cut(void)
{
	bool was_cut = cut;

	cut = false;
	return was_cut;
}
