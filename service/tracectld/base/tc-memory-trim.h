/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Gives the memory of a large transient back to the system: glibc keeps
 * the freed pieces of a big reply (its values, its serialised message)
 * in its arenas, where the small allocations that outlive them pin whole
 * pages, so one listing of hundreds of applications would keep the
 * service's resident size megabytes above its baseline for its whole
 * life. malloc_trim(0) returns every free page of every arena; it runs a
 * second after the last request for it, once per burst, when the bus
 * worker has sent the message and freed it. Main loop only.
 */
void tc_memory_trim_soon(void);
