/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * The parsed form of a filter expression, shared by the bytecode compiler
 * (tc-filter.c) and the translation to tracefs filters
 * (tc-filter-kernel.c). Nothing else looks inside.
 */
#include <glib.h>

typedef enum {
	T_END,
	T_INT,
	T_DOUBLE,
	T_STR,
	T_IDENT,
	T_CTX,
	T_LPAREN,
	T_RPAREN,
	T_NOT,
	T_BIT_NOT,
	T_MUL,
	T_DIV,
	T_MOD,
	T_PLUS,
	T_MINUS,
	T_SHL,
	T_SHR,
	T_LT,
	T_LE,
	T_GT,
	T_GE,
	T_EQ,
	T_NE,
	T_BIT_AND,
	T_BIT_XOR,
	T_BIT_OR,
	T_AND,
	T_OR,
} TokenKind;

typedef enum { TY_NONE, TY_INT, TY_DOUBLE, TY_STR, TY_ANY } Type;

typedef enum {
	N_INT,
	N_DOUBLE,
	N_STR,
	N_FIELD,
	N_CTX,
	N_UNARY,
	N_BINARY,
} NodeKind;

typedef struct _Node Node;
struct _Node {
	NodeKind kind;
	TokenKind op; /* N_UNARY, N_BINARY */
	guint column;
	Type type; /* set by check_node() */
	gint64 int_value;
	double double_value;
	char *text; /* N_STR: the value; N_FIELD: the name */
	gsize text_len;
	gboolean is_glob;
	guint32 context; /* N_CTX: enum tc_filter_ctx */
	guint field_index; /* N_FIELD, once checked against an event */
	Node *left, *right;
};

struct _TcFilterExpr {
	Node *root;
};

/* The operator's text, "?" for a token that is not one. */
const char *tc_filter_token_text(TokenKind kind);
/* "vpid" for TC_FILTER_CTX_VPID, and so on. */
const char *tc_filter_context_name(guint32 context);
