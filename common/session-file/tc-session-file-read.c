/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * LTTng's session configuration file, read. The parser walks the tree
 * with one function per element type of session.xsd and refuses every
 * element it does not know or cannot honour, naming it by path and line:
 * a file is either loaded whole or not at all.
 */
#include "tc-session-file.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <string.h>

#include <gio/gio.h>

#include "tc-libxml.h"
#include "tc-perf-counter.h"

#define SF_ERROR TC_SESSION_FILE_ERROR
#define SF_INVALID TC_SESSION_FILE_ERROR_INVALID

/* Errors: a refusal knows its line, so that a log can give it apart. */

typedef struct {
	long line;
} TcSessionFileErrorPrivate;

static void
tc_session_file_error_private_init(TcSessionFileErrorPrivate *priv)
{
	priv->line = 0;
}

static void
tc_session_file_error_private_copy(const TcSessionFileErrorPrivate *src,
				   TcSessionFileErrorPrivate *dest)
{
	dest->line = src->line;
}

static void
tc_session_file_error_private_clear(TcSessionFileErrorPrivate *priv)
{
	(void)priv;
}

G_DEFINE_EXTENDED_ERROR(TcSessionFileError, tc_session_file_error)

long
tc_session_file_error_line(const GError *error)
{
	TcSessionFileErrorPrivate *priv = error ? tc_session_file_error_get_private(error) : NULL;

	return priv ? priv->line : 0;
}

static void
set_error_line(GError *error, long line)
{
	TcSessionFileErrorPrivate *priv = tc_session_file_error_get_private(error);

	if (priv)
		priv->line = line;
}

static const char *const ust_contexts[] = {
    "vpid",   "vtid",      "procname", "pthread_id", "vuid",	"veuid",   "vsuid",
    "vgid",   "vegid",     "vsgid",    "cgroup_ns",  "ipc_ns",	"mnt_ns",  "net_ns",
    "pid_ns", "time_ns",   "user_ns",  "uts_ns",     "ip",	NULL};
static const char *const kernel_contexts[] = {"pid", "tid", "procname", "prio", NULL};

/* Refusals name the element: /sessions/session[1]/domains/domain[2]/type. */

static char *
node_path(xmlNode *node)
{
	g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func(g_free);
	GString *path = g_string_new(NULL);

	for (; node && node->type == XML_ELEMENT_NODE; node = node->parent) {
		guint index = 1, count = 0;

		for (xmlNode *s = node->parent ? node->parent->children : node; s; s = s->next) {
			if (s->type != XML_ELEMENT_NODE || !sym_xmlStrEqual(s->name, node->name))
				continue;
			count++;
			if (s == node)
				index = count;
		}
		g_ptr_array_add(parts, count > 1 ? g_strdup_printf("%s[%u]", node->name, index)
						 : g_strdup((const char *)node->name));
	}
	for (guint i = parts->len; i > 0; i--)
		g_string_append_printf(path, "/%s", (char *)g_ptr_array_index(parts, i - 1));
	return g_string_free(path, FALSE);
}

static gboolean G_GNUC_PRINTF(3, 4)
refuse(xmlNode *node, GError **error, const char *format, ...)
{
	g_autofree char *path = node_path(node);
	g_autofree char *why = NULL;
	va_list args;

	va_start(args, format);
	why = g_strdup_vprintf(format, args);
	va_end(args);
	g_set_error(error, SF_ERROR, SF_INVALID, "%s (line %ld): %s", path, sym_xmlGetLineNo(node),
		    why);
	if (error)
		set_error_line(*error, sym_xmlGetLineNo(node));
	return FALSE;
}

static gboolean
is(xmlNode *node, const char *name)
{
	return sym_xmlStrEqual(node->name, (const xmlChar *)name);
}

/* Lists (events, channels...) repeat their element: no twice check. */
static gboolean
next_item(xmlNode **cursor, xmlNode *parent, const char *name, xmlNode **element,
	  GError **error)
{
	*element = NULL;
	for (xmlNode *c = *cursor; c; c = c->next) {
		if (c->type == XML_ELEMENT_NODE) {
			*cursor = c->next;
			*element = c;
			return !name || is(c, name) ? TRUE : refuse(c, error, "not allowed here");
		}
		if (c->type == XML_COMMENT_NODE)
			continue;
		if (c->type == XML_TEXT_NODE) {
			g_autofree char *text = (char *)sym_xmlNodeGetContent(c);

			if (text && *g_strstrip(text) == '\0')
				continue;
		}
		return refuse(parent, error, "unexpected text or node");
	}
	return TRUE;
}

/* The next element child from *cursor on; text between elements must be
 * blank. */
static gboolean
next_element(xmlNode **cursor, xmlNode *parent, xmlNode **element, GError **error)
{
	if (!next_item(cursor, parent, NULL, element, error))
		return FALSE;
	for (xmlNode *s = parent->children; *element && s != *element; s = s->next)
		if (s->type == XML_ELEMENT_NODE && is(s, (const char *)(*element)->name))
			return refuse(*element, error, "element given twice");
	return TRUE;
}

/* The element's text; it must hold no element. */
static char *
text_of(xmlNode *node, GError **error)
{
	g_autofree char *text = NULL;

	for (xmlNode *c = node->children; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE) {
			refuse(c, error, "not allowed here");
			return NULL;
		}
	text = (char *)sym_xmlNodeGetContent(node);
	return g_strdup(text ? text : "");
}

static char *
trimmed_text_of(xmlNode *node, GError **error)
{
	char *text = text_of(node, error);

	return text ? g_strstrip(text) : NULL;
}

static gboolean
u64_of(xmlNode *node, guint64 max, guint64 *value, GError **error)
{
	g_autofree char *text = trimmed_text_of(node, error);

	if (!text)
		return FALSE;
	if (!g_ascii_string_to_unsigned(text, 10, 0, max, value, NULL))
		return refuse(node, error, "'%.40s' is not a number from 0 to %" G_GUINT64_FORMAT,
			      text, max);
	return TRUE;
}

static gboolean
u32_of(xmlNode *node, guint32 *value, GError **error)
{
	guint64 v;

	if (!u64_of(node, G_MAXUINT32, &v, error))
		return FALSE;
	*value = (guint32)v;
	return TRUE;
}

