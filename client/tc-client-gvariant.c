/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * GVariant <-> sd_bus_message, generically: both walk the value's type
 * string, which D-Bus and GVariant spell alike for every type they share.
 */
#include "tc-client-gvariant.h"

#include <errno.h>
#include <string.h>

#include <gio/gio.h>

/* Containers nest at most 64 deep in a D-Bus message (the specification's
 * 32 arrays plus 32 structs); GVariant allows more, sd-bus refuses them. */
#define NESTING_MAX 64

static int append_value(sd_bus_message *m, GVariant *value, guint depth);

static int
append_basic(sd_bus_message *m, GVariant *value, char type)
{
	union {
		guint8 y;
		int b;
		gint16 n;
		guint16 q;
		gint32 i;
		guint32 u;
		gint64 x;
		guint64 t;
		double d;
	} v;

	switch (type) {
	case 'y':
		v.y = g_variant_get_byte(value);
		break;
	case 'b':
		v.b = g_variant_get_boolean(value);
		break;
	case 'n':
		v.n = g_variant_get_int16(value);
		break;
	case 'q':
		v.q = g_variant_get_uint16(value);
		break;
	case 'i':
		v.i = g_variant_get_int32(value);
		break;
	case 'u':
		v.u = g_variant_get_uint32(value);
		break;
	case 'x':
		v.x = g_variant_get_int64(value);
		break;
	case 't':
		v.t = g_variant_get_uint64(value);
		break;
	case 'd':
		v.d = g_variant_get_double(value);
		break;
	case 's':
	case 'o':
	case 'g':
		/* Strings are passed by pointer, the others by address. */
		return sd_bus_message_append_basic(m, type, g_variant_get_string(value, NULL));
	default:
		/* 'h': a GVariant handle indexes an fd list the CLI never has. */
		return -EINVAL;
	}
	return sd_bus_message_append_basic(m, type, &v);
}

/* The children of a container of kind ('a', 'r', 'e') whose contents'
 * signature is contents. */
static int
append_container(sd_bus_message *m, GVariant *value, char kind, const char *contents,
		 guint depth)
{
	GVariantIter iter;
	GVariant *child;
	int r = sd_bus_message_open_container(m, kind, contents);

	if (r < 0)
		return r;
	g_variant_iter_init(&iter, value);
	while (r >= 0 && (child = g_variant_iter_next_value(&iter))) {
		r = append_value(m, child, depth + 1);
		g_variant_unref(child);
	}
	return r < 0 ? r : sd_bus_message_close_container(m);
}

static int
append_value(sd_bus_message *m, GVariant *value, guint depth)
{
	const char *type = g_variant_get_type_string(value);
	size_t length = strlen(type);
	g_autofree char *inner = NULL;
	g_autoptr(GVariant) child = NULL;
	int r;

	if (depth > NESTING_MAX)
		return -EINVAL;
	switch (type[0]) {
	case 'a':
		return append_container(m, value, 'a', type + 1, depth);
	case '(':
	case '{':
		/* D-Bus has no empty struct: "()" is refused by sd-bus. */
		inner = g_strndup(type + 1, length - 2);
		return append_container(m, value, type[0] == '(' ? 'r' : 'e', inner, depth);
	case 'v':
		child = g_variant_get_variant(value);
		r = sd_bus_message_open_container(m, 'v', g_variant_get_type_string(child));
		if (r >= 0)
			r = append_value(m, child, depth + 1);
		return r < 0 ? r : sd_bus_message_close_container(m);
	case 'm':
		return -EINVAL;
	default:
		return append_basic(m, value, type[0]);
	}
}

int
tc_client_gvariant_append(sd_bus_message *m, GVariant *value)
{
	return append_value(m, value, 0);
}

int
tc_client_gvariant_append_tuple(sd_bus_message *m, GVariant *tuple)
{
	GVariantIter iter;
	GVariant *child;
	int r = 0;

	if (tuple == NULL)
		return 0;
	/* A floating tuple (g_variant_new("(s)", ...)) is consumed here, as
	 * GDBus consumes its parameters. */
	g_variant_ref_sink(tuple);
	if (!g_variant_is_of_type(tuple, G_VARIANT_TYPE_TUPLE))
		r = -EINVAL;
	else
		g_variant_iter_init(&iter, tuple);
	while (r >= 0 && (child = g_variant_iter_next_value(&iter))) {
		r = append_value(m, child, 0);
		g_variant_unref(child);
	}
	g_variant_unref(tuple);
	return r;
}

static GVariant *read_value(sd_bus_message *m, char type, const char *contents, guint depth,
			    int *r);

/* A string, object path or signature, checked as GVariant requires: sd-bus
 * validated it already, but a value GVariant refuses would be a critical,
 * and the sender is another process. */
