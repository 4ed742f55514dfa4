/* tid -> (pid, comm) for perf script, from COMM and FORK records. */
#ifndef PERF_COMM_MAP_H
#define PERF_COMM_MAP_H

#include <sys/types.h>

/* tid -> (pid, comm), an open-addressing hash that grows as needed. */
struct comm_map;

/* NULL with errno set; comm_map__delete() frees it. */
struct comm_map *comm_map__new(void);
void comm_map__delete(struct comm_map *m);
/* Sets tid's comm (and pid); comm may be a string of this map, NULL for
 * a task with no name. 0 or -ENOMEM. */
int comm_map__set(struct comm_map *m, pid_t pid, pid_t tid, const char *comm);
/* A FORK of tid (process pid) from ptid (process ppid): the child is a
 * new task named as its parent is now, or nameless when the parent is
 * (the idle task, tid 0, is "swapper"); what tid was called before is
 * forgotten. 0 or -ENOMEM. */
int comm_map__fork(struct comm_map *m, pid_t pid, pid_t tid, pid_t ppid, pid_t ptid);
/* tid's comm, or NULL if never named; the string belongs to the map. */
const char *comm_map__get(const struct comm_map *m, pid_t tid);
/* The name the stock perf gives a task no COMM named: swapper for tid 0,
 * else ":TID", written in buf. */
const char *comm__unnamed(pid_t tid, char buf[16]);
/* tid's comm, or else comm__unnamed()'s name for it. */
const char *comm_map__name(const struct comm_map *m, pid_t tid, char buf[16]);

#endif
