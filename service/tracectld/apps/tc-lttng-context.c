/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-lttng"

#include "tc-lttng-context.h"

#include <string.h>

#include "tc-perf-counter.h"
#include "tracectl-abi.h"

/* LTTNG_UST_CONTEXT_PROCNAME_LEN of LTTng-UST 2.13 (src/common/events.h). */
#define PROCNAME_LEN 17
/* x86: lttng_ust_rb_alignof() is 1, so every alignment is 8 bits. */
#define PACKED_ALIGNMENT_BITS 8

static const TcLttngContext table[] = {
    {TRACECTL_CONTEXT_VPID, LTTNG_UST_ABI_CONTEXT_VPID, "vpid", TC_LTTNG_CONTEXT_PID},
    {TRACECTL_CONTEXT_VTID, LTTNG_UST_ABI_CONTEXT_VTID, "vtid", TC_LTTNG_CONTEXT_PID},
    {TRACECTL_CONTEXT_PROCNAME, LTTNG_UST_ABI_CONTEXT_PROCNAME, "procname", TC_LTTNG_CONTEXT_PROCNAME},
    {TRACECTL_CONTEXT_PTHREAD_ID, LTTNG_UST_ABI_CONTEXT_PTHREAD_ID, "pthread_id", TC_LTTNG_CONTEXT_ULONG},
    {TRACECTL_CONTEXT_VUID, LTTNG_UST_ABI_CONTEXT_VUID, "vuid", TC_LTTNG_CONTEXT_ID},
    {TRACECTL_CONTEXT_VEUID, LTTNG_UST_ABI_CONTEXT_VEUID, "veuid", TC_LTTNG_CONTEXT_ID},
    {TRACECTL_CONTEXT_VSUID, LTTNG_UST_ABI_CONTEXT_VSUID, "vsuid", TC_LTTNG_CONTEXT_ID},
    {TRACECTL_CONTEXT_VGID, LTTNG_UST_ABI_CONTEXT_VGID, "vgid", TC_LTTNG_CONTEXT_ID},
    {TRACECTL_CONTEXT_VEGID, LTTNG_UST_ABI_CONTEXT_VEGID, "vegid", TC_LTTNG_CONTEXT_ID},
    {TRACECTL_CONTEXT_VSGID, LTTNG_UST_ABI_CONTEXT_VSGID, "vsgid", TC_LTTNG_CONTEXT_ID},
    {TRACECTL_CONTEXT_CGROUP_NS, LTTNG_UST_ABI_CONTEXT_CGROUP_NS, "cgroup_ns", TC_LTTNG_CONTEXT_ULONG},
    {TRACECTL_CONTEXT_IPC_NS, LTTNG_UST_ABI_CONTEXT_IPC_NS, "ipc_ns", TC_LTTNG_CONTEXT_ULONG},
    {TRACECTL_CONTEXT_MNT_NS, LTTNG_UST_ABI_CONTEXT_MNT_NS, "mnt_ns", TC_LTTNG_CONTEXT_ULONG},
    {TRACECTL_CONTEXT_NET_NS, LTTNG_UST_ABI_CONTEXT_NET_NS, "net_ns", TC_LTTNG_CONTEXT_ULONG},
    {TRACECTL_CONTEXT_PID_NS, LTTNG_UST_ABI_CONTEXT_PID_NS, "pid_ns", TC_LTTNG_CONTEXT_ULONG},
    {TRACECTL_CONTEXT_TIME_NS, LTTNG_UST_ABI_CONTEXT_TIME_NS, "time_ns", TC_LTTNG_CONTEXT_ULONG},
    {TRACECTL_CONTEXT_USER_NS, LTTNG_UST_ABI_CONTEXT_USER_NS, "user_ns", TC_LTTNG_CONTEXT_ULONG},
    {TRACECTL_CONTEXT_UTS_NS, LTTNG_UST_ABI_CONTEXT_UTS_NS, "uts_ns", TC_LTTNG_CONTEXT_ULONG},
    {TRACECTL_CONTEXT_IP, LTTNG_UST_ABI_CONTEXT_IP, "ip", TC_LTTNG_CONTEXT_POINTER},
};

