/* perf script -F: the fields a user names, checked against what each
 * event samples, in the stock perf's order; and the output types that
 * decide, as in the stock perf, what every event of a type shows. */
#include "script/script-internal.h"

#include <errno.h>
#include <string.h>

/* The stock perf's output types: one per PERF_TYPE_*, the rest together. */
static u32 output_type(const struct perf_event_attr *a)
{
	return a->type < PERF_TYPE_MAX ? a->type : PERF_TYPE_MAX;
}

/* The first event of e's output type: as the stock perf, it decides what
 * every event of the type shows. */
const struct reader_evsel *script__type_leader(const struct script *s, const struct reader_evsel *e)
{
	for (int i = 0; i < s->reader.nr_evsels; i++)
		if (output_type(&s->reader.evsels[i].attr) == output_type(&e->attr))
			return &s->reader.evsels[i];
	return e;
}

/* Each field, the sample_type bit its event must have (0: any event) and
 * that bit's name in the stock perf's refusal. */
static const struct field_def {
	const char *name;
	u64 needs;
	const char *what;
} field_defs[] = {
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
	[FIELD_SYM] = { "sym", PERF_SAMPLE_IP, "IP" },
	[FIELD_DSO] = { "dso", PERF_SAMPLE_IP, "IP" },
	[FIELD_SYMOFF] = { "symoff", PERF_SAMPLE_IP, "IP" },
};

/* -F's comma-separated names into s->fields; -EINVAL after one line. */
int script__parse_fields(struct script *s, const char *list)
{
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ",");
		size_t f;

		for (f = 0; f < ARRAY_SIZE(field_defs); f++)
			if (strlen(field_defs[f].name) == len && !strncmp(p, field_defs[f].name, len))
				break;
		if (f == ARRAY_SIZE(field_defs)) {
			fprintf(s->o->msg, "perf script: -F: unknown or unsupported field '%.*s' "
				"(this perf script knows:", (int)len, p);
			for (f = 0; f < ARRAY_SIZE(field_defs); f++)
				fprintf(s->o->msg, "%s%s", f ? "," : " ", field_defs[f].name);
			fprintf(s->o->msg, ")\n");
			return -EINVAL;
		}
		s->fields |= 1ULL << f;
		p += len + (p[len] == ',');
	}
	if (!s->fields) {
		fprintf(s->o->msg, "perf script: -F: no field named\n");
		return -EINVAL;
	}
	if (HAS(s, FIELD_SYMOFF) && !HAS(s, FIELD_SYM)) {
		fprintf(s->o->msg, "perf script: -F symoff: an offset needs its symbol: add sym\n");
		return -EINVAL;
	}
	return 0;
}

/* As the stock perf: the first event of each output type (dummies aside)
 * must sample every field asked for, or nothing is printed. */
int script__check_fields(struct script *s)
{
	for (int i = 0; i < s->reader.nr_evsels; i++) {
		const struct reader_evsel *e = &s->reader.evsels[i];

		if (script__type_leader(s, e) != e || (e->attr.type == PERF_TYPE_SOFTWARE &&
					       e->attr.config == PERF_COUNT_SW_DUMMY))
			continue;
		for (size_t f = 0; f < ARRAY_SIZE(field_defs); f++) {
			if (!HAS(s, f) || !field_defs[f].needs ||
			    (e->attr.sample_type & field_defs[f].needs))
				continue;
			fprintf(s->o->msg, "perf script: %s: samples for '%s' event do not have %s "
				"attribute set: cannot print '%s' field\n", s->o->input, e->name,
				field_defs[f].what, field_defs[f].name);
			return -EINVAL;
		}
	}
	for (int i = 0; i < s->reader.nr_evsels; i++)
		s->name_width = MAX(s->name_width, (int)strlen(s->reader.evsels[i].name));
	return 0;
}
