/* perf script --time: the stock perf's time ranges, in seconds or in
 * percents of the file's sampled span, and the test of a sample's time. */
#include "script/time-filter.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* "sec[.fraction]" (up to 9 digits of fraction) in ns, as the stock reads it */
static int parse_nsec(const char *str, u64 *ns)
{
	char frac[10], *end;
	u64 sec = strtoul(str, &end, 10), nsec = 0;

	if (*end != '.' && *end)
		return -EINVAL;
	if (*end == '.') {
		size_t len = strlen(++end);

		if (len > 9)
			return -EINVAL;
		memset(frac, '0', 9);
		memcpy(frac, end, len);
		frac[9] = 0;
		nsec = strtoul(frac, &end, 10);
		if (*end)
			return -EINVAL;
	}
	*ns = sec * 1000000000ULL + nsec;
	return 0;
}

/* "start,stop", either side empty for open; a stop before its start is invalid */
static int parse_range(struct time_range *r, char *str)
{
	char *stop = strchr(str, ',');

	if (stop)
		*stop++ = 0;
	if ((*str && parse_nsec(str, &r->start)) || (stop && *stop && parse_nsec(stop, &r->end)))
		return -EINVAL;
	return r->end && r->end < r->start ? -EINVAL : 0;
}

/* "a,b c,d ...": as many ranges as commas, in increasing order */
static int parse_seconds(struct time_filter *tf, char *str, int num)
{
	char *p = str, *arg;
	int i;

	if (!num)
		return -EINVAL;
	for (i = 0; i < num - 1; i++) {
		arg = p;
		p = strchr(p, ',') + 1;
		while (isspace((unsigned char)*p))
			p++;
		while (*p && !isspace((unsigned char)*p))
			if (*p++ == ',')
				return -EINVAL;
		if (*p)
			*p++ = 0;
		if (parse_range(&tf->r[i], arg))
			return -EINVAL;
	}
	if (parse_range(&tf->r[i], p))
		return -EINVAL;
	for (i = 0; i < num - 1; i++)
		if (tf->r[i].end >= tf->r[i + 1].start)
			return -EINVAL;
	tf->nr = num;
	return 0;
}

/* "12.5%": 0.125; the '%' is needed, nothing may follow it */
static int parse_percent(double *v, char *str)
{
	char *pc = str ? strchr(str, '%') : NULL, *end;

	if (!pc)
		return -EINVAL;
	*pc = 0;
	*v = strtod(str, &end);
	if (end != pc)
		return -EINVAL;
	*v /= 100.0;
	return 0;
}

/* [from, to] of [first, last], rounded as the stock rounds; the stop is
 * one ns short unless it is last itself */
static int percent_range(struct time_range *r, double from, double to, u64 first, u64 last)
{
	double total = (double)(last - first);

	if (from < 0.0 || from > 1.0 || to < 0.0 || to > 1.0)
		return -EINVAL;
	r->start = (u64)((double)first + (u64)(from * total + 0.5));
	r->end = (u64)((double)first + (u64)(to * total + 0.5));
	if (r->end > r->start && r->end != last)
		r->end -= 1;
	return 0;
}

/* "P%/N": the Nth slice of P%; "P%-Q%": from P% to Q% */
static int parse_percent_range(struct time_range *r, char *str, int slash, u64 first, u64 last)
{
	char *sep = strchr(str, slash ? '/' : '-');
	double a, b;

	if (!sep)
		return -EINVAL;
	*sep++ = 0;
	if (parse_percent(&a, str))
		return -EINVAL;
	if (slash) {
		char *end;
		long n = strtol(sep, &end, 10);

		if (*end || a <= 0.0)
			return -EINVAL;
		return percent_range(r, a * (n - 1), a * n, first, last);
	}
	if (parse_percent(&b, sep))
		return -EINVAL;
	return percent_range(r, a, b, first, last);
}

/* comma-separated percent ranges; a lone "P%" is "P%/1" */
static int parse_percents(struct time_filter *tf, char *str, u64 first, u64 last)
{
	int slash = !!strchr(str, '/');

	if (!slash && !strchr(str, '-')) {
		char *pc = strchr(str, '%');

		if (pc[1] || parse_percent_range(&tf->r[0], strcat(str, "/1"), 1, first, last))
			return -EINVAL;
		tf->nr = 1;
		return 0;
	}
	for (char *p = str, *next; p; p = next) {
		next = strchr(p, ',');
		if (next)
			*next++ = 0;
		if (parse_percent_range(&tf->r[tf->nr], p, slash, first, last))
			return -EINVAL;
		tf->nr++;
	}
	return 0;
}

int time_filter__parse(struct time_filter *tf, const char *str, u64 first, u64 last)
{
	int commas = 0, rc;
	char *copy;

	if (!str)
		return 0;
	for (const char *c = str; *c; c++)
		commas += *c == ',';
	if (strchr(str, '%') && !first && !last)
		return -ENODATA;
	tf->r = calloc(commas + 1, sizeof(*tf->r));
	copy = malloc(strlen(str) + 3);	/* room for "/1" */
	if (!tf->r || !copy) {
		free(copy);
		return -ENOMEM;
	}
	strcpy(copy, str);
	rc = strchr(str, '%') ? parse_percents(tf, copy, first, last) :
				parse_seconds(tf, copy, commas);
	free(copy);
	return rc;
}

int time_filter__skip(const struct time_filter *tf, u64 t)
{
	if (!tf->nr || !t)
		return 0;
	if (tf->nr == 1)
		return (tf->r[0].start && t < tf->r[0].start) || (tf->r[0].end && t > tf->r[0].end);
	for (int i = 0; i < tf->nr; i++)
		if (t >= tf->r[i].start && (t <= tf->r[i].end || !tf->r[i].end))
			return 0;
	return 1;
}

void time_filter__exit(struct time_filter *tf)
{
	free(tf->r);
	memset(tf, 0, sizeof(*tf));
}
