/* Backward ring images for the flight-recorder tests (tests/ring-images.h). */
#include "tests/ring-images.h"
#include "util/event.h"

#include <string.h>

void image_init(struct image *img)
{
	memset(img, 0, sizeof(*img));
	img->m.pc = &img->pc;
	img->m.data = img->data;
	img->m.mask = DATA - 1;
}

/* Writes a sample the way the kernel does in a backward ring: the head
 * moves down by the size, the record goes at the new head. Its TIME field
 * is seq and every other byte is seq & 0xff. */
void put_backward(struct image *img, u16 size, u64 seq)
{
	char rec[512];
	struct perf_event_header *h = (void *)rec;

	memset(rec, (int)(seq & 0xff), size);
	h->type = PERF_RECORD_SAMPLE;
	h->misc = 0;
	h->size = size;
	memcpy(rec + 8 + 24, &seq, 8);
	img->head -= size;
	for (u16 i = 0; i < size; i++)
		img->data[(img->head + i) & (DATA - 1)] = rec[i];
	img->pc.data_head = img->head;
}

/* A THROTTLE record at time seq, its sample_id trailer as ST lays it out
 * (TID, TIME, CPU, IDENTIFIER). */
void put_backward_throttle(struct image *img, u64 seq)
{
	enum { SIZE = 64 };
	char rec[SIZE];
	struct perf_event_header *h = (void *)rec;

	memset(rec, 0, SIZE);
	h->type = PERF_RECORD_THROTTLE;
	h->size = SIZE;
	memcpy(rec + SIZE - 24, &seq, 8);
	img->head -= SIZE;
	for (u16 i = 0; i < SIZE; i++)
		img->data[(img->head + i) & (DATA - 1)] = rec[i];
	img->pc.data_head = img->head;
}

/* A capture of an image as if the previous capture had seen head prev. */
int capture_image(struct ring_copy *rc, struct image *img, u64 prev)
{
	if (!rc->buf && ring_copy__init(rc, &img->m))
		return -1;
	rc->last_head = prev;
	ring_copy__capture(rc, 0);
	return 0;
}

int copy_image(struct ring_copy *rc, struct image *img, u64 prev)
{
	return capture_image(rc, img, prev) || ring_copy__index(rc, ST) ? -1 : 0;
}

u64 time_at(const struct ring_copy *rc, u64 i)
{
	return event__time(ring_copy__record(rc, i), ST);
}

/* Every indexed record intact, oldest first, seqs consecutive ending at last. */
int check_copy(struct ring_copy *rc, u64 last, u64 *first)
{
	for (u64 i = 0; i < rc->idx.nr; i++) {
		const unsigned char *r = (const unsigned char *)ring_copy__record(rc, i);
		u64 seq = time_at(rc, i);
		u16 size = ((const struct perf_event_header *)r)->size;

		if (seq != last - (rc->idx.nr - 1 - i))
			return -1;
		for (u16 k = 40; k < size; k++)
			if (r[k] != (seq & 0xff))
				return -2;
	}
	*first = rc->idx.nr ? time_at(rc, 0) : 0;
	return 0;
}
