#!/bin/bash
# scenarios/probe-types.ini as this machine sees it: every probe type `tracebench list` calls
# unsupported here is left out of the plan with one "unsupported here: reason" line per tracer
# section, every supported one has its cells, and nothing is armed by the check. Then: uprobe
# events of a dead owner (one recorded in its armed record, one not) are removed by
# `tracebench cleanup`, after --dry-run has only said so.
. "$(dirname "$0")/lib.sh"
need_root
ROOT=${TB_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
SCN=$ROOT/scenarios/probe-types.ini
T=/sys/kernel/tracing
export TB_STATE_DIR=$TMP/run
mkdir -p "$TB_STATE_DIR"

expect_exit 0 "$TB" list --json bpf
python3 - "$TMP/out" >"$TMP/refused" <<'EOF' || fail "list --json has no probe types"
import json, sys
doc = json.load(open(sys.argv[1]))
v = doc["tracers"][0].get("variants") or sys.exit(1)
for x in v:
    if not x["supported"]:
        print(x["name"].split("= ")[-1])
EOF

expect_exit 0 "$TB" run "$SCN" --dry-run
for sec in $(sed -n 's/^\[tracer \([^]]*\)\]/\1/p' "$SCN"); do
	attach=$(awk -v s="[tracer $sec]" '$0 == s { f = 1; next } /^\[/ { f = 0 }
		f && $1 == "attach" { print $3 }' "$SCN")
	if [ -n "$attach" ] && grep -qx "$attach" "$TMP/refused"; then
		grep -q "\[tracer $sec\]: bpf is unsupported here: ." "$TMP/err" ||
			fail "$sec (attach = $attach) is refused by list but not said unsupported by run"
		grep -q "/$sec " "$TMP/out" && fail "$sec is unsupported here but has cells"
	else
		grep -q "/$sec " "$TMP/out" || fail "$sec has no cell in the plan"
	fi
done
n=$(grep -c 'is unsupported here' "$TMP/err")
echo "  $n tracer sections unsupported here, $(wc -l <"$TMP/refused") probe types refused"

# Uprobe events of a dead owner: one named in its record, one not; both must go.
[ -w $T/uprobe_events ] || skip "no uprobe_events"
true &
dead=$!
wait $dead
echo "p:tracebench/tb_${dead}_rec /bin/true:0x0" >>$T/uprobe_events || skip "cannot create uprobe events"
echo "p:tracebench/tb_${dead}_stray /bin/true:0x0" >>$T/uprobe_events
cat >"$TB_STATE_DIR/armed-$dead.json" <<EOF
{ "pid": $dead, "start_time": 1, "items": [ { "kind": "dynevent", "value": "tb_${dead}_rec" } ] }
EOF
expect_exit 0 "$TB" cleanup --dry-run
grep -q "would remove dynamic event tracebench:tb_${dead}_rec" "$TMP/out" "$TMP/err" ||
	fail "dry run does not name the recorded uprobe event"
grep -q "tb_${dead}_rec" $T/uprobe_events || fail "dry run removed an event"
expect_exit 0 "$TB" cleanup
grep -q "tb_${dead}_" $T/uprobe_events && fail "cleanup left the dead owner's uprobe events"
[ -e "$TB_STATE_DIR/armed-$dead.json" ] && fail "cleanup left the armed record"
exit 0
