#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make validate: does tracebench measure what it claims, on this machine? Runs the validation
# scenarios (scenarios/validation/*.ini) and the peer benchmarks, then tools/validate-analyze.py
# decides each check (METHODOLOGY.md, section 6):
#   known-delta   the delay tracer's calibrated spin recovered within +-10% or +-2 ns
#   aa            baseline against baseline, VALIDATE_AA_RUNS independent runs: false-positive
#                 rate at alpha 0.05 <= 5%, noise floor per workload
#   proof         a syscall tracepoint counts every getpid (events / ops within 1% of what the
#                 workload's table expects, proof "match"); tiny buffers report lost events and
#                 an untrustworthy verdict; a read tracepoint over getpid records exactly 0
#                 (the harness's own syscalls stay out of the traced window)
#   families      every tracer family of issue 32 with reused tracers (proof-families.ini):
#                 each traced sample's count exact (a sampler's samples, a system-wide
#                 command's at least), nothing lost, every sample after the first rearmed
#                 where the family rearms and none where it cannot
#   bpf           measured ns/event >= the kernel's run_time_ns / run_cnt
#   peers         getppid and getpid vs perf bench syscall basic, pipe-pingpong vs perf bench
#                 sched pipe
#                 (ratios printed, no threshold)
#   sources       sizes of error sources (syscall-work flag, filters, bpf_stats, clock reads,
#                 harness floor): figures printed, no threshold
# Output: results/validation-<UTC>/ with every run's result.json, validation.json, table.txt.
# Exit 0 only if every check passed; 1 if one failed; 2 on bad setup.
#
# Environment: TB_BIN (default ./tracebench), VALIDATE_OUT (output directory),
# VALIDATE_AA_RUNS (20), VALIDATE_PEER_ROUNDS (5), VALIDATE_CPU (CPU for perf bench; default:
# the last online CPU, where cpus = auto pins tracebench's workloads),
# VALIDATE_QUICK=1 (every run with --quick, 2 A/A runs, 1 peer round: a smoke test whose
# figures mean nothing), VALIDATE_ONLY (space-separated subset of: known-delta aa proof families bpf
# peers sources explain), VALIDATE_LOCK_WAIT (900: seconds to wait per run while another tracebench
# run holds the machine-wide measuring lock).
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
TB=${TB_BIN:-$root/tracebench}
QUICK=${VALIDATE_QUICK:-0}
if [ "$QUICK" = 1 ]; then
	AA_RUNS=${VALIDATE_AA_RUNS:-2}
	PEER_ROUNDS=${VALIDATE_PEER_ROUNDS:-1}
	QFLAG=--quick
	SYSCALL_LOOPS=200000
	PIPE_LOOPS=5000
else
	AA_RUNS=${VALIDATE_AA_RUNS:-20}
	PEER_ROUNDS=${VALIDATE_PEER_ROUNDS:-5}
	QFLAG=
	SYSCALL_LOOPS=2000000
	PIPE_LOOPS=50000
fi
ONLY=${VALIDATE_ONLY:-known-delta aa proof families bpf peers sources explain}
SCN=$root/scenarios/validation
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
OUT=${VALIDATE_OUT:-$root/results/validation-$STAMP}

if [ ! -x "$TB" ]; then
	echo "validate.sh: $TB is not an executable (build it: make)" >&2
	exit 2
fi
if ! command -v python3 >/dev/null 2>&1; then
	echo "validate.sh: python3 is needed for the analysis" >&2
	exit 2
fi
if [ -e "$OUT" ]; then
	echo "validate.sh: $OUT exists; not overwriting it" >&2
	exit 2
