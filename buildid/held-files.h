/* Binaries held open for the flight recorder, so that a binary deleted
 * before a dump still goes into the build-id cache. */
#ifndef PERF_HELD_FILES_H
#define PERF_HELD_FILES_H

#include <linux/perf_event.h>
#include "lib/buf.h"
#include "util/event.h"
#include "buildid/mapped-file.h"

struct dso_hits;

/* The flight recorder's binaries, held open: a task that exited and whose
 * binary was deleted (or replaced) before the dump is still symbolized,
 * because the dump's writer copies the binary into the build-id cache
 * from the fd. One fd per distinct executable file (name and build id,
 * or device and inode where the record has no build id)
 * that an MMAP2 of the tracking log maps, opened once, on the loop, when
 * its MMAP2 is logged (an open, no read); closed when the log drops the
 * last record mapping it. Bounded: at most max files (256, or an eighth
 * of RLIMIT_NOFILE); those beyond are counted, not held. The writer
 * reads the first nr entries of a capture while the loop appends: the
 * array never moves, and entries are only closed or moved while no dump
 * is being written. */
/* The longest a tracking record waits in its ring before it is read (and
 * its binary held): a binary deleted sooner after its exec is missed. */
#define HELD_FILES_LATENCY_MS 100

struct held_file {
	char *name;
	u8 bid[BUILD_ID_SIZE];
	int bid_len;
	struct mapped_file_id id;	/* the MMAP2's: a new file under the name
					 * (an upgrade) is another entry */
	int fd;
};

struct held_files {
	struct held_file *f;
	int nr, max;
	u64 refused;		/* files not held: over max, gone, or not the file mapped */
};

/* NULL with errno set; freed (fds closed) with held_files__delete(). */
struct held_files *held_files__new(void);
void held_files__delete(struct held_files *h);
/* A tracking record: an executable MMAP2 of a file not held yet opens it,
 * the file the record says was mapped (mapped_file__open()): a name
 * that now leads elsewhere (a link, a FIFO, another file) is counted in
 * refused, as a file gone. */
void held_files__see(struct held_files *h, const struct perf_event_header *rec);
/* After the log (records back to back) was pruned: closes the files no
 * MMAP2 in it maps any more. Never while a dump is being written. */
void held_files__prune(struct held_files *h, const struct buf *log);
/* Lends the first nr held files (a capture's count) to the DSOs of a dump
 * that have no fd: each gets a dup of the matching one. */
void held_files__lend(const struct held_files *h, int nr, struct dso_hits *s);

#endif
