/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef TC_UST_WAIT_H
#define TC_UST_WAIT_H

/*
 * Waits passively for the service to become ready, on the futex of
 * <rundir>/wait (struct tracectl_wait_page in tracectl-abi.h). Returns at
 * once when the service is marked ready, and after fallback_ms when there
 * is no wait page or the service died without clearing its ready flag,
 * and after at most a minute in any case. A wake-up that did not change
 * the page (anyone who can read it can wake it) puts it back to sleep.
 * Called by the listener thread only, after a failed connection.
 */
void tc_ust_wait_for_service(const char *wait_path, int fallback_ms);

#endif /* TC_UST_WAIT_H */
