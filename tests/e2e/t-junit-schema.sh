#!/bin/bash
# gate --junit is valid against Jenkins' junit-10.xsd (tests/data/junit/, vendored with its
# licence), for a pass, a failure, skipped untrustworthy cells and a baseline comparison.
. "$(dirname "$0")/lib.sh"
command -v xmllint >/dev/null || skip "xmllint not installed (Debian: libxml2-utils; make deps installs it)"
XSD=$TB_ROOT/tests/data/junit/junit-10.xsd
R=$TB_ROOT/tests/data/results
[ -f "$XSD" ] || fail "no schema at $XSD"
n=0
check() { # check NAME EXPECTED-EXIT GATE-ARGS...
	local name=$1 want=$2; shift 2
	expect_exit "$want" "$TB" gate "$@" --junit "$TMP/$name.xml" --markdown "$TMP/$name.md" \
		--benchmark-json "$TMP/$name.json"
	xmllint --noout --schema "$XSD" "$TMP/$name.xml" 2>"$TMP/xmllint.err" ||
		{ cat "$TMP/xmllint.err" "$TMP/$name.xml"; fail "$name: JUnit output fails junit-10.xsd"; }
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/$name.json" ||
		fail "$name: benchmark JSON does not parse"
	n=$((n + 1))
}
check pass 0 "$R/pass.json"
check fail 1 "$R/fail.json"
check untrustworthy 1 "$R/untrustworthy.json"
check allowed 0 "$R/untrustworthy.json" --allow-untrustworthy
grep -q '<skipped' "$TMP/allowed.xml" || fail "allowed untrustworthy cells are not <skipped>"
check regression 1 "$R/regressed.json" --baseline "$R/pass.json"
check underpowered 1 "$R/pass.json" --max-overhead 0.01% --require-power
echo "$n JUnit files valid against junit-10.xsd"
exit 0
