/* Names escaped for log lines (lib/escape.c): what is escaped, what is
 * kept, cutting, and the way back. */
#include "tests/tests.h"
#include "lib/escape.h"

#include <errno.h>
#include <string.h>

static int test_escape_str(struct test_ctx *ctx)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "/usr/bin/ls", "/usr/bin/ls" },
		{ "a\nb\tc\rd\\e", "a\\nb\\tc\\rd\\\\e" },
		{ "x\n[ perf record: Dump /tmp/evil ]", "x\\n[ perf record: Dump /tmp/evil ]" },
		{ "\x1b[2Jclear\x7f", "\\x1b[2Jclear\\x7f" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7" },
		{ "c1 \xc2\x9b csi", "c1 \\xc2\\x9b csi" },
		{ "bidi \xe2\x80\xae rlo \xe2\x81\xa6 lsep \xe2\x80\xa8",
		  "bidi \\xe2\\x80\\xae rlo \\xe2\\x81\\xa6 lsep \\xe2\\x80\\xa8" },
		{ "bad \xff \xc3 \xc0\xaf \xed\xa0\x80 \xf4\x90\x80\x80",
		  "bad \\xff \\xc3 \\xc0\\xaf \\xed\\xa0\\x80 \\xf4\\x90\\x80\\x80" },
		{ "", "" },
	};
	char out[256], back[256];

	(void)ctx;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		TEST_ASSERT(escape__str(out, sizeof(out), cases[i].in) == out, "returns dst");
		TEST_ASSERT(!strcmp(out, cases[i].out), "case %zu: '%s', want '%s'", i, out,
			    cases[i].out);
		TEST_ASSERT(!strpbrk(out, "\n\r\x1b"), "case %zu: a raw control byte", i);
		TEST_ASSERT(!escape__undo(back, sizeof(back), out) && !strcmp(back, cases[i].in),
			    "case %zu: the way back gave '%s'", i, back);
	}
	return TEST_OK;
}

/* What does not fit is cut at a character's end, never in an escape or
 * in a UTF-8 sequence, and marked. */
static int test_escape_cut(struct test_ctx *ctx)
{
	char out[12];

	(void)ctx;
	escape__str(out, sizeof(out), "abcdefghijklmnop");
	TEST_ASSERT(!strcmp(out, "abcdefgh..."), "'%s'", out);
	escape__str(out, sizeof(out), "abcdefghijk");
	TEST_ASSERT(!strcmp(out, "abcdefghijk"), "a name that fits exactly: '%s'", out);
	escape__str(out, sizeof(out), "abcde\n\n\n\n");
	TEST_ASSERT(!strcmp(out, "abcde\\n..."), "'%s'", out);
	escape__str(out, sizeof(out), "abcdef\x1bxyzw");
	TEST_ASSERT(!strcmp(out, "abcdef..."), "an escape is not split: '%s'", out);
	escape__str(out, sizeof(out), "abcdefg\xe2\x82\xac\xe2\x82\xac");
	TEST_ASSERT(!strcmp(out, "abcdefg..."), "UTF-8 is not split: '%s'", out);
	return TEST_OK;
}

static int test_escape_undo(struct test_ctx *ctx)
{
	char out[8];

	(void)ctx;
	TEST_ASSERT(escape__undo(out, sizeof(out), "a\\qb") == -EINVAL, "unknown escape");
	TEST_ASSERT(escape__undo(out, sizeof(out), "a\\x0") == -EINVAL, "cut \\x");
	TEST_ASSERT(escape__undo(out, sizeof(out), "a\\x00b") == -EINVAL, "a NUL");
	TEST_ASSERT(escape__undo(out, sizeof(out), "a\\") == -EINVAL, "a lone backslash");
	TEST_ASSERT(escape__undo(out, sizeof(out), "a\nb") == -EINVAL, "a raw newline");
	TEST_ASSERT(escape__undo(out, sizeof(out), "abcdefgh") == -ENAMETOOLONG, "too long");
	TEST_ASSERT(!escape__undo(out, sizeof(out), "\\x41\\n\\\\") && !strcmp(out, "A\n\\"),
		    "'%s'", out);
	return TEST_OK;
}

TEST_SUITE(suite_lib_escape, "lib/escape", "Names escaped for log lines, and back",
	   test_escape_str, test_escape_cut, test_escape_undo);
