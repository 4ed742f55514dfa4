/* perf record's command line: each option's parser, and what the options
 * mean together (targets, rings, triggers), checked once all are read. */
#include "record/record-options.h"
#include "buildid/build-id.h"
#include "util/cgroup.h"
#include "perfdata/compress.h"
#include "util/evlist.h"
#include "util/evsel.h"
#include "util/parse-events.h"
#include "lib/parse-options.h"
#include "record/record.h"
#include "util/regs.h"

#include <errno.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static const char *const record_usage[] = {
	"perf record [<options>] [<command>]",
	"perf record [<options>] -- <command> [<options>]",
	NULL
};

static struct record *opt_record(const struct option *opt)
{
	return opt->value;
}

/* -e and --filter: one parser each, over the events given so far */
static int opt_event(const struct option *opt, const char *arg, int unset)
{
	struct record *rec = opt_record(opt);
	int (*parse)(struct evlist *, const char *, char *, size_t) =
		!strcmp(opt->long_name, "filter") ? parse_events__filter : parse_events;

	(void)unset;
	if (parse(rec->evlist, arg, rec->err, sizeof(rec->err))) {
		pr_err("%s\n", rec->err);
		return -1;
	}
	return 0;
}

static int opt_exclude_perf(const struct option *opt, const char *arg, int unset)
{
	struct record *rec = opt_record(opt);

	(void)arg;
	(void)unset;
	if (parse_events__exclude_perf(rec->evlist, rec->err, sizeof(rec->err))) {
		pr_err("%s\n", rec->err);
		return -1;
	}
	return 0;
}

/* --all-user and --all-kernel exclude each other, as in perf */
static int opt_all_space(const struct option *opt, const char *arg, int unset)
{
	struct record_opts *opts = &opt_record(opt)->opts;
	int user = !strcmp(opt->long_name, "all-user");

	(void)arg;
	(void)unset;
	if (user ? opts->all_kernel : opts->all_user) {
		pr_err("perf record: --%s cannot be used with --%s\n", opt->long_name,
		       user ? "all-kernel" : "all-user");
		return -1;
	}
	*(user ? &opts->all_user : &opts->all_kernel) = 1;
	return 0;
}

/* A number in [min, max], or one line naming the option, the value and the
 * range: junk, 0 and overflow alike. */
static int opt_number(const char *name, const char *arg, u64 min, u64 max, u64 *out)
{
	if (parse_u64_range(arg, min, max, out)) {
		pr_err("perf record: invalid %s '%s': expected a number from %llu to %llu\n",
		       name, arg, (unsigned long long)min, (unsigned long long)max);
		return -1;
	}
	return 0;
}

static int opt_count(const struct option *opt, const char *arg, int unset)
{
	(void)unset;
	return opt_number("-c/--count", arg, 1, SAMPLE_PERIOD_MAX, &opt_record(opt)->opts.count);
}

static int opt_freq(const struct option *opt, const char *arg, int unset)
{
	(void)unset;
	if (!strcmp(arg, "max")) {
		opt_record(opt)->opts.freq_max = 1;	/* read once the options are known */
		return 0;
	}
	return opt_number("-F/--freq", arg, 1, SAMPLE_FREQ_MAX, &opt_record(opt)->opts.freq);
}

/* One size of -m (ARG): a page count, or a size with B/K/M/G, rounded up
 * to a power of two pages as perf does. 0, or -1 after saying why. */
static int mmap_pages_parse(struct record *rec, const char *arg, const char *part, u64 *bytes)
{
	u64 page = sysconf(_SC_PAGESIZE), val, pages;
	int has_unit = *part && strchr("bBkKmMgG", part[strlen(part) - 1]);

	if (has_unit ? parse_size(part, &val) : parse_u64(part, &val))
		goto bad;
	pages = has_unit ? val / page + (val % page != 0) : val;	/* no val + page - 1 wrap */
	if (pages == 0 || pages > (1ULL << 31))
		goto bad;
	if (!is_pow2(pages)) {
		pages = roundup_pow2(pages);
		if (!rec->opts.quiet)
			pr_err("rounding mmap pages size to %lluK (%llu pages)\n",
			       (unsigned long long)(pages * page / 1024), (unsigned long long)pages);
	}
	*bytes = pages * page;
	return 0;
bad:
	pr_err("perf record: invalid -m/--mmap-pages '%s': expected 1 to %llu pages or a "
	       "size like 512K, 16M, and after a comma the same for the AUX area\n", arg,
	       1ULL << 31);
	return -1;
}

/* -m DATA[,AUX]: either part may be left out. The AUX area's size only
 * counts for AUX area events (intel_pt, arm_spe...), which this perf does
 * not open: it is checked and kept, and otherwise ignored, as the stock
 * perf ignores it without such an event. */
static int opt_mmap_pages(const struct option *opt, const char *arg, int unset)
{
	struct record *rec = opt_record(opt);
	const char *comma = strchr(arg, ',');
	char data[64];

	(void)unset;
	if (!comma)
		return mmap_pages_parse(rec, arg, arg, &rec->opts.mmap_bytes);
	if ((size_t)(comma - arg) >= sizeof(data))
		return mmap_pages_parse(rec, arg, "", &rec->opts.mmap_bytes);	/* says why */
	memcpy(data, arg, comma - arg);
	data[comma - arg] = '\0';
	if (*data && mmap_pages_parse(rec, arg, data, &rec->opts.mmap_bytes))
		return -1;
	return comma[1] ? mmap_pages_parse(rec, arg, comma + 1, &rec->opts.aux_mmap_bytes) : 0;
}

static int opt_call_graph(const struct option *opt, const char *arg, int unset)
{
	struct record *rec = opt_record(opt);

	(void)unset;
	if (callchain__parse(&rec->opts.call_graph, arg, rec->err, sizeof(rec->err))) {
		pr_err("%s\n", rec->err);
		return -1;
	}
	return 0;
}

/* --synth: a comma list of what /proc synthesis writes, as the stock
 * reads it: any case, "mmap" means the tasks too, and "no" anywhere means
 * nothing. */
static int opt_synth(const struct option *opt, const char *arg, int unset)
{
	static const struct { const char *name; unsigned int bits; } kinds[] = {
		{ "all", SYNTH_ALL }, { "task", SYNTH_TASK },
		{ "mmap", SYNTH_TASK | SYNTH_MMAP }, { "cgroup", SYNTH_CGROUP }, { "no", 0 },
	};
	unsigned int synth = 0, no = 0;
	const char *p = arg;

	(void)unset;
	do {
		size_t n = strcspn(p, ","), k;

		for (k = 0; k < ARRAY_SIZE(kinds); k++)
			if (n == strlen(kinds[k].name) && !strncasecmp(p, kinds[k].name, n))
				break;
		if (k == ARRAY_SIZE(kinds)) {
			pr_err("Invalid synth option: %s\n", arg);
			return -1;
		}
		synth |= kinds[k].bits;
		no |= !kinds[k].bits;
		p += n;
	} while (*p++ == ',');
	opt_record(opt)->opts.no_synth = SYNTH_ALL & ~(no ? 0 : synth);
	return 0;
}

/* -I/--intr-regs, --user-regs: no value means every register */
static int opt_regs(struct record *rec, const char *arg, const char *listing, u64 *mask)
{
	int err;

	if (!regs__default_mask()) {
		pr_err("perf record: sampling registers by name is not supported on this "
		       "architecture\n");
		return -1;
	}
	if (!*arg) {
		*mask = regs__default_mask();
		return 0;
	}
	err = regs__parse(arg, listing, mask, rec->err, sizeof(rec->err));
	if (err < 0)
		pr_err("%s\n", rec->err);
	return err ? -1 : 0;
}

