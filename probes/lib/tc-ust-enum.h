/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An enumeration's wire description (TRACECTL_MSG_ENUM, tracectl-abi.h):
 * its entries checked against the ABI's rules, automatic values resolved,
 * cut into messages. Built once, when the first event that uses the
 * enumeration is registered, and kept as long as the process, so that it
 * can be sent again on a new connection after its module is gone. No
 * lock: the caller holds tc_ust_state.lock.
 */
#ifndef TC_UST_ENUM_H
#define TC_UST_ENUM_H

#include <stdbool.h>
#include <stdint.h>

#include "tracectl-abi.h"
#include "tracectl/tracepoint.h"

struct tc_ust_enum {
	const struct tracectl_ust_enum *desc; /* NULL once its module is gone */
	uint32_t index;			      /* the application's, as the service knows it */
	uint32_t nr_msgs;
	struct tracectl_msg_enum *msgs; /* [nr_msgs], complete but for index */
};

/* The description of desc, or NULL when it breaks the ABI's rules (names,
 * 1 to TRACECTL_ENUM_ENTRIES_MAX entries, labels, unknown flags, ranges
 * the wrong way round, an automatic value past UINT64_MAX) or memory ran
 * out. Its index is set by tc_ust_enum_set_index(). */
struct tc_ust_enum *tc_ust_enum_new(const struct tracectl_ust_enum *desc);
void tc_ust_enum_set_index(struct tc_ust_enum *enumeration, uint32_t index);
void tc_ust_enum_free(struct tc_ust_enum *enumeration);

/* Whether every range of the enumeration fits container, the type word of
 * a field (its element bits). */
bool tc_ust_enum_fits(const struct tc_ust_enum *enumeration, uint32_t container);

#endif /* TC_UST_ENUM_H */
