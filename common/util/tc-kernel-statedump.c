/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lttng-modules 2.13's state dump events, as a table (see the header).
 * Each event keeps lttng-modules' field names, sizes, signedness and
 * bases, with one addition: lttng_statedump_file_descriptor also has the
 * process' "pid" after its own fields, which lttng-modules had before
 * 2.11 and lttng-analyses 0.6 still reads (a trace without it makes it
 * take the pid context's, the dumping process'). The helper fills
 * file_table_address with the process id (tracefs gives no kernel
 * address), the same in a process' lttng_statedump_process_state
 * and its descriptors, which is what readers join them on.
 */
#include "tc-kernel-statedump.h"

#include <string.h>

#define N_ELEMENTS(a) (sizeof(a) / sizeof((a)[0]))
#define INT(name, size, base, is_signed)                                                      \
	{name, TC_KERNEL_STATEDUMP_INT, size, base, is_signed}
#define I32(name) INT(name, 4, 10, true)
#define U32(name) INT(name, 4, 10, false)
#define HEX64(name) INT(name, 8, 16, false)
#define STRING(name) {name, TC_KERNEL_STATEDUMP_STRING, 0, 0, false}

static const struct tc_kernel_statedump_field process_state[] = {
	I32("tid"),      I32("pid"),    I32("ppid"),
	{"name", TC_KERNEL_STATEDUMP_TEXT, 16, 0, false},
	I32("type"),     I32("mode"),   I32("submode"),
	I32("status"),   U32("cpu"),    HEX64("file_table_address"),
};

/* cgroup, ipc, mnt, net, uts and time namespaces. */
static const struct tc_kernel_statedump_field namespace_inum[] = {
	I32("tid"),
	U32("ns_inum"),
};

static const struct tc_kernel_statedump_field pid_ns[] = {
	I32("tid"), I32("vtid"), I32("vpid"), I32("vppid"), I32("ns_level"), U32("ns_inum"),
};

static const struct tc_kernel_statedump_field user_ns[] = {
	I32("tid"), U32("vuid"), U32("vgid"), I32("ns_level"), U32("ns_inum"),
};

static const struct tc_kernel_statedump_field file_descriptor[] = {
	HEX64("file_table_address"),
	I32("fd"),
	INT("flags", 4, 8, false),
	INT("fmode", 4, 16, false),
	STRING("filename"),
	I32("pid"),
};

static const struct tc_kernel_statedump_field vm_map[] = {
	I32("pid"),   HEX64("start"), HEX64("end"), HEX64("flags"),
	INT("inode", 8, 10, false), INT("pgoff", 8, 10, false),
};

static const struct tc_kernel_statedump_field network_interface[] = {
	STRING("name"),
	{"address_ipv4", TC_KERNEL_STATEDUMP_INT_BE, 4, 16, false},
};

static const struct tc_kernel_statedump_field block_device[] = {
	U32("dev"),
	STRING("diskname"),
};

static const struct tc_kernel_statedump_field interrupt[] = {
	U32("irq"),
	STRING("name"),
	STRING("action"),
	I32("tid"),
};

static const struct tc_kernel_statedump_field cpu_topology[] = {
	STRING("architecture"), INT("cpu_id", 2, 10, false), STRING("vendor"),
	INT("family", 1, 10, false), INT("model", 1, 10, false), STRING("model_name"),
	INT("physical_id", 2, 10, false), INT("core_id", 2, 10, false),
	INT("cores", 2, 10, false),
};

#define EVENT(name, fields) {"lttng_statedump_" name, fields, N_ELEMENTS(fields)}
#define NS_EVENT(name) EVENT("process_" name "_ns", namespace_inum)

