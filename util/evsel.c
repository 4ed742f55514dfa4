#include "util/evsel.h"
#include "util/cpumap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			int group_fd, unsigned long flags)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
}

struct evsel *evsel__new(const struct perf_event_attr *attr, const char *name)
{
	struct evsel *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->attr = *attr;
	e->attr.size = sizeof(e->attr);
	e->overwrite = -1;
	e->name = strdup(name);
	if (!e->name) {
		evsel__delete(e);
		errno = ENOMEM;
		return NULL;
	}
	return e;
}

void evsel__delete(struct evsel *e)
{
	if (!e)
		return;
	evsel__close(e);
	free(e->name);
	free(e->tp_sys);
	free(e->tp_name);
	free(e);
}

void evsel__close(struct evsel *e)
{
	for (int i = 0; e->fd && i < e->nr_cpus * e->nr_threads; i++)
		if (e->fd[i] >= 0)
			close(e->fd[i]);
	free(e->fd);
	free(e->id);
	e->fd = NULL;
	e->id = NULL;
	e->nr_cpus = e->nr_threads = 0;
}

void evsel__open_strerror(struct evsel *e, int err, pid_t tid, char *buf, size_t sz)
{
	switch (err) {
	case EACCES:
	case EPERM:
		snprintf(buf, sz, "%s: %s: access to performance monitoring is restricted; "
			 "see /proc/sys/kernel/perf_event_paranoid (run as root or set it to -1)",
			 e->name, strerror(err));
		break;
	case ESRCH:
		snprintf(buf, sz, "%s: no such process: %d", e->name, tid);
		break;
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		snprintf(buf, sz, "%s: the %s event is not supported here (%s)",
			 e->name, e->name, strerror(err));
		break;
	case EMFILE:
		snprintf(buf, sz, "%s: too many open files (raise the limit with 'ulimit -n')",
			 e->name);
		break;
	default:
		snprintf(buf, sz, "%s: perf_event_open: %s", e->name, strerror(err));
	}
}

static int paranoid_level(void)
{
	char *s = read_file("/proc/sys/kernel/perf_event_paranoid", NULL);
	int level = s ? atoi(s) : 2;

	free(s);
	return level;
}

/* With perf_event_paranoid >= 2 an unprivileged user may only sample user
 * space: retry that way, naming the event NAME:u as perf does. */
static int evsel__fallback_user(struct evsel *e, int err, int verbose)
{
	char *name;

	if ((err != EACCES && err != EPERM) || e->attr.exclude_kernel || paranoid_level() < 2)
		return 0;
	if (asprintf(&name, "%s%su", e->name, strchr(e->name, ':') ? "" : ":") < 0)
		return 0;
	if (verbose)
		pr_err("Warning: kernel.perf_event_paranoid=%d, falling back to excluding kernel "
		       "and hypervisor samples\n", paranoid_level());
	free(e->name);
	e->name = name;
	e->attr.exclude_kernel = 1;
	e->attr.exclude_hv = 1;
	return 1;
}

/* Older kernels reject the newer tracking bits (cgroup: 5.7, build_id:
 * 5.12): drop them one at a time rather than fail. */
static int evsel__fallback_tracking(struct evsel *e, int err, int verbose)
{
	if (err != EINVAL || !e->tracking)
		return 0;
	if (e->attr.cgroup) {
		e->attr.cgroup = 0;
	} else if (e->attr.build_id) {
		e->attr.build_id = 0;
	} else {
		return 0;
	}
	if (verbose)
		pr_err("Warning: %s: the kernel rejects a tracking feature, retrying without it\n",
		       e->name);
	return 1;
}

static int evsel__fallback(struct evsel *e, int err, int verbose)
{
	char *name;

	if (evsel__fallback_tracking(e, err, verbose) || evsel__fallback_user(e, err, verbose))
		return 1;
	if (e->attr.type != PERF_TYPE_HARDWARE || e->attr.config != PERF_COUNT_HW_CPU_CYCLES ||
	    (err != ENOENT && err != EOPNOTSUPP && err != ENODEV))
		return 0;
	name = strdup("cpu-clock");
	if (!name)
		return 0;
	if (verbose)
		pr_err("Warning: the %s event is not supported, falling back to cpu-clock\n",
		       e->name);
	free(e->name);
	e->name = name;
	e->attr.type = PERF_TYPE_SOFTWARE;
	e->attr.config = PERF_COUNT_SW_CPU_CLOCK;
	e->attr.precise_ip = 0;
	return 1;
}

int evsel__open(struct evsel *e, struct cpu_map *cpus, struct thread_map *threads,
		char *errbuf, size_t errsz, int verbose)
{
	int n = cpus->nr * threads->nr, err = 0, opened = 0;

	e->nr_cpus = cpus->nr;
	e->nr_threads = threads->nr;
	e->fd = malloc(n * sizeof(int));
	e->id = calloc(n, sizeof(u64));
	if (!e->fd || !e->id) {
		err = -ENOMEM;
		snprintf(errbuf, errsz, "%s: %s", e->name, strerror(ENOMEM));
		goto fail;
	}
	for (int i = 0; i < n; i++)
		e->fd[i] = -1;
retry:
	for (int c = 0; c < cpus->nr; c++) {
		for (int t = 0; t < threads->nr; t++) {
			int fd = sys_perf_event_open(&e->attr, threads->map[t], cpus->map[c], -1,
						     PERF_FLAG_FD_CLOEXEC);

			if (fd < 0) {
				err = errno;
				/* a thread of -p that exited meanwhile is not an error */
				if (err == ESRCH && threads->nr > 1)
					continue;
				if (!opened && evsel__fallback(e, err, verbose))
					goto retry;
				evsel__open_strerror(e, err, threads->map[t], errbuf, errsz);
				err = -err;
				goto fail;
			}
			*evsel__fd(e, c, t) = fd;
			opened++;
			if (ioctl(fd, PERF_EVENT_IOC_ID, &e->id[c * threads->nr + t])) {
				err = -errno;
				snprintf(errbuf, errsz, "%s: PERF_EVENT_IOC_ID: %s", e->name,
					 strerror(errno));
				goto fail;
			}
		}
	}
	if (!opened) {
		snprintf(errbuf, errsz, "%s: no such process", e->name);
		err = -ESRCH;
		goto fail;
	}
	return 0;
fail:
	evsel__close(e);
	return err;
}
