/* Records made by hand for the flight-recorder tests, their sample_id
 * trailers laid out as ST says: samples in a buffer, task records in a
 * tracking log. */
#ifndef PERF_TESTS_HAND_RECORDS_H
#define PERF_TESTS_HAND_RECORDS_H

#include "lib/buf.h"
#include "flight/tracking.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

/* A sample with the time t in a buffer of records, its offset in *offs. */
void put_sample(struct buf *b, u32 *offs, u64 *n, u64 t, u32 pid);
/* A FORK or EXIT (pid, tid at time), else a COMM or MMAP2 of that name,
 * added to t's log. */
void put_task_named(struct tracking *t, u32 type, u32 pid, u32 tid, u64 time,
		    const char *name);
/* put_task_named() with the name "name". */
void put_task(struct tracking *t, u32 type, u32 pid, u32 tid, u64 time);

#endif
