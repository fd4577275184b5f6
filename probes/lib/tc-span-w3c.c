/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* W3C Trace Context text (tc-span-w3c.h). */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "tc-span-w3c.h"

#define TRACEPARENT_V00_LENGTH 55
#define TRACESTATE_MEMBERS_MAX 32
#define TRACESTATE_KEY_MAX 256
#define TRACESTATE_VALUE_MAX 256

static bool
is_ows(char c)
{
	return c == ' ' || c == '\t';
}

static int
hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1; /* upper case is invalid: HEXDIGLC */
}

/* Reads 2 * bytes lower-case hex digits. */
static bool
parse_hex(const char *text, unsigned int digits, uint64_t *out)
{
	uint64_t value = 0;

	for (unsigned int i = 0; i < digits; i++) {
		int digit = hex_value(text[i]);

		if (digit < 0)
			return false;
		value = value << 4 | (uint64_t)digit;
	}
	*out = value;
	return true;
}

/*
 * version "-" trace-id "-" parent-id "-" trace-flags. Version 00 is
 * exactly 55 characters; a later version may continue after a "-" and is
 * read as far as version 00 goes; version ff is invalid.
 */
int
tc_span_traceparent_parse(const char *text, struct tc_span_traceparent *out)
{
	size_t length;
	uint64_t version, flags;

	if (!text)
		return -EINVAL;
	while (is_ows(*text))
		text++;
	length = strlen(text);
	while (length > 0 && is_ows(text[length - 1]))
		length--;
	if (length < TRACEPARENT_V00_LENGTH || !parse_hex(text, 2, &version) || version == 0xff)
		return -EINVAL;
	if (version == 0 && length != TRACEPARENT_V00_LENGTH)
		return -EINVAL;
	if (length > TRACEPARENT_V00_LENGTH && text[TRACEPARENT_V00_LENGTH] != '-')
		return -EINVAL;
	if (text[2] != '-' || text[35] != '-' || text[52] != '-' ||
	    !parse_hex(text + 3, 16, &out->trace_id_hi) ||
	    !parse_hex(text + 19, 16, &out->trace_id_lo) ||
	    !parse_hex(text + 36, 16, &out->parent_id) || !parse_hex(text + 53, 2, &flags))
		return -EINVAL;
	if ((out->trace_id_hi | out->trace_id_lo) == 0 || out->parent_id == 0)
		return -EINVAL;
	/* Only the sampled bit has a meaning in version 00. */
	out->flags = (uint8_t)(flags & 0x01);
	return 0;
}

void
tc_span_traceparent_format(const struct tc_span_traceparent *in, char out[56])
{
	static const char digits[] = "0123456789abcdef";
	const uint64_t words[3] = { in->trace_id_hi, in->trace_id_lo, in->parent_id };
	char *p = out;

	*p++ = '0';
	*p++ = '0';
	for (unsigned int w = 0; w < 3; w++) {
		if (w != 1)
			*p++ = '-';
		for (int shift = 60; shift >= 0; shift -= 4)
			*p++ = digits[(words[w] >> shift) & 0xf];
	}
	*p++ = '-';
	*p++ = digits[(in->flags >> 4) & 0xf];
	*p++ = digits[in->flags & 0xf];
	*p = '\0';
}

static bool
is_lcalpha(char c)
{
	return c >= 'a' && c <= 'z';
}

static bool
is_key_char(char c)
{
	return is_lcalpha(c) || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '*' ||
	       c == '/';
}

static bool
valid_tenant_key(const char *tenant, size_t tenant_length, const char *system_id,
		 size_t system_length)
{
	if (memchr(system_id, '@', system_length))
		return false;
	return tenant_length >= 1 && tenant_length <= 241 &&
	       (is_lcalpha(tenant[0]) || (tenant[0] >= '0' && tenant[0] <= '9')) &&
	       system_length >= 1 && system_length <= 14 && is_lcalpha(system_id[0]);
}

/* simple-key = lcalpha 0*255(key-char);
 * multi-tenant-key = tenant-id "@" system-id, tenant-id = (lcalpha / DIGIT)
 * 0*240(key-char), system-id = lcalpha 0*13(key-char). */
static bool
valid_key(const char *key, size_t length)
{
	const char *at = memchr(key, '@', length);

	if (length == 0 || length > TRACESTATE_KEY_MAX)
		return false;
	for (size_t i = 0; i < length; i++) {
		if (key + i != at && !is_key_char(key[i]))
			return false;
	}
	if (!at)
		return is_lcalpha(key[0]);
	return valid_tenant_key(key, (size_t)(at - key), at + 1, length - (size_t)(at - key) - 1);
}

/* value = 0*255(chr) nblk-chr; chr = %x20 / nblk-chr;
 * nblk-chr = %x21-2B / %x2D-3C / %x3E-7E. */
static bool
valid_value(const char *value, size_t length)
{
	if (length == 0 || length > TRACESTATE_VALUE_MAX || value[length - 1] == ' ')
		return false;
	for (size_t i = 0; i < length; i++) {
		unsigned char c = (unsigned char)value[i];

		if (c < 0x20 || c > 0x7e || c == ',' || c == '=')
			return false;
	}
	return true;
}

struct member {
	const char *text;
	size_t length;
	size_t key_length;
};

/* Splits text into members, checking each; empty members are skipped. */
static int
split_members(const char *text, struct member members[TRACESTATE_MEMBERS_MAX], size_t *count)
{
	*count = 0;
	for (const char *p = text;;) {
		const char *comma = strchr(p, ',');
		const char *end = comma ? comma : p + strlen(p);
		const char *start = p, *equals;

		while (start < end && is_ows(*start))
			start++;
		while (end > start && is_ows(end[-1]))
			end--;
		if (end > start) {
			equals = memchr(start, '=', (size_t)(end - start));
			if (!equals || *count == TRACESTATE_MEMBERS_MAX ||
			    !valid_key(start, (size_t)(equals - start)) ||
			    !valid_value(equals + 1, (size_t)(end - equals - 1)))
				return -EINVAL;
			members[(*count)++] = (struct member){ start, (size_t)(end - start),
							       (size_t)(equals - start) };
		}
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static bool
has_duplicate_keys(const struct member *members, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		for (size_t j = i + 1; j < count; j++) {
			if (members[i].key_length == members[j].key_length &&
			    memcmp(members[i].text, members[j].text, members[i].key_length) == 0)
				return true;
		}
	}
	return false;
}

int
tc_span_tracestate_normalize(const char *text, char *out, size_t size)
{
	struct member members[TRACESTATE_MEMBERS_MAX];
	size_t count, used = 0;

	out[0] = '\0';
	if (!text)
		return 0;
	if (split_members(text, members, &count) < 0 || has_duplicate_keys(members, count))
		return -EINVAL;
	for (size_t i = 0; i < count; i++) {
		size_t need = members[i].length + (used ? 1 : 0);

		if (used + need + 1 > size)
			break;
		if (used)
			out[used++] = ',';
		memcpy(out + used, members[i].text, members[i].length);
		used += members[i].length;
	}
	out[used] = '\0';
	return 0;
}
