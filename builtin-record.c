/* perf record: options, then the record loop from top to bottom. */
#include "builtin.h"
#include "util/cpumap.h"
#include "util/data.h"
#include "util/evlist.h"
#include "util/parse-events.h"
#include "util/parse-options.h"
#include "util/record.h"
#include "util/synthetic.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

static const char *const record_usage[] = {
	"perf record [<options>] [<command>]",
	"perf record [<options>] -- <command> [<options>]",
	NULL
};

struct record {
	struct record_opts opts;
	struct evlist *evlist;
	struct perf_data data;
	struct record_stats stats;
	struct workload workload;
	int sig_fd;
	int argc;
	const char **argv;
	char err[1024];
};

static struct record *opt_record(const struct option *opt)
{
	return opt->value;
}

static int opt_event(const struct option *opt, const char *arg, int unset)
{
	struct record *rec = opt_record(opt);

	(void)unset;
	if (parse_events(rec->evlist, arg, rec->err, sizeof(rec->err))) {
		pr_err("%s\n", rec->err);
		return -1;
	}
	return 0;
}

static int opt_positive(const char *name, const char *arg, u64 *out)
{
	if (parse_u64(arg, out) || *out == 0) {
		pr_err("perf record: invalid %s '%s': expected a positive number\n", name, arg);
		return -1;
	}
	return 0;
}

static int opt_count(const struct option *opt, const char *arg, int unset)
{
	(void)unset;
	return opt_positive("-c/--count", arg, &opt_record(opt)->opts.count);
}

static int opt_freq(const struct option *opt, const char *arg, int unset)
{
	(void)unset;
	return opt_positive("-F/--freq", arg, &opt_record(opt)->opts.freq);
}

/* -m: a page count, or a size with B/K/M/G; rounded up to a power of two
 * pages, as perf does. */
static int opt_mmap_pages(const struct option *opt, const char *arg, int unset)
{
	struct record *rec = opt_record(opt);
	u64 page = sysconf(_SC_PAGESIZE), val, pages;
	int has_unit = arg && *arg && strchr("bBkKmMgG", arg[strlen(arg) - 1]);

	(void)unset;
	if (has_unit ? parse_size(arg, &val) : parse_u64(arg, &val))
		goto bad;
	pages = has_unit ? (val + page - 1) / page : val;
	if (pages == 0 || pages > (1ULL << 31))
		goto bad;
	if (!is_pow2(pages)) {
		pages = roundup_pow2(pages);
		if (!rec->opts.quiet)
			pr_err("rounding mmap pages size to %lluK (%llu pages)\n",
			       (unsigned long long)(pages * page / 1024), (unsigned long long)pages);
	}
	rec->opts.mmap_bytes = pages * page;
	return 0;
bad:
	pr_err("perf record: invalid -m/--mmap-pages '%s': expected pages or a size "
	       "like 512K, 16M\n", arg ? arg : "");
	return -1;
}

static int record__setup_signals(struct record *rec)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	rec->sig_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return rec->sig_fd < 0 ? -errno : 0;
}

/* Builds the cpu and thread maps for the target; prints why on failure. */
static int record__setup_maps(struct record *rec)
{
	struct target *t = &rec->opts.target;
	struct cpu_map *cpus = cpu_map__new(t->cpu_list);
	struct thread_map *threads = NULL;

	if (!cpus) {
		pr_err("perf record: cpu list '%s': %s\n", t->cpu_list ? t->cpu_list : "online",
		       errno == ENODEV ? "CPU not online" : "bad syntax (expected e.g. 0-2,4)");
		return -EINVAL;
	}
	if (t->pid || t->tid) {
		const char *list = t->pid ? t->pid : t->tid;

		threads = thread_map__new_str(list, !t->pid);
		if (!threads)
			pr_err("perf record: %s '%s': %s\n", t->pid ? "pid" : "tid", list,
			       errno == ESRCH ? "No such process" : "bad list");
	} else {
		threads = thread_map__new_pid(rec->opts.per_task ? rec->workload.pid : -1);
	}
	if (threads)
		evlist__set_maps(rec->evlist, cpus, threads);
	cpu_map__put(cpus);
	thread_map__put(threads);
	return threads ? 0 : -EINVAL;
}

