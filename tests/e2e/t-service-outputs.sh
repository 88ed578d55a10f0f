#!/bin/bash
# The service metrics outside run (issue 30), on the fixtures (tests/data/results/svc-*.json):
# history keeps a series per service metric and detect finds a step of p99 in eight runs whose
# p99 rises 30% at the fifth (throughput unchanged: no step); gate's service limits fail by the
# metric that is over (JUnit's type names it) and refuse a bare number; compare prints them, and
# compare --html has them as a table.
. "$(dirname "$0")/lib.sh"
FIX=$TB_ROOT/tests/data/results
DB=$TMP/h.db
python3 - "$FIX/svc-a.json" "$TMP" <<'PY' || fail "could not write the runs"
import json, random, sys
a = json.load(open(sys.argv[1]))
rng = random.Random(7)
for k in range(8):
    r = json.loads(json.dumps(a))
    r["started"] = "2026-11-%02dT10:00:00Z" % (10 + k)
    r["finished"] = "2026-11-%02dT10:05:00Z" % (10 + k)
    for c in r["cells"]:
        c.pop("service", None)  # recomputed from the samples
        for s in c["samples"]:
            s["service"]["p99_ns"] = rng.gauss(400e3 if k < 4 else 520e3, 4e3)
            s["service"]["requests_per_s"] *= rng.gauss(1, 0.003)
    json.dump(r, open("%s/r%d.json" % (sys.argv[2], k), "w"))
PY
expect_exit 0 "$TB" history add --db "$DB" "$TMP"/r[0-7].json
expect_exit 0 "$TB" history list --db "$DB" '*/service_*'
for m in service_rps service_p50 service_p99; do
	grep -q "fixture/nginx/bpf-count/$m" "$TMP/out" || fail "no series $m: $(cat "$TMP/out")"
done
expect_exit 0 "$TB" history detect --db "$DB" 'fixture/nginx/bpf-count/service_*'
grep -q "service_p99 .*: 1 change point" "$TMP/out" || fail "no p99 step: $(cat "$TMP/out")"
grep -q "at run 5 of 8" "$TMP/out" || fail "the step is not at run 5: $(cat "$TMP/out")"
grep -q "service_rps .*: 1 change point" "$TMP/out" && fail "a throughput step from nothing"

# gate: svc-a's traced cell loses ~10% throughput, its p99 rises ~20%
expect_exit 1 "$TB" gate "$FIX/svc-a.json" --max-overhead none --max-throughput-loss 5% \
	--junit "$TMP/j.xml"
grep -q 'failure type="throughput-loss"' "$TMP/j.xml" || fail "JUnit does not name the metric"
expect_exit 1 "$TB" gate "$FIX/svc-a.json" --max-overhead none --max-p99-increase 10% \
	--junit "$TMP/j.xml"
grep -q 'failure type="p99-increase"' "$TMP/j.xml" || fail "JUnit does not name p99"
expect_exit 0 "$TB" gate "$FIX/svc-a.json" --max-overhead none --max-throughput-loss 50% \
	--max-p99-increase 50%
expect_exit 2 "$TB" gate "$FIX/svc-a.json" --max-p99-increase 10
grep -q "bare number" "$TMP/err" || fail "a bare limit without the spelling to use"
expect_exit 0 "$TB" compare "$FIX/svc-a.json" "$FIX/svc-b.json"
grep -q "service: throughput .* worse; p50 .*; p99 .* worse" "$TMP/out" ||
	fail "compare has no service line: $(cat "$TMP/out")"
# compare --html has the same rows: a table of the service cells' metrics, the terminal's words
expect_exit 0 "$TB" compare "$FIX/svc-a.json" "$FIX/svc-b.json" --html "$TMP/svc.html"
line=$(grep -o 'service: throughput [0-9]* -> [0-9]*' "$TMP/out" | head -n 1)
a=$(echo "$line" | awk '{print $3}') b=$(echo "$line" | awk '{print $5}')
[ -n "$b" ] || fail "no throughput A -> B in compare's table: $(cat "$TMP/out")"
grep -q '<table id="compare-services-1">' "$TMP/svc.html" || fail "compare --html has no service table"
grep -q "<td>throughput</td><td class=\"n\">$a</td><td class=\"n\">$b</td><td>req/s</td>" \
	"$TMP/svc.html" || fail "compare --html's throughput is not the terminal's $a -> $b"
[ "$(grep -c '<td class="sig">worse</td>' "$TMP/svc.html")" -ge 2 ] ||
	fail "compare --html does not say that throughput and p99 got worse"
echo "ok"
