/* --history: the records drained from the forward rings, kept in user
 * memory as zstd chunks per ring, bounded by size. */
#ifndef PERF_HISTORY_H
#define PERF_HISTORY_H

#include <linux/perf_event.h>
#include <pthread.h>
#include "lib/buf.h"

/* A flight recorder's history in user memory: the
 * records drained from each CPU's forward ring, in that ring's order, kept
 * as independent zstd frames ("chunks") per slot (a ring). User memory is
 * neither pinned nor capped by perf_event_mlock_kb, and perf records
 * compress well, so the same memory reaches much further back than a
 * backward ring. Memory is bounded by size: when the chunks and the open
 * buffers would exceed it, the chunk whose newest record is the oldest of
 * all slots goes first, counted.
 *
 * Each slot fills a raw buffer; a full one goes to the history's
 * compressor thread, which makes it a chunk, and the slot goes on in a
 * spare buffer. The drain that feeds the history runs on the recorder's
 * loop, where every millisecond is a millisecond the kernel's rings fill
 * unread: it only copies, and zstd (most of the recorder's time when it
 * ran inline) runs beside it. A slot waits for the compressor only when every
 * spare is queued, which bounds the memory, and only briefly: then the
 * drain stops, leaves the rest in the kernel's ring, and the loop reads
 * its signals before it comes back.
 *
 * history__take() hands everything recorded so far to a dump, raw buffers
 * included, and the slots go on in new ones, so a dump costs the loop no
 * copy and no compression; history__release() frees what the dump took,
 * and there is one take at a time. */
/* What a walk over records saw: what a dump must know of a chunk before
 * it decompresses it (the tasks its prelude names, whether there is data
 * at all), counted once when the chunk is made. */
struct history_scan {
	u64 samples, lost_records, lost;
	u32 *pids;			/* the samples' tasks, each once, sorted */
	u32 nr_pids, pids_cap;
};

/* Counts the samples and losses among len bytes of whole records and lists
 * their tasks into s (its arrays grow and are kept: history_scan__exit()
 * frees them). 0 or -ENOMEM. */
int history_scan__records(struct history_scan *s, const char *recs, u32 len);
void history_scan__exit(struct history_scan *s);

struct history_chunk {
	struct history_chunk *next;	/* the next newer chunk of the slot */
	u64 newest_time;		/* of its records (rings are nearly, not
					 * quite, in time order: not always the last) */
	u64 samples, lost_records, lost;
	u32 nr_records;
	u32 raw_len;			/* bytes once decompressed */
	u32 len;			/* compressed bytes */
	u32 nr_pids;
	char *raw;			/* a buffer taken before it was compressed: its
					 * records as they came (len = raw_len; no
					 * counts, no tasks: read them off it) */
	u32 data[];			/* nr_pids tasks, then the compressed bytes */
};

static inline const u32 *history_chunk__pids(const struct history_chunk *c)
{
	return c->data;
}

struct history_slot {
	struct history_chunk *oldest, *newest;
	char *raw;			/* the records not yet in a chunk */
	u32 raw_len, raw_nr;
	u64 raw_newest;			/* the newest time among the raw records */
	u64 dropped;			/* records dropped since the last take */
	u64 dropped_last;		/* the time of the newest of them */
};

struct history_stats {
	u64 records, bytes;		/* taken in (bytes as drained) */
	u64 dropped_records, dropped_bytes, dropped_chunks;	/* to stay within size */
	u64 chunk_bytes_in, chunk_bytes_out;	/* compression: raw and compressed */
};

/* A full raw buffer on its way to the compressor. */
struct history_job {
	char *raw;
	u32 len, nr;
	u64 newest;
	int slot;
};

/* The slots' chunk lists, used, the dropped counts and the compressor's
 * stats change under lock: the compressor appends and drops, the loop
 * takes. A slot's raw fields, records and bytes are the loop's alone;
 * cctx and scan the compressor's. */
struct history {
	struct history_slot *slot;
	int nr_slots;
	u64 size;			/* memory cap: chunks and raw buffers */
	u32 chunk_bytes;		/* raw bytes compressed into one chunk */
	int nr_raw;			/* raw buffers: one per slot, and the spares */
	int level;			/* zstd level */
	void *cctx;			/* ZSTD_CCtx */
	u64 used;			/* bytes of chunks (headers included) */
	int taken;			/* a take is out: no second one before its release */
	struct history_scan scan;	/* scratch of the chunk being made */
	struct history_stats st;

