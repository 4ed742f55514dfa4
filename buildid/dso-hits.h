/* The DSOs of a perf.data being written, and the address-space model that
 * says which of them its samples hit. */
#ifndef PERF_DSO_HITS_H
#define PERF_DSO_HITS_H

#include <sys/uio.h>
#include "lib/buf.h"
#include "util/event.h"
#include "lib/id-hash.h"
#include "buildid/mapped-file.h"

struct evlist;
struct dso_task;

/* One binary the records of a file map: the kernel, a module, the vdso or
 * a file (by name, and by device and inode where known), with its build id and whether a sample of the file hit it. */
struct hit_dso {
	char *name;
	u8 bid[BUILD_ID_SIZE];
	int bid_len;		/* 0: none known yet (read from the file when needed) */
	int kernel;		/* the kernel or a module: cpumode KERNEL in the feature */
	int hit;
	u64 samples;		/* how many of the file's samples hit it */
	int fd;			/* -1, or the file held open (held_files__lend()) */
	int bid_err;		/* -errno: the file could not be read for its build id */
	struct mapped_file_id id;	/* the first map's: the file is read as that
					 * one, never as whatever has its name now */
};

/* Where a sample's IP and PID are, for one event's sample_type. */
struct dso_layout {
	int ip, tid;		/* byte offsets after the header, -1: absent */
	/* the CALLCHAIN's, for the samples the recorder rewrites (off-CPU):
	 * their IP is in the kernel, their user frames are where the task
	 * was; -1 for the others, whose IP is their hit */
	int chain;
};

/* The DSOs of one perf.data being written, and the address-space model
 * that says which of them its samples hit: fed every record the file gets
 * (MMAP/MMAP2 add maps, FORK copies a new process's, an exec COMM drops
 * them, a SAMPLE marks a hit), in file order. Memory: a few words per map
 * of the file's tasks and per DSO. */
struct dso_hits {
	struct hit_dso *d;
	int nr, cap;
	int all;		/* --buildid-all: every DSO with a build id, hit or not */
	int kernel, vdso;	/* index of the kernel's and the vdso's, -1 until known */
	struct dso_layout *layouts;	/* one per event */
	int by_id;		/* samples start with IDENTIFIER: the event by its id */
	struct id_hash ids;	/* sample id -> its layout */
	struct id_hash tasks;	/* pid + 1 -> struct dso_task */
	struct dso_task **task_list;
	int nr_tasks, cap_tasks;
	struct dso_module *mods;	/* /proc/modules, read at the first kernel sample,
					 * by address */
	int nr_mods;		/* -1: not read yet */
	u64 mods_lo, mods_hi;	/* the span of the modules: outside it, the kernel's */
	/* samples come from the few event instances (an id per CPU) and the
	 * few tasks that run on the CPUs at that time, interleaved */
	struct dso_id_slot {
		u64 id;
		const struct dso_layout *l;	/* NULL: empty */
	} recent_ids[64];		/* by id % 64 */
	struct dso_task_slot {
		u32 pid;
		struct dso_task *t;	/* NULL: empty */
	} recent[16];			/* by pid % 16 */
	/* the map each recent task's last user sample hit: a sample of the
	 * same task inside it marks nothing new and needs no lookup (most
	 * are); a record that changes maps empties it */
	struct dso_seen {
		u32 pid;
		int dso;
		u64 start, end;		/* end 0: empty */
	} seen[16];			/* by pid % 16 */
	char *carry;		/* a record split across two iovecs */
	struct dso_pending *pending;	/* user samples in no map yet: retried at the round's end */
	int nr_pending;
	u64 unresolved;		/* user samples in no known map */
	int err;		/* -ENOMEM once a map or a DSO could not be kept */
};

/* A model for the records of a file with evlist's events. all:
 * --buildid-all. NULL with errno set; freed with dso_hits__delete(). */
struct dso_hits *dso_hits__new(const struct evlist *evlist, int all);
void dso_hits__delete(struct dso_hits *s);
/* Learns the ids evlist's events have now (an event opened anew has a
 * new one): 0 or -ENOMEM. */
int dso_hits__add_ids(struct dso_hits *s, const struct evlist *evlist);
/* Feeds whole records (possibly split across the iovecs, as a ring's
 * wrap splits them). */
void dso_hits__feed(struct dso_hits *s, const struct iovec *iov, int iovcnt);
/* The round is complete (FINISHED_ROUND, or the file's end): its maps are
 * all known now, samples that waited for them are looked up again. */
void dso_hits__end_round(struct dso_hits *s);

/* The module's other parts, with their own headers: the BUILD_ID
 * feature's body and the filling of the build-id cache. */
#include "buildid/dso-hits-feature.h"
#include "buildid/dso-cache.h"

#endif
