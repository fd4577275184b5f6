/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzzes event filters at both ends: the service's parser and compiler
 * (service/tracectld/tc-filter.c) with mutated expressions, and the
 * application's verifier and interpreter (probes/lib/tc-ust-filter.c) with
 * mutated and random bytecode. The first byte of an input picks the mode:
 *
 *   0  an expression: parsed; when accepted, compiled against a fixed
 *      event; a compiled program must pass the verifier, and runs on a
 *      record made from the input.
 *   1  a compiled program of a known expression, then changed at the
 *      (offset, byte) pairs the input gives: verified, run when accepted.
 *   2  a program of random instructions behind a valid header, mostly of
 *      valid opcodes with small arguments: verified, run when accepted.
 *
 * What must hold whatever the input: no access outside the program, the
 * record's pieces (each allocated to its exact size, strings sometimes
 * without their NUL) or the stack, and no undefined behaviour (the
 * program is built with AddressSanitizer and UBSan, which abort on the
 * first error); the verifier accepts whatever the compiler emits; every
 * run returns (a loop would fail the test by its time limit).
 *
 * With libFuzzer, from the top of the source tree (Debian's clang):
 *
 *   clang -g -O1 -D_GNU_SOURCE -DFUZZ_LIBFUZZER \
 *     -fsanitize=fuzzer,address,undefined \
 *     -Itests/fuzz -Icommon/abi -Iprobes/lib -Iprobes/include \
 *     -Iservice/tracectld $(pkg-config --cflags glib-2.0) \
 *     tests/fuzz/fuzz-filter.c service/tracectld/tc-filter.c \
 *     service/tracectld/tc-error.c probes/lib/tc-ust-filter.c \
 *     probes/lib/tc-ust-context.c $(pkg-config --libs gio-2.0) -o fuzz-filter
 *
 * Otherwise fuzz-driver.c's main() mutates the seeds below:
 * `fuzz-filter --seed N --runs M`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-driver.h"
#include "tc-filter-bytecode.h"
#include "tc-filter.h"
#include "tc-ust-filter.h"

static const struct tracectl_abi_field abi_fields[] = {
	{"intfield", TRACECTL_FIELD_SIGNED, 8}, {"small", TRACECTL_FIELD_UNSIGNED, 1},
	{"dbl", TRACECTL_FIELD_DOUBLE, 8},      {"strfield", TRACECTL_FIELD_STRING, 0},
	{"blob", TRACECTL_FIELD_BYTES, 0},      {"last", TRACECTL_FIELD_SIGNED, 4},
	{"ratio", TRACECTL_FIELD_FLOAT, 4},
	{"mask", TRACECTL_FIELD_UNSIGNED | TRACECTL_FIELD_HEX, 4},
	{"port", TRACECTL_FIELD_UNSIGNED | TRACECTL_FIELD_BIG_ENDIAN, 2},
	/* An array (one piece) and a sequence (two) that filters cannot
	 * read, then an integer they can, read from the piece after them. */
	{"samples", TRACECTL_FIELD_ARRAY | TRACECTL_FIELD_ELEMENT(TRACECTL_FIELD_UNSIGNED, 4), 4},
	{"seq", TRACECTL_FIELD_SEQUENCE | TRACECTL_FIELD_ELEMENT(TRACECTL_FIELD_SIGNED, 2), 0},
	{"tail", TRACECTL_FIELD_SIGNED, 4},
};

static const struct tracectl_ust_field ust_fields[] = {
	{"intfield", TRACECTL_UST_FIELD_SIGNED, 8}, {"small", TRACECTL_UST_FIELD_UNSIGNED, 1},
	{"dbl", TRACECTL_UST_FIELD_DOUBLE, 8},      {"strfield", TRACECTL_UST_FIELD_STRING, 0},
	{"blob", TRACECTL_UST_FIELD_BYTES, 0},      {"last", TRACECTL_UST_FIELD_SIGNED, 4},
	{"ratio", TRACECTL_UST_FIELD_FLOAT, 4},
	{"mask", TRACECTL_UST_FIELD_UNSIGNED | TRACECTL_UST_FIELD_HEX, 4},
	{"port", TRACECTL_UST_FIELD_UNSIGNED | TRACECTL_UST_FIELD_BIG_ENDIAN, 2},
	{"samples", TRACECTL_UST_FIELD_ARRAY |
			    TRACECTL_UST_FIELD_ELEMENT(TRACECTL_UST_FIELD_UNSIGNED, 4), 4},
	{"seq", TRACECTL_UST_FIELD_SEQUENCE |
			TRACECTL_UST_FIELD_ELEMENT(TRACECTL_UST_FIELD_SIGNED, 2), 0},
	{"tail", TRACECTL_UST_FIELD_SIGNED, 4},
};
#define NR_PIECES 14u

static const char *const expressions[] = {
	"intfield > 100 && strfield == \"x*\"",
	"(small | 1) == 7 || dbl * 2.5 >= -1e3",
	"!(last % 3 == 1) && ~intfield != 0 || strfield != \"a\\*b*\"",
	"$ctx.procname == \"fuzz*\" && $ctx.vpid > 0 || $ctx.vtid != intfield << 2",
	"intfield / last + small - 3 * (intfield >> 1) == (last ^ 5) & 0xff",
	"-dbl < 1.5 && strfield == strfield || !dbl",
	"ratio * 2 >= dbl && (mask & 0xf0) == 0x10 || ratio != ratio",
	"tail > 0 && intfield != tail || tail == -1",
};

enum outcome {
	PARSE_REFUSED,
	COMPILE_REFUSED,
	COMPILED_KEPT,
	COMPILED_DROPPED,
	MUTATED_REFUSED,
	MUTATED_RAN,
	RANDOM_REFUSED,
	RANDOM_RAN,
	OUTCOMES,
};

/* Named by the standalone driver only. */
static const char *const outcome_names[OUTCOMES] __attribute__((unused)) = {
	"parse refused", "compile refused", "compiled kept",  "compiled dropped",
	"mutated refused", "mutated ran",   "random refused", "random ran",
};

static unsigned long long outcomes[OUTCOMES];

/* A record of the fixed event, each piece in its own allocation of its
 * exact size. */
struct record {
	void *data[NR_PIECES];
	struct tracectl_ust_piece pieces[NR_PIECES];
};

static void *
piece_copy(struct fuzz_input *in, size_t len)
{
	uint8_t *data = malloc(len ? len : 1);

	if (!data)
		abort();
	for (size_t i = 0; i < len; i++)
		data[i] = fuzz_take_byte(in);
	return data;
}

static void
record_make(struct record *r, struct fuzz_input *in)
{
	static const size_t fixed[NR_PIECES] = {8, 1, 8, 0, 4, 0, 4, 4, 4, 2, 16, 4, 0, 4};
	uint8_t str_len = fuzz_take_byte(in) % 48, blob_len = fuzz_take_byte(in) % 8;
	uint8_t seq_len = fuzz_take_byte(in) % 8;
	uint8_t flags = fuzz_take_byte(in);
	uint8_t with_nul = flags & 1;
	/* As the tracepoint gives strings: NUL-terminated, not measured. */
	bool unmeasured = with_nul && (flags & 2);

	for (unsigned int i = 0; i < NR_PIECES; i++) {
		size_t len = fixed[i];

		if (i == 3)
			len = (size_t)str_len + with_nul;
		else if (i == 5)
			len = blob_len;
		else if (i == 12)
			len = seq_len * 2u;
		r->data[i] = piece_copy(in, len);
		if (i == 3 && with_nul)
			((char *)r->data[i])[str_len] = '\0';
		r->pieces[i] = (struct tracectl_ust_piece){r->data[i], len};
		if (i == 3 && unmeasured)
			r->pieces[i].len = TRACECTL_UST_PIECE_STRING;
	}
}

static void
record_free(struct record *r)
{
	for (unsigned int i = 0; i < NR_PIECES; i++)
		free(r->data[i]);
}

static bool
load_and_run(const void *bytecode, size_t size, struct fuzz_input *in, bool *ran)
{
	struct tc_ust_filter *filter = NULL;
	struct record record;
	bool kept;

	*ran = false;
	if (tc_ust_filter_load(bytecode, size, ust_fields, G_N_ELEMENTS(ust_fields), &filter) < 0)
		return false;
	record_make(&record, in);
	kept = tc_ust_filter_run(filter, record.pieces, NR_PIECES, (uint64_t)(uintptr_t)&record);
	record_free(&record);
	tc_ust_filter_free(filter);
	*ran = true;
	return kept;
}

static GBytes *
compile_text(const char *text)
{
	g_autoptr(TcFilterExpr) expr = tc_filter_parse(text, NULL);

	if (expr == NULL)
		return NULL;
	return tc_filter_compile(&expr, 1, abi_fields, G_N_ELEMENTS(abi_fields), NULL);
}

static void
fuzz_expression(struct fuzz_input *in)
{
	size_t len = strnlen((const char *)in->data + in->pos, in->size - in->pos);
	g_autofree char *text = g_strndup((const char *)in->data + in->pos, len);
	g_autoptr(TcFilterExpr) expr = NULL;
	g_autoptr(GBytes) bytecode = NULL;
	const void *data;
	gsize size;
	bool ran, kept;

	in->pos += len;
	expr = tc_filter_parse(text, NULL);
	if (expr == NULL) {
		outcomes[PARSE_REFUSED]++;
		return;
	}
	bytecode = tc_filter_compile(&expr, 1, abi_fields, G_N_ELEMENTS(abi_fields), NULL);
	if (bytecode == NULL) {
		outcomes[COMPILE_REFUSED]++;
		return;
	}
	data = g_bytes_get_data(bytecode, &size);
	kept = load_and_run(data, size, in, &ran);
	if (!ran) {
		fprintf(stderr, "the verifier refused the compiled program of '%s'\n", text);
		abort();
	}
	outcomes[kept ? COMPILED_KEPT : COMPILED_DROPPED]++;
}

static void
fuzz_mutated(struct fuzz_input *in)
{
	g_autoptr(GBytes) bytecode =
		compile_text(expressions[fuzz_take_byte(in) % G_N_ELEMENTS(expressions)]);
	gsize size;
	const uint8_t *data = g_bytes_get_data(bytecode, &size);
	g_autofree uint8_t *copy = g_memdup2(data, size);
	unsigned int changes = 1 + fuzz_take_byte(in) % 4;
	bool ran;

	for (unsigned int i = 0; i < changes; i++) {
		uint32_t offset = fuzz_take_u32(in) % size;

		copy[offset] = fuzz_take_byte(in);
	}
	/* Sometimes cut: the size must match the header. */
	if (fuzz_take_byte(in) == 0xff)
		size--;
	load_and_run(copy, size, in, &ran);
	outcomes[ran ? MUTATED_RAN : MUTATED_REFUSED]++;
}

static void
fuzz_random(struct fuzz_input *in)
{
	static const uint8_t ops[] = {
		TC_FILTER_OP_RETURN,	  TC_FILTER_OP_PUSH_INT, TC_FILTER_OP_PUSH_DOUBLE,
		TC_FILTER_OP_PUSH_STR,	  TC_FILTER_OP_LOAD_INT, TC_FILTER_OP_LOAD_DOUBLE,
		TC_FILTER_OP_LOAD_STR,	  TC_FILTER_OP_LOAD_CTX, TC_FILTER_OP_INT_TO_DOUBLE,
		TC_FILTER_OP_NOT,	  TC_FILTER_OP_NEG,	 TC_FILTER_OP_DTRUTH,
		TC_FILTER_OP_ADD,	  TC_FILTER_OP_DIV,	 TC_FILTER_OP_MOD,
		TC_FILTER_OP_SHL,	  TC_FILTER_OP_SHR,	 TC_FILTER_OP_EQ,
		TC_FILTER_OP_GT,	  TC_FILTER_OP_DADD,	 TC_FILTER_OP_DLT,
		TC_FILTER_OP_STR_EQ,	  TC_FILTER_OP_STR_NE,	 TC_FILTER_OP_AND,
		TC_FILTER_OP_OR,
	};
	uint8_t program[TC_FILTER_BYTECODE_MAX];
	struct tc_filter_header header = {
		.magic = TC_FILTER_MAGIC,
		.version = TC_FILTER_VERSION,
		.nr_insns = (uint16_t)(1 + fuzz_take_byte(in) % 24),
		.strings_len = (uint16_t)(fuzz_take_byte(in) % 16),
	};
	struct tc_filter_insn *insns = (void *)(program + sizeof(header));
	size_t size = sizeof(header) + header.nr_insns * sizeof(*insns) + header.strings_len;
	bool ran;

	memcpy(program, &header, sizeof(header));
	for (unsigned int i = 0; i < header.nr_insns; i++) {
		uint8_t shape = fuzz_take_byte(in);

		insns[i] = (struct tc_filter_insn){
			.op = shape < 240 ? ops[shape % sizeof(ops)] : fuzz_take_byte(in),
			.flags = (shape & 0x20) ? fuzz_take_byte(in) & 1 : 0,
			.arg16 = (shape & 0x40) ? fuzz_take_byte(in) % 14 : 0,
			.arg32 = (shape & 0x80) ? fuzz_take_byte(in) % 32 : 0,
		};
	}
	for (unsigned int i = 0; i < header.strings_len; i++)
		program[sizeof(header) + header.nr_insns * sizeof(*insns) + i] = fuzz_take_byte(in);
	load_and_run(program, size, in, &ran);
	outcomes[ran ? RANDOM_RAN : RANDOM_REFUSED]++;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = {.data = data, .size = size};

	switch (fuzz_take_byte(&in) % 3) {
	case 0:
		fuzz_expression(&in);
		break;
	case 1:
		fuzz_mutated(&in);
		break;
	default:
		fuzz_random(&in);
		break;
	}
	return 0;
}

#ifndef FUZZ_LIBFUZZER
#define SEED(text) {(const uint8_t *)(text), sizeof(text) - 1}
static const struct fuzz_seed seeds[] = {
	SEED("\0intfield > 100 && strfield == \"x*\"\0\x05\x01\x01xxxxx"),
	SEED("\0(small | 1) == 7 || dbl * 2.5 >= -1e3"),
	SEED("\0!(last % 3 == 1) && ~intfield != 0 || strfield != \"a\\*b*\""),
	SEED("\0$ctx.procname == \"fuzz*\" || $ctx.vtid != intfield << 2"),
	SEED("\0intfield / last + small - 3 * (intfield >> 1) == (last ^ 5) & 0xff"),
	SEED("\0((((intfield)))) == -(-(1)) && \"a*\" == strfield || blob == 1"),
	SEED("\0strfield < \"a\" || nosuch > 1.5e400 || $ctx.what"),
	SEED("\0tail > 0 && intfield != tail || tail == -1\0\x03\x02\x05xxx"),
	SEED("\0samples == 1 || seq > 0 || tail == 7"),
	SEED("\x01\x07\x02\x20\x00\x00\x00\x0b"),
	SEED("\x01\x00\x02\x10\x00\x00\x00\x07\x20\x00\x00\x00\x41"),
	SEED("\x01\x03\x01\x08\x00\x00\x00\x3c\x00"),
	SEED("\x01\x05\x03\x30\x00\x00\x00\x01\x0c\x00\x00\x00\x1e\x02\x00\x00\x00\xff"),
	SEED("\x02\x05\x04\x04\x60\x00\x10\x01\x21\x05\x00"),
	SEED("\x02\x03\x00\x82\x02\x01\x00\x00"),
	SEED("\x02\x10\x08\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc\xdd\xee\xff"),
};

const struct fuzz_harness fuzz_harness = {
	.seeds = seeds,
	.nr_seeds = G_N_ELEMENTS(seeds),
	.input_max = 1024,
	.outcome_names = outcome_names,
	.outcomes = outcomes,
	.nr_outcomes = OUTCOMES,
};
#endif
