/* --switch-output-state: the recorder's dumps, triggers and post-dump
 * runs in a small file rewritten as they change, for perf daemon --json. */
#ifndef PERF_RECORD_STATE_H
#define PERF_RECORD_STATE_H

struct record;

/* The state file holds "KEY VALUE" lines, one per key, written under a
 * temporary name and renamed into place (0600, never through a link), so
 * a reader sees a whole file or the one before:
 *   pid N              the recorder
 *   dumps N            files placed by this run
 *   dumps_failed N     dumps that failed
 *   last_dump PATH     the last file placed, escaped as lib/escape.h says
 *   last_dump_time S   ... when: seconds since the epoch, 9 decimals
 *   triggers_ignored N over --switch-output-max-rate
 *   triggers_merged N  asked while a switch was pending: served by that one
 *   hook_runs N, hook_failed N, hook_killed N, hook_dropped N,
 *   hook_queued N, hook_running 0|1, hook_last_status N (a wait status,
 *   -1: none yet): --switch-output-exec's, record/post-dump.h says what
 *   each counts.
 * A reader skips the keys it does not know. */
#define STATE_INTERVAL_NS 100000000ULL

/* Rewrites the file if something it says changed (or now is set: a dump
 * placed, a post-dump run ended, said at once), at most every
 * STATE_INTERVAL_NS otherwise. A file that cannot be written is said once
 * and tried again at the next change. */
void record__write_state(struct record *rec, int now);

#endif
