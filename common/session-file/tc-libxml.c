/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libxml2 loaded with GModule (tc-libxml.h). The library's soname is the
 * one the build's headers were written for (LIBXML2_SONAME, from the
 * build), so the symbols resolved have the prototypes compiled against.
 */
#include "tc-libxml.h"

#include <gio/gio.h>
#include <gmodule.h>

typeof(xmlCtxtGetLastError) *sym_xmlCtxtGetLastError;
typeof(xmlCtxtReadMemory) *sym_xmlCtxtReadMemory;
typeof(xmlDocGetRootElement) *sym_xmlDocGetRootElement;
typeof(xmlFirstElementChild) *sym_xmlFirstElementChild;
typeof(xmlFreeDoc) *sym_xmlFreeDoc;
typeof(xmlFreeParserCtxt) *sym_xmlFreeParserCtxt;
typeof(xmlGetLineNo) *sym_xmlGetLineNo;
typeof(xmlNewParserCtxt) *sym_xmlNewParserCtxt;
typeof(xmlNodeGetContent) *sym_xmlNodeGetContent;
typeof(xmlSetGenericErrorFunc) *sym_xmlSetGenericErrorFunc;
typeof(xmlStrEqual) *sym_xmlStrEqual;

#define SYMBOL(name) { #name, (gpointer *)&sym_##name }

static const struct {
	const char *name;
	gpointer *address;
} symbols[] = {
	SYMBOL(xmlCtxtGetLastError),   SYMBOL(xmlCtxtReadMemory), SYMBOL(xmlDocGetRootElement),
	SYMBOL(xmlFirstElementChild),  SYMBOL(xmlFreeDoc),	  SYMBOL(xmlFreeParserCtxt),
	SYMBOL(xmlGetLineNo),	       SYMBOL(xmlNewParserCtxt),  SYMBOL(xmlNodeGetContent),
	SYMBOL(xmlSetGenericErrorFunc), SYMBOL(xmlStrEqual),
};

/* The reason it failed, or NULL once every symbol is resolved. The
 * module is never closed: the symbols stay valid for the process. */
static gpointer
load_once(gpointer unused)
{
	GModule *module;

	(void)unused;
	module = g_module_open(LIBXML2_SONAME, G_MODULE_BIND_LOCAL);
	if (!module)
		return g_strdup(g_module_error());
	for (gsize i = 0; i < G_N_ELEMENTS(symbols); i++) {
		if (!g_module_symbol(module, symbols[i].name, symbols[i].address) ||
		    !*symbols[i].address)
			return g_strdup_printf("%s: no symbol %s", LIBXML2_SONAME, symbols[i].name);
	}
	g_module_make_resident(module);
	return NULL;
}

gboolean
tc_libxml_load(GError **error)
{
	static GOnce once = G_ONCE_INIT;
	const char *failure = g_once(&once, load_once, NULL);

	if (failure) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
			    "cannot read session files: %s", failure);
		return FALSE;
	}
	return TRUE;
}
