/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define G_LOG_DOMAIN "tracectld-agent"

#include "tc-agent-protocol.h"

#include <string.h>

#include "tc-error.h"

static guint32
read_u32(const guint8 *bytes)
{
	guint32 value;

	memcpy(&value, bytes, sizeof(value));
	return GUINT32_FROM_BE(value);
}

static void
append_u32(GByteArray *array, guint32 value)
{
	guint32 be = GUINT32_TO_BE(value);

	g_byte_array_append(array, (const guint8 *)&be, sizeof(be));
}

static void
append_u64(GByteArray *array, guint64 value)
{
	guint64 be = GUINT64_TO_BE(value);

	g_byte_array_append(array, (const guint8 *)&be, sizeof(be));
}

gboolean
tc_agent_protocol_parse_registration(const guint8 *bytes, TcAgentRegistration *reg,
				     GError **error)
{
	guint32 domain = read_u32(bytes), pid = read_u32(bytes + 4);

	reg->major = read_u32(bytes + 8);
	reg->minor = read_u32(bytes + 12);
	if (tc_agent_domain_name(domain) == NULL) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "an agent of unknown domain %u", domain);
		return FALSE;
	}
	if (pid == 0 || pid > G_MAXINT32) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT, "pid %u is no pid", pid);
		return FALSE;
	}
	if (reg->major != TC_AGENT_MAJOR) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
			    "agent protocol %u.%u, where tracectld speaks %d.x", reg->major,
			    reg->minor, TC_AGENT_MAJOR);
		return FALSE;
	}
	reg->domain = domain;
	reg->pid = (pid_t)pid;
	return TRUE;
}

static GByteArray *
command_new(TcAgentCommand command, gsize data_size)
{
	GByteArray *array = g_byte_array_sized_new(16 + data_size);

	append_u64(array, data_size);
	append_u32(array, command);
	append_u32(array, 0); /* the command's version */
	return array;
}

/* A name in its fixed field, NUL-padded, cut to fit with its NUL. */
static void
append_name(GByteArray *array, const char *name)
{
	guint8 field[TC_AGENT_NAME_MAX] = {0};

	memcpy(field, name, MIN(strlen(name), sizeof(field) - 1));
	g_byte_array_append(array, field, sizeof(field));
}

GBytes *
tc_agent_protocol_enable(const char *logger, int loglevel, TcAgentLoglevelType loglevel_type,
			 const char *filter)
{
	gsize filter_size = filter ? strlen(filter) + 1 : 0;
	GByteArray *array = command_new(TC_AGENT_CMD_ENABLE, 8 + TC_AGENT_NAME_MAX + 4 + filter_size);

	append_u32(array, (guint32)loglevel);
	append_u32(array, loglevel_type);
	append_name(array, logger);
	append_u32(array, filter_size);
	if (filter)
		g_byte_array_append(array, (const guint8 *)filter, filter_size);
	return g_byte_array_free_to_bytes(array);
}

GBytes *
tc_agent_protocol_disable(const char *logger)
{
	GByteArray *array = command_new(TC_AGENT_CMD_DISABLE, TC_AGENT_NAME_MAX);

	append_name(array, logger);
	return g_byte_array_free_to_bytes(array);
}

GBytes *
tc_agent_protocol_command(TcAgentCommand command)
{
	return g_byte_array_free_to_bytes(command_new(command, 0));
}

guint32
tc_agent_protocol_parse_status(const guint8 *bytes)
{
	return read_u32(bytes);
}

gboolean
tc_agent_protocol_parse_list_head(const guint8 *bytes, guint32 *size, guint32 *count,
				  GError **error)
{
	*size = read_u32(bytes);
	*count = read_u32(bytes + 4);
	if (*size > TC_AGENT_LIST_BYTES_MAX || *count > TC_AGENT_LIST_NAMES_MAX ||
	    *count > *size) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "a listing of %u names in %u bytes (at most %d in %d)", *count, *size,
			    TC_AGENT_LIST_NAMES_MAX, TC_AGENT_LIST_BYTES_MAX);
		return FALSE;
	}
	return TRUE;
}

/* UTF-8 without control characters, C1 ones included (U+009B is a
 * terminal's escape on its own): the names reach `tracectl list -p`. */
static gboolean
is_printable(const char *name)
{
	if (!g_utf8_validate(name, -1, NULL))
		return FALSE;
	for (const char *c = name; *c; c = g_utf8_next_char(c))
		if (g_unichar_iscntrl(g_utf8_get_char(c)))
			return FALSE;
	return TRUE;
}

char **
tc_agent_protocol_parse_list_names(const guint8 *bytes, guint32 size, guint32 count,
				   GError **error)
{
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	guint32 offset = 0;

	while (offset < size) {
		const guint8 *end = memchr(bytes + offset, '\0', size - offset);
		const char *name = (const char *)bytes + offset;

		if (end == NULL || names->len == count) {
			g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    "a listing's names do not end where it said (%u names in %u "
				    "bytes)",
				    count, size);
			return NULL;
		}
		if (!is_printable(name)) {
			g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    "a listing's name %u is not printable UTF-8", names->len);
			return NULL;
		}
		g_ptr_array_add(names, g_strdup(name));
		offset = (guint32)(end - bytes) + 1;
	}
	if (names->len != count) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "a listing announced %u names and brought %u", count, names->len);
		return NULL;
	}
	g_ptr_array_add(names, NULL);
	return (char **)g_ptr_array_free(g_steal_pointer(&names), FALSE);
}
