/* --switch-output-when=KIND>DURATION[,comm=NAME][,pid=N][,tid=N][,cgroup=PATH]:
 * the conditions the trigger's BPF program evaluates, parsed, and their
 * cgroups resolved to ids. */
#ifndef PERF_BPF_TRIGGER_COND_H
#define PERF_BPF_TRIGGER_COND_H

#include <stddef.h>
#include <linux/types.h>
#include "bpf/trigger-map.h"
#include "lib/util.h"

/* The longest threshold: a day, as --switch-output-delay's. */
#define TRIGGER_COND_MAX_NS (86400ULL * 1000000000)

/* Every --switch-output-when given; any one fires. */
struct trigger_conds {
	struct trigger_map_cond cond[TRIGGER_MAX_CONDS];
	char *cgroup[TRIGGER_MAX_CONDS];	/* cgroup=PATH as given (NULL: none) */
	int nr;
	unsigned int kinds;			/* 1 << kind for each kind in use */
};

/* The name of kind ("offcpu", "syscall", "runqlat"). */
const char *trigger_kind__name(enum trigger_kind kind);

/* Adds one condition, as written in arg. 0, or -EINVAL (-E2BIG past
 * TRIGGER_MAX_CONDS, -ENOMEM) with one line in err naming the part that
 * is wrong: "--switch-output-when: 'ARG': WHY". */
int trigger_conds__add(struct trigger_conds *c, const char *arg, char *err, size_t errsz);
/* The cgroup= paths resolved to ids, at start: a cgroup made after the
 * options were read counts, and a missing one is refused. 0 or -errno
 * with err naming the path. */
int trigger_conds__resolve(struct trigger_conds *c, char *err, size_t errsz);
/* A per-task recording's conditions that name no task (no comm=, pid=,
 * tid= or cgroup=) watch the recording's own tasks: own_tasks set on
 * those. */
void trigger_conds__own(struct trigger_conds *c);
/* Whether any condition watches only the recording's own tasks. */
int trigger_conds__own_tasks(const struct trigger_conds *c);
void trigger_conds__exit(struct trigger_conds *c);

#endif
