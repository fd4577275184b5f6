/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The definitions of the printf-style events, registered when
 * libtracectl-tracef loads. */
#define TRACECTL_CREATE_PROBES
/* The events' ip is their caller's, not this library's. */
#define TRACECTL_TP_IP_PARAM ip
#include "tc-tracef-tp.h"
