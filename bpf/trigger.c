/* Loads --switch-output-when's programs (bpf/trigger.bpf.c): only those of
 * the kinds in use, with the conditions and the bpf-output events in their
 * maps; unloaded with the recorder's fds. */
#include "bpf/trigger.h"
#include "bpf/loader.h"
#include "bpf/trigger-cond.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* the skeleton's own names (struct trigger, trigger__open()) stay in this
 * file: it is the only one that includes it, and bpf/ sees no flight/ */
#include "trigger.skel.h"

#define TRIGGER_NR_PROGS 5	/* and trigger_newtask, for the own tasks */

struct trigger_bpf {
	struct trigger *skel;
	struct bpf_link *links[TRIGGER_NR_PROGS];
	struct bpf_link *newtask;
};

/* The programs, with the kinds (bits) that need each. */
static void trigger_bpf__progs(struct trigger *skel, struct bpf_program **progs,
			       unsigned int *need)
{
	const unsigned int offcpu = 1U << TRIGGER_OFFCPU, runq = 1U << TRIGGER_RUNQLAT;
	const unsigned int sys = 1U << TRIGGER_SYSCALL;

	progs[0] = skel->progs.trigger_switch, need[0] = offcpu | runq;
	progs[1] = skel->progs.trigger_wakeup, need[1] = runq;
	progs[2] = skel->progs.trigger_wakeup_new, need[2] = runq;
	progs[3] = skel->progs.trigger_sys_enter, need[3] = sys;
	progs[4] = skel->progs.trigger_sys_exit, need[4] = sys;
}

int trigger_bpf__check(const struct trigger_conds *c, char *err, size_t errsz)
{
	const char *hooks[TRIGGER_NR_PROGS + 2];
	int n = 0;

	if (c->kinds & (1U << TRIGGER_OFFCPU | 1U << TRIGGER_RUNQLAT))
		hooks[n++] = "tp_btf/sched_switch";
	if (c->kinds & (1U << TRIGGER_RUNQLAT)) {
		hooks[n++] = "tp_btf/sched_wakeup";
		hooks[n++] = "tp_btf/sched_wakeup_new";
	}
	if (c->kinds & (1U << TRIGGER_SYSCALL)) {
		hooks[n++] = "tp_btf/sys_enter";
		hooks[n++] = "tp_btf/sys_exit";
	}
	if (trigger_conds__own_tasks(c))
		hooks[n++] = "tp_btf/task_newtask";
	hooks[n] = NULL;
	return bpf_loader__check(TRIGGER_BPF_WHO, hooks, err, errsz);
}

/* The conditions and the events into the maps of the loaded object. */
static int trigger_bpf__fill(struct trigger *skel, const struct trigger_conds *c,
			     const struct bpf_tasks *tk, const int *cpus, const int *fds,
			     int nr, char *err, size_t errsz)
{
	int ret = tk ? bpf_loader__fill_tasks(skel->maps.tgids, skel->maps.tids, tk) : 0;

	if (ret) {
		snprintf(err, errsz, "%s: the tasks' map: %s", TRIGGER_BPF_WHO, strerror(-ret));
		return ret;
	}

	for (__u32 i = 0; !ret && i < (__u32)c->nr; i++)
		ret = bpf_map__update_elem(skel->maps.conds, &i, sizeof(i), &c->cond[i],
					   sizeof(c->cond[i]), BPF_ANY);
	if (ret) {
		snprintf(err, errsz, "%s: the conditions' map: %s", TRIGGER_BPF_WHO, strerror(-ret));
		return ret;
	}
	for (int i = 0; !ret && i < nr; i++) {
		ret = bpf_loader__cpu_event(skel->maps.events, cpus[i], fds[i]);
		if (ret)
			snprintf(err, errsz, "%s: the bpf-output event of CPU %d: %s",
				 TRIGGER_BPF_WHO, cpus[i], strerror(-ret));
	}
	return ret;
}

/* Whether the children of the own processes must join them. */
static int trigger_bpf__follows(const struct trigger_conds *c, const struct bpf_tasks *tk)
{
	return tk && tk->follow && tk->nr_pids && trigger_conds__own_tasks(c);
}

