/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The filter language's parser, type checker and compiler. A recursive
 * descent parser with C's precedences builds a tree; the checker gives
 * each node a type (with the event's fields, or "any" for a field when
 * there is no event yet); the compiler walks the typed tree and emits the
 * stack program of tc-filter-bytecode.h, converting integers to doubles
 * where the operands mix. Nesting is bounded while parsing, so neither
 * recursion can exhaust the service's stack.
 */
#define G_LOG_DOMAIN "tracectld-filter"

#include "tc-filter.h"
#include "tc-filter-private.h"

#include <string.h>

#include "tc-error.h"
#include "tc-filter-bytecode.h"

/* Parentheses and unary operators deeper than this are refused. */
#define NESTING_MAX 64

static const struct {
	const char *text;
	TokenKind kind;
} operators[] = {
	/* Longest first. */
	{"&&", T_AND}, {"||", T_OR}, {"<<", T_SHL}, {">>", T_SHR}, {"<=", T_LE}, {">=", T_GE},
	{"==", T_EQ},  {"!=", T_NE}, {"(", T_LPAREN}, {")", T_RPAREN}, {"!", T_NOT},
	{"~", T_BIT_NOT}, {"*", T_MUL}, {"/", T_DIV}, {"%", T_MOD}, {"+", T_PLUS},
	{"-", T_MINUS}, {"<", T_LT}, {">", T_GT}, {"&", T_BIT_AND}, {"^", T_BIT_XOR},
	{"|", T_BIT_OR},
};

static const struct {
	const char *name;
	guint32 context;
	Type type;
} contexts[] = {
	{"vpid", TC_FILTER_CTX_VPID, TY_INT},
	{"vtid", TC_FILTER_CTX_VTID, TY_INT},
	{"procname", TC_FILTER_CTX_PROCNAME, TY_STR},
	{"pthread_id", TC_FILTER_CTX_PTHREAD_ID, TY_INT},
	{"vuid", TC_FILTER_CTX_VUID, TY_INT},
	{"veuid", TC_FILTER_CTX_VEUID, TY_INT},
	{"vsuid", TC_FILTER_CTX_VSUID, TY_INT},
	{"vgid", TC_FILTER_CTX_VGID, TY_INT},
	{"vegid", TC_FILTER_CTX_VEGID, TY_INT},
	{"vsgid", TC_FILTER_CTX_VSGID, TY_INT},
	{"cgroup_ns", TC_FILTER_CTX_CGROUP_NS, TY_INT},
	{"ipc_ns", TC_FILTER_CTX_IPC_NS, TY_INT},
	{"mnt_ns", TC_FILTER_CTX_MNT_NS, TY_INT},
	{"net_ns", TC_FILTER_CTX_NET_NS, TY_INT},
	{"pid_ns", TC_FILTER_CTX_PID_NS, TY_INT},
	{"time_ns", TC_FILTER_CTX_TIME_NS, TY_INT},
	{"user_ns", TC_FILTER_CTX_USER_NS, TY_INT},
	{"uts_ns", TC_FILTER_CTX_UTS_NS, TY_INT},
	{"ip", TC_FILTER_CTX_IP, TY_INT},
};

const char *
tc_filter_context_name(guint32 context)
{
	for (guint i = 0; i < G_N_ELEMENTS(contexts); i++)
		if (contexts[i].context == context)
			return contexts[i].name;
	return "?";
}

static void
node_free(Node *node)
{
	if (node == NULL)
		return;
	node_free(node->left);
	node_free(node->right);
	g_free(node->text);
	g_free(node);
}

void
tc_filter_expr_free(TcFilterExpr *expr)
{
	if (expr == NULL)
		return;
	node_free(expr->root);
	g_free(expr);
}

const char *
tc_filter_token_text(TokenKind kind)
{
	for (guint i = 0; i < G_N_ELEMENTS(operators); i++)
		if (operators[i].kind == kind)
			return operators[i].text;
	return "?";
}

/* ---- Lexer ---- */

typedef struct {
	TokenKind kind;
	gsize start; /* byte offset in the text */
	gsize end;
	gint64 int_value;
	double double_value;
	char *text; /* T_STR value, T_IDENT name, T_CTX name */
	gsize text_len;
	gboolean is_glob;
} Token;

