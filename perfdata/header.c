/* The perf.data feature sections: each feature's body, in bit order after
 * the data, some made ahead of the file; and as records for a stream. */
#include "perfdata/header.h"
#include "perfdata/header-internal.h"
#include "util/cpumap.h"
#include "buildid/dso-hits.h"
#include "util/evlist.h"
#include "util/tp.h"

#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define NAME_ALIGN 64

void header__put_string(struct buf *b, const char *s)
{
	u32 len = strlen(s) + 1, padded = ALIGN_UP(len, NAME_ALIGN);

	buf__u32(b, padded);
	buf__add(b, s, len);
	buf__zero(b, padded - len);
}

/* The value of "key : value" in /proc/cpuinfo's first block, or "". */
static void cpuinfo_field(const char *cpuinfo, const char *key, char *out, size_t sz)
{
	size_t klen = strlen(key);

	out[0] = '\0';
	for (const char *line = cpuinfo; line && *line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (!strncmp(line, key, klen) && (line[klen] == ' ' || line[klen] == '\t' ||
						   line[klen] == ':')) {
			const char *v = strchr(line, ':');
			size_t n;

			if (!v)
				return;
			v++;
			while (*v == ' ')
				v++;
			n = strcspn(v, "\n");
			snprintf(out, sz, "%.*s", (int)MIN(n, sz - 1), v);
			return;
		}
	}
}

static void feat_cpu(struct buf *b, int feat)
{
	char *ci = read_file("/proc/cpuinfo", NULL);
	char v[256] = "", fam[32] = "", model[32] = "", step[32] = "", out[512];

	if (feat == HEADER_CPUDESC) {
		cpuinfo_field(ci, "model name", v, sizeof(v));
		/* perf squeezes repeated blanks */
		for (char *p = v; *p; p++)
			while (*p == ' ' && p[1] == ' ')
				memmove(p, p + 1, strlen(p));
		header__put_string(b, *v ? v : "unknown");
	} else {
		cpuinfo_field(ci, "vendor_id", v, sizeof(v));
		cpuinfo_field(ci, "cpu family", fam, sizeof(fam));
		cpuinfo_field(ci, "model", model, sizeof(model));
		cpuinfo_field(ci, "stepping", step, sizeof(step));
		snprintf(out, sizeof(out), "%s,%s,%s,%s", *v ? v : "unknown", fam, model, step);
		header__put_string(b, out);
	}
	free(ci);
}

static void feat_total_mem(struct buf *b)
{
	buf__u64(b, meminfo_kb("MemTotal"));
}

static void feat_nrcpus(struct buf *b)
{
	struct cpu_map *online = cpu_map__new(NULL);

	buf__u32(b, cpu__max_present());
	buf__u32(b, online ? online->nr : 1);
	cpu_map__put(online);
}

static void feat_cmdline(struct buf *b, const struct header_info *info)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = '\0';
	buf__u32(b, info->argc);
	for (int i = 0; i < info->argc; i++)
		header__put_string(b, i == 0 && n > 0 ? exe : info->argv[i]);
}

/* Version 1: the sample clock and the time of day read at one moment,
 * which is all a reader needs to turn sample times into wall-clock times
 * (perf script -F tod). Any moment will do: now. */
static void feat_clock_data(struct buf *b, int clockid)
{
	struct timespec tod, clk = { 0, 0 };

	clock_gettime(CLOCK_REALTIME, &tod);
	clock_gettime(clockid, &clk);
	buf__u32(b, 1);
	buf__u32(b, clockid);
	buf__u64(b, (u64)tod.tv_sec * 1000000000ULL + tod.tv_nsec);
	buf__u64(b, (u64)clk.tv_sec * 1000000000ULL + clk.tv_nsec);
}

static void feat_event_desc(struct buf *b, const struct evlist *evlist)
{
	buf__u32(b, evlist->nr_entries);
	buf__u32(b, sizeof(struct perf_event_attr));
	for (int i = 0; i < evlist->nr_entries; i++) {
		const struct evsel *e = evlist->entries[i];
		u64 nids = evsel__nr_ids(e);
		struct perf_event_attr a = evsel__file_attr(e);

		buf__add(b, &a, sizeof(a));
		buf__u32(b, nids);
		header__put_string(b, e->name);
		evsel__put_ids(e, b);
	}
}

/* The groups of more than one event: name ("{anon_group}" when it has
 * none, as perf writes it), leader's index, size. */
static void feat_group_desc(struct buf *b, const struct evlist *evlist)
{
	buf__u32(b, evlist__nr_groups(evlist));
	for (int i = 0; i < evlist->nr_entries; i++) {
		const struct evsel *e = evlist->entries[i];

		if (!evsel__is_leader(e) || e->nr_members < 2)
			continue;
		header__put_string(b, e->group_name ? e->group_name : "{anon_group}");
		buf__u32(b, e->idx);
		buf__u32(b, e->nr_members);
	}
}

