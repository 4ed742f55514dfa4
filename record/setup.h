/* perf record's set-up steps, in the order the command takes them: the
 * events asked for, the target's maps, the events opened, tracking. */
#ifndef PERF_RECORD_SETUP_H
#define PERF_RECORD_SETUP_H

struct record;

/* --switch-output-event and --switch-output-when's event: forward events
 * whose samples trigger a switch. 0 or -errno after saying why. */
int record__add_switch_event(struct record *rec);
/* Builds the cpu and thread maps of the target (-a, -C, -p, -t, -u, or
 * the workload). 0 or -EINVAL after saying why. */
int record__setup_maps(struct record *rec);
/* Configures, opens and maps the events; in overwrite mode checks that
 * the rings fit in memory, opens the twins where they can be, and sets
 * up the capture buffers and the dump writer. 0 or -errno with rec->err
 * set. */
int record__open(struct record *rec);
/* The tracking log, the binaries it holds, the BPF programs and their
 * side-band. 0 or -errno after saying why. */
int record__setup_tracking(struct record *rec);

#endif
