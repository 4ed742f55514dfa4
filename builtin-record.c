/* perf record from top to bottom: the options, the set-up, the loop, the
 * end; each step is in record/. */
#include "builtin.h"
#include "util/evlist.h"
#include "util/parse-events.h"
#include "record/drain-thread.h"
#include "record/loop.h"
#include "record/off-cpu.h"
#include "bpf/off-cpu.h"
#include "record/record.h"
#include "record/setup.h"
#include "record/summary.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

/* Before the options: the signals first of all, then the command line as
 * typed and the event list. 0 or -errno after saying why. */
static int record__init(struct record *rec, int argc, const char **argv)
{
	int err = record__setup_signals(rec);

	if (err) {
		pr_err("perf record: signals: %s\n", strerror(-err));
		return err;
	}
	/* CMDLINE wants "perf record ..." as typed; parsing reorders argv */
	rec->argv = calloc(argc + 2, sizeof(char *));
	if (rec->argv) {
		rec->argv[0] = "perf";
		memcpy(rec->argv + 1, argv, argc * sizeof(char *));
		rec->argc = argc + 1;
	}
	rec->evlist = evlist__new();
	if (!rec->evlist || !rec->argv) {
		pr_err("perf record: %s\n", strerror(errno));
		return -ENOMEM;
	}
	return 0;
}

/* The output and the events, checked before anything is opened. 0 or
 * -errno after saying why. */
static int record__setup_events(struct record *rec)
{
	/* a bad output is said now, not after a whole recording; stdout is
	 * taken before the workload is forked, which must not inherit it */
	if (rec->data.pipe ? perf_data__take_stdout(&rec->data, rec->err, sizeof(rec->err)) :
	    perf_data__check_path(rec->opts.output, record__timestamped(rec), rec->err,
				  sizeof(rec->err))) {
		pr_err("perf record: %s\n", rec->err);
		return -EINVAL;
	}
	/* what a --threads recorder killed before its end left beside it */
	if (!rec->data.pipe)
		data_dir__clean_stale(rec->opts.output, rec->opts.verbose);
	if (!rec->evlist->nr_entries &&
	    parse_events(rec->evlist, "cycles", rec->err, sizeof(rec->err))) {
		pr_err("%s\n", rec->err);
		return -EINVAL;
	}
	if (record__add_off_cpu(rec))
		return -EINVAL;
	return record__add_switch_event(rec);
}

/* --dry-run, as perf: everything is parsed and configured, nothing is
 * opened. perf record's exit code. */
static int record__dry_run(struct record *rec)
{
	if (record__config(rec->evlist, &rec->opts, rec->err, sizeof(rec->err))) {
		pr_err("perf record: %s\n", rec->err);
		return 1;
	}
	return 0;
}

/* --control, the workload (forked, waiting for its start), -r, then the
 * events opened and mapped, and tracking. 0 or -errno after saying why. */
static int record__setup(struct record *rec, const char **argv)
{
	struct record_opts *opts = &rec->opts;
	int err;

	if (rec->control_spec && control__open(&rec->control, rec->control_spec, rec->err,
					       sizeof(rec->err))) {
		pr_err("perf record: %s\n", rec->err);
		return -EINVAL;
	}
	/* before a dump can be made: it must find the earlier ones counted */
	err = record__adopt_earlier(rec);
	if (err)
		return err;
	if (opts->workload) {
		err = workload__prepare(&rec->workload, argv);
		if (err) {
			pr_err("perf record: fork: %s\n", strerror(-err));
			return err;
		}
	}
	/* after the fork: the workload keeps its own policy, as with perf;
	 * before the dump's threads start: they inherit it, or a capture
	 * would wait on helpers any other real-time task could starve */
	if (opts->realtime_prio &&
	    sched_setscheduler(0, SCHED_FIFO, &(struct sched_param){ opts->realtime_prio })) {
		err = -errno;
		pr_err("perf record: Could not set realtime priority: %s\n", strerror(errno));
		return err;
	}
	err = record__setup_maps(rec);
	if (err)
		return err;
	err = record__open(rec);
	if (err) {
		pr_err("perf record: %s\n", rec->err);
		return err;
	}
	err = record__setup_tracking(rec);
	return err ? err : drain_threads__setup(rec);
}

/* Recording starts: tracking, what exists already, the events, the
 * workload. 0, or perf record's exit code after saying why: 255 for a
 * workload that could not be run, as the stock's. */
static int record__start(struct record *rec, const char **argv)
{
	struct record_opts *opts = &rec->opts;
	int err;

	if (record__read_kernel_map(rec))
		return 1;	/* said */
	/* tracking first, then /proc: a task born in between is in one or the
	 * other (both is fine), never in neither */
	if (!opts->per_task)
		evlist__enable_tracking(rec->evlist);
	err = record__synthesize(rec);
	if (err)
		return 1;	/* said */
	if (drain_threads__start(rec->threads))
		return 1;	/* said */
	if (record__start_off_cpu(rec))
		return 1;	/* said */
	if (!opts->per_task && !opts->delay_ms)
		evlist__enable(rec->evlist);
	if (opts->workload) {
		err = workload__start(&rec->workload);
		if (err) {
			pr_err("perf record: Failed to exec '%s': %s\n", argv[0], strerror(-err));
			return 255;
		}
	}
	/* -D: tracking runs already, samples start this long after the workload */
	if (opts->nr_delay_edges)
		rec->delay_base = now_ns();
	if (opts->delay_ms && !opts->quiet)
		pr_err("Events disabled\n");
	return 0;
}

