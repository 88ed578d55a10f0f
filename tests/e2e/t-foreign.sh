#!/bin/bash
# Foreign instrumentation found before round 1 (issue 28): a tracefs instance of someone else's
# with an enabled syscall event biases every baseline. The run refuses with exit 3, naming it,
# and leaves no run directory; with --allow-foreign it measures, and every result carries it:
# result.json's foreign_instrumentation, settings.allow_foreign, shortfalls and each traced
# cell's reason; the gate fails the run unless gate --allow-foreign. Only the instance this test
# made is compared and removed; an idle instance of its own blocks nothing.
. "$(dirname "$0")/lib.sh"
need_root
command -v python3 >/dev/null || skip "python3 not installed"
T=/sys/kernel/tracing
[ -d $T/instances ] || mount -t tracefs nodev $T 2>/dev/null
[ -d $T/instances ] || skip "tracefs not available"
export TB_STATE_DIR=$TMP/state
inst=$T/instances/foreign-t-$$
cleanup_inst() { [ -d "$inst" ] && { echo 0 >"$inst/events/enable" 2>/dev/null; rmdir "$inst"; }; }
trap 'cleanup_inst; rm -rf "$TMP"' EXIT
mkdir "$inst" || skip "cannot create a tracefs instance"
cp "${TB_ROOT:?}/tests/data/run/interrupt.ini" "$TMP/s.ini" # three short cells
# An idle instance (no event, no tracer) instruments nothing: no refusal, nothing recorded.
"$TB" run "$TMP/s.ini" -o "$TMP/r0" -q --no-plots --wait >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] || fail "an idle instance refused the run: exit $rc: $(cat "$TMP/err")"
grep -q "foreign-t-$$" "$TMP/r0/result.json" && fail "an idle instance was recorded as foreign"
echo 1 >"$inst/events/syscalls/sys_enter_getpid/enable" 2>/dev/null ||
	echo 1 >"$inst/events/sched/sched_switch/enable" || fail "cannot enable an event in $inst"

"$TB" run "$TMP/s.ini" -o "$TMP/r1" -q --no-plots --wait >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 3 ] || fail "foreign instrumentation: exit $rc, expected 3: $(cat "$TMP/err")"
grep -q "foreign instrumentation is active: tracefs instance 'foreign-t-$$'" "$TMP/err" ||
	fail "the refusal does not name the instance: $(cat "$TMP/err")"
grep -q -- "--allow-foreign" "$TMP/err" || fail "the refusal does not name the option: $(cat "$TMP/err")"
[ -e "$TMP/r1/result.json" ] && fail "a refused run wrote a result"

"$TB" run "$TMP/s.ini" -o "$TMP/r2" -q --no-plots --wait --allow-foreign >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] || fail "--allow-foreign: exit $rc: $(cat "$TMP/err")"
python3 - "$TMP/r2/result.json" "foreign-t-$$" <<'PY' || fail "the result does not carry it"
import json, sys
r = json.load(open(sys.argv[1]))
name = sys.argv[2]
assert any(name in f for f in r["foreign_instrumentation"]), r["foreign_instrumentation"]
assert r["settings"].get("allow_foreign") is True, r["settings"]
assert any("foreign instrumentation was active" in s and "allowed by --allow-foreign" in s
           for s in r["shortfalls"]), r["shortfalls"]
for c in r["cells"]:
    if not c["baseline"]:
        v, why = c["overhead"]["verdict"], c["overhead"]["reason"]
        # a noisy shared machine may still make it untrustworthy for another reason
        assert v == "untrustworthy" or why.startswith("foreign instrumentation active (allowed)"), (v, why)
PY
grep -q "the run fell short" "$TMP/out" || fail "the summary does not say it: $(tail -n 5 "$TMP/out")"
"$TB" gate "$TMP/r2/result.json" --allow-untrustworthy --allow-faster --max-overhead none \
	--junit "$TMP/j.xml" >"$TMP/gout" 2>&1
[ $? -eq 1 ] || fail "gate passed a run beside foreign instrumentation: $(cat "$TMP/gout")"
grep -q '<failure type="foreign-instrumentation"' "$TMP/j.xml" || fail "JUnit: $(cat "$TMP/j.xml")"
"$TB" gate "$TMP/r2/result.json" --allow-untrustworthy --allow-faster --max-overhead none \
	--allow-foreign >"$TMP/gout" 2>&1 || fail "gate --allow-foreign failed: $(cat "$TMP/gout")"
exit 0