/* The records that describe what already exists: the kernel map and the
 * tasks being watched, then FINISHED_INIT. */
static int record__synthesize(struct record *rec)
{
	u64 st = record__id_sample_type(rec->evlist);
	static const struct perf_event_header fin = {
		.type = PERF_RECORD_FINISHED_INIT, .size = sizeof(fin)
	};
	struct build_id_cache *bids = build_id_cache__new();
	struct thread_map *threads = rec->evlist->threads;
	struct buf b = { 0 };
	int err;

	if (!bids)
		return -ENOMEM;
	err = synthesize__kernel_mmap(&b, st);
	if (err == -ENOENT && rec->opts.verbose)
		pr_err("Warning: /proc/kallsyms hides addresses (kptr_restrict): no kernel map\n");
	err = 0;
	if (rec->opts.per_task) {
		err = synthesize__comm(&b, rec->workload.pid, rec->workload.pid, "perf-exec", st);
	} else if (threads->map[0] == -1) {
		err = synthesize__all(&b, st, bids);
	} else {
		for (int i = 0; i < threads->nr && !err; i++) {
			err = synthesize__process(&b, threads->map[i], st, bids);
			if (err == -ESRCH)
				err = 0;	/* a thread, or gone: its process covers it */
		}
	}
	buf__add(&b, &fin, sizeof(fin));
	if (!err)
		err = b.err ? b.err : perf_data__write(&rec->data, b.p, b.len);
	buf__release(&b);
	build_id_cache__delete(bids);
	return err;
}

/* Poll set: the signalfd, then every event fd (ring fds wait for data,
 * the others only report POLLHUP when their task is gone). */
static struct pollfd *record__pollfds(struct record *rec, int *nr)
{
	struct evlist *evlist = rec->evlist;
	struct pollfd *pfd;
	int n = 1, k = 1;

	for (int i = 0; i < evlist->nr_entries; i++)
		n += evlist->entries[i]->nr_cpus * evlist->entries[i]->nr_threads;
	pfd = calloc(n, sizeof(*pfd));
	if (!pfd)
		return NULL;
	pfd[0] = (struct pollfd){ .fd = rec->sig_fd, .events = POLLIN };
	for (int i = 0; i < evlist->nr_entries; i++) {
		struct evsel *e = evlist->entries[i];

		for (int j = 0; j < e->nr_cpus * e->nr_threads; j++)
			if (e->fd[j] >= 0)
				pfd[k++] = (struct pollfd){ .fd = e->fd[j] };
	}
	for (int c = 0; c < evlist->nr_mmaps; c++)
		for (int j = 1; j < k; j++)
			if (evlist->fwd[c].pc && pfd[j].fd == evlist->fwd[c].fd)
				pfd[j].events = POLLIN;
	*nr = k;
	return pfd;
}

enum { RUNNING, STOP_SIGNAL, STOP_CHILD, STOP_HUP };

/* Reads pending signals: returns why to stop, or RUNNING. */
static int record__handle_signals(struct record *rec)
{
	struct signalfd_siginfo si;
	int why = RUNNING;

	while (read(rec->sig_fd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGINT:
		case SIGTERM:
		case SIGHUP:
			why = STOP_SIGNAL;
			break;
		case SIGCHLD:
			if (rec->opts.workload && (pid_t)si.ssi_pid == rec->workload.pid &&
			    why == RUNNING)
				why = STOP_CHILD;
			break;
		case SIGUSR2:	/* no --switch-output: nothing to switch */
			break;
		}
	}
	return why;
}

