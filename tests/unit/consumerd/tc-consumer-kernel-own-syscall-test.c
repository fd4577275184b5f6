/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The own-process tier's system call events as lttng-modules lays them out
 * (tc-consumerd-kernel-own-syscall.c, common/util/tc-syscall-args.c): every
 * call of the table parses and names a call this architecture has, with at
 * most one copy on the side that can copy it; the metadata and payload of
 * openat, read, pipe2, connect and accept; copied bytes that do not end
 * where they should.
 */
#include <arpa/inet.h>
#include <glib.h>
#include <netinet/in.h>
#include <string.h>

#include "tc-consumerd-kernel-own-syscall.h"
#include "tc-syscall-args.h"
#include "tc-syscall-name.h"

static void
test_table(void)
{
	unsigned int decoded = 0;

	for (size_t i = 0; i < tc_syscall_name_count(); i++) {
		unsigned int number;
		const char *name = tc_syscall_name_at(i, &number);
		struct tc_syscall_args_layout entry, exit;
		bool has_entry = tc_syscall_args_layout(name, false, &entry);
		bool has_exit = tc_syscall_args_layout(name, true, &exit);

		g_assert_cmpint(has_entry, ==, has_exit);
		if (!has_entry)
			continue;
		decoded++;
		/* Entries copy what the task passed in, exits what it got. */
		if (entry.copy >= 0)
			g_assert_true(strchr("sia", entry.fields[entry.copy].kind));
		if (exit.copy >= 0)
			g_assert_true(strchr("Ap", exit.fields[exit.copy].kind));
		for (unsigned int f = 0; f < entry.count; f++)
			g_assert_true(strchr("duDUxsiaAp", entry.fields[f].kind));
		for (unsigned int f = 0; f < exit.count; f++)
			g_assert_true(strchr("duDUxsiaAp", exit.fields[f].kind));
	}
	/* lttng-modules has every call of x86-64 but 22 that Linux no
	 * longer has or that came after its table (landlock_*); a misspelt
	 * name in the table of overrides or of aliases would be missed. */
#ifdef __x86_64__
	g_assert_cmpuint(decoded, ==, tc_syscall_name_count() - 22);
#endif
	g_assert_cmpuint(decoded, >=, 7);
	g_assert_cmpstr(tc_syscall_args_lttng_name("stat"), ==, "newstat");
	g_assert_cmpstr(tc_syscall_args_lttng_name("openat"), ==, "openat");
}

static void
layout_of(const char *name, bool is_exit, struct tc_syscall_args_layout *layout)
{
	g_assert_true(tc_syscall_args_layout(name, is_exit, layout));
}

static void
test_openat(void)
{
	struct tc_syscall_args_layout layout;
	struct tc_own_record head = {.args = {(uint32_t)-100, 0x7ffd0000, 0x80000, 0644}};
	static const char path[] = "/etc/hostname";
	uint8_t out[TC_CONSUMERD_OWN_SYSCALL_PAYLOAD_MAX], *end;
	char text[2048];
	int32_t dfd;

	layout_of("openat", false, &layout);
	g_assert_cmpint(tc_consumerd_kernel_own_syscall_declare(text, sizeof(text), "openat",
								false, 7, &layout),
			>, 0);
	g_assert_nonnull(strstr(text, "name = \"syscall_entry_openat\";\n\tid = 7;"));
	g_assert_nonnull(strstr(text, "int32_t _dfd;\n\t\tstring { encoding = UTF8; } _filename;"
				      "\n\t\tint32_t _flags;\n\t\tuint32_t _mode;\n"));
	end = tc_consumerd_kernel_own_syscall_put(out, &layout, false, &head,
						  (const uint8_t *)path, sizeof(path));
	g_assert_cmpint(end - out, ==, 4 + sizeof(path) + 4 + 4);
	memcpy(&dfd, out, 4);
	g_assert_cmpint(dfd, ==, -100); /* AT_FDCWD, whatever the upper half */
	g_assert_cmpstr((const char *)out + 4, ==, path);

	/* A text that does not end within what was copied ends there; none
	 * copied (the task's memory was unreadable) is "(fault)". */
	end = tc_consumerd_kernel_own_syscall_put(out, &layout, false, &head,
						  (const uint8_t *)"abc", 3);
	g_assert_cmpstr((const char *)out + 4, ==, "abc");
	g_assert_cmpint(end - out, ==, 4 + 4 + 8);
	tc_consumerd_kernel_own_syscall_put(out, &layout, false, &head, NULL, 0);
	g_assert_cmpstr((const char *)out + 4, ==, "(fault)");
	/* More than a record holds is taken as nothing copied. */
	tc_consumerd_kernel_own_syscall_put(out, &layout, false, &head, (const uint8_t *)path,
					    TC_OWN_SYSCALL_DATA_MAX + 1);
	g_assert_cmpstr((const char *)out + 4, ==, "(fault)");
}

static void
test_read_exit(void)
{
	struct tc_syscall_args_layout layout;
	struct tc_own_record head = {.value = 42, .args = {3, 0x7ffd1000, 4096}};
	uint8_t out[TC_CONSUMERD_OWN_SYSCALL_PAYLOAD_MAX], *end;
	char text[2048];
	int64_t ret;
	uint64_t buf;

	layout_of("read", true, &layout);
	g_assert_cmpint(tc_consumerd_kernel_own_syscall_declare(text, sizeof(text), "read", true,
								9, &layout),
			>, 0);
	g_assert_nonnull(strstr(text, "fields := struct {\n\t\tint64_t _ret;\n\t\thex64_t _buf;\n"));
	end = tc_consumerd_kernel_own_syscall_put(out, &layout, true, &head, NULL, 0);
	g_assert_cmpint(end - out, ==, 16);
	memcpy(&ret, out, 8);
	memcpy(&buf, out + 8, 8);
	g_assert_cmpint(ret, ==, 42);
	g_assert_cmphex(buf, ==, 0x7ffd1000);
}

