/* The table-driven command-line parser, with perf's option conventions. */
#include "lib/parse-options.h"

#include <stdio.h>
#include <string.h>

/* One option as the command line named it, for its value and its errors. */
struct opt_use {
	const struct option *o;
	int unset;	/* given as --no-X */
	int is_short;	/* given as -x */
};

/* perf's wording: "switch `c' ..." for -c, "option `count' ..." for --count */
static void opt_error(const struct opt_use *u, const char *what)
{
	if (u->is_short)
		fprintf(stderr, "Error: switch `%c' %s\n", u->o->short_name, what);
	else
		fprintf(stderr, "Error: option `%s%s' %s\n", u->unset ? "no-" : "",
			u->o->long_name, what);
}

static int takes_arg(const struct option *o)
{
	return (o->type == OPT_STRING || o->type == OPT_CALLBACK) && !(o->flags & OPT_NOARG);
}

static int negatable(const struct option *o)
{
	/* --no-no-inherit would be a double negation nobody means */
	if (!o->long_name || !strncmp(o->long_name, "no-", 3))
		return 0;
	if (o->type == OPT_BOOLEAN || o->type == OPT_INCR)
		return 1;
	return !!(o->flags & OPT_NEG);
}

static int once_only(const struct option *o)
{
	return !!(o->flags & OPT_ONCE);
}

static int opt_set(const struct option *o, const char *arg, int unset)
{
	switch (o->type) {
	case OPT_BOOLEAN:
		*(int *)o->value = !unset;
		return 0;
	case OPT_INCR:
		*(int *)o->value = unset ? 0 : *(int *)o->value + 1;
		return 0;
	case OPT_STRING:
		*(const char **)o->value = unset ? NULL : arg;
		return 0;
	case OPT_CALLBACK:
		return o->cb(o, arg, unset);
	case OPT_END:
		break;
	}
	return -1;
}

/* Handles one option; *consumed tells if argv's next element was used. */
static int run_opt(const struct opt_use *u, const char *inline_arg, const char *next,
		   unsigned char *seen, int *consumed)
{
	const struct option *o = u->o;

	*consumed = 0;
	if (inline_arg && (u->unset || !takes_arg(o))) {
		opt_error(u, "takes no value");
		return -1;
	}
	if (u->unset) {
		*seen = 0;	/* a reset: the option may be given again */
		return opt_set(o, NULL, 1);
	}
	if (once_only(o) && *seen) {
		opt_error(u, "given more than once");
		return -1;
	}
	*seen = 1;
	if (!takes_arg(o) || inline_arg)
		return opt_set(o, inline_arg, 0);
	if (o->flags & OPT_OPTARG)
		return opt_set(o, o->defval, 0);
	if (!next) {
		opt_error(u, "requires a value");
		return -1;
	}
	*consumed = 1;
	return opt_set(o, next, 0);
}

/* 0: name[0..len) does not start pre+full; 1: it is a prefix; 2: all of it */
static int name_match(const char *name, size_t len, const char *pre, const char *full)
{
	size_t p = strlen(pre), n = p + strlen(full);

	if (len > n || strncmp(name, pre, len < p ? len : p))
		return 0;
	if (len > p && strncmp(name + p, full, len - p))
		return 0;
	return len == n ? 2 : 1;
}

/* Finds --NAME (len chars) among the long names and the "no-" forms of the
 * options that may be negated: a whole name wins, else a unique prefix.
 * 0, or -1 after printing why. */
static int find_long(const struct option *opts, const char *name, size_t len,
		     struct opt_use *u)
{
	struct opt_use found[2];
	int nfound = 0;

