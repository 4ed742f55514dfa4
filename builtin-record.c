/* perf record from top to bottom: set-up, the loop, the end (its command
 * line is read in util/record-options.c). */
#include "builtin.h"
#include "record/control.h"
#include "util/cpumap.h"
#include "perfdata/data.h"
#include "flight/dump.h"
#include "util/evlist.h"
#include "buildid/held-files.h"
#include "util/parse-events.h"
#include "record/record.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#define NR_FIXED_FDS 4	/* signalfd, control fd, dump writer, BPF side-band */
#define CONTROL_READ_BUDGET (64 << 10)	/* control bytes served per loop round */




static int record__setup_signals(struct record *rec)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGHUP);
	/* a reader of -o - (or of a control ack fifo) that went away is an
	 * EPIPE to handle, not a death; the workload gets a clean mask */
	sigaddset(&set, SIGPIPE);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	rec->sig_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return rec->sig_fd < 0 ? -errno : 0;
}

/* Builds the cpu and thread maps for the target; prints why on failure. */
static int record__setup_maps(struct record *rec)
{
	struct target *t = &rec->opts.target;
	/* --per-thread: every event on any CPU, one ring per thread */
	struct cpu_map *cpus = t->per_thread ? cpu_map__new_any() : cpu_map__new(t->cpu_list);
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
	} else if (t->uid_str) {
		threads = thread_map__new_uid(t->uid);
		if (!threads)
			pr_err("perf record: -u/--uid %s: %s\n", t->uid_str,
			       errno == ESRCH ? "the user runs no process" : strerror(errno));
	} else {
		threads = thread_map__new_pid(rec->opts.per_task ? rec->workload.pid : -1);
	}
	if (threads)
		evlist__set_maps(rec->evlist, cpus, threads);
	cpu_map__put(cpus);
	thread_map__put(threads);
	return threads ? 0 : -EINVAL;
}


/* Poll set: the signalfd, the control fd, then every event fd (ring fds
 * wait for data, the others only report POLLHUP when their task is gone). */
static struct pollfd *record__pollfds(struct record *rec, int *nr)
{
	struct evlist *evlist = rec->evlist;
	struct pollfd *pfd;
	int n = NR_FIXED_FDS, k = NR_FIXED_FDS;

	for (int i = 0; i < evlist->nr_entries; i++)
		n += evlist->entries[i]->nr_cpus * evlist->entries[i]->nr_threads;
	pfd = calloc(n, sizeof(*pfd));
	if (!pfd)
		return NULL;
	pfd[0] = (struct pollfd){ .fd = rec->sig_fd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = rec->control.ctl_fd, .events = POLLIN };
	pfd[2] = (struct pollfd){ .fd = writer__fd(&rec->writer), .events = POLLIN };
	pfd[3] = (struct pollfd){ .fd = bpf_sideband__fd(&rec->bpf_sb), .events = POLLIN };
	for (int i = 0; i < evlist->nr_entries; i++) {
		struct evsel *e = evlist->entries[i];

		for (int j = 0; j < e->nr_cpus * e->nr_threads; j++)
			if (e->fd[j] >= 0)
				pfd[k++] = (struct pollfd){ .fd = e->fd[j] };
	}
	for (int c = 0; c < evlist->nr_mmaps; c++)
		for (int j = NR_FIXED_FDS; j < k; j++)
			if (evlist->fwd[c].pc && pfd[j].fd == evlist->fwd[c].fd)
				pfd[j].events = POLLIN;
	*nr = k;
	return pfd;
}

enum { RUNNING, STOP_SIGNAL, STOP_CHILD, STOP_HUP };

/* Reads pending signals: returns why to stop, or RUNNING. A SIGUSR2 (any
 * number of them) asks for one switch. */
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
		case SIGUSR2:
			if (rec->so.kind == SWITCH_SIGNAL)
				record__ask_switch(rec);
			break;
		}
	}
	return why;
}