static const struct tc_kernel_statedump_event events[TC_KERNEL_STATEDUMP_KINDS] = {
	[TC_KERNEL_STATEDUMP_START] = {"lttng_statedump_start", NULL, 0},
	[TC_KERNEL_STATEDUMP_END] = {"lttng_statedump_end", NULL, 0},
	[TC_KERNEL_STATEDUMP_PROCESS_STATE] = EVENT("process_state", process_state),
	[TC_KERNEL_STATEDUMP_PROCESS_CGROUP_NS] = NS_EVENT("cgroup"),
	[TC_KERNEL_STATEDUMP_PROCESS_IPC_NS] = NS_EVENT("ipc"),
	[TC_KERNEL_STATEDUMP_PROCESS_MNT_NS] = NS_EVENT("mnt"),
	[TC_KERNEL_STATEDUMP_PROCESS_NET_NS] = NS_EVENT("net"),
	[TC_KERNEL_STATEDUMP_PROCESS_PID_NS] = EVENT("process_pid_ns", pid_ns),
	[TC_KERNEL_STATEDUMP_PROCESS_USER_NS] = EVENT("process_user_ns", user_ns),
	[TC_KERNEL_STATEDUMP_PROCESS_UTS_NS] = NS_EVENT("uts"),
	[TC_KERNEL_STATEDUMP_PROCESS_TIME_NS] = NS_EVENT("time"),
	[TC_KERNEL_STATEDUMP_FILE_DESCRIPTOR] = EVENT("file_descriptor", file_descriptor),
	[TC_KERNEL_STATEDUMP_VM_MAP] = EVENT("vm_map", vm_map),
	[TC_KERNEL_STATEDUMP_NETWORK_INTERFACE] = EVENT("network_interface", network_interface),
	[TC_KERNEL_STATEDUMP_BLOCK_DEVICE] = EVENT("block_device", block_device),
	[TC_KERNEL_STATEDUMP_INTERRUPT] = EVENT("interrupt", interrupt),
	[TC_KERNEL_STATEDUMP_CPU_TOPOLOGY] = EVENT("cpu_topology", cpu_topology),
};

const struct tc_kernel_statedump_event *
tc_kernel_statedump_event(unsigned int kind)
{
	return kind < TC_KERNEL_STATEDUMP_KINDS ? &events[kind] : NULL;
}

bool
tc_kernel_statedump_payload_parse(unsigned int kind, const uint8_t *payload, size_t len,
				  size_t *used)
{
	const struct tc_kernel_statedump_event *event = tc_kernel_statedump_event(kind);
	size_t at = 0;

	if (!event)
		return false;
	for (unsigned int i = 0; i < event->n_fields; i++) {
		const struct tc_kernel_statedump_field *field = &event->fields[i];
		const uint8_t *nul;

		if (field->type != TC_KERNEL_STATEDUMP_STRING) {
			if (field->size > len - at)
				return false;
			at += field->size;
			continue;
		}
		nul = memchr(payload + at, '\0', len - at);
		if (!nul)
			return false;
		at = (size_t)(nul - payload) + 1;
	}
	*used = at;
	return true;
}

void
tc_kernel_statedump_record_begin(struct tc_kernel_statedump_record *record, unsigned int kind)
{
	record->id = TC_KERNEL_STATEDUMP_MARKER | (kind & 0xffu);
	record->len = 0;
}

bool
tc_kernel_statedump_record_int(struct tc_kernel_statedump_record *record, uint64_t value,
			       unsigned int size, bool big_endian)
{
	if (size > 8 || size > sizeof(record->payload) - record->len)
		return false;
	for (unsigned int i = 0; i < size; i++) {
		unsigned int shift = 8 * (big_endian ? size - 1 - i : i);

		record->payload[record->len++] = (uint8_t)(value >> shift);
	}
	return true;
}

bool
tc_kernel_statedump_record_text(struct tc_kernel_statedump_record *record, const char *text,
				unsigned int size)
{
	size_t len = strnlen(text, size);

	if (size > sizeof(record->payload) - record->len)
		return false;
	memcpy(record->payload + record->len, text, len);
	memset(record->payload + record->len + len, 0, size - len);
	record->len += size;
	return true;
}

bool
tc_kernel_statedump_record_string(struct tc_kernel_statedump_record *record, const char *text,
				  size_t reserve)
{
	size_t room = sizeof(record->payload) - record->len, len;

	if (reserve >= room)
		return false;
	len = strnlen(text, room - reserve - 1);
	memcpy(record->payload + record->len, text, len);
	record->payload[record->len + len] = '\0';
	record->len += len + 1;
	return true;
}
