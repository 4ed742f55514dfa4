/* BPF programs through libbpf: the ones loaded before recording began as
 * KSYMBOL + BPF_EVENT records, and every program's info and BTF for the
 * BPF_PROG_INFO and BPF_BTF features. A reader names samples inside a
 * program from its KSYMBOL; the features let it say more (perf report
 * --header-only -I, annotation) after the program is gone. */
#include "util/bpf-event.h"
#include "util/event.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef PERF_BPF_EVENT_PROG_LOAD
#define PERF_BPF_EVENT_PROG_LOAD 1
#endif
#define KSYM_NAME_LEN 512	/* the kernel's bound on a symbol's name */
#ifndef PERF_RECORD_KSYMBOL_TYPE_BPF
#define PERF_RECORD_KSYMBOL_TYPE_BPF 1
#endif

/* The arrays of bpf_prog_info a feature entry may carry, in the order
 * (and with the bit in its "arrays" mask) the BPF_PROG_INFO format gives
 * them. This perf records every one but the translated code and the map
 * ids, as the stock does. */
static const struct prog_array {
	int bit;
	size_t count;	/* offset of its u32 element count */
	size_t rec;	/* offset of its u32 element size, or 0: fixed */
	u32 fixed;
	size_t ptr;	/* offset of its u64 pointer */
	int unrecorded;
} prog_arrays[] = {
#define OFF(f) offsetof(struct bpf_prog_info, f)
	{ 0, OFF(jited_prog_len), 0, 1, OFF(jited_prog_insns), 0 },
	{ 1, OFF(xlated_prog_len), 0, 1, OFF(xlated_prog_insns), 1 },
	{ 2, OFF(nr_map_ids), 0, sizeof(u32), OFF(map_ids), 1 },
	{ 3, OFF(nr_jited_ksyms), 0, sizeof(u64), OFF(jited_ksyms), 0 },
	{ 4, OFF(nr_jited_func_lens), 0, sizeof(u32), OFF(jited_func_lens), 0 },
	{ 5, OFF(nr_func_info), OFF(func_info_rec_size), 0, OFF(func_info), 0 },
	{ 6, OFF(nr_line_info), OFF(line_info_rec_size), 0, OFF(line_info), 0 },
	{ 7, OFF(nr_jited_line_info), OFF(jited_line_info_rec_size), 0, OFF(jited_line_info), 0 },
	{ 8, OFF(nr_prog_tags), 0, BPF_TAG_SIZE, OFF(prog_tags), 0 },
#undef OFF
};
#define NR_ARRAYS (sizeof(prog_arrays) / sizeof(prog_arrays[0]))

static u32 get32(const void *info, size_t off)
{
	u32 v;

	memcpy(&v, (const char *)info + off, sizeof(v));
	return v;
}

static void set32(void *info, size_t off, u32 v)
{
	memcpy((char *)info + off, &v, sizeof(v));
}

static u64 get64(const void *info, size_t off)
{
	u64 v;

	memcpy(&v, (const char *)info + off, sizeof(v));
	return v;
}

static void set64(void *info, size_t off, u64 v)
{
	memcpy((char *)info + off, &v, sizeof(v));
}

void bpf_progs__init(struct bpf_progs *p)
{
	memset(p, 0, sizeof(*p));
	buf__u32(&p->info, 0);
	buf__u32(&p->btf, 0);
}

void bpf_progs__exit(struct bpf_progs *p)
{
	buf__release(&p->info);
	buf__release(&p->btf);
	free(p->ids);
	free(p->btf_ids);
	memset(p, 0, sizeof(*p));
}

static int id_known(const u32 *ids, size_t nr, u32 id)
{
	for (size_t i = 0; i < nr; i++)
		if (ids[i] == id)
			return 1;
	return 0;
}

/* Adds id to a set; 0 or -ENOMEM. */
static int id_add(u32 **ids, size_t *nr, size_t *cap, u32 id)
{
	if (*nr == *cap) {
		size_t n = *cap ? *cap * 2 : 16;
		u32 *grown = realloc(*ids, n * sizeof(**ids));

		if (!grown)
			return -ENOMEM;
		*ids = grown;
		*cap = n;
	}
	(*ids)[(*nr)++] = id;
	return 0;
}

int bpf_prog_info__check(const void *info, u32 info_len, u64 arrays, u32 data_len)
{
	struct bpf_prog_info full = { 0 };	/* what is not in the file reads as 0 */

	if (info_len > BPF_PROG_INFO_MAX)
		return -EINVAL;
	memcpy(&full, info, MIN(info_len, sizeof(full)));
	for (size_t i = 0; i < NR_ARRAYS; i++) {
		const struct prog_array *a = &prog_arrays[i];
		u64 n = get32(&full, a->count), rec = a->rec ? get32(&full, a->rec) : a->fixed;
		u64 off = get64(&full, a->ptr);

		if ((arrays & (1ULL << a->bit)) && (off > data_len || n * rec > data_len - off))
			return -EINVAL;
	}
	return 0;
}

