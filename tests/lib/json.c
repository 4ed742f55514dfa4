/* The JSON writer (lib/json.c): strings escaped whatever bytes they hold,
 * commas and nesting, numbers. */
#include "tests/tests.h"
#include "lib/json.h"

#include <stdlib.h>
#include <string.h>

/* What json__write_string() makes of s, malloc'd. */
static char *json_string(const char *s)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	json__write_string(f, s);
	fclose(f);
	return out;
}

static int test_json_escape(struct test_ctx *ctx)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "/var/lib/perf/perf.data.2026112811084512", "\"/var/lib/perf/perf.data.2026112811084512\"" },
		{ "q\"b\\s/", "\"q\\\"b\\\\s/\"" },
		{ "\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\"" },
		{ "\x01\x1b[2J\x1f\x7f", "\"\\u0001\\u001b[2J\\u001f\\u007f\"" },
		/* valid UTF-8 stays, C1 controls are valid and printable in JSON */
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7 \xc2\x9b", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7 \xc2\x9b\"" },
		{ "ls\xe2\x80\xa8ps\xe2\x80\xa9", "\"ls\\u2028ps\\u2029\"" },
		/* a lone byte, a cut sequence, overlong, a surrogate, past U+10FFFF */
		{ "a\xff" "b\xc3", "\"a\\ufffdb\\ufffd\"" },
		{ "\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80",
		  "\"\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd\\ufffd\"" },
		{ "\xe2\x82", "\"\\ufffd\\ufffd\"" },
		{ "", "\"\"" },
	};

	(void)ctx;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out = json_string(cases[i].in);

		TEST_ASSERT(out, "open_memstream");
		TEST_ASSERT(!strcmp(out, cases[i].out), "case %zu: %s, want %s", i, out,
			    cases[i].out);
		free(out);
	}
	return TEST_OK;
}

static int test_json_document(struct test_ctx *ctx)
{
	const char *want = "{\"pid\":12,\"name\":\"a\\nb\",\"none\":null,\"t\":1.5,"
			   "\"ok\":true,\"list\":[{\"n\":-3},{\"n\":18446744073709551615},"
			   "[],{}],\"end\":false}\n";
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	struct json j;

	(void)ctx;
	TEST_ASSERT(f, "open_memstream");
	json__init(&j, f);
	json__object(&j, NULL);
	json__s64(&j, "pid", 12);
	json__str(&j, "name", "a\nb");
	json__str(&j, "none", NULL);
	json__double(&j, "t", 1.5);
	json__bool(&j, "ok", 1);
	json__array(&j, "list");
	json__object(&j, NULL);
	json__s64(&j, "n", -3);
	json__end_object(&j);
	json__object(&j, NULL);
	json__u64(&j, "n", ~0ULL);
	json__end_object(&j);
	json__array(&j, NULL);
	json__end_array(&j);
	json__object(&j, NULL);
	json__end_object(&j);
	json__end_array(&j);
	json__bool(&j, "end", 0);
	json__end_object(&j);
	fclose(f);
	TEST_ASSERT(!strcmp(out, want), "%s, want %s", out, want);
	free(out);
	return TEST_OK;
}

TEST_SUITE(suite_lib_json, "lib/json", "The JSON writer: escaping and structure",
	   test_json_escape, test_json_document);
