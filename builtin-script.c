/* perf script: a perf.data written by this tool, as text, in time order. */
#include "builtin.h"
#include "lib/parse-options.h"
#include "script/script.h"
#include "lib/util.h"

static const char *const script_usage[] = {
	"perf script [<options>]",
	NULL
};

int cmd_script(int argc, const char **argv)
{
	struct script_opts o = { .out = stdout, .msg = stderr };
	const struct option options[] = {
		OPT_STR('i', "input", &o.input, "file", "input file name"),
		OPT_BOOL(0, "show-task-events", &o.show_task, "show the fork/comm/exit events"),
		OPT_BOOL(0, "show-mmap-events", &o.show_mmap, "show the mmap events"),
		OPT_STR('F', "fields", &o.fields, "str", "comma separated output fields: comm,tid,pid,"
			"time,cpu,period,event,trace,addr,data_src,weight,ins_lat,cgroup,ip,iregs,"
			"uregs,phys_addr,data_page_size,code_page_size,sym,dso,symoff"),
		OPT_STR(0, "buildid-dir", &o.buildid_dir, "dir",
			"the build-id cache symbols come from (default: $PERF_BUILDID_DIR, ~/.debug)"),
		OPT_TERMINATOR
	};

	argc = parse_options(argc, argv, options, script_usage);
	if (argc < 0)
		return argc == PARSE_OPT_HELP ? 0 : 129;
	if (argc > 0) {
		pr_err("perf script: unexpected argument '%s'\n", argv[0]);
		return 129;
	}
	return script__run(&o) ? 1 : 0;
}