/* One program as read from the kernel: its info, whose array pointers
 * point into data. */
struct prog {
	struct bpf_prog_info info;
	u32 info_len;
	u8 *data;
	u32 data_len;
	u32 sizes[NR_ARRAYS];
};

/* Reads a program's info twice, for the counts and then the arrays. 0 or
 * -errno (ENOENT when the program is gone). */
static int prog__read(struct prog *pr, int fd)
{
	struct bpf_prog_info counts = { 0 };
	u32 len = sizeof(counts), off = 0;

	memset(pr, 0, sizeof(*pr));
	if (bpf_obj_get_info_by_fd(fd, &counts, &len))
		return -errno;
	for (size_t i = 0; i < NR_ARRAYS; i++) {
		const struct prog_array *a = &prog_arrays[i];
		u32 n = get32(&counts, a->count), rec = a->rec ? get32(&counts, a->rec) : a->fixed;

		if (a->unrecorded)
			continue;
		set32(&pr->info, a->count, n);
		if (a->rec)
			set32(&pr->info, a->rec, rec);
		pr->sizes[i] = ALIGN_UP((u64)n * rec, 8);
		pr->data_len += pr->sizes[i];
	}
	pr->data = calloc(1, pr->data_len ? pr->data_len : 1);
	if (!pr->data)
		return -ENOMEM;
	for (size_t i = 0; i < NR_ARRAYS; i++) {
		if (prog_arrays[i].unrecorded)
			continue;
		set64(&pr->info, prog_arrays[i].ptr, (u64)(uintptr_t)(pr->data + off));
		off += pr->sizes[i];
	}
	pr->info_len = MIN(sizeof(pr->info), BPF_PROG_INFO_MAX);
	if (bpf_obj_get_info_by_fd(fd, &pr->info, &pr->info_len))
		return -errno;
	/* the kernel says how many it has: more than asked for would have
	 * been cut, and the arrays' pointers must stay within data. It zeroes
	 * the pointer of what it withholds (code and addresses, under
	 * kptr_restrict): that array is then empty, here and in the file. */
	off = 0;
	for (size_t i = 0; i < NR_ARRAYS; i++) {
		const struct prog_array *a = &prog_arrays[i];
		u64 rec = a->rec ? get32(&pr->info, a->rec) : a->fixed;
		u64 ptr = (u64)(uintptr_t)(pr->data + off);

		if (a->unrecorded)
			continue;
		if (get64(&pr->info, a->ptr) != ptr) {
			set32(&pr->info, a->count, 0);
			set64(&pr->info, a->ptr, ptr);
		}
		if (get32(&pr->info, a->count) * rec > pr->sizes[i])
			return -EAGAIN;
		off += pr->sizes[i];
	}
	return 0;
}

/* Appends the program's BPF_PROG_INFO entry: info_len, data_len, the
 * arrays mask, the info with its pointers made offsets into data, data. */
static void prog__put(const struct prog *pr, struct buf *b)
{
	struct bpf_prog_info info = pr->info;
	u64 mask = 0;

	for (size_t i = 0; i < NR_ARRAYS; i++) {
		if (prog_arrays[i].unrecorded)
			continue;
		set64(&info, prog_arrays[i].ptr,
		      get64(&info, prog_arrays[i].ptr) - (u64)(uintptr_t)pr->data);
		mask |= 1ULL << prog_arrays[i].bit;
	}
	buf__u32(b, pr->info_len);
	buf__u32(b, pr->data_len);
	buf__u64(b, mask);
	buf__add(b, &info, pr->info_len);
	buf__add(b, pr->data, pr->data_len);
}

/* A feature body starts with its u32 count of entries: one more. */
static void count_one(struct buf *b)
{
	u32 count;

	if (b->err || b->len < sizeof(count))
		return;
	memcpy(&count, b->p, sizeof(count));
	count++;
	memcpy(b->p, &count, sizeof(count));
}

/* The program's BTF into the BPF_BTF body, once per BTF object; returned
 * for naming functions (NULL when it has none). Freed with btf__free(). */
static struct btf *bpf_progs__btf(struct bpf_progs *p, u32 id)
{
	struct btf *btf = id ? btf__load_from_kernel_by_id(id) : NULL;
	const void *raw;
	u32 size;

	if (!btf || id_known(p->btf_ids, p->nr_btf_ids, id))
		return btf;
	raw = btf__raw_data(btf, &size);
	if (!raw || id_add(&p->btf_ids, &p->nr_btf_ids, &p->cap_btf_ids, id))
		return btf;
	buf__u32(&p->btf, id);
	buf__u32(&p->btf, size);
	buf__add(&p->btf, raw, size);
	count_one(&p->btf);
	return btf;
}

/* The kernel's name for function i of a program: bpf_prog_<tag>_<name>,
 * the name being the function's in BTF when the program has func info,
 * else the program's own. */