/* The end's status, as the stock perf's: a workload killed by a signal
 * makes perf die of that signal, else a signal that stopped the
 * recording does; a workload's exit code is perf's. 0 or the signal to
 * die of, with *code the exit code otherwise. */
static int record__end_status(struct record *rec, int status, int *code)
{
	*code = rec->opts.workload ? workload__exit_code(status) : rec->write_failed;
	if (*code && !rec->opts.workload)
		return 0;	/* a full disk says so, whatever stopped it */
	/* the stock does not catch SIGHUP: it dies of it, workload or not */
	if (rec->stop_signo == SIGHUP)
		return SIGHUP;
	if (rec->opts.workload && WIFSIGNALED(status))
		return WTERMSIG(status);
	return rec->stop_signo;
}

/* Dies of signo, as the stock perf ends after a signal: its parent sees
 * the signal, a shell 128+signo. The signal is the workload's or a
 * user's, not a fault of perf's: no core. */
static void record__die_of(int signo)
{
	sigset_t set;

	fflush(stdout);
	fflush(stderr);
	setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 });
	signal(signo, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, signo);
	raise(signo);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/* The loop, then the end: the last dump or the end of the file, the
 * commands owed an answer, the workload's end, the closing lines. perf
 * record's exit code; *signo the signal to die of after the teardown. */
static int record__run(struct record *rec, int *signo)
{
	int why = RECORD_RUNNING, status = 0, code;
	int err = record__loop(rec, &why);

	/* the reader of -o - is gone: nothing more can be recorded */
	if (err == -EPIPE && why == RECORD_RUNNING)
		why = RECORD_STOP_SIGNAL;
	evlist__disable(rec->evlist);
	if (rec->opts.overwrite)
		err = record__last_dump(rec, err);
	else
		err = record__end_file(rec, err);
	record__send_acks(rec, &rec->acks_owed, "the recorder ended");
	if (rec->opts.workload)
		status = record__wait_workload(rec, why == RECORD_STOP_SIGNAL);
	record__print_summary(rec);
	if (err)
		return 1;	/* a failure says so, whatever stopped it */
	*signo = record__end_status(rec, status, &code);
	return code;
}

/* Whatever was set up, at whatever step it stopped: a file not finished
 * is removed, the workload not started is killed. */
static void record__teardown(struct record *rec)
{
	perf_data__abort(&rec->data);	/* -o - taken, but never started */
	dso_hits__delete(rec->data.hits);	/* a file given up before its end */
	drain_threads__delete(rec->threads);	/* after the header file it holds */
	workload__finish(&rec->workload, 1);
	writer__stop(&rec->writer);
	if (rec->dump && rec->dump->take.slot)
		history__release(rec->history, &rec->dump->take);
	history__delete(rec->history);
	dump__delete(rec->dump);
	tracking__exit(&rec->tracking);
	off_cpu__delete(rec->off_cpu);
	bpf_progs__exit(&rec->bpf);
	bpf_sideband__close(&rec->bpf_sb);
	buf__release(&rec->pending);
	buf__release(&rec->kernel_map);
	switch_output__exit(&rec->so);
	post_dump__exit(&rec->post_dump);
	free(rec->last_dump);
	trigger__exit(&rec->trigger);
	switch_when__exit(&rec->when);
	control_acks__exit(&rec->acks_owed);
	control_acks__exit(&rec->acks_in_flight);
	control__close(&rec->control);
	evlist__delete(rec->evlist);
	if (rec->sig_fd >= 0)
		close(rec->sig_fd);
	free(rec->argv);
}

int cmd_record(int argc, const char **argv)
{
	struct record rec = {
		.opts = { .output = "perf.data", .off_cpu_thresh_ms = OFF_CPU_THRESH_MS },
		.sig_fd = -1,
		.data = { .fd = -1 },
		.workload = { .pid = -1, .go_fd = -1, .err_fd = -1 },
		.control = { .ctl_fd = -1, .ack_fd = -1 },
		.writer = { .efd = -1 },
		.bpf_sb = { .epfd = -1 },
		.tracking_max = TRACKING_MAX_DEFAULT,
		.pending_max = PENDING_MAX_DEFAULT,
		.post_dump = { .sp = { .pid = -1, .out_fd = -1 }, .timeout_ns = POST_DUMP_TIMEOUT_NS,
			       .st = { .last_status = -1 } },
	};
	int ret = 1, signo = 0;

	if (record__init(&rec, argc, argv))
		goto out;
	ret = record__parse_options(&rec, &argc, argv);
	if (ret) {
		ret = ret < 0 ? 0 : ret;	/* -h exits 0 */
		goto out;
	}
	ret = 1;
	if (record__setup_events(&rec))
		goto out;
	if (rec.opts.dry_run) {
		ret = record__dry_run(&rec);
		goto out;
	}
	if (record__setup(&rec, argv)) {
		ret = rec.status ? rec.status : 1;
		goto out;
	}
	ret = record__start(&rec, argv);
	if (!ret)
		ret = record__run(&rec, &signo);
out:
	record__teardown(&rec);
	if (signo)
		record__die_of(signo);
	return ret;
}
