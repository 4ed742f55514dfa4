/* --control: commands from another process on a fifo or fd, read without
 * blocking the recorder, each answered with an ack. */
#ifndef PERF_CONTROL_H
#define PERF_CONTROL_H

#include <stddef.h>

/* --control=fifo:CTL[,ACK] or fd:CTL[,ACK]: commands, one per line, from
 * another process ("snapshot", "enable", "disable", "stop", "ping"), each
 * answered with "ack\n" on ACK when given, as the stock perf answers. A
 * "snapshot ID" or "ping ID" (ID: 1 to CONTROL_ID_MAX of [A-Za-z0-9._-])
 * is answered on a line of its own that carries the ID, so that a client
 * never takes another's answer, and for a snapshot what it made:
 *   "ack ID\n"                    a ping
 *   "ack ID dump PATH\n"          the dump is in place, at absolute PATH
 *   "ack ID none WHY\n"           no dump was written, and why
 * PATH and WHY escaped as lib/escape.h says (no raw control bytes). */
#define CONTROL_ID_MAX 64

struct control {
	int ctl_fd, ack_fd;
	int close_fds;		/* we opened them (fifo:), so we close them */
	char line[256];
	int len;
	int skip_line;		/* the rest of an overlong line is not a command */
};

enum control_cmd { CTL_NONE, CTL_SNAPSHOT, CTL_ENABLE, CTL_DISABLE, CTL_STOP, CTL_PING,
		   CTL_UNKNOWN };

/* A command owed an answer. */
struct control_ack {
	char id[CONTROL_ID_MAX + 1];	/* empty: a plain command, answered "ack\n" */
	int snapshot;			/* its answer says what was dumped */
	const char *why;		/* answered before any dump: why none (static) */
};

/* Commands owed an answer, in the order they came. */
struct control_acks {
	struct control_ack *v;
	int nr, cap;
};

/* How many commands may wait for one dump: clients take turns, so a few
 * do; the rest of a flood is answered at once, without a dump. */
#define CONTROL_ACKS_MAX 1024

/* Parses and opens the spec. 0 or -errno with errbuf naming the culprit. */
int control__open(struct control *c, const char *spec, char *errbuf, size_t errsz);
void control__close(struct control *c);
/* One read() of what is available (so a flood of commands cannot keep the
 * caller from its other fds and signals). Bytes read, 0 at EOF (the
 * writer of an fd: control closed it), -EAGAIN if nothing came, -errno. */
int control__fill(struct control *c);
/* The next complete command already read, or CTL_NONE; its ID (empty when
 * it has none) into ack, which is set for answering it. */
enum control_cmd control__next(struct control *c, struct control_ack *ack);

/* Queues ACK; 0, or -ENOSPC / -ENOMEM when it must be answered at once. */
int control_acks__add(struct control_acks *acks, const struct control_ack *ack);
/* Appends FROM's commands to TO's (FROM is emptied); those that do not
 * fit are answered at once with WHY. */
void control_acks__move(struct control *c, struct control_acks *to, struct control_acks *from,
			const char *why);
void control_acks__exit(struct control_acks *acks);

/* Answers one command: with DUMP, the file just placed (relative to the
 * current directory or absolute), else with WHY none was. */
void control__answer(struct control *c, const struct control_ack *ack, const char *dump,
		     const char *why);
/* Answers every command of ACKS so, and empties it. */
void control__answer_all(struct control *c, struct control_acks *acks, const char *dump,
			 const char *why);

#endif
