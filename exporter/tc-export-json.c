/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * JSON text (tc-export-json.h). json-glib 1.6 escapes every control
 * character but U+001F, which it writes raw: RFC 8259 forbids it, and
 * strict parsers (an OTLP collector's, Zipkin's) refuse the whole request.
 * In the compact text json-glib writes, a 0x1f byte can only be that
 * character inside a string (UTF-8 never uses it in a longer sequence),
 * so it is escaped after the fact.
 */
#include <string.h>

#include "tc-export-json.h"

GBytes *
tc_export_json_text(JsonBuilder *builder)
{
	g_autoptr(JsonGenerator) generator = json_generator_new();
	g_autoptr(JsonNode) root = json_builder_get_root(builder);
	g_autofree char *text = NULL;
	GString *escaped;
	gsize length;

	json_generator_set_root(generator, root);
	text = json_generator_to_data(generator, &length);
	if (!memchr(text, 0x1f, length))
		return g_bytes_new_take(g_steal_pointer(&text), length);
	escaped = g_string_sized_new(length + 16);
	for (gsize i = 0; i < length; i++) {
		if (text[i] == 0x1f)
			g_string_append(escaped, "\\u001f");
		else
			g_string_append_c(escaped, text[i]);
	}
	return g_string_free_to_bytes(escaped);
}