/* Serves the commands that are queued (up to a pipe's worth, so a writer
 * that never stops cannot hold the loop away from signals). Work is done
 * once per round whatever the number of commands: a snapshot is acked
 * once its switch is done, and every snapshot queued meanwhile collapses
 * into that one switch; enable/disable end in the last one's state,
 * applied once (each is an ioctl per event and CPU); a stop is served
 * before anything queued. At EOF (the writer of an fd: control closed it)
 * the fd leaves the poll set, or poll would report it for ever. */
static void record__control(struct record *rec, struct pollfd *pfd, int *why)
{
	size_t budget = CONTROL_READ_BUDGET;
	int n, acks = 0, enable = -1;
	enum control_cmd cmd;

	do {
		n = control__fill(&rec->control);
		budget -= n > 0 ? MIN(budget, (size_t)n) : 0;
		while (*why == RUNNING && (cmd = control__next(&rec->control)) != CTL_NONE) {
			/* a snapshot the rate limit drops is answered now */
			if (cmd == CTL_SNAPSHOT && rec->so.kind && record__ask_switch(rec)) {
				rec->acks_owed++;
				continue;
			}
			if (cmd == CTL_ENABLE || cmd == CTL_DISABLE)
				enable = cmd == CTL_ENABLE;
			else if (cmd == CTL_STOP)
				*why = STOP_SIGNAL;
			else if (cmd == CTL_UNKNOWN && rec->opts.verbose)
				pr_err("perf record: --control: unknown command ignored\n");
			acks++;
		}
	} while (n > 0 && budget && *why == RUNNING);
	if (enable >= 0) {
		rec->delay_base = 0;	/* a command overrides what -D had planned */
		enable ? evlist__enable(rec->evlist) : evlist__disable(rec->evlist);
		if (!rec->opts.quiet)
			pr_err("Events %s\n", enable ? "enabled" : "disabled");
	}
	while (acks-- > 0)
		control__ack(&rec->control);
	if (n == 0 || (n < 0 && n != -EAGAIN)) {
		if (n < 0)
			pr_err("perf record: --control: read: %s: no more commands\n", strerror(-n));
		else if (rec->opts.verbose)
			pr_err("perf record: --control: closed by the writer\n");
		pfd->fd = -1;
	}
}

/* -D: the ns of the next enable or disable, 0 when none is planned */
static u64 record__delay_next(struct record *rec)
{
	if (!rec->delay_base || rec->delay_edge >= rec->opts.nr_delay_edges)
		return 0;
	return rec->delay_base + rec->opts.delay_edges[rec->delay_edge] * 1000000ULL;
}

/* -D: enables and disables the events as their times come; after the
 * last range, recording stops, as perf does. */
static void record__delay_step(struct record *rec, int *why)
{
	u64 next;

	while ((next = record__delay_next(rec)) && now_ns() >= next) {
		int on = !(rec->delay_edge++ % 2);

		on ? evlist__enable(rec->evlist) : evlist__disable(rec->evlist);
		if (!rec->opts.quiet)
			pr_err("Events %s\n", on ? "enabled" : "disabled");
		if (!on && rec->delay_edge == rec->opts.nr_delay_edges && *why == RUNNING)
			*why = STOP_SIGNAL;
	}
}

/* ms until deadline (ns), at most cap; 0 when it has passed */
static int ms_until(u64 deadline, int cap)
{
	u64 now = now_ns();

	return deadline <= now ? 0 : (int)MIN((u64)cap, (deadline - now) / 1000000 + 1);
}

