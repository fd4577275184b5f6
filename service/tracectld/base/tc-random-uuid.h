/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <glib.h>

/* A random (version 4) uuid: a session's own, and the identity a session
 * gives a relay. Any thread. */
void tc_random_uuid(guint8 uuid[16]);
