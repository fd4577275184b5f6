/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>
#include <sys/types.h>

/*
 * A share of polkitd per caller uid. polkitd evaluates checks one at a
 * time, in the order they came, for every program on the machine: one
 * user with many calls in flight would make every other user's calls
 * wait behind theirs. At most TC_POLKIT_CHECKS_PER_USER checks of one uid
 * are with polkitd at once; the others wait here, in order, and never
 * hold another uid's. An interactive check still held after
 * TC_POLKIT_SLOT_HOLD_MS waits for a person (an agent asking for a
 * password), not for polkitd: its slot goes to the next check of its
 * uid. Other checks keep theirs until answered: a slow polkitd is the
 * reason for the share.
 *
 * Main thread only: no lock.
 */
#define TC_POLKIT_CHECKS_PER_USER 2
#define TC_POLKIT_SLOT_HOLD_MS 1000

typedef struct _TcPolkitSlot TcPolkitSlot;
typedef void (*TcPolkitSlotFunc)(TcPolkitSlot *slot, gpointer user_data);

/* Calls func with one of uid's slots, at once or when one is free; func
 * starts an asynchronous check and must not leave the gate itself. */
void tc_polkit_gate_enter(uid_t uid, gboolean is_interactive, TcPolkitSlotFunc func,
			  gpointer user_data);

/* Gives back a slot func was given (NULL: nothing), once its check is
 * answered; the next waiting check of its uid starts. */
void tc_polkit_gate_leave(TcPolkitSlot *slot);