static gboolean
bool_of(xmlNode *node, gboolean *value, GError **error)
{
	g_autofree char *text = trimmed_text_of(node, error);

	if (!text)
		return FALSE;
	if (g_str_equal(text, "true") || g_str_equal(text, "1"))
		*value = TRUE;
	else if (g_str_equal(text, "false") || g_str_equal(text, "0"))
		*value = FALSE;
	else
		return refuse(node, error, "'%.40s' is not true or false", text);
	return TRUE;
}

/* Elements whose value must be what tracectl does anyway. */
static gboolean
expect_text(xmlNode *node, const char *const *accepted, GError **error)
{
	g_autofree char *text = trimmed_text_of(node, error);

	if (!text)
		return FALSE;
	if (g_strv_contains(accepted, text))
		return TRUE;
	return refuse(node, error, "'%.40s' is not supported by tracectl", text);
}

static gboolean
name_of(xmlNode *node, char **name, GError **error)
{
	g_autofree char *text = trimmed_text_of(node, error);

	if (!text)
		return FALSE;
	if (*text == '\0' || strlen(text) > 255)
		return refuse(node, error, "a name of 1 to 255 characters is needed");
	g_free(*name);
	*name = g_steal_pointer(&text);
	return TRUE;
}

/* Events. */

static gboolean
parse_exclusions(xmlNode *node, TcFileEvent *event, GError **error)
{
	g_autoptr(GPtrArray) list = g_ptr_array_new_with_free_func(g_free);
	xmlNode *cursor = node->children, *c;

	while (next_item(&cursor, node, "exclusion", &c, error) && c) {
		char *text = trimmed_text_of(c, error);

		if (!text)
			return FALSE;
		g_ptr_array_add(list, text);
	}
	if (error && *error)
		return FALSE;
	g_ptr_array_add(list, NULL);
	g_strfreev(event->exclusions);
	event->exclusions = (char **)g_ptr_array_steal(list, NULL);
	return TRUE;
}

static gboolean
parse_probe_attributes(xmlNode *node, TcFileEvent *event, GError **error)
{
	g_autofree char *symbol = NULL;
	guint64 address = 0, offset = 0;
	xmlNode *cursor = node->children, *c;

	while (next_element(&cursor, node, &c, error) && c) {
		if (is(c, "symbol_name")) {
			if (!name_of(c, &symbol, error))
				return FALSE;
		} else if (is(c, "address")) {
			if (!u64_of(c, G_MAXUINT64, &address, error))
				return FALSE;
		} else if (is(c, "offset")) {
			if (!u64_of(c, G_MAXUINT64, &offset, error))
				return FALSE;
		} else {
			return refuse(c, error, "not allowed here");
		}
	}
	if (error && *error)
		return FALSE;
	/* The location says "symbol+offset" or "0xADDR": a symbol of either
	 * form would be read back as another probe. */
	if (symbol && (strchr(symbol, '+') || g_str_has_prefix(symbol, "0x")))
		return refuse(node, error, "'%.40s' is not a symbol name", symbol);
	if (symbol && *symbol && offset)
		event->location = g_strdup_printf("%s+0x%" G_GINT64_MODIFIER "x", symbol, offset);
	else if (symbol && *symbol)
		event->location = g_strdup(symbol);
	else if (address && offset > G_MAXUINT64 - address)
		return refuse(node, error, "the address and the offset add up past 2^64");
	else if (address)
		event->location = g_strdup_printf("0x%" G_GINT64_MODIFIER "x", address + offset);
	else
		return refuse(node, error, "a symbol_name or an address is needed");
	return TRUE;
}

static gboolean
parse_uprobe_attributes(xmlNode *node, TcFileEvent *event, GError **error)
{
	static const char *const methods[] = {"ELF", "DEFAULT", NULL};
	g_autofree char *path = NULL, *function = NULL;
	xmlNode *cursor = node->children, *c;

	while (next_element(&cursor, node, &c, error) && c) {
		if (is(c, "lookup_method")) {
			if (!expect_text(c, methods, error))
				return FALSE;
		} else if (is(c, "binary_path")) {
			g_free(path);
			if (!(path = trimmed_text_of(c, error)))
				return FALSE;
		} else if (is(c, "function_name")) {
			g_free(function);
			if (!(function = trimmed_text_of(c, error)))
				return FALSE;
		} else {
			return refuse(c, error, "not allowed here");
		}
	}
	if (error && *error)
		return FALSE;
	if (!path || !function || *path != '/' || !*function)
		return refuse(node, error, "an absolute binary_path and a function_name are needed");
	/* The location is PATH:FUNCTION, cut at its colon: one in either part
	 * would make it another probe, here and when the file is written. */
	if (strchr(path, ':') || strchr(function, ':'))
		return refuse(node, error, "a binary_path or function_name with ':' cannot be probed");
	event->location = g_strdup_printf("%s:%s", path, function);
	return TRUE;
}

/* LTTng's SDT probe: sdt:PATH:PROVIDER:NAME, the location the helper
 * takes (tc-kernel-names.h checks it when the probe is added). */
static gboolean
parse_sdt_attributes(xmlNode *node, TcFileEvent *event, GError **error)
{
	static const char *const methods[] = {"SDT", NULL};
	g_autofree char *path = NULL, *provider = NULL, *name = NULL;
	xmlNode *cursor = node->children, *c;

	while (next_element(&cursor, node, &c, error) && c) {
		char **text = is(c, "binary_path")     ? &path
			      : is(c, "provider_name") ? &provider
			      : is(c, "probe_name")    ? &name
						       : NULL;

		if (is(c, "lookup_method")) {
			if (!expect_text(c, methods, error))
				return FALSE;
		} else if (text) {
			g_free(*text);
			if (!(*text = trimmed_text_of(c, error)))
				return FALSE;
		} else {
			return refuse(c, error, "not allowed here");
		}
	}
	if (error && *error)
		return FALSE;
	if (!path || !provider || !name || *path != '/' || !*provider || !*name)
		return refuse(node, error,
			      "an absolute binary_path, a provider_name and a probe_name are needed");
	if (strchr(path, ':') || strchr(provider, ':') || strchr(name, ':'))
		return refuse(node, error, "an SDT probe's parts cannot hold ':'");
	event->location = g_strdup_printf("sdt:%s:%s:%s", path, provider, name);
	return TRUE;
}

