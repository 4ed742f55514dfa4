/* Records made by hand for the flight-recorder tests (tests/hand-records.h). */
#include "tests/hand-records.h"
#include "util/event.h"

#include <string.h>

void put_sample(struct buf *b, u32 *offs, u64 *n, u64 t, u32 pid)
{
	u64 rec[6] = { 0 };
	struct perf_event_header *h = (void *)rec;

	h->type = PERF_RECORD_SAMPLE;
	h->size = sizeof(rec);
	memcpy((char *)rec + SAMPLE_PID_OFFSET, &pid, 4);
	memcpy((char *)rec + SAMPLE_TIME_OFFSET, &t, 8);
	offs[(*n)++] = b->len;
	buf__add(b, rec, sizeof(rec));
}

void put_task_named(struct tracking *t, u32 type, u32 pid, u32 tid, u64 time,
			   const char *name)
{
	struct buf b = { 0 };
	struct sample_id sid = { .pid = pid, .tid = tid, .time = time };
	size_t at = event__begin(&b, type, 0);

	buf__u32(&b, pid);
	if (type == PERF_RECORD_FORK || type == PERF_RECORD_EXIT) {
		buf__u32(&b, pid);
		buf__u32(&b, tid);
		buf__u32(&b, pid);
		buf__u64(&b, time);
	} else {
		buf__u32(&b, tid);
		buf__str0(&b, name);
	}
	event__end(&b, at, ST, &sid);
	tracking__add(t, (const void *)b.p);
	buf__release(&b);
}

void put_task(struct tracking *t, u32 type, u32 pid, u32 tid, u64 time)
{
	put_task_named(t, type, pid, tid, time, "name");
}
