/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The definitions of the printf-style events, registered when
 * libtracectl-tracef loads. */
#define TRACECTL_CREATE_PROBES
#include "tc-tracef-tp.h"
