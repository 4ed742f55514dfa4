/* perf record --off-cpu: bpf/offcpu.bpf.c loaded for the target, and what
 * it emits rewritten as offcpu-time samples (bpf/off-cpu.h). */
#include "bpf/off-cpu.h"
#include "bpf/loader.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
#include "bpf/offcpu-data.h"
#include "offcpu.skel.h"

struct off_cpu {
	struct offcpu *skel;
};

static const char *const off_cpu_hooks[] = { "tp_btf/sched_switch", "tp_btf/task_newtask",
					     NULL };

/* the sample_id fields the rewrite carries over, the only ones it knows */
#define OFF_CPU_ID_FIELDS (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			   PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | \
			   PERF_SAMPLE_CPU)

int off_cpu__check(char *err, size_t errsz)
{
	return bpf_loader__check(OFF_CPU_OPTION, off_cpu_hooks, err, errsz);
}

/* The filter's maps filled from o. 0 or -errno. */
static int off_cpu__fill(struct offcpu *skel, const struct off_cpu_opts *o)
{
	int err = bpf_loader__fill_tasks(skel->maps.tgids, skel->maps.tids, &o->tasks);

	if (!err)
		err = bpf_loader__fill_set(skel->maps.cpus, o->cpus, sizeof(*o->cpus), o->nr_cpus);
	if (!err)
		err = bpf_loader__fill_set(skel->maps.cgroups, o->cgroups, sizeof(*o->cgroups),
					   o->nr_cgroups);
	return err;
}

struct off_cpu *off_cpu__load(const struct off_cpu_opts *o, char *err, size_t errsz)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .btf_custom_path = bpf_loader__btf_custom_path());
	struct off_cpu *oc = calloc(1, sizeof(*oc));
	int ret = -ENOMEM;

	if (!oc)
		goto fail;
	oc->skel = offcpu__open_opts(&opts);
	if (!oc->skel) {
		ret = -errno;
		goto fail;
	}
	oc->skel->rodata->thresh_ns = o->thresh_ns;
	oc->skel->rodata->filter_tasks = o->tasks.nr_pids || o->tasks.nr_tids;
	oc->skel->rodata->follow_forks = o->tasks.follow;
	oc->skel->rodata->filter_uid = o->filter_uid;
	oc->skel->rodata->uid = o->uid;
	oc->skel->rodata->filter_cgroups = o->nr_cgroups > 0;
	oc->skel->rodata->filter_cpus = o->nr_cpus > 0;
	ret = libbpf_num_possible_cpus();
	if (ret > 0)
		ret = bpf_map__set_max_entries(oc->skel->maps.events, ret);
	if (!ret)
		ret = offcpu__load(oc->skel);
	if (!ret)
		ret = off_cpu__fill(oc->skel, o);
	if (!ret)
		return oc;
fail:
	snprintf(err, errsz, "%s: cannot load BPF: %s%s", OFF_CPU_OPTION, strerror(-ret),
		 ret == -ENOMEM ? "" : " (-v says more)");
	off_cpu__delete(oc);
	return NULL;
}

int off_cpu__set_event(struct off_cpu *oc, int cpu, int fd)
{
	return bpf_loader__cpu_event(oc->skel->maps.events, cpu, fd);
}

int off_cpu__attach(struct off_cpu *oc, char *err, size_t errsz)
{
	int ret = offcpu__attach(oc->skel);

	if (ret)
		snprintf(err, errsz, "%s: cannot attach BPF: %s", OFF_CPU_OPTION, strerror(-ret));
	return ret;
}

void off_cpu__list(const struct off_cpu *oc)
{
	bpf_loader__list(oc->skel->obj, OFF_CPU_OPTION);
}

void off_cpu__delete(struct off_cpu *oc)
{
	if (!oc)
		return;
	offcpu__destroy(oc->skel);
	free(oc);
}

u64 off_cpu__event_type(u64 id_type)
{
	return (id_type & OFF_CPU_ID_FIELDS) | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
}

u64 off_cpu__sample_type(u64 id_type)
{
	return (id_type & OFF_CPU_ID_FIELDS) | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
	       PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
}

/* The next u64 of a record being read; 0 past its end (*bad set). */
static u64 take64(const char **p, const char *end, int *bad)
{
	u64 v = 0;

	if (end - *p < 8) {
		*bad = 1;
		return 0;
	}
	memcpy(&v, *p, 8);
	*p += 8;
	return v;
}

/* The raw data: a whole struct offcpu_data head and its frames. */
static int off_cpu__parse_raw(const char *raw, u32 len, struct off_cpu_sample *s)
{
	struct offcpu_data d;

	if (len < OFFCPU_DATA_HEAD)
		return -EINVAL;
	memcpy(&d, raw, OFFCPU_DATA_HEAD);
	if (d.kernel_nr > OFFCPU_MAX_STACK || d.user_nr > OFFCPU_MAX_STACK ||
	    OFFCPU_DATA_HEAD + (d.kernel_nr + d.user_nr) * 8ULL > len)
		return -EINVAL;
	s->pid = d.pid;
	s->tid = d.tid;
	s->period = d.duration;
	s->cpu = d.cpu;
	s->kernel_nr = d.kernel_nr;
	s->user_nr = d.user_nr;
	s->ips = raw + OFFCPU_DATA_HEAD;
	return 0;
}

