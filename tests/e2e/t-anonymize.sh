#!/bin/bash
# `tracebench anonymize RESULT.json [-o OUT.json]` (issue 14, item 7): the command doc/security.md
# promises. What run --anonymize removes is gone from the output, the measurements stay, the
# original is never replaced, a link where the output goes is not written through, and a
# malformed result is bad input.
. "$(dirname "$0")/lib.sh"
in=$TB_ROOT/tests/data/anonymize/identifying.json
cp "$in" "$TMP/r.json"

# To a file.
expect_exit 0 "$TB" anonymize "$TMP/r.json" -o "$TMP/anon.json"
for s in box-17 alice secret-token /srv/bench run-0042 agents.ini machine_id; do
	grep -q -- "$s" "$TMP/anon.json" && fail "anonymize -o left '$s'"
done
grep -q '"tracers/bt/bt.log"' "$TMP/anon.json" || fail "tracer_extra.log not made relative"
cmp -s "$in" "$TMP/r.json" || fail "the input was modified"
# What it wrote is a result the other commands read, with the same samples.
python3 - "$in" "$TMP/anon.json" <<'PY' || fail "the samples changed"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
ns = lambda r: [s["ns_per_op"] for c in r["cells"] for s in c.get("samples", [])]
assert ns(a) == ns(b) and ns(a), (ns(a), ns(b))
PY
expect_exit 0 "$TB" report "$TMP/anon.json" -o "$TMP/anon.html"

# To stdout, and --keep-scenario.
expect_exit 0 "$TB" anonymize "$TMP/r.json"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/out" || fail "stdout is not JSON"
grep -q box-17 "$TMP/out" && fail "stdout output left the host name"
grep -q "scenario text removed" "$TMP/out" || fail "the scenario text was kept without --keep-scenario"
expect_exit 0 "$TB" anonymize --keep-scenario "$TMP/r.json"
grep -q "scenario text removed" "$TMP/out" && fail "--keep-scenario dropped the text"

# Never the input itself, nor through a link to it.
expect_exit 2 "$TB" anonymize "$TMP/r.json" -o "$TMP/r.json"
grep -q "the input itself" "$TMP/err" || fail "no reason for refusing -o INPUT: $(cat "$TMP/err")"
ln -s "$TMP/r.json" "$TMP/link.json"
expect_exit 2 "$TB" anonymize "$TMP/r.json" -o "$TMP/link.json"
echo precious >"$TMP/victim"
ln -s "$TMP/victim" "$TMP/to-victim.json"
expect_exit 2 "$TB" anonymize "$TMP/r.json" -o "$TMP/to-victim.json"
[ "$(cat "$TMP/victim")" = precious ] || fail "written through a link"
cmp -s "$in" "$TMP/r.json" || fail "the input was modified"

# Bad input.
expect_exit 2 "$TB" anonymize "$TB_ROOT/tests/data/results/bad-malformed.json"
expect_exit 2 "$TB" anonymize
expect_exit 2 "$TB" anonymize a.json b.json
exit 0
