/* The hit DSOs of a finished file into the build-id cache. */
#include "buildid/dso-cache.h"
#include "buildid/dso-hits.h"
#include "buildid/dso-hits-internal.h"
#include "buildid/build-id-cache.h"
#include "buildid/build-id.h"
#include "buildid/mapped-file.h"
#include "lib/escape.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

/* Our vdso image: every process of this architecture maps the same. */
static void vdso_image(struct cache_src *src)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	const GElf_Ehdr *eh = (const void *)base;

	src->data = (const void *)base;
	src->len = base ? eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize : 0;
}

static int dso__cache(struct hit_dso *d, const char *dir, struct cache_limit *lim)
{
	struct cache_src src = { .fd = -1 };
	struct buf kallsyms = { 0 };
	size_t len;
	int err, fd = -1;

	/* kallsyms is megabytes, a binary an open and an ELF parse: not again */
	if (build_id_cache__has(dir, d->name, d->bid, d->bid_len))
		return 0;
	if (!strcmp(d->name, "[kernel.kallsyms]")) {
		err = buf__file(&kallsyms, "/proc/kallsyms", &len);
		if (err)
			return err;
		src.data = kallsyms.p;
		src.len = kallsyms.len;
	} else if (!strcmp(d->name, "[vdso]")) {
		vdso_image(&src);
		if (!src.len)
			return -ENOENT;
	} else if (d->kernel) {
		return 0;	/* modules: perf report reads them from /lib/modules */
	} else {
		u8 bid[BUILD_ID_SIZE];

		src.fd = d->fd;
		/* the file mapped or none: another file under its name is gone */
		if (src.fd < 0 && (fd = src.fd = mapped_file__open(d->name, &d->id)) < 0)
			return fd;
		/* a file replaced since it was mapped is another binary */
		if (build_id__from_fd(src.fd, bid) != d->bid_len || memcmp(bid, d->bid, d->bid_len)) {
			if (fd >= 0)
				close(fd);
			return -ESTALE;
		}
	}
	err = build_id_cache__add(dir, d->name, d->bid, d->bid_len, &src, lim);
	buf__release(&kallsyms);
	if (fd >= 0)
		close(fd);
	return err;
}

/* Counts d's outcome; the last name and error said are the most hit
 * binary's left out, else the last one's. */
static void cache_stats__count(struct dso_hits_cache_stats *st, const struct hit_dso *d, int err,
			       int over_cap, int hot)
{
	if (!err) {
		st->added++;
		return;
	}
	st->hot_missed += hot;
	if (err == -EFBIG)
		st->too_big++;
	else if (over_cap)	/* a quota's -EDQUOT is a failure */
		st->over_cap++;
	else if (err == -ENOENT || err == -EACCES || err == -ESTALE || err == -EINVAL ||
		 err == -EPERM || err == -EREMOTE)
		st->unreadable++;
	else
		st->failed++;
	if (hot || !st->hot_missed) {
		st->last_err = err;
		snprintf(st->last_name, sizeof(st->last_name), "%s", d->name);
	}
}

void dso_hits__fill_cache(struct dso_hits *s, const char *dir, struct dso_cache_budget *budget,
			  struct dso_hits_cache_stats *st)
{
	struct dso_cache_budget unbounded = { .max = ~0ULL };
	u64 samples = 0;

	if (!budget)
		budget = &unbounded;
	for (int i = 0; i < s->nr; i++)
		samples += s->d[i].samples;
	for (int i = 0; i < s->nr; i++) {
		struct hit_dso *d = &s->d[i];
		struct cache_limit lim = {
			.max = DSO_CACHE_MAX,
			.room = budget->max - MIN(budget->added, budget->max),
		};
		int err;

		if (!dso_hits__wanted(s, d) || (!d->bid_len && !d->bid_err))
			continue;
		/* gone before its build id could be read: not in the file either */
		err = d->bid_len ? dso__cache(d, dir, &lim) : d->bid_err;
		budget->added += lim.used;
		budget->left_out += lim.over;
		cache_stats__count(st, d, err, lim.over,
				   samples && d->samples >= samples / DSO_CACHE_HOT);
	}
}

void dso_hits_cache_stats__report(const struct dso_hits_cache_stats *st, const char *file,
				  int quiet, int verbose)
{
	u64 missed = st->unreadable + st->too_big + st->over_cap + st->failed;
	char name[ESCAPE_LOG_SIZE];

	if (!missed || !(st->failed || verbose || (st->hot_missed && !quiet)))
		return;
	/* the name is a user's: escaped, it cannot start a line of its own */
	pr_err("perf record: %s: build-id cache: %llu of %llu binaries left out (%llu unreadable "
	       "or gone, %llu over %llu MB, %llu over --buildid-cache-max, %llu failed; last: "
	       "%s: %s%s)\n", file, (unsigned long long)missed,
	       (unsigned long long)(missed + st->added), (unsigned long long)st->unreadable,
	       (unsigned long long)st->too_big, DSO_CACHE_MAX >> 20,
	       (unsigned long long)st->over_cap, (unsigned long long)st->failed,
	       escape__str(name, sizeof(name), st->last_name),
	       strerror(-st->last_err), st->hot_missed ? ", one of the binaries most hit" : "");
}
