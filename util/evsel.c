/* One event: perf_event_open() on every CPU and thread, with perf's
 * fallbacks and its messages when the kernel refuses. */
#include "util/evsel.h"
#include "lib/buf.h"
#include "util/cpumap.h"

#include <errno.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
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
	e->inherit = -1;
	e->leader = e;
	e->nr_members = 1;
	e->cgroup_fd = -1;
	e->name = strdup(name);
	if (!e->name) {
		evsel__delete(e);
		errno = ENOMEM;
		return NULL;
	}
	return e;
}

struct evsel *evsel__new_bpf_output(const char *name)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_BPF_OUTPUT,
		.sample_period = 1,
	};
	struct evsel *e = evsel__new(&attr, name);

	if (!e)
		return NULL;
	e->user_period = 1;	/* -c/-F are the other events' */
	e->system_wide = 1;
	e->inherit = 0;
	e->overwrite = 0;
	return e;
}

void evsel__delete(struct evsel *e)
{
	if (!e)
		return;
	evsel__close(e);
	if (e->cgroup_fd >= 0)
		close(e->cgroup_fd);
	free(e->name);
	free(e->tp_sys);
	free(e->tp_name);
	free(e->group_name);
	free(e->filter);
	free(e);
}

void evsel__close(struct evsel *e)
{
	for (int i = 0; e->fd && i < evsel__nr_fds(e); i++)
		if (e->fd[i] >= 0)
			close(e->fd[i]);
	free(e->fd);
	free(e->id);
	free(e->gone_id);
	e->fd = NULL;
	e->id = NULL;
	e->gone_id = NULL;
	e->nr_gone_ids = 0;
	e->nr_cpus = e->nr_threads = 0;
	e->twinned = 0;
}

u64 evsel__nr_ids(const struct evsel *e)
{
	u64 n = 0;

	for (int k = 0; k < evsel__nr_id_slots(e); k++)
		n += evsel__id_at(e, k) != 0;
	return n;
}

void evsel__put_ids(const struct evsel *e, struct buf *b)
{
	for (int k = 0; k < evsel__nr_id_slots(e); k++)
		if (evsel__id_at(e, k))
			buf__u64(b, evsel__id_at(e, k));
}

void evsel__close_twins(struct evsel *e)
{
	int n = e->nr_cpus * e->nr_threads;

	for (int i = n; e->twinned && i < TWIN_SLOTS * n; i++)
		if (e->fd[i] >= 0)
			close(e->fd[i]);
	e->twinned = 0;
}

static int rlimit__bump_nofile(void);

int evsel__open_twin_fd(struct evsel *e, int slot, struct cpu_map *cpus,
			struct thread_map *threads, int c, int t)
{
	struct perf_event_attr attr = e->attr;
	int cg = e->cgroup_fd >= 0 && threads->map[t] == -1;
	int group_fd = evsel__is_leader(e) ? -1 : *evsel__slot_fd(e->leader, slot, c, t);
	int fd, err;

	/* off until a switch turns it on, whatever the first set waits for */
	attr.disabled = 1;
	attr.enable_on_exec = 0;
	do
		fd = sys_perf_event_open(&attr, cg ? e->cgroup_fd : threads->map[t], cpus->map[c],
					 group_fd, PERF_FLAG_FD_CLOEXEC | (cg ? PERF_FLAG_PID_CGROUP : 0));
	while (fd < 0 && errno == EMFILE && rlimit__bump_nofile());
	if (fd < 0)
		return -errno;
	if (ioctl(fd, PERF_EVENT_IOC_ID, evsel__slot_id(e, slot, c, t)) ||
	    (e->filter && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, e->filter))) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

int evsel__reopen_fd(struct evsel *e, int slot, struct cpu_map *cpus,
		     struct thread_map *threads, int c, int t, int ring_fd)
{
	u64 *id = evsel__slot_id(e, slot, c, t), old_id = *id;
	u64 *gone = realloc(e->gone_id, (e->nr_gone_ids + 1) * sizeof(*gone));
	int *fd = evsel__slot_fd(e, slot, c, t), old = *fd, fresh, err;