static void
test_pipe2_exit(void)
{
	struct tc_syscall_args_layout layout;
	struct tc_own_record head = {.value = 0};
	int32_t fds[2] = {5, 6}, written[2];
	uint8_t out[TC_CONSUMERD_OWN_SYSCALL_PAYLOAD_MAX], *end;

	layout_of("pipe2", true, &layout);
	end = tc_consumerd_kernel_own_syscall_put(out, &layout, true, &head, (uint8_t *)fds, 8);
	g_assert_cmpint(end - out, ==, 16);
	memcpy(written, out + 8, 8);
	g_assert_cmpint(written[0], ==, 5);
	g_assert_cmpint(written[1], ==, 6);
	/* Not copied: zeros, never what lay in the record. */
	tc_consumerd_kernel_own_syscall_put(out, &layout, true, &head, (uint8_t *)fds, 4);
	memcpy(written, out + 8, 8);
	g_assert_cmpint(written[0], ==, 0);
	g_assert_cmpint(written[1], ==, 0);
}

static void
test_connect(void)
{
	struct tc_syscall_args_layout layout;
	struct tc_own_record head = {.args = {4, 0x7ffd2000, sizeof(struct sockaddr_in)}};
	struct sockaddr_in in = {.sin_family = AF_INET, .sin_port = htons(4242)};
	struct sockaddr_in6 in6 = {.sin6_family = AF_INET6, .sin6_port = htons(80)};
	uint8_t out[TC_CONSUMERD_OWN_SYSCALL_PAYLOAD_MAX], *end, *addr;
	uint32_t len;
	uint16_t family;
	char text[2048];

	in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	layout_of("connect", false, &layout);
	g_assert_cmpint(tc_consumerd_kernel_own_syscall_declare(text, sizeof(text), "connect",
								false, 1, &layout),
			>, 0);
	g_assert_nonnull(strstr(text, "_addrlen;\n\t\tuint16_t _family;\n"));
	g_assert_nonnull(strstr(text, "byte_order = be; } _dport;"));
	end = tc_consumerd_kernel_own_syscall_put(out, &layout, false, &head, (uint8_t *)&in,
						  sizeof(in));
	/* fd, uservaddr, addrlen, then the address. */
	addr = out + 4 + 8 + 8;
	memcpy(&family, addr, 2);
	g_assert_cmpint(family, ==, AF_INET);
	g_assert_cmpint(addr[2] << 8 | addr[3], ==, 4242);
	memcpy(&len, addr + 4, 4);
	g_assert_cmpint(len, ==, 4);
	g_assert_cmpmem(addr + 8, 4, "\x7f\0\0\x01", 4);
	memcpy(&len, addr + 12, 4);
	g_assert_cmpint(len, ==, 0);
	g_assert_cmpint(end - addr, ==, 16);

	/* A short address: family only, no port or address. */
	end = tc_consumerd_kernel_own_syscall_put(out, &layout, false, &head, (uint8_t *)&in, 8);
	g_assert_cmpint(addr[2] | addr[3], ==, 0);
	g_assert_cmpint(end - addr, ==, 12);

	in6.sin6_addr.s6_addr[15] = 1;
	end = tc_consumerd_kernel_own_syscall_put(out, &layout, false, &head, (uint8_t *)&in6,
						  sizeof(in6));
	memcpy(&len, addr + 8, 4);
	g_assert_cmpint(len, ==, 8);
	g_assert_cmpint(addr[12 + 15], ==, 1);
	g_assert_cmpint(end - addr, ==, 12 + 16);
}

static void
test_accept_exit(void)
{
	struct tc_syscall_args_layout layout;
	struct tc_own_record head = {.value = 7};
	struct {
		int32_t len;
		struct sockaddr_in in;
	} __attribute__((packed)) copied = {sizeof(struct sockaddr_in),
					     {.sin_family = AF_INET, .sin_port = htons(5000)}};
	uint8_t out[TC_CONSUMERD_OWN_SYSCALL_PAYLOAD_MAX], *end;
	int32_t addrlen;

	layout_of("accept", true, &layout);
	end = tc_consumerd_kernel_own_syscall_put(out, &layout, true, &head, (uint8_t *)&copied,
						  sizeof(copied));
	memcpy(&addrlen, out + 8, 4);
	g_assert_cmpint(addrlen, ==, 16);
	g_assert_cmpint(out[14] << 8 | out[15], ==, 5000);
	g_assert_cmpint(end - out, ==, 8 + 4 + 2 + 2 + 4 + 4 + 4);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/tracectl/consumerd/kernel-own-syscall/table", test_table);
	g_test_add_func("/tracectl/consumerd/kernel-own-syscall/openat", test_openat);
	g_test_add_func("/tracectl/consumerd/kernel-own-syscall/read-exit", test_read_exit);
	g_test_add_func("/tracectl/consumerd/kernel-own-syscall/pipe2-exit", test_pipe2_exit);
	g_test_add_func("/tracectl/consumerd/kernel-own-syscall/connect", test_connect);
	g_test_add_func("/tracectl/consumerd/kernel-own-syscall/accept-exit", test_accept_exit);
	return g_test_run();
}
