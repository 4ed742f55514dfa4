/* The conditions of --switch-output-when: their grammar, checked part by
 * part so that an error names the part, and their cgroups' ids. */
#include "bpf/trigger-cond.h"
#include "util/cgroup.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[TRIGGER_NR_KINDS] = {
	[TRIGGER_OFFCPU] = "offcpu",
	[TRIGGER_SYSCALL] = "syscall",
	[TRIGGER_RUNQLAT] = "runqlat",
};

const char *trigger_kind__name(enum trigger_kind kind)
{
	return kind < TRIGGER_NR_KINDS ? kind_names[kind] : "?";
}

/* One part of a condition, as a pointer and a length into the argument. */
struct part {
	const char *p;
	size_t len;
};

static int part__is(struct part s, const char *word)
{
	return s.len == strlen(word) && !memcmp(s.p, word, s.len);
}

/* N[.F] with its unit (ns, us, ms, s), in ns: 1ns up to a day. */
static int parse_threshold(struct part s, u64 *ns, char *why, size_t whysz)
{
	static const struct { const char *unit; u64 ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	};
	size_t n = 0, f, i;
	struct part unit;
	u64 v = 0, frac = 0, scale = 1;

	while (n < s.len && isdigit((unsigned char)s.p[n]) && v <= TRIGGER_COND_MAX_NS)
		v = v * 10 + (s.p[n++] - '0');
	f = n < s.len && s.p[n] == '.' ? n + 1 : n;
	for (i = f; i < s.len && isdigit((unsigned char)s.p[i]) && i - f < 9; i++, scale *= 10)
		frac = frac * 10 + (s.p[i] - '0');
	if (!n || (f > n && i == f) || (i < s.len && isdigit((unsigned char)s.p[i]))) {
		snprintf(why, whysz, "bad duration '%.*s' (e.g. 200ms, 1.5s)", (int)s.len, s.p);
		return -EINVAL;
	}
	unit = (struct part){ s.p + i, s.len - i };
	if (!unit.len) {
		snprintf(why, whysz, "duration '%.*s' has no unit (ns, us, ms, s)", (int)s.len, s.p);
		return -EINVAL;
	}
	for (size_t u = 0; u < ARRAY_SIZE(units); u++) {
		if (!part__is(unit, units[u].unit))
			continue;
		if (v > TRIGGER_COND_MAX_NS / units[u].ns ||
		    v * units[u].ns + frac * units[u].ns / scale > TRIGGER_COND_MAX_NS ||
		    !(*ns = v * units[u].ns + frac * units[u].ns / scale)) {
			snprintf(why, whysz, "duration '%.*s' out of range (1ns to 1 day)",
				 (int)s.len, s.p);
			return -ERANGE;
		}
		return 0;
	}
	snprintf(why, whysz, "unknown unit '%.*s' (ns, us, ms, s)", (int)unit.len, unit.p);
	return -EINVAL;
}

/* KIND>DURATION */
static int parse_head(struct part s, struct trigger_map_cond *c, char *why, size_t whysz)
{
	const char *gt = memchr(s.p, '>', s.len);
	struct part kind = { s.p, gt ? (size_t)(gt - s.p) : s.len };
	u64 ns = 0;
	int err;

	c->kind = TRIGGER_NR_KINDS;
	for (int k = 0; k < TRIGGER_NR_KINDS; k++)
		if (part__is(kind, kind_names[k]))
			c->kind = k;
	if (c->kind == TRIGGER_NR_KINDS) {
		snprintf(why, whysz, "unknown kind '%.*s' (offcpu, syscall, runqlat)",
			 (int)kind.len, kind.p);
		return -EINVAL;
	}
	if (!gt || gt + 1 == s.p + s.len) {
		snprintf(why, whysz, "expected %.*s>DURATION (e.g. %.*s>200ms)", (int)kind.len,
			 kind.p, (int)kind.len, kind.p);
		return -EINVAL;
	}
	err = parse_threshold((struct part){ gt + 1, s.p + s.len - gt - 1 }, &ns, why, whysz);
	c->threshold_ns = ns;
	return err;
}

/* pid=N, tid=N: a task id, 1 to INT_MAX */
static int parse_id(struct part name, struct part val, __s32 *id, char *why, size_t whysz)
{
	u64 v = 0;
	size_t i;

	for (i = 0; i < val.len && isdigit((unsigned char)val.p[i]) && v <= INT_MAX; i++)
		v = v * 10 + (val.p[i] - '0');
	if (!val.len || i < val.len || !v || v > INT_MAX) {
		snprintf(why, whysz, "%.*s '%.*s' is not a task id", (int)name.len, name.p,
			 (int)val.len, val.p);
		return -EINVAL;
	}
	*id = v;
	return 0;
}

