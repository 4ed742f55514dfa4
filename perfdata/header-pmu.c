/* The PMU features: PMU_MAPPINGS (each PMU's name and attr.type) and the
 * capabilities PMUs list in caps/ (PMU_CAPS, and CPU_PMU_CAPS for "cpu"),
 * from /sys/bus/event_source/devices in directory order, as perf 6.1. */
#include "perfdata/header-internal.h"
#include "lib/sysfs.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PMU_DIR "/sys/bus/event_source/devices"
#define CAP_VALUE_MAX 4096

/* Calls fn for each PMU with a readable type, in readdir order. */
static int pmu__for_each(int (*fn)(const char *name, u32 type, void *arg), void *arg)
{
	DIR *d = opendir(PMU_DIR);
	struct dirent *e;
	int err = 0;

	if (!d)
		return -errno;
	while (!err && (e = readdir(d))) {
		char path[PATH_MAX];
		u64 type;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), PMU_DIR "/%s/type", e->d_name);
		if (sysfs__read_u64(path, 10, &type) || type > UINT32_MAX)
			continue;
		err = fn(e->d_name, type, arg);
	}
	closedir(d);
	return err;
}

struct pmu_list {
	struct buf *b;
	u32 nr;
};

static int pmu__put_mapping(const char *name, u32 type, void *arg)
{
	struct pmu_list *l = arg;

	buf__u32(l->b, type);
	header__put_string(l->b, name);
	l->nr++;
	return 0;
}

/* u32 nr, then {u32 type, name} per PMU. */
int header__pmu_mappings(struct buf *b)
{
	struct pmu_list l = { .b = b };
	size_t nr_at = b->len;
	int err;

	buf__u32(b, 0);
	err = pmu__for_each(pmu__put_mapping, &l);
	if (!err && !b->err)
		memcpy(b->p + nr_at, &l.nr, sizeof(l.nr));
	return err ? err : b->err;
}

/* A PMU's caps: u32 count, then {name, value} strings in directory order;
 * with_name adds the PMU's name (PMU_CAPS), CPU_PMU_CAPS has none. The
 * count is what *nr gets; an absent caps/ is no caps. */
static int pmu__put_caps(struct buf *b, const char *pmu, int with_name, u32 *nr)
{
	char path[PATH_MAX], *value = malloc(CAP_VALUE_MAX);
	size_t nr_at = b->len;
	struct dirent *e;
	DIR *d;
	int err = 0;

	*nr = 0;
	if (!value)
		return -ENOMEM;
	snprintf(path, sizeof(path), PMU_DIR "/%s/caps", pmu);
	d = opendir(path);
	buf__u32(b, 0);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		err = sysfs__read_strf(value, CAP_VALUE_MAX, "%s/%s", path, e->d_name);
		if (err)
			break;
		header__put_string(b, e->d_name);
		header__put_string(b, value);
		(*nr)++;
	}
	if (d)
		closedir(d);
	free(value);
	if (with_name)
		header__put_string(b, pmu);
	if (!b->err)
		memcpy(b->p + nr_at, nr, sizeof(*nr));
	return err ? err : b->err;
}

struct caps_walk {
	struct buf *b;
	u32 nr_pmus;
	int hybrid;	/* this pass takes the hybrid PMUs (cpu_core, cpu_atom) */
};

static int pmu__put_named_caps(const char *name, u32 type, void *arg)
{
	struct caps_walk *w = arg;
	size_t at = w->b->len;
	u32 nr;
	int err;

	(void)type;
	if (!strcmp(name, "cpu") || w->hybrid != !strncmp(name, "cpu_", 4))
		return 0;
	err = pmu__put_caps(w->b, name, 1, &nr);
	if (!err && nr)
		w->nr_pmus++;
	else
		w->b->len = at;	/* a PMU without caps is not listed */
	return err == -ENOENT ? 0 : err;
}

/* u32 number of PMUs with caps, then each one's caps and name: the hybrid
 * CPU PMUs first, which older readers expect, then the others; "cpu" is
 * CPU_PMU_CAPS' own. */
int header__pmu_caps(struct buf *b)
{
	struct caps_walk w = { .b = b, .hybrid = 1 };
	size_t nr_at = b->len;
	int err;

	buf__u32(b, 0);
	err = pmu__for_each(pmu__put_named_caps, &w);
	if (!err) {
		w.hybrid = 0;
		err = pmu__for_each(pmu__put_named_caps, &w);
	}
	if (!err && !b->err)
		memcpy(b->p + nr_at, &w.nr_pmus, sizeof(w.nr_pmus));
	return err ? err : b->err;
}

/* The core PMU's caps, without its name; -ENOENT when there is no "cpu"
 * PMU (no CPU_PMU_CAPS then, as from the stock). */
int header__cpu_pmu_caps(struct buf *b)
{
	u32 nr;

	if (access(PMU_DIR "/cpu/type", F_OK))
		return -errno;
	return pmu__put_caps(b, "cpu", 0, &nr);
}
