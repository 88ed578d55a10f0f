#!/bin/bash
# The CLI contract: --version, --help, exit 2 with a reason for bad invocations.
. "$(dirname "$0")/lib.sh"
expect_exit 0 "$TB" --version
grep -q '^tracebench [0-9]' "$TMP/out" || fail "--version printed: $(cat "$TMP/out")"
expect_exit 0 "$TB" --help
grep -q 'commands:' "$TMP/out" || fail "--help lists no commands"
expect_exit 2 "$TB"
grep -q 'no command' "$TMP/err" || fail "no reason for a missing command"
expect_exit 2 "$TB" frobnicate
grep -q "unknown command 'frobnicate'" "$TMP/err" || fail "no reason for an unknown command"
expect_exit 2 "$TB" --bogus
for cmd in run list sysinfo compare gate plot report cleanup; do
	expect_exit 0 "$TB" "$cmd" --help
	grep -qi "usage" "$TMP/out" || fail "$cmd --help prints no usage"
	expect_exit 2 "$TB" "$cmd" --no-such-option
	grep -q "no-such-option" "$TMP/err" || fail "$cmd: unknown option not named: $(cat "$TMP/err")"
	# -v/-q after every command, as perf takes them (issue 15)
	grep -q -- "--verbose" "$TMP/err" || fail "$cmd's usage does not mention -v/--verbose"
	expect_exit 0 "$TB" "$cmd" -v --help
	expect_exit 0 "$TB" "$cmd" --quiet --help
done
expect_exit 0 "$TB" run "$TB_ROOT/scenarios/quick.ini" --dry-run -v
grep -q "estimated time" "$TMP/out" || fail "run --dry-run -v printed no plan"
expect_exit 0 "$TB" sysinfo -q --json
expect_exit 0 "$TB" run "$TB_ROOT/scenarios/quick.ini" --dry-run --warmup 3 --rounds 2
grep -q "3 warmup + 2 rounds" "$TMP/out" || fail "--warmup not applied: $(head -n 1 "$TMP/out")"
expect_exit 2 "$TB" run "$TB_ROOT/scenarios/quick.ini" --dry-run --warmup -1
grep -q -- "--warmup" "$TMP/err" || fail "a bad --warmup is not named"
# A duration without a unit is an error on the command line as in a scenario file (issue 15).
expect_exit 2 "$TB" run "$TB_ROOT/scenarios/quick.ini" --dry-run --duration 500
grep -q "needs a unit" "$TMP/err" || fail "--duration 500: $(cat "$TMP/err")"
expect_exit 0 "$TB" run "$TB_ROOT/scenarios/quick.ini" --dry-run --duration 500ms
exit 0
