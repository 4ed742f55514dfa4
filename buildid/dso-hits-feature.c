/* The BUILD_ID feature's body from the DSO model. */
#include "buildid/dso-hits-feature.h"
#include "buildid/dso-hits.h"
#include "buildid/dso-hits-internal.h"
#include "buildid/build-id.h"
#include "buildid/mapped-file.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The build id of the file the records mapped, read from it (held, or
 * opened as that very file): another file under its name since is
 * -ESTALE, as gone. */
static int dso__file_build_id(struct hit_dso *d)
{
	int fd = d->fd, n;

	if (fd < 0 && (fd = mapped_file__open(d->name, &d->id)) < 0)
		return fd;
	n = build_id__from_fd(fd, d->bid);
	if (fd != d->fd)
		close(fd);
	return n;
}

/* The build ids the records did not carry: the kernel's and modules' from
 * sysfs, the vdso's from ours, a file's from the file the records mapped. */
static void dso__resolve(struct hit_dso *d)
{
	int n;

	if (d->bid_len)
		return;
	if (!strcmp(d->name, "[kernel.kallsyms]"))
		n = build_id__kernel(d->bid);
	else if (!strcmp(d->name, "[vdso]"))
		n = build_id__vdso(d->bid);
	else if (d->kernel) {
		char mod[64];

		snprintf(mod, sizeof(mod), "%.*s", (int)strlen(d->name) - 2, d->name + 1);
		n = build_id__module(mod, d->bid);
	} else {
		n = dso__file_build_id(d);
	}
	d->bid_len = n > 0 ? n : 0;
	d->bid_err = n < 0 ? n : 0;
}

static void put_build_id(struct buf *b, const struct hit_dso *d)
{
	struct perf_event_header h = {
		.type = 0,
		.misc = 0x8000 /* the size byte is valid */ |
			(d->kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER),
	};
	u32 len = strlen(d->name) + 1, padded = ALIGN_UP(len, 64);
	s32 pid = -1;	/* the host machine */

	h.size = sizeof(h) + sizeof(pid) + 24 + padded;
	buf__add(b, &h, sizeof(h));
	buf__add(b, &pid, sizeof(pid));
	buf__add(b, d->bid, BUILD_ID_SIZE);
	buf__u8(b, d->bid_len);
	buf__zero(b, 3);
	buf__add(b, d->name, len);
	buf__zero(b, padded - len);
}

int dso_hits__write_feature(struct dso_hits *s, struct buf *b)
{
	dso_hits__end_round(s);	/* a file may end without FINISHED_ROUND */
	/* kernel and modules first, then the rest in the order they were mapped */
	for (int pass = 1; pass >= 0; pass--)
		for (int i = 0; i < s->nr; i++) {
			struct hit_dso *d = &s->d[i];

			if (d->kernel != pass || !dso_hits__wanted(s, d))
				continue;
			dso__resolve(d);
			if (d->bid_len)
				put_build_id(b, d);
		}
	return b->err;
}