typedef struct {
	const char *text;
	gsize len;
	gsize pos;
	Token token;
	guint nesting;
	GError **error;
} Parser;

static gboolean G_GNUC_PRINTF(3, 4)
fail_at(Parser *p, gsize offset, const char *format, ...)
{
	g_autofree char *message = NULL;
	va_list args;

	va_start(args, format);
	message = g_strdup_vprintf(format, args);
	va_end(args);
	if (offset >= p->len)
		g_set_error(p->error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "filter: %s at the end", message);
	else
		g_set_error(p->error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "filter: %s at column %" G_GSIZE_FORMAT, message, offset + 1);
	return FALSE;
}

static gboolean
is_ident_start(char c)
{
	return g_ascii_isalpha(c) || c == '_';
}

static gboolean
is_ident_char(char c)
{
	return g_ascii_isalnum(c) || c == '_';
}

/*
 * A string literal: "\"" and "\\" escape themselves, "\*" is a star that
 * a glob takes literally; a plain '*' makes the literal a glob. The value
 * of a glob keeps "\*" for the matcher; a plain literal has its star.
 */
static gboolean
lex_string(Parser *p, Token *token)
{
	g_autoptr(GString) value = g_string_new(NULL);
	gsize i = p->pos + 1;
	gboolean is_glob = FALSE;

	for (gsize j = i; j < p->len && p->text[j] != '"'; j++) {
		if (p->text[j] == '\\' && j + 1 < p->len)
			j++;
		else if (p->text[j] == '*')
			is_glob = TRUE;
	}
	for (;; i++) {
		char c = i < p->len ? p->text[i] : '\0';

		if (i >= p->len)
			return fail_at(p, p->pos, "unterminated string");
		if (c == '"')
			break;
		if (c == '\\') {
			char next = i + 1 < p->len ? p->text[i + 1] : '\0';

			if (next != '"' && next != '\\' && next != '*')
				return fail_at(p, i, "unknown escape (only \\\", \\\\ and \\*)");
			if (next == '*' && is_glob)
				g_string_append_c(value, '\\');
			g_string_append_c(value, next);
			i++;
			continue;
		}
		if ((guchar)c < 0x20)
			return fail_at(p, i, "control character in string");
		g_string_append_c(value, c);
	}
	token->kind = T_STR;
	token->end = i + 1;
	token->is_glob = is_glob;
	token->text_len = value->len;
	token->text = g_string_free(g_steal_pointer(&value), FALSE);
	return TRUE;
}

static gboolean
lex_number(Parser *p, Token *token)
{
	gsize i = p->pos;
	gboolean is_double = FALSE;
	g_autofree char *number = NULL;
	char *end = NULL;

	if (p->text[i] == '0' && i + 1 < p->len && (p->text[i + 1] == 'x' || p->text[i + 1] == 'X')) {
		i += 2;
		while (i < p->len && g_ascii_isxdigit(p->text[i]))
			i++;
	} else {
		while (i < p->len && (g_ascii_isdigit(p->text[i]) || p->text[i] == '.' ||
				      p->text[i] == 'e' || p->text[i] == 'E' ||
				      ((p->text[i] == '+' || p->text[i] == '-') &&
				       (p->text[i - 1] == 'e' || p->text[i - 1] == 'E')))) {
			if (!g_ascii_isdigit(p->text[i]))
				is_double = TRUE;
			i++;
		}
	}
	if (i < p->len && is_ident_char(p->text[i]))
		return fail_at(p, i, "unexpected '%c' in number", p->text[i]);
	number = g_strndup(p->text + p->pos, i - p->pos);
	errno = 0;
	if (is_double) {
		token->kind = T_DOUBLE;
		token->double_value = g_ascii_strtod(number, &end);
	} else {
		/* C's rules: 0x hexadecimal, a leading 0 octal. Up to 2^64 - 1,
		 * as LTTng takes: a literal above 2^63 - 1 stands for the
		 * 64-bit pattern an unsigned field holding it reads as. */
		guint64 value = g_ascii_strtoull(number, &end, 0);

		token->kind = T_INT;
		token->int_value = (gint64)value;
	}
	if (end == NULL || *end != '\0' || errno != 0)
		return fail_at(p, p->pos, "invalid number '%s'", number);
	token->end = i;
	return TRUE;
}