static int opt_intr_regs(const struct option *opt, const char *arg, int unset)
{
	(void)unset;
	return opt_regs(opt_record(opt), arg, "-I", &opt_record(opt)->opts.sample_intr_regs);
}

static int opt_user_regs(const struct option *opt, const char *arg, int unset)
{
	(void)unset;
	return opt_regs(opt_record(opt), arg, "--user-regs=",
			&opt_record(opt)->opts.sample_user_regs);
}

/* -k: perf's names (with or without CLOCK_), its short aliases, or a
 * number; a clock this system cannot read is refused now, not at open */
static int opt_clockid(const struct option *opt, const char *arg, int unset)
{
	static const struct { const char *name; int id; } clocks[] = {
		{ "monotonic", CLOCK_MONOTONIC }, { "monotonic_raw", CLOCK_MONOTONIC_RAW },
		{ "realtime", CLOCK_REALTIME }, { "boottime", CLOCK_BOOTTIME }, { "tai", CLOCK_TAI },
		{ "mono", CLOCK_MONOTONIC }, { "raw", CLOCK_MONOTONIC_RAW },
		{ "real", CLOCK_REALTIME }, { "boot", CLOCK_BOOTTIME },
	};
	struct record_opts *opts = &opt_record(opt)->opts;
	const char *name = strncasecmp(arg, "CLOCK_", 6) ? arg : arg + 6;
	struct timespec res;
	u64 id = 0;
	size_t i;

	(void)unset;
	for (i = 0; i < ARRAY_SIZE(clocks) && strcasecmp(name, clocks[i].name); i++)
		;
	if (i < ARRAY_SIZE(clocks))
		id = clocks[i].id;
	else if (parse_u64_range(arg, 0, INT32_MAX, &id)) {
		pr_err("unknown clockid %s, check man page\n", arg);
		return -1;
	}
	if (clock_getres(id, &res)) {
		pr_err("perf record: clockid %s: %s\n", arg, strerror(errno));
		return -1;
	}
	opts->use_clockid = 1;
	opts->clockid = id;
	return 0;
}

static int opt_realtime(const struct option *opt, const char *arg, int unset)
{
	u64 prio;

	(void)unset;
	/* 0 leaves the policy alone, as with perf */
	if (opt_number("-r/--realtime", arg, 0, sched_get_priority_max(SCHED_FIFO), &prio))
		return -1;
	opt_record(opt)->opts.realtime_prio = prio;
	return 0;
}

static int opt_proc_map_timeout(const struct option *opt, const char *arg, int unset)
{
	(void)unset;
	return opt_number("--proc-map-timeout", arg, 1, UINT32_MAX,
			  &opt_record(opt)->opts.proc_map_timeout);
}

/* Options for hardware or file layouts this perf does not have: refused
 * by name, the reason being the option's value pointer. */
static int opt_refuse(const struct option *opt, const char *arg, int unset)
{
	(void)arg;
	(void)unset;
	pr_err("perf record: %s\n", (const char *)opt->value);
	return -1;
}

/* --threads[=spec]: the spec is resolved once the CPUs are known
 * (record/drain-thread.c) */
static int opt_threads(const struct option *opt, const char *arg, int unset)
{
	opt_record(opt)->opts.threads_spec = unset ? NULL : arg ? arg : "";
	return 0;
}

/* --strict-freq: a frequency above the kernel's maximum fails, as the
 * stock's does, where without it evsel__open() caps it. -F: the stock's
 * words and status (234); a freq= term: the kernel refuses the stock's
 * event (255), said here before anything is opened. 0 or the status. */
static int record__check_strict_freq(struct record *rec)
{
	long max = rec->opts.strict_freq ? sysctl__read("perf_event_max_sample_rate", 0) : 0;

	if (max <= 0)
		return 0;
	if (rec->opts.freq > (u64)max) {
		pr_err("error: Maximum frequency rate (%ld Hz) exceeded: use -F with a lower "
		       "value or raise /proc/sys/kernel/perf_event_max_sample_rate "
		       "(--strict-freq)\n", max);
		return 234;
	}
	for (int i = 0; i < rec->evlist->nr_entries; i++) {
		const struct evsel *e = rec->evlist->entries[i];

		if (e->user_period && e->attr.freq && e->attr.sample_freq > (u64)max) {
			pr_err("error: %s: Maximum frequency rate (%ld Hz) exceeded by freq=%llu: "
			       "lower it or raise /proc/sys/kernel/perf_event_max_sample_rate "
			       "(--strict-freq)\n", e->name, max,
			       (unsigned long long)e->attr.sample_freq);
			return 255;
		}
	}
	return 0;
}

/* What the sample options need checked together, once all are parsed.
 * 0, or 129 after saying why. */
static int record__check_sample_opts(struct record *rec)
{
	struct record_opts *opts = &rec->opts;

	if (opts->use_clockid && opts->overwrite && opts->clockid != CLOCK_MONOTONIC) {
		pr_err("perf record: --overwrite records with -k monotonic: dumps compare sample "
		       "times with CLOCK_MONOTONIC\n");
		return 129;
	}
	if (opts->freq_max) {
		long max = sysctl__read("perf_event_max_sample_rate", 0);

		if (max <= 0) {
			pr_err("perf record: -F max: cannot read "
			       "/proc/sys/kernel/perf_event_max_sample_rate\n");
			return 129;
		}
		opts->freq = max;
		if (!opts->quiet)
			pr_err("info: Using a maximum frequency rate of %ld Hz\n", max);
	}
	return record__check_strict_freq(rec);
}

static int opt_switch_output(const struct option *opt, const char *arg, int unset)
{
	struct record *rec = opt_record(opt);
	int err;

	if (unset) {
		rec->so.kind = SWITCH_NONE;
		return 0;
	}
	err = switch_output__parse(&rec->so, arg);
	if (err == -ERANGE)
		pr_err("perf record: invalid --switch-output '%s': out of range (a size from 1B, "
		       "a time from 1s to %llud)\n", arg, SWITCH_OUTPUT_MAX_NS / 86400000000000ULL);
	else if (err)
		pr_err("perf record: invalid --switch-output '%s': %s\n", arg, err == -ENOMEM ?
		       strerror(ENOMEM) : "expected signal, a size (e.g. 100M) or a time (e.g. 30s, 5m)");
	return err ? -1 : 0;
}

/* a million files is past any sane rotation; more is a typo, not a wish */
#define SWITCH_MAX_FILES_MAX 1000000

/* --no-switch-max-files: keep all files again */
static int opt_max_files(const struct option *opt, const char *arg, int unset)
{
	u64 n = 0;

	if (!unset && opt_number("--switch-max-files", arg, 1, SWITCH_MAX_FILES_MAX, &n))
		return -1;
	opt_record(opt)->so.max_files = n;
	return 0;
}

/* --history=SIZE[,LEVEL]: the flight recorder, its samples on forward
 * rings drained into a compressed history in user memory */