static GVariant *
string_value(char type, const char *text, int *r)
{
	if (type == 's' && g_utf8_validate(text, -1, NULL))
		return g_variant_new_string(text);
	if (type == 'o' && g_variant_is_object_path(text))
		return g_variant_new_object_path(text);
	if (type == 'g' && g_variant_is_signature(text))
		return g_variant_new_signature(text);
	*r = -EBADMSG;
	return NULL;
}

static GVariant *
read_basic(sd_bus_message *m, char type, int *r)
{
	union {
		guint8 y;
		int b;
		gint16 n;
		guint16 q;
		gint32 i;
		guint32 u;
		gint64 x;
		guint64 t;
		double d;
		const char *s;
	} v;

	/* No fd is ever negotiated, so 'h' cannot come from a well-behaved
	 * peer: refused rather than given a meaning. */
	if (type == 'h' || !strchr("ybnqiuxtdsog", type)) {
		*r = -EBADMSG;
		return NULL;
	}
	*r = sd_bus_message_read_basic(m, type, &v);
	if (*r < 0)
		return NULL;
	switch (type) {
	case 'y':
		return g_variant_new_byte(v.y);
	case 'b':
		return g_variant_new_boolean(v.b);
	case 'n':
		return g_variant_new_int16(v.n);
	case 'q':
		return g_variant_new_uint16(v.q);
	case 'i':
		return g_variant_new_int32(v.i);
	case 'u':
		return g_variant_new_uint32(v.u);
	case 'x':
		return g_variant_new_int64(v.x);
	case 't':
		return g_variant_new_uint64(v.t);
	case 'd':
		return g_variant_new_double(v.d);
	default:
		return string_value(type, v.s, r);
	}
}

/* The GVariant type of a container of kind with those contents. */
static char *
container_type(char kind, const char *contents)
{
	switch (kind) {
	case 'a':
		return g_strconcat("a", contents, NULL);
	case 'r':
		return g_strconcat("(", contents, ")", NULL);
	default:
		return g_strconcat("{", contents, "}", NULL);
	}
}

/* The elements of the container sd-bus just entered, to its end. */
static GVariant *
read_children(sd_bus_message *m, const char *type, guint depth, int *r)
{
	GVariantBuilder builder;
	const char *contents;
	char child_type;

	if (!g_variant_type_string_is_valid(type)) {
		*r = -EBADMSG;
		return NULL;
	}
	g_variant_builder_init(&builder, G_VARIANT_TYPE(type));
	while ((*r = sd_bus_message_peek_type(m, &child_type, &contents)) > 0) {
		GVariant *child = read_value(m, child_type, contents, depth + 1, r);

		if (child == NULL)
			break;
		g_variant_builder_add_value(&builder, child);
	}
	if (*r < 0) {
		g_variant_builder_clear(&builder);
		return NULL;
	}
	return g_variant_builder_end(&builder);
}

static GVariant *
read_value(sd_bus_message *m, char type, const char *contents, guint depth, int *r)
{
	g_autofree char *gvariant_type = NULL;
	GVariant *value = NULL;

	if (depth > NESTING_MAX) {
		*r = -EBADMSG;
		return NULL;
	}
	if (!strchr("arev", type))
		return read_basic(m, type, r);
	*r = sd_bus_message_enter_container(m, type, contents);
	if (*r < 0)
		return NULL;
	if (type == 'v') {
		char child_type;
		const char *child_contents;

		*r = sd_bus_message_peek_type(m, &child_type, &child_contents);
		if (*r > 0)
			value = read_value(m, child_type, child_contents, depth + 1, r);
		else if (*r == 0)
			*r = -EBADMSG;
		if (value)
			value = g_variant_new_variant(value);
	} else {
		gvariant_type = container_type(type, contents);
		value = read_children(m, gvariant_type, depth, r);
	}
	if (value && (*r = sd_bus_message_exit_container(m)) < 0)
		g_clear_pointer(&value, g_variant_unref);
	return value;
}

GVariant *
tc_client_gvariant_read_tuple(sd_bus_message *m, GError **error)
{
	GVariantBuilder builder;
	const char *contents;
	char type;
	int r;

	g_variant_builder_init(&builder, G_VARIANT_TYPE_TUPLE);
	while ((r = sd_bus_message_peek_type(m, &type, &contents)) > 0) {
		GVariant *child = read_value(m, type, contents, 0, &r);

		if (child == NULL)
			break;
		g_variant_builder_add_value(&builder, child);
	}
	if (r < 0) {
		g_variant_builder_clear(&builder);
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
			    "cannot read a message of signature '%s': %s",
			    sd_bus_message_get_signature(m, TRUE), g_strerror(-r));
		return NULL;
	}
	return g_variant_ref_sink(g_variant_builder_end(&builder));
}
