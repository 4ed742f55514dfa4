/* tid -> (pid, comm) for perf script: an open-addressing hash, grown as
 * COMM and FORK records name more tasks. */
#include "script/comm-map.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct comm_entry {
	pid_t tid;	/* key(tid); 0 marks an empty slot */
	pid_t pid;
	int named;	/* 0: the entry only holds pid (a fork of an unnamed parent) */
	char comm[16];
};

struct comm_map {
	struct comm_entry *slots;
	size_t cap, used;
};

/* 0 marks an empty slot, so tid 0 (the idle task) is stored as INT_MIN. */
static pid_t key(pid_t tid)
{
	return tid == 0 ? (pid_t)0x80000000 : tid;
}

struct comm_map *comm_map__new(void)
{
	struct comm_map *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->cap = 256;
	m->slots = calloc(m->cap, sizeof(*m->slots));
	if (!m->slots) {
		free(m);
		errno = ENOMEM;
		return NULL;
	}
	return m;
}

void comm_map__delete(struct comm_map *m)
{
	if (m)
		free(m->slots);
	free(m);
}

static struct comm_entry *lookup(const struct comm_map *m, pid_t k)
{
	size_t i = ((unsigned)k * 2654435761u) & (m->cap - 1);

	while (m->slots[i].tid && m->slots[i].tid != k)
		i = (i + 1) & (m->cap - 1);
	return &m->slots[i];
}

static int grow(struct comm_map *m)
{
	struct comm_map n = { calloc(m->cap * 2, sizeof(*m->slots)), m->cap * 2, m->used };

	if (!n.slots)
		return -ENOMEM;
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].tid)
			*lookup(&n, m->slots[i].tid) = m->slots[i];
	free(m->slots);
	*m = n;
	return 0;
}

int comm_map__set(struct comm_map *m, pid_t pid, pid_t tid, const char *comm)
{
	struct comm_entry *e;
	char name[sizeof(e->comm)];

	/* comm may be another entry's name (a fork inherits its parent's):
	 * take it before growing frees the table it points into */
	snprintf(name, sizeof(name), "%s", comm ? comm : "");
	if (m->used * 2 >= m->cap && grow(m))
		return -ENOMEM;
	e = lookup(m, key(tid));
	if (!e->tid) {
		e->tid = key(tid);
		m->used++;
	}
	e->pid = pid;
	e->named = comm != NULL;
	memcpy(e->comm, name, sizeof(name));
	return 0;
}

const char *comm_map__get(const struct comm_map *m, pid_t tid)
{
	const struct comm_entry *e = lookup(m, key(tid));

	return e->tid && e->named ? e->comm : NULL;
}

int comm_map__fork(struct comm_map *m, pid_t pid, pid_t tid, pid_t ppid, pid_t ptid)
{
	const struct comm_entry *parent = lookup(m, key(ptid));
	const char *comm = ptid ? NULL : "swapper";

	/* as the stock perf: a parent known under another process is taken
	 * for a stale task (its FORK lost) and is nameless from now on */
	if (parent->tid && parent->pid != ppid) {
		if (comm_map__set(m, ppid, ptid, NULL))
			return -ENOMEM;
	} else if (parent->tid && parent->named) {
		comm = parent->comm;
	}
	/* the child is a new task, whatever the tid named before */
	return comm_map__set(m, pid, tid, comm);
}

const char *comm__unnamed(pid_t tid, char buf[16])
{
	snprintf(buf, 16, tid ? ":%d" : "swapper", (int)tid);
	return buf;
}

const char *comm_map__name(const struct comm_map *m, pid_t tid, char buf[16])
{
	const char *comm = comm_map__get(m, tid);

	return comm ? comm : comm__unnamed(tid, buf);
}
