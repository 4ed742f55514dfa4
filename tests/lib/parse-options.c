/* The option parser (lib/parse-options.c): negation, values,
 * abbreviations, and the errors each misuse gets. */
#include "tests/tests.h"
#include "lib/parse-options.h"
#include "lib/util.h"

#include <string.h>
#include <unistd.h>

/* What the options of one parse_options() run set. */
struct opts_seen {
	int all, verbose, no_inherit, quiet;
	const char *cpu, *output;
	int calls;		/* callback runs */
	int unset;		/* the last callback's unset */
	const char *arg;	/* the last callback's arg */
	int null_arg;		/* a callback got NULL without unset */
	char line[256];		/* the command line the values point into */
};

static int cb_record(const struct option *opt, const char *arg, int unset)
{
	struct opts_seen *s = opt->value;

	s->calls++;
	s->unset = unset;
	s->arg = arg;
	if (!arg && !unset)
		s->null_arg = 1;
	return arg && !strcmp(arg, "bad") ? -1 : 0;
}

static const char *const usage[] = { "perf x [<options>]", NULL };

/* Runs parse_options() on a space-separated command line with stderr
 * caught in err; returns what parse_options() returned. */
static int parse(const char *cmdline, struct opts_seen *s, char *err, size_t errsz,
		 const char **rest)
{
	const struct option options[] = {
		OPT_CB_FLAGS('e', "event", s, "event", "event", cb_record, OPT_MULTI),
		OPT_BOOL('a', "all-cpus", &s->all, "all"),
		OPT_STR_NEG('C', "cpu", &s->cpu, "cpu", "cpus"),
		OPT_CB('c', "count", s, "n", "period", cb_record),
		OPT_STR('o', "output", &s->output, "file", "output"),
		OPT_BOOL(0, "no-inherit", &s->no_inherit, "no inherit"),
		OPT_CB_OPTARG(0, "switch-output", s, "when", "switch", cb_record, "signal", OPT_NEG),
		OPT_CB(0, "switch-output-event", s, "event", "switch event", cb_record),
		OPT_CB(0, "switch-max-files", s, "n", "max files", cb_record),
		OPT_CB_FLAGS('k', "clockid", s, "clock", "clock", cb_record, OPT_ONCE | OPT_NEG),
		OPT_BOOL('q', "quiet", &s->quiet, "quiet"),
		OPT_COUNT('v', "verbose", &s->verbose, "verbose"),
		OPT_TERMINATOR
	};
	const char *argv[32] = { "x" };
	char *tok, *save = NULL;
	int argc = 1, ret, saved = dup(2);
	FILE *f = tmpfile();
	size_t n = 0;

	memset(s, 0, sizeof(*s));
	snprintf(s->line, sizeof(s->line), "%s", cmdline);
	for (tok = strtok_r(s->line, " ", &save); tok && argc < 31; tok = strtok_r(NULL, " ", &save))
		argv[argc++] = strcmp(tok, "''") ? tok : "";
	if (!f || saved < 0) {
		if (f)
			fclose(f);
		return -100;
	}
	fflush(stderr);
	dup2(fileno(f), 2);
	ret = parse_options(argc, argv, options, usage);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(f);
	n = fread(err, 1, errsz - 1, f);
	err[n] = '\0';
	fclose(f);
	if (rest)
		*rest = ret > 0 ? argv[0] : NULL;
	return ret;
}

static int test_negation(struct test_ctx *ctx)
{
	struct opts_seen s;
	char err[512];

	(void)ctx;
	/* booleans and counters: --no-X */
	TEST_ASSERT(parse("-a --no-all-cpus -vv --no-verbose", &s, err, sizeof(err), NULL) == 0 &&
		    !s.all && !s.verbose && !err[0], "%s", err);
	/* a value option flagged negatable: the callback sees unset, no value */
	TEST_ASSERT(parse("--switch-output=5s --no-switch-output", &s, err, sizeof(err), NULL) == 0 &&
		    s.calls == 2 && s.unset == 1 && s.arg == NULL, "%s", err);
	TEST_ASSERT(parse("-C 0 --no-cpu", &s, err, sizeof(err), NULL) == 0 && !s.cpu, "%s", err);
	/* the rest cannot be negated: no callback ever runs with a NULL value */
	/* a name that already is a negation */
	TEST_ASSERT(parse("--no-inherit", &s, err, sizeof(err), NULL) == 0 && s.no_inherit, "%s", err);
	/* a negation takes no value */
	return TEST_OK;
}

