#include "util/parse-options.h"

#include <stdio.h>
#include <string.h>

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

static int takes_arg(const struct option *o)
{
	return o->type == OPT_STRING ||
	       (o->type == OPT_CALLBACK && !(o->flags & OPT_NOARG));
}

static const char *opt_name(const struct option *o, char *buf, size_t sz)
{
	if (o->long_name)
		snprintf(buf, sz, "--%s", o->long_name);
	else
		snprintf(buf, sz, "-%c", o->short_name);
	return buf;
}

/* Handles one option; *consumed tells if argv's next element was used. */
static int run_opt(const struct option *o, const char *inline_arg,
		   const char *next, int unset, int *consumed)
{
	char name[64];

	*consumed = 0;
	if (unset) {
		if (inline_arg || (o->flags & OPT_NONEG)) {
			fprintf(stderr, "Error: option `no-%s' isn't available\n", o->long_name);
			return -1;
		}
		return opt_set(o, NULL, 1);
	}
	if (!takes_arg(o)) {
		if (inline_arg) {
			fprintf(stderr, "Error: option `%s' takes no value\n", opt_name(o, name, sizeof(name)));
			return -1;
		}
		return opt_set(o, NULL, 0);
	}
	if (inline_arg)
		return opt_set(o, inline_arg, 0);
	if (o->flags & OPT_OPTARG)
		return opt_set(o, o->defval, 0);
	if (!next) {
		fprintf(stderr, "Error: option `%s' requires a value\n", opt_name(o, name, sizeof(name)));
		return -1;
	}
	*consumed = 1;
	return opt_set(o, next, 0);
}

static const struct option *find_long(const struct option *opts, const char *name,
				      size_t len, int *unset)
{
	const struct option *o, *abbrev = NULL;
	int ambiguous = 0;

	*unset = 0;
	if (len > 3 && !strncmp(name, "no-", 3)) {
		for (o = opts; o->type != OPT_END; o++)
			if (o->long_name && strlen(o->long_name) == len &&
			    !strncmp(o->long_name, name, len))
				return o;	/* an option really named "no-..." */
		*unset = 1;
		name += 3;
		len -= 3;
	}
	for (o = opts; o->type != OPT_END; o++) {
		if (!o->long_name || strncmp(o->long_name, name, len))
			continue;
		if (strlen(o->long_name) == len)
			return o;
		ambiguous = abbrev != NULL;
		abbrev = o;
	}
	return ambiguous ? NULL : abbrev;
}

int parse_options(int argc, const char **argv, const struct option *opts,
		  const char *const *usage)
{
	int i, out = 0, consumed;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct option *o;

		if (a[0] != '-' || !a[1])
			break;
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');
			size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
			int unset;

			if (!strcmp(a + 2, "help"))
				goto help;
			o = find_long(opts, a + 2, len, &unset);
			if (!o) {
				fprintf(stderr, "Error: unknown option `%.*s' (see -h)\n", (int)len, a + 2);
				goto error;
			}
			if (run_opt(o, eq ? eq + 1 : NULL, argv[i + 1], unset, &consumed))
				goto error;
			i += consumed;
			continue;
		}
		/* a cluster of short options: -qv, -e EVENT, -eEVENT */
		for (const char *c = a + 1; *c; c++) {
			if (*c == 'h')
				goto help;
			for (o = opts; o->type != OPT_END && o->short_name != *c; o++)
				;
			if (o->type == OPT_END) {
				fprintf(stderr, "Error: unknown switch `%c' (see -h)\n", *c);
				goto error;
			}
			if (takes_arg(o) && !(o->flags & OPT_OPTARG)) {
				if (run_opt(o, c[1] ? c + 1 : NULL, argv[i + 1], 0, &consumed))
					goto error;
				i += consumed;
				break;
			}
			if (run_opt(o, NULL, NULL, 0, &consumed))
				goto error;
		}
	}
	for (; i < argc; i++)
		argv[out++] = argv[i];
	argv[out] = NULL;
	return out;
help:
	usage_with_options(usage, opts);
	return PARSE_OPT_HELP;
error:
	return PARSE_OPT_ERROR;
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