static gboolean
lex_context(Parser *p, Token *token)
{
	static const char prefix[] = "$ctx.";
	gsize i = p->pos + strlen(prefix);

	if (p->len - p->pos < strlen(prefix) || memcmp(p->text + p->pos, prefix, strlen(prefix)) != 0 ||
	    i >= p->len || !is_ident_start(p->text[i]))
		return fail_at(p, p->pos, "expected '$ctx.NAME'");
	while (i < p->len && is_ident_char(p->text[i]))
		i++;
	token->kind = T_CTX;
	token->end = i;
	token->text = g_strndup(p->text + p->pos + strlen(prefix), i - p->pos - strlen(prefix));
	return TRUE;
}

/* Reads the next token into p->token. */
static gboolean
next_token(Parser *p)
{
	Token *token = &p->token;
	char c;

	g_clear_pointer(&token->text, g_free);
	memset(token, 0, sizeof(*token));
	while (p->pos < p->len && g_ascii_isspace(p->text[p->pos]))
		p->pos++;
	token->start = p->pos;
	if (p->pos >= p->len) {
		token->kind = T_END;
		token->end = p->pos;
		return TRUE;
	}
	c = p->text[p->pos];
	if (c == '"') {
		if (!lex_string(p, token))
			return FALSE;
	} else if (g_ascii_isdigit(c) || (c == '.' && p->pos + 1 < p->len &&
					  g_ascii_isdigit(p->text[p->pos + 1]))) {
		if (!lex_number(p, token))
			return FALSE;
	} else if (c == '$') {
		if (!lex_context(p, token))
			return FALSE;
	} else if (is_ident_start(c)) {
		gsize i = p->pos;

		while (i < p->len && is_ident_char(p->text[i]))
			i++;
		token->kind = T_IDENT;
		token->end = i;
		token->text = g_strndup(p->text + p->pos, i - p->pos);
	} else {
		guint i;

		for (i = 0; i < G_N_ELEMENTS(operators); i++) {
			gsize n = strlen(operators[i].text);

			if (p->len - p->pos >= n && memcmp(p->text + p->pos, operators[i].text, n) == 0)
				break;
		}
		if (i == G_N_ELEMENTS(operators)) {
			if (g_ascii_isprint(c))
				return fail_at(p, p->pos, "unexpected '%c'", c);
			return fail_at(p, p->pos, "unexpected byte 0x%02x", (guchar)c);
		}
		token->kind = operators[i].kind;
		token->end = p->pos + strlen(operators[i].text);
	}
	p->pos = token->end;
	return TRUE;
}

/* ---- Parser ---- */

static Node *parse_or(Parser *p);

static Node *
new_node(NodeKind kind, gsize offset)
{
	Node *node = g_new0(Node, 1);

	node->kind = kind;
	node->column = (guint)offset + 1;
	return node;
}

static gboolean
unexpected(Parser *p)
{
	const Token *t = &p->token;

	if (t->kind == T_END)
		return fail_at(p, p->len, "unexpected end of expression");
	return fail_at(p, t->start, "unexpected '%.*s'", (int)MIN(t->end - t->start, 32),
		       p->text + t->start);
}

static Node *
parse_context(Parser *p)
{
	g_autoptr(GString) known = g_string_new(NULL);

	for (guint i = 0; i < G_N_ELEMENTS(contexts); i++) {
		if (g_str_equal(contexts[i].name, p->token.text)) {
			Node *node = new_node(N_CTX, p->token.start);

			node->context = contexts[i].context;
			node->type = contexts[i].type;
			return node;
		}
		g_string_append_printf(known, "%s%s", i ? ", " : "", contexts[i].name);
	}
	fail_at(p, p->token.start, "unknown context '$ctx.%s' (known: %s)", p->token.text,
		known->str);
	return NULL;
}

