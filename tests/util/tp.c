/* Tracepoints' formats (util/tp.c): the TRACING_DATA feature built and
 * parsed back, cut short, and crafted formats libtraceevent once crashed
 * on or leaked with; divisions by zero; many rejected formats asked
 * about in one child process. */
#include "tests/tests.h"
#include "util/tp.h"
#include "lib/id-hash.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

static int test_tracing_data(struct test_ctx *ctx)
{
	const char *events[] = { "sched:sched_switch", "sched:sched_wakeup", "irq:irq_handler_entry" };
	struct buf b = { 0 };
	struct tep_handle *tep;
	struct tep_event *ev;
	int id = tp__dir() ? tp__id("sched", "sched_switch") : -1;
	int nr = tp__id("irq", "irq_handler_entry") > 0 ? 3 : 2;

	if (id < 0)
		TEST_SKIP_BECAUSE(ctx, "no tracefs or no sched:sched_switch");
	TEST_ASSERT(!tp__tracing_data(&b, events, nr) && !b.err, "build");
	TEST_ASSERT(b.len > 100 && !memcmp(b.p, "\027\010\104tracing0.6", 14), "magic+version");
	tep = tp__parse_tracing_data(b.p, b.len, NULL, NULL);
	TEST_ASSERT(tep, "parse back");
	ev = tep_find_event(tep, id);
	TEST_ASSERT(ev && !strcmp(ev->name, "sched_switch") && !strcmp(ev->system, "sched"),
		    "event by id");
	TEST_ASSERT(tep_find_field(ev, "prev_pid") && tep_find_field(ev, "next_comm"), "fields");
	tep_free(tep);
	/* every truncation is refused, never read past */
	for (size_t cut = 0; cut < b.len; cut += 13) {
		tep = tp__parse_tracing_data(b.p, cut, NULL, NULL);
		TEST_ASSERT(!tep || cut > b.len - 64, "truncated at %zu accepted", cut);
		if (tep)
			tep_free(tep);
	}
	buf__release(&b);
	return TEST_OK;
}

#define FIELDS "format:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n" \
	"\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n\n"

/* Formats libtraceevent 1.7 crashes on or leaks with: each one's event
 * must be left out, the good one kept, no crash, no leak. */
static const char *const formats[] = {
	"name: good\nID: 1\n" FIELDS "print fmt: \"x=%d\", REC->x\n",
	"name: flags\nID: 2\n" FIELDS "print fmt: \"%s\", __print_flags(REC->nope, \"|\", {1, \"A\"})\n",
	"name: symbolic\nID: 3\n" FIELDS "print fmt: \"%s\", __print_symbolic(REC->ve\n",
	"name: typo\nID: 4\n" FIELDS "print fmt: \"%s\", __print_flags(REC->x & 3, \"|\", {1, \"A\"}))\n",
	"name: decl\nID: 5\nformat:\n\tfield:unsig[ed short common_type;\toffset:0;\tsize:2;\n"
	"print fmt: \"x\"\n",
	"name: far\nID: 6\nformat:\n\tfield:int x;\toffset:4294967295;\tsize:4;\tsigned:1;\n"
	"print fmt: \"x=%d\", REC->x\n",
	/* libtraceevent 1.7.1 frees a token twice parsing sizeof() */
	"name: sizeof\nID: 7\n" FIELDS "print fmt: \"x=%d\", REC->x * sizeof(int)\n",
};

static void tracing_blob_of(struct buf *b, const char *printk, const char *const *fmts, size_t nr)
{
	buf__add(b, "\027\010\104tracing", 10);
	buf__str0(b, "0.6");
	buf__u8(b, 0);
	buf__u8(b, 8);
	buf__u32(b, 4096);
	buf__str0(b, "header_page");
	buf__u64(b, 0);
	buf__str0(b, "header_event");
	buf__u64(b, 0);
	buf__u32(b, 0);
	buf__u32(b, 1);
	buf__str0(b, "t");
	buf__u32(b, nr);
	for (size_t i = 0; i < nr; i++) {
		buf__u64(b, strlen(fmts[i]));
		buf__add(b, fmts[i], strlen(fmts[i]));
	}
	buf__u32(b, 0);
	buf__u32(b, strlen(printk));
	buf__add(b, printk, strlen(printk));
	buf__u64(b, 0);
}

static void tracing_blob(struct buf *b, const char *printk)
{
	tracing_blob_of(b, printk, formats, ARRAY_SIZE(formats));
}