/* Opened, only the kinds in use to load, loaded, maps filled. */
static int trigger_bpf__load(struct trigger_bpf *t, const struct trigger_conds *c,
			     const struct bpf_tasks *tk, const int *cpus, const int *fds,
			     int nr, char *err, size_t errsz)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .btf_custom_path = bpf_loader__btf_custom_path());
	struct bpf_program *progs[TRIGGER_NR_PROGS];
	unsigned int need[TRIGGER_NR_PROGS];
	int ret;

	t->skel = trigger__open_opts(&opts);
	if (!t->skel) {
		ret = -errno;
		snprintf(err, errsz, "%s: opening the BPF object: %s", TRIGGER_BPF_WHO, strerror(errno));
		return ret;
	}
	t->skel->rodata->nr_conds = c->nr;
	t->skel->rodata->kinds = c->kinds;
	/* one decision: the fork program loads only where forks are followed */
	t->skel->rodata->follow_forks = trigger_bpf__follows(c, tk);
	trigger_bpf__progs(t->skel, progs, need);
	for (int i = 0; i < TRIGGER_NR_PROGS; i++)
		bpf_program__set_autoload(progs[i], (need[i] & c->kinds) != 0);
	bpf_program__set_autoload(t->skel->progs.trigger_newtask, t->skel->rodata->follow_forks);
	ret = trigger__load(t->skel);
	if (ret) {
		snprintf(err, errsz, "%s: loading the BPF programs: %s%s", TRIGGER_BPF_WHO,
			 strerror(-ret), ret == -EPERM ? "" : " (-v says why)");
		return ret;
	}
	return trigger_bpf__fill(t->skel, c, tk, cpus, fds, nr, err, errsz);
}

int trigger_bpf__start(struct trigger_bpf **out, const struct trigger_conds *c,
		       const struct bpf_tasks *tk, const int *cpus, const int *fds, int nr,
		       int verbose, char *err, size_t errsz)
{
	struct trigger_bpf *t = calloc(1, sizeof(*t));
	struct bpf_program *progs[TRIGGER_NR_PROGS];
	unsigned int need[TRIGGER_NR_PROGS];
	int ret;

	if (!t) {
		snprintf(err, errsz, "%s: %s", TRIGGER_BPF_WHO, strerror(ENOMEM));
		return -ENOMEM;
	}
	bpf_loader__set_print(verbose);
	ret = trigger_bpf__load(t, c, tk, cpus, fds, nr, err, errsz);
	if (!ret)
		trigger_bpf__progs(t->skel, progs, need);
	for (int i = 0; !ret && i < TRIGGER_NR_PROGS; i++) {
		if (!(need[i] & c->kinds))
			continue;
		t->links[i] = bpf_program__attach(progs[i]);
		if (!t->links[i]) {
			ret = -errno;
			snprintf(err, errsz, "%s: attaching %s: %s", TRIGGER_BPF_WHO,
				 bpf_program__section_name(progs[i]), strerror(errno));
		}
	}
	if (!ret && trigger_bpf__follows(c, tk)) {
		t->newtask = bpf_program__attach(t->skel->progs.trigger_newtask);
		if (!t->newtask) {
			ret = -errno;
			snprintf(err, errsz, "%s: attaching tp_btf/task_newtask: %s",
				 TRIGGER_BPF_WHO, strerror(errno));
		}
	}
	if (ret) {
		trigger_bpf__stop(t);
		return ret;
	}
	if (verbose > 0)
		bpf_loader__list(t->skel->obj, TRIGGER_BPF_WHO);
	*out = t;
	return 0;
}

void trigger_bpf__stop(struct trigger_bpf *t)
{
	if (!t)
		return;
	for (int i = 0; i < TRIGGER_NR_PROGS; i++)
		bpf_link__destroy(t->links[i]);
	bpf_link__destroy(t->newtask);
	trigger__destroy(t->skel);
	free(t);
}

int trigger_bpf__set_event(struct trigger_bpf *t, int cpu, int fd)
{
	return bpf_loader__cpu_event(t->skel->maps.events, cpu, fd);
}
