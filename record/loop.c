/* perf record's loop: poll the rings, the signalfd and the control fd,
 * answer what comes, drain, and switch when a trigger is due. */
#include "record/loop.h"
#include "buildid/held-files.h"
#include "record/drain-thread.h"
#include "record/hotplug.h"
#include "util/evlist.h"
#include "record/record.h"
#include "record/record-state.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#define CONTROL_READ_BUDGET (64 << 10)	/* control bytes served per loop round */

/* First of all in perf record: a SIGUSR2/SIGINT during set-up waits for
 * the loop. */
int record__setup_signals(struct record *rec)
{
	struct sigaction hup;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGUSR2);
	/* a SIGHUP ignored from the start (nohup) stays ignored, as in the
	 * stock, which leaves SIGHUP alone: a blocked signal would reach the
	 * signalfd even so, and end a recording meant to outlive its
	 * terminal */
	if (sigaction(SIGHUP, NULL, &hup) || hup.sa_handler != SIG_IGN)
		sigaddset(&set, SIGHUP);
	/* a reader of -o - (or of a control ack fifo) that went away is an
	 * EPIPE to handle, not a death; the workload gets a clean mask */
	sigaddset(&set, SIGPIPE);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	rec->sig_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return rec->sig_fd < 0 ? -errno : 0;
}

/* Poll set: the fixed fds, then every event fd (ring fds wait for data,
 * the others only report POLLHUP when their task is gone), or with events
 * of whole CPUs only the forward rings' fds. */
struct pollfd *record__pollfds(struct record *rec, int *nr)
{
	struct evlist *evlist = rec->evlist;
	struct pollfd *pfd;
	int n = RECORD_NR_FIXED_FDS, k = RECORD_NR_FIXED_FDS, whole = evlist__whole_cpus(evlist);

	for (int i = 0; i < evlist->nr_entries; i++)
		n += evlist->entries[i]->nr_cpus * evlist->entries[i]->nr_threads;
	n += evlist->nr_mmaps;
	pfd = calloc(n, sizeof(*pfd));
	if (!pfd)
		return NULL;
	pfd[RECORD_PFD_SIGNAL] = (struct pollfd){ .fd = rec->sig_fd, .events = POLLIN };
	pfd[RECORD_PFD_CONTROL] = (struct pollfd){ .fd = rec->control.ctl_fd, .events = POLLIN };
	pfd[RECORD_PFD_WRITER] = (struct pollfd){ .fd = writer__fd(&rec->writer), .events = POLLIN };
	pfd[RECORD_PFD_BPF] = (struct pollfd){ .fd = bpf_sideband__fd(&rec->bpf_sb),
					       .events = POLLIN };
	pfd[RECORD_PFD_HOTPLUG] = (struct pollfd){ .fd = evlist->hotplug.fd, .events = POLLIN };
	pfd[RECORD_PFD_HOOK] = (struct pollfd){ .fd = post_dump__fd(&rec->post_dump),
						.events = POLLIN };
	/* an event of a whole CPU never hangs up, and a CPU that comes back
	 * gets new ones (record/hotplug.c): only its rings are watched */
	/* --threads: none, or this poll would take the rings' wakeups from
	 * their threads (a ring's poll state is one flag, cleared by
	 * whoever polls any of its events first) */
	for (int i = 0; i < evlist->nr_entries && !whole && !rec->threads; i++) {
		struct evsel *e = evlist->entries[i];

		for (int j = 0; j < e->nr_cpus * e->nr_threads; j++)
			if (e->fd[j] >= 0)
				pfd[k++] = (struct pollfd){ .fd = e->fd[j] };
	}
	for (int c = 0; c < evlist->nr_mmaps && whole && !rec->threads; c++)
		if (evlist->fwd[c].pc)
			pfd[k++] = (struct pollfd){ .fd = evlist->fwd[c].fd };
	for (int c = 0; c < evlist->nr_mmaps; c++)
		for (int j = RECORD_NR_FIXED_FDS; j < k; j++)
			if (evlist->fwd[c].pc && pfd[j].fd == evlist->fwd[c].fd)
				pfd[j].events = POLLIN;
	*nr = k;
	return pfd;
}

