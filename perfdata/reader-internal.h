/* What the reader's parts share: the file's held bytes, events added by
 * a stream's records, the records' walk. Private to perfdata/reader*.c. */
#ifndef PERF_READER_INTERNAL_H
#define PERF_READER_INTERNAL_H

#include "perfdata/reader.h"

/* [off, off + size) of a file, from what is held of it before or after
 * its data section; NULL if it is not all there. */
const char *reader__at(const struct perf_reader *r, u64 off, u64 size);
/* An event of a HEADER_ATTR record: asz bytes of attr, nr_ids ids (any
 * alignment), checked as a file's. 0 or -errno with err. */
int reader__add_attr(struct perf_reader *r, const void *attr, u32 asz, const void *ids,
		     u64 nr_ids, char *err, size_t errsz);
/* The tracing data of a file's feature or of a stream's record (padded
 * to 8 bytes); -EINVAL if malformed. */
int reader__set_tracing_data(struct perf_reader *r, const void *td, u64 size, int padded);
/* A stream's records up to the first that is not a header record
 * (HEADER_ATTR, HEADER_EVENT_TYPE, HEADER_TRACING_DATA, HEADER_BUILD_ID,
 * HEADER_FEATURE), taken in. 0 or -errno with err. */
int reader__open_stream(struct perf_reader *r, char *err, size_t errsz);
/* perf's own record h at off (its size checked), taken in or checked
 * as strictly as the stock perf does; *payload: the bytes of data that
 * follow it (AUXTRACE's). 0 or -errno with err. */
int reader__user_record(struct perf_reader *r, const struct perf_event_header *h, u64 off,
			u64 *payload, char *err, size_t errsz);

#endif
