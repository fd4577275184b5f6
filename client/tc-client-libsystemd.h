/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libsystemd's sd-bus, loaded with dlopen() when the CLI first needs the
 * bus rather than mapped at start: libsystemd 252 binds its symbols now
 * and brings libgcrypt, liblzma, libzstd, liblz4 and libcap, which cost
 * `tracectl --version` and every command that fails before any call
 * about 0.8 ms (docs/performance.md).
 *
 * Include this header instead of <systemd/sd-bus.h>: after it, each
 * sd_bus_* function the CLI uses names a pointer of the table, filled by
 * tc_client_libsystemd_load(), which must have succeeded before any of
 * them is called. The CLI does not link libsystemd, so a function used
 * but missing from the list fails the link.
 */
#pragma once

#include <glib.h>
#include <systemd/sd-bus.h>

#define TC_CLIENT_LIBSYSTEMD_FUNCTIONS(X)                                                  \
	X(sd_bus_add_filter)                                                               \
	X(sd_bus_call)                                                                     \
	X(sd_bus_call_async)                                                               \
	X(sd_bus_call_method)                                                              \
	X(sd_bus_close_unref)                                                              \
	X(sd_bus_error_free)                                                               \
	X(sd_bus_error_has_name)                                                           \
	X(sd_bus_error_is_set)                                                             \
	X(sd_bus_flush)                                                                    \
	X(sd_bus_get_events)                                                               \
	X(sd_bus_get_fd)                                                                   \
	X(sd_bus_get_unique_name)                                                          \
	X(sd_bus_is_open)                                                                  \
	X(sd_bus_is_ready)                                                                 \
	X(sd_bus_message_append_basic)                                                     \
	X(sd_bus_message_close_container)                                                  \
	X(sd_bus_message_enter_container)                                                  \
	X(sd_bus_message_exit_container)                                                   \
	X(sd_bus_message_get_member)                                                       \
	X(sd_bus_message_get_path)                                                         \
	X(sd_bus_message_get_sender)                                                       \
	X(sd_bus_message_get_signature)                                                    \
	X(sd_bus_message_is_method_error)                                                  \
	X(sd_bus_message_is_signal)                                                        \
	X(sd_bus_message_new_method_call)                                                  \
	X(sd_bus_message_open_container)                                                   \
	X(sd_bus_message_peek_type)                                                        \
	X(sd_bus_message_read)                                                             \
	X(sd_bus_message_read_basic)                                                       \
	X(sd_bus_message_rewind)                                                           \
	X(sd_bus_message_seal)                                                             \
	X(sd_bus_message_set_allow_interactive_authorization)                              \
	X(sd_bus_message_unref)                                                            \
	X(sd_bus_negotiate_fds)                                                            \
	X(sd_bus_new)                                                                      \
	X(sd_bus_process)                                                                  \
	X(sd_bus_set_address)                                                              \
	X(sd_bus_set_anonymous)                                                            \
	X(sd_bus_set_bus_client)                                                           \
	X(sd_bus_set_fd)                                                                   \
	X(sd_bus_set_method_call_timeout)                                                  \
	X(sd_bus_slot_unref)                                                               \
	X(sd_bus_start)                                                                    \
	X(sd_bus_unref)                                                                    \
	X(sd_bus_wait)

#define TC_CLIENT_LIBSYSTEMD_POINTER(name) __typeof__(name) *name;
struct tc_client_libsystemd {
	TC_CLIENT_LIBSYSTEMD_FUNCTIONS(TC_CLIENT_LIBSYSTEMD_POINTER)
};
#undef TC_CLIENT_LIBSYSTEMD_POINTER

/* The table; every pointer NULL until a load succeeded. */
extern struct tc_client_libsystemd tc_client_libsystemd;

/* Loads libsystemd.so.0 and fills the table, once per process (later
 * calls return the first one's result). FALSE with an error naming the
 * library or the missing function. Main thread only. */
gboolean tc_client_libsystemd_load(GError **error);

