#!/bin/bash
# A full disk and a refused link give the same exit code in every command (issue 27, items 6
# and 7): 3 for a full file system, 2 for a link we did not make, with a clear error naming the
# file; a history on a full disk keeps what it had, and `history add` leaves no 0-byte database
# and no "cannot rollback" line. An 8M tmpfs (mounted in a mktemp directory, unmounted at the end)
# is the run directory and the history's directory.
. "$(dirname "$0")/lib.sh"
need_root
export TB_STATE_DIR=$TMP/state
FIX=$TB_ROOT/tests/data/results/plot-fixture.json
FULL=$TMP/full
mkdir "$FULL"
mount -t tmpfs -o size=8m tb-disk-full "$FULL" || skip "cannot mount a tmpfs"
trap 'umount "$FULL" 2>/dev/null; rm -rf "$TMP"' EXIT
fill() { head -c 9000000 /dev/zero >"$FULL/filler" 2>/dev/null; }
nospc() { grep -q "No space left on device\|disk is full" "$TMP/err" || { cat "$TMP/err"; fail "$1: no 'No space left' reason"; }; }

# A history elsewhere with one run, to export and report from.
expect_exit 0 "$TB" history add "$FIX" --db "$TMP/h.db"

# history add into a database on the full disk: 3, no 0-byte database, no rollback noise.
fill
expect_exit 3 "$TB" history add "$FIX" --db "$FULL/new.db"
nospc "history add (new database)"
grep -qi "rollback" "$TMP/err" && fail "history add on a full disk: $(grep -i rollback "$TMP/err")"
[ ! -e "$FULL/new.db" ] || [ -s "$FULL/new.db" ] || fail "history add left a 0-byte database"
rm -f "$FULL/filler" "$FULL/new.db"*
# An existing database on the disk that fills: the add fails with 3 and the run it had stays.
expect_exit 0 "$TB" history add "$TB_ROOT/tests/data/results/a.json" --db "$FULL/h.db"
fill
cp "$TB_ROOT/tests/data/results/b.json" "$TMP/b.json"
expect_exit 3 "$TB" history add "$FIX" --db "$FULL/h.db"
nospc "history add (existing database)"
expect_exit 0 "$TB" history list --runs --db "$FULL/h.db"
grep -q "a.json\|^ *1 " "$TMP/out" || { cat "$TMP/out"; fail "the history lost its run on a full disk"; }

# Outputs onto the full disk: 3 from every command.
expect_exit 3 "$TB" history export 1 --db "$TMP/h.db" -o "$FULL/x.json"
expect_exit 3 "$TB" history report --db "$TMP/h.db" -o "$FULL/h.html"
expect_exit 3 "$TB" report "$FIX" -o "$FULL/r.html"
expect_exit 3 "$TB" anonymize "$FIX" -o "$FULL/anon.json"
rm -f "$FULL/filler"

# Outputs onto a link we did not make: 2 from every command.
ln -s "$TMP/victim" "$TMP/link"
expect_exit 2 "$TB" history export 1 --db "$TMP/h.db" -o "$TMP/link"
expect_exit 2 "$TB" history report --db "$TMP/h.db" -o "$TMP/link"
expect_exit 2 "$TB" report "$FIX" -o "$TMP/link"
expect_exit 2 "$TB" anonymize "$FIX" -o "$TMP/link"
[ ! -e "$TMP/victim" ] || fail "something was written through the link"

# A run whose run directory fills up: 3, and what it wrote is valid.
cat >"$TMP/r.ini" <<'EOF'
[global]
repetitions = 2
warmup = 0
duration = 20ms

[workload getpid]
type = getpid

[matrix]
workloads = getpid
tracers = none
EOF
head -c 8200000 /dev/zero >"$FULL/filler" 2>/dev/null
"$TB" run "$TMP/r.ini" -o "$FULL/run" -q --wait >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 3 ] || { cat "$TMP/err"; fail "a run on a full disk exited $rc, expected 3"; }
nospc "run"
if [ -e "$FULL/run/result.json" ]; then
	python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$FULL/run/result.json" ||
		fail "the run left a result.json that is not JSON"
fi
umount "$FULL" || fail "cannot unmount the tmpfs"
exit 0
