/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The own-process tier's system call events (tc-consumerd-kernel-own-syscall.h).
 *
 * Socket addresses are written as lttng-modules' connect and accept
 * overrides write them: family, the port in network byte order, then
 * v4addr (4 bytes) or v6addr (8 big-endian 16-bit words) as sequences
 * whose length is 0 for any other family or a short address.
 */
#include "tc-consumerd-kernel-own-syscall.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#define SOCKADDR_IN_SIZE 16u  /* sizeof(struct sockaddr_in) */
#define SOCKADDR_IN6_SIZE 28u /* sizeof(struct sockaddr_in6) */
#define FAULT_TEXT "(fault)"

/* Appends before, name and after to text at *len; false when they do
 * not fit. */
static bool
append(char *text, size_t size, size_t *len, const char *before, const char *name,
       const char *after)
{
	int printed = snprintf(text + *len, size - *len, "%s%s%s", before, name, after);

	if (printed < 0 || (size_t)printed >= size - *len)
		return false;
	*len += (size_t)printed;
	return true;
}

/* A socket address's fields, the port named port. */
static bool
declare_sockaddr(char *text, size_t size, size_t *len, const char *port)
{
	return append(text, size, len,
		      "\t\tuint16_t _family;\n"
		      "\t\tinteger { size = 16; align = 8; signed = false; byte_order = be; } _",
		      port,
		      ";\n\t\tuint32_t _v4addr_length;\n\t\tuint8_t _v4addr[_v4addr_length];\n"
		      "\t\tuint32_t _v6addr_length;\n"
		      "\t\tinteger { size = 16; align = 8; signed = false; byte_order = be; "
		      "base = 16; } _v6addr[_v6addr_length];\n");
}

/* The CTF declaration of field. */
static bool
declare_field(char *text, size_t size, size_t *len, const struct tc_syscall_args_field *field)
{
	const char *type;

	switch (field->kind) {
	case TC_SYSCALL_ARGS_INT:
	case TC_SYSCALL_ARGS_USER_INT:
		type = "int32_t";
		break;
	case TC_SYSCALL_ARGS_UINT:
		type = "uint32_t";
		break;
	case TC_SYSCALL_ARGS_LONG:
		type = "int64_t";
		break;
	case TC_SYSCALL_ARGS_ULONG:
		type = "uint64_t";
		break;
	case TC_SYSCALL_ARGS_HEX:
		type = "hex64_t";
		break;
	case TC_SYSCALL_ARGS_STRING:
		type = "string { encoding = UTF8; }";
		break;
	case TC_SYSCALL_ARGS_INT_PAIR:
		return append(text, size, len, "\t\tint32_t _", field->name, "[2];\n");
	case TC_SYSCALL_ARGS_SOCKADDR_OUT:
		return append(text, size, len, "\t\tint32_t _upeer_addrlen;\n", "", "") &&
		       declare_sockaddr(text, size, len, field->name);
	case TC_SYSCALL_ARGS_SOCKADDR:
		return declare_sockaddr(text, size, len, field->name);
	default:
		return false;
	}
	return append(text, size, len, "\t\t", type, " _") &&
	       append(text, size, len, "", field->name, ";\n");
}

int
tc_consumerd_kernel_own_syscall_declare(char *text, size_t size, const char *name,
					bool is_exit, uint32_t id,
					const struct tc_syscall_args_layout *layout)
{
	size_t len = 0;
	int printed = snprintf(text, size,
			       "\nevent {\n\tname = \"syscall_%s_%s\";\n\tid = %u;\n"
			       "\tstream_id = 0;\n\tfields := struct {\n%s",
			       is_exit ? "exit" : "entry", tc_syscall_args_lttng_name(name), id,
			       is_exit ? "\t\tint64_t _ret;\n" : "");

	if (printed < 0 || (size_t)printed >= size)
		return -ENAMETOOLONG;
	len = (size_t)printed;
	if (!layout && !is_exit && !append(text, size, &len, "\t\thex64_t _args[6];\n", "", ""))
		return -ENAMETOOLONG;
	for (unsigned int i = 0; layout && i < layout->count; i++)
		if (!declare_field(text, size, &len, &layout->fields[i]))
			return -ENAMETOOLONG;
	if (!append(text, size, &len, "\t};\n};\n", "", ""))
		return -ENAMETOOLONG;
	return (int)len;
}

static uint8_t *
put(uint8_t *out, const void *value, size_t size)
{
	memcpy(out, value, size);
	return out + size;
}