/* cgroup=PATH: a path under the cgroup2 mount, kept to be resolved at start */
static int parse_cgroup(struct part val, char **cgroup, char *why, size_t whysz)
{
	if (!val.len) {
		snprintf(why, whysz, "cgroup= names no cgroup (e.g. cgroup=/system.slice)");
		return -EINVAL;
	}
	*cgroup = strndup(val.p, val.len);
	if (!*cgroup) {
		snprintf(why, whysz, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	return 0;
}

/* NAME=VALUE, one qualifier; each at most once */
static int parse_qualifier(struct part s, struct trigger_map_cond *c, char **cgroup,
			   char *why, size_t whysz)
{
	const char *eq = memchr(s.p, '=', s.len);
	struct part name = { s.p, eq ? (size_t)(eq - s.p) : s.len };
	struct part val = { eq ? eq + 1 : s.p + s.len, eq ? s.len - name.len - 1 : 0 };
	int twice = (part__is(name, "comm") && c->has_comm) ||
		    (part__is(name, "pid") && c->pid >= 0) ||
		    (part__is(name, "tid") && c->tid >= 0) || (part__is(name, "cgroup") && *cgroup);

	if (twice) {
		snprintf(why, whysz, "%.*s given twice", (int)name.len, name.p);
		return -EINVAL;
	}
	if (eq && part__is(name, "comm")) {
		if (!val.len || val.len >= TRIGGER_COMM_LEN) {
			snprintf(why, whysz, "comm '%.*s': a task's name has 1 to %d characters",
				 (int)val.len, val.p, TRIGGER_COMM_LEN - 1);
			return -EINVAL;
		}
		memcpy(c->comm, val.p, val.len);
		c->has_comm = 1;
		return 0;
	}
	if (eq && part__is(name, "pid"))
		return parse_id(name, val, &c->pid, why, whysz);
	if (eq && part__is(name, "tid"))
		return parse_id(name, val, &c->tid, why, whysz);
	if (eq && part__is(name, "cgroup"))
		return parse_cgroup(val, cgroup, why, whysz);
	snprintf(why, whysz, "unknown qualifier '%.*s' (comm=, pid=, tid=, cgroup=)",
		 (int)s.len, s.p);
	return -EINVAL;
}

/* The whole condition into c (and *cgroup), or why not. */
static int parse_cond(const char *arg, struct trigger_map_cond *c, char **cgroup,
		      char *why, size_t whysz)
{
	const char *p = arg, *end = arg + strlen(arg);
	int err = 0, first = 1;

	while (!err && p <= end) {
		const char *comma = memchr(p, ',', end - p);
		struct part s = { p, (comma ? comma : end) - p };

		if (!s.len && !first) {
			snprintf(why, whysz, "an empty qualifier");
			return -EINVAL;
		}
		err = first ? parse_head(s, c, why, whysz) :
		      parse_qualifier(s, c, cgroup, why, whysz);
		first = 0;
		p += s.len + 1;
	}
	return err;
}

int trigger_conds__add(struct trigger_conds *c, const char *arg, char *err, size_t errsz)
{
	struct trigger_map_cond cond = { .pid = -1, .tid = -1 };
	char why[160], *cgroup = NULL;
	int ret = -E2BIG;

	if (c->nr >= TRIGGER_MAX_CONDS)
		snprintf(why, sizeof(why), "more than %d conditions", TRIGGER_MAX_CONDS);
	else
		ret = parse_cond(arg, &cond, &cgroup, why, sizeof(why));
	if (ret) {
		free(cgroup);
		snprintf(err, errsz, "--switch-output-when: '%s': %s", arg, why);
		return ret;
	}
	/* the condition as written: each trigger's record says which fired */
	snprintf(cond.text, sizeof(cond.text), "%s", arg);
	c->cond[c->nr] = cond;
	c->cgroup[c->nr++] = cgroup;
	c->kinds |= 1U << cond.kind;
	return 0;
}

int trigger_conds__resolve(struct trigger_conds *c, char *err, size_t errsz)
{
	char why[PATH_MAX + 128];

	for (int i = 0; i < c->nr; i++) {
		u64 id = 0;
		int ret = c->cgroup[i] ? cgroup__v2_id(c->cgroup[i], &id, why, sizeof(why)) : 0;

		c->cond[i].cgroup_id = id;

		if (ret) {
			snprintf(err, errsz, "--switch-output-when: '%s': %s", c->cond[i].text, why);
			return ret;
		}
	}
	return 0;
}

void trigger_conds__own(struct trigger_conds *c)
{
	for (int i = 0; i < c->nr; i++) {
		struct trigger_map_cond *m = &c->cond[i];

		m->own_tasks = !m->has_comm && m->pid < 0 && m->tid < 0 && !c->cgroup[i];
	}
}

int trigger_conds__own_tasks(const struct trigger_conds *c)
{
	for (int i = 0; i < c->nr; i++)
		if (c->cond[i].own_tasks)
			return 1;
	return 0;
}

void trigger_conds__exit(struct trigger_conds *c)
{
	for (int i = 0; i < c->nr; i++)
		free(c->cgroup[i]);
	memset(c, 0, sizeof(*c));
}
