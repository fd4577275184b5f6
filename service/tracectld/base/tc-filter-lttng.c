/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Filters of LTTng-UST applications: the parsed expression compiled into
 * LTTng-UST 2.13's filter bytecode, as lttng-tools 2.13 builds it for
 * `lttng enable-event -u --filter` (its IR visitors and bytecode
 * generator). The bytecode is untyped: each comparison is the generic
 * opcode, fields and contexts are "legacy" references resolved by the
 * application through the relocation table, and LTTng-UST specializes
 * each opcode when it first sees the operands' types. So one program
 * serves every event a rule selects, and needs no event description.
 *
 * Layout of what tc_filter_lttng_compile() returns (the data[] of
 * struct lttng_ust_abi_filter_bytecode, little-endian, packed):
 *   code: instructions, one opcode byte each, then the operand:
 *     LOAD_S64 int64, LOAD_DOUBLE double, LOAD_STRING and
 *     LOAD_STAR_GLOB_STRING a NUL-terminated string, LOAD_FIELD_REF and
 *     GET_CONTEXT_REF a u16 0xffff the application links, AND and OR the
 *     u16 offset from the code's start where they jump;
 *   relocations, from reloc_offset to the end: per reference, the u16
 *     offset of its instruction and its NUL-terminated name ("count",
 *     "$ctx.vpid").
 * Invariants: the whole is at most max_len bytes (LTTng-UST refuses
 * more), so every offset fits its u16; the program never needs more than
 * TC_FILTER_LTTNG_STACK_MAX values on LTTng-UST's stack (its validator
 * refuses more).
 */
#define G_LOG_DOMAIN "tracectld-filter"

#include "tc-filter.h"
#include "tc-filter-private.h"

#include <string.h>

#include "tc-error.h"

/* LTTng-UST's interpreter stack (INTERPRETER_STACK_LEN). */
#define TC_FILTER_LTTNG_STACK_MAX 10u

/* The opcodes this compiler emits, numbered as lttng-tools'
 * src/common/bytecode/bytecode.h (enum bytecode_op). */
enum {
	OP_RETURN = 1,
	OP_BIT_RSHIFT = 7,
	OP_BIT_LSHIFT = 8,
	OP_BIT_AND = 9,
	OP_BIT_OR = 10,
	OP_BIT_XOR = 11,
	OP_EQ = 12,
	OP_NE = 13,
	OP_GT = 14,
	OP_LT = 15,
	OP_GE = 16,
	OP_LE = 17,
	OP_UNARY_MINUS = 49,
	OP_UNARY_NOT = 50,
	OP_AND = 57,
	OP_OR = 58,
	OP_LOAD_FIELD_REF = 59,
	OP_LOAD_STRING = 64,
	OP_LOAD_S64 = 65,
	OP_LOAD_DOUBLE = 66,
	OP_CAST_TO_S64 = 67,
	OP_CAST_DOUBLE_TO_S64 = 68,
	OP_GET_CONTEXT_REF = 70,
	OP_LOAD_STAR_GLOB_STRING = 76,
	OP_UNARY_BIT_NOT = 98,
};

/* lttng-tools' IR data types: what decides the casts around && and ||. */
typedef enum { LT_NUMERIC, LT_FLOAT, LT_STRING, LT_REFERENCE } LttngType;

typedef struct {
	GByteArray *code;
	GByteArray *relocs;
	guint max_len;
	guint depth;
	GError **error;
} Emitter;

static LttngType
lttng_type(const Node *node)
{
	switch (node->kind) {
	case N_INT:
	case N_BINARY:
		return LT_NUMERIC;
	case N_DOUBLE:
		return LT_FLOAT;
	case N_STR:
		return LT_STRING;
	case N_FIELD:
	case N_CTX:
		return LT_REFERENCE;
	case N_UNARY:
		return lttng_type(node->left);
	}
	g_assert_not_reached();
}

static gboolean
refuse(Emitter *e, const Node *node, const char *what)
{
	g_set_error(e->error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
		    "filter: %s has no LTTng-UST equivalent at column %u", what, node->column);
	return FALSE;
}

/* Whether len more bytes keep the whole program within max_len. */
static gboolean
fits(Emitter *e, const Node *node, gsize len)
{
	if (len <= e->max_len && e->code->len + e->relocs->len <= e->max_len - len)
		return TRUE;
	g_set_error(e->error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
		    "filter: expression too long for LTTng-UST (over %u bytes of bytecode) at "
		    "column %u",
		    e->max_len, node->column);
	return FALSE;
}

