#!/bin/bash
# SIGKILL at every phase of a run (issue 27, item 7): during a tracer's setup (before it is
# ready), mid-sample (a command workload running in its cgroup), during the plots (gnuplot
# running, held there by a stand-in that waits, its temp directory made) and during explain
# (the profiler's samples); then `tracebench cleanup` leaves this
# test's tracing state, cgroups, armed records, scratch and plot temp directories as they were
# before. Only the state this test made is compared (its pid-named and workload-named items).
. "$(dirname "$0")/lib.sh"
need_root
T=/sys/kernel/tracing
grep -q ' tracefs ' /proc/mounts || mount -t tracefs nodev $T || skip "cannot mount tracefs"
export TB_STATE_DIR=$TMP/state
wl=sk$$
secs=1.$$
cat >"$TMP/k.ini" <<EOF
[global]
repetitions = 2
warmup = 0
duration = 50ms

[workload $wl]
type = command
command = sleep $secs

[workload g$wl]
type = getpid

[tracer tp]
type = ftrace-events
events = syscalls:sys_enter_getpid
pid-filter = workload

[tracer slow]
type = command
command = sh -c 'sleep 0.$$; echo ready; exec sleep 600.$$'
ready = ^ready\$

[matrix]
workloads = $wl, g$wl
tracers = tp, slow
EOF
# What this test can have made: runs' instances, cgroups, scratch, plot temp dirs, records.
state() {
	local p=$1
	ls $T/instances 2>/dev/null | grep "^tracebench-$p-"
	find /sys/fs/cgroup -maxdepth 8 -type d \( -name "tracebench-$p-*" -o -name "tracebench-*-$wl-*" \) 2>/dev/null
	ls -d /tmp/tracebench-$p-* 2>/dev/null
	find "$TMP" -path "*/plots/.tracebench-*" 2>/dev/null
	ls "$TB_STATE_DIR" 2>/dev/null | grep armed-
	pgrep -f "sleep ($secs|600\.$$)$" 2>/dev/null
}
before=$(state none) # its workload-named items; no run of its own is live yet
[ -z "$before" ] || fail "state of this test exists before it: $before"

# kill_when NAME CONDITION-COMMAND [RUN ARGS]: start a run, SIGKILL it once the condition
# holds (it is given the run's pid as $1), then cleanup, then compare.
kill_when() {
	local name=$1 cond=$2 pid i
	shift 2
	"$TB" run "$TMP/k.ini" -o "$TMP/r-$name" -q --wait "$@" >"$TMP/out-$name" 2>"$TMP/err-$name" &
	pid=$!
	measuring $pid
	for i in $(seq 1 1200); do
		$cond $pid && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.05
	done
	kill -0 $pid 2>/dev/null || { cat "$TMP/err-$name"; fail "$name: the run ended before the phase"; }
	$cond $pid || { kill -9 $pid; fail "$name: the phase was not reached in 60 s"; }
	kill -9 $pid
	wait $pid 2>/dev/null
	# The sample child dies of PDEATHSIG a moment later; cleanup leaves live owners alone.
	for i in $(seq 1 100); do pgrep -f "run $TMP/k.ini -o $TMP/r-$name" >/dev/null || break; sleep 0.05; done
	"$TB" cleanup >"$TMP/cl-$name" 2>&1 || { cat "$TMP/cl-$name"; fail "$name: cleanup failed"; }
	sleep 0.3
	local after
	after=$(state $pid) # this run's: another run on the machine may be live meanwhile
	[ -z "$after" ] || { cat "$TMP/cl-$name"; fail "$name: left after SIGKILL and cleanup: $after"; }
	echo "  $name: nothing left"
}
in_setup() { pgrep -f "sleep 0.$$\$" >/dev/null; }
mid_sample() { pgrep -f "sleep $secs\$" >/dev/null; }
# gnuplot's own runs are short; this one waits before it draws, so the plots phase is caught
# every time with its temp directory made and a gnuplot child running.
cat >"$TMP/slow-gnuplot" <<EOF
#!/bin/sh
: >"$TMP/plotting"
sleep 599 &
wait \$!
exec gnuplot "\$@"
EOF
chmod +x "$TMP/slow-gnuplot"
in_plots() {
	[ -e "$TMP/plotting" ] && pgrep -f "^sleep 599\$" >/dev/null &&
		[ -n "$(find "$TMP/r-plots" -path "*/plots/.tracebench-*" 2>/dev/null)" ]
}
# Explain: every round is in result.json and a profiled sample of the command workload runs.
in_explain() {
	python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["settings"]["rounds"] < 2)' \
		"$TMP/r-explain/result.json" 2>/dev/null && mid_sample
}

kill_when setup in_setup --no-plots
kill_when sample mid_sample --no-plots
if command -v gnuplot >/dev/null; then
	TB_GNUPLOT=$TMP/slow-gnuplot kill_when plots in_plots
	pkill -f "^sleep 599\$" # the stand-in's own wait, orphaned by the SIGKILL
else
	echo "  note: plots: gnuplot is not installed; that phase is not tried"
fi
kill_when explain in_explain --no-plots --explain
exit 0