static gboolean
parse_event_attributes(xmlNode *node, TcFileEvent *event, GError **error)
{
	xmlNode *cursor = node->children, *c;

	if (!next_element(&cursor, node, &c, error))
		return FALSE;
	if (!c)
		return refuse(node, error, "empty");
	if (is(c, "probe_attributes") &&
	    (event->type == TC_FILE_EVENT_KPROBE || event->type == TC_FILE_EVENT_KRETPROBE)) {
		if (!parse_probe_attributes(c, event, error))
			return FALSE;
	} else if (is(c, "userspace_probe_function_attributes") &&
		   event->type == TC_FILE_EVENT_UPROBE) {
		if (!parse_uprobe_attributes(c, event, error))
			return FALSE;
	} else if (is(c, "userspace_probe_tracepoint_attributes") &&
		   event->type == TC_FILE_EVENT_UPROBE) {
		if (!parse_sdt_attributes(c, event, error))
			return FALSE;
	} else {
		return refuse(c, error, "not supported by tracectl for this event type");
	}
	if (!next_element(&cursor, node, &c, error))
		return FALSE;
	return c ? refuse(c, error, "not allowed here") : TRUE;
}

static gboolean
parse_event_type(xmlNode *node, gboolean kernel, TcFileEvent *event, GError **error)
{
	g_autofree char *text = trimmed_text_of(node, error);

	if (!text)
		return FALSE;
	if (g_str_equal(text, "TRACEPOINT"))
		event->type = TC_FILE_EVENT_TRACEPOINT;
	else if (kernel && g_str_equal(text, "SYSCALL"))
		event->type = TC_FILE_EVENT_SYSCALL;
	else if (kernel && (g_str_equal(text, "KPROBE") || g_str_equal(text, "PROBE")))
		event->type = TC_FILE_EVENT_KPROBE;
	else if (kernel && g_str_equal(text, "KRETPROBE"))
		event->type = TC_FILE_EVENT_KRETPROBE;
	else if (kernel && g_str_equal(text, "USERSPACE_PROBE"))
		event->type = TC_FILE_EVENT_UPROBE;
	else
		return refuse(node, error, "event type '%.40s' is not supported by tracectl in the %s domain",
			      text, kernel ? "kernel" : "user-space");
	return TRUE;
}

/* An agent's event, once read: a logger of any level in the agent's
 * numbering, no exclusions, and the caller's filter of the one lttng
 * saved. */
static gboolean
finish_agent_event(xmlNode *node, xmlNode *level_node, const char *loglevel_type,
		   gboolean has_loglevel, int loglevel, TcFileEvent *event, GError **error)
{
	char *filter;

	if (event->exclusions[0])
		return refuse(node, error, "LTTng's agents have no exclusions");
	if (!g_str_equal(loglevel_type, "ALL")) {
		if (!has_loglevel)
			return refuse(level_node, error, "%s needs a loglevel", loglevel_type);
		event->has_loglevel = TRUE;
		event->loglevel = loglevel;
		event->loglevel_only = g_str_equal(loglevel_type, "SINGLE");
	}
	filter = tc_session_file_agent_filter(event);
	g_free(event->filter);
	event->filter = filter;
	return TRUE;
}

static gboolean
parse_event(xmlNode *node, gboolean kernel, TcFileChannel *channel, GError **error)
{
	g_autoptr(GString) loglevel_type = g_string_new("ALL");
	xmlNode *cursor = node->children, *c, *attributes = NULL, *level_node = node;
	TcFileEvent *event = tc_file_event_new(NULL, TC_FILE_EVENT_TRACEPOINT);
	gint64 loglevel = -1;
	gboolean has_loglevel = FALSE;

	g_ptr_array_add(channel->events, event);
	while (next_element(&cursor, node, &c, error) && c) {
		if (is(c, "name")) {
			if (!name_of(c, &event->pattern, error))
				return FALSE;
		} else if (is(c, "enabled")) {
			gboolean enabled;

			if (!bool_of(c, &enabled, error))
				return FALSE;
			if (!enabled)
				return refuse(c, error, "disabled events are not supported by tracectl");
		} else if (is(c, "type")) {
			if (!parse_event_type(c, kernel, event, error))
				return FALSE;
		} else if (is(c, "loglevel_type")) {
			static const char *const types[] = {"ALL", "RANGE", "SINGLE", NULL};
			g_autofree char *text = trimmed_text_of(c, error);

			if (!text)
				return FALSE;
			if (!g_strv_contains(types, text))
				return refuse(c, error, "'%.40s' is not ALL, RANGE or SINGLE", text);
			g_string_assign(loglevel_type, text);
			level_node = c;
		} else if (is(c, "loglevel")) {
			g_autofree char *text = trimmed_text_of(c, error);

			if (!text)
				return FALSE;
			if (channel->agent) {
				if (!g_ascii_string_to_signed(text, 10, G_MININT32, G_MAXINT32,
							      &loglevel, NULL))
					return refuse(c, error, "'%.40s' is not a log level", text);
				has_loglevel = TRUE;
			} else if (!g_ascii_string_to_signed(text, 10, -1, 14, &loglevel, NULL)) {
				return refuse(c, error, "'%.40s' is not a log level from -1 to 14", text);
			}
		} else if (is(c, "filter")) {
			g_free(event->filter);
			if (!(event->filter = text_of(c, error)))
				return FALSE;
		} else if (is(c, "exclusions")) {
			if (!parse_exclusions(c, event, error))
				return FALSE;
		} else if (is(c, "attributes")) {
			attributes = c;
		} else {
			return refuse(c, error, "not allowed here");
		}
	}
	if (error && *error)
		return FALSE;
	if (!event->pattern)
		return refuse(node, error, "the event has no name");
	if (channel->agent)
		return finish_agent_event(node, level_node, loglevel_type->str, has_loglevel,
					  (int)loglevel, event, error);
	if (!g_str_equal(loglevel_type->str, "ALL")) {
		if (kernel)
			return refuse(level_node, error, "kernel events have no log level");
		if (loglevel < 0)
			return refuse(level_node, error, "%s needs a loglevel from 0 to 14",
				      loglevel_type->str);
		event->loglevel = (int)loglevel;
		event->loglevel_only = g_str_equal(loglevel_type->str, "SINGLE");
	}
	if (kernel && event->exclusions[0])
		return refuse(node, error, "kernel events have no exclusions");
	if (event->type == TC_FILE_EVENT_KPROBE || event->type == TC_FILE_EVENT_KRETPROBE ||
	    event->type == TC_FILE_EVENT_UPROBE) {
		if (!attributes)
			return refuse(node, error, "a probe needs its attributes");
		if (event->filter)
			return refuse(node, error, "tracectl has no filters on probes");
	} else if (attributes) {
		return refuse(attributes, error, "not supported by tracectl for this event type");
	}
	return attributes ? parse_event_attributes(attributes, event, error) : TRUE;
}

