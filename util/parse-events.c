/* The -e parser: hardware, software and tracepoint events with their
 * terms, modifiers and groups, and --filter. */
#include "util/parse-events.h"
#include "util/evlist.h"
#include "util/tp.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct symbol_event {
	const char *name;
	unsigned int type;
	unsigned long long config;
};

static const struct symbol_event symbols[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
	{ "bpf-output", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT },
};

int parse_events__symbol(const char *name, unsigned int *type, unsigned long long *config)
{
	for (size_t i = 0; i < ARRAY_SIZE(symbols); i++) {
		if (!strcmp(symbols[i].name, name)) {
			*type = symbols[i].type;
			*config = symbols[i].config;
			return 0;
		}
	}
	return -1;
}

/* What one event term list and modifier string ask for. */
struct event_mods {
	int excl_set, excl_user, excl_kernel, excl_hv, precise, sample_read;
	int has_period, has_freq, overwrite, inherit;
	unsigned long long period, freq;
	char name[64];
	int has_callchain;
	struct callchain_param callchain;
	unsigned int max_stack;
	u64 stack_size;
};

struct parse_ctx {
	struct evlist *evlist;
	const char *whole;	/* the -e argument, for messages */
	char *err;
	size_t errsz;
};

static int syntax_error(struct parse_ctx *ctx, const char *fmt, const char *what)
{
	char msg[512];

	snprintf(msg, sizeof(msg), fmt, what);
	snprintf(ctx->err, ctx->errsz, "event syntax error: '%s': %s", ctx->whole, msg);
	return -1;
}

static int parse_modifiers(struct parse_ctx *ctx, const char *s, struct event_mods *m)
{
	int u = 0, k = 0, h = 0;

	for (; *s; s++) {
		switch (*s) {
		case 'u': u = 1; break;
		case 'k': k = 1; break;
		case 'h': h = 1; break;
		case 'p': m->precise++; break;
		case 'S': m->sample_read = 1; break;
		case 'P': m->precise = 3; break;
		case 'G': case 'H': break;	/* no guests here: accepted as perf does */
		default: {
			char c[2] = { *s, 0 };
			return syntax_error(ctx, "unknown modifier '%s'", c);
		}
		}
	}
	if (m->precise > 3)
		return syntax_error(ctx, "%s", "too many 'p' modifiers (at most 3)");
	if (u || k || h) {
		m->excl_set = 1;
		m->excl_user = !u;
		m->excl_kernel = !k;
		m->excl_hv = !h;
	}
	return 0;
}

/* call-graph=fp|dwarf|no, stack-size=N, max-stack=N: this event's own
 * callchain, whatever -g and --call-graph say. */
static int parse_callchain_term(struct parse_ctx *ctx, const char *t, const char *val,
				struct event_mods *m)
{
	char msg[256];
	u64 v;

	if (!val || !*val)
		return syntax_error(ctx, "term '%s' needs a value", t);
	if (!strcmp(t, "max-stack")) {
		if (parse_u64_range(val, 1, UINT16_MAX, &v))
			return syntax_error(ctx, "bad value for term '%s' (1 to 65535)", t);
		m->max_stack = v;
	} else if (!strcmp(t, "stack-size")) {
		if (parse_u64_range(val, 1, UINT16_MAX, &m->stack_size))
			return syntax_error(ctx, "bad value for term '%s' (a size in bytes, "
					    "at most 65528)", t);
	} else if (!strcmp(val, "no")) {
		m->has_callchain = 1;
		m->callchain = (struct callchain_param){ .mode = CALLCHAIN_NONE };
	} else if (!strcmp(val, "fp") || !strcmp(val, "dwarf")) {
		if (callchain__parse(&m->callchain, val, msg, sizeof(msg)))
			return syntax_error(ctx, "%s", msg);
		m->has_callchain = 1;
	} else {
		return syntax_error(ctx, "bad value for term 'call-graph': '%s' (fp, dwarf, no)", val);
	}
	return 0;
}

