/* The salted open-addressing hash table from sample ids to their owners. */
#include "lib/id-hash.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

static size_t slot_of(const struct id_hash *h, u64 id)
{
	/* ids are sequential kernel counters: mix them before masking */
	u64 x = (id ^ h->salt) * 0x9e3779b97f4a7c15ULL;
	size_t i = (x ^ (x >> 32)) & (h->cap - 1);

	while (h->owners[i] && h->ids[i] != id)
		i = (i + 1) & (h->cap - 1);
	return i;
}

static int id_hash__grow(struct id_hash *h)
{
	struct id_hash n = { .cap = h->cap ? h->cap * 2 : 64, .salt = h->salt };

	if (!h->cap)
		n.salt = hash_salt(h);

	n.ids = calloc(n.cap, sizeof(*n.ids));
	n.owners = calloc(n.cap, sizeof(*n.owners));
	if (!n.ids || !n.owners) {
		free(n.ids);
		free(n.owners);
		return -ENOMEM;
	}
	for (size_t i = 0; i < h->cap; i++) {
		if (h->owners[i]) {
			size_t s = slot_of(&n, h->ids[i]);

			n.ids[s] = h->ids[i];
			n.owners[s] = h->owners[i];
			n.nr++;
		}
	}
	id_hash__exit(h);
	*h = n;
	return 0;
}

int id_hash__add(struct id_hash *h, u64 id, void *owner)
{
	size_t s;

	if ((h->nr + 1) * 2 > h->cap && id_hash__grow(h))
		return -ENOMEM;
	s = slot_of(h, id);
	if (!h->owners[s]) {
		h->ids[s] = id;
		h->owners[s] = owner;
		h->nr++;
	}
	return 0;
}

void *id_hash__find(const struct id_hash *h, u64 id)
{
	return h->cap ? h->owners[slot_of(h, id)] : NULL;
}

void id_hash__exit(struct id_hash *h)
{
	free(h->ids);
	free(h->owners);
	h->ids = NULL;
	h->owners = NULL;
	h->cap = h->nr = 0;
}