static int record__poll_timeout(struct record *rec)
{
	int ms = 1000;

	/* records wait in the rings for the compressor: back soon, not at
	 * the next wakeup (the kernel gave it already), yet not in a spin
	 * that takes the CPU the compressor needs */
	if (rec->drain_behind)
		return 1;

	if (record__delay_next(rec))
		ms = ms_until(record__delay_next(rec), ms);
	/* a binary is held once its MMAP2 is read: soon, before it can be deleted */
	if (rec->tracking.held)
		ms = MIN(ms, HELD_FILES_LATENCY_MS);
	if (writer__busy(&rec->writer))
		return ms;	/* triggers wait for the writer, which wakes the loop */
	if (rec->so.kind == SWITCH_SIZE)
		ms = MIN(ms, 100);
	if (rec->so.kind == SWITCH_TIME)
		ms = ms_until(rec->next_switch, ms);
	if (rec->trigger.due_ns)	/* --switch-output-delay */
		ms = ms_until(rec->trigger.due_ns, ms);
	return ms;
}

/* One round: wait, read signals (a stop wins over everything queued),
 * control commands, drain, then at most one switch for however many
 * triggers came. Every round reads the signals: nothing runs unbounded
 * between two reads. 0 or -errno with the cause printed. */
static int record__loop(struct record *rec, int *why_out)
{
	struct pollfd *pfd;
	int nr, alive, why = RUNNING, err = 0;

	pfd = record__pollfds(rec, &nr);
	if (!pfd)
		return -ENOMEM;
	alive = nr - NR_FIXED_FDS;
	rec->next_switch = now_ns() + MIN(rec->so.period_ns, UINT64_MAX - now_ns());
	while (why == RUNNING) {
		s64 w;

		if (poll(pfd, nr, record__switch_due(rec) ? 0 : record__poll_timeout(rec)) < 0 &&
		    errno != EINTR) {
			err = -errno;
			pr_err("perf record: poll: %s\n", strerror(errno));
			break;
		}
		if (rec->opts.verbose > 1)
			for (int i = 0; i < nr; i++)
				if (pfd[i].revents)
					pr_err("poll: fd %d revents %#x\n", pfd[i].fd, pfd[i].revents);
		if (pfd[0].revents)
			why = record__handle_signals(rec);
		if (why == RUNNING && pfd[1].revents)
			record__control(rec, &pfd[1], &why);
		if (pfd[2].revents) {
			struct dump *d = writer__reap(&rec->writer);

			if (d)
				record__dump_done(rec, d);
		}
		if (pfd[3].revents)
			bpf_sideband__read(&rec->bpf_sb, &rec->bpf);
		if (why != RUNNING)
			break;
		for (int i = NR_FIXED_FDS; i < nr; i++) {
			if (pfd[i].revents & POLLIN)
				rec->stats.wakeups++;
			if (pfd[i].revents & (POLLHUP | POLLERR)) {
				pfd[i].fd = -1;	/* its task is gone: stop watching it */
				alive--;
			}
		}
		if (!alive && !rec->opts.workload)
			why = STOP_HUP;
		record__delay_step(rec, &why);
		w = record__drain_ready(rec);
		if (w < 0) {
			err = w;
			break;
		}
		if (rec->opts.max_size && rec->data.data_size >= rec->opts.max_size &&
		    why == RUNNING) {
			pr_err("[ perf record: perf size limit reached (%llu KB), stopping session ]\n",
			       (unsigned long long)rec->data.data_size >> 10);
			why = STOP_SIGNAL;	/* the workload is terminated, as by a Ctrl-C */
		}
		if (record__switch_due(rec)) {
			err = record__switch(rec);
			if (err)
				break;
		}
	}
	free(pfd);
	*why_out = why;
	return err;
}

/* Waits for the workload to end, answering signals meanwhile: terminate
 * sends it SIGTERM first (recording was stopped by a signal); a signal
 * while waiting sends SIGKILL, so the recorder never hangs on a child that
 * ignores SIGTERM. Returns its wait status. */
