#!/bin/bash
# run --find-limit (METHODOLOGY.md "Saturation by bisection"): a cell that cannot lose events,
# a tracer with no buffer knob, a buffer at auto, a workload with no knob to raise the rate
# and a rate that is not a number are each an error at --dry-run (exit 2); a quick run finds
# the highest rate a small ftrace stream buffer holds, and result.json's limits has the search
# with its bracket and every probe (rate, buffer, lost, events, tracer CPU); a cell that holds
# at work = 0 goes on along the knob chain to calls per op, and its ends name the knob and
# value. No figure is judged (the machine is shared): only that each is there and agrees with
# the probes.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"

scenario() { # $1 file, $2 workload keys, $3 tracer keys
	printf '[global]\nrepetitions = 2\nwarmup = 0\nduration = 100ms\nmax-cv = 50%%\n' >"$1"
	printf '[workload w]\n%b\n[tracer t]\n%b\n' "$2" "$3" >>"$1"
	printf '[matrix]\nworkloads = w\ntracers = none, t\n' >>"$1"
}
bad() { # $1 what, $2 expected message; the rest: the scenario
	scenario "$TMP/bad.ini" "$3" "$4"
	expect_exit 2 "$TB" run "$TMP/bad.ini" --find-limit --dry-run
	grep -q "find-limit: w/t: $2" "$TMP/err" || fail "$1: $(cat "$TMP/err")"
}
bad "delay" "a delay tracer counts no events, so it cannot lose any" "type = getpid" "type = delay"
bad "perf-count" "a perf-count tracer has no buffer knob" "type = getpid" "type = perf-count"
bad "a BPF map" "this bpf configuration loses no events in a buffer" "type = getpid" \
	"type = bpf\nprogram = syscall-count"
bad "auto" "buffer-size = auto sizes the buffer for the rate" "type = getpid" \
	"type = ftrace-events\nevents = raw_syscalls:sys_enter"
# nanosleep has neither work nor calls, and its threads have no CPU of their own to go to
# (cpus = auto pins the workload to one CPU): named with both reasons
bad "no knob" "workload \[w\] (nanosleep) has no knob to raise the event rate ('work' after each op, 'calls' per op), and threads cannot: no CPU left for another thread" \
	"type = nanosleep" "type = ftrace-events\nevents = raw_syscalls:sys_enter\nbuffer-size = 8K"
scenario "$TMP/ok.ini" "type = getpid\ncalls = 10\nwork = 65536" \
	"type = ftrace-events\nevents = raw_syscalls:sys_enter\npid-filter = workload\nconsumer = stream\noverwrite = false\nbuffer-size = 8K"
expect_exit 0 "$TB" run "$TMP/ok.ini" --find-limit --dry-run
for rate in fast 1e5x -3 0; do
	expect_exit 2 "$TB" run "$TMP/ok.ini" --find-limit="$rate" --dry-run
	grep -q "bad value '$rate' for --find-limit: an event rate in events/s" "$TMP/err" ||
		fail "rate $rate: $(cat "$TMP/err")"
done
expect_exit 2 "$TB" run --find-limit fast "$TMP/ok.ini" --dry-run
grep -q "bad value 'fast' for --find-limit" "$TMP/err" || fail "rate as a word: $(cat "$TMP/err")"
expect_exit 0 "$TB" run --find-limit 200k "$TMP/ok.ini" --dry-run
# [limit] asks for the search from the file; its rate is a file:line error when bad, and the
# command line's --find-limit overrides it (no rate: the shorter search of one calibration)
cp "$TMP/ok.ini" "$TMP/lim.ini"
printf '[limit]\nrate = 1M/s\n' >>"$TMP/lim.ini"
expect_exit 0 "$TB" run "$TMP/lim.ini" --dry-run
grep -q "^find-limit: 1 cells searched after the rounds.*(16 probes" "$TMP/out" ||
	fail "[limit] rate: no find-limit plan: $(cat "$TMP/out")"
