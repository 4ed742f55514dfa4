#ifndef PERF_EVENT_H
#define PERF_EVENT_H

#include <linux/perf_event.h>
#include "util/buf.h"

#ifndef PERF_RECORD_MISC_MMAP_BUILD_ID
#define PERF_RECORD_MISC_MMAP_BUILD_ID (1 << 14)
#endif
#define BUILD_ID_SIZE 20

/* The fields every record ends with under sample_id_all. */
struct sample_id {
	u32 pid, tid;
	u64 time;
	u64 id;
	u32 cpu;
};

/* Builds one record in b: begin() reserves the header, end() appends the
 * sample_id trailer for sample_type, pads to 8 bytes and fills the header.
 * Returns the record's size (0 after a buffer error). */
size_t event__begin(struct buf *b, u32 type, u16 misc);
size_t event__end(struct buf *b, size_t start, u64 sample_type, const struct sample_id *sid);

/* Parses the sample_id trailer of a non-sample record; 0 or -EINVAL. */
int event__parse_id(const struct perf_event_header *h, u64 sample_type, struct sample_id *sid);

const char *event__type_name(u32 type);

#endif
