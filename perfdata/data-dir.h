/* The stock perf's perf.data directory (--threads): a header file "data"
 * and one "data.N" of raw records per ring, made under a temporary name
 * beside the final one and named only once complete; and read: its
 * files found and opened relative to the directory, never through a link. */
#ifndef PERF_DATA_DIR_H
#define PERF_DATA_DIR_H

#include <stddef.h>

#include "lib/util.h"

struct perf_data;

/* A perf.data directory being written. */
struct data_dir {
	char *tmp;		/* its name while written: .BASE.dir.PID.XXXXXX, 0700 */
	int dfd;		/* it, opened: the files are made relative to it */
	int nr;			/* data.0 .. data.nr-1 made */
};

/* Makes the directory of path under a temporary name in path's
 * directory. 0 or -errno. */
int data_dir__create(struct data_dir *dd, const char *path);
/* Removes the unfinished directories of path that a recorder killed
 * before it could remove them left beside it: only those named as
 * data_dir__create() names them for path, of a pid that no longer runs,
 * real directories (never a link, nothing followed) this user owns with
 * the mode they were made with, and only their header and data.N files.
 * How many went (verbose: each said). */
int data_dir__clean_stale(const char *path, int verbose);
/* Makes data.idx (0600, never through a link) and gives it to d, whose
 * data section is the whole file (no header). 0 or -errno. */
int data_dir__open_file(struct data_dir *dd, int idx, struct perf_data *d);
/* The path the header file "data" gets in the directory: malloc'd, NULL
 * with errno set. */
char *data_dir__header_path(const struct data_dir *dd);
/* Names the complete directory path (keep_old: an existing one first
 * becomes PATH.old, as the stock perf keeps it; a name taken otherwise
 * makes it PATH-1, PATH-2 ...); placed gets the name. The files in it
 * must be closed or complete. 0 or -errno (then still unnamed). */
int data_dir__place(struct data_dir *dd, const char *path, int keep_old, char *placed,
		    size_t placedsz);
/* Removes the unfinished directory and what it holds; safe after a
 * place and on an empty dd. */
void data_dir__abort(struct data_dir *dd);

/* The record files of an open directory dfd beside its header: every
 * entry named "data." something, in the directory's own order, as the
 * stock perf reads them. The directory is hostile input: an entry that
 * is not a regular file is left out, as the stock perf leaves it out,
 * but a symbolic link is refused (the stock would follow it anywhere).
 * *names: malloc'd array of *nr malloc'd names; on -ELOOP, *names[0]
 * is the link's name. 0 or -errno. */
int data_dir__scan(int dfd, char ***names, int *nr);
void data_dir__free_names(char **names, int nr);

#endif