static int test_formats(struct test_ctx *ctx)
{
	/* lines without " : " or too short made libtraceevent read past them */
	static const char printk[] = "ffffffff81000000 : \"kept\"\nffffabc\nff\n : \nx : \"\n";
	unsigned char data[16] = { 1, 0, 0, 0, 0, 0, 0, 0, 42 };
	struct tep_record rec = { .data = data, .size = sizeof(data) };
	struct buf b = { 0 };
	struct trace_seq seq;
	struct tep_handle *tep;

	(void)ctx;
	tracing_blob(&b, printk);
	TEST_ASSERT(!b.err, "blob");
	tep = tp__parse_tracing_data(b.p, b.len, NULL, NULL);
	TEST_ASSERT(tep, "a blob with bad formats is still a blob");
	TEST_ASSERT(tep_find_event(tep, 1), "the good format was dropped");
	for (int id = 2; id <= (int)ARRAY_SIZE(formats); id++)
		TEST_ASSERT(!tep_find_event(tep, id), "bad format %d handed to libtraceevent", id);
	trace_seq_init(&seq);
	tep_print_event(tep, &seq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&seq);
	TEST_ASSERT(!strcmp(seq.buffer, "x=42"), "printed '%s'", seq.buffer);
	trace_seq_destroy(&seq);
	tep_free(tep);
	/* a section longer than what it holds overlaps the next one */
	buf__u8(&b, 0);
	TEST_ASSERT(!tp__parse_tracing_data(b.p, b.len, NULL, NULL), "trailing byte accepted");
	buf__release(&b);
	TEST_ASSERT(!test__leaked(), "memory leaked (LeakSanitizer's report above)");
	return TEST_OK;
}

/* libtraceevent divides unchecked: two constants as it parses (SIGFPE
 * in the reader), a field by a constant as it prints (SIGFPE in perf
 * script). Each division by anything but a non-zero constant leaves its
 * event out; those the kernel writes stay. */
static const char *const divisions[] = {
	"name: kept\nID: 1\n" FIELDS "print fmt: \"%d %d %d\", REC->x / 1000L, REC->x % 64, "
	"__print_array(REC->x, 4 / ( 4 ), 4)\n",
	"name: mod0\nID: 2\n" FIELDS "print fmt: \"x=%d\", REC->x % 0\n",
	"name: div0\nID: 3\n" FIELDS "print fmt: \"x=%d\", REC->x / (0)\n",
	"name: hex0\nID: 4\n" FIELDS "print fmt: \"x=%d\", REC->x % 0x0\n",
	"name: octal\nID: 5\n" FIELDS "print fmt: \"x=%d\", REC->x / 08\n",
	"name: field\nID: 6\n" FIELDS "print fmt: \"x=%d\", 5 / REC->x\n",
	"name: folded\nID: 7\n" FIELDS "print fmt: \"x=%d\", 5 % (1 - 1)\n",
	"name: sizeof\nID: 8\n" FIELDS "print fmt: \"x=%d\", 5 / sizeof(long)\n",
	"name: const\nID: 9\n" FIELDS "print fmt: \"x=%d\", 1 / 0\n",
};

