/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The CTF 1.8 (TSDL) declarations of struct tc_packet_header (tc-rb.h),
 * which starts every sub-buffer of both the user-space and the kernel
 * streams. Every metadata writer uses these texts, so that they cannot
 * drift from the struct or from each other. They need the uintN_t and
 * uint64_clock_monotonic_t type aliases declared before them.
 */
#ifndef TC_RB_CTF_H
#define TC_RB_CTF_H

/* The trace block's packet.header: the fields before the context. */
#define TC_CTF_PACKET_HEADER        \
	"\tpacket.header := struct {\n" \
	"\t\tuint32_t magic;\n"         \
	"\t\tuint8_t uuid[16];\n"       \
	"\t\tuint32_t stream_id;\n"     \
	"\t\tuint64_t stream_instance_id;\n" \
	"\t} align(8);\n"

/* A stream block's packet.context: the rest of struct tc_packet_header. */
#define TC_CTF_PACKET_CONTEXT                            \
	"\tpacket.context := struct {\n"                 \
	"\t\tuint64_clock_monotonic_t timestamp_begin;\n" \
	"\t\tuint64_clock_monotonic_t timestamp_end;\n"   \
	"\t\tuint64_t content_size;\n"                   \
	"\t\tuint64_t packet_size;\n"                    \
	"\t\tuint64_t packet_seq_num;\n"                 \
	"\t\tuint64_t events_discarded;\n"               \
	"\t\tuint32_t cpu_id;\n"                         \
	"\t} align(8);\n"

#endif /* TC_RB_CTF_H */
