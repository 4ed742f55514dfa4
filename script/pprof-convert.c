/* perf data convert --to-pprof: perf script's reader with a second output,
 * each sample's callchain resolved as perf script resolves it and added
 * into a pprof profile (pprof.c), written gzipped once the file is read. */
#include "script/pprof-convert.h"
#include "script/pprof.h"
#include "script/script-internal.h"
#include "script/comm-map.h"
#include "script/unwind.h"
#include "perfdata/data.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The frames one sample may have: a callchain fills a record (64 KiB),
 * with room for the unwound user frames after the kernel's. */
#define MAX_FRAMES 8448
#define MAX_USER_FRAMES 1024
/* The mappings whose ids are kept (a power of two): a stack goes from
 * the kernel's map through several of its process's, and the samples of
 * all processes come interleaved, so one remembered map is not enough. */
#define MAP_MEMO 256

/* What an event's samples count, and in which unit. */
enum event_kind {
	KIND_CLOCK,	/* cpu-clock, task-clock: samples, and their periods in ns */
	KIND_OFFCPU,	/* offcpu-time: the time off CPU (its period), in ns */
	KIND_TRACEPOINT,	/* samples */
	KIND_OTHER,	/* samples, and their periods in events */
};

struct pprof_convert {
	const struct pprof_convert_opts *o;
	struct pprof *prof;
	int *col;		/* by event: its first column (-1: a dummy, none) */
	int nr_evsels;		/* those col has, known at the first sample */
	u8 *kind;		/* by event: enum event_kind */
	u64 first, last;	/* the samples' times */
	u64 nr_samples;
	struct id_hash funcs;	/* symbol -> its function id */
	/* a map's pprof mapping id, by the map's contents (a struct map
	 * moves and is reused; its DSO stays while the run does): making
	 * it again interns its file name and build id */
	struct map_memo {
		struct map map;
		u64 id;		/* 0: none yet */
	} maps[MAP_MEMO];
	u64 frames[MAX_FRAMES];
	u64 pcs[MAX_USER_FRAMES];
};

static enum event_kind event_kind(const struct reader_evsel *e)
{
	if (e->name && !strcmp(e->name, "offcpu-time"))
		return KIND_OFFCPU;
	if (e->attr.type == PERF_TYPE_SOFTWARE && (e->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
						   e->attr.config == PERF_COUNT_SW_TASK_CLOCK))
		return KIND_CLOCK;
	if (e->attr.type == PERF_TYPE_TRACEPOINT)
		return KIND_TRACEPOINT;
	return KIND_OTHER;
}

static int add_type(struct pprof_convert *c, const char *name, const char *suffix,
		    const char *unit)
{
	char type[512];

	snprintf(type, sizeof(type), "%s%s", name, suffix);
	return pprof__add_type(c->prof, type, unit);
}

/* A sample type per event, with its unit: cpu-clock counts samples
 * (EVENT_samples) and nanoseconds (EVENT), a tracepoint its samples, the
 * stock's offcpu-time the nanoseconds its tasks were off CPU. The first
 * event's last column is what pprof shows first. 0 or -errno. */
static int convert__types(struct pprof_convert *c, const struct perf_reader *r)
{
	int first = -1;

	c->nr_evsels = r->nr_evsels;
	c->col = calloc(r->nr_evsels + 1, sizeof(*c->col));
	c->kind = calloc(r->nr_evsels + 1, sizeof(*c->kind));
	if (!c->col || !c->kind)
		return -ENOMEM;
	for (int i = 0; i < r->nr_evsels; i++) {
		const struct reader_evsel *e = &r->evsels[i];
		const char *name = e->name ? e->name : "event";
		int col = -1, last;

		c->kind[i] = event_kind(e);
		if (e->attr.type == PERF_TYPE_SOFTWARE && e->attr.config == PERF_COUNT_SW_DUMMY) {
			c->col[i] = -1;
			continue;
		}
		if (c->kind[i] == KIND_CLOCK || c->kind[i] == KIND_OTHER)
			col = add_type(c, name, "_samples", "count");
		last = add_type(c, name, "", c->kind[i] == KIND_CLOCK || c->kind[i] == KIND_OFFCPU ?
				"nanoseconds" : "count");
		if (last < 0 || (col < 0 && col != -1))
			return last < 0 ? last : col;
		c->col[i] = col >= 0 ? col : last;
		if (first < 0)
			first = last;
	}
	pprof__set_default_type(c->prof, first);
	return 0;
}

static int map__same(const struct map *a, const struct map *b)
{
	return a->start == b->start && a->end == b->end && a->pgoff == b->pgoff &&
	       a->dso == b->dso && a->identity == b->identity;
}

