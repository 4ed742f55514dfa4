/* A hash table from sample ids to their owners (events). */
#ifndef PERF_ID_HASH_H
#define PERF_ID_HASH_H

#include "lib/util.h"

/* Sample id -> owner (an event), open addressing: every sample of a file
 * or a ring is looked up, and a file may hold millions of ids, so this must
 * not be a scan. Salted at random, so that a crafted file cannot put every
 * id in one chain. */
struct id_hash {
	u64 *ids;
	void **owners;		/* NULL marks an empty slot */
	size_t cap, nr;
	u64 salt;
};

/* Adds id (owner non-NULL); a repeated id keeps its first owner. 0 or -ENOMEM. */
int id_hash__add(struct id_hash *h, u64 id, void *owner);
/* The owner of id, or NULL. */
void *id_hash__find(const struct id_hash *h, u64 id);
/* Frees the table; h is empty and reusable afterwards. */
void id_hash__exit(struct id_hash *h);

#endif
