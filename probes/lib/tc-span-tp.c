/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The definitions of the tracectl_span events, registered when
 * libtracectl-span loads. */
#define TRACECTL_CREATE_PROBES
#include "tc-span-tp.h"
