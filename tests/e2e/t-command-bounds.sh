#!/bin/bash
# A command tracer's output is bounded by log-max on every path (issue 27, item 2): a tool that
# prints `ready` and then floods is ready (its first line is seen) and leaves at most log-max
# bytes a sample; a tool that writes 3 MB and exits 3 during the measurement leaves a bounded log
# and, with keep-raw = false, none of its {sample} files. A command workload's output is bounded
# by output-max the same way while the program runs, and its metric is read from what is kept.
. "$(dirname "$0")/lib.sh"
need_root
export TB_STATE_DIR=$TMP/state
max=65536
cat >"$TMP/b.ini" <<EOF
[global]
repetitions = 1
warmup = 0
duration = 300ms

[workload getpid]
type = getpid

[tracer flood]
type = command
command = sh -c 'echo ready; exec yes floodfloodflood'
ready = ^ready\$
ready-timeout = 10s
log-max = 64K

[tracer dies]
type = command
command = sh -c 'echo ready; sleep 0.1; head -c 3000000 /dev/zero | tr "\\\\0" x; echo raw >raw-{sample}.dat; exit 3'
ready = ^ready\$
ready-timeout = 10s
log-max = 64K

[matrix]
workloads = getpid
tracers = flood, dies
EOF
sed -i 's/^duration = 300ms/duration = 2s/' "$TMP/b.ini" # the dying one dies mid-sample
"$TB" run "$TMP/b.ini" -o "$TMP/r" -q --no-plots --wait >"$TMP/out" 2>"$TMP/err"
grep -q "flood.*not ready" "$TMP/err" && { cat "$TMP/err"; fail "the flooding tool's first line 'ready' was not seen"; }
grep -q "dies.*exited with status 3" "$TMP/err" || { cat "$TMP/err"; fail "the dying tool's exit was not reported"; }
python3 - "$TMP/r/result.json" $max <<'PY' || fail "the flooding tool's samples failed"
import json, sys
r = json.load(open(sys.argv[1]))
c = [c for c in r["cells"] if c["tracer"] == "flood"][0]
assert any(not s.get("failed") for s in c["samples"]), c.get("error")
PY
for tr in flood dies; do
	log=$TMP/r/tracers/$tr/$tr.log
	[ -f "$log" ] || fail "$tr: no log"
	n=$(ls "$TMP/r/tracers/$tr" | wc -l)
	samples=$(python3 -c "import json,sys; print(sum(len(c['samples']) for c in json.load(open(sys.argv[1]))['cells'] if c['tracer'] == sys.argv[2]))" "$TMP/r/result.json" $tr)
	size=$(stat -c %s "$log")
	[ "$size" -le $(((max + 100) * samples)) ] ||
		fail "$tr: its log is $size bytes for $samples samples of log-max $max"
	grep -q "bytes of this output cut" "$log" || fail "$tr: the log does not say what was cut"
	[ "$n" -eq 1 ] || fail "$tr: files left besides the log: $(ls "$TMP/r/tracers/$tr")"
done
head -n 1 "$TMP/r/tracers/flood/flood.log" | grep -qx ready || fail "the log lost its first line"

# The workload: 3 MB of output, then the metric on the last line, then a pause in which the
# output file (in the run's scratch directory) is looked at.
cat >"$TMP/w.ini" <<EOF
[global]
repetitions = 1
warmup = 0

[workload chatty]
type = command
command = sh -c 'head -c 3000000 /dev/zero | tr "\\\\0" x; echo; echo "score: 42"; : >$TMP/written; sleep 3'
metric = score: ([0-9]+)
output-max = 64K

[matrix]
workloads = chatty
tracers = none
EOF
"$TB" run "$TMP/w.ini" -o "$TMP/w" -q --no-plots --wait >"$TMP/wout" 2>"$TMP/werr" &
pid=$!
measuring $pid
for _ in $(seq 1 200); do [ -e "$TMP/written" ] && break; sleep 0.05; done
[ -e "$TMP/written" ] || { kill $pid; cat "$TMP/werr"; fail "the command workload did not run"; }
sleep 0.3
out=$(find /tmp/tracebench-$pid-* -name 'command-output*' 2>/dev/null | head -n 1)
[ -n "$out" ] || { kill $pid; fail "no command-output file in the run's scratch directory"; }
size=$(stat -c %s "$out")
[ "$size" -le $((max + 100)) ] || { kill $pid; fail "the workload's output is $size bytes while output-max is $max"; }
wait $pid || { cat "$TMP/werr"; fail "the run with a chatty command workload failed"; }
python3 - "$TMP/w/result.json" <<'PY' || fail "the metric was not read from the kept output"
import json, sys
r = json.load(open(sys.argv[1]))
s = [s for c in r["cells"] for s in c["samples"]]
assert s and all(not x.get("failed") and x.get("metric") == 42 for x in s), s
PY
exit 0
