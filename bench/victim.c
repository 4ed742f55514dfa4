/* A short-lived program for the attribution scenario: it spins, then exits. */
#include <stdlib.h>

volatile unsigned long victim_sink;

__attribute__((noinline)) static void victim_work(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		victim_sink += i;
}

int main(int argc, char **argv)
{
	victim_work(argc > 1 ? strtoul(argv[1], NULL, 0) : 200000000UL);
	return 0;
}
