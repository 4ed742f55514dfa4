/* The commands perf.c dispatches to, one builtin-*.c each. */
#ifndef PERF_BUILTIN_H
#define PERF_BUILTIN_H

int cmd_record(int argc, const char **argv);
int cmd_script(int argc, const char **argv);
int cmd_daemon(int argc, const char **argv);
int cmd_data(int argc, const char **argv);
int cmd_test(int argc, const char **argv);

#endif