static gboolean
append(Emitter *e, const Node *node, const void *bytes, guint len)
{
	if (!fits(e, node, len))
		return FALSE;
	g_byte_array_append(e->code, bytes, len);
	return TRUE;
}

/* One instruction that changes the stack's depth by delta. */
static gboolean
emit(Emitter *e, const Node *node, guint8 op, const void *operand, guint operand_len, int delta)
{
	if (delta > 0 && e->depth + (guint)delta > TC_FILTER_LTTNG_STACK_MAX) {
		g_set_error(e->error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
			    "filter: LTTng-UST evaluates at most %u values at once; nested "
			    "too deep at column %u",
			    TC_FILTER_LTTNG_STACK_MAX, node->column);
		return FALSE;
	}
	if (!append(e, node, &op, 1) || (operand_len > 0 && !append(e, node, operand, operand_len)))
		return FALSE;
	e->depth = (guint)((int)e->depth + delta);
	return TRUE;
}

/* A field or context reference: 0xffff for the application to link,
 * and its relocation (the instruction's offset, the name). */
static gboolean
emit_reference(Emitter *e, const Node *node, guint8 op, const char *name)
{
	guint16 unlinked = G_MAXUINT16, offset = (guint16)e->code->len;
	gsize name_len = strlen(name) + 1;

	if (!emit(e, node, op, &unlinked, sizeof(unlinked), 1))
		return FALSE;
	if (!fits(e, node, sizeof(offset) + name_len))
		return FALSE;
	g_byte_array_append(e->relocs, (const guint8 *)&offset, sizeof(offset));
	g_byte_array_append(e->relocs, (const guint8 *)name, (guint)name_len);
	return TRUE;
}

/*
 * A string literal in LTTng's escaping: "\\" a backslash, "\*" a star,
 * a bare '*' the wildcard. tracectl's node keeps a plain literal's
 * characters as they are, and a glob's literal stars as "\*".
 * Consecutive wildcards are one, as lttng-tools normalizes them.
 * *is_full: a wildcard elsewhere than at the very end.
 */
static GString *
lttng_string(const Node *node, gboolean *is_full)
{
	GString *out = g_string_new(NULL);
	gboolean last_was_star = FALSE;

	*is_full = FALSE;
	for (gsize i = 0; i < node->text_len; i++) {
		char c = node->text[i];

		if (node->is_glob && c == '\\' && i + 1 < node->text_len && node->text[i + 1] == '*') {
			g_string_append(out, "\\*");
			i++;
		} else if (c == '*' && node->is_glob) {
			if (i + 1 < node->text_len)
				*is_full = TRUE;
			if (!last_was_star)
				g_string_append_c(out, '*');
			last_was_star = TRUE;
			continue;
		} else if (c == '\\' || c == '*') {
			g_string_append_c(out, '\\');
			g_string_append_c(out, c);
		} else {
			g_string_append_c(out, c);
		}
		last_was_star = FALSE;
	}
	return out;
}

static gboolean
emit_string(Emitter *e, const Node *node)
{
	gboolean is_full;
	g_autoptr(GString) value = lttng_string(node, &is_full);

	return emit(e, node, is_full ? OP_LOAD_STAR_GLOB_STRING : OP_LOAD_STRING, value->str,
		    (guint)value->len + 1, 1);
}

static gboolean emit_node(Emitter *e, const Node *node);

/* An operand of && or ||, as an s64 (lttng-tools casts references and
 * floating-point values; comparisons and literals already are). */
static gboolean
emit_condition(Emitter *e, const Node *node)
{
	if (!emit_node(e, node))
		return FALSE;
	switch (lttng_type(node)) {
	case LT_REFERENCE:
		return emit(e, node, OP_CAST_TO_S64, NULL, 0, 0);
	case LT_FLOAT:
		return emit(e, node, OP_CAST_DOUBLE_TO_S64, NULL, 0, 0);
	default:
		return TRUE;
	}
}

static gboolean
emit_logical(Emitter *e, const Node *node)
{
	guint16 unpatched = G_MAXUINT16, target;
	guint skip;

	if (!emit_condition(e, node->left))
		return FALSE;
	skip = e->code->len + 1;
	if (!emit(e, node, node->op == T_AND ? OP_AND : OP_OR, &unpatched, sizeof(unpatched), -1) ||
	    !emit_condition(e, node->right))
		return FALSE;
	/* Below max_len, hence a u16. */
	target = (guint16)e->code->len;
	memcpy(e->code->data + skip, &target, sizeof(target));
	return TRUE;
}

