/* Hands the commands this perf does not implement over to the
 * distribution's perf. */
#ifndef PERF_EXEC_CMD_H
#define PERF_EXEC_CMD_H

/* The commands this perf does not implement (report, annotate, sched,
 * archive, ...) are the distribution's perf's: found as DIR/perf with DIR
 * in $PERF_EXEC_PATH (or $PERF_EXEC_PATH itself when it names a file),
 * then beside this one in $PATH; never this binary itself, and a chain
 * of hand-overs that leads back here ends after a few. */

/* Executes the other perf with argv (argv[0] is the command), given the
 * build-id cache buildid_dir as its global --buildid-dir (NULL: none).
 * Returns only on failure: 1, after one line on stderr saying what is
 * missing. */
int exec_cmd__other_perf(int argc, const char **argv, const char *buildid_dir);

#endif