/* Channels. */

/* A user-space <perf> context: type, config and the field's name, as
 * lttng save writes a perf:thread: counter; kept as its spelling
 * (perf:thread:NAME, tc-perf-counter.h). */
static gboolean
parse_perf_context(xmlNode *node, TcFileChannel *channel, GError **error)
{
	xmlNode *cursor = node->children, *c;
	struct tc_perf_counter counter = {0};
	gboolean has_type = FALSE, has_config = FALSE, has_name = FALSE;
	char spelling[TC_PERF_COUNTER_NAME_MAX];

	while (next_element(&cursor, node, &c, error) && c) {
		g_autofree char *name = NULL;

		if (is(c, "type")) {
			if (!u32_of(c, &counter.type, error))
				return FALSE;
			has_type = TRUE;
		} else if (is(c, "config")) {
			if (!u64_of(c, G_MAXUINT64, &counter.config, error))
				return FALSE;
			has_config = TRUE;
		} else if (is(c, "name")) {
			if (!name_of(c, &name, error))
				return FALSE;
			if (strlen(name) >= sizeof(counter.name))
				return refuse(c, error, "a perf counter's name has at most %u characters",
					      TC_PERF_COUNTER_NAME_MAX - 1);
			memcpy(counter.name, name, strlen(name) + 1);
			has_name = TRUE;
		} else {
			return refuse(c, error, "not allowed here");
		}
	}
	if (error && *error)
		return FALSE;
	if (!has_type || !has_config || !has_name)
		return refuse(node, error, "a perf counter needs its type, config and name");
	if (tc_perf_counter_spell(&counter, spelling, sizeof(spelling)) < 0)
		return refuse(node, error,
			      "perf counter '%.40s' (type %u, config %" G_GUINT64_FORMAT
			      ") is no perf:thread: counter tracectl knows",
			      counter.name, counter.type, counter.config);
	g_ptr_array_add(channel->contexts, g_strdup(spelling));
	return TRUE;
}

/* A user-space <app> context, as lttng save writes $app.PROVIDER:NAME:
 * its provider_name and ctx_name; kept as that spelling, which the
 * front ends check as they check the call's (tc-channel-config.h). */
static gboolean
parse_app_context(xmlNode *node, TcFileChannel *channel, GError **error)
{
	xmlNode *cursor = node->children, *c;
	g_autofree char *provider = NULL, *name = NULL;

	while (next_element(&cursor, node, &c, error) && c) {
		if (is(c, "provider_name")) {
			if (!name_of(c, &provider, error))
				return FALSE;
		} else if (is(c, "ctx_name")) {
			if (!name_of(c, &name, error))
				return FALSE;
		} else {
			return refuse(c, error, "not allowed here");
		}
	}
	if (error && *error)
		return FALSE;
	if (!provider || !name)
		return refuse(node, error, "an application context needs its provider_name and "
					   "ctx_name");
	g_ptr_array_add(channel->contexts, g_strdup_printf("$app.%s:%s", provider, name));
	return TRUE;
}

static gboolean
parse_context(xmlNode *node, gboolean kernel, TcFileChannel *channel, GError **error)
{
	xmlNode *cursor = node->children, *c;
	g_autofree char *text = NULL, *lower = NULL;

	if (!next_element(&cursor, node, &c, error))
		return FALSE;
	if (!c)
		return refuse(node, error, "empty context");
	if (is(c, "perf") && !kernel) {
		if (!parse_perf_context(c, channel, error) || !next_element(&cursor, node, &c, error))
			return FALSE;
		return c ? refuse(c, error, "not allowed here") : TRUE;
	}
	if (is(c, "app") && !kernel) {
		if (!parse_app_context(c, channel, error) || !next_element(&cursor, node, &c, error))
			return FALSE;
		return c ? refuse(c, error, "not allowed here") : TRUE;
	}
	if (!is(c, "type"))
		return refuse(c, error, "%s contexts are not supported by tracectl%s", c->name,
			      kernel ? " in the kernel domain" : "");
	if (!(text = trimmed_text_of(c, error)))
		return FALSE;
	lower = g_ascii_strdown(text, -1);
	if (!g_strv_contains(kernel ? kernel_contexts : ust_contexts, lower))
		return refuse(c, error, "context '%.40s' is not supported by tracectl in the %s domain",
			      text, kernel ? "kernel" : "user-space");
	g_ptr_array_add(channel->contexts, g_steal_pointer(&lower));
	if (!next_element(&cursor, node, &c, error))
		return FALSE;
	return c ? refuse(c, error, "not allowed here") : TRUE;
}

static gboolean
parse_list(xmlNode *node, const char *item, gboolean kernel, TcFileChannel *channel,
	   gboolean (*parse)(xmlNode *, gboolean, TcFileChannel *, GError **), GError **error)
{
	xmlNode *cursor = node->children, *c;

	while (next_item(&cursor, node, item, &c, error) && c)
		if (!parse(c, kernel, channel, error))
			return FALSE;
	return !(error && *error);
}

static gboolean
must_be_zero(xmlNode *node, const char *why, GError **error)
{
	guint64 value;

	if (!u64_of(node, G_MAXUINT64, &value, error))
		return FALSE;
	return value == 0 ? TRUE : refuse(node, error, "%s", why);
}

