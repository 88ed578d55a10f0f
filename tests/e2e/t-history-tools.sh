#!/bin/bash
# The history's benchmark and validation scripts as smoke tests (their figures mean nothing
# here): make bench-history on 40 synthetic files from a fixture, make validate-history with 4
# runs per history of 3 rounds each and the step at run 3. Each must print its table and exit
# 0 or 1 (1: a criterion missed, which 4 runs may well do), never 2 or a crash.
. "$(dirname "$0")/lib.sh"
need_root
TB_BIN=$TB BENCH_HISTORY_RUNS=40 BENCH_HISTORY_SOURCE=$TB_ROOT/tests/data/results/pass.json \
	BENCH_HISTORY_OUT=$TMP/bench "$TB_ROOT/tools/bench-history.sh" >"$TMP/bench.out" 2>&1
rc=$?
[ $rc -le 1 ] || { cat "$TMP/bench.out"; fail "bench-history.sh exited $rc"; }
grep -q 'history add (40 files)' "$TMP/bench.out" || { cat "$TMP/bench.out"; fail "no bench table"; }
grep -q '^PASS$' "$TMP/bench.out" || { cat "$TMP/bench.out"; fail "40 files missed the speed targets"; }
TB_BIN=$TB VALIDATE_HISTORY_RUNS=4 VALIDATE_HISTORY_STEP=2 VALIDATE_HISTORY_OUT=$TMP/val \
	VALIDATE_HISTORY_RUN_ARGS='--rounds 3' \
	"$TB_ROOT/tools/validate-history.sh" >"$TMP/val.out" 2>&1
rc=$?
[ $rc -le 1 ] || { cat "$TMP/val.out"; fail "validate-history.sh exited $rc"; }
for want in 'null history: 4 runs' 'known steps: 4 runs' '+100 ns'; do
	grep -qF "$want" "$TMP/val.out" || { cat "$TMP/val.out"; fail "no '$want' in the table"; }
done
[ -s "$TMP/val/table.txt" ] && [ -s "$TMP/val/steps.html" ] || fail "validate-history wrote no table or page"
# run options the run refuses: bad setup, exit 2 naming the variable, before any run
TB_BIN=$TB VALIDATE_HISTORY_RUN_ARGS='--rounds x' VALIDATE_HISTORY_OUT=$TMP/bad \
	"$TB_ROOT/tools/validate-history.sh" >"$TMP/bad.out" 2>&1
rc=$?
[ $rc -eq 2 ] || { cat "$TMP/bad.out"; fail "bad VALIDATE_HISTORY_RUN_ARGS: exit $rc, expected 2"; }
grep -q 'VALIDATE_HISTORY_RUN_ARGS=.--rounds x.: .*--rounds' "$TMP/bad.out" ||
	{ cat "$TMP/bad.out"; fail "bad VALIDATE_HISTORY_RUN_ARGS: no reason naming it"; }
[ ! -e "$TMP/bad" ] || fail "bad VALIDATE_HISTORY_RUN_ARGS: an output directory was made"
exit 0