static int opt_history(const struct option *opt, const char *arg, int unset)
{
	struct record_opts *opts = &opt_record(opt)->opts;
	char *comma = arg ? strchr(arg, ',') : NULL, *size = NULL;
	u64 level = COMPRESS_LEVEL_DEFAULT;
	int err = 0;

	if (unset) {
		opts->history_size = 0;
		return 0;
	}
	size = strndup(arg, comma ? (size_t)(comma - arg) : strlen(arg));
	if (!size)
		err = -ENOMEM;
	else if (parse_size(size, &opts->history_size) || !opts->history_size)
		err = -EINVAL;
	else if (comma && parse_u64_range(comma + 1, COMPRESS_LEVEL_MIN, COMPRESS_LEVEL_MAX, &level))
		err = -ERANGE;
	free(size);
	if (err)
		pr_err("perf record: invalid --history '%s': %s\n", arg, err == -ERANGE ?
		       "the zstd level goes from 1 to 22" : err == -ENOMEM ? strerror(ENOMEM) :
		       "expected SIZE[,LEVEL], e.g. 256M or 256M,3");
	opts->history_level = level;
	return err ? -1 : 0;
}

/* The end of an option taking a duration of 1 ms to 1 d: its refusal
 * said, naming it, when err. -1 then, else 0. */
static int opt_duration_said(const char *name, const char *arg, int err)
{
	if (err)
		pr_err("perf record: invalid %s '%s': %s\n", name, arg,
		       err == -ERANGE ? "out of range (1ms to 1d)" :
		       "expected a time with its unit (e.g. 500ms, 30s, 5m)");
	return err ? -1 : 0;
}

/* --switch-output-delay, --switch-output-max-rate; --no-... undoes them */
static int opt_switch_delay(const struct option *opt, const char *arg, int unset)
{
	struct trigger *t = &opt_record(opt)->trigger;

	if (unset) {
		t->delay_ns = 0;
		return 0;
	}
	return opt_duration_said("--switch-output-delay", arg, trigger__parse_delay(t, arg));
}

static int opt_switch_rate(const struct option *opt, const char *arg, int unset)
{
	struct trigger *t = &opt_record(opt)->trigger;
	int err = 0;

	if (unset)
		t->rate_n = 0;
	else
		err = trigger__parse_rate(t, arg);
	if (err)
		pr_err("perf record: invalid --switch-output-max-rate '%s': %s\n", arg,
		       err == -ENOMEM ? strerror(ENOMEM) : err == -ERANGE ?
		       "out of range (1 to 1000000 per 1ms to 1d)" :
		       "expected N/PERIOD (e.g. 6/1h, 1/30s)");
	return err ? -1 : 0;
}

/* --switch-output-exec=CMD; --no-switch-output-exec drops it */
static int opt_switch_exec(const struct option *opt, const char *arg, int unset)
{
	struct post_dump *pd = &opt_record(opt)->post_dump;

	if (!unset && !*arg) {
		pr_err("perf record: --switch-output-exec: an empty command\n");
		return -1;
	}
	if (post_dump__set(pd, unset ? NULL : arg)) {
		pr_err("perf record: --switch-output-exec: %s\n", strerror(ENOMEM));
		return -1;
	}
	return 0;
}

static int opt_switch_exec_timeout(const struct option *opt, const char *arg, int unset)
{
	struct post_dump *pd = &opt_record(opt)->post_dump;

	if (unset) {
		pd->timeout_ns = POST_DUMP_TIMEOUT_NS;
		return 0;
	}
	return opt_duration_said("--switch-output-exec-timeout", arg,
				 parse_duration(arg, 1000000, POST_DUMP_TIMEOUT_MAX_NS,
						&pd->timeout_ns));
}

/* --switch-output-when=COND, repeatable; --no-switch-output-when drops
 * those given before */
static int opt_switch_when(const struct option *opt, const char *arg, int unset)
{
	struct switch_when *sw = &opt_record(opt)->when;
	char err[512];

	if (unset) {
		trigger_conds__exit(&sw->conds);
		return 0;
	}
	if (trigger_conds__add(&sw->conds, arg, err, sizeof(err))) {
		pr_err("perf record: %s\n", err);
		return -1;
	}
	return 0;
}

static int opt_dump_window(const struct option *opt, const char *arg, int unset)
{
	struct record *rec = opt_record(opt);

	(void)unset;
	if (strcmp(arg, "common") && strcmp(arg, "all")) {
		pr_err("perf record: invalid --dump-window '%s': expected common or all\n", arg);
		return -1;
	}
	rec->dump_opts.keep_all = !strcmp(arg, "all");
	return 0;
}

static int opt_tracking_max(const struct option *opt, const char *arg, int unset)
{
	struct record *rec = opt_record(opt);

	(void)unset;
	if (parse_size(arg, &rec->tracking_max) || rec->tracking_max < 4096) {
		pr_err("perf record: invalid --tracking-max-size '%s': expected a size of at "
		       "least 4K, like 64M, that fits 64 bits\n", arg);
		return -1;
	}
	return 0;
}

static int opt_cgroup(const struct option *opt, const char *arg, int unset)
{
	struct record *rec = opt_record(opt);

	(void)unset;
	if (cgroup__assign(rec->evlist, arg, &rec->opts.nr_cgroups, rec->err, sizeof(rec->err))) {
		pr_err("%s\n", rec->err);
		return -1;
	}
	return 0;
}

/* one "A-B" of -D: A and B after *last, A before B */
static int delay__range(struct record_opts *o, char *tok, u64 *last)
{
	char *dash = strchr(tok, '-');
	u64 on, off;

	if (!dash || o->nr_delay_edges + 2 > DELAY_EDGES_MAX)
		return -EINVAL;
	*dash = '\0';
	if (parse_u64_range(tok, *last, INT32_MAX, &on) ||
	    parse_u64_range(dash + 1, on + 1, INT32_MAX, &off))
		return -EINVAL;
	o->delay_edges[o->nr_delay_edges++] = on;
	o->delay_edges[o->nr_delay_edges++] = off;
	*last = off;
	return 0;
}

int record__parse_delay(struct record_opts *o, const char *arg)
{
	char *copy, *tok, *save = NULL;
	u64 ms, last = 0;
	int err = 0;

	o->nr_delay_edges = 0;
	if (!strcmp(arg, "-1")) {
		o->delay_ms = -1;
		return 0;
	}
	if (!strchr(arg, '-')) {
		if (parse_u64_range(arg, 0, INT32_MAX, &ms))
			return -EINVAL;
		o->delay_ms = ms;
		o->delay_edges[0] = ms;
		o->nr_delay_edges = ms > 0;
		return 0;
	}
	copy = strdup(arg);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save))
		err = delay__range(o, tok, &last);
	free(copy);
	if (!err && !o->nr_delay_edges)
		err = -EINVAL;
	/* from 0 on, the events start enabled as without -D */
	o->delay_ms = err ? 0 : o->delay_edges[0];
	return err;
}

/* -D MSECS, -1 (disabled until --control says enable), or ranges */
static int opt_delay(const struct option *opt, const char *arg, int unset)
{
	(void)unset;
	if (record__parse_delay(&opt_record(opt)->opts, arg)) {
		pr_err("perf record: invalid -D/--delay '%s': expected -1, milliseconds up to %d, "
		       "or increasing ranges like 10-20,30-40\n", arg, INT32_MAX);
		return -1;
	}
	return 0;
}

static int opt_off_cpu_thresh(const struct option *opt, const char *arg, int unset)
{
	struct record_opts *opts = &opt_record(opt)->opts;

	(void)unset;
	if (parse_u64_range(arg, 0, UINT64_MAX / 1000000, &opts->off_cpu_thresh_ms)) {
		pr_err("perf record: invalid --off-cpu-thresh '%s': expected milliseconds\n", arg);
		return -1;
	}
	return 0;
}

