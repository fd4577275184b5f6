/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define TRACECTL_CREATE_PROBES
#include "enums-tp.h"