static gboolean
parse_channel_element(xmlNode *c, gboolean kernel, TcFileChannel *channel, GError **error)
{
	static const char *const modes[] = {"DISCARD", "OVERWRITE", NULL};
	static const char *const outputs[] = {"MMAP", "SPLICE", NULL};

	if (is(c, "name"))
		return name_of(c, &channel->name, error);
	if (is(c, "enabled"))
		return bool_of(c, &channel->enabled, error);
	if (is(c, "overwrite_mode")) {
		g_autofree char *text = trimmed_text_of(c, error);

		if (!text || !expect_text(c, modes, error))
			return FALSE;
		channel->overwrite = g_str_equal(text, "OVERWRITE");
		if (channel->overwrite && kernel)
			return refuse(c, error, "tracectl's kernel channel does not overwrite");
		return TRUE;
	}
	if (is(c, "subbuffer_size"))
		return u64_of(c, G_MAXUINT64, &channel->subbuf_size, error);
	if (is(c, "subbuffer_count"))
		return u64_of(c, G_MAXUINT32, &channel->num_subbuf, error);
	if (is(c, "switch_timer_interval"))
		return u32_of(c, &channel->switch_timer_us, error) &&
		       (!kernel || channel->switch_timer_us == 0 ||
			refuse(c, error, "tracectl's kernel channel has no switch timer"));
	if (is(c, "read_timer_interval"))
		return u32_of(c, &channel->read_timer_us, error);
	if (is(c, "monitor_timer_interval"))
		return u64_of(c, G_MAXUINT32, &channel->monitor_timer_us, error);
	if (is(c, "blocking_timeout"))
		return must_be_zero(c, "tracectl channels never block", error);
	if (is(c, "output_type"))
		return expect_text(c, outputs, error);
	if (is(c, "tracefile_size"))
		return must_be_zero(c, "tracectl has no trace file size limit", error);
	if (is(c, "tracefile_count"))
		return must_be_zero(c, "tracectl has no trace file count limit", error);
	if (is(c, "live_timer_interval"))
		return u64_of(c, G_MAXUINT32, &(guint64){0}, error); /* the session's */
	if (is(c, "events"))
		return parse_list(c, "event", kernel, channel, parse_event, error);
	if (is(c, "contexts"))
		return parse_list(c, "context", kernel, channel, parse_context, error);
	return refuse(c, error, "not allowed here");
}

/* An agent's channel, once read: tracectl records its loggers in the
 * default channel, so there is nothing of its own to honour but its
 * events. */
static gboolean
finish_agent_channel(xmlNode *node, const TcFileChannel *channel, GError **error)
{
	const char *expected = tc_session_file_agent_channel(channel->agent);

	if (!g_str_equal(channel->name, expected))
		return refuse(node, error, "the %s domain's channel is %s, not '%.40s'",
			      tc_session_file_agent_type(channel->agent), expected, channel->name);
	if (!channel->enabled)
		return refuse(node, error,
			      "tracectl records the %s domain in channel0: it is not turned off "
			      "apart",
			      tc_session_file_agent_type(channel->agent));
	if (channel->contexts->len)
		return refuse(node, error, "the %s domain has no contexts of its own in tracectl",
			      tc_session_file_agent_type(channel->agent));
	return TRUE;
}

static gboolean
parse_channel(xmlNode *node, gboolean kernel, TcFileAgent agent, TcFileSession *session,
	      GError **error)
{
	TcFileChannel *channel = tc_file_channel_new(NULL, kernel);
	xmlNode *cursor = node->children, *c;

	channel->agent = agent;
	g_ptr_array_add(session->channels, channel);
	while (next_element(&cursor, node, &c, error) && c)
		if (!parse_channel_element(c, kernel, channel, error))
			return FALSE;
	if (error && *error)
		return FALSE;
	if (!channel->name)
		return refuse(node, error, "the channel has no name");
	if (kernel && !g_str_equal(channel->name, "channel0"))
		return refuse(node, error, "tracectl's kernel channel is channel0, not '%.40s'",
			      channel->name);
	return agent ? finish_agent_channel(node, channel, error) : TRUE;
}

/* Trackers. */

/* The reentrant lookups: the service reads files on worker threads, where
 * getpwnam()'s static result could be overwritten under us. The buffer
 * grows while the entry does not fit (a group of many members), to 1 MiB. */
static gboolean
user_id(const char *name, guint32 *id)
{
	struct passwd entry, *found = NULL;
	int status = ERANGE;

	for (gsize size = 4096; status == ERANGE && size <= 1024 * 1024; size *= 4) {
		g_autofree char *buffer = g_malloc(size);

		status = getpwnam_r(name, &entry, buffer, size, &found);
		if (status == 0 && found) {
			*id = found->pw_uid;
			return TRUE;
		}
	}
	return FALSE;
}

static gboolean
group_id(const char *name, guint32 *id)
{
	struct group entry, *found = NULL;
	int status = ERANGE;

	for (gsize size = 4096; status == ERANGE && size <= 1024 * 1024; size *= 4) {
		g_autofree char *buffer = g_malloc(size);

		status = getgrnam_r(name, &entry, buffer, size, &found);
		if (status == 0 && found) {
			*id = found->gr_gid;
			return TRUE;
		}
	}
	return FALSE;
}

static gboolean
tracker_value(xmlNode *node, const char *kind, guint32 *value, GError **error)
{
	xmlNode *cursor = node->children, *c;
	g_autofree char *text = NULL;
	guint64 number;

	if (!next_element(&cursor, node, &c, error))
		return FALSE;
	if (!c || !(is(c, "id") || is(c, "name")))
		return refuse(c ? c : node, error, "an id or a name is needed");
	if (!(text = trimmed_text_of(c, error)))
		return FALSE;
	if (is(c, "id")) {
		if (!g_ascii_string_to_unsigned(text, 10, 0, G_MAXUINT32 - 1, &number, NULL))
			return refuse(c, error, "'%.40s' is not an id", text);
		*value = (guint32)number;
	} else if (strchr(kind, 'u')) {
		if (!user_id(text, value))
			return refuse(c, error, "no user '%.40s'", text);
	} else if (strchr(kind, 'g')) {
		if (!group_id(text, value))
			return refuse(c, error, "no group '%.40s'", text);
	} else {
		return refuse(c, error, "a %s is an id", kind);
	}
	if (!next_element(&cursor, node, &c, error))
		return FALSE;
	return c ? refuse(c, error, "not allowed here") : TRUE;
}

/* "pid" of "pid_process_attr_tracker"; NULL for any other name, a name
 * shorter than the suffix included. */
static char *
tracker_kind(const char *name)
{
	static const char suffix[] = "_process_attr_tracker";
	gsize length = strlen(name);

	if (!g_str_has_suffix(name, suffix))
		return NULL;
	return g_strndup(name, length - (sizeof(suffix) - 1));
}