/* a size with B/K/M/G, or bytes (0: the default, as in perf) */
static int opt_bytes(const char *name, const char *arg, u64 *out)
{
	if (parse_size(arg, out)) {
		pr_err("perf record: invalid %s '%s': expected a size in bytes, or with "
		       "B/K/M/G like 512K\n", name, arg);
		return -1;
	}
	return 0;
}

/* the cap on what a user's binaries can make root's cache take */
static int opt_buildid_cache_max(const struct option *opt, const char *arg, int unset)
{
	u64 *max = &opt_record(opt)->opts.buildid_cache_max;

	(void)unset;
	if (parse_size(arg, max) || !*max) {
		pr_err("perf record: invalid --buildid-cache-max '%s': expected a size above 0, "
		       "like 2G or 512M (-N: no cache at all)\n", arg);
		return -1;
	}
	return 0;
}

static int opt_max_size(const struct option *opt, const char *arg, int unset)
{
	(void)unset;
	return opt_bytes("--max-size", arg, &opt_record(opt)->opts.max_size);
}

static int opt_mmap_flush(const struct option *opt, const char *arg, int unset)
{
	(void)unset;
	return opt_bytes("--mmap-flush", arg, &opt_record(opt)->opts.mmap_flush);
}

/* -z alone is level 1, as the stock perf 6.1; --no-compression-level
 * turns it off. Where the stock quietly takes 0, 23 or junk as some level,
 * this perf says what it accepts. */
static int opt_comp_level(const struct option *opt, const char *arg, int unset)
{
	u64 level = 0;

	if (!unset && opt_number("-z/--compression-level", arg, COMPRESS_LEVEL_MIN,
				 COMPRESS_LEVEL_MAX, &level))
		return -1;
	opt_record(opt)->opts.comp_level = level;
	return 0;
}
/* Whether the kernel lets rings past perf_event_mlock_kb and
 * RLIMIT_MEMLOCK: CAP_IPC_LOCK (the kernel asks for it in the first user
 * namespace: a container's root has it only in its own), or
 * perf_event_paranoid -1. */
static int rings_unlimited(void)
{
	return (cap_effective(CAP_IPC_LOCK) && user_ns_is_initial()) ||
	       sysctl__read("perf_event_paranoid", 2) < 0;
}

/* the largest ring normal mode picks by itself, a CPU */
#define NORMAL_RING_MAX (4ULL << 20)

/* Normal mode without -m: perf's 512K a CPU fills in 15 ms with 8K
 * stack dumps at 4 kHz, or at a million records a second, whenever the
 * loop waits for its CPU; 4M lost none in bench 4. So 4M where the
 * kernel lets rings past its limit, halved while the rings of every CPU
 * together would take more than 1/256 of the memory, never under
 * perf's 512K. */
static u64 normal_ring_bytes(long page)
{
	u64 ring = 128 * (u64)page, nr_cpus = MAX(sysconf(_SC_NPROCESSORS_ONLN), 1L);
	u64 mem = (u64)MAX(sysconf(_SC_PHYS_PAGES), 0L) * page;

	if (!rings_unlimited())
		return ring;
	while (ring * 2 <= NORMAL_RING_MAX && ring * 2 * nr_cpus <= mem / 256)
		ring *= 2;
	return ring;
}

/* the largest forward ring --history picks by itself */
#define HISTORY_RING_MAX (8ULL << 20)

/* --history without -m: a forward ring must hold what its CPU writes while
 * the loop waits for a CPU under CFS at the highest record rates, which
 * perf's default ring does not (bench 4h). The rings take a quarter of the
 * history's size at most, never less than perf's 512K, and more only where
 * the kernel lets them past perf_event_mlock_kb and RLIMIT_MEMLOCK
 * (CAP_IPC_LOCK, or perf_event_paranoid -1). */
static u64 history_ring_bytes(u64 history_size, long page)
{
	u64 ring = 128 * (u64)page, nr_cpus = MAX(sysconf(_SC_NPROCESSORS_ONLN), 1L);

	if (!rings_unlimited())
		return ring;
	while (ring * 2 <= HISTORY_RING_MAX && ring * 2 * nr_cpus <= history_size / 4)
		ring *= 2;
	return ring;
}

/* the largest forward tracking ring sized by itself, a CPU */
#define TRACKING_RING_MAX (8ULL << 20)

/* Overwrite mode without --history: the forward rings carry only the
 * tracking records (FORK, COMM, MMAP2, EXIT...), and while the loop is
 * kept off a CPU (stopped, starved by a hog or a real-time task) they
 * must hold every one of them, or the newest samples, which the
 * backward rings keep, lose their tasks' names: a ring that fills drops
 * the newest records. A task start takes some 2K of them. So they are
 * never smaller than -m (the samples' rings) nor than 256 pages, and
 * where the kernel does not limit locked memory they take a quarter of
 * --tracking-max-size between them, up to 8M a CPU: on a few CPUs some
 * seconds of a thousand task starts a second. */
static u64 tracking_ring_bytes(u64 sample_ring, u64 tracking_max, long page)
{
	u64 ring = MAX(256 * (u64)page, roundup_pow2(sample_ring));
	u64 nr_cpus = MAX(sysconf(_SC_NPROCESSORS_ONLN), 1L);

	if (!rings_unlimited())
		return 256 * (u64)page;
	while (ring * 2 <= TRACKING_RING_MAX && ring * 2 * nr_cpus <= tracking_max / 4)
		ring *= 2;
	return ring;
}

/* What excludes what: the flight recorder (--history is one) and the
 * options it has no use for, -o - and what a stream cannot do. 0 or 129
 * after saying why. */
static int record__check_modes(struct record *rec)
{
	struct record_opts *opts = &rec->opts;

	if (opts->nr_cgroups && !opts->target.system_wide) {
		pr_err("cgroup monitoring only available in system-wide mode\n");
		return 129;
	}
	if (opts->history_size && opts->overwrite) {
		pr_err("perf record: --history and --overwrite exclude each other: a flight "
		       "recorder keeps its samples in user memory or in backward rings\n");
		return 129;
	}
	/* the history is the flight recorder with forward sample rings */
	if (opts->history_size)
		opts->overwrite = 1;
	if (opts->off_cpu && opts->target.per_thread) {
		pr_err("perf record: --off-cpu and --per-thread exclude each other: off-CPU "
		       "samples come from an event on each CPU\n");
		return 129;
	}
	if (opts->overwrite && (opts->target.per_thread || opts->max_size)) {
		pr_err("perf record: --overwrite and %s exclude each other: the flight recorder "
		       "keeps per-CPU rings and sizes its dumps with -m\n",
		       opts->max_size ? "--max-size" : "--per-thread");
		return 129;
	}
	if (rec->data.pipe && opts->overwrite) {
		pr_err("perf record: --overwrite cannot write to -o -: each dump is a complete "
		       "file, written under a temporary name and renamed into place\n");
		return 129;
	}
	if (rec->data.pipe && (rec->so.kind || rec->switch_event)) {
		pr_err("perf record: %s cannot switch -o -: standard output is one stream, "
		       "not a series of files\n", rec->so.kind ? "--switch-output" :
		       "--switch-output-event");
		return 129;
	}
	return 0;
}

/* The triggers: what --switch-output means when only an event or
 * --control asks for switches, and the options that need one. 0 or 129
 * after saying why. */