fi
mkdir -p "$OUT" || exit 2
# The figures METHODOLOGY.md quotes from these scenarios that were measured on another machine
# (doc/figures.json; tracebench run says so per scenario, model/figures.h): said once, first.
for s in "$SCN"/*.ini; do
	"$TB" run "$s" --dry-run 2>&1 >/dev/null |
		sed -n 's/^tracebench: warning: .*documents this scenario from another machine: /validate: documented figures from another machine: /p'
done | sort -u
CMDS=$OUT/commands.txt
LOG=$OUT/validate.log
: >"$CMDS"
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$(date +%s)

want() {
	case " $ONLY " in *" $1 "*) return 0 ;; esac
	return 1
}

# run DIR SCENARIO [args]: one tracebench run into DIR; its table goes to the log. Measuring runs
# are serialized machine-wide (a lock): while another tracebench run holds it, wait and retry,
# for at most VALIDATE_LOCK_WAIT seconds (default 900) per run.
run() {
	dir=$1 scn=$2
	shift 2
	echo "$TB run $scn -o $dir $QFLAG $*" >>"$CMDS"
	waited=0
	while :; do
		echo "== $(date -u +%H:%M:%S) tracebench run $(basename "$scn") $QFLAG $* -> $dir" \
			"(load average $(cut -d' ' -f1-3 /proc/loadavg))" >>"$LOG"
		# shellcheck disable=SC2086 # QFLAG is empty or one word
		"$TB" run "$scn" -o "$dir" $QFLAG "$@" >"$OUT/.run.out" 2>&1
		rc=$?
		if [ $rc -eq 3 ] && grep -q "another tracebench run" "$OUT/.run.out" &&
			[ "$waited" -lt "${VALIDATE_LOCK_WAIT:-900}" ]; then
			if [ "$waited" -eq 0 ]; then
				echo "   waiting for another tracebench run to finish" | tee -a "$LOG"
				cat "$OUT/.run.out" >>"$LOG"
			fi
			rm -rf "$dir"
			sleep 5
			waited=$((waited + 5))
			continue
		fi
		cat "$OUT/.run.out" >>"$LOG"
		break
	done
	rm -f "$OUT/.run.out"
	[ "$waited" -gt 0 ] && echo "   (waited ${waited}s for the measuring lock)" >>"$LOG"
	[ "$rc" -eq 0 ] || echo "   (tracebench exited $rc; see $LOG)" | tee -a "$LOG"
	return "$rc"
}

# perf_ns ARGS...: ns/op from one `perf bench` run pinned to $CPU, or nothing.
perf_ns() {
	echo "taskset -c $CPU perf bench $*" >>"$CMDS"
	taskset -c "$CPU" perf bench "$@" 2>>"$LOG" | tee -a "$LOG" |
		awk '/usecs\/op/ { printf "%.3f\n", $1 * 1000 }'
}

step() {
	printf '%s [%3ds] %s\n' "$(date -u +%H:%M:%S)" $(($(date +%s) - t0)) "$*"
}

echo "tracebench validation -> $OUT"
echo "   $($TB --version 2>/dev/null), kernel $(uname -r), $(nproc) CPUs," \
	"load average $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$QUICK" = 1 ] && echo "   VALIDATE_QUICK=1: a smoke test; the figures are not a validation"

if want known-delta; then
	step "known delta: getpid + delay 5/20/100 ns"
	run "$OUT/known-delta" "$SCN/known-delta.ini"
fi

if want aa; then
	step "A/A: $AA_RUNS independent runs of aa.ini --aa"
	i=1
	while [ $i -le "$AA_RUNS" ]; do
		run "$OUT/aa/$(printf %02d $i)" "$SCN/aa.ini" --aa
		i=$((i + 1))
	done
fi

if want proof; then
	step "proof of tracing: sys_enter_getpid, normal and tiny buffers, a control"
	run "$OUT/proof" "$SCN/proof.ini"
fi

if want families; then
	step "proof of tracing for every family, tracers reused: counts, losses, rearms"
	run "$OUT/families" "$SCN/proof-families.ini"
fi

if want bpf; then
	step "in-kernel cross-check: bpf syscall-count on getpid"
	run "$OUT/bpf" "$SCN/bpf-crosscheck.ini"
fi

if want peers; then
	if ! command -v perf >/dev/null 2>&1; then
		step "peers: perf is not installed; skipped"
	else
		# tracebench pins to the last online CPU (cpus = auto); perf bench goes there too
		CPU=${VALIDATE_CPU:-$(($(getconf _NPROCESSORS_ONLN) - 1))}
		step "peers: $PEER_ROUNDS alternating rounds of peers.ini and perf bench on CPU $CPU"
		mkdir -p "$OUT/peers"
		i=1
		while [ $i -le "$PEER_ROUNDS" ]; do
			d=$OUT/peers/$(printf %02d $i)
			run "$d" "$SCN/peers.ini"
			perf_ns syscall basic -l "$SYSCALL_LOOPS" >>"$OUT/peers/perf-syscall.txt"
			perf_ns sched pipe -l "$PIPE_LOOPS" >>"$OUT/peers/perf-pipe.txt"
			i=$((i + 1))
		done
	fi
fi

if want sources; then
	step "error sources: syscall flag, filters, bpf_stats; harness floor and clock cost"
	run "$OUT/sources" "$SCN/error-sources.ini"
	run "$OUT/floor" "$SCN/floor.ini"
fi

if want explain; then
	step "explain: where a tracepoint's, a BPF program's and a known spin's costs land"
	run "$OUT/explain" "$SCN/explain.ini"
fi

finished=$(date -u +%Y-%m-%dT%H:%M:%SZ)
python3 - "$OUT/meta.json" "$started" "$finished" "$(($(date +%s) - t0))" "$QUICK" \
	"$AA_RUNS" "$PEER_ROUNDS" "$(uname -r)" "$($TB --version 2>/dev/null)" "$load0" \
	"$(cut -d' ' -f1-3 /proc/loadavg)" <<'EOF'
import json, sys
a = sys.argv
json.dump({"started": a[2], "finished": a[3], "wall_s": int(a[4]), "quick": a[5] == "1",
           "aa_runs": int(a[6]), "peer_rounds": int(a[7]), "kernel": a[8], "tool": a[9],
           "loadavg_start": a[10], "loadavg_end": a[11]},
          open(a[1], "w"), indent=2)
EOF
step "analysis"
python3 "$here/validate-analyze.py" "$OUT"