expect_exit 0 "$TB" run "$TMP/lim.ini" --find-limit --dry-run
grep -q "^find-limit: .*(8 probes" "$TMP/out" || fail "--find-limit does not override [limit]"
sed -i 's#^rate = .*#rate = fast#' "$TMP/lim.ini"
expect_exit 2 "$TB" run "$TMP/lim.ini" --dry-run
grep -q "lim.ini:$(grep -c '' "$TMP/lim.ini"): \[limit\]: rate: bad value 'fast'" "$TMP/err" ||
	fail "[limit] bad rate: $(cat "$TMP/err")"

need_root
expect_exit 0 "$TB" run "$TMP/ok.ini" --find-limit -o "$TMP/r" --wait
grep -q "^limits (run --find-limit): the highest event rate" "$TMP/out" ||
	fail "no limits table: $(cat "$TMP/out")"
grep -q "^w/t  *buffer-size = 8K" "$TMP/out" || fail "no row for w/t: $(cat "$TMP/out")"
grep -q "^find-limit: w/t: work = 65536, calls = 10, buffer-size = 8K: " "$TMP/err" ||
	fail "no probe on stderr: $(cat "$TMP/err")"
python3 - "$TMP/r/result.json" <<'PY' || fail "result.json's limits"
import json, math, sys
r = json.load(open(sys.argv[1]))
(l,) = r["limits"]
assert (l["kind"], l["cell"], l["workload"], l["tracer"], l["buffer_key"],
        l["buffer"]) == ("rate", "w/t", "w", "t", "buffer-size", "8K"), l
assert l["knobs"] == ["work", "calls"] and l["knob"] in l["knobs"], l
assert l["resolution"] == 0.1, l
ps = l["probes"]
assert 2 <= len(ps) <= 24, ps
assert (ps[0]["knob"], ps[0]["knob_value"]) == ("work", "65536"), ps[0]
assert ps[0]["setting"] == "work = 65536, calls = 10", ps[0]
for p in ps:
    assert p["buffer"] == "8K" and p["buffer_x"] == 8192, p
    for k in ("events_per_s", "events", "lost", "tracer_cpu"):
        assert isinstance(p[k], (int, float)) and p[k] >= 0, (k, p)
lost = [p["events_per_s"] for p in ps if p["lost"] > 0]
held = [p["events_per_s"] for p in ps if p["lost"] == 0]
if l["found"]:
    # the bracket: the fastest probe that held below the lowest that lost
    assert l["lost_events_per_s"] == min(lost), l
    assert l["held_events_per_s"] == max(h for h in held if h < min(lost)), l
    assert l["held_events_per_s"] < l["lost_events_per_s"], l
    assert l["held_at"] in [p["setting"] for p in ps], l
    assert l["lost_at"] in [p["setting"] for p in ps], l
    assert "%s = %s" % (l["knob"], l["held_knob"]) in l["held_at"], l
    assert "%s = %s" % (l["knob"], l["lost_knob"]) in l["lost_at"], l
    assert l["held_tracer_cpu"] >= 0, l
else:
    assert l["note"], l
print("    held %s events/s, lost from %s, %d probes" % (
    l.get("held_events_per_s"), l.get("lost_events_per_s"), len(ps)))
PY
if command -v gnuplot >/dev/null; then
	[ -s "$TMP/r/plots/limits.png" ] && [ -s "$TMP/r/plots/limits.svg" ] ||
		fail "no limits plot: $(ls "$TMP/r/plots")"
	grep -q 'id="plot-limits"' "$TMP/r/report.html" || fail "the report does not inline limits"
fi
grep -q 'id="limits-table"' "$TMP/r/report.html" || fail "the report has no Limits table"
# the strict reader takes what the writer wrote
expect_exit 0 "$TB" report "$TMP/r/result.json" -o "$TMP/again.html"
# the knob chain past work = 0: an op with a fixed part (a partner's pipe round trip) offers
# more events per second with more calls per op (about 1.7e5 events/s at calls = 1 here, 6e5
# at 64). A 64K buffer holds work = 1 and 0 (its limit was about 3.5e5 events/s here), so the
# search goes on to calls, doubling them from 1 until a loss, and bisects there; the ends name
# calls. Where a busy machine loses already at work = 1 the limit is on work, and where a
# quiet one holds every call count calls is spent (each said, not failed).
scenario "$TMP/chain.ini" "type = getpid\npartner = process\ncalls = 1\nwork = 1" \
	"type = ftrace-events\nevents = raw_syscalls:sys_enter\npid-filter = workload\nconsumer = stream\noverwrite = false\nbuffer-size = 64K"
