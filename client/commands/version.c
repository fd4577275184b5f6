/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tracectl version */
#include "config.h"
#include "tc-client.h"

/* {"client_version": string, "service_version": string or null}. */
static JsonNode *
version_json(const char *service_version)
{
	g_autoptr(JsonBuilder) builder = json_builder_new();

	json_builder_begin_object(builder);
	tc_client_output_member_string(builder, "client_version", PACKAGE_VERSION);
	tc_client_output_member_string(builder, "service_version", service_version);
	json_builder_end_object(builder);
	return json_builder_get_root(builder);
}

int
tc_cmd_version(int argc, char **argv)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(TcClientManager) manager = tc_client_manager(&error);
	g_autoptr(GVariant) version =
	    manager ? tc_client_manager_property("Version") : NULL;
	const char *service_version = NULL;

	if (version && g_variant_is_of_type(version, G_VARIANT_TYPE_STRING))
		service_version = g_variant_get_string(version, NULL);

	if (tc_client_output_is_json()) {
		g_autoptr(JsonNode) node = version_json(service_version);

		tc_client_output_print_json(node);
		return TC_EXIT_OK;
	}
	g_print("tracectl %s\n", PACKAGE_VERSION);
	if (service_version)
		g_print("tracectld %s\n", service_version);
	else
		g_print("tracectld: not reachable\n");
	return TC_EXIT_OK;
}
