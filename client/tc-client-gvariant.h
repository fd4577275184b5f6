/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * GVariant <-> sd_bus_message: the CLI keeps GVariant as its data model
 * and talks to the bus through sd-bus, so every argument it sends and
 * every reply or signal it reads crosses here. The conversion is generic
 * over the D-Bus type system: the basic types (object paths and
 * signatures included), arrays, dictionaries, structs and variants.
 *
 * Unix fds ('h') are refused both ways: tracectl's interface passes none,
 * and the CLI's connections do not negotiate them, so a handle can only be
 * a fault. GVariant's maybe type has no D-Bus form and is refused too.
 *
 * Functions of one thread at a time: an sd_bus_message is not thread-safe.
 */
#pragma once

#include <glib.h>

#include "tc-client-libsystemd.h"

/* Appends value as one complete argument of m. 0, or a negative errno:
 * -EINVAL for a type D-Bus has no form of (maybe, handle, empty tuple),
 * sd-bus's own for the rest. */
int tc_client_gvariant_append(sd_bus_message *m, GVariant *value);
/* Appends each child of tuple, the body of a method call; a NULL tuple
 * appends nothing. 0 or a negative errno, as above. */
int tc_client_gvariant_append_tuple(sd_bus_message *m, GVariant *tuple);
/* Reads m from where it stands to its end, as a tuple of its arguments
 * ("()" for none), owned by the caller. NULL with G_IO_ERROR_INVALID_DATA
 * for a message that cannot be read (or that holds a unix fd). */
GVariant *tc_client_gvariant_read_tuple(sd_bus_message *m, GError **error);
