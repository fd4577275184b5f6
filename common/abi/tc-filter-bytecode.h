/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The filter bytecode that tracectld compiles from an event filter
 * expression (docs/filters.md) and that libtracectl-ust runs before it
 * reserves room for a record.
 *
 * A program is a header, then nr_insns 8-byte instruction slots, then
 * strings_len bytes of string literals. Instructions run in order on a
 * stack of at most TC_FILTER_STACK_MAX values; the types are resolved by
 * the compiler, so each opcode knows the type of its operands (integers
 * are 64-bit signed, doubles binary64, strings a pointer and a length
 * without the NUL). PUSH_INT and PUSH_DOUBLE take one more slot for their
 * 64-bit immediate. The only jumps are the short-circuits of && and ||,
 * always forward: a program runs at most nr_insns instructions.
 *
 * The application trusts none of it: tc_ust_filter_load() verifies a
 * program once, when it arrives (the header, every opcode, every jump
 * target, the stack's depth and the type of each slot at every
 * instruction, field indices and their types against the event's
 * description, string literals inside the string area), and the
 * interpreter then runs it without any check but those of values (a
 * division by zero or a shift out of 0..63 rejects the event).
 *
 * The program's result is the integer on top of the stack at RETURN:
 * non-zero records the event.
 */
#ifndef TC_FILTER_BYTECODE_H
#define TC_FILTER_BYTECODE_H

#include <assert.h>
#include <stdint.h>

#define TC_FILTER_MAGIC 0x54434631u /* "TCF1" */
#define TC_FILTER_VERSION 1u

#define TC_FILTER_INSNS_MAX 256u      /* slots, immediates included */
#define TC_FILTER_STRINGS_MAX 1024u   /* bytes of string literals */
#define TC_FILTER_STACK_MAX 16u
#define TC_FILTER_BYTECODE_MAX                                                             \
	(sizeof(struct tc_filter_header) + 8u * TC_FILTER_INSNS_MAX + TC_FILTER_STRINGS_MAX)

struct tc_filter_header {
	uint32_t magic;
	uint16_t version;
	uint16_t nr_insns;    /* slots */
	uint16_t strings_len; /* bytes after the slots */
	uint16_t reserved;    /* 0 */
};

/* An instruction slot. Fields not used by an opcode must be 0. */
struct tc_filter_insn {
	uint8_t op;     /* enum tc_filter_op */
	uint8_t flags;  /* TC_FILTER_STR_GLOB for a string comparison */
	uint16_t arg16; /* field index, or string literal length */
	uint32_t arg32; /* jump target slot, string literal offset, context */
};

/* The literal of a string comparison is a glob: '*' matches any run of
 * characters, '\*' a star. */
#define TC_FILTER_STR_GLOB 0x1u

/* The contexts a filter reads ($ctx.NAME), whether or not the channel
 * records them; every one but procname is an integer. */
enum tc_filter_ctx {
	TC_FILTER_CTX_VPID = 1,
	TC_FILTER_CTX_VTID = 2,
	TC_FILTER_CTX_PROCNAME = 3, /* string */
	TC_FILTER_CTX_PTHREAD_ID = 4,
	/* the process's ids, unsigned */
	TC_FILTER_CTX_VUID = 5,
	TC_FILTER_CTX_VEUID = 6,
	TC_FILTER_CTX_VSUID = 7,
	TC_FILTER_CTX_VGID = 8,
	TC_FILTER_CTX_VEGID = 9,
	TC_FILTER_CTX_VSGID = 10,
	/* the thread's namespaces' inode numbers */
	TC_FILTER_CTX_CGROUP_NS = 11,
	TC_FILTER_CTX_IPC_NS = 12,
	TC_FILTER_CTX_MNT_NS = 13,
	TC_FILTER_CTX_NET_NS = 14,
	TC_FILTER_CTX_PID_NS = 15,
	TC_FILTER_CTX_TIME_NS = 16,
	TC_FILTER_CTX_USER_NS = 17,
	TC_FILTER_CTX_UTS_NS = 18,
	TC_FILTER_CTX_IP = 19, /* the tracepoint's call site */
	TC_FILTER_CTX_MAX = 19,
};

