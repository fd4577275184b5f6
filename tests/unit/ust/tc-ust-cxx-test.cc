/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The public tracepoint header in a C++ program: a provider defined with
 * the macros compiles without warnings (-Wall -Wextra, C++17), registers
 * through the library's constructor, and its disabled tracepoint does not
 * evaluate its arguments, nor do tracectl/tracef.h's. Built again with
 * TRACECTL_SDT, and with sys/sdt.h's semaphores too, the SDT probes compile
 * in C++, and evaluate the tracepoint's arguments as in C. The C side of
 * the same checks is tc-ust-test.c, and tc-ust-sdt-test.c for SDT.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define TRACECTL_CREATE_PROBES
#include <tracectl/tracef.h>
#include <tracectl/tracepoint.h>

TRACECTL_EVENT_LOGLEVEL(cxx, pair, TRACECTL_LOGLEVEL_INFO,
	TRACECTL_ARGS(long, count, const char *, text),
	TRACECTL_FIELDS(
		tracectl_field_integer(long, count, count),
		tracectl_field_string(text, text)))

TRACECTL_EVENT(cxx, containers,
	TRACECTL_ARGS(const unsigned short *, words, const char *, text, unsigned, length,
		      const double *, reals),
	TRACECTL_FIELDS(
		tracectl_field_array_hex(unsigned short, words, words, 4),
		tracectl_field_sequence_text(char, text, text, length),
		tracectl_field_sequence_double(reals, reals, length)))

/* Every kind of entry, values of either signedness and of every width,
 * in two containers: without a warning in C++ either. */
TRACECTL_ENUM(cxx, level,
	TRACECTL_ENUM_VALUES(
		tracectl_enum_range("small", 1u, 10),
		tracectl_enum_auto("eleven"),
		tracectl_enum_value("top", UINT64_MAX)))

TRACECTL_ENUM(cxx, sign,
	TRACECTL_ENUM_VALUES(
		tracectl_enum_range("minus", INT64_MIN, -1L),
		tracectl_enum_auto("nought")))

TRACECTL_EVENT(cxx, enums,
	TRACECTL_ARGS(int, level, long, sign),
	TRACECTL_FIELDS(
		tracectl_field_enum(cxx, sign, int64_t, sign, sign),
		tracectl_field_enum(cxx, level, uint64_t, level, level)))

static int failures;

static void
check(bool condition, const char *what)
{
	if (!condition) {
		std::fprintf(stderr, "FAIL: %s\n", what);
		failures++;
	}
}

static int evaluations;

static long
count_evaluation()
{
	return ++evaluations;
}

int
main()
{
	const tracectl_ust_event &event = __tracectl_event__cxx__pair;

	check(event.loglevel == TRACECTL_LOGLEVEL_INFO, "log level");
	check(std::strcmp(event.provider, "cxx") == 0 && std::strcmp(event.name, "pair") == 0,
	      "provider and name");
	check(event.nr_fields == 2, "two fields");
	check(std::strcmp(event.fields[0].name, "count") == 0 &&
		      event.fields[0].type == TRACECTL_UST_FIELD_SIGNED &&
		      event.fields[0].size == sizeof(long),
	      "integer field");
	check(std::strcmp(event.fields[1].name, "text") == 0 &&
		      event.fields[1].type == TRACECTL_UST_FIELD_STRING,
	      "string field");
	const tracectl_ust_event &containers = __tracectl_event__cxx__containers;
	check(containers.nr_fields == 3 &&
		      containers.fields[0].type ==
			      (TRACECTL_UST_FIELD_ARRAY | TRACECTL_UST_FIELD_HEX |
			       TRACECTL_UST_FIELD_ELEMENT(TRACECTL_UST_FIELD_UNSIGNED, 2)) &&
		      containers.fields[0].size == 4,
	      "array field");
	check(containers.fields[1].type ==
			      (TRACECTL_UST_FIELD_SEQUENCE | TRACECTL_UST_FIELD_TEXT |
			       TRACECTL_UST_FIELD_ELEMENT((char)-1 < 0 ? TRACECTL_UST_FIELD_SIGNED
									: TRACECTL_UST_FIELD_UNSIGNED,
							  1)) &&
		      containers.fields[1].size == 0,
	      "text sequence field");
	check(containers.fields[2].type ==
			      (TRACECTL_UST_FIELD_SEQUENCE |
			       TRACECTL_UST_FIELD_ELEMENT(TRACECTL_UST_FIELD_DOUBLE, 8)) &&
		      containers.fields[2].size == 0,
	      "double sequence field");
	check(containers.priv != nullptr, "the containers' event registered");
	const tracectl_ust_event &enums = __tracectl_event__cxx__enums;
	check(enums.nr_fields == 2 &&
		      enums.fields[0].type ==
			      (TRACECTL_UST_FIELD_ENUM |
			       TRACECTL_UST_FIELD_ELEMENT(TRACECTL_UST_FIELD_SIGNED, 8)) &&
		      enums.field_enums[0] == &__tracectl_enum__cxx__sign &&
		      enums.field_enums[1] == &__tracectl_enum__cxx__level,
	      "enumeration fields");
	check(__tracectl_enum__cxx__sign.entries[0].flags == TRACECTL_UST_ENUM_SIGNED &&
		      __tracectl_enum__cxx__sign.entries[1].flags == TRACECTL_UST_ENUM_AUTO &&
		      __tracectl_enum__cxx__level.entries[0].flags == 0 &&
		      __tracectl_enum__cxx__level.entries[2].begin == UINT64_MAX,
	      "enumeration entries");
	check(enums.priv != nullptr, "the enumerations' event registered");
	tracectl_tracepoint(cxx, enums, 3, -2L);
	{
		static const unsigned short words[4] = {1, 2, 3, 4};
		static const double reals[2] = {0.5, 1.5};

		tracectl_tracepoint(cxx, containers, words, "ab", 2u, reals);
	}
	/* The constructor registered it; without a service it stays off. */
	check(event.priv != nullptr, "registered by the constructor");
	check(!tracectl_tracepoint_enabled(cxx, pair), "disabled without a service");
	tracectl_tracepoint(cxx, pair, count_evaluation(), "never");
	/* printf-style events, disabled: their arguments are not evaluated. */
	tracectl_tracef("%ld", count_evaluation());
	tracectl_tracelog(TRACECTL_LOGLEVEL_INFO, "%ld", count_evaluation());
#if defined(TRACECTL_SDT) && !defined(_SDT_HAS_SEMAPHORES)
	/* The SDT probe's operands hold the arguments at every pass. */
	check(evaluations == 1, "the SDT probe did not evaluate its arguments once");
#else
	check(evaluations == 0, "a disabled tracepoint evaluated its arguments");
#endif
#ifdef TRACECTL_SDT
	/* Recorded, the SDT probe and the probe function share one evaluation. */
	__tracectl_event__cxx__pair.enabled = 1;
	evaluations = 0;
	tracectl_tracepoint(cxx, pair, count_evaluation(), "once");
	__tracectl_event__cxx__pair.enabled = 0;
	check(evaluations == 1, "a recorded SDT tracepoint did not evaluate its arguments once");
#endif
	return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