static gboolean
parse_tracker(xmlNode *node, gboolean kernel, TcFileSession *session, GError **error)
{
	g_autofree char *kind = tracker_kind((const char *)node->name);
	xmlNode *cursor = node->children, *values, *value_cursor, *c;
	TcFileTracker *tracker;

	if (!kind || !g_strv_contains(tc_file_tracker_kinds, kind))
		return refuse(node, error, "not allowed here");
	for (guint i = 0; i < session->trackers->len; i++) {
		TcFileTracker *other = g_ptr_array_index(session->trackers, i);

		if (other->kernel == kernel && g_str_equal(other->kind, kind))
			return refuse(node, error, "element given twice");
	}
	if (!next_element(&cursor, node, &values, error))
		return FALSE;
	if (!values || !is(values, "process_attr_values"))
		return refuse(values ? values : node, error, "process_attr_values is needed");
	tracker = tc_file_tracker_new(kernel, kind);
	g_ptr_array_add(session->trackers, tracker);
	value_cursor = values->children;
	while (next_item(&value_cursor, values, kind, &c, error) && c) {
		guint32 value;

		if (!tracker_value(c, kind, &value, error))
			return FALSE;
		g_array_append_val(tracker->values, value);
	}
	if (error && *error)
		return FALSE;
	if (!next_element(&cursor, node, &c, error))
		return FALSE;
	return c ? refuse(c, error, "not allowed here") : TRUE;
}

/* Domains. */

/* An agent's domain: lttng writes one in every file, empty unless the
 * session has loggers of the agent, then with the agent's one channel.
 * The agents have no trackers of their own (the user-space domain's
 * apply to their processes). */
static gboolean
parse_agent_domain(xmlNode *type, xmlNode *buffers, xmlNode *channels, xmlNode *trackers,
		   TcFileAgent agent, TcFileSession *session, GError **error)
{
	g_autofree char *buffer_text = trimmed_text_of(buffers, error);
	xmlNode *cursor, *c;

	if (!buffer_text)
		return FALSE;
	/* lttng writes the user-space domain's buffer type in the agents'
	 * too; their records go to the session's channel0 either way. */
	if (!g_str_equal(buffer_text, "PER_UID") && !g_str_equal(buffer_text, "PER_PID"))
		return refuse(buffers, error, "%s buffers are not supported by tracectl in the %s domain",
			      buffer_text, tc_session_file_agent_type(agent));
	if (trackers && sym_xmlFirstElementChild(trackers))
		return refuse(trackers, error, "the %s domain has no trackers of its own",
			      tc_session_file_agent_type(agent));
	for (guint i = 0; i < session->channels->len; i++)
		if (((TcFileChannel *)g_ptr_array_index(session->channels, i))->agent == agent)
			return refuse(type, error, "domain given twice");
	if (!channels)
		return TRUE;
	cursor = channels->children;
	if (!next_item(&cursor, channels, "channel", &c, error))
		return FALSE;
	if (!c)
		return TRUE;
	if (!parse_channel(c, FALSE, agent, session, error) ||
	    !next_item(&cursor, channels, "channel", &c, error))
		return FALSE;
	return c ? refuse(c, error, "the %s domain has one channel",
			  tc_session_file_agent_type(agent))
		 : TRUE;
}

static gboolean
parse_domain(xmlNode *node, TcFileSession *session, GError **error)
{
	xmlNode *cursor = node->children, *c, *type = NULL, *buffers = NULL, *channels = NULL,
		*trackers = NULL;
	g_autofree char *type_text = NULL, *buffer_text = NULL;
	gboolean kernel;
	TcFileAgent agent;

	while (next_element(&cursor, node, &c, error) && c) {
		if (is(c, "type"))
			type = c;
		else if (is(c, "buffer_type"))
			buffers = c;
		else if (is(c, "channels"))
			channels = c;
		else if (is(c, "process_attr_trackers"))
			trackers = c;
		else if (is(c, "trackers"))
			return refuse(c, error, "legacy trackers are not supported by tracectl");
		else
			return refuse(c, error, "not allowed here");
	}
	if (error && *error)
		return FALSE;
	if (!type || !buffers)
		return refuse(node, error, "a domain needs a type and a buffer_type");
	if (!(type_text = trimmed_text_of(type, error)) ||
	    !(buffer_text = trimmed_text_of(buffers, error)))
		return FALSE;
	agent = tc_session_file_agent_from_type(type_text);
	if (agent)
		return parse_agent_domain(type, buffers, channels, trackers, agent, session, error);
	if (g_str_equal(type_text, "KERNEL"))
		kernel = TRUE;
	else if (g_str_equal(type_text, "UST"))
		kernel = FALSE;
	else
		return refuse(type, error, "unknown domain '%.40s'", type_text);
	if (!kernel && g_str_equal(buffer_text, "PER_PID"))
		session->ust_per_pid = TRUE;
	else if (!g_str_equal(buffer_text, kernel ? "GLOBAL" : "PER_UID"))
		return refuse(buffers, error, "%s buffers are not supported by tracectl in the %s domain",
			      buffer_text, kernel ? "kernel" : "user-space");
	for (guint i = 0; i < session->channels->len; i++)
		if (((TcFileChannel *)g_ptr_array_index(session->channels, i))->kernel == kernel)
			return refuse(type, error, "domain given twice");
	if (channels) {
		cursor = channels->children;
		while (next_item(&cursor, channels, "channel", &c, error) && c)
			if (!parse_channel(c, kernel, TC_FILE_AGENT_NONE, session, error))
				return FALSE;
		if (error && *error)
			return FALSE;
	}
	if (trackers) {
		cursor = trackers->children;
		while (next_element(&cursor, trackers, &c, error) && c)
			if (!parse_tracker(c, kernel, session, error))
				return FALSE;
		if (error && *error)
			return FALSE;
	}
	if (kernel) {
		guint count = 0;

		for (guint i = 0; i < session->channels->len; i++) {
			TcFileChannel *channel = g_ptr_array_index(session->channels, i);

			if (channel->kernel && ++count > 1)
				return refuse(channels, error, "tracectl has one kernel channel");
		}
	}
	return TRUE;
}

/* Attributes and outputs. */

