/* Commands to a session's recorder (ping, snapshot) through its control
 * and ack fifos. */
#ifndef PERF_DAEMON_CLIENT_H
#define PERF_DAEMON_CLIENT_H

#include <stddef.h>

/* A command to a session's recorder through its control fifo, the answer
 * awaited on its ack fifo. Clients of one session take turns (a lock on
 * the ack fifo), so an ack is never taken for another's. */

/* "ping": 0 when the recorder acked within TIMEOUT_MS; -ENXIO when no
 * recorder has the control fifo open, -ETIMEDOUT, -EPIPE when it ended,
 * -errno. */
int session__ping(const char *dir, int timeout_ms);

/* "snapshot": 0 once acked, with the name of the dump it announced in
 * DIR/output copied to dump (empty when it wrote none); errors as for
 * session__ping(). */
int session__snapshot(const char *dir, int timeout_ms, char *dump, size_t dumpsz);

#endif
