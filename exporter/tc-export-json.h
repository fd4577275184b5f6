/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The text of the JSON documents spans are exported as (OTLP/HTTP JSON,
 * Zipkin v2), as RFC 8259 wants it whatever the strings hold.
 */
#ifndef TC_EXPORT_JSON_H
#define TC_EXPORT_JSON_H

#include <glib.h>
#include <json-glib/json-glib.h>

/* The builder's document as compact JSON text. */
GBytes *tc_export_json_text(JsonBuilder *builder);

#endif /* TC_EXPORT_JSON_H */
