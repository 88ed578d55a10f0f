#!/bin/bash
# tracebench run --repeat N --spacing D (harness/cli/run-repeat.c): the whole run N times into
# DIR/repeat-K, spaced, then the repeats combined (combined.txt, printed; combined.json), each
# traced cell over all N, the repeats after the first with --wait; repeats that exit 1 combined
# with their failed cells counted (exit 1); the repeats' variable set by someone else ignored;
# --dry-run says it and makes nothing; bad input (exit 2, nothing
# made): N out of range or not a number, --spacing without --repeat or out of range, --repeat
# with --json or --gate, a DIR that is not empty; SIGINT in the spacing: exit 130, the finished
# repeat kept, nothing combined, no repeat left running, the tracing state as before.
. "$(dirname "$0")/lib.sh"
need_root
"$TB" list ftrace-events | grep -q UNSUPPORTED && skip "SKIPPED t-run-repeat: ftrace-events unsupported here"
export TB_STATE_DIR=$TMP/state
S=$TB_ROOT/tests/data/fleet/tiny.ini
before=$(own_tracing_state)

# 1. Three repeats five seconds apart, combined.
expect_exit 0 "$TB" run "$S" --repeat 3 --spacing 5s --no-plots -o "$TMP/r"
for k in 1 2 3; do
	[ -s "$TMP/r/repeat-$k/result.json" ] || { cat "$TMP/err"; fail "repeat-$k has no result"; }
done
[ ! -e "$TMP/r/repeat-4" ] || fail "a fourth repeat"
grep -q "repeat 2 of 3 in 5 s (--spacing)" "$TMP/err" || { cat "$TMP/err"; fail "the spacing not said"; }
[ -s "$TMP/r/combined.txt" ] && [ -s "$TMP/r/combined.json" ] || fail "the combination not written"
grep -qF "$(head -n 1 "$TMP/r/combined.txt")" "$TMP/out" || { cat "$TMP/out"; fail "the combination not printed"; }
python3 - "$TMP/r" <<'PY' || fail "the repeats or their combination"
import datetime, json, os, sys
d = sys.argv[1]
c = json.load(open(os.path.join(d, "combined.json")))
files = [os.path.join(d, f"repeat-{k}", "result.json") for k in (1, 2, 3)]
assert c["files"] == files and c["warnings"] == [], c
cells = {x["id"]: x for x in c["cells"]}
assert [p["file"] for p in cells["getpid/tp-getpid"]["per_run"]] == files, cells
assert list(cells) == ["getpid/tp-getpid"], list(cells)
assert cells["getpid/tp-getpid"]["runs"] == 3, cells
assert cells["getpid/tp-getpid"]["overhead_pct"]["present"], cells
t = lambda s: datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ")
r = [json.load(open(os.path.join(d, f"repeat-{k}", "result.json"))) for k in (1, 2, 3)]
for a, b in zip(r, r[1:]):
    # whole seconds, truncated: a gap of 5 s or more reads as at least 5
    assert (t(b["started"]) - t(a["finished"])).total_seconds() >= 5, (a["finished"], b["started"])
# the repeats after the first wait for the lock (a run that took it in the spacing)
assert "--wait" not in r[0]["command_line"].split(), r[0]["command_line"]
assert all("--wait" in x["command_line"].split() for x in r[1:]), [x["command_line"] for x in r]
PY
# 1b. A repeat that exits 1 (a cell failed: a tracer command that dies before it is ready) is
# combined with its failed cell counted, and the command exits 1.
sed -e 's/^tracers = none, tp-getpid$/tracers = none, tp-getpid, fake-bcc/' "$S" >"$TMP/fails.ini"
cat >>"$TMP/fails.ini" <<'EOF2'

[tracer fake-bcc]
type = command
command = sh -c "echo 'fake-bcc: cannot compile the BPF program' >&2; exit 1"
ready = ^Tracing
ready-timeout = 10s
EOF2
expect_exit 1 "$TB" run "$TMP/fails.ini" --repeat 2 --no-plots -o "$TMP/f"
grep -q "repeat 1 exited 1 (its run directory says why)" "$TMP/err" || { cat "$TMP/err"; fail "the failed repeat not said"; }
python3 - "$TMP/f/combined.json" <<'PY' || fail "the failed repeats' combination"
import json, sys
cells = {x["id"]: x for x in json.load(open(sys.argv[1]))["cells"]}
assert cells["getpid/tp-getpid"]["runs"] == 2 and cells["getpid/tp-getpid"]["overhead_pct"]["present"], cells
assert cells["getpid/fake-bcc"]["failed"] == 2 and cells["getpid/fake-bcc"]["runs"] == 0, cells
PY
# 1c. The variable a driver gives its repeats, set by anyone else, is ignored (said): the run
# is the driver it was asked to be, and writes nowhere else.
TRACEBENCH_REPEAT_OUTPUT="1:$TMP/stray" expect_exit 0 "$TB" run "$S" --repeat 2 --no-plots -o "$TMP/s2"
grep -q "TRACEBENCH_REPEAT_OUTPUT is set, not by a .run --repeat. that started this run: ignored" "$TMP/err" ||
	{ cat "$TMP/err"; fail "a stray repeat variable not said"; }