/* max-stack alone means frame pointers, as in perf; stack-size sizes this
 * event's dwarf callchain. */
static int finish_callchain(struct parse_ctx *ctx, struct event_mods *m)
{
	char arg[32], msg[256];

	if (m->max_stack && !m->has_callchain) {
		m->has_callchain = 1;
		m->callchain = (struct callchain_param){ .mode = CALLCHAIN_FP };
	}
	if (!m->stack_size)
		return 0;
	if (!m->has_callchain || m->callchain.mode != CALLCHAIN_DWARF)
		return syntax_error(ctx, "%s", "term 'stack-size' needs call-graph=dwarf");
	snprintf(arg, sizeof(arg), "dwarf,%llu", (unsigned long long)m->stack_size);
	if (callchain__parse(&m->callchain, arg, msg, sizeof(msg)))
		return syntax_error(ctx, "%s", msg);
	return 0;
}

static int parse_terms(struct parse_ctx *ctx, char *terms, struct event_mods *m)
{
	char *save = NULL;

	for (char *t = strtok_r(terms, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *val = strchr(t, '=');
		u64 v;

		if (val)
			*val++ = '\0';
		if (!strcmp(t, "overwrite") && !val) {
			m->overwrite = 1;
		} else if ((!strcmp(t, "inherit") || !strcmp(t, "no-inherit")) && !val) {
			m->inherit = t[0] == 'i';
		} else if (val && (!strcmp(t, "overwrite") || !strcmp(t, "no-overwrite") ||
				   !strcmp(t, "inherit") || !strcmp(t, "no-inherit"))) {
			return syntax_error(ctx, "term '%s' takes no value", t);
		} else if (!strcmp(t, "call-graph") || !strcmp(t, "max-stack") ||
			   !strcmp(t, "stack-size")) {
			if (parse_callchain_term(ctx, t, val, m))
				return -1;
		} else if (!strcmp(t, "no-overwrite") && !val) {
			m->overwrite = 0;
		} else if (!strcmp(t, "name") && val && *val) {
			snprintf(m->name, sizeof(m->name), "%s", val);
		} else if (!strcmp(t, "period") || !strcmp(t, "freq")) {
			if (!val || parse_u64_range(val, 1, t[0] == 'p' ? SAMPLE_PERIOD_MAX :
						    SAMPLE_FREQ_MAX, &v))
				return syntax_error(ctx, "bad value for term '%s' (a positive number)", t);
			if (t[0] == 'p') {
				m->has_period = 1;
				m->period = v;
			} else {
				m->has_freq = 1;
				m->freq = v;
			}
		} else {
			return syntax_error(ctx, "unknown term '%s' (period, freq, name, inherit, "
					    "no-inherit, call-graph, stack-size, max-stack, "
					    "overwrite, no-overwrite)", t);
		}
	}
	return finish_callchain(ctx, m);
}

static int add_event(struct parse_ctx *ctx, struct perf_event_attr *attr, const char *name,
		     const struct event_mods *m, const char *sys, const char *tp)
{
	struct evsel *e;

	attr->exclude_user = m->excl_user;
	attr->exclude_kernel = m->excl_kernel;
	attr->exclude_hv = m->excl_hv;
	if (attr->type == PERF_TYPE_HARDWARE)
		attr->precise_ip = m->precise;
	if (m->has_period) {
		attr->sample_period = m->period;
		attr->freq = 0;
	} else if (m->has_freq) {
		attr->sample_freq = m->freq;
		attr->freq = 1;
	}
	e = evsel__new(attr, m->name[0] ? m->name : name);
	if (!e)
		goto nomem;
	e->overwrite = m->overwrite;
	e->user_period = m->has_period || m->has_freq;
	e->inherit = m->inherit;
	e->sample_read = m->sample_read;
	e->has_callchain = m->has_callchain;
	e->callchain = m->callchain;
	e->max_stack = m->max_stack;
	if (sys) {
		e->tp_sys = strdup(sys);
		e->tp_name = strdup(tp);
		if (!e->tp_sys || !e->tp_name) {
			evsel__delete(e);
			goto nomem;
		}
	}
	if (evlist__add(ctx->evlist, e))
		goto nomem;
	return 0;
nomem:
	snprintf(ctx->err, ctx->errsz, "parse events: %s", strerror(ENOMEM));
	return -1;
}

struct tp_add_arg {
	struct parse_ctx *ctx;
	const struct event_mods *mods;
	const char *mod_str;
};

static int tp_add(const char *sys, const char *name, void *arg)
{
	struct tp_add_arg *a = arg;
	struct perf_event_attr attr = { .type = PERF_TYPE_TRACEPOINT };
	char full[512];
	int id = tp__id(sys, name);

	if (id == -EACCES || id == -EPERM)
		return id;
	if (id < 0)
		return 0;	/* enable-only files like events/ftrace/... have no id */
	attr.config = id;
	attr.sample_period = 1;
	/* as perf: the kernel refuses a function trace event that could walk
	 * a user stack (EINVAL), so its own reasons come out instead */
	if (!strcmp(sys, "ftrace") && !strcmp(name, "function"))
		attr.exclude_callchain_user = 1;
	snprintf(full, sizeof(full), "%s:%s%s%s", sys, name, *a->mod_str ? ":" : "", a->mod_str);
	return add_event(a->ctx, &attr, full, a->mods, sys, name) ? -ECANCELED : 0;
}

static int valid_tp_part(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_-*?[]!.", *s))
			return 0;
	return 1;
}

static int parse_tracepoint(struct parse_ctx *ctx, const char *sys, const char *name,
			    const struct event_mods *m, const char *mod_str)
{
	struct tp_add_arg arg = { ctx, m, mod_str };
	int before = ctx->evlist->nr_entries, n;
	const char *dir;

	if (!valid_tp_part(sys) || !valid_tp_part(name))
		return syntax_error(ctx, "'%s' is not an event name", ctx->whole);
	dir = tp__dir();
	if (!dir) {
		snprintf(ctx->err, ctx->errsz, "event syntax error: '%s': tracefs is not "
			 "available (%s); mount it with 'mount -t tracefs nodev /sys/kernel/tracing'",
			 ctx->whole, strerror(errno));
		return -1;
	}
	n = tp__events_access(dir);
	if (!n)
		n = tp__for_each_match(sys, name, tp_add, &arg);
	/* the listing leaves out a system without an enable file (ftrace's
	 * events): a name without globs is looked up as it is, as perf does */
	if (!n && !strpbrk(sys, "*?[]!") && !strpbrk(name, "*?[]!") && tp__id(sys, name) > 0)
		n = tp_add(sys, name, &arg) ? -ECANCELED : 1;
	if (n == -ECANCELED)
		return -1;
	if (n == -EACCES || n == -EPERM) {
		snprintf(ctx->err, ctx->errsz, "event syntax error: '%s': no permission to read "
			 "%s/events (%s); try 'sudo mount -o remount,mode=755 %s', or run as root",
			 ctx->whole, dir, strerror(-n), dir);
		return -1;
	}
	if (n <= 0 || ctx->evlist->nr_entries == before) {
		char what[256];

		snprintf(what, sizeof(what), "%s:%s", sys, name);
		return syntax_error(ctx, "unknown tracepoint '%s'", what);
	}
	return 0;
}

static int parse_one(struct parse_ctx *ctx, char *ev)
{
	struct event_mods m = { .overwrite = -1, .inherit = -1 };
	struct perf_event_attr attr = { 0 };
	char *slash = strchr(ev, '/'), *colon, *mods = "";
	char *parts[3];
	int nparts = 0;

	if (!*ev)
		return syntax_error(ctx, "%s", "empty event");
	if (slash) {
		char *close = strrchr(ev, '/');

		if (close == slash)
			return syntax_error(ctx, "%s", "unterminated '/' term list");
		*slash = *close = '\0';
		if (parse_terms(ctx, slash + 1, &m))
			return -1;
		mods = close + 1;
		if (*mods == ':')
			mods++;
	}
	/* NAME, NAME:MODS, SYS:NAME or SYS:NAME:MODS */
	parts[nparts++] = ev;
	while (nparts < 3 && (colon = strchr(parts[nparts - 1], ':'))) {
		*colon = '\0';
		parts[nparts++] = colon + 1;
	}
	if (strchr(parts[nparts - 1], ':'))
		return syntax_error(ctx, "%s", "too many ':'");
	if (nparts == 1 || (nparts == 2 && !parse_events__symbol(parts[0], &attr.type,
								  (unsigned long long *)&attr.config))) {
		if (nparts == 2) {
			if (*mods)
				return syntax_error(ctx, "%s", "modifiers given twice");
			mods = parts[1];
		}
		if (parse_events__symbol(parts[0], &attr.type, (unsigned long long *)&attr.config))
			return syntax_error(ctx, "unknown event '%s'", parts[0]);
		if (parse_modifiers(ctx, mods, &m))
			return -1;
		if (attr.config == PERF_COUNT_SW_DUMMY && attr.type == PERF_TYPE_SOFTWARE)
			attr.sample_period = 1;
		else {
			attr.freq = 1;
			attr.sample_freq = 4000;
		}
		char full[128];

		snprintf(full, sizeof(full), "%s%s%s", parts[0], *mods ? ":" : "", mods);
		return add_event(ctx, &attr, full, &m, NULL, NULL);
	}
	if (nparts == 3) {
		if (*mods)
			return syntax_error(ctx, "%s", "modifiers given twice");
		mods = parts[2];
	}
	if (parse_modifiers(ctx, mods, &m))
		return -1;
	return parse_tracepoint(ctx, parts[0], parts[1], &m, mods);
}

/* The end of the item at s: the first ',' outside /terms/ and {a group},
 * or the NUL; *open and *close get the group's braces. NULL on braces that
 * do not pair (said in ctx->err). */
static char *item_end(struct parse_ctx *ctx, char *s, char **open, char **close)
{
	int in_terms = 0;

	*open = *close = NULL;
	for (; *s; s++) {
		if (*s == '/')
			in_terms = !in_terms;
		else if (in_terms)
			continue;
		else if (*s == '{' && (*open || *close))
			return syntax_error(ctx, "%s", *close ? "'{' after a group" :
					    "groups do not nest"), NULL;
		else if (*s == '{')
			*open = s;
		else if (*s == '}' && (!*open || *close))
			return syntax_error(ctx, "%s", "unbalanced braces: '}' without '{'"), NULL;
		else if (*s == '}')
			*close = s;
		else if (*s == ',' && (!*open || *close))
			break;
	}
	if (*open && !*close)
		return syntax_error(ctx, "%s", "unbalanced braces: '{' without '}'"), NULL;
	return s;
}

/* A member's own u/k/h are kept and the group's added to them, as in perf. */
static void group__apply_mods(struct evsel *e, const struct event_mods *g)
{
	struct perf_event_attr *a = &e->attr;

	if (g->excl_set && (a->exclude_user || a->exclude_kernel || a->exclude_hv)) {
		a->exclude_user &= g->excl_user;
		a->exclude_kernel &= g->excl_kernel;
		a->exclude_hv &= g->excl_hv;
	} else if (g->excl_set) {
		a->exclude_user = g->excl_user;
		a->exclude_kernel = g->excl_kernel;
		a->exclude_hv = g->excl_hv;
	}
	if (a->type == PERF_TYPE_HARDWARE && g->precise > (int)a->precise_ip)
		a->precise_ip = g->precise;
}

static int parse_list(struct parse_ctx *ctx, char *s);

/* NAME{a,b,...}:MODS, with the braces at open and close. */
static int parse_group(struct parse_ctx *ctx, char *s, char *open, char *close)
{
	struct event_mods g = { 0 };
	struct evlist *evlist = ctx->evlist;
	int first = evlist->nr_entries;
	char *mods = close + 1;

	*open = *close = '\0';
	if (*s && !valid_tp_part(s))
		return syntax_error(ctx, "bad group name '%s'", s);
	if (*mods && *mods != ':')
		return syntax_error(ctx, "'%s' after a group (expected :modifiers)", mods);
	mods += *mods == ':';
	if (parse_modifiers(ctx, mods, &g))
		return -1;
	if (!open[1])
		return syntax_error(ctx, "%s", "empty group");
	if (parse_list(ctx, open + 1))
		return -1;
	for (int i = first; i < evlist->nr_entries; i++)
		group__apply_mods(evlist->entries[i], &g);
	evlist->entries[first]->sample_read |= g.sample_read;
	if (evlist__set_leader(evlist, first, evlist->nr_entries, *s ? s : NULL)) {
		snprintf(ctx->err, ctx->errsz, "parse events: %s", strerror(ENOMEM));
		return -1;
	}
	return 0;
}

/* A comma list of events and {groups}; s is cut up in place. */
static int parse_list(struct parse_ctx *ctx, char *s)
{
	for (;;) {
		char *open, *close, *end = item_end(ctx, s, &open, &close);
		int last, err;

		if (!end)
			return -1;
		last = !*end;
		*end = '\0';
		err = open ? parse_group(ctx, s, open, close) : parse_one(ctx, s);
		if (err || last)
			return err;
		s = end + 1;
	}
}

int parse_events(struct evlist *evlist, const char *str, char *err, size_t errsz)
{
	struct parse_ctx ctx = { evlist, str, err, errsz };
	char *copy = strdup(str);
	int ret;

	if (!copy) {
		snprintf(err, errsz, "parse events: %s", strerror(ENOMEM));
		return -1;
	}
	evlist->last_parse = evlist->nr_entries;
	ret = parse_list(&ctx, copy);
	free(copy);
	return ret;
}

/* Did the last -e add events, all of them tracepoints? */
static int last_parse_tracepoints(const struct evlist *evlist)
{
	if (evlist->last_parse >= evlist->nr_entries)
		return 0;
	for (int i = evlist->last_parse; i < evlist->nr_entries; i++)
		if (evlist->entries[i]->attr.type != PERF_TYPE_TRACEPOINT)
			return 0;
	return 1;
}

static int append_filter(struct evlist *evlist, const char *filter, char *err, size_t errsz)
{
	for (int i = evlist->last_parse; i < evlist->nr_entries; i++) {
		if (evsel__append_filter(evlist->entries[i], filter)) {
			snprintf(err, errsz, "--filter: %s", strerror(ENOMEM));
			return -1;
		}
	}
	return 0;
}

int parse_events__filter(struct evlist *evlist, const char *filter, char *err, size_t errsz)
{
	if (!last_parse_tracepoints(evlist)) {
		snprintf(err, errsz, "--filter option should follow a -e tracepoint or HW "
			 "tracer option");
		return -1;
	}
	return append_filter(evlist, filter, err, errsz);
}

int parse_events__exclude_perf(struct evlist *evlist, char *err, size_t errsz)
{
	char filter[64];

	if (!last_parse_tracepoints(evlist)) {
		snprintf(err, errsz, "--exclude-perf option should follow a -e tracepoint option");
		return -1;
	}
	snprintf(filter, sizeof(filter), "common_pid != %d", (int)getpid());
	return append_filter(evlist, filter, err, errsz);
}
