#!/bin/bash
# perf record --overwrite: a binary's name swapped for a link, a FIFO, another directory or another file is never opened nor held as the binary
. "$(dirname "$0")/lib/common.sh"
need_stock
need_root "the flight recorder's rings, and a root recorder is what a user attacks"
need_cc
cd "$TMP" || exit 1
export HOME=$TMP
CACHE=$TMP/.debug
# the user's directory; "other" stands for a file only root may read
mkdir -p u/d secret evil && chmod 700 secret
tag=1
# u/swap is replaced by y's copy; u/upg is upgraded to upg2 (a new
# inode under the same name) while the recorder runs
for v in u/ok u/fifo u/link u/d/dir u/live secret/other u/swap y u/upg upg2; do
	build_tagged $v $((tag++))
done
chmod 600 secret/other
cp secret/other evil/dir
bid() { "$STOCK" buildid-list -i "$1" 2>/dev/null; }
ok_bid=$(bid u/ok) live_bid=$(bid u/live) other_bid=$(bid secret/other) y_bid=$(bid y)
upg_bid=$(bid u/upg) upg2_bid=$(bid upg2)
[ ${#ok_bid} -eq 40 ] && [ ${#other_bid} -eq 40 ] || fail "no build ids: '$ok_bid' '$other_bid'"

"$PERF" record --overwrite --switch-output -a -e cpu-clock/period=1000000/ -m 1M \
	--dump-window=all -o hold.data 2> hold.err &
rec=$!
BG_PIDS+=($rec)
wait_ready $rec
# each version of u/upg is held as itself: the second one too, although
# a file of that name is held already
held_once() { [ "$(ls -l /proc/$rec/fd | grep -c -- "-> $TMP/u/upg\$")" = 1 ]; }
"$TMP/u/upg" 100000000 || fail "upg failed"
wait_until "the recorder did not hold u/upg" held_once
cp upg2 u/upg.new && mv u/upg.new u/upg
"$TMP/u/upg" 100000000 || fail "upg2 failed"
wait_until "the recorder did not hold the upgraded u/upg" held_once
# the recorder reads no MMAP2 until it is let go: every swap below comes
# before it opens the name
kill -STOP $rec
for v in ok fifo link d/dir swap; do
	"$TMP/u/$v" 100000000 || fail "$v failed"
done
"$TMP/u/live" 100000000 stop &
live=$!
BG_PIDS+=($live)
wait_until "u/live did not stop itself" grep -q '^[^)]*) T' /proc/$live/stat
rm u/fifo && mkfifo u/fifo
rm u/link && ln -s "$TMP/secret/other" u/link
mv u/d u/d.old && ln -s "$TMP/evil" u/d
rm u/live && ln -s "$TMP/secret/other" u/live
# the old u/swap kept open here, so that y cannot get its inode number
exec 7< u/swap
rm u/swap && cp y u/swap
# a writer waiting for the FIFO's reader: the open of the recorder, if
# any, lets it go on
sh -c 'exec 3>"$1"; touch "$2"' sh "$TMP/u/fifo" "$TMP/fifo-opened" &
writer=$!
BG_PIDS+=($writer)
wait_until "the FIFO's writer did not wait" grep -q wait_for_partner /proc/$writer/wchan
kill -CONT $rec
kill -USR2 $rec
wait_line hold.err "Dump hold.data"
kill -INT $rec
wait_gone $rec "SIGINT after the dump"
wait_stopped $rec INT || fail "record exit status $STOPPED_STATUS: $(cat hold.err)"
dump=$(ls hold.data.* | head -1)
[ -n "$dump" ] || fail "no dump: $(cat hold.err)"

[ -e fifo-opened ] && fail "the recorder opened the FIFO put under a mapped name"
grep -q wait_for_partner /proc/$writer/wchan ||
	fail "the FIFO put under a mapped name was opened: its writer went on"
listed=$(bid "$dump")
log "$(echo "$listed" | grep "$TMP")"
echo "$listed" | grep -q "$other_bid" &&
	fail "the dump lists the build id of the file a link pointed at: $(echo "$listed" | grep "$other_bid")"
[ -e "$CACHE/.build-id/${other_bid:0:2}/${other_bid:2}" ] &&
	fail "the cache took in the file a link pointed at"
echo "$listed" | grep -q "$y_bid" &&
	fail "the dump lists the build id of the file put under a mapped name: $(echo "$listed" | grep "$y_bid")"
[ -e "$CACHE/.build-id/${y_bid:0:2}/${y_bid:2}" ] &&
	fail "the cache took in the file put under a mapped name"
# what was not swapped, and what was still mapped (taken from the mapping,
# not the name), is there with its own build id
for want in "$ok_bid $TMP/u/ok" "$live_bid $TMP/u/live"; do
	echo "$listed" | grep -qx "$want" || fail "the dump does not list $want: $listed"
	b=${want%% *}
	[ "$(bid "$CACHE/.build-id/${b:0:2}/${b:2}/elf")" = "$b" ] ||
		fail "the cache has no copy of ${want#* } with build id $b"
done
# both versions of u/upg are in the feature (the stock lists one entry
# per name, the last; -v shows each event) and in the cache
events=$("$STOCK" buildid-list -v -i "$dump" 2>&1)
for b in "$upg_bid" "$upg2_bid"; do
	echo "$events" | grep -qx "build id event received for $TMP/u/upg: $b \[20\]" ||
		fail "the feature has no $b for $TMP/u/upg: $(echo "$events" | grep u/upg)"
	[ "$(bid "$CACHE/.build-id/${b:0:2}/${b:2}/elf")" = "$b" ] ||
		fail "the cache has no copy of the u/upg with build id $b"
done
kill -9 $live $writer
{ wait $live $writer; } 2>/dev/null
exit 0