#ifndef TC_CLIENT_LIBSYSTEMD_TABLE
#define sd_bus_add_filter tc_client_libsystemd.sd_bus_add_filter
#define sd_bus_call tc_client_libsystemd.sd_bus_call
#define sd_bus_call_async tc_client_libsystemd.sd_bus_call_async
#define sd_bus_call_method tc_client_libsystemd.sd_bus_call_method
#define sd_bus_close_unref tc_client_libsystemd.sd_bus_close_unref
#define sd_bus_error_free tc_client_libsystemd.sd_bus_error_free
#define sd_bus_error_has_name tc_client_libsystemd.sd_bus_error_has_name
#define sd_bus_error_is_set tc_client_libsystemd.sd_bus_error_is_set
#define sd_bus_flush tc_client_libsystemd.sd_bus_flush
#define sd_bus_get_events tc_client_libsystemd.sd_bus_get_events
#define sd_bus_get_fd tc_client_libsystemd.sd_bus_get_fd
#define sd_bus_get_unique_name tc_client_libsystemd.sd_bus_get_unique_name
#define sd_bus_is_open tc_client_libsystemd.sd_bus_is_open
#define sd_bus_is_ready tc_client_libsystemd.sd_bus_is_ready
#define sd_bus_message_append_basic tc_client_libsystemd.sd_bus_message_append_basic
#define sd_bus_message_close_container tc_client_libsystemd.sd_bus_message_close_container
#define sd_bus_message_enter_container tc_client_libsystemd.sd_bus_message_enter_container
#define sd_bus_message_exit_container tc_client_libsystemd.sd_bus_message_exit_container
#define sd_bus_message_get_member tc_client_libsystemd.sd_bus_message_get_member
#define sd_bus_message_get_path tc_client_libsystemd.sd_bus_message_get_path
#define sd_bus_message_get_sender tc_client_libsystemd.sd_bus_message_get_sender
#define sd_bus_message_get_signature tc_client_libsystemd.sd_bus_message_get_signature
#define sd_bus_message_is_method_error tc_client_libsystemd.sd_bus_message_is_method_error
#define sd_bus_message_is_signal tc_client_libsystemd.sd_bus_message_is_signal
#define sd_bus_message_new_method_call tc_client_libsystemd.sd_bus_message_new_method_call
#define sd_bus_message_open_container tc_client_libsystemd.sd_bus_message_open_container
#define sd_bus_message_peek_type tc_client_libsystemd.sd_bus_message_peek_type
#define sd_bus_message_read tc_client_libsystemd.sd_bus_message_read
#define sd_bus_message_read_basic tc_client_libsystemd.sd_bus_message_read_basic
#define sd_bus_message_rewind tc_client_libsystemd.sd_bus_message_rewind
#define sd_bus_message_seal tc_client_libsystemd.sd_bus_message_seal
#define sd_bus_message_set_allow_interactive_authorization                                 \
	tc_client_libsystemd.sd_bus_message_set_allow_interactive_authorization
#define sd_bus_message_unref tc_client_libsystemd.sd_bus_message_unref
#define sd_bus_negotiate_fds tc_client_libsystemd.sd_bus_negotiate_fds
#define sd_bus_new tc_client_libsystemd.sd_bus_new
#define sd_bus_process tc_client_libsystemd.sd_bus_process
#define sd_bus_set_address tc_client_libsystemd.sd_bus_set_address
#define sd_bus_set_anonymous tc_client_libsystemd.sd_bus_set_anonymous
#define sd_bus_set_bus_client tc_client_libsystemd.sd_bus_set_bus_client
#define sd_bus_set_fd tc_client_libsystemd.sd_bus_set_fd
#define sd_bus_set_method_call_timeout tc_client_libsystemd.sd_bus_set_method_call_timeout
#define sd_bus_slot_unref tc_client_libsystemd.sd_bus_slot_unref
#define sd_bus_start tc_client_libsystemd.sd_bus_start
#define sd_bus_unref tc_client_libsystemd.sd_bus_unref
#define sd_bus_wait tc_client_libsystemd.sd_bus_wait

/* For __attribute__((cleanup)), which needs a function, not a pointer. */
static inline void
tc_client_libsystemd_error_clear(sd_bus_error *error)
{
	sd_bus_error_free(error);
}
#endif