static Node *
parse_primary(Parser *p)
{
	Token *t = &p->token;
	Node *node = NULL;

	switch (t->kind) {
	case T_INT:
		node = new_node(N_INT, t->start);
		node->int_value = t->int_value;
		break;
	case T_DOUBLE:
		node = new_node(N_DOUBLE, t->start);
		node->double_value = t->double_value;
		break;
	case T_STR:
		node = new_node(N_STR, t->start);
		node->text = g_steal_pointer(&t->text);
		node->text_len = t->text_len;
		node->is_glob = t->is_glob;
		break;
	case T_IDENT:
		node = new_node(N_FIELD, t->start);
		node->text = g_steal_pointer(&t->text);
		break;
	case T_CTX:
		node = parse_context(p);
		if (node == NULL)
			return NULL;
		break;
	case T_LPAREN:
		if (!next_token(p) || (node = parse_or(p)) == NULL)
			return NULL;
		if (p->token.kind != T_RPAREN) {
			node_free(node);
			if (p->token.kind == T_END)
				fail_at(p, p->len, "missing ')'");
			else
				unexpected(p);
			return NULL;
		}
		break;
	default:
		unexpected(p);
		return NULL;
	}
	if (!next_token(p)) {
		node_free(node);
		return NULL;
	}
	return node;
}

static Node *
parse_unary(Parser *p)
{
	TokenKind op = p->token.kind;
	gsize start = p->token.start;
	Node *node, *operand;

	if (++p->nesting > NESTING_MAX) {
		fail_at(p, start, "nested deeper than %d", NESTING_MAX);
		return NULL;
	}
	if (op != T_NOT && op != T_BIT_NOT && op != T_MINUS && op != T_PLUS) {
		node = parse_primary(p);
		p->nesting--;
		return node;
	}
	if (!next_token(p) || (operand = parse_unary(p)) == NULL)
		return NULL;
	p->nesting--;
	node = new_node(N_UNARY, start);
	node->op = op;
	node->left = operand;
	return node;
}

/* C's binary precedence levels, loosest first. */
static const TokenKind levels[][5] = {
	{T_OR},
	{T_AND},
	{T_BIT_OR},
	{T_BIT_XOR},
	{T_BIT_AND},
	{T_EQ, T_NE},
	{T_LT, T_LE, T_GT, T_GE},
	{T_SHL, T_SHR},
	{T_PLUS, T_MINUS},
	{T_MUL, T_DIV, T_MOD},
};

static gboolean
is_in_level(guint level, TokenKind kind)
{
	for (guint i = 0; i < G_N_ELEMENTS(levels[level]) && levels[level][i] != T_END; i++)
		if (levels[level][i] == kind)
			return TRUE;
	return FALSE;
}

static Node *
parse_level(Parser *p, guint level)
{
	Node *left;

	if (level == G_N_ELEMENTS(levels))
		return parse_unary(p);
	left = parse_level(p, level + 1);
	while (left != NULL && is_in_level(level, p->token.kind)) {
		Node *node = new_node(N_BINARY, p->token.start);

		node->op = p->token.kind;
		node->left = left;
		left = node;
		if (!next_token(p) || (node->right = parse_level(p, level + 1)) == NULL) {
			node_free(left);
			return NULL;
		}
	}
	return left;
}

static Node *
parse_or(Parser *p)
{
	Node *node;

	/* Parentheses come back here: count them as nesting too. */
	if (++p->nesting > NESTING_MAX) {
		fail_at(p, p->token.start, "nested deeper than %d", NESTING_MAX);
		return NULL;
	}
	node = parse_level(p, 0);
	p->nesting--;
	return node;
}

/* ---- Type checker ---- */

typedef struct {
	const struct tracectl_abi_field *fields; /* NULL: no event yet */
	guint nr_fields;
	GError **error;
} Checker;

static gboolean G_GNUC_PRINTF(3, 4)
check_fail(Checker *c, const Node *node, const char *format, ...)
{
	g_autofree char *message = NULL;
	va_list args;

	va_start(args, format);
	message = g_strdup_vprintf(format, args);
	va_end(args);
	g_set_error(c->error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT, "filter: %s at column %u",
		    message, node->column);
	return FALSE;
}

