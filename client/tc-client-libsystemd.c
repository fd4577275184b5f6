/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libsystemd's sd-bus, loaded when first needed (tc-client-libsystemd.h). */
#define TC_CLIENT_LIBSYSTEMD_TABLE
#include "tc-client-libsystemd.h"

#include <dlfcn.h>
#include <string.h>

#include <gio/gio.h>

#define LIBSYSTEMD "libsystemd.so.0"

struct tc_client_libsystemd tc_client_libsystemd;

/* Fills the table from handle; the name of the first function missing,
 * or NULL. */
static const char *
fill_table(void *handle)
{
#define TC_CLIENT_LIBSYSTEMD_LOOKUP(name)                                                  \
	tc_client_libsystemd.name = (__typeof__(name) *)dlsym(handle, #name);              \
	if (tc_client_libsystemd.name == NULL)                                             \
		return #name;
	TC_CLIENT_LIBSYSTEMD_FUNCTIONS(TC_CLIENT_LIBSYSTEMD_LOOKUP)
#undef TC_CLIENT_LIBSYSTEMD_LOOKUP
	return NULL;
}

gboolean
tc_client_libsystemd_load(GError **error)
{
	static gboolean is_tried, is_loaded;
	static char *failure;
	const char *missing;
	void *handle;

	if (!is_tried) {
		is_tried = TRUE;
		/* Kept for the life of the process: the table points into it. */
		handle = dlopen(LIBSYSTEMD, RTLD_NOW | RTLD_LOCAL);
		if (handle == NULL)
			failure = g_strdup_printf("cannot load %s: %s", LIBSYSTEMD, dlerror());
		else if ((missing = fill_table(handle)))
			failure = g_strdup_printf("%s has no %s (systemd 246 or later is needed)",
						  LIBSYSTEMD, missing);
		else
			is_loaded = TRUE;
		if (!is_loaded)
			memset(&tc_client_libsystemd, 0, sizeof(tc_client_libsystemd));
	}
	if (!is_loaded)
		g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, failure);
	return is_loaded;
}
