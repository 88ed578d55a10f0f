#!/bin/bash
# A relative run directory (-o rel, and the default results/...) works for every tracer that
# hands its directory to a tool (issue 27, item 3): lttng-ust's session URL (file://results/...
# is not one) and a command tracer's {outdir}; each gets an absolute path.
. "$(dirname "$0")/lib.sh"
need_root
export TB_STATE_DIR=$TMP/state
cat >"$TMP/rel.ini" <<'EOF'
[global]
repetitions = 1
warmup = 0
duration = 20ms

[workload lt]
type = usercall
calls = 1
lttng = true

[tracer ust]
type = lttng-ust
subbuf-size = 64K
subbuf-count = 2

[tracer cmd]
type = command
command = sh -c 'echo "outdir={outdir}"; echo ready; exec sleep 600'
ready = ^ready$

[matrix]
workloads = lt
tracers = ust, cmd
EOF
mkdir "$TMP/cwd"
cd "$TMP/cwd" || fail "cd"
"$TB" run "$TMP/rel.ini" -o rel -q --no-plots --wait >"$TMP/out" 2>"$TMP/err"
rc=$?
if grep -q "lttng-ust.*unsupported here\|no lttng" "$TMP/err"; then
	echo "note: lttng-ust unsupported here: only the command tracer is checked"
fi
python3 - rel/result.json "$TMP/cwd/rel" <<'PY' || { cat "$TMP/err"; fail "a tracer failed in a relative run directory (run exited $rc)"; }
import json, sys
r = json.load(open(sys.argv[1]))
for c in r["cells"]:
    if c["tracer"] == "none":
        continue
    assert not c.get("error"), (c["tracer"], c.get("error"))
    assert any(not s.get("failed") for s in c["samples"]), c["tracer"]
PY
grep -rq "outdir=$TMP/cwd/rel/tracers/cmd" rel/tracers/cmd/ ||
	fail "the command tracer's {outdir} is not absolute: $(grep -rh outdir= rel/tracers/cmd/)"
exit 0