static int feat_tracing_data(struct buf *b, const struct evlist *evlist)
{
	const char **names = calloc(evlist->nr_entries + 1, sizeof(char *));
	char (*storage)[256] = calloc(evlist->nr_entries + 1, 256);
	int n = 0, err;

	if (!names || !storage) {
		err = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < evlist->nr_entries; i++) {
		const struct evsel *e = evlist->entries[i];

		if (e->attr.type != PERF_TYPE_TRACEPOINT || !e->tp_sys)
			continue;
		snprintf(storage[n], 256, "%s:%s", e->tp_sys, e->tp_name);
		names[n] = storage[n];
		n++;
	}
	err = tp__tracing_data(b, names, n);
out:
	free(names);
	free(storage);
	return err;
}

/* The features describing the machine that sysfs gives (header-*.c):
 * what sysfs does not tell (a kernel without NUMA, no "cpu" PMU) is left
 * out rather than failing the file, as the stock perf does. */
static int (*const sysfs_feature[HEADER_FEAT_AHEAD])(struct buf *b) = {
	[HEADER_CPU_TOPOLOGY] = header__cpu_topology,
	[HEADER_NUMA_TOPOLOGY] = header__numa_topology,
	[HEADER_PMU_MAPPINGS] = header__pmu_mappings,
	[HEADER_CACHE] = header__cache,
	[HEADER_MEM_TOPOLOGY] = header__mem_topology,
	[HEADER_CPU_PMU_CAPS] = header__cpu_pmu_caps,
	[HEADER_PMU_CAPS] = header__pmu_caps,
};

static int feature__from_sysfs(int feat)
{
	return feat >= 0 && feat < HEADER_FEAT_AHEAD && sysfs_feature[feat];
}

/* Appends feature feat's body to body. 0 or -errno. */
static int feature__body(struct buf *body, int feat, const struct header_info *info,
			 const struct utsname *uts)
{
	int err = 0;

	switch (feat) {
	case HEADER_TRACING_DATA: err = feat_tracing_data(body, info->evlist); break;
	case HEADER_BUILD_ID: err = dso_hits__write_feature(info->hits, body); break;
	case HEADER_HOSTNAME: header__put_string(body, uts->nodename); break;
	case HEADER_OSRELEASE: header__put_string(body, uts->release); break;
	case HEADER_VERSION: header__put_string(body, PERF_VERSION); break;
	case HEADER_ARCH: header__put_string(body, uts->machine); break;
	case HEADER_NRCPUS: feat_nrcpus(body); break;
	case HEADER_CPUDESC:
	case HEADER_CPUID: feat_cpu(body, feat); break;
	case HEADER_TOTAL_MEM: feat_total_mem(body); break;
	case HEADER_CMDLINE: feat_cmdline(body, info); break;
	case HEADER_EVENT_DESC: feat_event_desc(body, info->evlist); break;
	case HEADER_GROUP_DESC: feat_group_desc(body, info->evlist); break;
	case HEADER_CLOCKID: {
		struct timespec res = { 0, 1 };

		clock_getres(info->evlist->entries[0]->attr.clockid, &res);
		buf__u64(body, (u64)res.tv_sec * 1000000000ULL + res.tv_nsec);
		break;
	}
	case HEADER_COMPRESSED:	/* u32 version, type, level, ratio, mmap_len */
		/* the stock perf writes version 0, and readers such as
		 * hotspot's perfparser refuse the file with any other */
		buf__u32(body, 0);
		buf__u32(body, 1 /* zstd */);
		buf__u32(body, info->comp_level);
		buf__u32(body, info->comp_ratio);
		buf__u32(body, info->comp_mmap_len);
		break;
	case HEADER_BPF_PROG_INFO:
		buf__add(body, info->bpf_prog_info->p, info->bpf_prog_info->len);
		break;
	case HEADER_BPF_BTF: buf__add(body, info->bpf_btf->p, info->bpf_btf->len); break;
	case HEADER_CLOCK_DATA:
		feat_clock_data(body, info->evlist->entries[0]->attr.clockid);
		break;
	case HEADER_DIR_FORMAT: buf__u64(body, 1 /* the stock's version */); break;
	case HEADER_SAMPLE_TIME:
		buf__u64(body, info->first_sample_time);
		buf__u64(body, info->last_sample_time);
		break;
	default:
		if (feature__from_sysfs(feat))
			err = sysfs_feature[feat](body);
		break;
	}
	return err ? err : body->err;
}

/* The features made ahead: the costly ones that describe the machine,
 * which depend on neither the samples nor the events' ids (the twins'
 * change as they are opened anew), most of their cost reading sysfs,
 * kept off a dump's way. Not TRACING_DATA: it carries the kernel's saved_cmdlines, which
 * change as tasks come and go. */