	/* room first: nothing may fail once the new fd is in place */
	if (!gone)
		return -ENOMEM;
	e->gone_id = gone;
	fresh = evsel__open_twin_fd(e, slot, cpus, threads, c, t);
	if (fresh < 0) {
		*id = old_id;
		return fresh;
	}
	if (ioctl(fresh, PERF_EVENT_IOC_SET_OUTPUT, ring_fd)) {
		err = -errno;
		close(fresh);
		*id = old_id;
		return err;
	}
	if (old_id)
		e->gone_id[e->nr_gone_ids++] = old_id;
	*fd = fresh;
	return old;
}

int evsel__open_twins(struct evsel *e, struct cpu_map *cpus, struct thread_map *threads,
		      char *errbuf, size_t errsz)
{
	int n = e->nr_cpus * e->nr_threads;
	int *fd = realloc(e->fd, TWIN_SLOTS * n * sizeof(*fd));
	u64 *id;

	if (fd)
		e->fd = fd;
	id = fd ? realloc(e->id, TWIN_SLOTS * n * sizeof(*id)) : NULL;
	if (!id) {
		snprintf(errbuf, errsz, "%s: twin events: %s", e->name, strerror(ENOMEM));
		return -ENOMEM;
	}
	e->id = id;
	for (int i = n; i < TWIN_SLOTS * n; i++) {
		e->fd[i] = -1;
		e->id[i] = 0;
	}
	e->twinned = 1;
	for (int c = 0; c < cpus->nr; c++) {
		for (int t = 0; t < threads->nr; t++) {
			int *twin = evsel__slot_fd(e, 1, c, t);

			if (*evsel__fd(e, c, t) < 0)
				continue;
			*twin = evsel__open_twin_fd(e, 1, cpus, threads, c, t);
			if (*twin < 0) {
				int err = *twin;

				*twin = -1;
				snprintf(errbuf, errsz, "%s: twin event on cpu %d: %s", e->name,
					 cpus->map[c], strerror(-err));
				evsel__close_twins(e);
				return err;
			}
		}
	}
	return 0;
}

int evsel__append_filter(struct evsel *e, const char *filter)
{
	char *f;

	if (e->filter ? asprintf(&f, "(%s) && (%s)", e->filter, filter) < 0 :
	    !(f = strdup(filter)))
		return -ENOMEM;
	free(e->filter);
	e->filter = f;
	return 0;
}

/* An integer from /proc/sys/kernel/NAME, or def when it cannot be read. */
long sysctl__read(const char *name, long def)
{
	char path[128], *s;
	long v;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	s = read_file(path, NULL);
	v = s ? strtol(s, NULL, 10) : def;
	free(s);
	return v;
}

static int paranoid_level(void)
{
	return sysctl__read("perf_event_paranoid", 2);
}

/* Whether perf_event_paranoid binds this process at all: the kernel lifts
 * it for CAP_PERFMON or CAP_SYS_ADMIN in the first user namespace (root).
 * A refusal then has another reason, which no paranoid hint explains. */
static int paranoid_exempt(void)
{
	return user_ns_is_initial() &&
	       (cap_effective(CAP_PERFMON) || cap_effective(CAP_SYS_ADMIN));
}

/* The kernel says EACCES both for a paranoid level too high and for a task
 * we may not ptrace: it is the latter when the very same event opens on
 * ourselves. */