	pthread_mutex_t lock;
	pthread_cond_t work;		/* a job queued, or stop */
	pthread_cond_t done;		/* a job done: a spare is back */
	struct history_job *queue;	/* nr_slots entries, a ring */
	int q_head, q_len;
	char **spare;			/* free raw buffers */
	int nr_spare;
	int busy;			/* the compressor holds a job outside the queue */
	int taking;			/* a take waits for that job: take no other */
	int stop;
	int running;			/* the compressor thread was started */
	pthread_t compressor;
};

/* What one take holds: per slot, its chunks and the raw buffer it was
 * filling, all now the take's. */
struct history_take {
	int nr_slots;
	struct history_take_slot {
		struct history_chunk *oldest;
		char *raw;
		u32 raw_len, raw_nr;
		u64 bytes;		/* decompressed, raw buffer included */
		u64 dropped;		/* records dropped before it: the slot wrapped */
		u64 dropped_last;	/* the time of the newest of them: the slot's
					 * history is whole after it */
	} *slot;
	u64 records;
	void *dctx;			/* ZSTD_DCtx of the reads, made by the first */
};

/* Where a read of one slot of a take stands: its chunks oldest first,
 * then its raw buffer. */
struct history_cursor {
	const struct history_chunk *next;
	int raw_done;
};

#define HISTORY_CHUNK_MIN (64U << 10)	/* the biggest record (64K) fits a chunk */
#define HISTORY_CHUNK_MAX (1U << 20)
/* The smallest size for nr slots: eight chunks of the smallest size each,
 * two of them the raw buffers (the one filling, the spare). */
u64 history__min_size(int nr_slots);

/* A history of nr_slots slots in size bytes, compressed at zstd level
 * (1..22) by a thread of its own. NULL with errno set: EINVAL for a size
 * below history__min_size() or a bad level, ENOMEM, or what starting the
 * thread failed with. Freed by history__delete(), which takes half-built
 * ones. */
struct history *history__new(int nr_slots, u64 size, int level);
void history__delete(struct history *h);

/* How long an add waits for the compressor to free a spare buffer. */
#define HISTORY_SPARE_WAIT_MS 20

/* Appends one record (h->size bytes, contiguous) of slot, whose time is
 * time; a slot's records come in its ring's order. 0, -EINVAL for a slot
 * out of range, or -EAGAIN when the slot is full and the compressor
 * freed no spare within HISTORY_SPARE_WAIT_MS: the record was not added,
 * and the caller keeps it (a drain leaves it in the kernel's ring) and
 * offers it again. A chunk that cannot be made for lack of memory drops
 * its records, counted. */
int history__add(struct history *h, int slot, const struct perf_event_header *rec, u64 time);

/* Waits until the compressor has made a chunk of every full buffer handed
 * to it: h->st and h->used are then final for what was added. */
void history__sync(struct history *h);

/* Bytes of memory the history holds now: chunks and raw buffers. */
u64 history__memory(struct history *h);

/* Makes spares at once for a drain that must not stop (a dump's): waits
 * for the buffer being compressed, if any, and the buffers still queued
 * join their slots as they are, uncompressed chunks in their place,
 * counted in the size. 0 or -ENOMEM (nothing moved). */
int history__unqueue(struct history *h);

/* Moves every record recorded so far into t, allocating t->slot and new
 * raw buffers for the history (freed by history__release()); the history
 * goes on empty. It waits for the one buffer being compressed, if any;
 * those still queued go into t as they are (history_chunk.raw), since a
 * take runs on the loop that drains the rings. 0, -EBUSY while a take is
 * out, -ENOMEM (nothing moved). */
int history__take(struct history *h, struct history_take *t);
void history_cursor__init(struct history_cursor *cur, const struct history_take *t, int slot);
/* Appends the next piece of slot's records (a chunk decompressed, or the
 * raw buffer) to out: 1, 0 when none is left, -ENOMEM, or -EINVAL for a
 * chunk that does not decompress to what it said (memory corruption:
 * never expected). */
int history_take__next(struct history_take *t, int slot, struct history_cursor *cur,
		       struct buf *out);
/* Appends all of slot's records, in order, to out. 0 or -errno. */
int history_take__read(struct history_take *t, int slot, struct buf *out);
/* Frees what t took; h may take again. */
void history__release(struct history *h, struct history_take *t);

#endif
