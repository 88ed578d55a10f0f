#!/bin/bash
# Runs every tests/e2e/t-*.sh against the built binary ($TB_BIN). A script exits 0 to pass,
# 77 to skip (printing why), anything else to fail. Ends with one "e2e: FAILED t-x" line per
# failed script and "e2e: N passed, N failed, N skipped" (make test repeats them at its end).
set -u
here=$(cd "$(dirname "$0")" && pwd)
export TB_BIN=${TB_BIN:-$here/../../tracebench}
export TB_ROOT=$(cd "$here/../.." && pwd)
pass=0 fail=0 skip=0 failed=()
for t in "$here"/t-*.sh; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	log=$(mktemp /tmp/tb-e2e-XXXXXX.log)
	start=$(date +%s)
	bash "$t" >"$log" 2>&1
	rc=$?
	dur=$(( $(date +%s) - start ))
	case $rc in
	0) pass=$((pass + 1)); echo "  PASS $name (${dur}s)" ;;
	77) skip=$((skip + 1)); echo "  SKIP $name: $(tail -n 1 "$log")" ;;
	*) fail=$((fail + 1)); failed+=("$name"); echo "  FAIL $name (exit $rc, ${dur}s)"; sed 's/^/    | /' "$log" | tail -n 40 ;;
	esac
	rm -f "$log"
done
for name in "${failed[@]}"; do echo "e2e: FAILED $name"; done
echo "e2e: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