/* A context added to the model and not here would be left out silently. */
G_STATIC_ASSERT(TRACECTL_CONTEXT_ALL == 0x7ffffu && G_N_ELEMENTS(table) == 19);

const TcLttngContext *
tc_lttng_context_table(gsize *count)
{
	*count = G_N_ELEMENTS(table);
	return table;
}

static void
append_integer(GArray *fields, const char *name, guint32 size, gboolean is_signed, guint32 base,
	       gint32 encoding)
{
	struct lttng_ust_ctl_field field;

	memset(&field, 0, sizeof(field));
	g_strlcpy(field.name, name, sizeof(field.name));
	field.type.atype = lttng_ust_ctl_atype_integer;
	field.type.u.integer.size = size;
	field.type.u.integer.alignment = PACKED_ALIGNMENT_BITS;
	field.type.u.integer.signedness = is_signed;
	field.type.u.integer.reverse_byte_order = 0;
	field.type.u.integer.base = base;
	field.type.u.integer.encoding = encoding;
	g_array_append_val(fields, field);
}

/* The array, then its element (an unnamed field), as ustcomm.c
 * serializes lttng_ust_static_type_array_text(). */
static void
append_procname(GArray *fields, const char *name)
{
	struct lttng_ust_ctl_field field;

	memset(&field, 0, sizeof(field));
	g_strlcpy(field.name, name, sizeof(field.name));
	field.type.atype = lttng_ust_ctl_atype_array_nestable;
	field.type.u.array_nestable.length = PROCNAME_LEN;
	field.type.u.array_nestable.alignment = 0;
	g_array_append_val(fields, field);
	append_integer(fields, "", 8, (char)-1 < 0, 10, lttng_ust_ctl_encode_UTF8);
}

static void
append_field(GArray *fields, const TcLttngContext *context)
{
	const char *name = context->name;

	switch (context->kind) {
	case TC_LTTNG_CONTEXT_PID:
		append_integer(fields, name, 32, TRUE, 10, lttng_ust_ctl_encode_none);
		break;
	case TC_LTTNG_CONTEXT_ID:
		append_integer(fields, name, 32, FALSE, 10, lttng_ust_ctl_encode_none);
		break;
	case TC_LTTNG_CONTEXT_ULONG:
		append_integer(fields, name, 64, FALSE, 10, lttng_ust_ctl_encode_none);
		break;
	case TC_LTTNG_CONTEXT_POINTER:
		/* Base 10 up to LTTng-UST 2.13.5 (Debian 12's), 16 from 2.13.6
		 * on: a display hint only, which the comparison of an
		 * application's description leaves out. */
		append_integer(fields, name, 64, FALSE, 10, lttng_ust_ctl_encode_none);
		break;
	case TC_LTTNG_CONTEXT_PROCNAME:
		append_procname(fields, name);
		break;
	}
}

GArray *
tc_lttng_context_fields(guint32 contexts, const GArray *perf_counters)
{
	GArray *fields = g_array_new(FALSE, FALSE, sizeof(struct lttng_ust_ctl_field));

	for (gsize i = 0; i < G_N_ELEMENTS(table); i++)
		if (contexts & table[i].bit)
			append_field(fields, &table[i]);
	/* LTTng-UST names a counter's field as it was asked
	 * (lttng_add_perf_counter_to_ctx()): a uint64_t. */
	for (guint i = 0; i < perf_counters->len; i++)
		append_integer(fields,
			       g_array_index(perf_counters, struct tc_perf_counter, i).name, 64,
			       FALSE, 10, lttng_ust_ctl_encode_none);
	return fields;
}