static gboolean
check_field(Checker *c, Node *node)
{
	if (c->fields == NULL) {
		node->type = TY_ANY;
		return TRUE;
	}
	for (guint i = 0; i < c->nr_fields; i++) {
		const struct tracectl_abi_field *field = &c->fields[i];

		if (strncmp(field->name, node->text, sizeof(field->name)) != 0)
			continue;
		node->field_index = i;
		switch (tracectl_abi_field_kind(field->type)) {
		case TRACECTL_FIELD_SIGNED:
		case TRACECTL_FIELD_UNSIGNED:
		case TRACECTL_FIELD_ENUM: /* its container's value */
			if (!tracectl_abi_field_is_native_integer(field->type))
				return check_fail(c, node,
						  "field '%s' is stored in network byte order, "
						  "which filters cannot read",
						  node->text);
			node->type = TY_INT;
			return TRUE;
		case TRACECTL_FIELD_DOUBLE:
		case TRACECTL_FIELD_FLOAT:
			node->type = TY_DOUBLE;
			return TRUE;
		case TRACECTL_FIELD_STRING:
			node->type = TY_STR;
			return TRUE;
		case TRACECTL_FIELD_ARRAY:
			return check_fail(c, node, "field '%s' is an array, which filters "
						   "cannot read", node->text);
		case TRACECTL_FIELD_SEQUENCE:
			return check_fail(c, node, "field '%s' is a sequence, which filters "
						   "cannot read", node->text);
		default:
			return check_fail(c, node, "field '%s' is a byte sequence, which filters "
						   "cannot read", node->text);
		}
	}
	return check_fail(c, node, "the event has no field '%s'", node->text);
}

static gboolean check_node(Checker *c, Node *node);

static gboolean
is_number(Type type)
{
	return type == TY_INT || type == TY_DOUBLE || type == TY_ANY;
}

static Type
arithmetic_type(Type a, Type b)
{
	if (a == TY_DOUBLE || b == TY_DOUBLE)
		return TY_DOUBLE;
	if (a == TY_ANY || b == TY_ANY)
		return TY_ANY;
	return TY_INT;
}

static gboolean
check_binary(Checker *c, Node *node)
{
	Type a = node->left->type, b = node->right->type;
	const char *op = tc_filter_token_text(node->op);

	switch (node->op) {
	case T_AND:
	case T_OR:
		if (a == TY_STR || b == TY_STR)
			return check_fail(c, node, "'%s' needs conditions, not strings", op);
		node->type = TY_INT;
		return TRUE;
	case T_EQ:
	case T_NE:
		if ((a == TY_STR && b != TY_STR && b != TY_ANY) ||
		    (b == TY_STR && a != TY_STR && a != TY_ANY))
			return check_fail(c, node, "'%s' compares a string with a number", op);
		node->type = TY_INT;
		return TRUE;
	case T_LT:
	case T_LE:
	case T_GT:
	case T_GE:
		if (a == TY_STR || b == TY_STR)
			return check_fail(c, node, "'%s' does not order strings (only == and !=)",
					  op);
		node->type = TY_INT;
		return TRUE;
	case T_PLUS:
	case T_MINUS:
	case T_MUL:
	case T_DIV:
		if (!is_number(a) || !is_number(b))
			return check_fail(c, node, "'%s' needs numbers", op);
		node->type = arithmetic_type(a, b);
		return TRUE;
	default: /* % << >> & ^ | */
		if ((a != TY_INT && a != TY_ANY) || (b != TY_INT && b != TY_ANY))
			return check_fail(c, node, "'%s' needs integers", op);
		node->type = TY_INT;
		return TRUE;
	}
}

static gboolean
check_unary(Checker *c, Node *node)
{
	Type a = node->left->type;
	const char *op = tc_filter_token_text(node->op);

	switch (node->op) {
	case T_NOT:
		if (a == TY_STR)
			return check_fail(c, node, "'!' needs a condition, not a string");
		node->type = TY_INT;
		return TRUE;
	case T_BIT_NOT:
		if (a != TY_INT && a != TY_ANY)
			return check_fail(c, node, "'~' needs an integer");
		node->type = TY_INT;
		return TRUE;
	default:
		if (!is_number(a))
			return check_fail(c, node, "'%s' needs a number", op);
		node->type = a;
		return TRUE;
	}
}

static gboolean
check_node(Checker *c, Node *node)
{
	switch (node->kind) {
	case N_INT:
		node->type = TY_INT;
		return TRUE;
	case N_DOUBLE:
		node->type = TY_DOUBLE;
		return TRUE;
	case N_STR:
		node->type = TY_STR;
		return TRUE;
	case N_CTX:
		return TRUE; /* typed by the parser */
	case N_FIELD:
		return check_field(c, node);
	case N_UNARY:
		return check_node(c, node->left) && check_unary(c, node);
	case N_BINARY:
		return check_node(c, node->left) && check_node(c, node->right) &&
		       check_binary(c, node);
	}
	g_assert_not_reached();
}

