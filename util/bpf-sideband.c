/* The BPF side band: a dummy event per CPU that sees only BPF loads, read
 * as soon as a record comes, so a short-lived program is described. */
#include "util/bpf-sideband.h"
#include "util/bpf-event.h"
#include "util/cpumap.h"
#include "util/event.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

void bpf_sideband__close(struct bpf_sideband *sb)
{
	for (int i = 0; i < sb->nr; i++) {
		mmap__munmap(&sb->rings[i]);
		if (sb->fds[i] >= 0)
			close(sb->fds[i]);
	}
	if (sb->epfd >= 0)
		close(sb->epfd);
	free(sb->fds);
	free(sb->rings);
	memset(sb, 0, sizeof(*sb));
	sb->epfd = -1;
}

int bpf_sideband__open(struct bpf_sideband *sb)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(a), .config = PERF_COUNT_SW_DUMMY,
		.bpf_event = 1, .watermark = 1, .wakeup_watermark = 1,
	};
	struct cpu_map *cpus = cpu_map__new(NULL);
	int err = 0;

	memset(sb, 0, sizeof(*sb));
	sb->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (!cpus || sb->epfd < 0) {
		err = cpus ? -errno : -ENOMEM;
		goto out;
	}
	sb->fds = calloc(cpus->nr, sizeof(*sb->fds));
	sb->rings = calloc(cpus->nr, sizeof(*sb->rings));
	if (!sb->fds || !sb->rings) {
		err = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < cpus->nr && !err; i++) {
		struct epoll_event ev = { .events = EPOLLIN };
		int fd = syscall(SYS_perf_event_open, &a, -1, cpus->map[i], -1, PERF_FLAG_FD_CLOEXEC);

		sb->fds[sb->nr++] = fd;
		if (fd < 0) {
			err = -errno;
			break;
		}
		err = mmap__init(&sb->rings[i], fd, cpus->map[i], sysconf(_SC_PAGESIZE), 0);
		ev.data.u32 = i;
		if (!err && epoll_ctl(sb->epfd, EPOLL_CTL_ADD, fd, &ev))
			err = -errno;
	}
out:
	cpu_map__put(cpus);
	if (err)
		bpf_sideband__close(sb);
	return err;
}

static int sideband_record(const struct mmap *m, u64 pos, const struct perf_event_header *h,
			   void *arg)
{
	u64 rec[8];	/* a BPF_EVENT without sample_id is 24 bytes */
	struct perf_event_header *copy = (void *)rec;

	if (h->type != PERF_RECORD_BPF_EVENT)
		return 0;
	/* over-sized when another recorder's event took it first
	 * (util/event.h): its body is all there is to read */
	mmap__copy(m, pos, rec, MIN(h->size, sizeof(rec)));
	event__trim(copy, 0);
	if (copy->size <= sizeof(rec))
		bpf_progs__saw(arg, copy);
	return 0;
}

void bpf_sideband__read(struct bpf_sideband *sb, struct bpf_progs *p)
{
	for (int i = 0; i < sb->nr; i++) {
		struct mmap *m = &sb->rings[i];
		u64 head = mmap__read_head(m);

		/* a malformed ring is skipped whole: only descriptions are at stake */
		mmap__for_each(m, m->tail, head, sideband_record, p);
		mmap__write_tail(m, head);
		m->tail = head;
	}
}
