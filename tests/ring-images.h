/* Backward ring images for the flight-recorder tests: rings written the
 * way the kernel writes a write_backward ring, with no kernel, and the
 * checks of what a ring copy makes of them. */
#ifndef PERF_TESTS_RING_IMAGES_H
#define PERF_TESTS_RING_IMAGES_H

#include "tests/hand-records.h"
#include "flight/ring-copy.h"

#define DATA 4096

struct image {
	struct perf_event_mmap_page pc;
	char data[DATA + DATA];	/* the data, and room for its mirror (mmap__mirror()) */
	struct mmap m;
	u64 head;
};

/* An image with no record written: head 0, its mmap pointing at its data. */
void image_init(struct image *img);
/* Writes a sample the way the kernel does in a backward ring: the head
 * moves down by the size, the record goes at the new head. Its TIME field
 * is seq and every other byte is seq & 0xff. */
void put_backward(struct image *img, u16 size, u64 seq);
/* A THROTTLE record at time seq, its sample_id trailer as ST lays it out
 * (TID, TIME, CPU, IDENTIFIER). */
void put_backward_throttle(struct image *img, u64 seq);
/* A capture of an image as if the previous capture had seen head prev. */
int capture_image(struct ring_copy *rc, struct image *img, u64 prev);
/* capture_image(), then the copy indexed. */
int copy_image(struct ring_copy *rc, struct image *img, u64 prev);
/* The time of the copy's record i. */
u64 time_at(const struct ring_copy *rc, u64 i);
/* Every indexed record intact, oldest first, seqs consecutive ending at last. */
int check_copy(struct ring_copy *rc, u64 last, u64 *first);

#endif