static int record__check_triggers(struct record *rec)
{
	int ret;

	/* a trigger event is the signal, as in perf; a control's snapshot
	 * only means a dump for the flight recorder */
	if ((rec->switch_event || (rec->control_spec && rec->opts.overwrite)) && !rec->so.kind)
		rec->so.kind = SWITCH_SIGNAL;
	/* checked once the triggers are known: a normal recording with only
	 * --control has none, and the options would do nothing */
	if (rec->so.max_files && !rec->so.kind) {
		pr_err("perf record: --switch-max-files needs --switch-output\n");
		return 129;
	}
	ret = switch_when__check(&rec->when, &rec->opts, rec->so.kind != SWITCH_NONE);
	if (ret)
		return ret;
	/* a condition that holds asks for a dump, as a SIGUSR2 does */
	if (switch_when__on(&rec->when) && !rec->so.kind)
		rec->so.kind = SWITCH_SIGNAL;
	if (post_dump__on(&rec->post_dump) && !rec->so.kind) {
		pr_err("perf record: --switch-output-exec needs --switch-output\n");
		return 129;
	}
	rec->post_dump.verbose = rec->opts.verbose;
	if ((rec->trigger.delay_ns || rec->trigger.rate_n) && !rec->so.kind) {
		pr_err("perf record: %s needs --switch-output\n", rec->trigger.delay_ns ?
		       "--switch-output-delay" : "--switch-output-max-rate");
		return 129;
	}
	return 0;
}

/* The rings' sizes, and what is read of them when: -m, --history's
 * choice, --mmap-flush, a size trigger's wakeups, -z's room per record. */
static void record__size_rings(struct record *rec)
{
	struct record_opts *opts = &rec->opts;
	long page = sysconf(_SC_PAGESIZE);
	u64 ring = opts->mmap_bytes ? opts->mmap_bytes :
		   opts->history_size ? history_ring_bytes(opts->history_size, page) :
		   opts->overwrite ? 128 * (u64)page : normal_ring_bytes(page);

	if (opts->verbose && !opts->mmap_bytes && !opts->overwrite && !opts->history_size)
		pr_err("perf record: rings of %lluK a CPU%s; -m sets their size\n",
		       (unsigned long long)(ring >> 10), ring > 128 * (u64)page ?
		       ", more than perf's 512K so as to lose nothing: the kernel lets them "
		       "past perf_event_mlock_kb" : ", perf's: the kernel holds them to "
		       "perf_event_mlock_kb");

	/* overwrite: -m sizes the backward sample rings; tracking has its own;
	 * with --history the samples come through the forward rings */
	opts->bwd_mmap_bytes = opts->overwrite ? ring : 0;
	opts->mmap_bytes = opts->overwrite && !opts->history_size ?
			   tracking_ring_bytes(ring, rec->tracking_max, page) : ring;
	rec->keep_tracking = opts->overwrite || rec->so.kind;
	/* the stock reader decompresses each record into the mmap_len it is
	 * told: that of a ring, as the stock writes */
	opts->comp_mmap_len = (opts->overwrite ? opts->bwd_mmap_bytes : opts->mmap_bytes) + page;
	/* as perf: at most a quarter of a ring waits for --mmap-flush */
	opts->mmap_flush = MIN(opts->mmap_flush, opts->mmap_bytes / 4);
	/* a size trigger is only checked when the rings are read: read them
	 * often enough that files come out near the size asked for */
	if (rec->so.kind == SWITCH_SIZE && !opts->overwrite)
		opts->wakeup_bytes = MAX(MIN(opts->mmap_bytes / 2, rec->so.size / 2), (u64)page);
}

/* What every dump is told: its margin, clock, compression, build ids and
 * their cache. 0 or 129 after saying why. */
static int record__setup_dump_opts(struct record *rec)
{
	struct record_opts *opts = &rec->opts;

	rec->dump_opts.margin = DUMP_MARGIN;
	rec->dump_opts.monotonic = opts->overwrite;
	rec->dump_opts.clockid_asked = opts->use_clockid;
	rec->dump_opts.comp_level = opts->comp_level;
	rec->dump_opts.comp_mmap_len = opts->comp_mmap_len;
	rec->dump_opts.buildid = !opts->no_buildid && !rec->data.pipe;
	rec->dump_opts.buildid_all = opts->buildid_all;
	if (rec->dump_opts.buildid && !opts->no_buildid_cache) {
		char *dir = build_id_cache__dir(NULL);

		if (!dir) {
			pr_err("perf record: build-id cache: %s\n", strerror(errno));
			return 129;
		}
		snprintf(rec->dump_opts.buildid_dir, PATH_MAX, "%s", dir);
		free(dir);
	}
	rec->cache_budget.max = opts->buildid_cache_max ? opts->buildid_cache_max :
				DSO_CACHE_BUDGET;
	rec->dump_opts.cache_budget = &rec->cache_budget;
	return 0;
}

/* --threads with what the stock refuses or drops in parallel mode, in
 * its words and with its status: 0, or 255 for -o -. */
static int record__check_threads(struct record *rec)
{
	if (!rec->opts.threads_spec)
		return 0;
	if (rec->data.pipe) {
		pr_err("Parallel trace streaming is not available in pipe mode.\n");
		return 255;
	}
	/* the drain threads give no sample to a trigger: the stock goes on
	 * without the event, and so does this perf */
	if (rec->switch_event) {
		pr_err("WARNING: --switch-output-event option is not available in parallel "
		       "streaming mode.\n");
		rec->switch_event = NULL;
	}
	return 0;
}

/* Checks the option combinations and derives the ring sizes. 0, 129, or
 * the stock's status for a refusal of its own. */
static int record__check_opts(struct record *rec)
{
	int ret = record__check_threads(rec);

	if (!ret)
		ret = record__check_modes(rec);

	if (!ret)
		ret = record__check_triggers(rec);
	if (ret)
		return ret;
	if (rec->opts.comp_level && rec->data.pipe) {
		pr_err("perf record: -z cannot compress -o -: the stock perf reads no compressed "
		       "stream (\"Couldn't decompress data\")\n");
		return 129;
	}
	record__size_rings(rec);
	return record__setup_dump_opts(rec);
}

/* room for every option of perf record, and the terminator */
#define RECORD_OPTIONS_MAX 128

/* perf record's options, gathered from the groups below in the order
 * -h lists them. */
struct option_table {
	struct option opt[RECORD_OPTIONS_MAX];
	int nr;
	int full;	/* an option did not fit: the table is too small */
};

static void option_table__add(struct option_table *t, const struct option *o, size_t n)
{
	if (t->nr + n >= RECORD_OPTIONS_MAX) {
		t->full = 1;
		return;
	}
	memcpy(t->opt + t->nr, o, n * sizeof(*o));
	t->nr += n;
}

/* -e and what shapes its events: filters, groups, user or kernel space. */
static void record__options_events(struct record *rec, struct option_table *t)
{
	struct record_opts *opts = &rec->opts;
	const struct option o[] = {
		OPT_CB_FLAGS('e', "event", rec, "event", "event selector (see 'perf list' names; "
			     "SYS:NAME tracepoints with globs)", opt_event, OPT_MULTI),
		OPT_CB_FLAGS(0, "filter", rec, "filter", "event filter (tracepoints of the "
			     "preceding -e)", opt_event, OPT_MULTI),
		OPT_CB_NOARG("exclude-perf", rec, "don't record events from perf itself "
			     "(tracepoints of the preceding -e)", opt_exclude_perf),
		OPT_BOOL(0, "group", &opts->group, "put the counters into a counter group"),
		OPT_CB_NOARG("all-user", rec, "Configure all used events to run in user space.",
			     opt_all_space),
		OPT_CB_NOARG("all-kernel", rec, "Configure all used events to run in kernel "
			     "space.", opt_all_space),
	};

	option_table__add(t, o, ARRAY_SIZE(o));
}