static gboolean
parse_rotation_schedule(xmlNode *c, TcFileSession *session, GError **error)
{
	gboolean periodic = is(c, "periodic");
	guint64 *value = periodic ? &session->rotation_timer_us : &session->rotation_size;
	const char *inner_name = periodic ? "time_us" : "bytes";
	xmlNode *inner = c->children, *v;

	if (!periodic && !is(c, "size_threshold"))
		return refuse(c, error, "not allowed here");
	/* The schema lets them repeat; tracectl has one of each. */
	if (*value)
		return refuse(c, error, "tracectl has one rotation of each kind");
	if (!next_element(&inner, c, &v, error))
		return FALSE;
	if (!v || !is(v, inner_name))
		return refuse(v ? v : c, error, "%s is needed", inner_name);
	if (!u64_of(v, G_MAXUINT64, value, error))
		return FALSE;
	if (*value == 0)
		return refuse(v, error, "0 is no rotation");
	if (!next_element(&inner, c, &v, error))
		return FALSE;
	return v ? refuse(v, error, "not allowed here") : TRUE;
}

static gboolean
parse_rotation_schedules(xmlNode *node, TcFileSession *session, GError **error)
{
	xmlNode *cursor = node->children, *c;

	while (next_item(&cursor, node, NULL, &c, error) && c)
		if (!parse_rotation_schedule(c, session, error))
			return FALSE;
	return !(error && *error);
}

static gboolean
parse_attributes(xmlNode *node, TcFileSession *session, GError **error)
{
	xmlNode *cursor = node->children, *c;

	while (next_element(&cursor, node, &c, error) && c) {
		if (is(c, "snapshot_mode")) {
			if (!bool_of(c, &session->snapshot, error))
				return FALSE;
		} else if (is(c, "live_timer_interval")) {
			if (!u32_of(c, &session->live_timer_us, error))
				return FALSE;
		} else if (is(c, "rotation_schedules")) {
			if (!parse_rotation_schedules(c, session, error))
				return FALSE;
		} else {
			return refuse(c, error, "not allowed here");
		}
	}
	return !(error && *error);
}

/* consumer_output: its path, or its relay URLs. */
static gboolean
parse_consumer_output(xmlNode *node, char **path, char **control, char **data, GError **error)
{
	xmlNode *cursor = node->children, *c, *destination = NULL;
	gboolean enabled = TRUE;

	while (next_element(&cursor, node, &c, error) && c) {
		if (is(c, "enabled")) {
			if (!bool_of(c, &enabled, error))
				return FALSE;
		} else if (is(c, "destination")) {
			destination = c;
		} else {
			return refuse(c, error, "not allowed here");
		}
	}
	if (error && *error)
		return FALSE;
	if (!enabled)
		return refuse(node, error, "a disabled output is not supported by tracectl");
	if (!destination)
		return refuse(node, error, "destination is needed");
	cursor = destination->children;
	if (!next_element(&cursor, destination, &c, error))
		return FALSE;
	if (c && is(c, "path")) {
		if (!(*path = trimmed_text_of(c, error)))
			return FALSE;
		if (**path != '/')
			return refuse(c, error, "an absolute path is needed");
	} else if (c && is(c, "net_output")) {
		xmlNode *inner = c->children, *u;

		while (next_element(&inner, c, &u, error) && u) {
			if (is(u, "control_uri")) {
				if (!(*control = trimmed_text_of(u, error)))
					return FALSE;
			} else if (is(u, "data_uri")) {
				if (!(*data = trimmed_text_of(u, error)))
					return FALSE;
			} else {
				return refuse(u, error, "not allowed here");
			}
		}
		if (error && *error)
			return FALSE;
		if (!*control || !*data)
			return refuse(c, error, "control_uri and data_uri are needed");
		/* tracectl's net+ssh:// is one URL, saved in both. */
		if ((tc_session_file_ssh_url(*control) || tc_session_file_ssh_url(*data)) &&
		    !g_str_equal(*control, *data))
			return refuse(c, error,
				      "a net+ssh:// relay is one URL, the same in control_uri and "
				      "data_uri");
	} else {
		return refuse(c ? c : destination, error, "path or net_output is needed");
	}
	if (!next_element(&cursor, destination, &c, error))
		return FALSE;
	return c ? refuse(c, error, "not allowed here") : TRUE;
}

static gboolean
parse_snapshot_output(xmlNode *node, TcFileSession *session, GError **error)
{
	TcFileSnapshotOutput *output = g_new0(TcFileSnapshotOutput, 1);
	xmlNode *cursor = node->children, *c;

	g_ptr_array_add(session->snapshot_outputs, output);
	while (next_element(&cursor, node, &c, error) && c) {
		if (is(c, "name")) {
			if (!name_of(c, &output->name, error))
				return FALSE;
		} else if (is(c, "max_size")) {
			if (!u64_of(c, G_MAXUINT64, &output->max_size, error))
				return FALSE;
		} else if (is(c, "consumer_output")) {
			if (!parse_consumer_output(c, &output->path, &output->control_url,
						   &output->data_url, error))
				return FALSE;
		} else {
			return refuse(c, error, "not allowed here");
		}
	}
	if (error && *error)
		return FALSE;
	/* session.xsd requires the name, and the writer writes it back. */
	if (!output->name)
		return refuse(node, error, "a snapshot output needs a name");
	return output->path || output->control_url
		       ? TRUE
		       : refuse(node, error, "consumer_output is needed");
}

static gboolean
parse_output(xmlNode *node, TcFileSession *session, GError **error)
{
	xmlNode *cursor = node->children, *c;

	if (!next_element(&cursor, node, &c, error))
		return FALSE;
	if (!c)
		return TRUE;
	if (is(c, "consumer_output")) {
		if (!parse_consumer_output(c, &session->path, &session->control_url,
					   &session->data_url, error))
			return FALSE;
	} else if (is(c, "snapshot_outputs")) {
		xmlNode *inner = c->children, *o;

		while (next_item(&inner, c, "output", &o, error) && o)
			if (!parse_snapshot_output(o, session, error))
				return FALSE;
		if (error && *error)
			return FALSE;
	} else {
		return refuse(c, error, "not allowed here");
	}
	if (!next_element(&cursor, node, &c, error))
		return FALSE;
	return c ? refuse(c, error, "not allowed here") : TRUE;
}

