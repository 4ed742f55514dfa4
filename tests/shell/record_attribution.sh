#!/bin/bash
# perf record -a: tasks born while perf starts up are named (tracking is enabled before /proc is read)
. "$(dirname "$0")/lib/common.sh"
need_stock
cd "$TMP" || exit 1

# a storm of short-lived busy tasks: some are born after /proc was read
# and before the events were enabled; the tracking event, enabled first,
# saw their fork and exec (before the fix: dozens of ":PID" samples)
( while :; do sh -c 'i=0; while [ $i -lt 300 ]; do i=$((i+1)); done'; done ) &
storm=$!
BG_PIDS+=($storm)
unnamed=0 storm_samples=0
for i in 1 2 3 4 5; do
	"$PERF" record -q -a -e cpu-clock -c 250000 -o a$i.data -- sleep 0.15 || fail "record $i"
	n=$("$STOCK" script -i a$i.data -F comm 2>/dev/null | grep -c '^ *:[0-9]')
	s=$("$STOCK" script -i a$i.data -F comm 2>/dev/null | grep -c '^ *sh *$')
	unnamed=$((unnamed + n)) storm_samples=$((storm_samples + s))
done
kill $storm
log "$storm_samples samples of the storm, $unnamed unnamed"
[ "$storm_samples" -gt 20 ] || fail "the storm was hardly sampled ($storm_samples): the check proves nothing"
[ "$unnamed" -eq 0 ] || fail "$unnamed samples of tasks without a name (:PID)"
exit 0