static gboolean
check_expr(Checker *c, Node *root)
{
	if (!check_node(c, root))
		return FALSE;
	if (root->type == TY_STR)
		return check_fail(c, root, "a string is not a condition (compare it with ==)");
	return TRUE;
}

TcFilterExpr *
tc_filter_parse(const char *text, GError **error)
{
	Parser p = {.text = text, .len = strlen(text), .error = error};
	Checker c = {.error = error};
	Node *root;
	TcFilterExpr *expr;

	if (p.len > TC_FILTER_TEXT_MAX) {
		g_set_error(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
			    "filter: longer than %u bytes", TC_FILTER_TEXT_MAX);
		return NULL;
	}
	if (!next_token(&p))
		goto fail;
	if (p.token.kind == T_END) {
		g_set_error_literal(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
				    "filter: empty expression");
		goto fail;
	}
	root = parse_or(&p);
	if (root == NULL)
		goto fail;
	if (p.token.kind != T_END) {
		unexpected(&p);
		node_free(root);
		goto fail;
	}
	g_clear_pointer(&p.token.text, g_free);
	if (!check_expr(&c, root)) {
		node_free(root);
		return NULL;
	}
	expr = g_new0(TcFilterExpr, 1);
	expr->root = root;
	return expr;

fail:
	g_clear_pointer(&p.token.text, g_free);
	return NULL;
}

/* ---- Compiler ---- */

typedef struct {
	GArray *slots; /* struct tc_filter_insn */
	GString *strings;
	guint depth;
	GError **error;
} Emitter;

static gboolean G_GNUC_PRINTF(3, 4)
emit_fail(Emitter *e, const Node *node, const char *format, ...)
{
	g_autofree char *message = NULL;
	va_list args;

	va_start(args, format);
	message = g_strdup_vprintf(format, args);
	va_end(args);
	g_set_error(e->error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT, "filter: %s at column %u",
		    message, node->column);
	return FALSE;
}

/* Appends an instruction that changes the stack's depth by delta. */
static gboolean
emit(Emitter *e, const Node *node, guint8 op, guint8 flags, guint16 arg16, guint32 arg32,
     int delta)
{
	struct tc_filter_insn insn = {.op = op, .flags = flags, .arg16 = arg16, .arg32 = arg32};

	if (e->slots->len >= TC_FILTER_INSNS_MAX)
		return emit_fail(e, node, "expression too long (over %u instructions)",
				 TC_FILTER_INSNS_MAX);
	if (delta > 0 && e->depth + (guint)delta > TC_FILTER_STACK_MAX)
		return emit_fail(e, node, "expression needs more than %u stack values",
				 TC_FILTER_STACK_MAX);
	e->depth = (guint)((int)e->depth + delta);
	g_array_append_val(e->slots, insn);
	return TRUE;
}

static gboolean
emit_immediate(Emitter *e, const Node *node, guint8 op, const void *value)
{
	struct tc_filter_insn slot;

	if (!emit(e, node, op, 0, 0, 0, 1))
		return FALSE;
	if (e->slots->len >= TC_FILTER_INSNS_MAX)
		return emit_fail(e, node, "expression too long (over %u instructions)",
				 TC_FILTER_INSNS_MAX);
	memcpy(&slot, value, sizeof(slot));
	g_array_append_val(e->slots, slot);
	return TRUE;
}

static gboolean
emit_string(Emitter *e, const Node *node)
{
	guint32 offset = (guint32)e->strings->len;

	if (node->text_len > TC_FILTER_STRINGS_MAX - e->strings->len)
		return emit_fail(e, node, "string literals longer than %u bytes in all",
				 TC_FILTER_STRINGS_MAX);
	g_string_append_len(e->strings, node->text, (gssize)node->text_len);
	return emit(e, node, TC_FILTER_OP_PUSH_STR, 0, (guint16)node->text_len, offset, 1);
}

static gboolean emit_node(Emitter *e, const Node *node);

/* Emits node and converts its value to want (TY_DOUBLE or TY_INT truth). */
static gboolean
emit_as(Emitter *e, const Node *node, Type want)
{
	if (!emit_node(e, node))
		return FALSE;
	if (want == TY_DOUBLE && node->type == TY_INT)
		return emit(e, node, TC_FILTER_OP_INT_TO_DOUBLE, 0, 0, 0, 0);
	if (want == TY_INT && node->type == TY_DOUBLE)
		return emit(e, node, TC_FILTER_OP_DTRUTH, 0, 0, 0, 0);
	return TRUE;
}

