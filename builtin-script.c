/* perf script: a perf.data as text, in time order, as the stock perf prints it. */
#include "builtin.h"
#include "lib/parse-options.h"
#include "script/script.h"
#include "lib/util.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

static const char *const script_usage[] = {
	"perf script [<options>]",
	NULL
};

#define MAX_FIELD_ARGS 32

/* The -F given after the first, in order: each changes what the ones
 * before it set. */
struct field_args {
	struct script_opts *o;
	const char *v[MAX_FIELD_ARGS];
};

static int opt_fields(const struct option *opt, const char *arg, int unset)
{
	struct field_args *fa = opt->value;

	(void)unset;
	if (!fa->o->fields) {
		fa->o->fields = arg;
		return 0;
	}
	if (fa->o->nr_field_args == MAX_FIELD_ARGS) {
		pr_err("perf script: -F: more than %d given\n", MAX_FIELD_ARGS + 1);
		return -1;
	}
	fa->v[fa->o->nr_field_args++] = arg;
	return 0;
}

static int opt_max_stack(const struct option *opt, const char *arg, int unset)
{
	char *end;
	long n;

	(void)unset;
	errno = 0;
	n = strtol(arg, &end, 0);
	if (errno || *end || end == arg || n < 0 || n > INT_MAX) {
		pr_err("perf script: --max-stack: '%s' is not a count\n", arg);
		return -1;
	}
	*(int *)opt->value = n ? (int)n : -1;
	return 0;
}

/* -s and -l: this perf has no script engine; the stock's words. */
static int no_scripting(const char *script)
{
	if (!script) {
		printf("List of available trace scripts:\n");
		return 0;
	}
	fprintf(stderr, "Python scripting not supported.  Install libpython and rebuild perf to enable it.\n"
		"For example:\n  # apt-get install python-dev (ubuntu)\n"
		"  # yum install python-devel (Fedora)\n  etc.\n");
	return 255;
}

int cmd_script(int argc, const char **argv)
{
	struct script_opts o = { .out = stdout, .msg = stderr };
	struct field_args fa = { .o = &o };
	const char *script = NULL, *ignored = NULL;
	int list = 0, verbose = 0, force = 0, demangle = 1, full_source_path = 0;
	const struct option options[] = {
		OPT_STR('i', "input", &o.input, "file", "input file name"),
		OPT_CB_FLAGS('F', "fields", &fa, "str", "comma separated output fields prepend with "
			     "'type:'. +field to add and -field to remove. Valid types: hw,sw,trace,"
			     "raw,break,synth. Fields: comm,tid,pid,time,cpu,event,trace,ip,sym,dso,"
			     "addr,symoff,srcline,period,iregs,uregs,brstack,brstacksym,flags,data_src,"
			     "weight,bpf-output,brstackinsn,brstackinsnlen,brstackoff,callindent,insn,"
			     "insnlen,synth,phys_addr,metric,misc,srccode,ipc,tod,data_page_size,"
			     "code_page_size,ins_lat,machine_pid,vcpu,cgroup", opt_fields, OPT_MULTI),
		OPT_BOOL('G', "hide-call-graph", &o.hide_call_graph, "When printing symbols do not display call chain"),
		OPT_CB(0, "max-stack", &o.max_stack, "n", "Set the maximum stack depth when parsing the callchain, "
		       "anything beyond the specified depth will be ignored.", opt_max_stack),
		OPT_BOOL(0, "ns", &o.nanosecs, "Use 9 decimal places when displaying time"),
		OPT_BOOL(0, "show-task-events", &o.show_task, "Show the fork/comm/exit events"),
		OPT_BOOL(0, "show-mmap-events", &o.show_mmap, "Show the mmap events"),
		OPT_BOOL(0, "show-switch-events", &o.show_switch, "Show context switch events (if recorded)"),
		OPT_BOOL(0, "show-namespace-events", &o.show_namespace, "Show namespace events (if recorded)"),
		OPT_BOOL(0, "show-cgroup-events", &o.show_cgroup, "Show cgroup events (if recorded)"),
		OPT_BOOL(0, "show-lost-events", &o.show_lost, "Show lost events (if recorded)"),
		OPT_BOOL(0, "show-bpf-events", &o.show_bpf, "Show bpf related events (if recorded)"),
		OPT_BOOL(0, "show-text-poke-events", &o.show_text_poke, "Show text poke related events (if recorded)"),
		OPT_BOOL(0, "show-round-events", &o.show_round, "Show round events (if recorded)"),
		OPT_STR(0, "buildid-dir", &o.buildid_dir, "dir",
			"the build-id cache symbols come from (default: $PERF_BUILDID_DIR, ~/.debug)"),
		OPT_STR('c', "comms", &o.comms, "comm[,comm...]", "only display events for these comms"),
		OPT_STR(0, "pid", &o.pids, "pid[,pid...]", "only consider symbols in these pids"),
		OPT_STR(0, "tid", &o.tids, "tid[,tid...]", "only consider symbols in these tids"),
		OPT_STR('C', "cpu", &o.cpus, "cpu", "list of cpus to profile"),
		OPT_STR(0, "time", &o.time, "str", "Time span of interest (start,stop)"),
		OPT_BOOL(0, "header", &o.header, "Show data header."),
		OPT_BOOL(0, "header-only", &o.header_only, "Show only data header."),
		OPT_BOOL('I', "show-info", &o.show_info, "display extended information from perf.data file"),
		OPT_STR('s', "script", &script, "name", "script file name (lang:script name, script name, or *)"),
		OPT_BOOL('l', "list", &list, "list available scripts"),
		OPT_COUNT('v', "verbose", &verbose, "be more verbose (show symbol address, etc)"),
		OPT_BOOL('f', "force", &force, "don't complain, do it"),
		OPT_BOOL(0, "demangle", &demangle, "Enable symbol demangling"),
		OPT_BOOL(0, "full-source-path", &full_source_path, "Show full source file name path for source lines"),
		OPT_STR('k', "vmlinux", &ignored, "file", "vmlinux pathname"),
		OPT_TERMINATOR
	};

	o.field_args = fa.v;
	argc = parse_options(argc, argv, options, script_usage);
	if (argc < 0)
		return argc == PARSE_OPT_HELP ? 0 : 129;
	if (argc > 0) {
		pr_err("perf script: unexpected argument '%s'\n", argv[0]);
		return 129;
	}
	if (script || list)
		return no_scripting(script);
	o.no_demangle = !demangle;
	switch (script__run(&o)) {
	case 0:
		return 0;
	case -EDOM:	/* the stock's usage error */
		return 129;
	case -ENOTSUP:	/* the stock's refusal of its fields */
		return 255;
	case -ERANGE:	/* a bad --time: the stock returns its -EINVAL */
		return 234;
	default:
		return 1;
	}
}