static int feature__made_ahead(int feat)
{
	switch (feat) {
	case HEADER_NRCPUS: case HEADER_CPUDESC: case HEADER_CPUID: case HEADER_TOTAL_MEM:
		return 1;
	}
	return feature__from_sysfs(feat);
}

int header_ahead__make(struct header_ahead *a, const struct header_info *info)
{
	struct utsname uts;

	uname(&uts);
	memset(a->tried, 0, sizeof(a->tried));
	memset(a->made, 0, sizeof(a->made));
	for (int f = 0; f < HEADER_FEAT_AHEAD; f++) {
		int err;

		if (!feature__made_ahead(f))
			continue;
		a->body[f].len = 0;
		err = feature__body(&a->body[f], f, info, &uts);
		if (err == -ENOMEM || a->body[f].err) {
			a->body[f].err = 0;
			memset(a->tried, 0, sizeof(a->tried));
			return -ENOMEM;
		}
		/* a failure the dump would not leave out is the dump's to meet */
		if (err && !feature__from_sysfs(f))
			continue;
		feature__set(a->tried, f);
		if (!err)
			feature__set(a->made, f);
	}
	return 0;
}

void header_ahead__release(struct header_ahead *a)
{
	for (int f = 0; f < HEADER_FEAT_AHEAD; f++)
		buf__release(&a->body[f]);
	memset(a, 0, sizeof(*a));
}

/* Whether a file of info has feature feat. */
static bool feature__in_file(int feat, const struct header_info *info)
{
	const struct evlist *evlist = info->evlist;

	switch (feat) {
	case HEADER_TRACING_DATA: return evlist && evlist__has_tracepoints(evlist);
	case HEADER_BUILD_ID: return info->hits != NULL;
	case HEADER_HOSTNAME: case HEADER_OSRELEASE: case HEADER_VERSION:
	case HEADER_ARCH: case HEADER_NRCPUS: case HEADER_CPUDESC: case HEADER_CPUID:
	case HEADER_TOTAL_MEM:
		return true;
	case HEADER_CMDLINE: return info->argc;
	case HEADER_EVENT_DESC: return evlist != NULL;
	case HEADER_GROUP_DESC: return evlist && evlist__nr_groups(evlist);
	case HEADER_SAMPLE_TIME: return info->last_sample_time;
	case HEADER_CLOCKID:
		if (info->clock_implied)
			return false;
		/* fall through */
	case HEADER_CLOCK_DATA:
		return evlist && evlist->nr_entries && evlist->entries[0]->attr.use_clockid;
	case HEADER_BPF_PROG_INFO:
	case HEADER_BPF_BTF:
		return info->bpf_prog_info && info->bpf_btf;
	case HEADER_COMPRESSED: return info->comp_level;
	case HEADER_DIR_FORMAT: return info->dir_format;
	}
	return feature__from_sysfs(feat);
}

/* The features a file of info has, in bit order, the sections' order. */
static int header__list_features(int feats[HEADER_FEAT_AHEAD], const struct header_info *info)
{
	int nfeat = 0;

	for (int f = 0; f < HEADER_FEAT_AHEAD; f++)
		if (feature__in_file(f, info))
			feats[nfeat++] = f;
	return nfeat;
}

/* The bodies of the nfeat features in feats[], one after the other in
 * body, each one's place in body in secs[]. A machine feature sysfs
 * cannot give is left out: feats[] and secs[] then hold only those made.
 * Returns how many, or -errno. */
static int header__make_bodies(struct buf *body, int *feats, int nfeat,
			       struct perf_file_section *secs, const struct header_info *info)
{
	const struct header_ahead *a = info->ahead;
	struct utsname uts;
	int nsec = 0, err = 0;

	uname(&uts);
	for (int i = 0; i < nfeat && !err; i++) {
		size_t at = body->len;

		if (a && feature__isset(a->tried, feats[i])) {
			/* made ahead; left out then if the machine could not give it */
			if (!feature__isset(a->made, feats[i]))
				continue;
			buf__add(body, a->body[feats[i]].p, a->body[feats[i]].len);
		} else {
			err = feature__body(body, feats[i], info, &uts);
		}
		if (body->err)
			err = body->err;
		if (err && err != -ENOMEM && feature__from_sysfs(feats[i])) {
			body->len = at;
			err = 0;
			continue;
		}
		secs[nsec].offset = at;
		secs[nsec].size = body->len - at;
		feats[nsec++] = feats[i];
	}
	return err ? err : nsec;
}

