/* perf: command table, global options, dispatch. */
#include "builtin.h"
#include "lib/exec-cmd.h"
#include "perfdata/header.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cmd_struct {
	const char *name;
	int (*fn)(int argc, const char **argv);
	const char *help;
};

static const struct cmd_struct commands[] = {
	{ "data", cmd_data, "Data file related processing (convert --to-pprof here, the rest the distribution's)" },
	{ "daemon", cmd_daemon, "Run record sessions in the background, as a service" },
	{ "record", cmd_record, "Run a command and record its profile into perf.data" },
	{ "script", cmd_script, "Read perf.data and display the trace output" },
	{ "test", cmd_test, "Runs sanity tests" },
};

static void print_help(FILE *f)
{
	fprintf(f, "\n usage: perf [--version] [--help] [--buildid-dir DIR] COMMAND [ARGS]\n\n"
		   " The commands are:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "   %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "   %-10s %s\n", "version", "display the version of perf binary");
	fprintf(f, "\n See 'perf help COMMAND' or 'perf COMMAND -h' for more on a command.\n");
}

/* --buildid-dir DIR / --buildid-dir=DIR: the build-id cache of this run
 * and of what it runs, through the environment as perf passes it. Returns
 * the arguments it took, or -1 (said). */
static int buildid_dir_option(int argc, const char **argv)
{
	const char *dir = NULL;
	int took = 0;

	if (!strcmp(argv[0], "--buildid-dir")) {
		if (argc < 2) {
			fprintf(stderr, "perf: --buildid-dir: no directory given\n");
			return -1;
		}
		dir = argv[1];
		took = 2;
	} else if (!strncmp(argv[0], "--buildid-dir=", 14)) {
		dir = argv[0] + 14;
		took = 1;
	}
	if (dir && (!*dir || setenv("PERF_BUILDID_DIR", dir, 1))) {
		fprintf(stderr, "perf: --buildid-dir: '%s': %s\n", dir, *dir ? strerror(errno) :
			"empty");
		return -1;
	}
	return took;
}

int main(int argc, const char **argv)
{
	const char *cmd, *env_dir;
	int took;

	argv++;
	argc--;
	while (argc > 0 && (took = buildid_dir_option(argc, argv))) {
		if (took < 0)
			return 129;
		argv += took;
		argc -= took;
	}
	if (argc == 0 || !strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) {
		print_help(stdout);
		return 0;
	}
	cmd = argv[0];
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version") || !strcmp(cmd, "-v")) {
		printf("perf version %s\n", PERF_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "help")) {
		if (argc < 2) {
			print_help(stdout);
			return 0;
		}
		/* "perf help record" shows the command's own usage */
		const char *hargv[] = { argv[1], "-h", NULL };

		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			if (!strcmp(commands[i].name, argv[1]))
				return commands[i].fn(2, hargv);
	} else {
		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			if (!strcmp(commands[i].name, cmd))
				return commands[i].fn(argc, argv);
	}
	/* report, annotate, ...: the distribution's perf, so this one can be
	 * installed as perf */
	/* the distribution's perf takes its cache from --buildid-dir or
	 * ~/.debug, not from $PERF_BUILDID_DIR: the cache this perf uses
	 * (--buildid-dir, or that variable) goes on as --buildid-dir, so both
	 * perfs use one cache */
	env_dir = getenv("PERF_BUILDID_DIR");
	return exec_cmd__other_perf(argc, argv, env_dir && *env_dir ? env_dir : NULL);
}