static int evsel__ptrace_denied(struct evsel *e, pid_t tid, int cpu)
{
	int fd;

	if (tid <= 0 || tid == getpid())
		return 0;
	fd = sys_perf_event_open(&e->attr, 0, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/* The paranoid level this event needs, and why, for the hint. */
static int evsel__paranoid_need(struct evsel *e, pid_t tid, const char **why)
{
	if (tid == -1) {
		*why = "CPU-wide monitoring";
		return 0;
	}
	if (e->attr.type == PERF_TYPE_TRACEPOINT) {
		*why = "tracepoint samples";
		return -1;
	}
	if (!e->attr.exclude_kernel) {
		*why = "kernel profiling";
		return 1;
	}
	*why = "monitoring";
	return 2;
}

static void evsel__perm_strerror(struct evsel *e, int err, pid_t tid, int cpu,
				 char *buf, size_t sz)
{
	const char *why;
	int need, level;

	if (evsel__ptrace_denied(e, tid, cpu)) {
		snprintf(buf, sz, "%s: no permission to attach to pid %d: %s (ptrace access "
			 "denied: not your process, or not dumpable; run as root)",
			 e->name, tid, strerror(err));
		return;
	}
	if (paranoid_exempt()) {
		snprintf(buf, sz, "%s: perf_event_open: %s: the kernel refuses this event even "
			 "to root (not kernel.perf_event_paranoid: the event's own rules, a "
			 "security module, or lockdown)", e->name, strerror(err));
		return;
	}
	need = evsel__paranoid_need(e, tid, &why);
	level = paranoid_level();
	if (level <= need) {
		/* the paranoid level allows it: an LSM or a missing capability */
		snprintf(buf, sz, "%s: %s: access to performance monitoring is restricted "
			 "(kernel.perf_event_paranoid=%d allows it; check security modules, "
			 "or run as root)", e->name, strerror(err), level);
		return;
	}
	snprintf(buf, sz, "%s: %s: access to performance monitoring is restricted: %s needs "
		 "kernel.perf_event_paranoid <= %d, it is %d (run as root, or lower "
		 "/proc/sys/kernel/perf_event_paranoid)", e->name, strerror(err), why, need, level);
}

static void evsel__open_strerror(struct evsel *e, int err, pid_t tid, int cpu,
				 char *buf, size_t sz)
{
	struct rlimit rl;

	switch (err) {
	case EACCES:
	case EPERM:
		evsel__perm_strerror(e, err, tid, cpu, buf, sz);
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
		if (getrlimit(RLIMIT_NOFILE, &rl))
			rl.rlim_max = 0;
		snprintf(buf, sz, "%s: too many open files: the hard limit of %llu is reached "
			 "(record fewer events or CPUs, or raise 'ulimit -Hn' as root)",
			 e->name, (unsigned long long)rl.rlim_max);
		break;
	case EINVAL:
		/* the clock is the usual culprit, as perf says: -k 2 is a CPU-time
		 * clock that clock_getres() takes and events do not */
		if (e->attr.use_clockid) {
			snprintf(buf, sz, "%s: wrong clockid (%d): perf_event_open: %s", e->name,
				 e->attr.clockid, strerror(err));
			break;
		}
		/* fall through */
	default:
		snprintf(buf, sz, "%s: perf_event_open: %s", e->name, strerror(err));
	}
}

/* Each event takes one fd per CPU and thread: like perf, raise the soft
 * limit to the hard one before giving up. 1 if there is more room now. */
static int rlimit__bump_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= rl.rlim_max)
		return 0;
	rl.rlim_cur = rl.rlim_max;
	return !setrlimit(RLIMIT_NOFILE, &rl);
}

/* The kernel refuses a frequency above perf_event_max_sample_rate with
 * EINVAL; perf records at the limit instead. Returns the frequency asked
 * for when it capped it, else 0. */
static u64 evsel__cap_freq(struct evsel *e)
{
	u64 asked = e->attr.sample_freq;
	long max;

	if (!e->attr.freq)
		return 0;
	max = sysctl__read("perf_event_max_sample_rate", 0);
	if (max <= 0 || asked <= (u64)max)
		return 0;
	e->attr.sample_freq = max;
	return asked;
}

/* With perf_event_paranoid >= 2 an unprivileged user may only sample user
 * space: retry that way, naming the event NAME:u as perf does. Not when a
 * modifier excluded user space (:k, :h): nothing would be left to record;
 * not for a tracepoint, which fires in the kernel only; not for root, whom
 * the paranoid level does not bind. */