static int record__loop(struct record *rec)
{
	struct pollfd *pfd;
	int nr, alive, why = RUNNING;
	s64 w;

	pfd = record__pollfds(rec, &nr);
	if (!pfd)
		return -ENOMEM;
	alive = nr - 1;
	while (why == RUNNING) {
		w = record__drain_forward(rec->evlist, &rec->data, &rec->stats);
		if (w < 0) {
			free(pfd);
			return w;
		}
		if (poll(pfd, nr, 1000) < 0 && errno != EINTR)
			break;
		if (rec->opts.verbose > 1)
			for (int i = 0; i < nr; i++)
				if (pfd[i].revents)
					pr_err("poll: fd %d revents %#x\n", pfd[i].fd, pfd[i].revents);
		if (pfd[0].revents)
			why = record__handle_signals(rec);
		for (int i = 1; i < nr; i++) {
			if (pfd[i].revents & POLLIN)
				rec->stats.wakeups++;
			if (pfd[i].revents & (POLLHUP | POLLERR)) {
				pfd[i].fd = -1;	/* its task is gone: stop watching it */
				alive--;
			}
		}
		if (!alive && why == RUNNING && !rec->opts.workload)
			why = STOP_HUP;
	}
	free(pfd);
	return 0;
}

static void record__print_summary(struct record *rec)
{
	double mb = (rec->data.data_offset + rec->data.data_size) / 1024.0 / 1024.0;

	if (rec->opts.quiet)
		return;
	if (rec->stats.lost)
		pr_err("Warning: %llu samples lost: the rings filled up (try a bigger -m or "
		       "a lower -F)\n", (unsigned long long)rec->stats.lost);
	pr_err("[ perf record: Woken up %llu times to write data ]\n",
	       (unsigned long long)rec->stats.wakeups);
	pr_err("[ perf record: Captured and wrote %.3f MB %s (%llu samples) ]\n", mb,
	       rec->opts.output, (unsigned long long)rec->stats.samples);
}