/* What to watch: CPUs, tasks, a user, cgroups. */
static void record__options_target(struct record *rec, struct option_table *t)
{
	struct record_opts *opts = &rec->opts;
	const struct option o[] = {
		OPT_BOOL('a', "all-cpus", &opts->target.system_wide, "system-wide collection from all CPUs"),
		OPT_STR_NEG('C', "cpu", &opts->target.cpu_list, "cpu", "list of cpus to monitor"),
		OPT_STR_NEG('p', "pid", &opts->target.pid, "pid", "record events on existing process id"),
		OPT_STR_NEG('t', "tid", &opts->target.tid, "tid", "record events on existing thread id"),
		OPT_BOOL(0, "per-thread", &opts->target.per_thread, "use per-thread mmaps"),
		OPT_STR('u', "uid", &opts->target.uid_str, "user", "user to profile"),
		OPT_CB_FLAGS('G', "cgroup", rec, "name", "monitor event in cgroup name only",
			     opt_cgroup, OPT_MULTI),
		OPT_BOOL(0, "all-cgroups", &opts->all_cgroups, "Record cgroup events"),
	};

	option_table__add(t, o, ARRAY_SIZE(o));
}

/* When events start, how often they sample, the rings, the file and
 * what it describes of what exists. */
static void record__options_output(struct record *rec, struct option_table *t)
{
	struct record_opts *opts = &rec->opts;
	const struct option o[] = {
		OPT_CB('D', "delay", rec, "ms", "ms to wait before starting measurement after "
		       "program start (-1: start with events disabled)", opt_delay),
		OPT_BOOL(0, "timestamp-filename", &opts->timestamp_filename,
			 "append timestamp to output filename"),
		OPT_BOOL(0, "timestamp-boundary", &opts->timestamp_boundary,
			 "Record timestamp boundary (time of first/last samples)"),
		OPT_CB(0, "max-size", rec, "size", "Limit the maximum size of the output file",
		       opt_max_size),
		OPT_CB(0, "mmap-flush", rec, "number", "Minimal number of bytes that is extracted "
		       "from mmap data pages (default: 1)", opt_mmap_flush),
		OPT_CB_OPTARG(0, "threads", rec, "spec", "write collected trace data into several "
			      "data files using parallel threads", opt_threads, "", 0),
		OPT_CB_OPTARG('z', "compression-level", rec, "n", "compress records using "
			      "specified level (default: 1 - fastest compression, 22 - greatest "
			      "compression)", opt_comp_level, "1", OPT_NEG),
		OPT_CB('c', "count", rec, "n", "event period to sample", opt_count),
		OPT_CB('F', "freq", rec, "n", "profile at this frequency", opt_freq),
		OPT_CB('m', "mmap-pages", rec, "pages", "number of mmap data pages "
		       "(a power of two) or a size with B/K/M/G", opt_mmap_pages),
		OPT_STR('o', "output", &opts->output, "file", "output file name"),
		OPT_BOOL(0, "tail-synthesize", &opts->tail_synthesize, "synthesize non-sample "
			 "events at the end of output"),
		OPT_CB(0, "synth", rec, "no|all|task|mmap|cgroup", "Fine-tune event synthesis: "
		       "default=all", opt_synth),
	};

	option_table__add(t, o, ARRAY_SIZE(o));
}

/* What each sample and event carries. */
static void record__options_sample(struct record *rec, struct option_table *t)
{
	struct record_opts *opts = &rec->opts;
	const struct option o[] = {
		OPT_BOOL('g', NULL, &opts->callgraph, "enables call-graph recording (--call-graph fp)"),
		OPT_CB(0, "call-graph", rec, "record_mode[,record_size]", "setup and enables "
		       "call-graph recording: fp, dwarf[,SIZE] (default 8192)", opt_call_graph),
		OPT_BOOL(0, "no-inherit", &opts->no_inherit, "child tasks do not inherit counters"),
		OPT_BOOL('i', NULL, &opts->no_inherit, "child tasks do not inherit counters "
			 "(--no-inherit)"),
		OPT_BOOL('d', "data", &opts->sample_address, "Record the sample addresses"),
		OPT_BOOL('P', "period", &opts->period, "Record the sample period"),
		OPT_BOOL('R', "raw-samples", &opts->raw_samples, "collect raw sample records "
			 "from all opened counters"),
		OPT_BOOL(0, "sample-cpu", &opts->sample_cpu, "Record the sample cpu"),
		OPT_BOOL('T', "timestamp", &opts->sample_time, "Record the sample timestamps "
			 "(always on)"),
		OPT_BOOL('n', "no-samples", &opts->no_samples, "don't sample"),
		OPT_BOOL(0, "no-buffering", &opts->no_buffering, "collect data without buffering"),
		OPT_BOOL(0, "no-bpf-event", &opts->no_bpf_event, "do not record bpf events"),
		OPT_BOOL(0, "off-cpu", &opts->off_cpu, "Enable off-cpu analysis"),
		OPT_CB(0, "off-cpu-thresh", rec, "ms", "off-cpu blocks at least this long are "
		       "dumped as they end, shorter ones summed up to the end (default 1)",
		       opt_off_cpu_thresh),
		OPT_BOOL(0, "user-callchains", &opts->user_callchains, "collect user callchains"),
		OPT_BOOL(0, "kernel-callchains", &opts->kernel_callchains,
			 "collect kernel callchains"),
		OPT_BOOL('W', "weight", &opts->sample_weight, "sample by weight (on special "
			 "events only)"),
		OPT_BOOL(0, "phys-data", &opts->sample_phys_addr, "Record the sample physical "
			 "addresses"),
		OPT_BOOL(0, "data-page-size", &opts->sample_data_page_size, "Record the sampled "
			 "data address data page size"),
		OPT_BOOL(0, "code-page-size", &opts->sample_code_page_size, "Record the sampled "
			 "code address (ip) page size"),
		OPT_CB_OPTARG('I', "intr-regs", rec, "any register", "sample selected machine "
			      "registers on interrupt, use '-I?' to list register names",
			      opt_intr_regs, "", OPT_ONCE),
		OPT_CB_OPTARG(0, "user-regs", rec, "any register", "sample selected machine "
			      "registers in user space, use '--user-regs=?' to list register names",
			      opt_user_regs, "", OPT_ONCE),
		OPT_BOOL('s', "stat", &opts->inherit_stat, "per thread counts"),
		OPT_BOOL(0, "running-time", &opts->running_time, "Record running/enabled time of "
			 "read (:S) events"),
		OPT_BOOL(0, "sample-identifier", &opts->sample_identifier, "Record the sample "
			 "identifier"),
		OPT_CB_FLAGS('k', "clockid", rec, "clockid", "clockid to use for events, see "
			     "clock_gettime()", opt_clockid, OPT_ONCE),
		OPT_BOOL(0, "switch-events", &opts->switch_events, "Record context switch events"),
		OPT_BOOL(0, "namespaces", &opts->namespaces, "Record namespaces events"),
	};

	option_table__add(t, o, ARRAY_SIZE(o));
}

