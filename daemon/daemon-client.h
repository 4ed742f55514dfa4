/* Commands to a session's recorder (ping, snapshot) through its control
 * and ack fifos. */
#ifndef PERF_DAEMON_CLIENT_H
#define PERF_DAEMON_CLIENT_H

#include <stddef.h>

/* A command to a session's recorder through its control fifo, the answer
 * awaited on its ack fifo. Clients of one session take turns (a lock on
 * the ack fifo), and each command carries an ID its answer repeats, so
 * that a late answer to a client that gave up is never taken for
 * another's (record/control.h has the protocol). */

/* "ping": 0 when the recorder acked within TIMEOUT_MS; -ENXIO when no
 * recorder has the control fifo open, -ETIMEDOUT, -EPIPE when it ended,
 * -errno. */
int session__ping(const char *dir, int timeout_ms);

/* "snapshot": 0 once the recorder answered that its dump is in place,
 * with the dump's absolute path (as the recorder gave it on the ack fifo)
 * in dump; -ENODATA when it wrote none, with its reason in why; -EPROTO
 * for an answer that is not one (a recorder that knows no IDs); errors
 * as for session__ping(). */
int session__snapshot(const char *dir, int timeout_ms, char *dump, size_t dumpsz, char *why,
		      size_t whysz);

#endif