static int record__wait_workload(struct record *rec, int terminate)
{
	struct pollfd pfd = { .fd = rec->sig_fd, .events = POLLIN };
	pid_t pid = rec->workload.pid;
	int status = 0;

	if (pid <= 0)
		return 0;
	if (terminate)
		kill(pid, SIGTERM);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (poll(&pfd, 1, 100) > 0 && record__handle_signals(rec) == STOP_SIGNAL)
			kill(pid, SIGKILL);
	}
	rec->workload.pid = -1;
	return status;
}

/* Overwrite mode: what the rings, capture buffers and tracking log take. */
static void record__print_memory(struct record *rec)
{
	struct history *h = rec->history;

	if (h)
		pr_err("[ perf record: memory: history %lluK in chunks of %uK (%lluK in use), %d "
		       "forward rings of %lluK, tracking %lluK ]\n",
		       (unsigned long long)(h->size >> 10), h->chunk_bytes >> 10,
		       (unsigned long long)(history__memory(h) >> 10),
		       h->nr_slots, (unsigned long long)(rec->opts.mmap_bytes >> 10),
		       (unsigned long long)(rec->tracking.log.cap >> 10));
	if (!h || rec->dump->nr_rings)
		pr_err("[ perf record: memory: %d rings of %lluK%s, dump buffers %lluK, tracking "
		       "%lluK ]\n", rec->dump->nr_rings,
		       (unsigned long long)(rec->opts.bwd_mmap_bytes >> 10),
		       evlist__twinned(rec->evlist) ? " and as many twin rings" : "",
		       (unsigned long long)(rec->dump->memory >> 10),
		       (unsigned long long)(rec->tracking.log.cap >> 10));
}

/* --history: what it took in, what it dropped for its size, how well it
 * compressed. */
static void record__print_history(struct record *rec)
{
	const struct history_stats *st = &rec->history->st;

	history__sync(rec->history);
	pr_err("[ perf record: history: %llu records (%.1f MB) taken in, %llu (%.1f MB) "
	       "dropped, oldest first, to stay within %lluM; compressed %.1f:1 ]\n",
	       (unsigned long long)st->records, st->bytes / 1048576.0,
	       (unsigned long long)st->dropped_records, st->dropped_bytes / 1048576.0,
	       (unsigned long long)(rec->history->size >> 20),
	       st->chunk_bytes_out ? (double)st->chunk_bytes_in / st->chunk_bytes_out : 1.0);
}

