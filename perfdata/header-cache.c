/* The CACHE feature: the distinct caches of the online CPUs, from
 * /sys/devices/system/cpu/cpuN/cache/indexL, as perf 6.1 describes them. */
#include "perfdata/header-internal.h"
#include "util/cpumap.h"
#include "lib/sysfs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_DIR "/sys/devices/system/cpu/cpu%d/cache/index%d/%s"
#define CACHE_INDEX_MAX 4	/* the stock looks at index0..3 */
#define CACHE_STR 256

struct cache_level {
	u32 level, line_size, sets, ways;
	char type[CACHE_STR], size[CACHE_STR], map[CACHE_STR];
};

static u32 cache__u32(int cpu, int idx, const char *name)
{
	char s[32];

	return sysfs__read_strf(s, sizeof(s), CACHE_DIR, cpu, idx, name) ? 0 :
		(u32)strtoul(s, NULL, 10);
}

/* 0, 1 when the CPU has no cache indexL (the end of its list), -errno. */
static int cache_level__read(struct cache_level *c, int cpu, int idx)
{
	char s[32];
	int err;

	if (sysfs__read_strf(s, sizeof(s), CACHE_DIR, cpu, idx, "level"))
		return 1;
	memset(c, 0, sizeof(*c));
	c->level = strtoul(s, NULL, 10);
	c->line_size = cache__u32(cpu, idx, "coherency_line_size");
	c->sets = cache__u32(cpu, idx, "number_of_sets");
	c->ways = cache__u32(cpu, idx, "ways_of_associativity");
	err = sysfs__read_strf(c->type, sizeof(c->type), CACHE_DIR, cpu, idx, "type");
	if (!err)
		err = sysfs__read_strf(c->size, sizeof(c->size), CACHE_DIR, cpu, idx, "size");
	if (!err)
		err = sysfs__read_strf(c->map, sizeof(c->map), CACHE_DIR, cpu, idx, "shared_cpu_list");
	return err;
}

static int cache_level__same(const struct cache_level *a, const struct cache_level *b)
{
	return a->level == b->level && a->line_size == b->line_size && a->sets == b->sets &&
	       a->ways == b->ways && !strcmp(a->type, b->type) && !strcmp(a->size, b->size) &&
	       !strcmp(a->map, b->map);
}

/* Version 1, the number of caches, then each cache's level, line size,
 * sets, ways, type, size and cpu list, by level (a CPU's list order
 * within one level). A machine whose sysfs has no cache directories (a
 * VM) gets none, as from the stock. */
int header__cache(struct buf *b)
{
	struct cpu_map *online = cpu_map__new(NULL);
	struct cache_level *caches = NULL, c;
	u32 nr = 0;
	int err = 0;

	if (!online)
		return -errno;
	for (int i = 0; i < online->nr && !err; i++) {
		for (int idx = 0; idx < CACHE_INDEX_MAX; idx++) {
			struct cache_level *nc;
			u32 j, at;

			err = cache_level__read(&c, online->map[i], idx);
			if (err) {
				err = err > 0 ? 0 : err;
				break;
			}
			for (j = 0; j < nr && !cache_level__same(&caches[j], &c); j++)
				;
			if (j < nr)
				continue;
			nc = realloc(caches, (nr + 1) * sizeof(*nc));
			if (!nc) {
				err = -ENOMEM;
				break;
			}
			caches = nc;
			/* stays sorted by level: after every cache of a level <= its own */
			for (at = nr; at > 0 && caches[at - 1].level > c.level; at--)
				;
			memmove(&caches[at + 1], &caches[at], (nr - at) * sizeof(*caches));
			caches[at] = c;
			nr++;
		}
	}
	if (!err) {
		buf__u32(b, 1);
		buf__u32(b, nr);
		for (u32 i = 0; i < nr; i++) {
			buf__u32(b, caches[i].level);
			buf__u32(b, caches[i].line_size);
			buf__u32(b, caches[i].sets);
			buf__u32(b, caches[i].ways);
			header__put_string(b, caches[i].type);
			header__put_string(b, caches[i].size);
			header__put_string(b, caches[i].map);
		}
	}
	free(caches);
	cpu_map__put(online);
	return err ? err : b->err;
}
