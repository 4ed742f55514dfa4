/* A workload with a build id of its own (built with -DTAG=N, see
 * build_tagged in common.sh): spins in its own code for argv[1] rounds,
 * then, with "stop" after the count, stops itself (mapped until it is
 * killed), or execs what follows the count, if anything. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile unsigned long sink;

__attribute__((noinline)) void tagged_spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * TAG;
}

int main(int argc, char **argv)
{
	tagged_spin(strtoul(argv[1], NULL, 0));
	if (argc > 2 && !strcmp(argv[2], "stop"))
		kill(getpid(), SIGSTOP);
	else if (argc > 2)
		execv(argv[2], argv + 2);
	return 0;
}
