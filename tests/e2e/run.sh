#!/bin/bash
# Runs every tests/e2e/t-*.sh against the built binary ($TB_BIN). A script exits 0 to pass,
# 77 to skip (printing why), anything else to fail. Ends with one "e2e: FAILED t-x" line per
# failed script and "e2e: N passed, N failed, N skipped" (make test repeats them at its end).
#
# The scripts run one at a time: they share the machine's tracing state and its run lock. A
# script whose header has the line "# e2e: background" touches neither (it builds, or reads
# files) and starts at once beside the others, at the lowest CPU priority, so that it waits
# for the CPU the measuring scripts leave idle (they sleep in settles, servers, ansible);
# its result is reported at the end with the others'.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export TB_BIN=${TB_BIN:-$here/../../tracebench}
export TB_ROOT=$(cd "$here/../.." && pwd)
pass=0 fail=0 skip=0 failed=()
bgdir=$(mktemp -d /tmp/tb-e2e-bg.XXXXXX)
bgpids=()
trap 'for p in "${bgpids[@]}"; do kill -- -"$p" 2>/dev/null; done; rm -rf "$bgdir"' EXIT

# one NAME RC DURATION LOG: count and print a finished script
one() {
	case $2 in
	0) pass=$((pass + 1)); echo "  PASS $1 (${3}s)" ;;
	77) skip=$((skip + 1)); echo "  SKIP $1: $(tail -n 1 "$4")" ;;
	*) fail=$((fail + 1)); failed+=("$1"); echo "  FAIL $1 (exit $2, ${3}s)"; sed 's/^/    | /' "$4" | tail -n 40 ;;
	esac
}

background() { grep -q -m1 '^# e2e: background$' "$1"; }

for t in "$here"/t-*.sh; do
	[ -e "$t" ] && background "$t" || continue
	name=$(basename "$t" .sh)
	# its own process group (setsid), so that an interrupted runner stops all of it
	setsid -w bash -c 'start=$(date +%s); nice -n 19 bash "$1" >"$2.log" 2>&1; rc=$?;
		echo "$rc $(( $(date +%s) - start ))" >"$2.rc"' _ "$t" "$bgdir/$name" &
	bgpids+=($!)
done
for t in "$here"/t-*.sh; do
	[ -e "$t" ] || continue
	background "$t" && continue
	name=$(basename "$t" .sh)
	log=$(mktemp /tmp/tb-e2e-XXXXXX.log)
	start=$(date +%s)
	bash "$t" >"$log" 2>&1
	rc=$?
	one "$name" $rc $(( $(date +%s) - start )) "$log"
	rm -f "$log"
done
wait
for t in "$here"/t-*.sh; do
	[ -e "$t" ] && background "$t" || continue
	name=$(basename "$t" .sh)
	if [ -s "$bgdir/$name.rc" ]; then
		read -r rc dur <"$bgdir/$name.rc"
	else
		rc=1 dur=0
		echo "the background script ended without its exit status" >>"$bgdir/$name.log"
	fi
	one "$name" "$rc" "$dur" "$bgdir/$name.log"
done
for name in "${failed[@]}"; do echo "e2e: FAILED $name"; done
echo "e2e: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