static int test_values(struct test_ctx *ctx)
{
	struct opts_seen s;
	const char *rest;
	char err[512];

	(void)ctx;
	TEST_ASSERT(parse("-qofile -c5 -- -a", &s, err, sizeof(err), &rest) == 1 && s.quiet &&
		    !strcmp(s.output, "file") && !strcmp(s.arg, "5") && !strcmp(rest, "-a") && !s.all,
		    "%s", err);
	TEST_ASSERT(parse("--output=a.data --count 7 prog -q", &s, err, sizeof(err), &rest) == 2 &&
		    !strcmp(s.output, "a.data") && !strcmp(s.arg, "7") && !strcmp(rest, "prog") &&
		    !s.quiet, "%s", err);
	/* -c -1: the next argument is the value, whatever it looks like */
	TEST_ASSERT(parse("-c -1", &s, err, sizeof(err), NULL) == 0 && !strcmp(s.arg, "-1"), "%s", err);
	/* an empty value is still a value, for the callback to judge */
	TEST_ASSERT(parse("--switch-output=", &s, err, sizeof(err), NULL) == 0 && !strcmp(s.arg, ""),
		    "%s", err);
	TEST_ASSERT(parse("-c ''", &s, err, sizeof(err), NULL) == 0 && !strcmp(s.arg, ""), "%s", err);
	/* an optional value: the default without "=", never the next argument */
	TEST_ASSERT(parse("--switch-output prog", &s, err, sizeof(err), &rest) == 1 &&
		    !strcmp(s.arg, "signal") && !strcmp(rest, "prog"), "%s", err);
	/* given again, as perf takes them: each value to the callback, the
	 * last one a string's; OPT_ONCE ones only after a --no-X */
	TEST_ASSERT(parse("-e a -e b --event=c", &s, err, sizeof(err), NULL) == 0 && s.calls == 3,
		    "%s", err);
	TEST_ASSERT(parse("-o a -o b", &s, err, sizeof(err), NULL) == 0 && !strcmp(s.output, "b") &&
		    !err[0], "%s", err);
	TEST_ASSERT(parse("-o a --output=b -oc", &s, err, sizeof(err), NULL) == 0 &&
		    !strcmp(s.output, "c"), "%s", err);
	TEST_ASSERT(parse("-c 1 --count=2 -c 3", &s, err, sizeof(err), NULL) == 0 && s.calls == 3 &&
		    !strcmp(s.arg, "3"), "%s", err);
	TEST_ASSERT(parse("-C 0 -C 1", &s, err, sizeof(err), NULL) == 0 && !strcmp(s.cpu, "1"),
		    "%s", err);
	TEST_ASSERT(parse("-k mono --no-clockid -k raw", &s, err, sizeof(err), NULL) == 0 &&
		    s.calls == 3 && !strcmp(s.arg, "raw"), "%s", err);
	TEST_ASSERT(parse("-C 0 --no-cpu -C 1", &s, err, sizeof(err), NULL) == 0 &&
		    !strcmp(s.cpu, "1"), "%s", err);
	TEST_ASSERT(parse("-q -q -vvv", &s, err, sizeof(err), NULL) == 0 && s.quiet && s.verbose == 3,
		    "%s", err);
	return TEST_OK;
}

