/* Tracepoints' formats (util/tp.c): the TRACING_DATA feature built and
 * parsed back, cut short, and crafted formats libtraceevent once crashed
 * on or leaked with. */
#include "tests/tests.h"
#include "util/tp.h"

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
	tep = tp__parse_tracing_data(b.p, b.len, NULL);
	TEST_ASSERT(tep, "parse back");
	ev = tep_find_event(tep, id);
	TEST_ASSERT(ev && !strcmp(ev->name, "sched_switch") && !strcmp(ev->system, "sched"),
		    "event by id");
	TEST_ASSERT(tep_find_field(ev, "prev_pid") && tep_find_field(ev, "next_comm"), "fields");
	tep_free(tep);
	/* every truncation is refused, never read past */
	for (size_t cut = 0; cut < b.len; cut += 13) {
		tep = tp__parse_tracing_data(b.p, cut, NULL);
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
};

static void tracing_blob(struct buf *b, const char *printk)
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
	buf__u32(b, ARRAY_SIZE(formats));
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++) {
		buf__u64(b, strlen(formats[i]));
		buf__add(b, formats[i], strlen(formats[i]));
	}
	buf__u32(b, 0);
	buf__u32(b, strlen(printk));
	buf__add(b, printk, strlen(printk));
	buf__u64(b, 0);
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
	tep = tp__parse_tracing_data(b.p, b.len, NULL);
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
	TEST_ASSERT(!tp__parse_tracing_data(b.p, b.len, NULL), "trailing byte accepted");
	buf__release(&b);
	TEST_ASSERT(!test__leaked(), "memory leaked (LeakSanitizer's report above)");
	return TEST_OK;
}

TEST_SUITE(suite_util_tp, "util/tp",
	   "TRACING_DATA feature: build and parse back; crafted formats left out, no crash, no "
	   "leak",
	   test_tracing_data, test_formats);