/* The text copied, up to its NUL or data_len bytes, then a NUL. */
static uint8_t *
put_string(uint8_t *out, const uint8_t *data, uint32_t data_len)
{
	const uint8_t *nul = data_len ? memchr(data, '\0', data_len) : NULL;
	size_t len = nul ? (size_t)(nul - data) : data_len;

	if (data_len == 0)
		return put(out, FAULT_TEXT, sizeof(FAULT_TEXT));
	out = put(out, data, len);
	*out = '\0';
	return out + 1;
}

/* A socket address of len bytes, as lttng-modules writes it. */
static uint8_t *
put_sockaddr(uint8_t *out, const uint8_t *addr, uint32_t len)
{
	static const uint8_t none[SOCKADDR_IN6_SIZE];
	uint16_t family = 0;
	uint32_t v4_len = 0, v6_len = 0;
	uint8_t port[2] = {0, 0};

	if (!addr || len == 0) {
		addr = none;
		len = 0;
	}
	if (len >= sizeof(family))
		memcpy(&family, addr, sizeof(family));
	if ((family == AF_INET && len >= SOCKADDR_IN_SIZE) ||
	    (family == AF_INET6 && len >= SOCKADDR_IN6_SIZE)) {
		memcpy(port, addr + 2, 2);
		v4_len = family == AF_INET ? 4 : 0;
		v6_len = family == AF_INET6 ? 8 : 0;
	}
	out = put(out, &family, 2);
	out = put(out, port, 2);
	out = put(out, &v4_len, 4);
	out = put(out, addr + 4, v4_len);
	out = put(out, &v6_len, 4);
	/* sin6_addr follows sin6_flowinfo. */
	return put(out, addr + 8, v6_len * 2);
}

static uint8_t *
put_copied(uint8_t *out, const struct tc_syscall_args_field *field, const uint8_t *data,
	   uint32_t data_len)
{
	int32_t value32 = 0, pair[2] = {0, 0};

	switch (field->kind) {
	case TC_SYSCALL_ARGS_STRING:
		return put_string(out, data, data_len);
	case TC_SYSCALL_ARGS_USER_INT:
		if (data_len == sizeof(value32))
			memcpy(&value32, data, sizeof(value32));
		return put(out, &value32, sizeof(value32));
	case TC_SYSCALL_ARGS_INT_PAIR:
		if (data_len == sizeof(pair))
			memcpy(pair, data, sizeof(pair));
		return put(out, pair, sizeof(pair));
	case TC_SYSCALL_ARGS_SOCKADDR:
		return put_sockaddr(out, data, data_len);
	case TC_SYSCALL_ARGS_SOCKADDR_OUT:
		/* The length the call wrote back, then the address. */
		if (data_len >= sizeof(value32))
			memcpy(&value32, data, sizeof(value32));
		out = put(out, &value32, sizeof(value32));
		return data_len > sizeof(value32)
			   ? put_sockaddr(out, data + sizeof(value32), data_len - sizeof(value32))
			   : put_sockaddr(out, NULL, 0);
	default:
		return out;
	}
}

static uint8_t *
put_field(uint8_t *out, const struct tc_syscall_args_field *field,
	  const struct tc_own_record *head, const uint8_t *data, uint32_t data_len)
{
	uint64_t value = field->arg < 6 ? head->args[field->arg] : 0;
	uint32_t value32 = (uint32_t)value;

	switch (field->kind) {
	case TC_SYSCALL_ARGS_INT:
	case TC_SYSCALL_ARGS_UINT:
		return put(out, &value32, 4);
	case TC_SYSCALL_ARGS_LONG:
	case TC_SYSCALL_ARGS_ULONG:
	case TC_SYSCALL_ARGS_HEX:
		return put(out, &value, 8);
	default:
		return put_copied(out, field, data, data_len);
	}
}

uint8_t *
tc_consumerd_kernel_own_syscall_put(uint8_t *out, const struct tc_syscall_args_layout *layout,
				    bool is_exit, const struct tc_own_record *head,
				    const uint8_t *data, uint32_t data_len)
{
	if (data_len > TC_OWN_SYSCALL_DATA_MAX || !data)
		data_len = 0;
	if (is_exit)
		out = put(out, &head->value, 8);
	if (!layout)
		return is_exit ? out : put(out, head->args, sizeof(head->args));
	for (unsigned int i = 0; i < layout->count && i < TC_SYSCALL_ARGS_FIELDS_MAX; i++)
		out = put_field(out, &layout->fields[i], head, data, data_len);
	return out;
}
