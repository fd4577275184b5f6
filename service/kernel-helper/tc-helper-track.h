/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The processes a session records, by their ids, rescanned in rounds. */
#ifndef TC_HELPER_TRACK_H
#define TC_HELPER_TRACK_H

#include <stdint.h>

struct tc_kernel_track_msg;
/* TRACK (the processes recorded by their ids, rescanned
 * in rounds), its message checked here; forget ends a session's rescans
 * (a PIDS request, the instance removed). */
int tc_helper_track(const struct tc_kernel_track_msg *msg);
void tc_helper_track_forget(uint64_t session_id);
/* When tc_helper_track_tick() has work next (tc_helper_log_now_ms()), -1 for
 * never; the tick does nothing before. */
int64_t tc_helper_track_deadline_ms(void);
void tc_helper_track_tick(void);

#endif /* TC_HELPER_TRACK_H */
