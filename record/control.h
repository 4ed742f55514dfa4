/* --control: commands from another process on a fifo or fd, read without
 * blocking the recorder, each answered with an ack. */
#ifndef PERF_CONTROL_H
#define PERF_CONTROL_H

#include <stddef.h>

/* --control=fifo:CTL[,ACK] or fd:CTL[,ACK]: commands, one per line, from
 * another process ("snapshot", "enable", "disable", "stop", "ping"), each answered
 * with "ack\n" on ACK when given. */
struct control {
	int ctl_fd, ack_fd;
	int close_fds;		/* we opened them (fifo:), so we close them */
	char line[256];
	int len;
	int skip_line;		/* the rest of an overlong line is not a command */
};

enum control_cmd { CTL_NONE, CTL_SNAPSHOT, CTL_ENABLE, CTL_DISABLE, CTL_STOP, CTL_PING,
		   CTL_UNKNOWN };

/* Parses and opens the spec. 0 or -errno with errbuf naming the culprit. */
int control__open(struct control *c, const char *spec, char *errbuf, size_t errsz);
void control__close(struct control *c);
/* One read() of what is available (so a flood of commands cannot keep the
 * caller from its other fds and signals). Bytes read, 0 at EOF (the
 * writer of an fd: control closed it), -EAGAIN if nothing came, -errno. */
int control__fill(struct control *c);
/* The next complete command already read, or CTL_NONE. */
enum control_cmd control__next(struct control *c);
void control__ack(struct control *c);

#endif