/* Reads pending signals: returns why to stop, or RECORD_RUNNING. A
 * SIGUSR2 (any number of them) asks for one switch. */
int record__handle_signals(struct record *rec)
{
	struct signalfd_siginfo si;
	int why = RECORD_RUNNING;

	while (read(rec->sig_fd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGINT:
		case SIGTERM:
		case SIGHUP:
			why = RECORD_STOP_SIGNAL;
			if (!rec->stop_signo)
				rec->stop_signo = si.ssi_signo;
			break;
		case SIGCHLD:
			if (rec->opts.workload && (pid_t)si.ssi_pid == rec->workload.pid &&
			    why == RECORD_RUNNING)
				why = RECORD_STOP_CHILD;
			break;
		case SIGUSR2:
			if (rec->so.kind == SWITCH_SIGNAL)
				record__ask_switch(rec, "signal");
			break;
		}
	}
	return why;
}

/* A snapshot: queued for the switch that will answer it, or answered at
 * once with why there will be none. */
static void record__snapshot_cmd(struct record *rec, struct control_ack *ack,
				 struct control_acks *now)
{
	if (!rec->so.kind)
		ack->why = "the recorder runs without --switch-output";
	else if (!record__ask_switch(rec, "control"))
		ack->why = "the trigger is over --switch-output-max-rate";
	else if (control_acks__add(&rec->acks_owed, ack))
		ack->why = "too many commands wait for one dump";
	if (ack->why && control_acks__add(now, ack))
		control__answer(&rec->control, ack, NULL, NULL);
}

/* Serves the commands that are queued (up to a pipe's worth, so a writer
 * that never stops cannot hold the loop away from signals). Work is done
 * once per round whatever the number of commands: a snapshot is acked
 * once its switch is done, and every snapshot queued meanwhile collapses
 * into that one switch; enable/disable end in the last one's state,
 * applied once (each is an ioctl per event and CPU); a stop is served
 * before anything queued. At EOF (the writer of an fd: control closed it)
 * the fd leaves the poll set, or poll would report it for ever. */
void record__control(struct record *rec, struct pollfd *pfd, int *why)
{
	size_t budget = CONTROL_READ_BUDGET;
	struct control_acks now = { 0 };
	struct control_ack ack;
	int n, enable = -1;
	enum control_cmd cmd;

	do {
		n = control__fill(&rec->control);
		budget -= n > 0 ? MIN(budget, (size_t)n) : 0;
		while (*why == RECORD_RUNNING &&
		       (cmd = control__next(&rec->control, &ack)) != CTL_NONE) {
			if (cmd == CTL_SNAPSHOT) {
				record__snapshot_cmd(rec, &ack, &now);
				continue;
			}
			if (cmd == CTL_ENABLE || cmd == CTL_DISABLE)
				enable = cmd == CTL_ENABLE;
			else if (cmd == CTL_STOP)
				*why = RECORD_STOP_SIGNAL;
			else if (cmd == CTL_UNKNOWN && rec->opts.verbose)
				pr_err("perf record: --control: unknown command ignored\n");
			if (control_acks__add(&now, &ack))
				control__answer(&rec->control, &ack, NULL, NULL);
		}
	} while (n > 0 && budget && *why == RECORD_RUNNING);
	if (enable >= 0) {
		rec->delay_base = 0;	/* a command overrides what -D had planned */
		enable ? evlist__enable(rec->evlist) : evlist__disable(rec->evlist);
		if (!rec->opts.quiet)
			pr_err("Events %s\n", enable ? "enabled" : "disabled");
	}
	control__answer_all(&rec->control, &now, NULL, NULL);
	control_acks__exit(&now);
	if (n == 0 || (n < 0 && n != -EAGAIN)) {
		if (n < 0)
			pr_err("perf record: --control: read: %s: no more commands\n", strerror(-n));
		else if (rec->opts.verbose)
			pr_err("perf record: --control: closed by the writer\n");
		pfd->fd = -1;
	}
}

