/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The channel timers of the sessions of one session thread. */
#ifndef TC_CONSUMERD_TIMER_H
#define TC_CONSUMERD_TIMER_H

#include <stdint.h>

#include "tc-consumerd-session.h"

/*
 * Runs the channel timers that are due at now (read: drain; switch: close
 * partly filled sub-buffers, then drain; monitor: sample buffer usage)
 * and returns the next deadline over all channels, 0 when none is armed.
 */
uint64_t tc_consumerd_timer_run(struct tc_consumerd_registry *registry, uint64_t now);

#endif /* TC_CONSUMERD_TIMER_H */