int header__build_features(struct buf *out, u64 base, u64 features[4],
			   const struct header_info *info)
{
	int feats[HEADER_FEAT_AHEAD], nfeat = header__list_features(feats, info), nsec;
	struct perf_file_section secs[HEADER_FEAT_AHEAD];
	struct buf body = { 0 };

	/* the bodies first, since a machine feature sysfs cannot give is left
	 * out; then the table of {offset,size}, then the bodies */
	nsec = header__make_bodies(&body, feats, nfeat, secs, info);
	if (nsec < 0) {
		buf__release(&body);
		return nsec;
	}
	for (int i = 0; i < nsec; i++) {
		secs[i].offset += base + out->len + nsec * sizeof(*secs);
		feature__set(features, feats[i]);
	}
	buf__add(out, secs, nsec * sizeof(*secs));
	buf__add(out, body.p, body.len);
	buf__release(&body);
	return out->err;
}

/* A record's size is 16 bits: the biggest body a FEATURE record carries. */
#define PIPE_FEATURE_MAX (0xffff - 2 * sizeof(u64))

static void pipe_feature(struct buf *out, int feat, const void *body, u64 size)
{
	struct perf_event_header h = {
		.type = PERF_RECORD_HEADER_FEATURE, .size = 2 * sizeof(u64) + size,
	};

	buf__add(out, &h, sizeof(h));
	buf__u64(out, feat);
	buf__add(out, body, size);
}

int header__build_pipe_features(struct buf *out, const struct header_info *info, int *dropped)
{
	/* the TRACING_DATA record: its size field says how much follows it */
	struct perf_event_header th = { .type = PERF_RECORD_HEADER_TRACING_DATA, .size = 16 };
	struct perf_file_section sec, tracing = { 0, 0 };
	struct buf file = { 0 };
	u64 bits[4] = { 0 };
	int n = 0, err = header__build_features(&file, 0, bits, info);

	*dropped = 0;
	for (int f = 0; !err && f < HEADER_FEAT_BITS; f++) {
		if (!feature__isset(bits, f))
			continue;
		/* the table holds one section per bit, in bit order */
		memcpy(&sec, file.p + n++ * sizeof(sec), sizeof(sec));
		if (f == HEADER_TRACING_DATA)
			tracing = sec;
		else if (f == HEADER_CACHE && sec.size == 2 * sizeof(u32))
			continue;	/* no caches: perf 6.1's stream has no CACHE then */
		else if (sec.size > PIPE_FEATURE_MAX)
			(*dropped)++;
		else
			pipe_feature(out, f, file.p + sec.offset, sec.size);
	}
	if (!err && ALIGN_UP(tracing.size, sizeof(u64)) > UINT32_MAX)
		err = -E2BIG;	/* the record's size field is 32 bits */
	if (!err) {
		pipe_feature(out, HEADER_LAST_FEATURE, NULL, 0);
		if (tracing.size) {
			u64 padded = ALIGN_UP(tracing.size, sizeof(u64));

			buf__add(out, &th, sizeof(th));
			buf__u32(out, padded);
			buf__u32(out, 0);
			buf__add(out, file.p + tracing.offset, tracing.size);
			buf__zero(out, padded - tracing.size);
		}
	}
	buf__release(&file);
	return err ? err : out->err;
}

#define FEATURE_NAME(f) [HEADER_##f] = #f
static const char *const feature_names[HEADER_LAST_FEATURE] = {
	FEATURE_NAME(TRACING_DATA), FEATURE_NAME(BUILD_ID), FEATURE_NAME(HOSTNAME),
	FEATURE_NAME(OSRELEASE), FEATURE_NAME(VERSION), FEATURE_NAME(ARCH),
	FEATURE_NAME(NRCPUS), FEATURE_NAME(CPUDESC), FEATURE_NAME(CPUID),
	FEATURE_NAME(TOTAL_MEM), FEATURE_NAME(CMDLINE), FEATURE_NAME(EVENT_DESC),
	FEATURE_NAME(CPU_TOPOLOGY), FEATURE_NAME(NUMA_TOPOLOGY), FEATURE_NAME(BRANCH_STACK),
	FEATURE_NAME(PMU_MAPPINGS), FEATURE_NAME(GROUP_DESC), FEATURE_NAME(AUXTRACE),
	FEATURE_NAME(STAT), FEATURE_NAME(CACHE), FEATURE_NAME(SAMPLE_TIME),
	FEATURE_NAME(MEM_TOPOLOGY), FEATURE_NAME(CLOCKID), FEATURE_NAME(DIR_FORMAT),
	FEATURE_NAME(BPF_PROG_INFO), FEATURE_NAME(BPF_BTF), FEATURE_NAME(COMPRESSED),
	FEATURE_NAME(CPU_PMU_CAPS), FEATURE_NAME(CLOCK_DATA), FEATURE_NAME(HYBRID_TOPOLOGY),
	FEATURE_NAME(PMU_CAPS),
};

const char *feature__name(int f)
{
	return f > 0 && f < HEADER_LAST_FEATURE ? feature_names[f] : NULL;
}
