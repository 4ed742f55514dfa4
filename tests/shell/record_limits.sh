#!/bin/bash
# perf record at start checks a cgroup's memory limit and RLIMIT_NOFILE: refused in one line, or every dump written
. "$(dirname "$0")/lib/common.sh"
need_root "cgroups and RLIMIT_NOFILE's hard limit"
need_stock
need_tracepoint sched sched_switch
cd "$TMP" || exit 1

# --- memory: a child cgroup of the recorder's own, limited to 64M ---
CG=
cg_cleanup() {
	[ -n "$CG" ] || return 0
	# back to the parent, whatever is left in it, then away
	while read -r p; do echo "$p" > "$(dirname "$CG")/cgroup.procs"; done \
		< "$CG/cgroup.procs" 2>/dev/null
	rmdir "$CG" 2>/dev/null
}
trap 'cg_cleanup; cleanup' EXIT

# A cgroup v2 child where the memory controller can be given to one, else
# a v1 memory hierarchy's; prints the limit file it set.
make_cgroup() {
	local mnt rel
	mnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	rel=$(sed -n 's/^0:://p' /proc/self/cgroup)
	if [ -n "$mnt" ] && grep -qw memory "$mnt$rel/cgroup.controllers" 2>/dev/null &&
	   { grep -qw memory "$mnt$rel/cgroup.subtree_control" ||
	     echo +memory > "$mnt$rel/cgroup.subtree_control"; } 2>/dev/null; then
		CG=$mnt${rel%/}/perf-limits-$$
		mkdir "$CG" && echo 64M > "$CG/memory.max" && echo "$CG/memory.max"
		return
	fi
	mnt=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/mounts)
	rel=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3; exit }' /proc/self/cgroup)
	[ -n "$mnt" ] && [ -d "$mnt$rel" ] || return 1
	CG=$mnt${rel%/}/perf-limits-$$
	mkdir "$CG" && echo 64M > "$CG/memory.limit_in_bytes" && echo "$CG/memory.limit_in_bytes"
}