int cmd_record(int argc, const char **argv)
{
	struct record rec = {
		.opts = { .output = "perf.data" },
		.sig_fd = -1,
		.workload = { .pid = -1, .go_fd = -1, .err_fd = -1 },
	};
	struct record_opts *opts = &rec.opts;
	const struct option options[] = {
		OPT_CB('e', "event", &rec, "event", "event selector (see 'perf list' names; "
		       "SYS:NAME tracepoints with globs)", opt_event),
		OPT_BOOL('a', "all-cpus", &opts->target.system_wide, "system-wide collection from all CPUs"),
		OPT_STR('C', "cpu", &opts->target.cpu_list, "cpu", "list of cpus to monitor"),
		OPT_STR('p', "pid", &opts->target.pid, "pid", "record events on existing process id"),
		OPT_STR('t', "tid", &opts->target.tid, "tid", "record events on existing thread id"),
		OPT_CB('c', "count", &rec, "n", "event period to sample", opt_count),
		OPT_CB('F', "freq", &rec, "n", "profile at this frequency", opt_freq),
		OPT_CB('m', "mmap-pages", &rec, "pages[,pages]", "number of mmap data pages "
		       "(a power of two) or a size with B/K/M/G", opt_mmap_pages),
		OPT_STR('o', "output", &opts->output, "file", "output file name"),
		OPT_BOOL('g', NULL, &opts->callgraph, "enable call-graph recording (frame pointers)"),
		OPT_BOOL(0, "no-inherit", &opts->no_inherit, "child tasks do not inherit counters"),
		OPT_BOOL('q', "quiet", &opts->quiet, "don't print any message"),
		OPT_COUNT('v', "verbose", &opts->verbose, "be more verbose"),
		OPT_TERMINATOR
	};
	int err = 0, ret = 1, status = 0;
	char *err_line = rec.err;

	/* CMDLINE wants "perf record ..." as typed; parsing reorders argv */
	rec.argv = calloc(argc + 2, sizeof(char *));
	if (rec.argv) {
		rec.argv[0] = "perf";
		memcpy(rec.argv + 1, argv, argc * sizeof(char *));
		rec.argc = argc + 1;
	}
	rec.evlist = evlist__new();
	if (!rec.evlist || !rec.argv) {
		pr_err("perf record: %s\n", strerror(errno));
		return 1;
	}
	argc = parse_options(argc, argv, options, record_usage);
	if (argc < 0) {
		ret = argc == PARSE_OPT_HELP ? 0 : 129;
		goto out;
	}
	opts->workload = argc > 0;
	/* -a/-C watch everything; a workload alone is followed by its pid */
	opts->per_task = opts->workload && !opts->target.system_wide && !opts->target.cpu_list;
	if (!opts->workload && !opts->target.pid && !opts->target.tid)
		opts->target.system_wide = 1;
	if (opts->workload && (opts->target.pid || opts->target.tid)) {
		pr_err("perf record: a command and -p/-t exclude each other\n");
		ret = 129;
		goto out;
	}
	if (!opts->mmap_bytes)
		opts->mmap_bytes = 128 * sysconf(_SC_PAGESIZE);
	if (!rec.evlist->nr_entries && parse_events(rec.evlist, "cycles", rec.err, sizeof(rec.err))) {
		pr_err("%s\n", rec.err);
		goto out;
	}
	err = record__setup_signals(&rec);
	if (err) {
		pr_err("perf record: signals: %s\n", strerror(-err));
		goto out;
	}
	if (opts->workload) {
		err = workload__prepare(&rec.workload, argv);
		if (err) {
			pr_err("perf record: fork: %s\n", strerror(-err));
			goto out;
		}
	}
	if (record__setup_maps(&rec))
		goto out;
	err = record__config(rec.evlist, opts, rec.err, sizeof(rec.err));
	if (!err)
		err = evlist__open(rec.evlist, rec.err, sizeof(rec.err), opts->verbose);
	if (!err)
		err = evlist__mmap(rec.evlist, opts->mmap_bytes, opts->bwd_mmap_bytes,
				   rec.err, sizeof(rec.err));
	if (!err)
		err = perf_data__create(&rec.data, opts->output, rec.evlist, rec.err, sizeof(rec.err));
	if (err) {
		pr_err("perf record: %s\n", err_line);
		goto out;
	}
	err = record__synthesize(&rec);
	if (err) {
		pr_err("perf record: synthesizing existing tasks: %s\n", strerror(-err));
		goto out_abort;
	}
	if (!opts->per_task)
		evlist__enable(rec.evlist);
	if (opts->workload) {
		err = workload__start(&rec.workload);
		if (err) {
			pr_err("perf record: Failed to exec '%s': %s\n", argv[0], strerror(-err));
			goto out_abort;
		}
	}

	err = record__loop(&rec);

	evlist__disable(rec.evlist);
	if (opts->workload)
		status = workload__finish(&rec.workload, 1);
	if (!err) {
		s64 w = record__drain_forward(rec.evlist, &rec.data, &rec.stats);

		err = w < 0 ? w : 0;
	}
	if (err) {
		pr_err("perf record: writing %s: %s\n", opts->output, strerror(-err));
		goto out_abort;
	}
	struct header_info info = {
		.evlist = rec.evlist, .argc = rec.argc, .argv = rec.argv,
		.first_sample_time = rec.stats.first_time, .last_sample_time = rec.stats.last_time,
	};
	err = perf_data__commit(&rec.data, &info, 1, rec.err, sizeof(rec.err));
	if (err) {
		pr_err("perf record: %s\n", rec.err);
		goto out;
	}
	record__print_summary(&rec);
	ret = opts->workload ? workload__exit_code(status) : 0;
	goto out;
out_abort:
	perf_data__abort(&rec.data);
out:
	workload__finish(&rec.workload, 1);
	evlist__delete(rec.evlist);
	if (rec.sig_fd >= 0)
		close(rec.sig_fd);
	free(rec.argv);
	return ret;
}
