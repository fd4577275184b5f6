/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

/*
 * The numbers the service gives its sessions and the consumer sessions of
 * their traces, from one sequence, so that no two are ever equal in the
 * service's life whatever the uids and pids behind them. A number made of
 * fields (a uid shifted beside a session id) cannot promise that: uids
 * take all 32 bits. Never 0. Any thread.
 */
guint64 tc_id_sequence_next(void);
