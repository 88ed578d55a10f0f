#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make bench-workloads: every workload under no tracer (median ns/op, ops/s, CV over samples),
# then `perf bench syscall basic` against getpid and `perf bench sched pipe` against
# pipe-pingpong, run alternately in the same rounds on the same pinned CPU, with the ratio.
#
# Environment: TB_BENCH (the bench-workloads program, default build/bench-workloads),
# BENCH_CPU (default: the last online CPU), BENCH_SAMPLES (5), BENCH_DURATION (200ms),
# BENCH_ROUNDS (11, for the perf bench comparison). Each comparison alternates short runs of
# both (about 200 ms each) and reports the median and the minimum of each side: on a shared
# machine the minimum is the better estimate of the intrinsic cost, the median of typical cost.
set -u

BENCH=${TB_BENCH:-build/bench-workloads}
CPU=${BENCH_CPU:-$(($(getconf _NPROCESSORS_ONLN) - 1))}
SAMPLES=${BENCH_SAMPLES:-5}
DURATION=${BENCH_DURATION:-200ms}
ROUNDS=${BENCH_ROUNDS:-11}

if [ ! -x "$BENCH" ]; then
	echo "bench-workloads.sh: $BENCH not built (make build/bench-workloads)" >&2
	exit 2
fi

# Other tracing on the host (a shared machine) changes syscall costs for everyone: say so.
foreign() {
	ti=$(ls /sys/kernel/tracing/instances 2>/dev/null | wc -l)
	bp=$(bpftool prog list 2>/dev/null | grep -c '^[0-9]')
	pf=$(pgrep -c -x 'perf|bpftrace|trace-cmd' 2>/dev/null)
	echo "   (host: load average $(cut -d' ' -f1-3 /proc/loadavg); tracefs instances: $ti," \
		"BPF programs: ${bp:-?}, perf/bpftrace/trace-cmd processes: ${pf:-0})"
}

echo "== every workload, no tracer: $SAMPLES samples of $DURATION, pinned to CPU $CPU"
echo "   ($(uname -r), $(nproc) CPUs)"
foreign
"$BENCH" -c "$CPU" -n "$SAMPLES" -d "$DURATION" || st=1

if ! command -v perf >/dev/null 2>&1; then
	echo "== perf not installed: no perf bench comparison"
	exit ${st:-0}
fi

# Median of the numbers on stdin.
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2];
		else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# ns/op from perf bench's "N usecs/op" line.
perf_ns() {
	taskset -c "$CPU" perf bench "$@" 2>/dev/null | awk '/usecs\/op/ { printf "%.3f\n", $1 * 1000 }'
}

ours_ns() {
	"$BENCH" -q -c "$CPU" -n 1 -d "$DURATION" "$1" | awk '{ print $2 }'
}

compare() {
	label=$1 ours=$2
	shift 2
	p=$(mktemp) o=$(mktemp)
	i=0
	while [ $i -lt "$ROUNDS" ]; do
		perf_ns "$@" >>"$p"
		ours_ns "$ours" >>"$o"
		i=$((i + 1))
	done
	pm=$(median <"$p")
	om=$(median <"$o")
	pmin=$(sort -g "$p" | head -1)
	omin=$(sort -g "$o" | head -1)
	printf '%-36s median %9.1f  min %9.1f ns/op\n' "perf bench $label" "$pm" "$pmin"
	printf '%-36s median %9.1f  min %9.1f ns/op\n' "tracebench $(echo "$ours" | tr : ' ')" \
		"$om" "$omin"
	printf '%-36s median %9.3f  min %9.3f\n' "  ratio tracebench / perf bench" \
		"$(echo "$om $pm" | awk '{ print ($2 > 0) ? $1 / $2 : 0 }')" \
		"$(echo "$omin $pmin" | awk '{ print ($2 > 0) ? $1 / $2 : 0 }')"
	rm -f "$p" "$o"
}

echo "== perf bench vs tracebench, $ROUNDS alternating rounds of each, pinned to CPU $CPU"
foreign
compare "syscall basic (getppid)" getpid:call=getppid syscall basic -l 500000
compare "sched pipe (2 processes)" pipe-pingpong sched pipe -l 20000
foreign
exit ${st:-0}
