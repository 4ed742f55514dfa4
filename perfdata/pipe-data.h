/* The perf.data writer's stream mode (-o -): standard output taken for
 * the stream, and the stream's header and header records. */
#ifndef PERF_PIPE_DATA_H
#define PERF_PIPE_DATA_H

#include <stddef.h>

struct perf_data;
struct header_info;

/* -o -: takes standard output for a pipe-mode stream, before anything is
 * recorded or forked. A closed or read-only fd and a terminal are
 * refused; a pipe, a file, a socket or a device will do, as nothing is
 * sought. d gets a close-on-exec duplicate, and fd 1 becomes a copy of
 * stderr, so that neither a workload's output nor anything perf prints
 * can get into the stream (the stock perf gives its workload stderr as
 * stdout too). 0 or -errno with one line in errbuf. */
int perf_data__take_stdout(struct perf_data *d, char *errbuf, size_t errsz);
/* Pipe mode, after perf_data__take_stdout(): the pipe header (magic, size
 * 16), each event's attr and ids as a PERF_RECORD_HEADER_ATTR record, and
 * the features as records (header__build_pipe_features()), as the stock
 * perf starts a stream. perf_data__commit() then only closes it. 0 or
 * -errno with a line in errbuf. */
int perf_data__create_pipe(struct perf_data *d, const struct header_info *info,
			   char *errbuf, size_t errsz);

#endif
