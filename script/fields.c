/* perf script -F: the fields each output type prints, as the stock perf
 * decides them: its defaults, -F's changes ([type:]list, +field, -field),
 * and what the first event of each type samples. */
#include "script/script-internal.h"
#include "perfdata/header.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* perf's synthesized events (of Intel PT and the like) */
#define PERF_TYPE_SYNTH_ID (1U << 31)

enum output_type script__output_type(const struct perf_event_attr *a)
{
	if (a->type == PERF_TYPE_SYNTH_ID)
		return OUT_SYNTH;
	return a->type < PERF_TYPE_MAX ? (enum output_type)a->type : OUT_OTHER;
}

/* The first event of e's output type: as the stock perf, it decides what
 * every event of the type shows. */
const struct reader_evsel *script__type_leader(const struct script *s, const struct reader_evsel *e)
{
	enum output_type t = script__output_type(&e->attr);

	for (int i = 0; i < s->reader.nr_evsels; i++)
		if (script__output_type(&s->reader.evsels[i].attr) == t)
			return &s->reader.evsels[i];
	return e;
}

static int script__has_feature(const struct script *s, int feat)
{
	u64 size;

	return reader__feature(&s->reader, feat, &size) != NULL;
}

static const struct reader_evsel *first_of_type(const struct script *s, enum output_type t)
{
	for (int i = 0; i < s->reader.nr_evsels; i++)
		if (script__output_type(&s->reader.evsels[i].attr) == t)
			return &s->reader.evsels[i];
	return NULL;
}

/* Each field: its name, the sample_type bit its event must have (0: any
 * event) and that bit's name in the stock perf's refusal. */