/* The recorder itself: its priority, a dry run, build ids. */
static void record__options_session(struct record *rec, struct option_table *t)
{
	struct record_opts *opts = &rec->opts;
	const struct option o[] = {
		OPT_CB('r', "realtime", rec, "n", "collect data with this RT SCHED_FIFO priority",
		       opt_realtime),
		OPT_CB(0, "proc-map-timeout", rec, "n", "per thread proc mmap processing timeout "
		       "in ms (accepted: maps are read whole)", opt_proc_map_timeout),
		OPT_BOOL(0, "dry-run", &opts->dry_run, "Parse options then exit"),
		OPT_BOOL('B', "no-buildid", &opts->no_buildid, "do not collect buildids in "
			 "perf.data"),
		OPT_BOOL('N', "no-buildid-cache", &opts->no_buildid_cache, "do not update the "
			 "buildid cache"),
		OPT_BOOL(0, "buildid-all", &opts->buildid_all, "Record build-id of all DSOs "
			 "regardless of hits"),
		OPT_BOOL(0, "buildid-mmap", &opts->buildid_mmap, "Record build-id in map events"),
		OPT_CB(0, "buildid-cache-max", rec, "size", "the most disk the binaries this "
		       "recording copies into the build-id cache may take (default 2G)",
		       opt_buildid_cache_max),
	};

	option_table__add(t, o, ARRAY_SIZE(o));
}

/* Options for hardware or file layouts this perf does not have: each
 * refused with its reason, the option's value (opt_refuse()). */
static void record__options_refused(struct option_table *t)
{
	const struct option o[] = {
		OPT_CB_FLAGS('b', "branch-any", "-b/--branch-any needs a PMU that samples taken "
			     "branches (LBR, BRBE), which this perf does not support", NULL,
			     "sample any taken branches (not supported)", opt_refuse, OPT_NOARG),
		OPT_CB('j', "branch-filter", "-j/--branch-filter needs a PMU that samples taken "
		       "branches (LBR, BRBE), which this perf does not support", "branch filter "
		       "mask", "branch stack filter modes (not supported)", opt_refuse),
		OPT_CB_OPTARG(0, "aux-sample", "--aux-sample needs an AUX-capable PMU (intel_pt, "
			      "arm_spe...), which this perf does not support", "opts",
			      "sample AUX area (not supported)", opt_refuse, "", 0),
		OPT_CB_OPTARG('S', "snapshot", "-S/--snapshot is AUX area snapshot mode, which needs "
			      "an AUX-capable PMU this perf does not support (--overwrite is its "
			      "flight recorder of samples)", "opts", "AUX area tracing Snapshot Mode "
			      "(not supported)", opt_refuse, "", 0),
		OPT_CB_FLAGS(0, "kcore", "--kcore copies /proc/kcore into a perf.data directory, "
			     "an output layout this perf does not write", NULL,
			     "copy /proc/kcore (not supported)", opt_refuse, OPT_NOARG),
		OPT_CB(0, "affinity", "--affinity moves the trace reading thread between CPUs; "
		       "this perf reads every ring from its one thread where it runs", "node|cpu",
		       "Set affinity mask of trace reading thread (not supported)", opt_refuse),
	};

	option_table__add(t, o, ARRAY_SIZE(o));
}

/* --debuginfod[=URLS]: the stock perf's words when it is built without
 * debuginfod, as this perf is (perf report and perf script fetch debug
 * info, not record). */
static int opt_debuginfod(const struct option *opt, const char *arg, int unset)
{
	(void)opt;
	(void)arg;
	if (!unset)
		pr_err("WARNING: debuginfod support requested, but perf is not built with it\n");
	return 0;
}

/* --aio[=N]: the stock's asynchronous writes of the rings; this perf's
 * loop writes with write(2) at a fifth of the stock's CPU per GB and
 * loses nothing for it: N is checked and changes nothing. */
static int opt_aio(const struct option *opt, const char *arg, int unset)
{
	struct record *rec = opt_record(opt);

	if (unset) {
		rec->opts.aio = 0;
		return 0;
	}
	return opt_number("--aio", *arg ? arg : "1", 0, UINT32_MAX, &rec->opts.aio);
}

static int opt_synth_threads(const struct option *opt, const char *arg, int unset)
{
	(void)unset;
	return opt_number("--num-thread-synthesize", arg, 0, UINT32_MAX,
			  &opt_record(opt)->opts.synth_threads);
}

/* Options of the stock perf that take effect on its build or hardware
 * only: each accepted, and -v says what it does here. */
static void record__options_compat(struct record *rec, struct option_table *t)
{
	struct record_opts *opts = &rec->opts;
	const struct option o[] = {
		OPT_CB_OPTARG(0, "aio", rec, "n", "Use <n> control blocks in asynchronous trace "
			      "writing mode (default: 1, max: 4); writes are synchronous here",
			      opt_aio, "", OPT_NEG),
		OPT_CB_OPTARG(0, "debuginfod", rec, "debuginfod urls", "Enable debuginfod data "
			      "retrieval from DEBUGINFOD_URLS or specified urls (not built in)",
			      opt_debuginfod, "", OPT_NEG),
		OPT_CB(0, "num-thread-synthesize", rec, "n", "number of threads to run for event "
		       "synthesis (one here)", opt_synth_threads),
		OPT_BOOL(0, "strict-freq", &opts->strict_freq, "Fail if the specified frequency "
			 "can't be used"),
		OPT_BOOL(0, "transaction", &opts->transaction, "sample transaction flags (special "
			 "events only)"),
		OPT_STR(0, "clang-path", &opts->clang_path, "clang path", "clang binary to use for "
			"compiling BPF scriptlets (no BPF C event here)"),
		OPT_STR(0, "clang-opt", &opts->clang_opt, "clang options", "options passed to "
			"clang when compiling BPF scriptlets (no BPF C event here)"),
		OPT_STR(0, "vmlinux", &opts->vmlinux, "file", "vmlinux pathname (checked against "
			"the running kernel's build id)"),
	};

	option_table__add(t, o, ARRAY_SIZE(o));
}

/* What the stock's options that change nothing here do, said with -v. */
static void record__say_compat(const struct record_opts *opts)
{
	if (!opts->verbose)
		return;
	if (opts->aio)
		pr_err("perf record: --aio: the rings are written synchronously, which keeps up\n");
	if (opts->synth_threads > 1)
		pr_err("perf record: --num-thread-synthesize: one thread reads /proc\n");
	if (opts->transaction)
		pr_err("perf record: --transaction: no event recorded here has transaction flags "
		       "(special events only)\n");
	if (opts->aux_mmap_bytes)
		pr_err("perf record: -m: no AUX area event: the AUX size is ignored\n");
	if (opts->clang_opt || opts->clang_path)
		pr_err("perf record: %s: no BPF scriptlet to compile: events are not BPF C "
		       "files here\n", opts->clang_opt ? "--clang-opt" : "--clang-path");
}

/* --vmlinux: a file that cannot be read is refused in the stock's words
 * and status (234). This perf names kernel samples from /proc/kallsyms
 * and takes the kernel's build id from /sys/kernel/notes: the image is
 * compared with the running kernel, a warning where it is another's (its
 * symbols would not match the recording). 0 or 234. */