static int test_abbreviations(struct test_ctx *ctx)
{
	struct opts_seen s;
	char err[512];

	(void)ctx;
	TEST_ASSERT(parse("--all --outp=f --verb", &s, err, sizeof(err), NULL) == 0 && s.all &&
		    !strcmp(s.output, "f") && s.verbose == 1, "%s", err);
	/* the whole name wins over the longer ones it starts */
	TEST_ASSERT(parse("--switch-output=1M", &s, err, sizeof(err), NULL) == 0 && s.calls == 1 &&
		    !strcmp(s.arg, "1M"), "%s", err);
	/* abbreviated negations, and "no-inherit" by its own prefix */
	TEST_ASSERT(parse("-a --no-al", &s, err, sizeof(err), NULL) == 0 && !s.all, "%s", err);
	TEST_ASSERT(parse("--no-i", &s, err, sizeof(err), NULL) == 0 && s.no_inherit, "%s", err);
	return TEST_OK;
}

/* Each bad command line: the one line it gets on stderr, no callback run
 * without a value, nothing after the error parsed. */
static int test_errors(struct test_ctx *ctx)
{
	static const struct { const char *cmdline, *want; } cases[] = {
		/* only booleans, counters and OPT_NEG options may be negated */
		{ "--no-event", "Error: option `no-event' isn't available" },
		{ "--no-count", "Error: option `no-count' isn't available" },
		{ "--no-output", "Error: option `no-output' isn't available" },
		{ "--no-switch-output-event", "Error: option `no-switch-output-event' isn't available" },
		{ "--no-switch-max", "Error: option `no-switch-max' isn't available" },
		{ "--no-no-inherit", "Error: option `no-no-inherit' isn't available" },
		{ "--no-bogus", "Error: unknown option `no-bogus' (see -h)" },
		{ "--no-quiet=1", "Error: option `no-quiet' takes no value" },
		{ "--no-switch-output=5s", "Error: option `no-switch-output' takes no value" },
		/* values where none is taken, none where one is needed */
		{ "-c", "Error: switch `c' requires a value" },
		{ "--count", "Error: option `count' requires a value" },
		{ "--quiet=1", "Error: option `quiet' takes no value" },
		{ "--all-cpus=", "Error: option `all-cpus' takes no value" },
		/* what perf refuses twice (OPT_ONCE) */
		{ "-k a -k b", "Error: switch `k' given more than once" },
		{ "-k a --clockid=b", "Error: option `clockid' given more than once" },
		{ "--clock=a -ka", "Error: switch `k' given more than once" },
		{ "-Z", "Error: unknown switch `Z' (see -h)" },
		{ "-qZ", "Error: unknown switch `Z' (see -h)" },
		{ "--bogus=1", "Error: unknown option `bogus' (see -h)" },
		{ "--=x", "Error: unknown option `=x' (see -h)" },
		{ "--switch", "Error: Ambiguous option: switch (could be --switch-output or "
			      "--switch-output-event)" },
	};
	struct opts_seen s;
	char err[512], want[512];

	(void)ctx;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int ret = parse(cases[i].cmdline, &s, err, sizeof(err), NULL);

		snprintf(want, sizeof(want), "%s\n", cases[i].want);
		TEST_ASSERT(ret == PARSE_OPT_ERROR, "'%s' returned %d", cases[i].cmdline, ret);
		TEST_ASSERT(!strcmp(err, want), "'%s' said '%s'", cases[i].cmdline, err);
		TEST_ASSERT(!s.null_arg && (s.calls == 0 || strncmp(cases[i].cmdline, "--no-", 5)),
			    "'%s': a callback ran without a value", cases[i].cmdline);
	}
	/* a callback's error stops the parse */
	TEST_ASSERT(parse("-c bad -q", &s, err, sizeof(err), NULL) == PARSE_OPT_ERROR && !s.quiet,
		    "a failed callback went on");
	return TEST_OK;
}

static int test_parse_options(struct test_ctx *ctx)
{
	int ret = test_negation(ctx);

	if (!ret)
		ret = test_values(ctx);
	if (!ret)
		ret = test_abbreviations(ctx);
	if (!ret)
		ret = test_errors(ctx);
	return ret;
}

const struct test_suite suite_lib_parse_options = {
	"lib/parse-options", "Option parser: negation, values, abbreviations, errors",
	test_parse_options,
};
