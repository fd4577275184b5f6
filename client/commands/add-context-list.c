/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tracectl add-context --list [-u|-k]: the context types the service takes. */
#include "tc-client.h"

/* What LTTng-UST applications do not record: an application
 * instrumented with LTTng-UST has no such field in its events. The
 * application contexts of libtracectl-ust only. */
#define OWN_ONLY "  (tracectl's own applications only)"

gboolean
tc_client_context_is_own_only(const char *name)
{
	return g_str_has_prefix(name, "$app.");
}

static gboolean
print_domain(TcClientManager *manager, const char *domain, const char *title, GError **error)
{
	g_autoptr(GVariant) reply =
	    tc_client_call(manager, "ListContexts", g_variant_new("(s)", domain), error);
	g_autofree const char **names = NULL;

	if (reply == NULL)
		return FALSE;
	g_variant_get(reply, "(^a&s)", &names);
	g_print("%s contexts:\n", title);
	for (guint i = 0; names[i]; i++)
		g_print("    %s%s\n", names[i],
			tc_client_context_is_own_only(names[i]) ? OWN_ONLY : "");
	return TRUE;
}

int
tc_client_list_contexts(gboolean userspace, gboolean kernel)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(TcClientManager) manager = tc_client_manager(&error);

	if (manager == NULL || (userspace && !print_domain(manager, "ust", "UST", &error)) ||
	    (kernel && !print_domain(manager, "kernel", "Kernel", &error)))
		return tc_client_fail(error);
	return TC_EXIT_OK;
}
