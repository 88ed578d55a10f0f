#!/bin/bash
# Raw streams and a command tracer's output files (perf record's perf.data, perf.data.old) are
# written, counted and deleted after each sample unless keep-raw = true, and the summary says
# how much the run wrote (issue 15: a demo run left a 197 MB .raw and a 170 MB perf.data.old).
. "$(dirname "$0")/lib.sh"
need_root
export TB_STATE_DIR=$TMP/state
scenario() { # scenario KEEP
	cat <<EOF2
[global]
repetitions = 2
warmup = 0
duration = 20ms
settle = 0
; the files counted below are those of exactly two samples: no contended round run again
contended-share = 0%

[workload getpid]
type = getpid

[tracer tp-stream]
type = ftrace-events
events = syscalls:sys_enter_getpid
consumer = stream
keep-raw = $1

[tracer writer]
type = command
command = sh -c "head -c 100000 /dev/zero > perf.data; cp perf.data perf.data.old; echo tb-ready; exec sleep 600"
ready = ^tb-ready
keep-raw = $1

[matrix]
workloads = getpid
tracers = none, tp-stream, writer
EOF2
}
for keep in false true; do
	scenario $keep >"$TMP/disk-$keep.ini"
	"$TB" run --wait "$TMP/disk-$keep.ini" -o "$TMP/r-$keep" --no-plots >"$TMP/out" 2>"$TMP/err" ||
		{ cat "$TMP/out" "$TMP/err"; fail "keep-raw = $keep: run failed"; }
	grep -q '^disk: .*tracers wrote [0-9.]* [kMG]\?B' "$TMP/out" ||
		{ cat "$TMP/out"; fail "keep-raw = $keep: the summary does not say how much the run wrote"; }
	python3 - "$TMP/r-$keep/result.json" <<'PY' || fail "keep-raw = $keep: tracer_disk_bytes not recorded"
import json, sys
r = json.load(open(sys.argv[1]))
# the timed samples (a command tracer's accounting samples write as much again: METHODOLOGY 2.11)
by = {c["tracer"]: sum(s.get("tracer_disk_bytes") or 0 for s in c["samples"] if not s.get("accounting"))
      for c in r["cells"]}
assert by["writer"] == 2 * 2 * 100000, by   # two files of 100 kB, two samples
assert by["tp-stream"] > 0, by
PY
	n=$(find "$TMP/r-$keep/tracers" -name '*.raw' -o -name 'perf.data*' | wc -l)
	if [ $keep = false ]; then
		[ "$n" -eq 0 ] || fail "keep-raw = false left $n raw files: $(find "$TMP/r-$keep/tracers")"
	else
		[ "$n" -eq 3 ] || fail "keep-raw = true kept $n files, expected 3: $(find "$TMP/r-$keep/tracers")"
	fi
	[ -s "$TMP/r-$keep/tracers/writer/writer.log" ] || fail "keep-raw = $keep: the command's log went too"
done

# The peak a run needs is stated before it measures, and a run that cannot have it is refused
# (exit 3) with the ways out: a tmpfs or consumer = discard (issue 28). A 2 MiB tmpfs cannot
# hold one sample of raw_syscalls over getpid.
grep -q '^disk: the tracers write up to [0-9.]* [kMG]\?B at once' "$TMP/err" ||
	{ cat "$TMP/err"; fail "the run did not state the peak it writes"; }
small=$TMP/small
mkdir "$small"
mount -t tmpfs -o size=2m tracebench-e2e "$small" || skip "cannot mount a tmpfs here"
trap 'umount "$small" 2>/dev/null; rm -rf "$TMP"' EXIT
stream() { # stream CONSUMER
	cat <<EOF2
[global]
repetitions = 1
warmup = 0
duration = 100ms
[workload getpid]
type = getpid
[tracer tp]
type = ftrace-events
events = raw_syscalls:sys_enter, raw_syscalls:sys_exit
consumer = $1
[matrix]
workloads = getpid
tracers = none, tp
EOF2
}
stream stream >"$TMP/stream.ini"
expect_exit 3 "$TB" run --wait "$TMP/stream.ini" -o "$small/r1" --no-plots
grep -q 'disk: the tracers need up to .* free at once in .*small/r1.* but only .* is free' "$TMP/err" ||
	{ cat "$TMP/err"; fail "no refusal naming the need and what is free"; }
grep -q 'consumer = discard' "$TMP/err" && grep -q 'tmpfs' "$TMP/err" ||
	fail "the refusal does not suggest consumer = discard or a tmpfs"
python3 - "$small/r1/result.json" <<'PY' || fail "the refused run measured something"
import json, sys
r = json.load(open(sys.argv[1]))
assert all(not c["samples"] for c in r["cells"]), [len(c["samples"]) for c in r["cells"]]
PY
stream discard >"$TMP/discard.ini"
expect_exit 0 "$TB" run --wait "$TMP/discard.ini" -o "$small/r2" --no-plots -q
umount "$small"
exit 0