/* (type before) -> (type after) on the top of the stack; I integer, D
 * double, S string. */
enum tc_filter_op {
	TC_FILTER_OP_RETURN = 1,      /* I -> result */
	TC_FILTER_OP_PUSH_INT = 2,    /* -> I, next slot: int64_t */
	TC_FILTER_OP_PUSH_DOUBLE = 3, /* -> D, next slot: double */
	TC_FILTER_OP_PUSH_STR = 4,    /* -> S: arg32 offset, arg16 length */
	TC_FILTER_OP_LOAD_INT = 5,    /* -> I: integer field arg16 */
	TC_FILTER_OP_LOAD_DOUBLE = 6, /* -> D: double field arg16 */
	TC_FILTER_OP_LOAD_STR = 7,    /* -> S: string field arg16 */
	TC_FILTER_OP_LOAD_CTX = 8,    /* -> I or S: context arg32 */
	TC_FILTER_OP_INT_TO_DOUBLE = 9, /* I -> D */
	TC_FILTER_OP_NOT = 10,        /* I -> I: !x */
	TC_FILTER_OP_NEG = 11,        /* I -> I */
	TC_FILTER_OP_BIT_NOT = 12,    /* I -> I */
	TC_FILTER_OP_DNEG = 13,       /* D -> D */
	TC_FILTER_OP_DTRUTH = 14,     /* D -> I: x != 0 */
	/* I I -> I */
	TC_FILTER_OP_ADD = 20,
	TC_FILTER_OP_SUB = 21,
	TC_FILTER_OP_MUL = 22,
	TC_FILTER_OP_DIV = 23,
	TC_FILTER_OP_MOD = 24,
	TC_FILTER_OP_BIT_AND = 25,
	TC_FILTER_OP_BIT_OR = 26,
	TC_FILTER_OP_BIT_XOR = 27,
	TC_FILTER_OP_SHL = 28,
	TC_FILTER_OP_SHR = 29,
	TC_FILTER_OP_EQ = 30,
	TC_FILTER_OP_NE = 31,
	TC_FILTER_OP_LT = 32,
	TC_FILTER_OP_LE = 33,
	TC_FILTER_OP_GT = 34,
	TC_FILTER_OP_GE = 35,
	/* D D -> D */
	TC_FILTER_OP_DADD = 40,
	TC_FILTER_OP_DSUB = 41,
	TC_FILTER_OP_DMUL = 42,
	TC_FILTER_OP_DDIV = 43,
	/* D D -> I */
	TC_FILTER_OP_DEQ = 44,
	TC_FILTER_OP_DNE = 45,
	TC_FILTER_OP_DLT = 46,
	TC_FILTER_OP_DLE = 47,
	TC_FILTER_OP_DGT = 48,
	TC_FILTER_OP_DGE = 49,
	/* S S -> I; with TC_FILTER_STR_GLOB the top of the stack is the glob */
	TC_FILTER_OP_STR_EQ = 50,
	TC_FILTER_OP_STR_NE = 51,
	/* I -> I at arg32, or nothing here: && jumps to arg32 keeping the top
	 * when it is 0, || when it is not; otherwise the top is popped. The
	 * stack at arg32 must then be what it is when the right-hand operand
	 * has been pushed. */
	TC_FILTER_OP_AND = 60,
	TC_FILTER_OP_OR = 61,
};

static_assert(sizeof(struct tc_filter_header) == 12, "ABI size changed");
static_assert(sizeof(struct tc_filter_insn) == 8, "ABI size changed");

#endif /* TC_FILTER_BYTECODE_H */
