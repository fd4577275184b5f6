/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libxml2, loaded the first time a session file is read. Only `save`'s
 * and `load`'s reading needs it, and linking it brings ICU, liblzma and
 * libstdc++ into every command the CLI runs; loaded on demand, a command
 * that reads no session file maps none of them.
 *
 * After tc_libxml_load() has returned TRUE, each sym_NAME points to
 * libxml2's NAME; before, none may be called.
 */
#ifndef TC_LIBXML_H
#define TC_LIBXML_H

#include <glib.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

extern typeof(xmlCtxtGetLastError) *sym_xmlCtxtGetLastError;
extern typeof(xmlCtxtReadMemory) *sym_xmlCtxtReadMemory;
extern typeof(xmlDocGetRootElement) *sym_xmlDocGetRootElement;
extern typeof(xmlFirstElementChild) *sym_xmlFirstElementChild;
extern typeof(xmlFreeDoc) *sym_xmlFreeDoc;
extern typeof(xmlFreeParserCtxt) *sym_xmlFreeParserCtxt;
extern typeof(xmlGetLineNo) *sym_xmlGetLineNo;
extern typeof(xmlNewParserCtxt) *sym_xmlNewParserCtxt;
extern typeof(xmlNodeGetContent) *sym_xmlNodeGetContent;
extern typeof(xmlSetGenericErrorFunc) *sym_xmlSetGenericErrorFunc;
extern typeof(xmlStrEqual) *sym_xmlStrEqual;

/* Loads libxml2 and resolves every sym_NAME, once per process and from
 * any thread; FALSE, with an error naming the library, if it cannot. */
gboolean tc_libxml_load(GError **error);

#endif /* TC_LIBXML_H */