static int test_division(struct test_ctx *ctx)
{
	unsigned char data[16] = { 2, 0, 0, 0, 0, 0, 0, 0 };	/* mod0, x = 0 */
	struct tep_record rec = { .data = data, .size = sizeof(data) };
	struct tp_formats st;
	struct buf b = { 0 };
	struct trace_seq seq;
	struct tep_handle *tep;

	(void)ctx;
	tracing_blob_of(&b, "", divisions, ARRAY_SIZE(divisions));
	TEST_ASSERT(!b.err, "blob");
	tep = tp__parse_tracing_data(b.p, b.len, NULL, &st);
	TEST_ASSERT(tep, "a blob with bad formats is still a blob");
	TEST_ASSERT(tep_find_event(tep, 1), "the kernel's kinds of division were left out");
	for (int id = 2; id <= (int)ARRAY_SIZE(divisions); id++)
		TEST_ASSERT(!tep_find_event(tep, id), "division %d handed to libtraceevent", id);
	TEST_ASSERT(st.nr == ARRAY_SIZE(divisions) && st.left_out == ARRAY_SIZE(divisions) - 1,
		    "%u formats, %u left out", st.nr, st.left_out);
	trace_seq_init(&seq);
	tep_print_event(tep, &seq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_destroy(&seq);
	tep_free(tep);
	buf__release(&b);
	return TEST_OK;
}

/* How many times this process forked: the count a pthread_atfork()
 * handler keeps, whoever calls fork(). */
static unsigned forks_seen;

static void count_fork(void)
{
	__atomic_add_fetch(&forks_seen, 1, __ATOMIC_RELAXED);
}

static void count_forks(void)
{
	pthread_atfork(NULL, count_fork, NULL);
}

#define MANY 300

/* A file of many formats our checks reject: which of their events the
 * stock perf would register is asked in one child for all of them, not
 * one each (a file of such formats took seconds per thousand). */
static int test_many_rejected(struct test_ctx *ctx)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	const char **fmts = calloc(MANY + 2, sizeof(*fmts));
	struct id_hash ids = { 0 };
	struct tp_formats st;
	struct buf b = { 0 };
	struct tep_handle *tep;
	unsigned before;
	int described = 0;

	TEST_ASSERT(fmts, "calloc");
	fmts[0] = formats[0];	/* good, ID 1 */
	for (int i = 1; i <= MANY; i++) {
		/* libtraceevent registers it; we leave it out */
		TEST_ASSERT(asprintf((char **)&fmts[i], "name: m%d\nID: %d\n" FIELDS
				     "print fmt: \"x=%%d\", REC->x %% 0\n", i, 100 + i) > 0, "fmt");
	}
	/* last, one that kills libtraceevent as it parses */
	fmts[MANY + 1] = divisions[ARRAY_SIZE(divisions) - 1];
	tracing_blob_of(&b, "", fmts, MANY + 2);
	TEST_ASSERT(!b.err, "blob");
	pthread_once(&once, count_forks);
	before = __atomic_load_n(&forks_seen, __ATOMIC_RELAXED);
	tep = tp__parse_tracing_data(b.p, b.len, &ids, &st);
	TEST_ASSERT(tep, "parse");
	for (int i = 1; i <= MANY; i++)
		described += !!id_hash__find(&ids, 100 + i);
	TEST_LOG(ctx, "  %u formats, %u left out, %u checks, %u forks, %d described\n", st.nr,
		 st.left_out, st.checks, forks_seen - before, described);
	TEST_ASSERT(st.nr == MANY + 2 && st.left_out == MANY + 1, "%u formats, %u left out",
		    st.nr, st.left_out);
	TEST_ASSERT(forks_seen - before == 1 && st.checks == 1, "%u forks, %u checks for %u "
		    "rejected formats", forks_seen - before, st.checks, st.left_out);
	/* what libtraceevent takes counts as described; the one it dies on not */
	TEST_ASSERT(described == MANY && id_hash__find(&ids, 1) && !id_hash__find(&ids, 9),
		    "%d of %d described", described, MANY);
	TEST_ASSERT(tep_find_event(tep, 1) && !tep_find_event(tep, 101), "events in the handle");
	tep_free(tep);
	id_hash__exit(&ids);
	buf__release(&b);
	for (int i = 1; i <= MANY; i++)
		free((char *)fmts[i]);
	free(fmts);
	return TEST_OK;
}

/* A format libtraceevent cannot even name (its ID not a number) describes
 * no event, whether it passed our checks or not: the stock perf goes on
 * ("error parsing event file") and refuses a file only where an event of
 * it needs the format ("cannot find event format"). */
static int test_unnamed(struct test_ctx *ctx)
{
	static const char *const safe[] = {
		"name: good\nID: 1\n" FIELDS "print fmt: \"x=%d\", REC->x\n",
		"name: plus\nID: +7\n" FIELDS "print fmt: \"x=%d\", REC->x\n",
	};
	static const char *const unsafe[] = {
		"name: good\nID: 1\n" FIELDS "print fmt: \"x=%d\", REC->x\n",
		"name: plus\nID: +7\n" FIELDS "print fmt: \"x=%d\", REC->x % 0\n",
	};
	const char *const *blobs[] = { safe, unsafe };

	(void)ctx;
	for (int k = 0; k < 2; k++) {
		struct id_hash ids = { 0 };
		struct tp_formats st;
		struct buf b = { 0 };
		struct tep_handle *tep;

		tracing_blob_of(&b, "", blobs[k], 2);
		TEST_ASSERT(!b.err, "blob");
		tep = tp__parse_tracing_data(b.p, b.len, &ids, &st);
		TEST_ASSERT(tep && tep_find_event(tep, 1) && id_hash__find(&ids, 1),
			    "blob %d: the good format lost", k);
		TEST_ASSERT(!id_hash__find(&ids, 7) && st.left_out == (u32)k,
			    "blob %d: a format libtraceevent cannot name describes its id (%u left "
			    "out)", k, st.left_out);
		tep_free(tep);
		id_hash__exit(&ids);
		buf__release(&b);
	}
	return TEST_OK;
}

TEST_SUITE(suite_util_tp, "util/tp",
	   "TRACING_DATA feature: build and parse back; crafted formats left out, no crash, no "
	   "leak; divisions by zero left out; rejected formats asked about in one child",
	   test_tracing_data, test_formats, test_division, test_many_rejected, test_unnamed);
