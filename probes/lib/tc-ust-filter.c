/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The filter verifier and interpreter. The verifier turns the wire program
 * into an array of runnable instructions whose loads are specialised by
 * field size and signedness and point at the field's payload piece, whose
 * immediates are inline and whose jump targets are indices into that
 * array; the interpreter then relies on what the verifier proved (stack
 * depth and slot types at each instruction, forward jumps, piece indices
 * below the event's piece count) and only checks values.
 */
#include "tc-ust-filter.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tc-filter-bytecode.h"
#include "tc-ust-context.h"

enum run_op {
	RUN_RETURN,
	RUN_PUSH_INT,
	RUN_PUSH_DOUBLE,
	RUN_PUSH_STR,
	RUN_LOAD_S8,
	RUN_LOAD_S16,
	RUN_LOAD_S32,
	RUN_LOAD_S64,
	RUN_LOAD_U8,
	RUN_LOAD_U16,
	RUN_LOAD_U32,
	RUN_LOAD_U64,
	RUN_LOAD_DOUBLE,
	RUN_LOAD_FLOAT,
	RUN_LOAD_STR,
	RUN_LOAD_CTX_INT,
	RUN_LOAD_CTX_STR,
	RUN_INT_TO_DOUBLE,
	RUN_NOT,
	RUN_NEG,
	RUN_BIT_NOT,
	RUN_DNEG,
	RUN_DTRUTH,
	RUN_ADD,
	RUN_SUB,
	RUN_MUL,
	RUN_DIV,
	RUN_MOD,
	RUN_BIT_AND,
	RUN_BIT_OR,
	RUN_BIT_XOR,
	RUN_SHL,
	RUN_SHR,
	RUN_EQ,
	RUN_NE,
	RUN_LT,
	RUN_LE,
	RUN_GT,
	RUN_GE,
	RUN_DADD,
	RUN_DSUB,
	RUN_DMUL,
	RUN_DDIV,
	RUN_DEQ,
	RUN_DNE,
	RUN_DLT,
	RUN_DLE,
	RUN_DGT,
	RUN_DGE,
	RUN_STR_EQ,
	RUN_STR_NE,
	RUN_GLOB_EQ,
	RUN_GLOB_NE,
	RUN_AND,
	RUN_OR,
	/* Fused: an integer field compared with a constant (load in .load),
	 * a string field with a literal; each stands for three instructions. */
	RUN_FIELD_EQ_IMM,
	RUN_FIELD_NE_IMM,
	RUN_FIELD_LT_IMM,
	RUN_FIELD_LE_IMM,
	RUN_FIELD_GT_IMM,
	RUN_FIELD_GE_IMM,
	RUN_FIELD_STR_EQ,
	RUN_FIELD_STR_NE,
	RUN_FIELD_GLOB_EQ,
	RUN_FIELD_GLOB_NE,
};

struct run_insn {
	uint8_t op; /* enum run_op */
	uint8_t load; /* fused integer compares: the RUN_LOAD_* of the field */
	uint16_t piece; /* loads: the field's payload piece */
	uint32_t target; /* AND, OR: index into insns; LOAD_CTX_*: context bit */
	union {
		int64_t i;
		double d;
		struct {
			uint32_t offset;
			uint32_t len;
		} str;
	} imm;
};

struct tc_ust_filter {
	uint32_t nr_insns;
	uint32_t nr_pieces; /* pieces of the event: at least one more than any load's */
	char *strings;
	struct run_insn insns[];
};

enum slot_type { SLOT_INT = 1, SLOT_DOUBLE = 2, SLOT_STR = 3 };

/* The stack's depth and slot types expected at an instruction. */
struct stack_state {
	int8_t depth; /* -1: nothing recorded */
	uint8_t types[TC_FILTER_STACK_MAX];
};

struct verifier {
	const struct tc_filter_insn *slots;
	uint32_t nr_slots;
	uint32_t strings_len;
	const struct tracectl_ust_field *fields;
	uint32_t nr_fields;
	struct stack_state now;
	bool reachable;
	struct stack_state at[TC_FILTER_INSNS_MAX];   /* recorded by jumps */
	uint32_t run_index[TC_FILTER_INSNS_MAX];       /* slot -> insns index */
	bool starts_insn[TC_FILTER_INSNS_MAX];
	struct tc_ust_filter *out;
};

static bool
pop(struct verifier *v, enum slot_type type)
{
	if (v->now.depth <= 0 || v->now.types[v->now.depth - 1] != type)
		return false;
	v->now.depth--;
	return true;
}

static bool
push(struct verifier *v, enum slot_type type)
{
	if (v->now.depth >= (int)TC_FILTER_STACK_MAX)
		return false;
	v->now.types[v->now.depth++] = (uint8_t)type;
	return true;
}

static bool
same_state(const struct stack_state *a, const struct stack_state *b)
{
	return a->depth == b->depth && memcmp(a->types, b->types, (size_t)a->depth) == 0;
}

/* The payload piece of field index, the pieces of bytes and sequence
 * fields being two (length, then contents). */
static uint32_t
piece_of_field(const struct verifier *v, uint32_t index)
{
	uint32_t piece = 0;

	for (uint32_t i = 0; i < index; i++) {
		uint32_t kind = tracectl_abi_field_kind(v->fields[i].type);

		piece += kind == TRACECTL_UST_FIELD_BYTES || kind == TRACECTL_UST_FIELD_SEQUENCE ? 2
												 : 1;
	}
	return piece;
}

static int
load_op_of_field(const struct tracectl_ust_field *field, uint8_t wire_op)
{
	static const uint8_t signed_ops[9] = {[1] = RUN_LOAD_S8, [2] = RUN_LOAD_S16,
					      [4] = RUN_LOAD_S32, [8] = RUN_LOAD_S64};
	static const uint8_t unsigned_ops[9] = {[1] = RUN_LOAD_U8, [2] = RUN_LOAD_U16,
						[4] = RUN_LOAD_U32, [8] = RUN_LOAD_U64};

	uint32_t size = tracectl_abi_field_integer_size(field->type, field->size);

	switch (wire_op) {
	case TC_FILTER_OP_LOAD_INT:
		/* Shown in any base, read as stored: not in network order. An
		 * enumeration is read as its container. */
		if (size > 8 || !tracectl_abi_field_is_native_integer(field->type))
			return -1;
		if (tracectl_abi_field_integer_is_signed(field->type))
			return signed_ops[size] ? signed_ops[size] : -1;
		return unsigned_ops[size] ? unsigned_ops[size] : -1;
	case TC_FILTER_OP_LOAD_DOUBLE:
		if (field->type == TRACECTL_UST_FIELD_FLOAT && field->size == 4)
			return RUN_LOAD_FLOAT;
		return field->type == TRACECTL_UST_FIELD_DOUBLE && field->size == 8 ? RUN_LOAD_DOUBLE
										     : -1;
	case TC_FILTER_OP_LOAD_STR:
		return field->type == TRACECTL_UST_FIELD_STRING ? RUN_LOAD_STR : -1;
	default:
		return -1;
	}
}

/* Records the state a jump from slot to target expects there. */
static bool
record_jump(struct verifier *v, uint32_t slot, uint32_t target)
{
	struct stack_state *at;

	if (target <= slot || target >= v->nr_slots)
		return false;
	at = &v->at[target];
	if (at->depth >= 0)
		return same_state(at, &v->now);
	*at = v->now;
	return true;
}

static bool
verify_binary(struct verifier *v, enum slot_type operand, enum slot_type result)
{
	return pop(v, operand) && pop(v, operand) && push(v, result);
}

/* Verifies the instruction at slot and appends its runnable form. Returns
 * the slots it takes (1 or 2), or 0 when it breaks a rule. */
/* The context each $ctx reference reads (0: none); the filter runs it
 * through the same caches the records' contexts come from. */
static const uint32_t context_bits[TC_FILTER_CTX_MAX + 1] = {
	[TC_FILTER_CTX_VPID] = TRACECTL_CONTEXT_VPID,
	[TC_FILTER_CTX_VTID] = TRACECTL_CONTEXT_VTID,
	[TC_FILTER_CTX_PROCNAME] = TRACECTL_CONTEXT_PROCNAME,
	[TC_FILTER_CTX_PTHREAD_ID] = TRACECTL_CONTEXT_PTHREAD_ID,
	[TC_FILTER_CTX_VUID] = TRACECTL_CONTEXT_VUID,
	[TC_FILTER_CTX_VEUID] = TRACECTL_CONTEXT_VEUID,
	[TC_FILTER_CTX_VSUID] = TRACECTL_CONTEXT_VSUID,
	[TC_FILTER_CTX_VGID] = TRACECTL_CONTEXT_VGID,
	[TC_FILTER_CTX_VEGID] = TRACECTL_CONTEXT_VEGID,
	[TC_FILTER_CTX_VSGID] = TRACECTL_CONTEXT_VSGID,
	[TC_FILTER_CTX_CGROUP_NS] = TRACECTL_CONTEXT_CGROUP_NS,
	[TC_FILTER_CTX_IPC_NS] = TRACECTL_CONTEXT_IPC_NS,
	[TC_FILTER_CTX_MNT_NS] = TRACECTL_CONTEXT_MNT_NS,
	[TC_FILTER_CTX_NET_NS] = TRACECTL_CONTEXT_NET_NS,
	[TC_FILTER_CTX_PID_NS] = TRACECTL_CONTEXT_PID_NS,
	[TC_FILTER_CTX_TIME_NS] = TRACECTL_CONTEXT_TIME_NS,
	[TC_FILTER_CTX_USER_NS] = TRACECTL_CONTEXT_USER_NS,
	[TC_FILTER_CTX_UTS_NS] = TRACECTL_CONTEXT_UTS_NS,
	[TC_FILTER_CTX_IP] = TRACECTL_CONTEXT_IP,
};

static uint32_t
verify_insn(struct verifier *v, uint32_t slot)
{
	const struct tc_filter_insn *in = &v->slots[slot];
	struct run_insn *out = &v->out->insns[v->out->nr_insns];
	bool no_args = in->flags == 0 && in->arg16 == 0 && in->arg32 == 0;
	uint32_t taken = 1;
	int op;

	memset(out, 0, sizeof(*out));
	switch (in->op) {
	case TC_FILTER_OP_RETURN:
		if (!no_args || !pop(v, SLOT_INT))
			return 0;
		out->op = RUN_RETURN;
		v->reachable = false;
		break;
	case TC_FILTER_OP_PUSH_INT:
	case TC_FILTER_OP_PUSH_DOUBLE:
		if (!no_args || slot + 1 >= v->nr_slots ||
		    !push(v, in->op == TC_FILTER_OP_PUSH_INT ? SLOT_INT : SLOT_DOUBLE))
			return 0;
		out->op = in->op == TC_FILTER_OP_PUSH_INT ? RUN_PUSH_INT : RUN_PUSH_DOUBLE;
		memcpy(&out->imm, &v->slots[slot + 1], sizeof(int64_t));
		taken = 2;
		break;
	case TC_FILTER_OP_PUSH_STR:
		if (in->flags != 0 || in->arg32 > v->strings_len ||
		    in->arg16 > v->strings_len - in->arg32 || !push(v, SLOT_STR))
			return 0;
		out->op = RUN_PUSH_STR;
		out->imm.str.offset = in->arg32;
		out->imm.str.len = in->arg16;
		break;
	case TC_FILTER_OP_LOAD_INT:
	case TC_FILTER_OP_LOAD_DOUBLE:
	case TC_FILTER_OP_LOAD_STR:
		if (in->flags != 0 || in->arg32 != 0 || in->arg16 >= v->nr_fields)
			return 0;
		op = load_op_of_field(&v->fields[in->arg16], in->op);
		if (op < 0 ||
		    !push(v, op == RUN_LOAD_STR					   ? SLOT_STR
			     : op == RUN_LOAD_DOUBLE || op == RUN_LOAD_FLOAT ? SLOT_DOUBLE
									     : SLOT_INT))
			return 0;
		out->op = (uint8_t)op;
		out->piece = (uint16_t)piece_of_field(v, in->arg16);
		break;
	case TC_FILTER_OP_LOAD_CTX:
		if (in->flags != 0 || in->arg16 != 0 || in->arg32 > TC_FILTER_CTX_MAX ||
		    context_bits[in->arg32] == 0)
			return 0;
		out->target = context_bits[in->arg32];
		out->op = out->target == TRACECTL_CONTEXT_PROCNAME ? RUN_LOAD_CTX_STR
								   : RUN_LOAD_CTX_INT;
		if (!push(v, out->op == RUN_LOAD_CTX_STR ? SLOT_STR : SLOT_INT))
			return 0;
		break;
	case TC_FILTER_OP_INT_TO_DOUBLE:
		if (!no_args || !pop(v, SLOT_INT) || !push(v, SLOT_DOUBLE))
			return 0;
		out->op = RUN_INT_TO_DOUBLE;
		break;
	case TC_FILTER_OP_NOT:
	case TC_FILTER_OP_NEG:
	case TC_FILTER_OP_BIT_NOT:
		if (!no_args || !pop(v, SLOT_INT) || !push(v, SLOT_INT))
			return 0;
		out->op = in->op == TC_FILTER_OP_NOT   ? RUN_NOT
			  : in->op == TC_FILTER_OP_NEG ? RUN_NEG
						       : RUN_BIT_NOT;
		break;
	case TC_FILTER_OP_DNEG:
		if (!no_args || !pop(v, SLOT_DOUBLE) || !push(v, SLOT_DOUBLE))
			return 0;
		out->op = RUN_DNEG;
		break;
	case TC_FILTER_OP_DTRUTH:
		if (!no_args || !pop(v, SLOT_DOUBLE) || !push(v, SLOT_INT))
			return 0;
		out->op = RUN_DTRUTH;
		break;
	case TC_FILTER_OP_ADD ... TC_FILTER_OP_GE:
		if (!no_args || !verify_binary(v, SLOT_INT, SLOT_INT))
			return 0;
		out->op = (uint8_t)(RUN_ADD + (in->op - TC_FILTER_OP_ADD));
		break;
	case TC_FILTER_OP_DADD ... TC_FILTER_OP_DDIV:
		if (!no_args || !verify_binary(v, SLOT_DOUBLE, SLOT_DOUBLE))
			return 0;
		out->op = (uint8_t)(RUN_DADD + (in->op - TC_FILTER_OP_DADD));
		break;
	case TC_FILTER_OP_DEQ ... TC_FILTER_OP_DGE:
		if (!no_args || !verify_binary(v, SLOT_DOUBLE, SLOT_INT))
			return 0;
		out->op = (uint8_t)(RUN_DEQ + (in->op - TC_FILTER_OP_DEQ));
		break;
	case TC_FILTER_OP_STR_EQ:
	case TC_FILTER_OP_STR_NE:
		if ((in->flags & ~TC_FILTER_STR_GLOB) != 0 || in->arg16 != 0 || in->arg32 != 0 ||
		    !verify_binary(v, SLOT_STR, SLOT_INT))
			return 0;
		if (in->flags & TC_FILTER_STR_GLOB)
			out->op = in->op == TC_FILTER_OP_STR_EQ ? RUN_GLOB_EQ : RUN_GLOB_NE;
		else
			out->op = in->op == TC_FILTER_OP_STR_EQ ? RUN_STR_EQ : RUN_STR_NE;
		break;
	case TC_FILTER_OP_AND:
	case TC_FILTER_OP_OR:
		if (in->flags != 0 || in->arg16 != 0 || v->now.depth <= 0 ||
		    v->now.types[v->now.depth - 1] != SLOT_INT || !record_jump(v, slot, in->arg32))
			return 0;
		/* Fixed up once every slot has its index (verify_program). */
		out->op = in->op == TC_FILTER_OP_AND ? RUN_AND : RUN_OR;
		out->target = in->arg32;
		v->now.depth--;
		break;
	default:
		return 0;
	}
	return taken;
}

static bool
is_int_load(uint8_t op)
{
	return op >= RUN_LOAD_S8 && op <= RUN_LOAD_U64;
}

/*
 * Turns each "field OP constant" triple (a load, a push, a comparison)
 * into one instruction that does all three and skips the other two,
 * which stay in place, so that a jump into the middle of a triple (which
 * the compiler never emits, but a program may hold) still runs them.
 * The fused instruction reads and writes the stack exactly as the three
 * do, so it keeps what the verifier proved.
 */
static void
fuse(struct tc_ust_filter *filter)
{
	for (uint32_t i = 0; i + 2 < filter->nr_insns; i++) {
		struct run_insn *load = &filter->insns[i];
		const struct run_insn *push = &filter->insns[i + 1];
		uint8_t compare = filter->insns[i + 2].op;

		if (is_int_load(load->op) && push->op == RUN_PUSH_INT && compare >= RUN_EQ &&
		    compare <= RUN_GE) {
			load->load = load->op;
			load->op = (uint8_t)(RUN_FIELD_EQ_IMM + (compare - RUN_EQ));
			load->imm = push->imm;
		} else if (load->op == RUN_LOAD_STR && push->op == RUN_PUSH_STR &&
			   compare >= RUN_STR_EQ && compare <= RUN_GLOB_NE) {
			load->op = (uint8_t)(RUN_FIELD_STR_EQ + (compare - RUN_STR_EQ));
			load->imm = push->imm;
		}
	}
}

static int
verify_program(struct verifier *v)
{
	uint32_t slot = 0;

	v->now.depth = 0;
	v->reachable = true;
	for (uint32_t i = 0; i < v->nr_slots; i++)
		v->at[i].depth = -1;
	while (slot < v->nr_slots) {
		uint32_t taken;

		/* Where paths meet, they must agree; code no path reaches is
		 * refused rather than verified against a guess. */
		if (v->at[slot].depth >= 0) {
			if (v->reachable && !same_state(&v->at[slot], &v->now))
				return -EINVAL;
			v->now = v->at[slot];
			v->reachable = true;
		}
		if (!v->reachable)
			return -EINVAL;
		v->starts_insn[slot] = true;
		v->run_index[slot] = v->out->nr_insns;
		taken = verify_insn(v, slot);
		if (taken == 0)
			return -EINVAL;
		v->out->nr_insns++;
		slot += taken;
	}
	/* The last instruction ran into the end of the program. */
	if (v->reachable)
		return -EINVAL;
	for (uint32_t i = 0; i < v->out->nr_insns; i++) {
		struct run_insn *insn = &v->out->insns[i];

		if (insn->op != RUN_AND && insn->op != RUN_OR)
			continue;
		/* A jump into an immediate. */
		if (!v->starts_insn[insn->target])
			return -EINVAL;
		insn->target = v->run_index[insn->target];
	}
	fuse(v->out);
	return 0;
}

int
tc_ust_filter_load(const void *bytecode, size_t size, const struct tracectl_ust_field *fields,
		   uint32_t nr_fields, struct tc_ust_filter **filter)
{
	struct tc_filter_header header;
	struct verifier *v;
	size_t code_size;
	int ret;

	*filter = NULL;
	if (size < sizeof(header) || size > TC_FILTER_BYTECODE_MAX)
		return -EINVAL;
	memcpy(&header, bytecode, sizeof(header));
	if (header.magic != TC_FILTER_MAGIC || header.version != TC_FILTER_VERSION ||
	    header.reserved != 0 || header.nr_insns == 0 || header.nr_insns > TC_FILTER_INSNS_MAX ||
	    header.strings_len > TC_FILTER_STRINGS_MAX)
		return -EINVAL;
	code_size = (size_t)header.nr_insns * sizeof(struct tc_filter_insn);
	if (size != sizeof(header) + code_size + header.strings_len)
		return -EINVAL;

	v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	v->out = calloc(1, sizeof(*v->out) + header.nr_insns * sizeof(struct run_insn) +
				   header.strings_len + 1);
	v->slots = malloc(code_size);
	if (!v->out || !v->slots) {
		ret = -ENOMEM;
		goto out;
	}
	memcpy((void *)v->slots, (const char *)bytecode + sizeof(header), code_size);
	v->nr_slots = header.nr_insns;
	v->strings_len = header.strings_len;
	v->fields = fields;
	v->nr_fields = nr_fields;
	v->out->strings = (char *)&v->out->insns[header.nr_insns];
	memcpy(v->out->strings, (const char *)bytecode + sizeof(header) + code_size,
	       header.strings_len);
	v->out->nr_pieces = piece_of_field(v, nr_fields);
	ret = verify_program(v);
	if (ret == 0) {
		*filter = v->out;
		v->out = NULL;
	}
out:
	free(v->out);
	free((void *)v->slots);
	free(v);
	return ret;
}

void
tc_ust_filter_free(struct tc_ust_filter *filter)
{
	free(filter);
}

struct value {
	union {
		int64_t i;
		double d;
		const char *s;
	};
	size_t len; /* strings: bytes, without any NUL */
};

/* LTTng's glob: '*' matches any run of characters, "\*" a star, the rest
 * itself; the whole string must match. Iterative: on a mismatch after a
 * star, the star takes one more character, so the time is bounded by
 * len(text) * len(glob) and the stack does not grow. */
static bool
glob_match(const char *glob, size_t glob_len, const char *text, size_t text_len)
{
	size_t g = 0, t = 0, star_g = SIZE_MAX, star_t = 0;

	/* text_len may be TRACECTL_UST_PIECE_STRING: then the NUL ends the
	 * text, and no byte past it is read. */
	while (t < text_len && text[t] != '\0') {
		if (g < glob_len && glob[g] == '*') {
			star_g = ++g;
			star_t = t;
			continue;
		}
		if (g < glob_len) {
			char c = glob[g];
			size_t step = 1;

			if (c == '\\' && g + 1 < glob_len && glob[g + 1] == '*') {
				c = '*';
				step = 2;
			}
			if (c == text[t]) {
				g += step;
				t++;
				continue;
			}
		}
		if (star_g == SIZE_MAX)
			return false;
		g = star_g;
		t = ++star_t;
	}
	while (g < glob_len && glob[g] == '*')
		g++;
	return g == glob_len;
}

static bool
string_equal(const struct value *a, const struct value *b)
{
	return a->len == b->len && memcmp(a->s, b->s, a->len) == 0;
}

/*
 * The interpreter dispatches with computed gotos ("labels as values", a GNU
 * extension): each instruction ends with its own indirect jump, which the
 * processor predicts from that instruction's history, where the single
 * jump of a switch mispredicts at almost every instruction (four times as
 * slow on the benchmark's filter, tests/bench/bench-filter.py).
 */
#define NEXT()                                                                             \
	do {                                                                               \
		insn++;                                                                    \
		goto *dispatch[insn->op];                                                  \
	} while (0)

#define LOAD_AS(type)                                                                      \
	do {                                                                               \
		type _value;                                                               \
		memcpy(&_value, pieces[insn->piece].data, sizeof(_value));                 \
		(++top)->i = (int64_t)_value;                                              \
		NEXT();                                                                    \
	} while (0)

#define NEXT_AFTER_FUSED()                                                                 \
	do {                                                                               \
		insn += 3;                                                                 \
		goto *dispatch[insn->op];                                                  \
	} while (0)

/* An integer field, for the fused comparisons. */
static inline int64_t
load_int(uint8_t load, const void *data)
{
	switch (load) {
	case RUN_LOAD_S8:
		return *(const int8_t *)data;
	case RUN_LOAD_U8:
		return *(const uint8_t *)data;
	case RUN_LOAD_S16: {
		int16_t value;

		memcpy(&value, data, sizeof(value));
		return value;
	}
	case RUN_LOAD_U16: {
		uint16_t value;

		memcpy(&value, data, sizeof(value));
		return value;
	}
	case RUN_LOAD_S32: {
		int32_t value;

		memcpy(&value, data, sizeof(value));
		return value;
	}
	case RUN_LOAD_U32: {
		uint32_t value;

		memcpy(&value, data, sizeof(value));
		return value;
	}
	default: {
		uint64_t value;

		memcpy(&value, data, sizeof(value));
		return (int64_t)value;
	}
	}
}

#define FIELD_COMPARE(cmp)                                                                 \
	do {                                                                               \
		(++top)->i = load_int(insn->load, pieces[insn->piece].data) cmp insn->imm.i; \
		NEXT_AFTER_FUSED();                                                        \
	} while (0)

#define BINARY(expr)                                                                       \
	do {                                                                               \
		top[-1].i = (expr);                                                        \
		top--;                                                                     \
		NEXT();                                                                    \
	} while (0)

/* A string field's bytes without its NUL, never past its piece: a
 * measured piece holds strlen() + 1 bytes, so a final NUL is the only one;
 * an unmeasured one (TRACECTL_UST_PIECE_STRING) is measured here, as an
 * operation that needs the length of the field comes. */
static inline void
load_string_piece(struct value *value, const struct tracectl_ust_piece *piece)
{
	const char *data = piece->data;

	value->s = data;
	if (piece->len == TRACECTL_UST_PIECE_STRING)
		value->len = strlen(data);
	else if (__builtin_expect(piece->len > 0 && data[piece->len - 1] == '\0', 1))
		value->len = piece->len - 1;
	else
		value->len = strnlen(data, piece->len);
}

/* Whether an unmeasured string field equals the literal: reads the field
 * up to its NUL or one byte past the literal's length, whichever comes
 * first, so that a rejected event's string is never measured whole. */
static inline bool
unmeasured_string_equal(const char *text, const struct value *literal)
{
	for (size_t i = 0; i < literal->len; i++)
		if (text[i] == '\0' || text[i] != literal->s[i])
			return false;
	return text[literal->len] == '\0';
}

/* A string field compared with a literal, the field measured only when
 * the filter needs its length (piece measured already). */
static inline bool
field_string_matches(uint8_t op, const struct tracectl_ust_piece *piece,
		     const struct value *literal)
{
	struct value field;

	if (piece->len == TRACECTL_UST_PIECE_STRING) {
		field.s = piece->data;
		field.len = TRACECTL_UST_PIECE_STRING;
	} else {
		load_string_piece(&field, piece);
	}
	switch (op) {
	case RUN_FIELD_STR_EQ:
	case RUN_FIELD_STR_NE:
		return (op == RUN_FIELD_STR_EQ) ==
		       (field.len == TRACECTL_UST_PIECE_STRING
				? unmeasured_string_equal(field.s, literal)
				: string_equal(&field, literal));
	case RUN_FIELD_GLOB_EQ:
		return glob_match(literal->s, literal->len, field.s, field.len);
	default:
		return !glob_match(literal->s, literal->len, field.s, field.len);
	}
}

/* An integer context as the record holds it: vpid and vtid signed 32-bit,
 * the ids unsigned 32-bit, the others unsigned 64-bit. */
static int64_t
context_integer(uint32_t bit, uint64_t ip)
{
	uint8_t context[TC_UST_CONTEXT_MAX];
	uint32_t size = tc_ust_context_fill(bit, ip, context);
	int32_t pid;
	uint32_t id;
	uint64_t value;

	if (size == sizeof(int32_t) && (bit & (TRACECTL_CONTEXT_VPID | TRACECTL_CONTEXT_VTID))) {
		memcpy(&pid, context, sizeof(pid));
		return pid;
	}
	if (size == sizeof(uint32_t)) {
		memcpy(&id, context, sizeof(id));
		return id;
	}
	memcpy(&value, context, sizeof(value));
	return (int64_t)value;
}

bool
tc_ust_filter_run(const struct tc_ust_filter *filter, const struct tracectl_ust_piece *pieces,
		  unsigned int nr_pieces, uint64_t ip)
{
	static const void *const dispatch[] = {
		[RUN_RETURN] = &&op_return,
		[RUN_PUSH_INT] = &&op_push_int,
		[RUN_PUSH_DOUBLE] = &&op_push_double,
		[RUN_PUSH_STR] = &&op_push_str,
		[RUN_LOAD_S8] = &&op_load_s8,
		[RUN_LOAD_S16] = &&op_load_s16,
		[RUN_LOAD_S32] = &&op_load_s32,
		[RUN_LOAD_S64] = &&op_load_s64,
		[RUN_LOAD_U8] = &&op_load_u8,
		[RUN_LOAD_U16] = &&op_load_u16,
		[RUN_LOAD_U32] = &&op_load_u32,
		[RUN_LOAD_U64] = &&op_load_u64,
		[RUN_LOAD_DOUBLE] = &&op_load_double,
		[RUN_LOAD_FLOAT] = &&op_load_float,
		[RUN_LOAD_STR] = &&op_load_str,
		[RUN_LOAD_CTX_INT] = &&op_load_ctx_int,
		[RUN_LOAD_CTX_STR] = &&op_load_ctx_str,
		[RUN_INT_TO_DOUBLE] = &&op_int_to_double,
		[RUN_NOT] = &&op_not,
		[RUN_NEG] = &&op_neg,
		[RUN_BIT_NOT] = &&op_bit_not,
		[RUN_DNEG] = &&op_dneg,
		[RUN_DTRUTH] = &&op_dtruth,
		[RUN_ADD] = &&op_add,
		[RUN_SUB] = &&op_sub,
		[RUN_MUL] = &&op_mul,
		[RUN_DIV] = &&op_div,
		[RUN_MOD] = &&op_mod,
		[RUN_BIT_AND] = &&op_bit_and,
		[RUN_BIT_OR] = &&op_bit_or,
		[RUN_BIT_XOR] = &&op_bit_xor,
		[RUN_SHL] = &&op_shl,
		[RUN_SHR] = &&op_shr,
		[RUN_EQ] = &&op_eq,
		[RUN_NE] = &&op_ne,
		[RUN_LT] = &&op_lt,
		[RUN_LE] = &&op_le,
		[RUN_GT] = &&op_gt,
		[RUN_GE] = &&op_ge,
		[RUN_DADD] = &&op_dadd,
		[RUN_DSUB] = &&op_dsub,
		[RUN_DMUL] = &&op_dmul,
		[RUN_DDIV] = &&op_ddiv,
		[RUN_DEQ] = &&op_deq,
		[RUN_DNE] = &&op_dne,
		[RUN_DLT] = &&op_dlt,
		[RUN_DLE] = &&op_dle,
		[RUN_DGT] = &&op_dgt,
		[RUN_DGE] = &&op_dge,
		[RUN_STR_EQ] = &&op_str_eq,
		[RUN_STR_NE] = &&op_str_ne,
		[RUN_GLOB_EQ] = &&op_glob_eq,
		[RUN_GLOB_NE] = &&op_glob_ne,
		[RUN_AND] = &&op_and,
		[RUN_OR] = &&op_or,
		[RUN_FIELD_EQ_IMM] = &&op_field_eq_imm,
		[RUN_FIELD_NE_IMM] = &&op_field_ne_imm,
		[RUN_FIELD_LT_IMM] = &&op_field_lt_imm,
		[RUN_FIELD_LE_IMM] = &&op_field_le_imm,
		[RUN_FIELD_GT_IMM] = &&op_field_gt_imm,
		[RUN_FIELD_GE_IMM] = &&op_field_ge_imm,
		[RUN_FIELD_STR_EQ] = &&op_field_str_eq,
		[RUN_FIELD_STR_NE] = &&op_field_str_ne,
		[RUN_FIELD_GLOB_EQ] = &&op_field_glob_eq,
		[RUN_FIELD_GLOB_NE] = &&op_field_glob_ne,
	};
	struct value literal;
	/* stack[0] is never used: top stays inside the array when empty. */
	struct value stack[TC_FILTER_STACK_MAX + 1];
	struct value *top = &stack[0];
	const struct run_insn *insn = filter->insns;
	uint8_t context[TC_UST_CONTEXT_MAX];
	char procname[TRACECTL_CONTEXT_PROCNAME_LEN];

	/* The verifier checked the loads against the event's description;
	 * a caller that passes other pieces gets no record, not a fault. */
	if (__builtin_expect(nr_pieces < filter->nr_pieces, 0))
		return false;
	goto *dispatch[insn->op];

op_return:
	return top->i != 0;
op_push_int:
	(++top)->i = insn->imm.i;
	NEXT();
op_push_double:
	(++top)->d = insn->imm.d;
	NEXT();
op_push_str:
	(++top)->s = filter->strings + insn->imm.str.offset;
	top->len = insn->imm.str.len;
	NEXT();
op_load_s8:
	LOAD_AS(int8_t);
op_load_s16:
	LOAD_AS(int16_t);
op_load_s32:
	LOAD_AS(int32_t);
op_load_s64:
	LOAD_AS(int64_t);
op_load_u8:
	LOAD_AS(uint8_t);
op_load_u16:
	LOAD_AS(uint16_t);
op_load_u32:
	LOAD_AS(uint32_t);
op_load_u64:
	LOAD_AS(uint64_t);
op_load_double:
	memcpy(&(++top)->d, pieces[insn->piece].data, sizeof(double));
	NEXT();
op_load_float: {
	float value;

	memcpy(&value, pieces[insn->piece].data, sizeof(value));
	(++top)->d = value;
	NEXT();
}
op_load_str:
	load_string_piece(++top, &pieces[insn->piece]);
	NEXT();
op_load_ctx_int:
	(++top)->i = context_integer(insn->target, ip);
	NEXT();
op_load_ctx_str:
	/* Every procname load of a run gives the same name. */
	tc_ust_context_fill(insn->target, ip, context);
	memcpy(procname, context, sizeof(procname));
	(++top)->s = procname;
	top->len = strnlen(procname, sizeof(procname));
	NEXT();
op_int_to_double:
	top->d = (double)top->i;
	NEXT();
op_not:
	top->i = !top->i;
	NEXT();
op_neg:
	top->i = (int64_t)(0 - (uint64_t)top->i);
	NEXT();
op_bit_not:
	top->i = ~top->i;
	NEXT();
op_dneg:
	top->d = -top->d;
	NEXT();
op_dtruth:
	top->i = top->d != 0.0;
	NEXT();
/* Two's complement wrap-around, as LTTng: no undefined overflow. */
op_add:
	BINARY((int64_t)((uint64_t)top[-1].i + (uint64_t)top->i));
op_sub:
	BINARY((int64_t)((uint64_t)top[-1].i - (uint64_t)top->i));
op_mul:
	BINARY((int64_t)((uint64_t)top[-1].i * (uint64_t)top->i));
op_div:
	if (top->i == 0 || (top->i == -1 && top[-1].i == INT64_MIN))
		return false;
	BINARY(top[-1].i / top->i);
op_mod:
	if (top->i == 0 || (top->i == -1 && top[-1].i == INT64_MIN))
		return false;
	BINARY(top[-1].i % top->i);
op_bit_and:
	BINARY(top[-1].i & top->i);
op_bit_or:
	BINARY(top[-1].i | top->i);
op_bit_xor:
	BINARY(top[-1].i ^ top->i);
op_shl:
	if (top->i < 0 || top->i > 63)
		return false;
	BINARY((int64_t)((uint64_t)top[-1].i << top->i));
op_shr:
	if (top->i < 0 || top->i > 63)
		return false;
	BINARY(top[-1].i >> top->i);
op_eq:
	BINARY(top[-1].i == top->i);
op_ne:
	BINARY(top[-1].i != top->i);
op_lt:
	BINARY(top[-1].i < top->i);
op_le:
	BINARY(top[-1].i <= top->i);
op_gt:
	BINARY(top[-1].i > top->i);
op_ge:
	BINARY(top[-1].i >= top->i);
op_dadd:
	top[-1].d += top->d;
	top--;
	NEXT();
op_dsub:
	top[-1].d -= top->d;
	top--;
	NEXT();
op_dmul:
	top[-1].d *= top->d;
	top--;
	NEXT();
op_ddiv:
	top[-1].d /= top->d;
	top--;
	NEXT();
op_deq:
	BINARY(top[-1].d == top->d);
op_dne:
	BINARY(top[-1].d != top->d);
op_dlt:
	BINARY(top[-1].d < top->d);
op_dle:
	BINARY(top[-1].d <= top->d);
op_dgt:
	BINARY(top[-1].d > top->d);
op_dge:
	BINARY(top[-1].d >= top->d);
op_str_eq:
	BINARY(string_equal(&top[-1], top));
op_str_ne:
	BINARY(!string_equal(&top[-1], top));
op_glob_eq:
	BINARY(glob_match(top->s, top->len, top[-1].s, top[-1].len));
op_glob_ne:
	BINARY(!glob_match(top->s, top->len, top[-1].s, top[-1].len));
op_and:
	if (top->i == 0) {
		insn = &filter->insns[insn->target];
		goto *dispatch[insn->op];
	}
	top--;
	NEXT();
op_or:
	if (top->i != 0) {
		insn = &filter->insns[insn->target];
		goto *dispatch[insn->op];
	}
	top--;
	NEXT();
op_field_eq_imm:
	FIELD_COMPARE(==);
op_field_ne_imm:
	FIELD_COMPARE(!=);
op_field_lt_imm:
	FIELD_COMPARE(<);
op_field_le_imm:
	FIELD_COMPARE(<=);
op_field_gt_imm:
	FIELD_COMPARE(>);
op_field_ge_imm:
	FIELD_COMPARE(>=);
op_field_str_eq:
op_field_str_ne:
op_field_glob_eq:
op_field_glob_ne:
	literal.s = filter->strings + insn->imm.str.offset;
	literal.len = insn->imm.str.len;
	(++top)->i = field_string_matches(insn->op, &pieces[insn->piece], &literal);
	NEXT_AFTER_FUSED();
}