[ ! -e "$TMP/stray" ] && [ -s "$TMP/s2/repeat-2/result.json" ] && [ -s "$TMP/s2/combined.json" ] ||
	fail "a stray repeat variable changed where the run wrote"
# 2. --dry-run: the plan and the repeats said, nothing made.
expect_exit 0 "$TB" run "$S" --repeat 4 --spacing 1m --dry-run -o "$TMP/dry"
grep -q "^repeated 4 times, 60 s apart, then combined" "$TMP/out" || { cat "$TMP/out"; fail "--dry-run with --repeat"; }
[ ! -e "$TMP/dry" ] || fail "--dry-run made the directory"
# 3. Bad input: exit 2, the reason, nothing made.
for args in "--repeat 1" "--repeat 101" "--repeat x" "--spacing 1s" "--repeat 2 --spacing 25h" \
	"--repeat 2 --spacing soon" "--repeat 2 --json" "--repeat 2 --gate"; do
	# shellcheck disable=SC2086
	expect_exit 2 "$TB" run "$S" $args -o "$TMP/bad"
	[ -s "$TMP/err" ] || fail "$args: no reason given"
	[ ! -e "$TMP/bad" ] || fail "$args: the directory was made"
done
grep -q "needs --repeat" <("$TB" run "$S" --spacing 1s -o "$TMP/bad" 2>&1) || fail "--spacing alone: no reason"
mkdir "$TMP/full" && echo x >"$TMP/full/keep"
expect_exit 2 "$TB" run "$S" --repeat 2 -o "$TMP/full"
[ "$(ls "$TMP/full")" = keep ] || fail "a non-empty directory was written"
# interrupt PID SECS ERRFILE WHEN: SIGINT to the driver, which must exit 130 within SECS
interrupt() {
	local end=$((SECONDS + $2)) rc
	kill -INT "$1"
	while kill -0 "$1" 2>/dev/null && [ $SECONDS -lt $end ]; do sleep 0.1; done
	kill -0 "$1" 2>/dev/null && { kill -KILL "$1"; fail "SIGINT $4: the driver did not stop within $2 s"; }
	wait "$1"
	rc=$?
	[ $rc -eq 130 ] || { cat "$3"; fail "SIGINT $4: exited $rc, expected 130"; }
}
# 4. SIGINT while waiting between repeats: 130, the first repeat kept, nothing combined.
"$TB" run "$S" --repeat 3 --spacing 60s --no-plots -o "$TMP/int" 2>"$TMP/int.err" >/dev/null &
pid=$!
end=$((SECONDS + 120))
until grep -q "repeat 2 of 3 in 60 s" "$TMP/int.err" 2>/dev/null || [ $SECONDS -ge $end ]; do sleep 0.1; done
grep -q "repeat 2 of 3 in 60 s" "$TMP/int.err" || { kill -INT $pid; cat "$TMP/int.err"; fail "never reached the spacing"; }
interrupt $pid 10 "$TMP/int.err" "in the spacing"
grep -q "interrupted after 1 of 3 repeats" "$TMP/int.err" || { cat "$TMP/int.err"; fail "the interruption not said"; }
[ -s "$TMP/int/repeat-1/result.json" ] || fail "the finished repeat was lost"
[ ! -e "$TMP/int/repeat-2" ] && [ ! -e "$TMP/int/combined.json" ] || fail "a repeat or a combination after the interruption"
# 5. SIGINT during a repeat: it stops as a run does (130, its partial result), the driver too.
"$TB" run "$TB_ROOT/tests/data/run/interrupt.ini" --repeat 2 --no-plots -o "$TMP/int2" \
	2>"$TMP/int2.err" >/dev/null &
pid=$!
end=$((SECONDS + 180))
until [ -s "$TMP/int2/repeat-1/result.json" ] || [ $SECONDS -ge $end ]; do sleep 0.05; done
interrupt $pid 60 "$TMP/int2.err" "in a repeat"
# the repeat that was running (the first, unless it ended before the signal came) stopped as a
# run stops; nothing after it, nothing combined
last=$(ls -d "$TMP/int2"/repeat-* | tail -n 1)
python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); assert r["partial"] and r["stop_reason"] == "interrupted", r["stop_reason"]' \
	"$last/result.json" || fail "the interrupted repeat's result ($last)"
[ ! -e "$TMP/int2/combined.json" ] || fail "a combination after the interruption"
pgrep -f -- "-o $TMP/int" >/dev/null && fail "a repeat still runs"
state_unchanged "$before" || fail "tracing state changed by the repeats (the difference above)"
echo "PASS: run --repeat: repeats spaced and combined, dry run, bad input, interruptions"
