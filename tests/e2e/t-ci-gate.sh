#!/bin/bash
# The CI recipe (issue 28): doc/ci.md's GitHub Actions and GitLab CI YAML parse, both call
# tools/ci-gate.sh the same way, and that call works here: a run, a gate, JUnit valid against
# junit-10.xsd whose failures agree with the exit status, the summary, the result and report.
. "$(dirname "$0")/lib.sh"
DOC=$TB_ROOT/doc/ci.md
[ -f "$DOC" ] && [ -x "$TB_ROOT/tools/ci-gate.sh" ] || skip "no source tree"
python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml not installed"
need_root
# The recipes' command lines, as the CI systems would run them.
python3 - "$DOC" >"$TMP/cmds" <<'PY' || fail "doc/ci.md: the recipes do not parse"
import re, sys, yaml
text = open(sys.argv[1]).read()
blocks = [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", text, re.S)]
assert len(blocks) == 2, "expected a GitHub and a GitLab block"
gh = [s["run"] for s in blocks[0]["jobs"]["overhead"]["steps"] if "ci-gate" in s.get("run", "")]
gl = [c for c in blocks[1]["tracing-overhead"]["script"] if "ci-gate" in c]
assert len(gh) == 1 and len(gl) == 1, (gh, gl)
assert blocks[1]["tracing-overhead"]["artifacts"]["reports"]["junit"] == "ci-out/junit.xml"
print(gh[0].replace("sudo -E ", "")); print(gl[0])
PY
[ "$(sed -n 1p "$TMP/cmds")" = "$(sed -n 2p "$TMP/cmds")" ] ||
	fail "the GitHub and GitLab recipes call the script differently: $(cat "$TMP/cmds")"
cmd=$(sed -n 1p "$TMP/cmds")
case $cmd in tools/ci-gate.sh\ *) ;; *) fail "the recipe does not call tools/ci-gate.sh: $cmd" ;; esac
# Bad input: no scenario, a scenario that does not exist: exit 2, nothing gated.
expect_exit 2 env TRACEBENCH="$TB" TB_CI_OUT="$TMP/bad" "$TB_ROOT/tools/ci-gate.sh"
expect_exit 2 env TRACEBENCH="$TB" TB_CI_OUT="$TMP/bad" "$TB_ROOT/tools/ci-gate.sh" "$TMP/none.ini"
grep -q "wrote no result" "$TMP/err" || fail "a failed run is not said: $(cat "$TMP/err")"
[ -e "$TMP/bad/junit.xml" ] && fail "a run without a result was gated"
# The recipe's own call, in the tree (its paths are the tree's), as GitHub runs it.
(cd "$TB_ROOT" && env TRACEBENCH="$TB" TB_CI_OUT="$TMP/ci-out" GITHUB_STEP_SUMMARY="$TMP/summary" \
	GITHUB_SHA=abc123 GITHUB_REF_NAME=main $cmd) >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 1 ] || { tail -n 30 "$TMP/out" "$TMP/err"; fail "$cmd exited $rc"; }
for f in sysinfo.txt run/result.json run/report.html junit.xml summary.md benchmark.json; do
	[ -s "$TMP/ci-out/$f" ] || { tail -n 20 "$TMP/err"; fail "ci-out/$f not written"; }
done
grep -q "fingerprint" "$TMP/ci-out/sysinfo.txt" || fail "sysinfo.txt has no fingerprint"
cmp -s "$TMP/summary" "$TMP/ci-out/summary.md" || fail "GITHUB_STEP_SUMMARY does not hold the summary"
python3 - "$TMP/ci-out/run/result.json" <<'PY' || fail "the labels did not reach the result"
import json, sys
labels = json.load(open(sys.argv[1])).get("labels", {})
assert labels.get("commit") == "abc123" and labels.get("branch") == "main", labels
PY
if command -v xmllint >/dev/null; then
	xmllint --noout --schema "$TB_ROOT/tests/data/junit/junit-10.xsd" "$TMP/ci-out/junit.xml" \
		2>"$TMP/xmllint.err" || { cat "$TMP/xmllint.err"; fail "junit.xml fails junit-10.xsd"; }
fi
# The exit status is the gate's: 1 exactly when the JUnit file has failures (a loaded machine
# may fail the gate; the recipe must say so the same way everywhere).
failures=$(python3 -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
print(sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in r.iter("testsuite")))' \
	"$TMP/ci-out/junit.xml")
if [ "$rc" -eq 1 ]; then
	[ "$failures" -gt 0 ] || fail "exit 1 but junit.xml has no failure"
else
	[ "$failures" -eq 0 ] || fail "exit 0 but junit.xml has $failures failures"
fi
exit 0
