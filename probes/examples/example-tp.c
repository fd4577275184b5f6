/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one file of the program that defines the example events: their
 * descriptors, their probe functions, and the constructor that registers
 * them with libtracectl-ust before main() runs.
 */
#define TRACECTL_CREATE_PROBES
#include "example-tp.h"