static void record__print_summary(struct record *rec)
{
	double mb = (rec->data.data_offset + rec->data.data_size) / 1024.0 / 1024.0;
	struct dump_stats *d = &rec->dump_stats;

	if (d->prune_failed)
		pr_err("Warning: tracking: %llu prunes failed for want of memory (the "
		       "--tracking-max-size cap held)\n", (unsigned long long)d->prune_failed);
	if (rec->pending_dropped)
		pr_err("Warning: %llu /no-overwrite/ records dropped, oldest first: more than "
		       "%lluM came between two dumps\n", (unsigned long long)rec->pending_dropped,
		       (unsigned long long)(rec->pending_max >> 20));
	if (rec->opts.quiet)
		return;
	if (rec->trigger.limited)
		pr_err("[ perf record: %llu triggers ignored: over --switch-output-max-rate ]\n",
		       (unsigned long long)rec->trigger.limited);
	/* -v only: libbpf loads and frees probe programs all the time */
	if (rec->opts.verbose && rec->bpf.missed)
		pr_err("[ perf record: %llu BPF programs unloaded before their info was read: "
		       "named, but not in BPF_PROG_INFO ]\n", (unsigned long long)rec->bpf.missed);
	if (rec->stats.lost && rec->opts.overwrite && !rec->history)
		pr_err("Warning: %llu tracking records lost: the forward rings filled up "
		       "before they were read (-m sizes only the sample rings)\n",
		       (unsigned long long)rec->stats.lost);
	else if (rec->stats.lost)
		pr_err("Warning: %llu samples lost: the rings filled up (try a bigger -m or "
		       "a lower -F)\n", (unsigned long long)rec->stats.lost);
	if (rec->opts.overwrite) {
		pr_err("[ perf record: %llu dumps%s, %llu records written (%llu samples); lost: "
		       "%llu dropped by the kernel, ~%llu overwritten before a dump (%llu bytes)%s ]\n",
		       (unsigned long long)d->dumps, d->failed ? " (some failed)" : "",
		       (unsigned long long)d->records, (unsigned long long)d->samples,
		       (unsigned long long)d->kernel_lost, (unsigned long long)d->overwritten_est,
		       (unsigned long long)d->overwritten_bytes,
		       d->trimmed ? ", samples outside the common window left out" : "");
		pr_err("[ perf record: tracking: %llu records (%llu KB) kept, %llu pruned after "
		       "their task exited, %llu evicted by --tracking-max-size; a dump's prelude "
		       "at most %llu records ]\n",
		       (unsigned long long)rec->tracking.nr_records,
		       (unsigned long long)rec->tracking.log.len / 1024,
		       (unsigned long long)rec->tracking.pruned_records,
		       (unsigned long long)rec->tracking.evicted_records,
		       (unsigned long long)rec->prelude_max);
		if (rec->history)
			record__print_history(rec);
		record__print_memory(rec);
		if (rec->opts.verbose)
			pr_err("[ perf record: %llu samples trimmed to the common window, %llu left "
			       "for the next dump, %llu triggers with nothing new, %llu records of "
			       "the twin switches' overlaps left out (dumped once, from the ring "
			       "read first) ]\n",
			       (unsigned long long)d->trimmed, (unsigned long long)d->deferred,
			       (unsigned long long)d->empty, (unsigned long long)d->overlap);
		return;
	}
	pr_err("[ perf record: Woken up %llu times to write data ]\n",
	       (unsigned long long)rec->stats.wakeups);
	if (rec->so.kind)
		pr_err("[ perf record: Captured and wrote %d files ]\n", rec->files);
	else if (rec->data.placed[0] && rec->data.comp_out)
		pr_err("[ perf record: Captured and wrote %.3f MB %s (%llu samples), compressed "
		       "(original %.3f MB, ratio is %.3f) ]\n", mb, rec->data.placed,
		       (unsigned long long)rec->stats.samples, rec->data.comp_in / 1024.0 / 1024.0,
		       perf_data__comp_ratio(&rec->data));
	else if (rec->data.placed[0])
		pr_err("[ perf record: Captured and wrote %.3f MB %s (%llu samples) ]\n", mb,
		       rec->data.placed, (unsigned long long)rec->stats.samples);
}

/* Normal mode, recording over: the last drain, then the file is finished
 * with whatever it holds, after a write error too (a full disk keeps what
 * was written; perf's promise). Returns the error that loses data: a file
 * that could not be finished. */
static int record__end_file(struct record *rec, int err)
{
	if (!err) {
		s64 w = record__drain(rec);

		err = w < 0 ? w : 0;
	}
	if (err) {
		rec->write_failed = 1;
		pr_err("perf record: writing %s: %s: recording stopped, what was written is "
		       "kept\n", rec->opts.output, strerror(-err));
	}
	if (rec->data.fd < 0)
		return 0;	/* rotation could not start a file: said already */
	/* a size or time rotation's empty tail is noise; a signal-style
	 * recorder ends with its last file however empty, as the stock perf
	 * does (one file per dump asked for, plus the closing one) */
	if (rec->so.kind > SWITCH_SIGNAL && rec->files && !rec->stats.samples &&
	    !rec->stats.lost) {
		perf_data__abort(&rec->data);	/* nothing since the last switch */
		return 0;
	}
	return record__finish_file(rec, record__timestamped(rec));
}

/* Overwrite mode: the kernel rings and the capture buffers must fit in
 * memory, said now rather than at the first dump. 0 or -ENOMEM with
 * rec->err set. */