static const struct field_def {
	const char *name;
	u64 needs;
	const char *what;
} field_defs[FIELD_NR] = {
	[FIELD_COMM] = { "comm", 0, NULL },
	[FIELD_TID] = { "tid", PERF_SAMPLE_TID, "TID" },
	[FIELD_PID] = { "pid", PERF_SAMPLE_TID, "TID" },
	[FIELD_TIME] = { "time", PERF_SAMPLE_TIME, "TIME" },
	[FIELD_CPU] = { "cpu", PERF_SAMPLE_CPU, "CPU" },
	[FIELD_PERIOD] = { "period", 0, NULL },
	[FIELD_EVENT] = { "event", 0, NULL },
	[FIELD_TRACE] = { "trace", 0, NULL },
	[FIELD_ADDR] = { "addr", PERF_SAMPLE_ADDR, "ADDR" },
	[FIELD_DATA_SRC] = { "data_src", PERF_SAMPLE_DATA_SRC, "DATA_SRC" },
	[FIELD_WEIGHT] = { "weight", PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT" },
	[FIELD_INS_LAT] = { "ins_lat", PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT" },
	[FIELD_CGROUP] = { "cgroup", PERF_SAMPLE_CGROUP, "CGROUP" },
	[FIELD_IP] = { "ip", PERF_SAMPLE_IP, "IP" },
	[FIELD_IREGS] = { "iregs", PERF_SAMPLE_REGS_INTR, "IREGS" },
	[FIELD_UREGS] = { "uregs", PERF_SAMPLE_REGS_USER, "UREGS" },
	[FIELD_PHYS_ADDR] = { "phys_addr", PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR" },
	[FIELD_DATA_PAGE_SIZE] = { "data_page_size", PERF_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE" },
	[FIELD_CODE_PAGE_SIZE] = { "code_page_size", PERF_SAMPLE_CODE_PAGE_SIZE, "CODE_PAGE_SIZE" },
	/* printed with ip, after it, as the stock perf does */
	[FIELD_SYM] = { "sym", 0, NULL },
	[FIELD_DSO] = { "dso", 0, NULL },
	[FIELD_SYMOFF] = { "symoff", 0, NULL },
	[FIELD_MISC] = { "misc", 0, NULL },
	[FIELD_FLAGS] = { "flags", 0, NULL },
	[FIELD_BRSTACK] = { "brstack", 0, NULL },
	[FIELD_BRSTACKSYM] = { "brstacksym", 0, NULL },
	[FIELD_BRSTACKOFF] = { "brstackoff", 0, NULL },
	[FIELD_CALLINDENT] = { "callindent", 0, NULL },
	[FIELD_SYNTH] = { "synth", 0, NULL },
	[FIELD_METRIC] = { "metric", 0, NULL },
	[FIELD_IPC] = { "ipc", 0, NULL },
	[FIELD_MACHINE_PID] = { "machine_pid", 0, NULL },
	[FIELD_VCPU] = { "vcpu", 0, NULL },
	[FIELD_BPF_OUTPUT] = { "bpf-output", 0, NULL },
	[FIELD_SRCLINE] = { "srcline", 0, NULL },
	[FIELD_SRCCODE] = { "srccode", 0, NULL },
	[FIELD_BRSTACKINSN] = { "brstackinsn", 0, NULL },
	[FIELD_BRSTACKINSNLEN] = { "brstackinsnlen", 0, NULL },
	[FIELD_INSN] = { "insn", 0, NULL },
	[FIELD_INSNLEN] = { "insnlen", 0, NULL },
	[FIELD_TOD] = { "tod", 0, NULL },
};

/* The fields this perf script names but cannot print: one line, as the
 * stock says when the file lacks their data, or that this perf lacks it. */
#define REFUSED (F_(SRCLINE) | F_(SRCCODE) | F_(BRSTACKINSN) | F_(BRSTACKINSNLEN) | \
		 F_(INSN) | F_(INSNLEN) | F_(TOD))

#define F_SAMPLE (F_(COMM) | F_(TID) | F_(CPU) | F_(TIME) | F_(EVENT) | F_(IP) | F_(SYM) | \
		  F_(SYMOFF) | F_(DSO) | F_(PERIOD))

/* The stock perf 6.1's defaults and the fields a type refuses. */
static const u64 type_defaults[OUTPUT_TYPES] = {
	[OUT_HW] = F_SAMPLE,
	[OUT_SW] = F_SAMPLE | F_(BPF_OUTPUT),
	[OUT_TRACE] = F_(COMM) | F_(TID) | F_(CPU) | F_(TIME) | F_(EVENT) | F_(TRACE),
	[OUT_HW_CACHE] = F_SAMPLE,
	[OUT_RAW] = F_SAMPLE | F_(ADDR) | F_(DATA_SRC) | F_(WEIGHT) | F_(PHYS_ADDR) |
		    F_(DATA_PAGE_SIZE) | F_(CODE_PAGE_SIZE) | F_(INS_LAT),
	[OUT_BREAK] = F_SAMPLE,
	[OUT_SYNTH] = F_(COMM) | F_(TID) | F_(CPU) | F_(TIME) | F_(EVENT) | F_(IP) | F_(SYM) |
		      F_(DSO) | F_(SYNTH),
	[OUT_OTHER] = F_SAMPLE,
};

static u64 type_invalid(enum output_type t)
{
	return t == OUT_TRACE ? 0 : t == OUT_SW ? F_(TRACE) : F_(TRACE) | F_(BPF_OUTPUT);
}

/* The stock's words for a type in its messages. */
static const char *type_word(enum output_type t)
{
	static const char *const words[] = { "hardware", "software", "tracepoint", "hardware-cache" };

	return t < ARRAY_SIZE(words) ? words[t] : "unknown";
}

void script__default_fields(struct script *s)
{
	memcpy(s->shows, type_defaults, sizeof(s->shows));
}

static int field_lookup(const char *name)
{
	for (int f = 0; f < FIELD_NR; f++)
		if (!strcmp(field_defs[f].name, name))
			return f;
	return -1;
}

static int type_lookup(const char *word)
{
	static const struct { const char *word; enum output_type t; } types[] = {
		{ "hw", OUT_HW }, { "sw", OUT_SW }, { "trace", OUT_TRACE }, { "raw", OUT_RAW },
		{ "break", OUT_BREAK }, { "synth", OUT_SYNTH },
	};

	for (size_t i = 0; i < ARRAY_SIZE(types); i++)
		if (!strcmp(types[i].word, word))
			return types[i].t;
	return -1;
}

enum change { SET_DEFAULT, SET, ADD, REMOVE };

/* One field of a list into type t (-1: every type, the stock's warning
 * for those it is not valid for). */
static int apply_field(struct script *s, int t, int f, enum change c)
{
	u64 bit = 1ULL << f;

	for (int j = t < 0 ? 0 : t; j < (t < 0 ? OUTPUT_TYPES : t + 1); j++) {
		if (type_invalid(j) & bit) {
			fprintf(s->o->msg, t < 0 ? "'%s' not valid for %s events. Ignoring.\n" :
				"'%s' not valid for %s events.\n", field_defs[f].name, type_word(j));
			if (t >= 0)
				return -EDOM;
			continue;
		}
		if (c == REMOVE)
			s->shows[j] &= ~bit;
		else
			s->shows[j] |= bit;
		if (t < 0)
			s->user_set[j] = c == REMOVE ? s->user_set[j] & ~bit : s->user_set[j] | bit;
		s->user_typed[j] = 1;
	}
	return 0;
}

/* The list after the type: each name set, added (+) or removed (-). */
static int parse_list(struct script *s, int t, char *list)
{
	enum change c = SET_DEFAULT;
	char *save = NULL;

	for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		enum change now = *tok == '+' ? ADD : *tok == '-' ? REMOVE : SET;
		int f;

		if ((now == SET && c != SET && c != SET_DEFAULT) || (now != SET && c == SET)) {
			fprintf(s->o->msg, "Cannot mix +-field with overridden fields\n");
			return -EDOM;
		}
		c = now;
		f = field_lookup(tok + (now != SET));
		if (f < 0) {
			fprintf(s->o->msg, "Invalid field requested: %s\n", tok + (now != SET));
			return -EDOM;
		}
		if (apply_field(s, t, f, c))
			return -EDOM;
	}
	return 0;
}

int script__parse_fields(struct script *s, const char *arg)
{
	char *str = strdup(arg), *list = str, *colon;
	int t = -1, ret;

	if (!str)
		return -ENOMEM;
	/* the stock's errors here are its usage errors */
	colon = strchr(str, ':');
	if (colon) {
		*colon = 0;
		list = colon + 1;
		t = type_lookup(str);
		if (t < 0) {
			fprintf(s->o->msg, "Invalid event type in field string.\n");
			free(str);
			return -EDOM;
		}
		if (s->user_typed[t])
			fprintf(s->o->msg, "Overriding previous field request for %s events.\n",
				type_word(t));
		if (!strpbrk(list, "+-"))
			s->shows[t] = 0;
		/* 2: shown nothing on purpose, so there must be such events */
		s->user_typed[t] = *list ? 1 : 2;
	} else if (!*str) {
		fprintf(s->o->msg, "Cannot set fields to 'none' for all event types.\n");
		free(str);
		return -EDOM;
	} else if (!strpbrk(str, "+-")) {
		int any = 0;

		for (int j = 0; j < OUTPUT_TYPES; j++)
			any |= s->user_typed[j];
		if (any)
			fprintf(s->o->msg, "Overriding previous field request for all events.\n");
		for (int j = 0; j < OUTPUT_TYPES; j++) {
			s->shows[j] = 0;
			s->user_typed[j] = 1;
		}
	}
	ret = parse_list(s, t, list);
	free(str);
	return ret;
}

/* A field the type's first event e does not sample: left out of a
 * default, refused when -F named it for every type. */
static int check_sampled(struct script *s, enum output_type t, const struct reader_evsel *e)
{
	for (int f = 0; f < FIELD_NR; f++) {
		u64 bit = 1ULL << f;

		if (!(s->shows[t] & bit) || !field_defs[f].needs ||
		    (e->attr.sample_type & field_defs[f].needs))
			continue;
		if (s->user_set[t] & bit) {
			fprintf(s->o->msg, "Samples for '%s' event do not have %s attribute set. "
				"Cannot print '%s' field.\n", e->name, field_defs[f].what,
				field_defs[f].name);
			return -ENOTSUP;
		}
		s->shows[t] &= ~bit;
	}
	return 0;
}

/* The stock's rules between fields, and the fields this perf cannot print. */
static int check_combination(struct script *s, enum output_type t, const struct reader_evsel *e)
{
	u64 out = s->shows[t];
	const char *no = NULL;

	u64 addrs = e->attr.sample_type & (PERF_SAMPLE_IP | PERF_SAMPLE_ADDR);

	if ((out & F_(SYM)) && !addrs)
		no = "Display of symbols requested but neither sample IP nor sample address\n"
		     "available. Hence, no addresses to convert to symbols.";
	else if ((out & F_(SYMOFF)) && !(out & F_(SYM)))
		no = "Display of offsets requested but symbol is notselected.";
	else if ((out & F_(DSO)) && !addrs)
		no = "Display of DSO requested but no address to convert.";
	else if ((out & (F_(SRCLINE) | F_(SRCCODE))) && !(out & F_(IP)))
		no = "Display of source line number requested but sample IP is not\n"
		     "selected. Hence, no address to lookup the source line number.";
	else if ((out & (F_(BRSTACKINSN) | F_(BRSTACKINSNLEN))) &&
		 !(e->attr.sample_type & PERF_SAMPLE_BRANCH_STACK))
		no = "Display of branch stack assembler requested, but non all-branch filter set\n"
		     "Hint: run 'perf record -b ...'";
	else if ((out & F_(TOD)) && !script__has_feature(s, HEADER_CLOCK_DATA))
		no = "Can't provide 'tod' time, missing clock data. Please record with -k/--clockid option.";
	if (no) {
		fprintf(s->o->msg, "%s\n", no);
		return -ENOTSUP;
	}
	for (int f = 0; f < FIELD_NR; f++) {
		if (out & REFUSED & (1ULL << f)) {
			fprintf(s->o->msg, "perf script: -F %s: not supported by this perf script "
				"(it reads no source lines, instruction bytes or clock data)\n",
				field_defs[f].name);
			return -ENOTSUP;
		}
	}
	return 0;
}

/* As the stock: a callchain under the samples that have one, unless -G or
 * no event has them; tracepoints then show where they were hit. */
static void check_callchain(struct script *s)
{
	int any = 0;

	for (int i = 0; i < s->reader.nr_evsels; i++)
		any |= !!(s->reader.evsels[i].attr.sample_type & PERF_SAMPLE_CALLCHAIN);
	s->use_callchain = any && !s->o->hide_call_graph;
	if (!s->use_callchain || s->user_typed[OUT_TRACE])
		return;
	for (int i = 0; i < s->reader.nr_evsels; i++) {
		const struct reader_evsel *e = &s->reader.evsels[i];

		if (e->attr.type == PERF_TYPE_TRACEPOINT &&
		    (e->attr.sample_type & PERF_SAMPLE_CALLCHAIN)) {
			s->shows[OUT_TRACE] |= F_(IP) | F_(SYM) | F_(SYMOFF) | F_(DSO);
			return;
		}
	}
}

int script__check_fields(struct script *s)
{
	int stat = script__has_feature(s, HEADER_STAT);

	for (int t = 0; t < OUTPUT_TYPES; t++) {
		const struct reader_evsel *e = first_of_type(s, t);

		if (!e && s->user_typed[t] == 2 && t != OUT_SYNTH) {
			fprintf(s->o->msg, "%s events do not exist. Remove corresponding -F option "
				"to proceed.\n", type_word(t));
			return -ENOTSUP;
		}
		/* as the stock: a dummy first event checks nothing */
		if (!e || !s->shows[t] || stat || (e->attr.type == PERF_TYPE_SOFTWARE &&
						 e->attr.config == PERF_COUNT_SW_DUMMY))
			continue;
		if (check_sampled(s, t, e) || check_combination(s, t, e))
			return -ENOTSUP;
	}
	check_callchain(s);
	/* the maps also where a callchain is shown without sym or dso: the
	 * stock shows a frame as its address in its map (a user frame's is
	 * its offset in the DSO), marks inlined ones and unwinds dwarf
	 * stack dumps in the maps */
	for (int t = 0; t < OUTPUT_TYPES; t++)
		s->symbols |= !!(s->shows[t] & (F_(SYM) | F_(DSO))) ||
			      (s->use_callchain && (s->shows[t] & F_(IP)));
	for (int i = 0; i < s->reader.nr_evsels; i++)
		s->name_width = MAX(s->name_width, (int)strlen(s->reader.evsels[i].name));
	return 0;
}

/* --time against the file's first and last sample (its SAMPLE_TIME
 * feature); -ERANGE after the stock's words for a bad one. */
static int setup_time_filter(struct script *s)
{
	u64 size = 0, first = 0, last = 0;
	const void *body = reader__feature(&s->reader, HEADER_SAMPLE_TIME, &size);
	int rc;

	if (body && size >= 16) {
		memcpy(&first, body, 8);
		memcpy(&last, (const char *)body + 8, 8);
	}
	rc = time_filter__parse(&s->time_filter, s->o->time, first, last);
	if (rc == -ENODATA)
		fprintf(s->o->msg, "HINT: no first/last sample time found in perf data.\n"
			"Please use latest perf binary to execute 'perf record'\n"
			"(if '--buildid-all' is enabled, please set '--timestamp-boundary').\n");
	else if (rc == -EINVAL)
		fprintf(s->o->msg, "Invalid time string\n");
	return rc == -EINVAL || rc == -ENODATA ? -ERANGE : rc;
}

/* --comms, --pids, --tids, --cpu and --time; -EDOM after one line for a
 * bad list, -ERANGE for a bad time. */
static int setup_filters(struct script *s)
{
	const struct script_opts *o = s->o;
	const struct { struct script_filter *f; const char *list, *opt; enum filter_kind k; } fs[] = {
		{ &s->comm_filter, o->comms, "--comms", FILTER_COMM },
		{ &s->pid_filter, o->pids, "--pid", FILTER_PID },
		{ &s->tid_filter, o->tids, "--tid", FILTER_PID },
		{ &s->cpu_filter, o->cpus, "--cpu", FILTER_CPU },
	};

	for (size_t i = 0; i < ARRAY_SIZE(fs); i++) {
		int rc = script_filter__parse(fs[i].f, fs[i].list, fs[i].k);

		if (rc == -EINVAL) {
			fprintf(o->msg, "perf script: %s: '%s' is not a list of numbers\n", fs[i].opt,
				fs[i].list);
			return -EDOM;
		}
		if (rc)
			return rc;
	}
	return setup_time_filter(s);
}

void script__exit_filters(struct script *s)
{
	time_filter__exit(&s->time_filter);
	script_filter__exit(&s->comm_filter);
	script_filter__exit(&s->pid_filter);
	script_filter__exit(&s->tid_filter);
	script_filter__exit(&s->cpu_filter);
}

int script__setup_fields(struct script *s)
{
	const struct script_opts *o = s->o;

	int rc = setup_filters(s);

	if (rc)
		return rc;

	script__default_fields(s);
	rc = o->fields ? script__parse_fields(s, o->fields) : 0;
	for (int i = 0; !rc && i < o->nr_field_args; i++)
		rc = script__parse_fields(s, o->field_args[i]);
	return rc ? rc : script__check_fields(s);
}
