/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * State dump records to lttng_statedump_* events. The helper encoded each
 * payload as the metadata declares the event's fields (the table of
 * tc-kernel-statedump.c), so a record is checked against that table and
 * copied as it is; the metadata is printed from the same table.
 */
#include "tc-consumerd-kernel-statedump.h"

#include <string.h>

#include "tc-kernel-statedump.h"

/* The kernel rounds a record's length up to 4 bytes. */
#define RECORD_PADDING_MAX 3u

static void
print_field(FILE *out, const struct tc_kernel_statedump_field *field)
{
	fputs("\t\t", out);
	switch (field->type) {
	case TC_KERNEL_STATEDUMP_STRING:
		fprintf(out, "string { encoding = UTF8; } _%s;\n", field->name);
		break;
	case TC_KERNEL_STATEDUMP_TEXT:
		fprintf(out,
			"integer { size = 8; align = 8; signed = false; encoding = UTF8; base = 10; } "
			"_%s[%u];\n",
			field->name, field->size);
		break;
	default:
		fprintf(out, "integer { size = %u; align = 8; signed = %s; base = %u;%s } _%s;\n",
			field->size * 8u, field->is_signed ? "true" : "false", field->base,
			field->type == TC_KERNEL_STATEDUMP_INT_BE ? " byte_order = be;" : "",
			field->name);
	}
}

void
tc_consumerd_kernel_statedump_metadata(FILE *out)
{
	for (unsigned int kind = 0; kind < TC_KERNEL_STATEDUMP_KINDS; kind++) {
		const struct tc_kernel_statedump_event *event = tc_kernel_statedump_event(kind);

		fprintf(out, "event {\n\tname = \"%s\";\n\tid = %u;\n\tstream_id = 0;\n", event->name,
			CONSUMERD_KERNEL_STATEDUMP_ID_BASE + kind);
		if (event->n_fields == 0) {
			fputs("};\n\n", out);
			continue;
		}
		fputs("\tfields := struct {\n", out);
		for (unsigned int i = 0; i < event->n_fields; i++)
			print_field(out, &event->fields[i]);
		fputs("\t} align(8);\n};\n\n", out);
	}
}

bool
tc_consumerd_kernel_statedump_decode(const struct tc_consumerd_kernel_statedump_layout *layout,
				     const uint8_t *data, uint32_t size, uint32_t *event_id,
				     const uint8_t **payload, uint32_t *len)
{
	uint32_t id, kind;
	size_t used;

	if (layout->id_offset > size || size - layout->id_offset < sizeof(id) ||
	    layout->buf_offset > size)
		return false;
	memcpy(&id, data + layout->id_offset, sizeof(id));
	if ((id & TC_KERNEL_STATEDUMP_MARKER_MASK) != TC_KERNEL_STATEDUMP_MARKER)
		return false;
	kind = id & ~TC_KERNEL_STATEDUMP_MARKER_MASK;
	if (!tc_kernel_statedump_payload_parse(kind, data + layout->buf_offset,
					       size - layout->buf_offset, &used) ||
	    size - layout->buf_offset - used > RECORD_PADDING_MAX)
		return false;
	*event_id = CONSUMERD_KERNEL_STATEDUMP_ID_BASE + kind;
	*payload = data + layout->buf_offset;
	*len = (uint32_t)used;
	return true;
}