static int record__check_memory(struct record *rec)
{
	u64 ring = rec->opts.bwd_mmap_bytes, avail = meminfo_kb("MemAvailable") * 1024, need;
	int nr = rec->evlist->cpus->nr;

	if (!rec->opts.overwrite || !avail)
		return 0;
	if (rec->opts.history_size) {
		/* the history, and one take of it being written */
		need = nr * rec->opts.mmap_bytes + 2 * rec->opts.history_size;
		if (need <= avail)
			return 0;
		snprintf(rec->err, sizeof(rec->err), "--history: %lluM of history (and a dump's "
			 "take of it) and %d rings need %lluM, only %lluM of memory is available",
			 (unsigned long long)(rec->opts.history_size >> 20), nr,
			 (unsigned long long)(need >> 20), (unsigned long long)(avail >> 20));
		return -ENOMEM;
	}
	need = nr * (ring + rec->opts.mmap_bytes) + dump__memory(nr, ring);
	if (need <= avail)
		return 0;
	snprintf(rec->err, sizeof(rec->err), "--overwrite: %d rings of %lluM and their capture "
		 "buffers need %lluM, only %lluM of memory is available: use a smaller -m", nr,
		 (unsigned long long)(ring >> 20), (unsigned long long)(need >> 20),
		 (unsigned long long)(avail >> 20));
	return -ENOMEM;
}

/* Dumps that come while recording read each ring where it is, standing
 * still, while twin events write into rings of their own: the capture
 * copies nothing and takes the same time for rings of any size. Only for
 * events of whole CPUs (evlist__open_twins() says why); without twins,
 * which take as much memory again in the kernel's rings, dumps copy the
 * rings. Returns whether the twins are open. */
static int record__open_twins(struct record *rec)
{
	char why[256];

	if (!rec->opts.overwrite || rec->opts.per_task || !rec->so.kind || rec->opts.history_size)
		return 0;
	if (!evlist__open_twins(rec->evlist, why, sizeof(why)))
		return 1;
	if (rec->opts.verbose)
		pr_err("[ perf record: %s: dumps copy the rings ]\n", why);
	return 0;
}

/* Overwrite mode: capture buffers for every ring, and the dump writer. */
static int record__setup_dumps(struct record *rec)
{
	int err;

	if (rec->opts.history_size) {
		int nr = rec->evlist->nr_mmaps;

		rec->history = history__new(nr, rec->opts.history_size, rec->opts.history_level);
		if (!rec->history) {
			err = -errno;
			if (errno == EINVAL)
				snprintf(rec->err, sizeof(rec->err), "--history: %lluK is too small for "
					 "%d rings: at least %lluK", (unsigned long long)
					 (rec->opts.history_size >> 10), nr,
					 (unsigned long long)(history__min_size(nr) >> 10));
			else
				snprintf(rec->err, sizeof(rec->err), "--history: %s", strerror(errno));
			return err;
		}
		rec->dump_opts.history_slots = nr;
	}
	rec->dump = dump__new(rec->evlist, record__id_sample_type(rec->evlist), &rec->dump_opts);
	if (!rec->dump) {
		err = -errno;
		snprintf(rec->err, sizeof(rec->err), "capture buffers: %s", strerror(errno));
		return err;
	}
	err = writer__start(&rec->writer, &dump__writer_ops);
	if (err) {
		snprintf(rec->err, sizeof(rec->err), "dump writer: %s", strerror(-err));
		return err;
	}
	writer__warm(&rec->writer, rec->dump, rec->opts.output);
	if (rec->opts.verbose)
		record__print_memory(rec);
	return 0;
}

