/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Filters of kernel events: the parsed expression rewritten in the syntax
 * of tracefs' per-event "filter" files, which the kernel helper writes.
 * The kernel's filters compare one field with one constant per predicate
 * and join predicates with &&, || and !; what they cannot say is refused
 * rather than approximated, so a kernel filter never keeps more or fewer
 * events than the same filter would in user space.
 */
#define G_LOG_DOMAIN "tracectld-filter"

#include "tc-error.h"
#include "tc-filter-private.h"
#include "tc-filter.h"
#include "tc-kernel-names.h"

static gboolean translate(GString *out, const Node *node, GError **error);

static gboolean
refuse(const Node *node, GError **error, const char *what)
{
	g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
		    "filter: %s has no kernel equivalent at column %u", what, node->column);
	return FALSE;
}

static gboolean
refuse_node(const Node *node, GError **error)
{
	g_autofree char *what = NULL;

	switch (node->kind) {
	case N_CTX:
		what = g_strdup_printf("'$ctx.%s'", tc_filter_context_name(node->context));
		break;
	case N_DOUBLE:
		what = g_strdup("a floating-point number");
		break;
	case N_STR:
		what = g_strdup("a string compared that way");
		break;
	case N_FIELD:
		what = g_strdup_printf("field '%s' used that way", node->text);
		break;
	default:
		what = g_strdup_printf("'%s' there", tc_filter_token_text(node->op));
		break;
	}
	return refuse(node, error, what);
}

/* An integer constant: a literal, or minus one. */
static gboolean
integer_value(const Node *node, gint64 *value)
{
	if (node->kind == N_INT) {
		*value = node->int_value;
		return TRUE;
	}
	if (node->kind == N_UNARY && node->op == T_MINUS && node->left->kind == N_INT) {
		*value = (gint64)(0 - (guint64)node->left->int_value);
		return TRUE;
	}
	return FALSE;
}

/* A literal as written: one above 2^63 - 1 is negative as a pattern, and
 * tracefs reads its text as the unsigned field it is compared with. */
static void
append_integer(GString *out, const Node *constant, gint64 value)
{
	if (constant->kind == N_INT)
		g_string_append_printf(out, "%" G_GUINT64_FORMAT, (guint64)value);
	else
		g_string_append_printf(out, "%" G_GINT64_FORMAT, value);
}

static TokenKind
mirrored(TokenKind op)
{
	switch (op) {
	case T_LT:
		return T_GT;
	case T_LE:
		return T_GE;
	case T_GT:
		return T_LT;
	case T_GE:
		return T_LE;
	default:
		return op;
	}
}

/* field OP "text": tracefs strings have no escapes, and the helper takes
 * only its filter alphabet. */
static gboolean
translate_string(GString *out, const Node *node, const Node *field, const Node *literal,
		 GError **error)
{
	size_t position;

	if (node->op != T_EQ && node->op != T_NE)
		return refuse_node(node, error);
	if (strchr(literal->text, '"') || strchr(literal->text, '\\') ||
	    tc_kernel_check_filter(literal->text, &position) != NULL) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
			    "filter: the string at column %u cannot go to the kernel (only "
			    "letters, digits, spaces and %s)",
			    literal->column, TC_KERNEL_FILTER_PUNCTUATION);
		return FALSE;
	}
	if (literal->is_glob)
		g_string_append_printf(out, node->op == T_EQ ? "%s ~ \"%s\"" : "!(%s ~ \"%s\")",
				       field->text, literal->text);
	else
		g_string_append_printf(out, "%s %s \"%s\"", field->text,
				       tc_filter_token_text(node->op), literal->text);
	return TRUE;
}

/* One predicate: a field compared with a constant, either side. */
static gboolean
translate_comparison(GString *out, const Node *node, GError **error)
{
	const Node *field = node->left, *constant = node->right;
	TokenKind op = node->op;
	gint64 value;

	if (field->kind != N_FIELD) {
		field = node->right;
		constant = node->left;
		op = mirrored(op);
	}
	if (field->kind != N_FIELD)
		return refuse_node(node->left->kind == N_FIELD ? node->right : node->left, error);
	if (constant->kind == N_STR)
		return translate_string(out, node, field, constant, error);
	/* (field & N) != 0 is the kernel's "field & N". */
	if (!integer_value(constant, &value))
		return refuse_node(constant->kind == N_FIELD ? node : constant, error);
	g_string_append_printf(out, "%s %s ", field->text, tc_filter_token_text(op));
	append_integer(out, constant, value);
	return TRUE;
}

static gboolean
is_bit_test(const Node *node)
{
	gint64 value;

	return node->kind == N_BINARY && node->op == T_BIT_AND && node->left->kind == N_FIELD &&
	       integer_value(node->right, &value);
}

static gboolean
translate_bit_test(GString *out, const Node *node)
{
	gint64 value = 0;

	integer_value(node->right, &value);
	g_string_append_printf(out, "%s & ", node->left->text);
	append_integer(out, node->right, value);
	return TRUE;
}

static gboolean
translate_logical(GString *out, const Node *node, GError **error)
{
	g_string_append_c(out, '(');
	if (!translate(out, node->left, error))
		return FALSE;
	g_string_append_printf(out, ") %s (", tc_filter_token_text(node->op));
	if (!translate(out, node->right, error))
		return FALSE;
	g_string_append_c(out, ')');
	return TRUE;
}

static gboolean
translate(GString *out, const Node *node, GError **error)
{
	gint64 value;

	switch (node->kind) {
	case N_FIELD: /* a field alone: true when not zero */
		g_string_append_printf(out, "%s != 0", node->text);
		return TRUE;
	case N_UNARY:
		if (node->op != T_NOT)
			return refuse_node(node, error);
		g_string_append(out, "!(");
		if (!translate(out, node->left, error))
			return FALSE;
		g_string_append_c(out, ')');
		return TRUE;
	case N_BINARY:
		break;
	default:
		return refuse_node(node, error);
	}
	switch (node->op) {
	case T_AND:
	case T_OR:
		return translate_logical(out, node, error);
	case T_NE:
	case T_EQ:
		if (is_bit_test(node->left) && integer_value(node->right, &value) && value == 0) {
			if (node->op == T_EQ)
				g_string_append(out, "!(");
			translate_bit_test(out, node->left);
			if (node->op == T_EQ)
				g_string_append_c(out, ')');
			return TRUE;
		}
		/* fall through */
	case T_LT:
	case T_LE:
	case T_GT:
	case T_GE:
		return translate_comparison(out, node, error);
	case T_BIT_AND:
		if (is_bit_test(node))
			return translate_bit_test(out, node);
		/* fall through */
	default:
		return refuse_node(node, error);
	}
}

char *
tc_filter_to_tracefs(const TcFilterExpr *expr, GError **error)
{
	g_autoptr(GString) out = g_string_new(NULL);
	size_t position;

	if (!translate(out, expr->root, error))
		return NULL;
	if (out->len > TC_KERNEL_FILTER_MAX || tc_kernel_check_filter(out->str, &position)) {
		g_set_error(error, TC_ERROR, TC_ERROR_NOT_SUPPORTED,
			    "filter: its kernel form is longer than %u bytes or has characters "
			    "the kernel helper refuses",
			    TC_KERNEL_FILTER_MAX);
		return NULL;
	}
	return g_string_free(g_steal_pointer(&out), FALSE);
}
