/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-authority"

#include "tc-polkit-gate.h"

/* Invariant: a uid is in the table exactly when it has checks running or
 * waiting; running counts the slots given and neither left nor expired. */
typedef struct {
	uid_t uid;
	guint running;
	GQueue waiting; /* Waiter *, oldest first */
} UserGate;

typedef struct {
	gboolean is_interactive;
	TcPolkitSlotFunc func;
	gpointer user_data;
} Waiter;

struct _TcPolkitSlot {
	UserGate *gate; /* NULL once it no longer counts (expired) */
	guint expire_id;
};

static GHashTable *gates; /* uid -> UserGate * (owned) */

static void start_waiting(UserGate *gate);

static void
user_gate_free(UserGate *gate)
{
	g_queue_clear_full(&gate->waiting, g_free);
	g_free(gate);
}

/* Stops counting slot against its uid and lets the next check in. */
static void
slot_release(TcPolkitSlot *slot)
{
	UserGate *gate = slot->gate;

	slot->gate = NULL;
	gate->running--;
	start_waiting(gate);
}

static gboolean
slot_expired_cb(gpointer user_data)
{
	TcPolkitSlot *slot = user_data;

	slot->expire_id = 0;
	slot_release(slot);
	return G_SOURCE_REMOVE;
}

static void
start_one(UserGate *gate, gboolean is_interactive, TcPolkitSlotFunc func, gpointer user_data)
{
	TcPolkitSlot *slot = g_new0(TcPolkitSlot, 1);

	slot->gate = gate;
	if (is_interactive)
		slot->expire_id = g_timeout_add(TC_POLKIT_SLOT_HOLD_MS, slot_expired_cb, slot);
	gate->running++;
	func(slot, user_data);
}

/* Starts waiting checks while uid has slots; forgets an idle uid. */
static void
start_waiting(UserGate *gate)
{
	while (gate->running < TC_POLKIT_CHECKS_PER_USER && !g_queue_is_empty(&gate->waiting)) {
		Waiter *waiter = g_queue_pop_head(&gate->waiting);
		Waiter taken = *waiter;

		g_free(waiter);
		start_one(gate, taken.is_interactive, taken.func, taken.user_data);
	}
	if (gate->running == 0 && g_queue_is_empty(&gate->waiting))
		g_hash_table_remove(gates, GUINT_TO_POINTER(gate->uid));
}

void
tc_polkit_gate_enter(uid_t uid, gboolean is_interactive, TcPolkitSlotFunc func,
		     gpointer user_data)
{
	UserGate *gate;
	Waiter *waiter;

	if (gates == NULL)
		gates = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
					      (GDestroyNotify)user_gate_free);
	gate = g_hash_table_lookup(gates, GUINT_TO_POINTER(uid));
	if (gate == NULL) {
		gate = g_new0(UserGate, 1);
		gate->uid = uid;
		g_queue_init(&gate->waiting);
		g_hash_table_insert(gates, GUINT_TO_POINTER(uid), gate);
	}
	if (gate->running < TC_POLKIT_CHECKS_PER_USER) {
		start_one(gate, is_interactive, func, user_data);
		return;
	}
	waiter = g_new(Waiter, 1);
	waiter->is_interactive = is_interactive;
	waiter->func = func;
	waiter->user_data = user_data;
	g_queue_push_tail(&gate->waiting, waiter);
}

void
tc_polkit_gate_leave(TcPolkitSlot *slot)
{
	if (slot == NULL)
		return;
	if (slot->expire_id)
		g_source_remove(slot->expire_id);
	if (slot->gate)
		slot_release(slot);
	g_free(slot);
}