/* --switch-output-event: a forward event whose samples trigger a switch. */
static int record__add_switch_event(struct record *rec)
{
	int before = rec->evlist->nr_entries;

	if (!rec->switch_event)
		return 0;
	if (parse_events(rec->evlist, rec->switch_event, rec->err, sizeof(rec->err))) {
		pr_err("%s\n", rec->err);
		return -EINVAL;
	}
	for (int i = before; i < rec->evlist->nr_entries; i++) {
		rec->evlist->entries[i]->overwrite = 0;
		rec->evlist->entries[i]->wake_each = 1;
	}
	rec->switch_evsel = rec->evlist->entries[before];
	return 0;
}

int cmd_record(int argc, const char **argv)
{
	struct record rec = {
		.opts = { .output = "perf.data" },
		.sig_fd = -1,
		.data = { .fd = -1 },
		.workload = { .pid = -1, .go_fd = -1, .err_fd = -1 },
		.control = { .ctl_fd = -1, .ack_fd = -1 },
		.writer = { .efd = -1 },
		.bpf_sb = { .epfd = -1 },
		.tracking_max = TRACKING_MAX_DEFAULT,
		.pending_max = PENDING_MAX_DEFAULT,
	};
	struct record_opts *opts = &rec.opts;
	int err = 0, ret = 1, status = 0, why = RUNNING, twins = 0;

	/* first of all: a SIGUSR2/SIGINT during set-up must wait for the loop */
	err = record__setup_signals(&rec);
	if (err) {
		pr_err("perf record: signals: %s\n", strerror(-err));
		return 1;
	}
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
		free(rec.argv);
		evlist__delete(rec.evlist);
		close(rec.sig_fd);
		return 1;
	}
	ret = record__parse_options(&rec, &argc, argv);
	if (ret) {
		ret = ret < 0 ? 0 : ret;
		goto out;
	}
	ret = 1;
	/* a bad output is said now, not after a whole recording; stdout is
	 * taken before the workload is forked, which must not inherit it */
	if (rec.data.pipe ? perf_data__take_stdout(&rec.data, rec.err, sizeof(rec.err)) :
	    perf_data__check_path(opts->output, record__timestamped(&rec), rec.err,
				  sizeof(rec.err))) {
		pr_err("perf record: %s\n", rec.err);
		goto out;
	}
	if (!rec.evlist->nr_entries && parse_events(rec.evlist, "cycles", rec.err, sizeof(rec.err))) {
		pr_err("%s\n", rec.err);
		goto out;
	}
	if (record__add_switch_event(&rec))
		goto out;
	if (opts->dry_run) {
		/* as perf: everything is parsed and configured, nothing is opened */
		if (record__config(rec.evlist, opts, rec.err, sizeof(rec.err)))
			pr_err("perf record: %s\n", rec.err);
		else
			ret = 0;
		goto out;
	}
	if (rec.control_spec && control__open(&rec.control, rec.control_spec, rec.err,
					      sizeof(rec.err))) {
		pr_err("perf record: %s\n", rec.err);
		goto out;
	}
	if (opts->workload) {
		err = workload__prepare(&rec.workload, argv);
		if (err) {
			pr_err("perf record: fork: %s\n", strerror(-err));
			goto out;
		}
	}
	/* after the fork: the workload keeps its own policy, as with perf;
	 * before the dump's threads start: they inherit it, or a capture
	 * would wait on helpers any other real-time task could starve */
	if (opts->realtime_prio &&
	    sched_setscheduler(0, SCHED_FIFO, &(struct sched_param){ opts->realtime_prio })) {
		pr_err("perf record: Could not set realtime priority: %s\n", strerror(errno));
		goto out;
	}
	if (record__setup_maps(&rec))
		goto out;
	err = record__config(rec.evlist, opts, rec.err, sizeof(rec.err));
	if (!err)
		err = evlist__open(rec.evlist, rec.err, sizeof(rec.err),
				   opts->quiet ? -1 : opts->verbose);
	if (!err)
		err = record__check_memory(&rec);
	if (!err)
		twins = record__open_twins(&rec);
	if (!err)
		err = evlist__mmap(rec.evlist, opts->mmap_bytes, opts->bwd_mmap_bytes,
				   rec.err, sizeof(rec.err));
	if (!err && twins && !evlist__twinned(rec.evlist) && opts->verbose)
		pr_err("[ perf record: %s: dumps copy the rings ]\n", rec.err);
	if (!err && opts->overwrite)
		err = record__setup_dumps(&rec);
	if (err) {
		pr_err("perf record: %s\n", rec.err);
		goto out;
	}
	tracking__init(&rec.tracking, rec.tracking_max, record__id_sample_type(rec.evlist));
	/* a dump's binaries may be gone by then: hold them while the log maps them */
	if (opts->overwrite && rec.dump_opts.buildid_dir[0] &&
	    !(rec.tracking.held = held_files__new())) {
		pr_err("perf record: holding binaries: %s\n", strerror(errno));
		goto out;
	}
	bpf_progs__init(&rec.bpf);
	/* before the programs are listed: none loads unseen in between */
	err = opts->no_bpf_event ? 0 : bpf_sideband__open(&rec.bpf_sb);
	if (err && opts->verbose)
		pr_err("Warning: BPF side-band events: %s: only the rings tell of programs\n",
		       strerror(-err));
	/* tracking first, then /proc: a task born in between is in one or the
	 * other (both is fine), never in neither */
	if (!opts->per_task)
		evlist__enable_tracking(rec.evlist);
	if (record__synthesize(&rec))
		goto out_abort;	/* said */
	if (!opts->per_task && !opts->delay_ms)
		evlist__enable(rec.evlist);
	if (opts->workload) {
		err = workload__start(&rec.workload);
		if (err) {
			pr_err("perf record: Failed to exec '%s': %s\n", argv[0], strerror(-err));
			goto out_abort;
		}
	}
	/* -D: tracking runs already, samples start this long after the workload */
	if (opts->nr_delay_edges)
		rec.delay_base = now_ns();
	if (opts->delay_ms && !opts->quiet)
		pr_err("Events disabled\n");

	err = record__loop(&rec, &why);
	/* the reader of -o - is gone: nothing more can be recorded */
	if (err == -EPIPE && why == RUNNING)
		why = STOP_SIGNAL;

	evlist__disable(rec.evlist);
	if (opts->overwrite) {
		/* the dump in progress is finished, then the last moments: one
		 * more dump, even after a failed one */
		struct dump *d = writer__wait(&rec.writer);
		int dump_err;

		if (d)
			record__dump_done(&rec, d);
		rec.dump->opts.last = 1;
		dump_err = record__dump(&rec);

		if (!err && dump_err != -ENODATA)
			err = dump_err;
	} else {
		err = record__end_file(&rec, err);
	}
	record__send_acks(&rec, &rec.acks_owed);
	if (opts->workload)
		status = record__wait_workload(&rec, why == STOP_SIGNAL);
	record__print_summary(&rec);
	if (err)
		ret = 1;
	else
		ret = opts->workload ? workload__exit_code(status) : rec.write_failed;
	goto out;
out_abort:
	perf_data__abort(&rec.data);
out:
	perf_data__abort(&rec.data);	/* -o - taken, but never started */
	dso_hits__delete(rec.data.hits);	/* a file given up before its end */
	workload__finish(&rec.workload, 1);
	writer__stop(&rec.writer);
	if (rec.dump && rec.dump->take.slot)
		history__release(rec.history, &rec.dump->take);
	history__delete(rec.history);
	dump__delete(rec.dump);
	tracking__exit(&rec.tracking);
	bpf_progs__exit(&rec.bpf);
	bpf_sideband__close(&rec.bpf_sb);
	buf__release(&rec.pending);
	switch_output__exit(&rec.so);
	trigger__exit(&rec.trigger);
	control__close(&rec.control);
	evlist__delete(rec.evlist);
	if (rec.sig_fd >= 0)
		close(rec.sig_fd);
	free(rec.argv);
	return ret;
}