static guint8
binary_op(TokenKind kind, gboolean on_doubles)
{
	static const struct {
		TokenKind kind;
		guint8 op, dop;
	} map[] = {
		{T_PLUS, TC_FILTER_OP_ADD, TC_FILTER_OP_DADD},
		{T_MINUS, TC_FILTER_OP_SUB, TC_FILTER_OP_DSUB},
		{T_MUL, TC_FILTER_OP_MUL, TC_FILTER_OP_DMUL},
		{T_DIV, TC_FILTER_OP_DIV, TC_FILTER_OP_DDIV},
		{T_MOD, TC_FILTER_OP_MOD, 0},
		{T_BIT_AND, TC_FILTER_OP_BIT_AND, 0},
		{T_BIT_OR, TC_FILTER_OP_BIT_OR, 0},
		{T_BIT_XOR, TC_FILTER_OP_BIT_XOR, 0},
		{T_SHL, TC_FILTER_OP_SHL, 0},
		{T_SHR, TC_FILTER_OP_SHR, 0},
		{T_EQ, TC_FILTER_OP_EQ, TC_FILTER_OP_DEQ},
		{T_NE, TC_FILTER_OP_NE, TC_FILTER_OP_DNE},
		{T_LT, TC_FILTER_OP_LT, TC_FILTER_OP_DLT},
		{T_LE, TC_FILTER_OP_LE, TC_FILTER_OP_DLE},
		{T_GT, TC_FILTER_OP_GT, TC_FILTER_OP_DGT},
		{T_GE, TC_FILTER_OP_GE, TC_FILTER_OP_DGE},
	};

	for (guint i = 0; i < G_N_ELEMENTS(map); i++)
		if (map[i].kind == kind)
			return on_doubles ? map[i].dop : map[i].op;
	g_assert_not_reached();
}

/* String equality: the glob, when there is one, goes on top. */
static gboolean
emit_string_compare(Emitter *e, const Node *node)
{
	const Node *first = node->left, *second = node->right;
	guint8 flags;

	if (first->kind == N_STR && first->is_glob && !(second->kind == N_STR && second->is_glob)) {
		first = node->right;
		second = node->left;
	}
	flags = second->kind == N_STR && second->is_glob ? TC_FILTER_STR_GLOB : 0;
	return emit_node(e, first) && emit_node(e, second) &&
	       emit(e, node, node->op == T_EQ ? TC_FILTER_OP_STR_EQ : TC_FILTER_OP_STR_NE, flags,
		    0, 0, -1);
}

static gboolean
emit_logical(Emitter *e, const Node *node)
{
	guint jump;

	if (!emit_as(e, node->left, TY_INT))
		return FALSE;
	jump = e->slots->len;
	if (!emit(e, node, node->op == T_AND ? TC_FILTER_OP_AND : TC_FILTER_OP_OR, 0, 0, 0, -1) ||
	    !emit_as(e, node->right, TY_INT))
		return FALSE;
	g_array_index(e->slots, struct tc_filter_insn, jump).arg32 = e->slots->len;
	return TRUE;
}

static gboolean
emit_binary(Emitter *e, const Node *node)
{
	Type operands;

	if (node->op == T_AND || node->op == T_OR)
		return emit_logical(e, node);
	if (node->left->type == TY_STR)
		return emit_string_compare(e, node);
	operands = node->left->type == TY_DOUBLE || node->right->type == TY_DOUBLE ? TY_DOUBLE
										 : TY_INT;
	return emit_as(e, node->left, operands) && emit_as(e, node->right, operands) &&
	       emit(e, node, binary_op(node->op, operands == TY_DOUBLE), 0, 0, 0, -1);
}

static gboolean
emit_unary(Emitter *e, const Node *node)
{
	if (node->op == T_NOT)
		return emit_as(e, node->left, TY_INT) &&
		       emit(e, node, TC_FILTER_OP_NOT, 0, 0, 0, 0);
	if (!emit_node(e, node->left))
		return FALSE;
	switch (node->op) {
	case T_BIT_NOT:
		return emit(e, node, TC_FILTER_OP_BIT_NOT, 0, 0, 0, 0);
	case T_MINUS:
		return emit(e, node,
			    node->left->type == TY_DOUBLE ? TC_FILTER_OP_DNEG : TC_FILTER_OP_NEG, 0,
			    0, 0, 0);
	default: /* unary plus */
		return TRUE;
	}
}

