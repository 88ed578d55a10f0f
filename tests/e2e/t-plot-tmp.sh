#!/bin/bash
# A plot session killed with SIGKILL leaves plots/.tracebench-<pid>-XXXXXX (issue 27, item 5):
# `tracebench cleanup` removes it (the owner's armed record names it) and so does the next plot
# (its owner's pid is in its name); a live owner's is left alone; cleanup --dry-run names it once.
. "$(dirname "$0")/lib.sh"
need_root
export TB_STATE_DIR=$TMP/state
mkdir -p "$TB_STATE_DIR"
FIX=$TB_ROOT/tests/data/results/plot-fixture.json
command -v gnuplot >/dev/null || skip "gnuplot not installed"
sleep 0 &
dead=$!
wait $dead
starttime() { awk '{ sub(/.*\) /, ""); print $20 }' "/proc/$1/stat"; }

# The next plot: a dead owner's directory goes, a live one's (ours) stays.
expect_exit 0 "$TB" plot "$FIX" -o "$TMP/p"
mkdir -p "$TMP/p/plots/.tracebench-$dead-AbCdEf" "$TMP/p/plots/.tracebench-$$-LiVeOn"
echo x >"$TMP/p/plots/.tracebench-$dead-AbCdEf/ns-per-op.dat"
expect_exit 0 "$TB" plot "$FIX" -o "$TMP/p"
[ ! -e "$TMP/p/plots/.tracebench-$dead-AbCdEf" ] || fail "the next plot left a dead owner's directory"
[ -d "$TMP/p/plots/.tracebench-$$-LiVeOn" ] || fail "the next plot removed a live owner's directory"
rmdir "$TMP/p/plots/.tracebench-$$-LiVeOn"
ls -a "$TMP/p/plots" | grep -q '^\.tracebench-' && fail "a plot left its own directory: $(ls -a "$TMP/p/plots")"

# cleanup: the directory named in a dead owner's record (an owner that is a sleep we kill).
sleep 1000 &
owner=$!
w="$TMP/p/plots/.tracebench-$owner-XyZaBc"
mkdir "$w"
cat >"$TB_STATE_DIR/armed-$owner.json" <<EOF
{ "pid": $owner, "start_time": $(starttime $owner),
  "items": [ { "kind": "plot_tmp", "value": "$w" } ] }
EOF
expect_exit 0 "$TB" cleanup --dry-run
grep -q "would remove plot directory" "$TMP/out" && fail "cleanup would remove a live owner's plot directory"
kill -9 $owner
wait $owner 2>/dev/null
expect_exit 0 "$TB" cleanup --dry-run
[ "$(grep -c "would remove plot directory $w " "$TMP/out")" -eq 1 ] ||
	{ cat "$TMP/out"; fail "cleanup --dry-run does not name the plot directory once"; }
[ -d "$w" ] || fail "--dry-run removed it"
expect_exit 0 "$TB" cleanup
[ ! -e "$w" ] || { cat "$TMP/out"; fail "cleanup left the dead owner's plot directory"; }
[ ! -e "$TB_STATE_DIR/armed-$owner.json" ] || fail "cleanup left the record"
# A record naming something that is not a plot directory of ours is ignored.
sleep 0 &
o2=$!
wait $o2
mkdir "$TMP/victim"
cat >"$TB_STATE_DIR/armed-$o2.json" <<EOF
{ "pid": $o2, "start_time": 1, "items": [ { "kind": "plot_tmp", "value": "$TMP/victim" } ] }
EOF
"$TB" cleanup >"$TMP/out" 2>&1
[ -d "$TMP/victim" ] || fail "cleanup removed a directory that is not a plot directory"
exit 0
