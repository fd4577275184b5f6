/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tracectl version */
#include "config.h"
#include "tc-client.h"

int
tc_cmd_version(int argc, char **argv)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(TcDbusManager) manager = NULL;

	g_print("tracectl %s\n", PACKAGE_VERSION);
	manager = tc_client_manager(&error);
	if (manager && tc_dbus_manager_get_version(manager))
		g_print("tracectld %s\n", tc_dbus_manager_get_version(manager));
	else
		g_print("tracectld: not reachable\n");
	return TC_EXIT_OK;
}