/* -D: the ns of the next enable or disable, 0 when none is planned */
u64 record__delay_next(struct record *rec)
{
	if (!rec->delay_base || rec->delay_edge >= rec->opts.nr_delay_edges)
		return 0;
	return rec->delay_base + rec->opts.delay_edges[rec->delay_edge] * 1000000ULL;
}

/* -D: enables and disables the events as their times come; after the
 * last range, recording stops, as perf does. */
void record__delay_step(struct record *rec, int *why)
{
	u64 next;

	while ((next = record__delay_next(rec)) && now_ns() >= next) {
		int on = !(rec->delay_edge++ % 2);

		on ? evlist__enable(rec->evlist) : evlist__disable(rec->evlist);
		if (!rec->opts.quiet)
			pr_err("Events %s\n", on ? "enabled" : "disabled");
		if (!on && rec->delay_edge == rec->opts.nr_delay_edges && *why == RECORD_RUNNING)
			*why = RECORD_STOP_SIGNAL;
	}
}

/* ms until deadline (ns), at most cap; 0 when it has passed */
static int ms_until(u64 deadline, int cap)
{
	u64 now = now_ns();

	return deadline <= now ? 0 : (int)MIN((u64)cap, (deadline - now) / 1000000 + 1);
}

int record__poll_timeout(struct record *rec)
{
	int ms = 1000;

	/* records wait in the rings for the compressor: back soon, not at
	 * the next wakeup (the kernel gave it already), yet not in a spin
	 * that takes the CPU the compressor needs */
	if (rec->drain_behind)
		return 1;

	ms = post_dump__timeout_ms(&rec->post_dump, ms);
	if (rec->state_path && rec->state_dirty)
		ms = ms_until(rec->state_next_ns, ms);
	if (record__delay_next(rec))
		ms = ms_until(record__delay_next(rec), ms);
	/* a binary is held once its MMAP2 is read: soon, before it can be deleted */
	if (rec->tracking.held)
		ms = MIN(ms, HELD_FILES_LATENCY_MS);
	if (writer__busy(&rec->writer))
		return ms;	/* triggers wait for the writer, which wakes the loop */
	/* sizes the threads write are counted here, no wakeup says them */
	if (rec->so.kind == SWITCH_SIZE || (rec->opts.max_size && rec->threads))
		ms = MIN(ms, 100);
	if (rec->so.kind == SWITCH_TIME)
		ms = ms_until(rec->next_switch, ms);
	if (rec->trigger.due_ns)	/* --switch-output-delay */
		ms = ms_until(rec->trigger.due_ns, ms);
	return ms;
}

/* The fixed fds: signals first (a stop wins over everything queued), then
 * control commands, a dump the writer finished, a BPF program loaded, a
 * CPU that went or came back. */
static void record__serve_fixed(struct record *rec, struct pollfd *pfd, int *why)
{
	if (pfd[RECORD_PFD_SIGNAL].revents)
		*why = record__handle_signals(rec);
	if (*why == RECORD_RUNNING && pfd[RECORD_PFD_CONTROL].revents)
		record__control(rec, &pfd[RECORD_PFD_CONTROL], why);
	if (pfd[RECORD_PFD_WRITER].revents) {
		struct dump *d = writer__reap(&rec->writer);

		if (d)
			record__dump_done(rec, d);
	}
	if (pfd[RECORD_PFD_BPF].revents)
		drain_threads__read_bpf(rec->threads, rec);
	/* after the writer's: a CPU back waits for the dump it was writing */
	record__hotplug(rec, pfd[RECORD_PFD_HOTPLUG].revents != 0);
	/* every round: a SIGCHLD, its output or its timeout, never a wait */
	post_dump__serve(&rec->post_dump);
	record__write_state(rec, post_dump__changed(&rec->post_dump));
}