/* The mapping id of map (0: no map), 0 without memory too. */
static u64 convert__mapping(struct pprof_convert *c, const struct map *map)
{
	struct map_memo *e;
	struct pprof_mapping pm;
	u64 h;

	if (!map)
		return 0;
	h = (map->start ^ (uintptr_t)map->dso) * 0x9e3779b97f4a7c15ULL;
	e = &c->maps[(h >> 32) & (MAP_MEMO - 1)];
	if (e->id && map__same(&e->map, map))
		return e->id;
	pm = (struct pprof_mapping){
		.start = map->start, .limit = map->end, .offset = map->identity ? 0 : map->pgoff,
		.file = map->dso->name, .bid = map->dso->bid, .bid_len = map->dso->bid_len,
	};
	e->map = *map;
	e->id = pprof__mapping(c->prof, &pm);
	return e->id;
}

/* The location of ip of process pid in cpumode, resolved as perf script
 * resolves it: its address, its mapping and its function. 0 without
 * memory. */
static u64 convert__location(struct script *s, struct pprof_convert *c, u32 pid, u32 cpumode,
			     u64 ip)
{
	struct addr_loc al;
	u64 mapping, func = 0;

	machine__resolve(&s->machine, pid, cpumode, ip, &al);
	mapping = convert__mapping(c, al.map);
	if (al.map && !mapping)
		return 0;
	if (al.sym) {
		/* a symbol's name and its DSO's stay while the run does */
		func = (u64)(uintptr_t)id_hash__find(&c->funcs, (u64)(uintptr_t)al.sym);
		if (!func) {
			func = pprof__function(c->prof, symbol__name(al.map->dso, al.sym),
					       al.map->dso->name);
			if (!func || id_hash__add(&c->funcs, (u64)(uintptr_t)al.sym,
						  (void *)(uintptr_t)func))
				return 0;
		}
	}
	return pprof__location(c->prof, mapping, ip, func);
}

/* smp's frames, leaf first, as locations into c->frames: its callchain
 * (the context markers say whose addresses follow; an unknown one ends
 * it, as perf script shows it), then the user frames a dwarf stack dump
 * unwinds to; with neither, its ip. How many, or -ENOMEM. */
static int convert__frames(struct script *s, struct pprof_convert *c, const struct sample *smp)
{
	u32 cpumode = smp->cpumode;
	int n = 0;

	for (u64 i = 0; i < smp->nr_callchain && n < MAX_FRAMES - MAX_USER_FRAMES; i++) {
		u64 ip = smp->callchain[i];

		if (ip >= PERF_CONTEXT_MAX) {
			if (!script__chain_context(ip, &cpumode))
				break;
			continue;
		}
		if (!(c->frames[n++] = convert__location(s, c, smp->pid, cpumode, ip)))
			return -ENOMEM;
	}
	/* the unwound frames start at the interrupted user ip */
	if (unwind__has_stack(smp)) {
		int k = unwind__user_frames(&s->machine, smp, c->pcs, MAX_USER_FRAMES);

		for (int i = 0; i < k; i++)
			if (!(c->frames[n++] = convert__location(s, c, smp->pid,
								 PERF_RECORD_MISC_USER, c->pcs[i])))
				return -ENOMEM;
	}
	if (!n && !(c->frames[n++] = convert__location(s, c, smp->pid, smp->cpumode, smp->ip)))
		return -ENOMEM;
	return n;
}

int pprof_convert__sample(struct script *s, const struct sample *smp)
{
	struct pprof_convert *c = s->conv;
	int i = (int)(smp->evsel - s->reader.evsels), n, col;
	struct pprof_labels l = {
		.pid = smp->pid, .tid = smp->tid, .cpu = smp->cpu,
		.has_time = c->o->time_labels, .time = smp->time,
	};
	s64 v[2] = { 1, (s64)smp->period };
	char unnamed[16];

	/* a stream's events are all known at its first sample */
	if (!c->col && (n = convert__types(c, &s->reader)))
		return n;
	/* an event a stream adds after its samples began has no column */
	col = i < c->nr_evsels ? c->col[i] : -1;
	if (col < 0)
		return 0;
	n = convert__frames(s, c, smp);
	if (n < 0)
		return n;
	l.comm = comm_map__name(s->comms, smp->tid, unnamed);
	if (smp->time && (!c->first || smp->time < c->first))
		c->first = smp->time;
	c->last = MAX(c->last, smp->time);
	c->nr_samples++;
	switch (c->kind[i]) {
	case KIND_OFFCPU:
		return pprof__add(c->prof, c->frames, n, &l, col, v + 1, 1);
	case KIND_TRACEPOINT:
		return pprof__add(c->prof, c->frames, n, &l, col, v, 1);
	default:
		return pprof__add(c->prof, c->frames, n, &l, col, v, 2);
	}
}