	for (const struct option *o = opts; len && o->type != OPT_END; o++) {
		for (int unset = 0; o->long_name && unset <= (negatable(o) ? 1 : 0); unset++) {
			int m = name_match(name, len, unset ? "no-" : "", o->long_name);

			if (m == 2) {
				*u = (struct opt_use){ o, unset, 0 };
				return 0;
			}
			if (m == 1 && nfound++ < 2)
				found[nfound - 1] = (struct opt_use){ o, unset, 0 };
		}
	}
	if (nfound == 1) {
		*u = found[0];
		return 0;
	}
	if (nfound > 1) {
		fprintf(stderr, "Error: Ambiguous option: %.*s (could be --%s%s or --%s%s)\n",
			(int)len, name, found[0].unset ? "no-" : "", found[0].o->long_name,
			found[1].unset ? "no-" : "", found[1].o->long_name);
		return -1;
	}
	for (const struct option *o = opts; len > 3 && o->type != OPT_END; o++) {
		if (o->long_name && name_match(name, len, "no-", o->long_name)) {
			fprintf(stderr, "Error: option `%.*s' isn't available\n", (int)len, name);
			return -1;
		}
	}
	/* "--=x" names nothing: show it whole */
	fprintf(stderr, "Error: unknown option `%.*s' (see -h)\n", (int)(len ? len : strlen(name)), name);
	return -1;
}

int parse_options(int argc, const char **argv, const struct option *opts,
		  const char *const *usage)
{
	int i, out = 0, consumed, nr_opts = 0;

	while (opts[nr_opts].type != OPT_END)
		nr_opts++;
	unsigned char seen[nr_opts + 1];	/* values given, for once_only() */

	memset(seen, 0, sizeof(seen));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		struct opt_use u;

		if (a[0] != '-' || !a[1])
			break;
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');
			size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);

			if (!strcmp(a + 2, "help"))
				goto help;
			if (find_long(opts, a + 2, len, &u) ||
			    run_opt(&u, eq ? eq + 1 : NULL, argv[i + 1], &seen[u.o - opts],
				    &consumed))
				return PARSE_OPT_ERROR;
			i += consumed;
			continue;
		}
		/* a cluster of short options: -qv, -e EVENT, -eEVENT */
		for (const char *c = a + 1; *c; c++) {
			const struct option *o;
			int last;

			if (*c == 'h')
				goto help;
			for (o = opts; o->type != OPT_END && o->short_name != *c; o++)
				;
			if (o->type == OPT_END) {
				fprintf(stderr, "Error: unknown switch `%c' (see -h)\n", *c);
				return PARSE_OPT_ERROR;
			}
			u = (struct opt_use){ o, 0, 1 };
			/* the rest of the cluster, or the next argument, is the value;
			 * an optional one is only the rest of the cluster (-I?) */
			last = takes_arg(o) && (!(o->flags & OPT_OPTARG) || c[1]);
			if (run_opt(&u, last && c[1] ? c + 1 : NULL, last ? argv[i + 1] : NULL,
				    &seen[o - opts], &consumed))
				return PARSE_OPT_ERROR;
			i += consumed;
			if (last)
				break;
		}
	}
	for (; i < argc; i++)
		argv[out++] = argv[i];
	argv[out] = NULL;
	return out;
help:
	usage_with_options(usage, opts);
	return PARSE_OPT_HELP;
}

void usage_with_options(const char *const *usage, const struct option *opts)
{
	for (const char *const *u = usage; *u; u++)
		printf("%s %s\n", u == usage ? "\n Usage:" : "    or:", *u);
	printf("\n");
	for (const struct option *o = opts; o->type != OPT_END; o++) {
		char buf[80];
		int n = 0;

		n += snprintf(buf + n, sizeof(buf) - n, "    ");
		if (o->short_name)
			n += snprintf(buf + n, sizeof(buf) - n, "-%c%s", o->short_name,
				      o->long_name ? ", " : "");
		else
			n += snprintf(buf + n, sizeof(buf) - n, "    ");
		if (o->long_name)
			n += snprintf(buf + n, sizeof(buf) - n, "--%s", o->long_name);
		if (takes_arg(o) && n < (int)sizeof(buf))
			snprintf(buf + n, sizeof(buf) - n,
				 (o->flags & OPT_OPTARG) ? "[=<%s>]" : " <%s>",
				 o->argh ? o->argh : "n");
		if (strlen(buf) >= 30)
			printf("%s\n%-30s%s\n", buf, "", o->help ? o->help : "");	/* too long: help below */
		else
			printf("%-30s%s\n", buf, o->help ? o->help : "");
	}
	printf("\n");
}