static int record__check_vmlinux(const struct record_opts *opts)
{
	u8 want[BUILD_ID_SIZE], got[BUILD_ID_SIZE];
	char w[2 * BUILD_ID_SIZE + 1], g[2 * BUILD_ID_SIZE + 1];
	int nw, ng;

	if (!opts->vmlinux)
		return 0;
	if (access(opts->vmlinux, R_OK)) {
		pr_err("Invalid file: %s\n", opts->vmlinux);
		return 234;
	}
	nw = build_id__kernel(want);
	ng = build_id__from_path(opts->vmlinux, got);
	if (nw <= 0)
		return 0;	/* nothing to compare with */
	build_id__hex(want, nw, w);
	if (ng <= 0 || ng != nw || memcmp(want, got, nw)) {
		if (opts->quiet)
			return 0;
		if (ng > 0)
			build_id__hex(got, ng, g);
		pr_err("Warning: --vmlinux %s: %s%s, not the running kernel's %s: its symbols "
		       "would not match this recording\n", opts->vmlinux,
		       ng > 0 ? "build id " : "no build id", ng > 0 ? g : "", w);
	} else if (opts->verbose) {
		pr_err("perf record: --vmlinux %s: the running kernel's image (build id %s)\n",
		       opts->vmlinux, w);
	}
	return 0;
}

/* The flight recorder and the triggers of --switch-output, --control. */
static void record__options_flight(struct record *rec, struct option_table *t)
{
	struct record_opts *opts = &rec->opts;
	const struct option o[] = {
		OPT_BOOL(0, "overwrite", &opts->overwrite, "flight recorder: samples in overwriting "
			 "backward rings, dumped on --switch-output triggers and at the end"),
		OPT_CB_FLAGS(0, "history", rec, "size[,level]", "flight recorder: samples drained "
			     "into SIZE of zstd-compressed history in user memory, oldest dropped "
			     "first, dumped as with --overwrite", opt_history, OPT_NEG),
		OPT_CB_OPTARG(0, "switch-output", rec, "signal|size|time", "switch output (dump "
			      "the rings with --overwrite) on SIGUSR2, every SIZE (B/K/M/G) or "
			      "every TIME (s/m/h/d, up to 365d)", opt_switch_output, "signal",
			      OPT_NEG),
		OPT_CB_FLAGS(0, "switch-max-files", rec, "n", "keep only this run's newest N files",
			     opt_max_files, OPT_NEG),
		OPT_BOOL(0, "switch-max-files-earlier", &rec->so.earlier, "--switch-max-files "
			 "counts the files earlier runs of this output left (perf daemon's sessions)"),
		OPT_STR(0, "switch-output-event", &rec->switch_event, "event",
			"switch output when this event occurs"),
		OPT_CB_FLAGS(0, "switch-output-delay", rec, "time", "switch (dump) TIME after a "
			     "signal, control or event trigger (ms/s/m/h/d)", opt_switch_delay, OPT_NEG),
		OPT_CB_FLAGS(0, "switch-output-max-rate", rec, "n/period", "at most N signal, "
			     "control or event triggers per PERIOD (e.g. 6/1h); more are ignored",
			     opt_switch_rate, OPT_NEG),
		OPT_CB_FLAGS(0, "switch-output-when", rec, "cond", "switch (dump) when a BPF "
			     "program sees KIND>DURATION[,comm=NAME][,pid=N][,tid=N][,cgroup=PATH] "
			     "(KIND: offcpu, syscall, runqlat); repeatable, any one fires",
			     opt_switch_when, OPT_MULTI | OPT_NEG),
		OPT_CB_FLAGS(0, "switch-output-exec", rec, "cmd", "run CMD by /bin/sh for each "
			     "file switched to (each dump) once in place, its path as \"$1\" ({} in "
			     "CMD, else appended), one at a time, apart from the recorder",
			     opt_switch_exec, OPT_NEG),
		OPT_CB(0, "switch-output-exec-timeout", rec, "time", "kill a --switch-output-exec "
		       "run (its process group) still running after TIME (default 60s)",
		       opt_switch_exec_timeout),
		OPT_STR(0, "switch-output-state", &rec->state_path, "file", "keep FILE up to date "
			"with the dumps, triggers and --switch-output-exec runs (perf daemon)"),
		OPT_CB(0, "dump-window", rec, "common|all", "common (default): a dump covers only "
		       "the span every CPU's ring still holds; all: keep every record", opt_dump_window),
		OPT_CB(0, "tracking-max-size", rec, "size", "memory cap of the task/map "
		       "tracking log (default 64M)", opt_tracking_max),
		OPT_STR(0, "control", &rec->control_spec, "fifo:ctl[,ack]|fd:ctl[,ack]",
			"commands snapshot, enable, disable, stop from a fifo or fd"),
	};

	option_table__add(t, o, ARRAY_SIZE(o));
}

/* How much perf record says. */
static void record__options_messages(struct record *rec, struct option_table *t)
{
	struct record_opts *opts = &rec->opts;
	const struct option o[] = {
		OPT_BOOL('q', "quiet", &opts->quiet, "don't print any message"),
		OPT_COUNT('v', "verbose", &opts->verbose, "be more verbose"),
	};

	option_table__add(t, o, ARRAY_SIZE(o));
}

/* Once every option is read: the target the options and the workload's
 * argc words make, then what the options mean together. 0, or 129 after
 * saying why. */
static int record__check_args(struct record *rec, int argc)
{
	struct record_opts *opts = &rec->opts;
	const char *warn;
	int ret;

	opts->workload = argc > 0;
	if (!opts->workload && !opts->target.pid && !opts->target.tid && !opts->target.uid_str)
		opts->target.system_wide = 1;
	rec->data.pipe = !strcmp(opts->output, "-");
	warn = target__validate(&opts->target);
	if (warn && !opts->quiet)
		pr_err("Warning:\n%s\n", warn);
	if (opts->target.uid_str && target__parse_uid(&opts->target)) {
		pr_err("perf record: -u/--uid: Invalid User: %s\n", opts->target.uid_str);
		return 129;
	}
	/* -a/-C watch everything, -p/-t/-u their tasks (the workload only says
	 * how long); a workload alone is followed by its pid */
	opts->per_task = opts->workload && !opts->target.system_wide && !opts->target.cpu_list &&
			 !opts->target.pid && !opts->target.tid && !opts->target.uid_str;
	ret = record__check_opts(rec);
	if (!ret)
		ret = record__check_sample_opts(rec);
	if (!ret)
		ret = record__check_vmlinux(opts);
	if (!ret)
		record__say_compat(opts);
	return ret;
}

int record__parse_options(struct record *rec, int *argcp, const char **argv)
{
	struct option_table t = { .nr = 0 };
	int argc;

	record__options_events(rec, &t);
	record__options_target(rec, &t);
	record__options_output(rec, &t);
	record__options_sample(rec, &t);
	record__options_session(rec, &t);
	record__options_refused(&t);
	record__options_compat(rec, &t);
	record__options_flight(rec, &t);
	record__options_messages(rec, &t);
	if (t.full) {
		pr_err("perf record: more than %d options: RECORD_OPTIONS_MAX is too small\n",
		       RECORD_OPTIONS_MAX - 1);
		return 129;
	}
	t.opt[t.nr] = (struct option)OPT_TERMINATOR;
	argc = parse_options(*argcp, argv, t.opt, record_usage);
	if (argc < 0)
		return argc == PARSE_OPT_HELP ? -1 : 129;
	*argcp = argc;
	return record__check_args(rec, argc);
}