/* The event fds: counts the wakeups, and stops watching an fd whose task
 * is gone. How many of the alive ones are still watched. */
static int record__watch_events(struct record *rec, struct pollfd *pfd, int nr, int alive)
{
	for (int i = RECORD_NR_FIXED_FDS; i < nr; i++) {
		if (pfd[i].revents & POLLIN)
			rec->stats.wakeups++;
		if (pfd[i].revents & (POLLHUP | POLLERR)) {
			pfd[i].fd = -1;	/* its task is gone: stop watching it */
			alive--;
		}
	}
	return alive;
}

/* --max-size: the file holds that much (with --threads, the header
 * file's and every thread's, as the stock counts them); the workload is
 * terminated, as by a Ctrl-C. */
static void record__check_size(struct record *rec, int *why)
{
	u64 size = rec->data.data_size + drain_threads__bytes(rec->threads);

	if (rec->opts.max_size && size >= rec->opts.max_size && *why == RECORD_RUNNING) {
		pr_err("[ perf record: perf size limit reached (%llu KB), stopping session ]\n",
		       (unsigned long long)size >> 10);
		*why = RECORD_STOP_SIGNAL;
	}
}

/* One round: wait, read signals (a stop wins over everything queued),
 * control commands, drain, then at most one switch for however many
 * triggers came. Every round reads the signals: nothing runs unbounded
 * between two reads. */
int record__loop(struct record *rec, int *why_out)
{
	struct pollfd *pfd;
	int nr, alive, why = RECORD_RUNNING, err = 0;

	pfd = record__pollfds(rec, &nr);
	if (!pfd)
		return -ENOMEM;
	alive = rec->threads ? drain_threads__alive(rec->threads) : nr - RECORD_NR_FIXED_FDS;
	record__hotplug_start(rec);
	rec->next_switch = now_ns() + MIN(rec->so.period_ns, UINT64_MAX - now_ns());
	record__write_state(rec, 1);	/* the recorder is up */
	while (why == RECORD_RUNNING) {
		s64 w;

		/* a run may have started anywhere in the last round */
		pfd[RECORD_PFD_HOOK].fd = post_dump__fd(&rec->post_dump);
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
		record__serve_fixed(rec, pfd, &why);
		if (why == RECORD_STOP_SIGNAL)
			break;	/* a user's stop wins over everything queued */
		alive = rec->threads ? drain_threads__alive(rec->threads) :
			record__watch_events(rec, pfd, nr, alive);
		if (!alive && !rec->opts.workload)
			why = RECORD_STOP_HUP;
		if (why == RECORD_RUNNING)
			record__delay_step(rec, &why);
		/* the tasks ended: a trigger they fired before, still in a ring
		 * no wakeup announced, gets its switch before the last dump
		 * (--threads: their drain is theirs, to the end) */
		w = why == RECORD_RUNNING || rec->threads ? record__drain_ready(rec) :
		    record__drain(rec);
		if (w < 0) {
			err = w;
			break;
		}
		record__check_size(rec, &why);
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
int record__wait_workload(struct record *rec, int terminate)
{
	struct pollfd pfd = { .fd = rec->sig_fd, .events = POLLIN };
	pid_t pid = rec->workload.pid;
	int status = 0;

	if (pid <= 0)
		return 0;
	if (terminate)
		kill(pid, SIGTERM);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (poll(&pfd, 1, 100) > 0 && record__handle_signals(rec) == RECORD_STOP_SIGNAL)
			kill(pid, SIGKILL);
	}
	rec->workload.pid = -1;
	return status;
}
