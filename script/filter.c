/* perf script's sample filters, as the stock names them: --comms, --pids,
 * --tids (comma-separated) and --cpu (a CPU list: 0-2,5). */
#include "script/filter.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The numbers of a comma-separated list (ranges a-b with ranges set)
 * into f->v; -EINVAL for a word that is none. */
static int parse_numbers(struct script_filter *f, const char *list, int ranges)
{
	const char *p = list;

	while (*p) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		if (end == p || lo < -1)
			return -EINVAL;
		if (ranges && *end == '-') {
			p = end + 1;
			hi = strtol(p, &end, 10);
			if (end == p || hi < lo || hi - lo > 65536)
				return -EINVAL;
		}
		if (*end && *end != ',')
			return -EINVAL;
		for (long n = lo; n <= hi; n++) {
			int *v = realloc(f->v, (f->nr + 1) * sizeof(*v));

			if (!v)
				return -ENOMEM;
			f->v = v;
			f->v[f->nr++] = (int)n;
		}
		p = end + (*end == ',');
	}
	f->set = 1;
	return 0;
}

int script_filter__parse(struct script_filter *f, const char *list, enum filter_kind kind)
{
	char *save = NULL;

	if (!list)
		return 0;
	if (kind != FILTER_COMM)
		return parse_numbers(f, list, kind == FILTER_CPU);
	f->words = strdup(list);
	if (!f->words)
		return -ENOMEM;
	for (char *w = strtok_r(f->words, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		char **c = realloc(f->comms, (f->nr + 1) * sizeof(*c));

		if (!c)
			return -ENOMEM;
		f->comms = c;
		f->comms[f->nr++] = w;
	}
	f->set = 1;
	return 0;
}

int script_filter__has_number(const struct script_filter *f, int n)
{
	if (!f->set)
		return 1;
	for (size_t i = 0; i < f->nr; i++)
		if (f->v[i] == n)
			return 1;
	return 0;
}

int script_filter__has_comm(const struct script_filter *f, const char *comm)
{
	if (!f->set)
		return 1;
	for (size_t i = 0; comm && i < f->nr; i++)
		if (!strcmp(f->comms[i], comm))
			return 1;
	return 0;
}

void script_filter__exit(struct script_filter *f)
{
	free(f->v);
	free(f->comms);
	free(f->words);
	memset(f, 0, sizeof(*f));
}
