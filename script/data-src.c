/* perf script -F data_src: a sample's memory source, spelled as the
 * stock perf spells it (perf mem's words). */
#include "script/script-internal.h"

#include <string.h>

/* The names of a field's bits, lowest first, joined by " or " into str. */
static void mem_bits(struct buf *str, u64 bits, const char *const *names, size_t nr)
{
	int n = 0;

	for (size_t i = 0; i < nr; i++) {
		if (!(bits & (1ULL << i)))
			continue;
		buf__add(str, " or ", n++ ? 4 : 0);
		buf__add(str, names[i], strlen(names[i]));
	}
}

static void mem_str(struct buf *str, const char *s)
{
	buf__add(str, s, strlen(s));
}

/* "N/A" for a part that said nothing since start, then hit or miss */
static void mem_end(struct buf *str, size_t start, int hit, int miss)
{
	if (str->len == start)
		mem_str(str, "N/A");
	if (hit)
		mem_str(str, " hit");
	if (miss)
		mem_str(str, " miss");
}

static void mem_op(struct buf *str, u64 op)
{
	mem_str(str, op & PERF_MEM_OP_NA ? "N/A" : op & PERF_MEM_OP_LOAD ? "LOAD" :
		op & PERF_MEM_OP_STORE ? "STORE" : op & PERF_MEM_OP_PFETCH ? "PFETCH" :
		op & PERF_MEM_OP_EXEC ? "EXEC" : "No");
}

/* The cache level: the old bit field (or the hops of a remote access),
 * then the level number, then whether it hit or missed. */
static void mem_lvl(struct buf *str, u64 ds)
{
	static const char *const lvl[] = { "N/A", "HIT", "MISS", "L1", "LFB/MAB", "L2", "L3",
		"Local RAM", "Remote RAM (1 hop)", "Remote RAM (2 hops)", "Remote Cache (1 hop)",
		"Remote Cache (2 hops)", "I/O", "Uncached" };
	static const char *const hops[] = { "N/A", "core, same node", "node, same socket",
		"socket, same board", "board", "?", "?", "?" };
	static const char *const lvlnum[16] = { [PERF_MEM_LVLNUM_CXL] = "CXL",
		[PERF_MEM_LVLNUM_IO] = "I/O", [PERF_MEM_LVLNUM_ANY_CACHE] = "Any cache",
		[PERF_MEM_LVLNUM_LFB] = "LFB/MAB", [PERF_MEM_LVLNUM_RAM] = "RAM",
		[PERF_MEM_LVLNUM_PMEM] = "PMEM", [PERF_MEM_LVLNUM_NA] = "N/A" };
	u64 bits = ds >> PERF_MEM_LVL_SHIFT & 0x3fff, num = ds >> PERF_MEM_LVLNUM_SHIFT & 0xf;
	u64 hop = ds >> PERF_MEM_HOPS_SHIFT & 7;
	size_t start = str->len;
	char name[8];

	if (ds >> PERF_MEM_REMOTE_SHIFT & 1)
		mem_str(str, "Remote ");
	if (hop) {
		mem_str(str, hops[hop]);
		mem_str(str, " ");
	} else {
		mem_bits(str, bits & ~(u64)(PERF_MEM_LVL_HIT | PERF_MEM_LVL_MISS), lvl,
			 ARRAY_SIZE(lvl));
	}
	if (num) {
		/* " or " only after a name from the bits */
		if (!hop && (bits & ~(u64)(PERF_MEM_LVL_HIT | PERF_MEM_LVL_MISS)))
			mem_str(str, " or ");
		snprintf(name, sizeof(name), "L%d", (int)num);
		mem_str(str, lvlnum[num] ? lvlnum[num] : name);
	}
	mem_end(str, start, bits & PERF_MEM_LVL_HIT, bits & PERF_MEM_LVL_MISS);
}

static void mem_snoop(struct buf *str, u64 ds)
{
	static const char *const snoop[] = { "N/A", "None", "Hit", "Miss", "HitM" };
	static const char *const snoopx[] = { "Fwd", "Peer" };
	u64 bits = ds >> PERF_MEM_SNOOP_SHIFT & 0x1f, x = ds >> PERF_MEM_SNOOPX_SHIFT & 3;
	size_t start = str->len;

	mem_bits(str, bits, snoop, ARRAY_SIZE(snoop));
	if (x && str->len != start)
		mem_str(str, " or ");
	mem_bits(str, x, snoopx, ARRAY_SIZE(snoopx));
	if (str->len == start)
		mem_str(str, "N/A");
}

static void mem_tlb(struct buf *str, u64 ds)
{
	static const char *const tlb[] = { "N/A", "HIT", "MISS", "L1", "L2", "Walker", "Fault" };
	u64 bits = ds >> PERF_MEM_TLB_SHIFT & 0x7f;
	size_t start = str->len;

	mem_bits(str, bits & ~(u64)(PERF_MEM_TLB_HIT | PERF_MEM_TLB_MISS), tlb, ARRAY_SIZE(tlb));
	mem_end(str, start, bits & PERF_MEM_TLB_HIT, bits & PERF_MEM_TLB_MISS);
}

static void mem_blk(struct buf *str, u64 ds)
{
	u64 bits = ds >> PERF_MEM_BLK_SHIFT & 7;

	if (!bits || (bits & PERF_MEM_BLK_NA)) {
		mem_str(str, " N/A");
		return;
	}
	if (bits & PERF_MEM_BLK_DATA)
		mem_str(str, " Data");
	if (bits & PERF_MEM_BLK_ADDR)
		mem_str(str, " Addr");
}

/* The value, then its words, padded to the widest seen so far (the stock
 * perf's column; each part at most 99 characters, as there). */
void script__print_data_src(struct script *s, u64 ds)
{
	struct buf str = { 0 };
	u64 lock = ds >> PERF_MEM_LOCK_SHIFT & 3;
	char line[100];
	int len;

	mem_str(&str, "|OP ");
	mem_op(&str, ds >> PERF_MEM_OP_SHIFT & 0x1f);
	mem_str(&str, "|LVL ");
	mem_lvl(&str, ds);
	mem_str(&str, "|SNP ");
	mem_snoop(&str, ds);
	mem_str(&str, "|TLB ");
	mem_tlb(&str, ds);
	mem_str(&str, "|LCK ");
	mem_str(&str, lock & PERF_MEM_LOCK_NA ? "N/A" : lock & PERF_MEM_LOCK_LOCKED ? "Yes" : "No");
	mem_str(&str, "|BLK ");
	mem_blk(&str, ds);
	buf__u8(&str, 0);
	len = snprintf(line, sizeof(line), "%16llx %.99s", (unsigned long long)ds,
		       str.err ? "" : str.p);
	buf__release(&str);
	s->data_src_width = MAX(s->data_src_width, MIN(len, (int)sizeof(line) - 1));
	fprintf(s->out, "%-*s", s->data_src_width, line);
}