static void prog__name(const struct prog *pr, struct btf *btf, u32 i, char *name, size_t sz)
{
	const u8 *tag = (const u8 *)(uintptr_t)pr->info.prog_tags + i * BPF_TAG_SIZE;
	const char *fn = pr->info.name;
	size_t n = snprintf(name, sz, "bpf_prog_");

	for (int k = 0; k < BPF_TAG_SIZE && n < sz; k++)
		n += snprintf(name + n, sz - n, "%02x", tag[k]);
	if (btf && i < pr->info.nr_func_info && pr->info.func_info_rec_size >= sizeof(struct bpf_func_info)) {
		const struct bpf_func_info *fi = (const void *)((const char *)(uintptr_t)
			pr->info.func_info + i * pr->info.func_info_rec_size);
		const struct btf_type *t = btf__type_by_id(btf, fi->type_id);
		const char *s = t ? btf__name_by_offset(btf, t->name_off) : NULL;

		if (s && *s)
			fn = s;
	}
	if (*fn && n < sz)
		snprintf(name + n, sz - n, "_%s", fn);
}

/* Reads program fd into p (unless p has it); with out, also appends its
 * KSYMBOL and BPF_EVENT records. 0 or -errno. */
static int bpf_progs__add(struct bpf_progs *p, int fd, struct buf *out, u64 sample_type)
{
	struct sample_id sid = { 0 };
	struct prog pr;
	struct btf *btf;
	int err = prog__read(&pr, fd);

	if (err || id_known(p->ids, p->nr_ids, pr.info.id))
		goto out;
	err = id_add(&p->ids, &p->nr_ids, &p->cap_ids, pr.info.id);
	if (err)
		goto out;
	btf = bpf_progs__btf(p, pr.info.btf_id);
	/* no addresses (the JIT is off, or hidden from us): nothing to name */
	if (out && pr.info.nr_jited_ksyms && pr.info.nr_jited_ksyms == pr.info.nr_jited_func_lens &&
	    pr.info.nr_prog_tags >= pr.info.nr_jited_ksyms) {
		const u64 *addr = (const u64 *)(uintptr_t)pr.info.jited_ksyms;
		const u32 *len = (const u32 *)(uintptr_t)pr.info.jited_func_lens;

		for (u32 i = 0; i < pr.info.nr_jited_ksyms; i++) {
			char name[KSYM_NAME_LEN];
			size_t at = event__begin(out, PERF_RECORD_KSYMBOL, 0);

			prog__name(&pr, btf, i, name, sizeof(name));
			buf__u64(out, addr[i]);
			buf__u32(out, len[i]);
			buf__add(out, &(u16){ PERF_RECORD_KSYMBOL_TYPE_BPF }, sizeof(u16));
			buf__add(out, &(u16){ 0 }, sizeof(u16));
			buf__str0(out, name);
			event__end(out, at, sample_type, &sid);
		}
		size_t at = event__begin(out, PERF_RECORD_BPF_EVENT, 0);

		buf__add(out, &(u16){ PERF_BPF_EVENT_PROG_LOAD }, sizeof(u16));
		buf__add(out, &(u16){ 0 }, sizeof(u16));
		buf__u32(out, pr.info.id);
		buf__add(out, pr.info.tag, BPF_TAG_SIZE);
		event__end(out, at, sample_type, &sid);
	}
	btf__free(btf);
	prog__put(&pr, &p->info);
	count_one(&p->info);
	err = p->info.err ? p->info.err : p->btf.err;
	if (!err && out)
		err = out->err;
out:
	free(pr.data);
	return err;
}

int bpf_progs__synthesize(struct bpf_progs *p, struct buf *out, u64 sample_type)
{
	u32 id = 0;
	int err = 0;

	while (!err) {
		int fd;

		if (bpf_prog_get_next_id(id, &id))
			return errno == ENOENT ? 0 : -errno;
		fd = bpf_prog_get_fd_by_id(id);
		if (fd < 0) {
			if (errno == ENOENT)
				continue;	/* unloaded meanwhile */
			return -errno;
		}
		err = bpf_progs__add(p, fd, out, sample_type);
		close(fd);
		if (err == -ENOENT || err == -EAGAIN) {
			p->missed++;
			err = 0;
		}
	}
	return err;
}

void bpf_progs__saw(struct bpf_progs *p, const struct perf_event_header *h)
{
	u16 type;
	u32 id;
	int fd;

	if (h->type != PERF_RECORD_BPF_EVENT || h->size < sizeof(*h) + 8)
		return;
	memcpy(&type, h + 1, sizeof(type));
	memcpy(&id, (const char *)(h + 1) + 4, sizeof(id));
	if (type != PERF_BPF_EVENT_PROG_LOAD || id_known(p->ids, p->nr_ids, id))
		return;
	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0 || bpf_progs__add(p, fd, NULL, 0))
		p->missed++;
	if (fd >= 0)
		close(fd);
}