static int evsel__fallback_user(struct evsel *e, int err, int verbose)
{
	char *name;

	if ((err != EACCES && err != EPERM) || e->attr.exclude_kernel || e->attr.exclude_user ||
	    e->attr.type == PERF_TYPE_TRACEPOINT || paranoid_level() < 2 || paranoid_exempt())
		return 0;
	if (asprintf(&name, "%s%su", e->name, strchr(e->name, ':') ? "" : ":") < 0)
		return 0;
	if (verbose > 0)
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
	if (verbose > 0)
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
	/* keep the modifiers, and the :u of an earlier fallback */
	if (asprintf(&name, "cpu-clock%s", strchr(e->name, ':') ?: "") < 0)
		return 0;
	if (verbose > 0)
		pr_err("Warning: the %s event is not supported, falling back to cpu-clock\n",
		       e->name);
	free(e->name);
	e->name = name;
	e->attr.type = PERF_TYPE_SOFTWARE;
	e->attr.config = PERF_COUNT_SW_CPU_CLOCK;
	e->attr.precise_ip = 0;
	return 1;
}

#define SLOT_UNOPENED (-2)

/* The group_fd to open e's slot (CPU c, thread t) with, or SLOT_UNOPENED
 * for a slot left closed. */
static int evsel__slot_group_fd(struct evsel *e, const struct cpu_map *cpus, int c, int t)
{
	int group_fd = evsel__is_leader(e) ? -1 : *evsel__fd(e->leader, c, t);

	/* the leader's thread exited before it could be opened */
	if (!evsel__is_leader(e) && group_fd < 0)
		return SLOT_UNOPENED;
	/* -C beside events of every CPU: a CPU it does not watch */
	if (e->only_cpus && !cpu_map__has(e->only_cpus, cpus->map[c]))
		return SLOT_UNOPENED;
	return group_fd;
}

int evsel__open(struct evsel *e, struct cpu_map *cpus, struct thread_map *threads,
		char *errbuf, size_t errsz, int verbose)
{
	int n = cpus->nr * threads->nr, err = 0, opened = 0;
	u64 capped = 0;

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
	capped = evsel__cap_freq(e);
retry:
	for (int c = 0; c < cpus->nr; c++) {
		for (int t = 0; t < threads->nr; t++) {
			/* -G: the kernel takes the cgroup's fd in place of a pid */
			int cg = e->cgroup_fd >= 0 && threads->map[t] == -1;
			int group_fd = evsel__slot_group_fd(e, cpus, c, t);
			int fd;

			if (group_fd == SLOT_UNOPENED)
				continue;
			fd = sys_perf_event_open(&e->attr, cg ? e->cgroup_fd : threads->map[t],
						 cpus->map[c], group_fd, PERF_FLAG_FD_CLOEXEC |
						 (cg ? PERF_FLAG_PID_CGROUP : 0));
			if (fd < 0) {
				err = errno;
				/* a thread of -p that exited meanwhile is not an error */
				if (err == ESRCH && threads->nr > 1)
					continue;
				if (err == EMFILE && rlimit__bump_nofile()) {
					t--;
					continue;
				}
				if (!opened && evsel__fallback(e, err, verbose))
					goto retry;
				evsel__open_strerror(e, err, threads->map[t], cpus->map[c],
						     errbuf, errsz);
				if (!evsel__is_leader(e)) {
					size_t len = strlen(errbuf);

					snprintf(errbuf + len, errsz - len, " (a member of the "
						 "group led by %s)", e->leader->name);
				}
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
	/* said once it worked, under the name the fallbacks left */
	if (capped && verbose >= 0)
		pr_err("warning: %s: Maximum frequency rate (%llu Hz) exceeded, throttling from "
		       "%llu Hz to %llu Hz (the limit is /proc/sys/kernel/perf_event_max_sample_rate)\n",
		       e->name, (unsigned long long)e->attr.sample_freq, (unsigned long long)capped,
		       (unsigned long long)e->attr.sample_freq);
	return 0;
fail:
	evsel__close(e);
	return err;
}
