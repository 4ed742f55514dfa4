/* perf data: convert --to-pprof here; every other perf data command (and
 * convert --to-json, --to-ctf) is the distribution's perf's. */
#include "builtin.h"
#include "lib/exec-cmd.h"
#include "lib/parse-options.h"
#include "lib/util.h"
#include "script/pprof-convert.h"

#include <stdlib.h>
#include <string.h>

static const char *const convert_usage[] = {
	"perf data convert --to-pprof [-i perf.data] [-o profile.pb.gz] [<options>]",
	NULL
};

/* "perf data convert ... --to-pprof ...": the one this perf does. */
static int wants_pprof(int argc, const char **argv)
{
	if (argc < 2 || strcmp(argv[1], "convert"))
		return 0;
	for (int i = 2; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--to-pprof"))
			return 1;
	return 0;
}

static int cmd_data_convert(int argc, const char **argv)
{
	struct pprof_convert_opts o = { .msg = stderr };
	int to_pprof = 0;
	const struct option options[] = {
		OPT_BOOL(0, "to-pprof", &to_pprof, "Convert to pprof's profile.proto, gzipped"),
		OPT_STR('i', "input", &o.input, "file", "input file name"),
		OPT_STR('o', "output", &o.output, "file", "output file name (default: INPUT.pb.gz)"),
		OPT_BOOL(0, "time-labels", &o.time_labels, "a time label on each sample"),
		OPT_STR(0, "buildid-dir", &o.buildid_dir, "dir",
			"the build-id cache symbols come from (default: $PERF_BUILDID_DIR, ~/.debug)"),
		OPT_BOOL('f', "force", &o.force, "don't complain, do it"),
		OPT_COUNT('v', "verbose", &o.verbose, "be more verbose"),
		OPT_TERMINATOR
	};

	argc = parse_options(argc, argv, options, convert_usage);
	if (argc < 0)
		return argc == PARSE_OPT_HELP ? 0 : 129;
	if (argc > 0) {
		pr_err("perf data convert: unexpected argument '%s'\n", argv[0]);
		return 129;
	}
	return pprof_convert__run(&o) ? 1 : 0;
}

int cmd_data(int argc, const char **argv)
{
	const char *env_dir;

	if (wants_pprof(argc, argv))
		return cmd_data_convert(argc - 1, argv + 1);
	/* the distribution's perf, given this perf's build-id cache, as perf.c
	 * hands over the commands it lacks */
	env_dir = getenv("PERF_BUILDID_DIR");
	return exec_cmd__other_perf(argc, argv, env_dir && *env_dir ? env_dir : NULL);
}