int off_cpu__parse(u64 in_type, const struct perf_event_header *in, size_t size,
		   struct off_cpu_sample *s)
{
	const char *p = (const char *)(in + 1), *end = (const char *)in + size;
	int bad = 0;
	u64 emitted = 0, v;
	u32 len;

	if (in->type != PERF_RECORD_SAMPLE || size < sizeof(*in) || in->size > size ||
	    (in_type & ~(OFF_CPU_ID_FIELDS | PERF_SAMPLE_RAW)) || !(in_type & PERF_SAMPLE_RAW))
		return -EINVAL;
	end = (const char *)in + in->size;
	memset(s, 0, sizeof(*s));
	if (in_type & PERF_SAMPLE_IDENTIFIER)
		s->id = take64(&p, end, &bad);
	if (in_type & PERF_SAMPLE_IP)
		take64(&p, end, &bad);
	if (in_type & PERF_SAMPLE_TID)
		take64(&p, end, &bad);
	if (in_type & PERF_SAMPLE_TIME)
		emitted = take64(&p, end, &bad);
	if (in_type & PERF_SAMPLE_ID)
		s->id = take64(&p, end, &bad);
	if (in_type & PERF_SAMPLE_STREAM_ID)
		take64(&p, end, &bad);
	if (in_type & PERF_SAMPLE_CPU)
		take64(&p, end, &bad);
	if (bad || end - p < 4)
		return -EINVAL;
	memcpy(&len, p, 4);
	if (len > (u64)(end - p - 4) || off_cpu__parse_raw(p + 4, len, s))
		return -EINVAL;
	v = s->period;
	s->time = emitted > v ? emitted - v : 0;
	return 0;
}

/* The callchain: the kernel's frames under PERF_CONTEXT_KERNEL, the
 * user's under PERF_CONTEXT_USER. Past the end of out: the u64s written. */
static u64 *off_cpu__callchain(const struct off_cpu_sample *s, u64 *out)
{
	const char *ips = s->ips;
	u64 *nr = out++;

	if (s->kernel_nr)
		*out++ = PERF_CONTEXT_KERNEL;
	memcpy(out, ips, s->kernel_nr * 8);
	out += s->kernel_nr;
	if (s->user_nr)
		*out++ = PERF_CONTEXT_USER;
	memcpy(out, ips + s->kernel_nr * 8, s->user_nr * 8);
	out += s->user_nr;
	*nr = out - nr - 1;
	return out;
}

ssize_t off_cpu__build(u64 out_type, const struct off_cpu_sample *s, void *out, size_t cap)
{
	struct perf_event_header *h = out;
	u64 *p = (u64 *)(h + 1), ip = 0;
	size_t need = sizeof(*h) + 10 * 8 + (s->kernel_nr + s->user_nr + 2) * 8;

	if (need > cap || need > 0xffff)
		return -ENOSPC;
	if (s->kernel_nr || s->user_nr)
		memcpy(&ip, s->ips, 8);
	if (out_type & PERF_SAMPLE_IDENTIFIER)
		*p++ = s->id;
	if (out_type & PERF_SAMPLE_IP)
		*p++ = ip;
	if (out_type & PERF_SAMPLE_TID)
		*p++ = (u64)s->tid << 32 | s->pid;
	if (out_type & PERF_SAMPLE_TIME)
		*p++ = s->time;
	if (out_type & PERF_SAMPLE_ID)
		*p++ = s->id;
	if (out_type & PERF_SAMPLE_STREAM_ID)
		*p++ = s->id;
	if (out_type & PERF_SAMPLE_CPU)
		*p++ = s->cpu;
	if (out_type & PERF_SAMPLE_PERIOD)
		*p++ = s->period;
	if (out_type & PERF_SAMPLE_CALLCHAIN)
		p = off_cpu__callchain(s, p);
	h->type = PERF_RECORD_SAMPLE;
	h->misc = s->kernel_nr ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	h->size = (char *)p - (char *)out;
	return h->size;
}

ssize_t off_cpu__rewrite(u64 in_type, u64 out_type, const struct perf_event_header *in,
			 void *out, size_t cap)
{
	struct off_cpu_sample s;
	int err = off_cpu__parse(in_type, in, in->size, &s);

	return err ? err : off_cpu__build(out_type, &s, out, cap);
}

int off_cpu__drain_sums(struct off_cpu *oc, u64 id, u64 time,
			int (*emit)(const struct off_cpu_sample *s, void *arg), void *arg)
{
	int fd = bpf_map__fd(oc->skel->maps.sums), n = 0, err = 0;
	char key[16], next[16];
	struct offcpu_data d;
	void *prev = NULL;

	while (!err && !bpf_map_get_next_key(fd, prev, next)) {
		struct off_cpu_sample s;

		memcpy(key, next, sizeof(key));
		prev = key;
		if (bpf_map_lookup_elem(fd, key, &d) ||
		    off_cpu__parse_raw((const char *)&d, sizeof(d), &s))
			continue;
		s.id = id;
		s.time = time;
		err = emit(&s, arg);
		n++;
	}
	return err ? err : n;
}