static gboolean
is_full_glob(const Node *node)
{
	gboolean is_full = FALSE;

	if (node->kind == N_STR)
		g_string_free(lttng_string(node, &is_full), TRUE);
	return is_full;
}

static gboolean
emit_binary(Emitter *e, const Node *node)
{
	static const struct {
		TokenKind kind;
		guint8 op;
	} map[] = {
		{T_EQ, OP_EQ},		{T_NE, OP_NE},		{T_GT, OP_GT},
		{T_LT, OP_LT},		{T_GE, OP_GE},		{T_LE, OP_LE},
		{T_SHR, OP_BIT_RSHIFT}, {T_SHL, OP_BIT_LSHIFT}, {T_BIT_AND, OP_BIT_AND},
		{T_BIT_OR, OP_BIT_OR},	{T_BIT_XOR, OP_BIT_XOR},
	};
	const Node *l = node->left, *r = node->right;

	if (node->op == T_AND || node->op == T_OR)
		return emit_logical(e, node);
	/* lttng-tools compares a full glob only with a plain string. */
	if (l->kind == N_STR && r->kind == N_STR && l->is_glob && r->is_glob &&
	    (is_full_glob(l) || is_full_glob(r)))
		return refuse(e, node, "comparing two patterns");
	for (guint i = 0; i < G_N_ELEMENTS(map); i++)
		if (map[i].kind == node->op)
			return emit_node(e, l) && emit_node(e, r) &&
			       emit(e, node, map[i].op, NULL, 0, -1);
	/* + - * / %: lttng-tools' filters have no arithmetic. */
	{
		g_autofree char *what =
			g_strdup_printf("'%s' (arithmetic)", tc_filter_token_text(node->op));

		return refuse(e, node, what);
	}
}

static gboolean
emit_unary(Emitter *e, const Node *node)
{
	if (!emit_node(e, node->left))
		return FALSE;
	switch (node->op) {
	case T_NOT:
		return emit(e, node, OP_UNARY_NOT, NULL, 0, 0);
	case T_BIT_NOT:
		return emit(e, node, OP_UNARY_BIT_NOT, NULL, 0, 0);
	case T_MINUS:
		return emit(e, node, OP_UNARY_MINUS, NULL, 0, 0);
	default: /* unary plus: lttng-tools emits nothing */
		return TRUE;
	}
}

static gboolean
emit_node(Emitter *e, const Node *node)
{
	switch (node->kind) {
	case N_INT:
		/* The 64-bit pattern, as lttng-tools' scanf of a u64 leaves it:
		 * a literal above 2^63 - 1 equals the unsigned field holding it,
		 * which LTTng-UST loads as the same pattern. */
		return emit(e, node, OP_LOAD_S64, &node->int_value, sizeof(node->int_value), 1);
	case N_DOUBLE:
		return emit(e, node, OP_LOAD_DOUBLE, &node->double_value, sizeof(node->double_value),
			    1);
	case N_STR:
		return emit_string(e, node);
	case N_FIELD:
		return emit_reference(e, node, OP_LOAD_FIELD_REF, node->text);
	case N_CTX: {
		g_autofree char *name =
			g_strconcat("$ctx.", tc_filter_context_name(node->context), NULL);

		return emit_reference(e, node, OP_GET_CONTEXT_REF, name);
	}
	case N_UNARY:
		return emit_unary(e, node);
	case N_BINARY:
		return emit_binary(e, node);
	}
	g_assert_not_reached();
}

GBytes *
tc_filter_lttng_compile(const TcFilterExpr *expr, guint max_len, guint32 *reloc_offset,
			GError **error)
{
	g_autoptr(GByteArray) code = g_byte_array_new();
	g_autoptr(GByteArray) relocs = g_byte_array_new();
	Emitter e = {.code = code, .relocs = relocs, .max_len = MIN(max_len, G_MAXUINT16),
		     .error = error};
	const Node *root = expr->root;

	/* lttng-tools' root takes an integer or a reference, not a float. */
	if (lttng_type(root) == LT_FLOAT)
		return refuse(&e, root, "a floating-point condition"), NULL;
	if (!emit_node(&e, root) || !emit(&e, root, OP_RETURN, NULL, 0, -1))
		return NULL;
	*reloc_offset = code->len;
	g_byte_array_append(code, relocs->data, relocs->len);
	return g_byte_array_free_to_bytes(g_steal_pointer(&code));
}
