/* --threads: drain threads, each reading the forward rings of its CPU
 * mask (record/threads.h) from its own poll set, on its affinity mask,
 * into the data.N files of the stock perf's perf.data directory; the main
 * thread keeps the signals, the control fd, the workload, the switches
 * and the header. */
#ifndef PERF_RECORD_DRAIN_THREAD_H
#define PERF_RECORD_DRAIN_THREAD_H

#include <pthread.h>
#include "lib/util.h"
#include "perfdata/data-dir.h"
#include "record/drain.h"
#include "record/threads.h"

struct drain_threads;
struct header_info;
struct perf_data;
struct record;

/* One drain thread. Its lock is held for each pass over its rings; the
 * main thread takes every thread's to read or switch what they share. */
struct drain_thread {
	struct drain_threads *all;
	int idx;
	pthread_t tid;
	int started;
	pthread_mutex_t lock;
	int efd;			/* eventfd: the main thread says stop */
	int *rings, nr_rings;		/* the indexes of its rings in evlist->fwd */
	struct thread_masks masks;
	struct record_stats stats;	/* under lock, since the file began */
	struct record_stats pub;	/* stats, stored atomically for the main thread */
	u64 bytes;			/* written into its files (atomic) */
	int err;			/* the error that stopped its writes (atomic) */
	int hup;			/* its rings whose events hung up: their tasks are gone (atomic) */
};

/* Every drain thread of a run, and what they write into. */
struct drain_threads {
	struct record *rec;
	struct drain_thread *t;
	int nr;
	struct perf_data *out;		/* [nr_mmaps]: data.N, one per ring (normal mode) */
	struct data_dir dir;		/* the directory being written */
	/* the threads feed what the main thread reads (the tracking log, the
	 * pending buffer: --overwrite, --switch-output): under shared */
	int locked;
	pthread_mutex_t shared;
	pthread_mutex_t hits_lock;	/* the build-id model every thread feeds */
	pthread_mutex_t bpf_lock;	/* the BPF programs seen, fed by every thread and the side band */
	int quiesced;			/* the main thread's depth of drain_threads__quiesce() */
	enum { DRAIN_THREADS_NEW, DRAIN_THREADS_RUNNING, DRAIN_THREADS_STOPPED } running;
};

/* --threads: checks the spec against the recorded CPUs and the other
 * options, and makes rec->threads (not running yet). 0 (also without
 * --threads), or -errno after saying why in the stock's words, with
 * rec->status the stock's exit status for it. */
int drain_threads__setup(struct record *rec);
/* Stops the threads, removes an unfinished directory, frees dt. */
void drain_threads__delete(struct drain_threads *dt);
/* Normal mode, a file begins: makes the directory of output and its
 * data.N files; *header_path: where the header file goes (malloc'd).
 * Called with the threads quiesced or not running. 0 or -errno. */
int drain_threads__open_files(struct drain_threads *dt, const char *output, char **header_path);
/* Normal mode, a file ends: commits the header file in the directory
 * (with DIR_FORMAT), closes the data.N files and names the directory
 * path, which goes into rec->data.placed. 0 or -errno with rec->err set. */
int drain_threads__commit(struct drain_threads *dt, const char *path,
			  const struct header_info *info, int keep_old);
/* Starts the threads (once; after the synthesis the main thread writes
 * and feeds the tracking log alone). 0 or -errno, said. */
int drain_threads__start(struct drain_threads *dt);
/* The loop's drain: only sums what the threads counted into rec->stats.
 * 0, or the error a thread met. */
s64 drain_threads__ready(struct drain_threads *dt);
/* Drains every ring now, from the main thread, the threads held. Bytes
 * or -errno. */
s64 drain_threads__drain_all(struct drain_threads *dt);
/* Holds every thread between passes (nested calls count), so that the
 * main thread may read and switch what they share; resume lets them go. */
void drain_threads__quiesce(struct drain_threads *dt);
void drain_threads__resume(struct drain_threads *dt);
/* Stops and joins the threads: what is left in the rings is the main
 * thread's to drain. */
void drain_threads__stop(struct drain_threads *dt);
/* The rings whose events have not hung up: the main thread polls no
 * event (it would take their wakeups), the threads tell it when the
 * tasks watched are gone. */
int drain_threads__alive(const struct drain_threads *dt);
/* The side band's BPF programs read into rec->bpf, which the threads
 * feed too (the programs whose loads the side band lost): under their
 * lock. dt may be NULL (no threads). */
void drain_threads__read_bpf(struct drain_threads *dt, struct record *rec);
/* Bytes the threads wrote into the files since they began. */
u64 drain_threads__bytes(const struct drain_threads *dt);

#endif