expect_exit 0 "$TB" run "$TMP/chain.ini" --find-limit -o "$TMP/c" --wait --no-plots
python3 - "$TMP/c/result.json" <<'PY' || fail "result.json's chain: $(grep find-limit "$TMP/err")"
import json, re, sys
(l,) = json.load(open(sys.argv[1]))["limits"]
assert l["knobs"] == ["work", "calls"], l
ps = l["probes"]
val = lambda p, k: int(re.search(r"\b%s = (\d+)" % k, p["setting"]).group(1))
# the chain's order: work's probes, then calls' from work's end, never back
kinds = [p["knob"] for p in ps]
assert kinds == sorted(kinds, key=["work", "calls"].index), kinds
calls = [p for p in ps if p["knob"] == "calls"]
work = [p for p in ps if p["knob"] == "work"]
if calls:
    # work held down to 0 first, and calls moved from there at work = 0
    assert val(work[-1], "work") == 0 and work[-1]["lost"] == 0, work
    assert all(val(p, "work") == 0 for p in calls), calls
    assert val(calls[0], "calls") == 2, calls
if any(p["lost"] > 0 for p in calls) and not l["found"]:
    # noise put a held probe above every loss (said, not a limit)
    assert l["knob"] == "calls" and "not monotone" in l["note"], l
    print("    not monotone on calls: %s" % l["note"])
elif any(p["lost"] > 0 for p in calls):
    # a loss on calls is bracketed there, against the setting work ended on
    assert l["knob"] == "calls", l
    assert int(l["held_knob"]) < int(l["lost_knob"]), l
    assert "work = 0, calls = %s" % l["lost_knob"] == l["lost_at"], l
    assert l["held_events_per_s"] < l["lost_events_per_s"], l
    print("    limit on calls: held %.3g events/s at %s, lost %.3g at %s (%d probes)" % (
        l["held_events_per_s"], l["held_at"], l["lost_events_per_s"], l["lost_at"], len(ps)))
else:
    assert l.get("note") or l["found"], l
    print("    no loss on calls (busy machine?): found %s on %s, %s" % (
        l["found"], l["knob"], l.get("knob_note") or l.get("note")))
PY
# the table names the ends, or says why it cannot: a machine so busy that the slowest rate
# lost, or one whose noise swapped two settings' rates (work = 1 held faster than work = 0
# lost: work = 1 adds so little to the pipe's round trip that the two rates are near equal)
grep -q "^w/t .*held at work = [0-9]*, calls = [0-9]*" "$TMP/out" ||
	{ grep -q "^w/t .*lost at work = 1, calls = 1" "$TMP/out" &&
		grep -q "every probe lost events, even at" "$TMP/out"; } ||
	grep -q "not monotone: a probe held .* and none held below it" "$TMP/out" ||
	fail "the limits table names no ends: $(cat "$TMP/out")"
# a named rate: the smallest buffer that holds it, in powers of two
expect_exit 0 "$TB" run "$TMP/ok.ini" --find-limit=50k -o "$TMP/b" --wait --no-plots
grep -q "^limits (run --find-limit 5e+04): the smallest buffer" "$TMP/out" ||
	fail "no buffer table: $(cat "$TMP/out")"
python3 - "$TMP/b/result.json" <<'PY' || fail "result.json's buffer search"
import json, sys
(l,) = json.load(open(sys.argv[1]))["limits"]
assert (l["kind"], l["target_events_per_s"]) == ("buffer", 50000), l
ps = l["probes"]
sizes = {p["buffer_x"] for p in ps}
assert all(x > 0 and int(x) & (int(x) - 1) == 0 for x in sizes), sizes
if l["found"]:
    best = [p for p in ps if p["buffer"] == l["held_buffer"]]
    assert any(p["lost"] == 0 and p["events_per_s"] >= 50000 for p in best), (l, best)
else:
    assert l["note"], l
print("    smallest buffer %s (%d probes)" % (l.get("held_buffer"), len(ps)))
PY
"$TB" cleanup --dry-run >"$TMP/clean" 2>&1
grep -q "nothing to clean" "$TMP/clean" || fail "left behind: $(cat "$TMP/clean")"
exit 0