static gboolean
parse_session(xmlNode *node, GPtrArray *sessions, GError **error)
{
	TcFileSession *session = tc_file_session_new(NULL);
	xmlNode *cursor = node->children, *c;

	g_ptr_array_add(sessions, session);
	while (next_element(&cursor, node, &c, error) && c) {
		if (is(c, "name")) {
			if (!name_of(c, &session->name, error))
				return FALSE;
		} else if (is(c, "domains")) {
			xmlNode *inner = c->children, *d;

			while (next_item(&inner, c, "domain", &d, error) && d)
				if (!parse_domain(d, session, error))
					return FALSE;
			if (error && *error)
				return FALSE;
		} else if (is(c, "started")) {
			if (!bool_of(c, &session->started, error))
				return FALSE;
		} else if (is(c, "attributes")) {
			if (!parse_attributes(c, session, error))
				return FALSE;
		} else if (is(c, "output")) {
			if (!parse_output(c, session, error))
				return FALSE;
		} else if (is(c, "shared_memory_path")) {
			return refuse(c, error, "tracectl places its buffers itself");
		} else {
			return refuse(c, error, "not allowed here");
		}
	}
	if (error && *error)
		return FALSE;
	if (!session->name)
		return refuse(node, error, "the session has no name");
	if (session->snapshot_outputs->len && !session->snapshot)
		return refuse(node, error, "snapshot outputs need snapshot_mode");
	if (session->snapshot_outputs->len && !session->path && !session->control_url) {
		/* As lttng writes it: the session's directory, or relay, is its
		 * first output. */
		TcFileSnapshotOutput *first = g_ptr_array_index(session->snapshot_outputs, 0);

		session->path = g_steal_pointer(&first->path);
		session->control_url = g_steal_pointer(&first->control_url);
		session->data_url = g_steal_pointer(&first->data_url);
		g_ptr_array_remove_index(session->snapshot_outputs, 0);
	}
	return TRUE;
}

static guint
count_elements(xmlNode *node, guint limit)
{
	guint count = 0;

	for (xmlNode *c = node; c && count <= limit; c = c->next)
		if (c->type == XML_ELEMENT_NODE)
			count += 1 + count_elements(c->children, limit - count);
	return count;
}

/* Refused before libxml2 sees them: no DTD means no entity, internal or
 * external, so nothing can expand or be fetched. */
static gboolean
check_raw(const char *contents, gsize length, GError **error)
{
	if (length > TC_SESSION_FILE_MAX_BYTES) {
		g_set_error(error, SF_ERROR, SF_INVALID,
			    "the file holds %" G_GSIZE_FORMAT " bytes, more than the %d allowed",
			    length, TC_SESSION_FILE_MAX_BYTES);
		return FALSE;
	}
	if (memchr(contents, '\0', length)) {
		g_set_error(error, SF_ERROR, SF_INVALID, "the file is not UTF-8 text");
		return FALSE;
	}
	if (g_strstr_len(contents, length, "<!DOCTYPE") || g_strstr_len(contents, length, "<!ENTITY")) {
		g_set_error(error, SF_ERROR, SF_INVALID,
			    "a DOCTYPE or ENTITY declaration is not allowed in a session file");
		return FALSE;
	}
	return TRUE;
}

static void
quiet_errors(void *context, const char *message, ...)
{
	(void)context;
	(void)message;
}

/* libxml2 goes on after the first fault and its last error is often only
 * "Premature end of data": the first is where the file went wrong. */
typedef struct {
	int line;
	char *message;
} FirstFault;

static void
keep_first_fault(void *user_data, xmlErrorPtr fault)
{
	xmlParserCtxtPtr context = user_data;
	FirstFault *first = context->_private;

	if (first->message || !fault)
		return;
	first->line = fault->line;
	first->message = g_strchomp(g_strdup(fault->message ? fault->message : "?"));
}

GPtrArray *
tc_session_file_parse(const char *contents, gsize length, GError **error)
{
	g_autoptr(GPtrArray) sessions =
		g_ptr_array_new_with_free_func((GDestroyNotify)tc_file_session_free);
	xmlParserCtxtPtr context;
	xmlDocPtr doc;
	xmlNode *root, *cursor, *c;
	FirstFault first = {0};
	gboolean ok = TRUE;

	if (!check_raw(contents, length, error) || !tc_libxml_load(error))
		return NULL;
	sym_xmlSetGenericErrorFunc(NULL, quiet_errors);
	context = sym_xmlNewParserCtxt();
	if (!context) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "out of memory");
		return NULL;
	}
	context->_private = &first;
	context->sax->serror = keep_first_fault;
	doc = sym_xmlCtxtReadMemory(context, contents, (int)length, NULL, "UTF-8",
				XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
				    XML_PARSE_BIG_LINES | XML_PARSE_IGNORE_ENC);
	if (!doc || !context->wellFormed) {
		const xmlError *last = sym_xmlCtxtGetLastError(context);

		if (!first.message && last) {
			first.line = last->line;
			first.message = g_strchomp(g_strdup(last->message ? last->message : "?"));
		}
		g_set_error(error, SF_ERROR, SF_INVALID, "malformed XML at line %d: %s", first.line,
			    first.message ? first.message : "?");
		if (error)
			set_error_line(*error, first.line);
		g_free(first.message);
		sym_xmlFreeDoc(doc);
		sym_xmlFreeParserCtxt(context);
		return NULL;
	}
	g_free(first.message);
	sym_xmlFreeParserCtxt(context);
	root = sym_xmlDocGetRootElement(doc);
	if (doc->intSubset || doc->extSubset) {
		g_set_error(error, SF_ERROR, SF_INVALID, "a DTD is not allowed in a session file");
		ok = FALSE;
	} else if (!root || !is(root, "sessions")) {
		ok = root ? refuse(root, error, "the root element must be <sessions>")
			  : (g_set_error(error, SF_ERROR, SF_INVALID, "no root element"), FALSE);
	} else if (count_elements(root, TC_SESSION_FILE_MAX_ELEMENTS) >
		   TC_SESSION_FILE_MAX_ELEMENTS) {
		ok = refuse(root, error, "more than %d elements", TC_SESSION_FILE_MAX_ELEMENTS);
	}
	cursor = ok ? root->children : NULL;
	while (ok && (ok = next_item(&cursor, root, "session", &c, error)) && c) {
		if (sessions->len == TC_SESSION_FILE_MAX_SESSIONS)
			ok = refuse(c, error, "more than %d sessions", TC_SESSION_FILE_MAX_SESSIONS);
		else
			ok = parse_session(c, sessions, error);
	}
	if (ok && sessions->len == 0)
		ok = refuse(root, error, "no session");
	sym_xmlFreeDoc(doc);
	return ok ? g_steal_pointer(&sessions) : NULL;
}

