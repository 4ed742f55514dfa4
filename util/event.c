/* Records this perf builds (with their sample_id trailer) and reads: the
 * trailer's fields, a record's time, its type's name, and the size the
 * kernel should have given a KSYMBOL or BPF_EVENT record. */
#include "util/event.h"

#include <errno.h>
#include <string.h>

size_t event__begin(struct buf *b, u32 type, u16 misc)
{
	struct perf_event_header h = { .type = type, .misc = misc };
	size_t start = b->len;

	buf__add(b, &h, sizeof(h));
	return start;
}

size_t event__end(struct buf *b, size_t start, u64 sample_type, const struct sample_id *sid)
{
	size_t size;

	buf__zero(b, ALIGN_UP(b->len, 8) - b->len);
	if (sample_type & PERF_SAMPLE_TID) {
		buf__u32(b, sid->pid);
		buf__u32(b, sid->tid);
	}
	if (sample_type & PERF_SAMPLE_TIME)
		buf__u64(b, sid->time);
	if (sample_type & PERF_SAMPLE_ID)
		buf__u64(b, sid->id);
	if (sample_type & PERF_SAMPLE_STREAM_ID)
		buf__u64(b, 0);
	if (sample_type & PERF_SAMPLE_CPU) {
		buf__u32(b, sid->cpu);
		buf__u32(b, 0);
	}
	if (sample_type & PERF_SAMPLE_IDENTIFIER)
		buf__u64(b, sid->id);
	if (b->err)
		return 0;
	size = b->len - start;
	((struct perf_event_header *)(b->p + start))->size = size;
	return size;
}

size_t event__id_size(u64 sample_type)
{
	return sizeof(u64) * __builtin_popcountll(sample_type & (PERF_SAMPLE_TID |
		PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
		PERF_SAMPLE_IDENTIFIER));
}

size_t event__body_end(const struct perf_event_header *h)
{
	/* BPF_EVENT's type, flags, id and tag; KSYMBOL's addr, len, type, flags */
	size_t fixed = sizeof(*h) + 16, len;

	if (h->type == PERF_RECORD_BPF_EVENT)
		return h->size >= fixed ? fixed : 0;
	if (h->type != PERF_RECORD_KSYMBOL || h->size <= fixed)
		return 0;
	len = strnlen((const char *)h + fixed, h->size - fixed);
	/* the name, its NUL, padded to u64s */
	return len < h->size - fixed ? fixed + ALIGN_UP(len + 1, 8) : 0;
}

u16 event__real_size(const struct perf_event_header *h, u64 sample_type)
{
	size_t body = event__body_end(h), size = body + event__id_size(sample_type);

	return body && size < h->size ? size : h->size;
}

u16 event__trim(struct perf_event_header *h, u64 sample_type)
{
	u16 size = event__real_size(h, sample_type), cut = h->size - size;

	h->size = size;
	return cut;
}

int event__parse_id(const struct perf_event_header *h, u64 t, struct sample_id *sid)
{
	return event__parse_id_before(h, event__real_size(h, t), t, sid);
}

int event__parse_id_before(const struct perf_event_header *h, size_t end, u64 t,
			   struct sample_id *sid)
{
	const u64 *p = (const u64 *)((const char *)h + end);
	size_t need = 0;

	memset(sid, 0, sizeof(*sid));
	need += !!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_ID) +
		!!(t & PERF_SAMPLE_STREAM_ID) + !!(t & PERF_SAMPLE_CPU) +
		!!(t & PERF_SAMPLE_IDENTIFIER);
	if (end > h->size || end < sizeof(*h) + need * 8)
		return -EINVAL;
	/* the trailer is read backwards from the record's end */
	if (t & PERF_SAMPLE_IDENTIFIER)
		sid->id = *--p;
	if (t & PERF_SAMPLE_CPU)
		sid->cpu = (u32)*--p;
	if (t & PERF_SAMPLE_STREAM_ID)
		--p;
	if (t & PERF_SAMPLE_ID)
		sid->id = *--p;
	if (t & PERF_SAMPLE_TIME)
		sid->time = *--p;
	if (t & PERF_SAMPLE_TID) {
		u64 v = *--p;

		sid->pid = (u32)v;
		sid->tid = (u32)(v >> 32);
	}
	return 0;
}

int event__set_time(struct perf_event_header *h, u64 t, u64 time)
{
	size_t back = sample_id__time_back(t), size = event__real_size(h, t);

	if (!(t & PERF_SAMPLE_TIME) || size < sizeof(*h) + back)
		return -EINVAL;
	memcpy((char *)h + size - back, &time, sizeof(time));
	return 0;
}

u64 event__time(const struct perf_event_header *h, u64 id_sample_type)
{
	struct sample_id sid;
	u64 t;

	if (h->type == PERF_RECORD_SAMPLE) {
		size_t off = sample__time_offset(id_sample_type);

		if (!(id_sample_type & PERF_SAMPLE_TIME) || h->size < off + sizeof(t))
			return 0;
		memcpy(&t, (const char *)h + off, sizeof(t));
		return t;
	}
	return event__parse_id(h, id_sample_type, &sid) ? 0 : sid.time;
}

const char *event__type_name(u32 type)
{
	static const char *const names[] = {
		[PERF_RECORD_MMAP] = "MMAP", [PERF_RECORD_LOST] = "LOST",
		[PERF_RECORD_COMM] = "COMM", [PERF_RECORD_EXIT] = "EXIT",
		[PERF_RECORD_THROTTLE] = "THROTTLE", [PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
		[PERF_RECORD_FORK] = "FORK", [PERF_RECORD_READ] = "READ",
		[PERF_RECORD_SAMPLE] = "SAMPLE", [PERF_RECORD_MMAP2] = "MMAP2",
		[PERF_RECORD_AUX] = "AUX", [PERF_RECORD_ITRACE_START] = "ITRACE_START",
		[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES", [PERF_RECORD_SWITCH] = "SWITCH",
		[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
		[PERF_RECORD_NAMESPACES] = "NAMESPACES", [PERF_RECORD_KSYMBOL] = "KSYMBOL",
		[PERF_RECORD_BPF_EVENT] = "BPF_EVENT", [PERF_RECORD_CGROUP] = "CGROUP",
		[PERF_RECORD_TEXT_POKE] = "TEXT_POKE",
		[PERF_RECORD_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID",
	};

	static const char *const user[] = {
		"HEADER_ATTR", "HEADER_EVENT_TYPE", "HEADER_TRACING_DATA", "HEADER_BUILD_ID",
		"FINISHED_ROUND", "ID_INDEX", "AUXTRACE_INFO", "AUXTRACE", "AUXTRACE_ERROR",
		"THREAD_MAP", "CPU_MAP", "STAT_CONFIG", "STAT", "STAT_ROUND", "EVENT_UPDATE",
		"TIME_CONV", "HEADER_FEATURE", "COMPRESSED", "FINISHED_INIT",
	};

	if (type >= PERF_RECORD_HEADER_ATTR && type - PERF_RECORD_HEADER_ATTR < ARRAY_SIZE(user))
		return user[type - PERF_RECORD_HEADER_ATTR];
	if (type < ARRAY_SIZE(names) && names[type])
		return names[type];
	return "UNKNOWN";
}

u64 event__cut_oldest(struct buf *b, size_t keep)
{
	size_t cut = 0;
	u64 n = 0;

	while (cut < b->len && b->len - cut > keep) {
		cut += ((const struct perf_event_header *)(b->p + cut))->size;
		n++;
	}
	memmove(b->p, b->p + cut, b->len - cut);
	b->len -= cut;
	return n;
}