static gboolean
emit_node(Emitter *e, const Node *node)
{
	static const guint8 loads[] = {[TY_INT] = TC_FILTER_OP_LOAD_INT,
				       [TY_DOUBLE] = TC_FILTER_OP_LOAD_DOUBLE,
				       [TY_STR] = TC_FILTER_OP_LOAD_STR};

	switch (node->kind) {
	case N_INT:
		return emit_immediate(e, node, TC_FILTER_OP_PUSH_INT, &node->int_value);
	case N_DOUBLE:
		return emit_immediate(e, node, TC_FILTER_OP_PUSH_DOUBLE, &node->double_value);
	case N_STR:
		return emit_string(e, node);
	case N_FIELD:
		return emit(e, node, loads[node->type], 0, (guint16)node->field_index, 0, 1);
	case N_CTX:
		return emit(e, node, TC_FILTER_OP_LOAD_CTX, 0, 0, node->context, 1);
	case N_UNARY:
		return emit_unary(e, node);
	case N_BINARY:
		return emit_binary(e, node);
	}
	g_assert_not_reached();
}

static GBytes *
assemble(Emitter *e)
{
	struct tc_filter_header header = {
		.magic = TC_FILTER_MAGIC,
		.version = TC_FILTER_VERSION,
		.nr_insns = (guint16)e->slots->len,
		.strings_len = (guint16)e->strings->len,
	};
	GByteArray *out = g_byte_array_new();

	g_byte_array_append(out, (const guint8 *)&header, sizeof(header));
	g_byte_array_append(out, (const guint8 *)e->slots->data,
			    e->slots->len * sizeof(struct tc_filter_insn));
	g_byte_array_append(out, (const guint8 *)e->strings->str, (guint)e->strings->len);
	return g_byte_array_free_to_bytes(out);
}

/*
 * exprs[0] || exprs[1] || ...: each OR jumps to the final RETURN with a
 * true value on the stack, which is where the last filter leaves its own.
 * Filters that do not apply to these fields are left out (they never match
 * this event); when none applies, the first one's error is returned.
 */
GBytes *
tc_filter_compile(TcFilterExpr *const *exprs, guint n, const struct tracectl_abi_field *fields,
		  guint nr_fields, GError **error)
{
	g_autoptr(GArray) slots = g_array_new(FALSE, TRUE, sizeof(struct tc_filter_insn));
	g_autoptr(GString) strings = g_string_new(NULL);
	g_autoptr(GArray) jumps = g_array_new(FALSE, FALSE, sizeof(guint));
	g_autoptr(GError) first_error = NULL;
	Emitter e = {.slots = slots, .strings = strings};
	const Node *last = NULL;

	for (guint i = 0; i < n; i++) {
		Node *root = exprs[i]->root;
		g_autoptr(GError) local_error = NULL;
		Checker c = {.fields = fields, .nr_fields = nr_fields, .error = &local_error};

		if (!check_expr(&c, root)) {
			if (first_error == NULL)
				first_error = g_steal_pointer(&local_error);
			continue;
		}
		if (last != NULL) {
			guint jump = slots->len;

			g_array_append_val(jumps, jump);
			e.error = error;
			if (!emit(&e, last, TC_FILTER_OP_OR, 0, 0, 0, -1))
				return NULL;
		}
		e.error = error;
		if (!emit_as(&e, root, TY_INT))
			return NULL;
		last = root;
	}
	if (last == NULL) {
		if (first_error != NULL)
			g_propagate_error(error, g_steal_pointer(&first_error));
		else
			g_set_error_literal(error, TC_ERROR, TC_ERROR_INVALID_ARGUMENT,
					    "filter: no expression");
		return NULL;
	}
	for (guint i = 0; i < jumps->len; i++)
		g_array_index(slots, struct tc_filter_insn, g_array_index(jumps, guint, i)).arg32 =
			slots->len;
	if (!emit(&e, last, TC_FILTER_OP_RETURN, 0, 0, 0, -1))
		return NULL;
	return assemble(&e);
}
