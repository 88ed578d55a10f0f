#!/bin/bash
# The CI recipe's one script (doc/ci.md): run a scenario, gate its result, leave what a CI system
# shows in one directory. Every CI system calls this, so its recipe is tested once
# (tests/e2e/t-ci-gate.sh runs it as doc/ci.md's recipes do).
#
#   tools/ci-gate.sh SCENARIO.ini [run options...]      e.g. scenarios/quick.ini --quick
#
# Writes $TB_CI_OUT (default ci-out/, which must not hold an earlier run): run/ (result.json,
# plots, report.html), junit.xml, summary.md, benchmark.json, sysinfo.txt. Environment:
#   TRACEBENCH      the binary (default: tracebench on PATH, else ./tracebench)
#   TB_CI_OUT       the output directory
#   TB_CI_GATE      more gate options, split on spaces (e.g. "--max-overhead 10%")
#   TB_CI_HISTORY   set: add the run to the history ($TRACEBENCH_DB, else results/history.db)
#                   and gate against it (doc/ci.md)
# The commit and branch labels come from GitHub's or GitLab's variables when they are set.
# Exit: the gate's (0 pass, 1 fail), or the run's when it wrote no result (2 bad input,
# 3 not possible here).
set -u
[ $# -ge 1 ] || { sed -n '6p' "$0" >&2; exit 2; }
scenario=$1
shift
tb=${TRACEBENCH:-$(command -v tracebench || echo ./tracebench)}
out=${TB_CI_OUT:-ci-out}
mkdir -p "$out" || exit 2
labels=()
sha=${GITHUB_SHA:-${CI_COMMIT_SHA:-}}
branch=${GITHUB_REF_NAME:-${CI_COMMIT_REF_NAME:-}}
[ -n "$sha" ] && labels+=(--label "commit=$sha")
[ -n "$branch" ] && labels+=(--label "branch=$branch")
history=()
[ -n "${TB_CI_HISTORY:-}" ] && history=(--history)

echo "== tracebench sysinfo (the machine this job measured)"
"$tb" sysinfo | tee "$out/sysinfo.txt"
echo "== tracebench run $scenario $*"
# --wait: queue behind another run on this machine instead of failing at once.
"$tb" run "$scenario" -o "$out/run" --wait "${labels[@]}" "${history[@]}" "$@"
rc=$?
if [ ! -f "$out/run/result.json" ]; then
	echo "ci-gate: the run wrote no result (exit $rc)" >&2
	exit $((rc ? rc : 2))
fi
echo "== tracebench gate"
# shellcheck disable=SC2086 # TB_CI_GATE is a list of options
"$tb" gate "$out/run/result.json" "${history[@]}" --junit "$out/junit.xml" \
	--markdown "$out/summary.md" --benchmark-json "$out/benchmark.json" ${TB_CI_GATE:-}
gate=$?
# GitHub shows this file on the job's page.
[ -n "${GITHUB_STEP_SUMMARY:-}" ] && cat "$out/summary.md" >>"$GITHUB_STEP_SUMMARY"
[ "$rc" -ne 0 ] && [ "$gate" -eq 0 ] && { echo "ci-gate: the run exited $rc" >&2; exit "$rc"; }
exit "$gate"