limit_file=$(make_cgroup) || skip "no cgroup memory controller to limit a child cgroup with"
CG=${limit_file%/*}
log "memory limit: $limit_file"

# in_cgroup CMD...: CMD runs in the limited cgroup
in_cgroup() {
	sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$CG" "$@"
}

# 256M of history (and as much for a dump's take) cannot live under 64M
in_cgroup "$PERF" record -a -e cpu-clock --history 256M -o hist.data -- true > out 2> err
rc=$?
log "--history 256M under 64M: rc=$rc: $(cat err)"
[ $rc -ne 0 ] || fail "--history 256M under a 64M cgroup limit started (rc 0): $(head -3 err)"
[ "$(grep -c . err)" -eq 1 ] || fail "--history 256M under 64M: not one line: $(cat err)"
grep -q -- "--history: .*only [0-9]*M is left under $limit_file (64M): the recorder would be OOM-killed" err ||
	fail "--history 256M under 64M: the line does not name the limit: $(cat err)"
ls hist.data* 2>/dev/null && fail "--history 256M under 64M left a file"

# the backward rings' capture buffers are the recorder's own memory too
in_cgroup "$PERF" record -a -e cpu-clock --overwrite -m 64M -o ring.data -- true > out 2> err
rc=$?
[ $rc -ne 0 ] && grep -q -- "--overwrite: .*under $limit_file (64M)" err ||
	fail "--overwrite -m 64M under a 64M limit: rc=$rc: $(cat err)"

# what fits starts, and dumps
in_cgroup "$PERF" record -a -e cpu-clock --history 8M -o fits.data -- true > out 2> err ||
	fail "--history 8M under a 64M limit refused: $(cat err)"
[ -s fits.data ] || fail "--history 8M under a 64M limit wrote no fits.data: $(cat err)"
stock_reads_clean fits.data

# page cache the cgroup's own writes left is reclaimable, not used up: a
# file of 48M written from inside the limited cgroup (on a disk, not a
# tmpfs) leaves the usage near the limit, and 16M of history still fits
in_cgroup dd if=/dev/zero of=cache.fill bs=1M count=48 conv=fsync status=none ||
	fail "could not write cache.fill in the cgroup"
usage=$(cat "$CG/memory.current" 2>/dev/null || cat "$CG/memory.usage_in_bytes")
log "usage after 48M written: $((usage >> 20))M"
[ "$usage" -ge $((40 << 20)) ] || skip "the page cache of the file was not charged to the cgroup: ${usage}"
in_cgroup "$PERF" record -a -e cpu-clock --history 16M -o cache.data -- true > out 2> err ||
	fail "--history 16M under a 64M limit filled by page cache refused: $(cat err)"
[ -s cache.data ] || fail "--history 16M beside 48M of page cache wrote no cache.data: $(cat err)"
stock_reads_clean cache.data
cg_cleanup
CG=

# --- file descriptors ---

# dumps_done NAME N: the recorder NAME said of N dumps that they were written or failed
dumps_done() { [ "$(grep -c "Dump $1\.data\.\|dump failed" "$1.err")" -ge "$2" ]; }

# record_dumps NAME ULIMIT_ARGS: a flight recorder of two events on every
# CPU with -n given by ULIMIT_ARGS, asked for two dumps, then a last one
# at its end; its exit code in RC
record_dumps() {
	local name=$1 pid i
	shift
	(ulimit "$@" && exec "$PERF" record -a -e cpu-clock -e sched:sched_switch --overwrite \
		--switch-output=signal -o "$name.data" -- "$PERF" test -w spin 30) \
		> "$name.out" 2> "$name.err" &
	pid=$!
	BG_PIDS+=("$pid")
	# a refusal ends it before its loop
	for ((i = 0; i < 3000; i++)); do
		ended "$pid" && break
		grep -q 'anon_inode:\[perf_event\]' "/proc/$pid/maps" 2>/dev/null &&
			[[ $(cat "/proc/$pid/wchan" 2>/dev/null) == *poll* ]] && break
		sleep 0.01
	done
	if ! ended "$pid"; then
		kill -USR2 "$pid"
		wait_until "no dump of $name" dumps_done "$name" 1
		kill -USR2 "$pid"
		wait_until "no second dump of $name" dumps_done "$name" 2
		kill -INT "$pid"
	fi
	wait "$pid"
	RC=$?
}

# a soft limit of 24 is raised to the hard one: every dump is written
record_dumps soft -Sn 24
log "soft 24: rc=$RC: $(cat soft.err)"
grep -i "too many open files\|dump failed" soft.err && fail "soft limit 24: $(cat soft.err)"
[ "$(ls soft.data.* 2>/dev/null | wc -l)" -eq 3 ] || fail "soft limit 24: not 3 dumps: $(cat soft.err)"
for f in soft.data.*; do
	[ "$("$STOCK" script -i "$f" 2>/dev/null | grep -c .)" -gt 0 ] ||
		fail "soft limit 24: the stock reads no sample in $f"
	stock_reads_clean "$f"
done

# a hard limit of 24: dumps written, or one clear line at start; never a
# recorder that starts and then fails its dumps
record_dumps hard24 -n 24
log "hard 24: rc=$RC: $(cat hard24.err)"
grep -q "Too many open files\|dump failed" hard24.err && fail "hard limit 24: $(cat hard24.err)"
if [ "$(ls hard24.data.* 2>/dev/null | wc -l)" -ne 3 ]; then
	[ "$RC" -ne 0 ] && grep -q "perf record: too many open files:.*over the limit of 24" hard24.err ||
		fail "hard limit 24: neither 3 dumps nor a refusal: rc=$RC $(cat hard24.err)"
fi

# a hard limit far too low: refused at start, in one line, nothing written
record_dumps hard12 -n 12
log "hard 12: rc=$RC: $(cat hard12.err)"
[ "$RC" -ne 0 ] || fail "hard limit 12: the recorder ran (rc 0): $(cat hard12.err)"
[ "$(grep -c . hard12.err)" -eq 1 ] || fail "hard limit 12: not one line: $(cat hard12.err)"
# said at the check, or by the event that found no fd left
grep -q "^perf record: .*too many open files: .* 12\b.*ulimit -Hn" hard12.err ||
	fail "hard limit 12: no clear refusal: $(cat hard12.err)"
ls hard12.data* 2>/dev/null && fail "hard limit 12 left a file"
exit 0
