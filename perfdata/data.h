/* The perf.data writer: a file made unnamed, its attrs, data and features
 * written, and named only once complete; and the stream mode (-o -). */
#ifndef PERF_DATA_H
#define PERF_DATA_H

#include <limits.h>
#include <sys/types.h>
#include <sys/uio.h>
#include "perfdata/header.h"

struct evlist;
struct compressor;

/* One perf.data being written: an unnamed file (O_TMPFILE) in the final
 * path's directory, linked into place only once complete, so a reader never
 * sees half a file and a crash leaves nothing. Where the filesystem lacks
 * O_TMPFILE, a named temporary .NAME.tmp.PID.XXXXXX instead. */
struct perf_data {
	char *path;		/* final name */
	char *tmp;		/* the named temporary, NULL when unnamed */
	int fd;
	int no_features;	/* given up for a full disk */
	int pipe;		/* -o -: a stream on standard output */
	int pipe_dropped;	/* pipe mode: features too big for a record */
	u64 data_offset;
	u64 data_size;
	u64 attrs_offset, attrs_size;
	u64 nr_ids;		/* the ids those attrs list */
	int comp_level;		/* ring data as COMPRESSED records (0: as it is) */
	u32 comp_mmap_len;	/* the COMPRESSED feature's: what a record may decompress to */
	struct compressor *comp;
	struct buf comp_buf;
	u64 comp_in, comp_out;	/* ring bytes, and the bytes of the records they became */
	char placed[PATH_MAX];	/* after commit: the name the file got */
	/* opened ahead (perf_data__open_ahead()) */
	dev_t dir_dev;		/* in this directory */
	ino_t dir_ino;
	u64 warm_size;		/* the size to be faulted in */
	u64 warm_alloc;		/* ... of it allocated on the disk */
	u64 warm;		/* ... of it in the page cache */
	struct dso_hits *hits;	/* fed every record written, for BUILD_ID (the caller's, or NULL) */
};

/* Checks an output path before anything is recorded: refuses "", "-" (a
 * stream: perf_data__take_stdout()), symbolic links, fifos and other non-files, and a file this user may not
 * replace; moves a directory to PATH.old as the stock perf does; creates
 * and drops a file in the directory for real (read-only filesystem,
 * permissions); removes named temporaries of dead runs. timestamped: the
 * files will be PATH.<timestamp>, so only the directory matters.
 * 0 or -errno with one line in errbuf. */
int perf_data__check_path(const char *path, int timestamped, char *errbuf, size_t errsz);

/* Creates the file (0600, never through a symlink) and writes the attrs
 * with their ids. 0 or -errno with a line in errbuf naming the file. */
int perf_data__create(struct perf_data *d, const char *path, const struct evlist *evlist,
		      char *errbuf, size_t errsz);
/* A file opened ahead of its data, in path's directory, for
 * perf_data__create_ahead(): a dump's name is known only at its trigger,
 * its file can be made before. 0 or -errno; perf_data__abort() frees it. */
int perf_data__open_ahead(struct perf_data *d, const char *path);
/* A file opened ahead, filled by the caller with what it likes (another
 * format: a converted profile), given the name path, which it never
 * replaces (-EEXIST). The file is closed either way, and gone on error. */
int perf_data__place(struct perf_data *d, const char *path);
/* Faults the first bytes of a file opened ahead into the page cache, a
 * chunk at a time until *stop (read atomically: another thread sets it),
 * and allocates them on the disk. A write into a new file pays for each
 * page it adds to the page cache, several times what it pays for the
 * copy; a write into pages that are there pays only the copy. The pages are clean zeros, which the kernel can take back at
 * need; the blocks stay allocated until the file is used or closed.
 * Nothing is done where bytes are more than half the free room
 * (-ENOSPC) or half the free memory (-ENOMEM), nor on tmpfs, whose pages
 * only swap can take back (-EOPNOTSUPP). 0 or -errno; d->warm says how
 * much is in, and a later call goes on from there; once all is in, a call
 * reads it through again, faulting back what the kernel took since. */
int perf_data__warm(struct perf_data *d, u64 bytes, const int *stop);
/* Whether all of the file opened ahead is made (perf_data__warm() got
 * to its end): what is worth reading through again. */
static inline int perf_data__warmed(const struct perf_data *d)
{
	return d->fd >= 0 && d->warm_size && d->warm >= d->warm_size;
}
/* perf_data__create(), in the file opened ahead: taken when path's
 * directory is the one it was opened in (the same inode), else closed;
 * ahead is left empty. */
int perf_data__create_ahead(struct perf_data *d, struct perf_data *ahead, const char *path,
			    const struct evlist *evlist, char *errbuf, size_t errsz);
/* Asks the filesystem for room for bytes more of data, past the end of
 * the file (its size stays), as one allocation before the writes: a
 * filesystem that allocates as the page cache fills (ext4's delayed
 * allocation) then writes a large dump faster. Only a hint: nothing is asked where bytes are more than half the free
 * room (a failed allocation keeps what it got, and the writes would then
 * say what is wrong), a filesystem without it changes nothing, and the
 * file's end drops what was not used. */
void perf_data__reserve(struct perf_data *d, u64 bytes);
/* Append to the data section. 0 or -errno (-ENOSPC ...). */
int perf_data__write(struct perf_data *d, const void *buf, size_t len);
int perf_data__writev(struct perf_data *d, struct iovec *iov, int iovcnt);
/* -z: after perf_data__create(), ring data goes into COMPRESSED records
 * of a zstd stream at level (0: as it is); mmap_len: the most one record
 * may decompress to (the COMPRESSED feature's, for the stock reader). A new
 * file is a new stream: its reader starts from nothing. 0 or -errno. */
int perf_data__set_compression(struct perf_data *d, int level, u32 mmap_len);
/* Ring data: compressed into COMPRESSED records with -z (the rest of the
 * file, synthesized records and FINISHED_ROUND, stays as it is, as the
 * stock perf writes it). 0 or -errno. */
int perf_data__write_ring(struct perf_data *d, struct iovec *iov, int iovcnt);
/* The same, without feeding d->hits: for a writer thread whose records
 * the caller has fed itself. 0 or -errno. */
int perf_data__put_ring(struct perf_data *d, struct iovec *iov, int iovcnt);
/* -z: the ratio of ring bytes to what they were written as (0: none). */
double perf_data__comp_ratio(const struct perf_data *d);
/* Writes the features (dropped on a full disk, keeping the data) and the
 * header, then gives the file its name. keep_old: an existing non-empty
 * file there is first renamed to PATH.old. Otherwise nothing is ever
 * replaced: a taken name becomes PATH-1, PATH-2, ... (a few tries).
 * d->placed gets the name. On failure the file is removed. 0 or -errno
 * with errbuf set. */
int perf_data__commit(struct perf_data *d, const struct header_info *info, int keep_old,
		      char *errbuf, size_t errsz);
/* Changes the name the file gets at commit. 0 or -ENOMEM. */
int perf_data__rename(struct perf_data *d, const char *path);
/* Removes the unfinished file and frees d's strings; safe on a half-built
 * d and after a commit. */
void perf_data__abort(struct perf_data *d);

/* the stream mode (-o -) is part of the writer's interface */
#include "perfdata/pipe-data.h"

#endif
