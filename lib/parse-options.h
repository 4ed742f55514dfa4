/* A table-driven command-line parser with perf's option conventions. */
#ifndef PERF_PARSE_OPTIONS_H
#define PERF_PARSE_OPTIONS_H

/* A small table-driven parser with perf's option conventions:
 * -x, -xVAL, -x VAL, --long, --long=VAL, --long VAL, --no-long, "--",
 * and unambiguous abbreviations of long names (--over for --overwrite). */

enum opt_type { OPT_END, OPT_BOOLEAN, OPT_INCR, OPT_STRING, OPT_CALLBACK };

enum opt_flags {
	OPT_OPTARG = 2,	/* value only with --long=VAL */
	OPT_NEG    = 8,	/* a value option that --no-long resets */
	OPT_MULTI  = 16,	/* values that add up (-e): the callback's doing */
	OPT_NOARG  = 32,	/* a callback without a value (arg NULL), run in place */
	OPT_ONCE   = 64,	/* a value option refused when given again */
};

/* Negation is opt-in where it would hand a callback no value: booleans and
 * counters take --no-X (unless named "no-..."), options with a value only
 * with OPT_NEG. As in perf, any option may be given again: the last value
 * wins (a string's, or the callback's doing; OPT_MULTI ones add up), but
 * for OPT_ONCE ones, which perf refuses twice (-k), until a --no-X. */

struct option;
/* arg is never NULL when unset is 0; with --no-X (only if OPT_NEG) arg is
 * NULL and unset is 1.
 * Returns 0, or -1 after printing a one-line error. */
typedef int (*opt_cb)(const struct option *opt, const char *arg, int unset);

struct option {
	enum opt_type type;
	int short_name;
	const char *long_name;
	void *value;
	const char *argh;
	const char *help;
	int flags;
	opt_cb cb;
	const char *defval;	/* OPT_OPTARG value when none is given (not NULL) */
};

#define OPT_BOOL(s, l, v, h) { OPT_BOOLEAN, (s), (l), (v), NULL, (h), 0, NULL, NULL }
#define OPT_COUNT(s, l, v, h) { OPT_INCR, (s), (l), (v), NULL, (h), 0, NULL, NULL }
#define OPT_STR(s, l, v, a, h) { OPT_STRING, (s), (l), (v), (a), (h), 0, NULL, NULL }
#define OPT_STR_NEG(s, l, v, a, h) { OPT_STRING, (s), (l), (v), (a), (h), OPT_NEG, NULL, NULL }
#define OPT_CB(s, l, v, a, h, f) { OPT_CALLBACK, (s), (l), (v), (a), (h), 0, (f), NULL }
#define OPT_CB_FLAGS(s, l, v, a, h, f, fl) { OPT_CALLBACK, (s), (l), (v), (a), (h), (fl), (f), NULL }
#define OPT_CB_OPTARG(s, l, v, a, h, f, d, fl) \
	{ OPT_CALLBACK, (s), (l), (v), (a), (h), OPT_OPTARG | (fl), (f), (d) }
#define OPT_CB_NOARG(l, v, h, f) { OPT_CALLBACK, 0, (l), (v), NULL, (h), OPT_NOARG, (f), NULL }
#define OPT_TERMINATOR { OPT_END, 0, NULL, NULL, NULL, NULL, 0, NULL, NULL }

enum { PARSE_OPT_HELP = -2, PARSE_OPT_ERROR = -1 };

/* Parses argv[1..] (argv[0] is the command), stopping at the first
 * non-option or after "--". Returns the count of remaining arguments, which
 * are moved to argv[0..]; PARSE_OPT_HELP after printing usage for -h; or
 * PARSE_OPT_ERROR after printing one line, "Error: ...", on stderr. */
int parse_options(int argc, const char **argv, const struct option *opts,
		  const char *const *usage);
void usage_with_options(const char *const *usage, const struct option *opts);

#endif