/* The profile's wall-clock start and its length: the samples' span, on
 * the wall clock the file's CLOCK_DATA gives (perf record -k), else
 * ending when the file was last written (a recording's end). */
static void convert__time(struct script *s, struct pprof_convert *c)
{
	u64 size = 0, wall, ref, dur = c->first ? c->last - c->first : 0;
	const char *cd = reader__feature(&s->reader, HEADER_CLOCK_DATA, &size);
	struct stat st;
	s64 start;

	if (cd && size >= 24 && c->first) {
		memcpy(&wall, cd + 8, 8);
		memcpy(&ref, cd + 16, 8);
		start = (s64)(wall + (c->first - ref));
	} else if (!fstat(s->reader.fd, &st) && S_ISREG(st.st_mode)) {
		start = (s64)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec - (s64)dur;
	} else {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		start = (s64)ts.tv_sec * 1000000000 + ts.tv_nsec - (s64)dur;
	}
	pprof__set_time(c->prof, start, (s64)dur);
}

/* The profile, written into a file made beside output and named output
 * once complete. 0 or -errno, said. */
static int convert__write(struct pprof_convert *c, const char *output)
{
	struct perf_data d;
	int err = perf_data__open_ahead(&d, output);

	if (err) {
		fprintf(c->o->msg, "perf data convert: %s: %s\n", output, strerror(-err));
		return err;
	}
	err = pprof__write(c->prof, d.fd);
	if (!err && fsync(d.fd))
		err = -errno;
	if (err) {
		fprintf(c->o->msg, "perf data convert: %s: write: %s\n", output, strerror(-err));
		perf_data__abort(&d);
		return err;
	}
	if (c->o->force && unlink(output) && errno != ENOENT) {
		err = -errno;
		perf_data__abort(&d);
	} else {
		err = perf_data__place(&d, output);
	}
	if (err)
		fprintf(c->o->msg, "perf data convert: %s: %s\n", output, strerror(-err));
	return err;
}

/* The output, unless it exists (no -f): said before the input is read. */
static int convert__check_output(const struct pprof_convert_opts *o, const char *output)
{
	struct stat st;

	if (!*output) {
		fprintf(o->msg, "perf data convert: -o: empty file name\n");
		return -EINVAL;
	}
	if (!o->force && !lstat(output, &st)) {
		fprintf(o->msg, "perf data convert: %s: %s (-f replaces it)\n", output,
			strerror(EEXIST));
		return -EEXIST;
	}
	return 0;
}

static void convert__say(const struct pprof_convert *c, const char *output)
{
	u64 samples, stacks, locations;

	pprof__counts(c->prof, &samples, &stacks, &locations);
	fprintf(c->o->msg, "perf data convert: %s: %llu samples as %llu (%llu stacks, %llu locations)\n",
		output, (unsigned long long)c->nr_samples, (unsigned long long)samples,
		(unsigned long long)stacks, (unsigned long long)locations);
}

int pprof_convert__run(const struct pprof_convert_opts *o)
{
	struct script_opts so = { .input = o->input, .buildid_dir = o->buildid_dir, .msg = o->msg };
	struct pprof_convert *c = calloc(1, sizeof(*c));
	struct script s = { .o = &so, .who = "perf data convert", .conv = c };
	char *output = NULL;
	int rc = -ENOMEM;

	if (!so.input)
		so.input = script__default_input();
	if (!c || !(c->prof = pprof__new()) ||
	    (!o->output && asprintf(&output, "%s.pb.gz",
				    strcmp(so.input, "-") ? so.input : "perf.data") < 0)) {
		output = NULL;
		fprintf(o->msg, "perf data convert: %s\n", strerror(ENOMEM));
		goto out;
	}
	c->o = o;
	rc = convert__check_output(o, o->output ? o->output : output);
	if (rc)
		goto out;
	rc = script__read(&s);
	if (!rc && !c->col)	/* no sample: the columns all the same */
		rc = convert__types(c, &s.reader);
	if (!rc) {
		convert__time(&s, c);
		rc = convert__write(c, o->output ? o->output : output);
	}
	if (!rc && o->verbose)
		convert__say(c, o->output ? o->output : output);
	script__exit(&s);
out:
	if (c) {
		pprof__delete(c->prof);
		id_hash__exit(&c->funcs);
		free(c->col);
		free(c->kind);
	}
	free(c);
	free(output);
	return rc;
}
