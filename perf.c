/* perf: command table, global options, dispatch. */
#include "builtin.h"
#include "util/exec-cmd.h"
#include "util/header.h"

#include <stdio.h>
#include <string.h>

struct cmd_struct {
	const char *name;
	int (*fn)(int argc, const char **argv);
	const char *help;
};

static const struct cmd_struct commands[] = {
	{ "daemon", cmd_daemon, "Run record sessions in the background, as a service" },
	{ "record", cmd_record, "Run a command and record its profile into perf.data" },
	{ "script", cmd_script, "Read perf.data and display the trace output" },
	{ "test", cmd_test, "Runs sanity tests" },
};

static void print_help(FILE *f)
{
	fprintf(f, "\n usage: perf [--version] [--help] COMMAND [ARGS]\n\n"
		   " The commands are:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "   %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "   %-10s %s\n", "version", "display the version of perf binary");
	fprintf(f, "\n See 'perf help COMMAND' or 'perf COMMAND -h' for more on a command.\n");
}

int main(int argc, const char **argv)
{
	const char *cmd;

	argv++;
	argc--;
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
	return exec_cmd__other_perf(argc, argv);
}
