#!/bin/bash
# report.html and compare.html in a real browser (Debian's chromium, headless): a screenshot of
# the expected size, every plot's SVG present and drawn, no table overflowing a 1400 px window,
# the environment table collapsed (issue 15), the cost column's ns/event only with an overhead;
# with a BPF cell's accounting in the report and compare's service rows in a comparison.
# Skipped only where chromium is not installed.
. "$(dirname "$0")/lib.sh"
have_chromium || skip "chromium not installed (Debian: chromium; make deps installs it)"
command -v gnuplot >/dev/null || skip "gnuplot not installed: the reports would have no plots"
R=$TB_ROOT/tests/data/results
W=$BROWSER_W H=$BROWSER_H
check() { # check NAME PAGE MIN-FIGURES
	local name=$1 page=$2 minfig=$3
	[ -s "$page" ] || fail "$name: no page at $page"
	browse "$name-shot" --screenshot="$TMP/$name.png" "file://$page" >/dev/null ||
		{ tail -n 5 "$TMP/chromium.err"; fail "$name: chromium could not take a screenshot"; }
	python3 - "$TMP/$name.png" $W $H <<'PY' || fail "$name: the screenshot is not a sane image"
import struct, sys, os
p, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
d = open(p, "rb").read(32)
assert d[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pw, ph = struct.unpack(">II", d[16:24])
assert (pw, ph) == (w, h), (pw, ph)
assert os.path.getsize(p) > 20000, "a nearly blank page: %d bytes" % os.path.getsize(p)
PY
	browser_check "$name" "$page"
	python3 - "$TMP/$name.json" "$name" "$minfig" <<'PY' || fail "$name: the page fails in the browser"
import json, sys
r, name, minfig = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3])
bad = []
if len(r["figures"]) < minfig:
    bad.append("%d figures, expected at least %d" % (len(r["figures"]), minfig))
for f in r["figures"]:
    if f["failed"] or not f["svg"] or f["w"] < 300 or f["h"] < 100 or f["nodes"] < 20:
        bad.append("figure %s: svg %s, %dx%d, %d nodes%s" % (f["id"], f["svg"], f["w"], f["h"],
                   f["nodes"], ", failed" if f["failed"] else ""))
for t in r["tables"]:
    # A table in a scrolling box is contained by it; any other must end inside the body.
    right = t["pright"] if t["scroll"] else t["right"]
    if right > r["bodyright"] + 1:
        bad.append("table %s overflows: right edge %.0f px, the page's %.0f" % (t["id"], right, r["bodyright"]))
if r["sw"] > r["vw"] + 1:
    bad.append("the page is %d px wide in a %d px window" % (r["sw"], r["vw"]))
if r["env_open"]:
    bad.append("the environment table is expanded by default")
print("%s: %d figures, %d tables, page %d/%d px" % (name, len(r["figures"]), len(r["tables"]), r["sw"], r["vw"]))
assert not bad, "; ".join(bad)
PY
}
mkdir -p "$TMP/res"
# One bundled BPF cell with its accounting: the BPF cells table with the cost statement.
python3 - "$R/plot-fixture.json" "$TMP/res/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = next(c for c in r["cells"] if c["id"] == "getpid/bpf-raw-syscalls")
c["accounting"] = {"samples": 10, "ns_per_op": 680.5, "cost_pct": 35.5, "cost_ci": [7.7, 60.9],
                   "cost_ns_per_op": 63.2, "cost_ns_per_run": 31.6, "bpf_runs_per_op": 2.0,
                   "bpf_ns_per_run": 61.5}
json.dump(r, open(sys.argv[2], "w"))
PY
"$TB" report "$TMP/res/result.json" -o "$TMP/report.html" >/dev/null 2>"$TMP/err" || { cat "$TMP/err"; fail "report failed"; }
check report "$TMP/report.html" 4
grep -q '>getpid/bpf-raw-syscalls</td><td class="n">2.00</td><td class="n">61.5</td>' "$TMP/report.html" &&
	grep -q 'the stats cost +35.5% \[+7.7, +60.9\] of the timed ns/op' "$TMP/report.html" ||
	fail "report: no BPF cells row with the accounting"
# The cost column as the browser shows it: ns/event with its CI only where the verdict is
# "overhead"; a dash, and why on hover, where the overhead is not detectable or not trusted.
python3 - "$TMP/report.json" <<'PY' || fail "report: the cost column quotes what it should not"
import json, sys
rows = [v for v in json.load(open(sys.argv[1]))["verdicts"] if len(v["cells"]) == 9]
seen = {}
for v in rows:
    cost, verdict = v["cells"][5], v["cells"][8]
    kind = verdict.split()[0] if verdict else ""
    if kind not in ("overhead", "no-detectable-overhead", "untrustworthy"):
        continue
    seen[kind] = seen.get(kind, 0) + 1
    if kind == "overhead":
        assert "[" in cost and "," in cost, (v["cells"][:2], cost)
    else:
        assert cost == "\u2013", (v["cells"][:2], cost)
        why = kind.replace("-", " ") + ": "
        assert (v["cost_title"] or "").startswith(why), (v["cells"][:2], v["cost_title"])
# plot-fixture.json: 5 with an overhead, 3 without a detectable one, 2 untrustworthy
assert seen == {"overhead": 5, "no-detectable-overhead": 3, "untrustworthy": 2}, seen
print("report: cost column of %d traced rows as the terminal says" % sum(seen.values()))
PY
# A long value without spaces (a kernel command line, a path) in an environment difference.
python3 - "$R/b.json" "$TMP/b-long.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["system"].setdefault("kernel", {})["cmdline"] = "BOOT_IMAGE=/" + "x" * 300 + ",mitigations=auto"
json.dump(r, open(sys.argv[2], "w"))
PY
"$TB" compare "$R/a.json" "$TMP/b-long.json" "$R/c-otherhw.json" --html "$TMP/compare.html" >/dev/null 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "compare --html failed"; }
check compare "$TMP/compare.html" 1
# compare --html of two service results: its service rows fit the page too.
"$TB" compare "$R/svc-a.json" "$R/svc-b.json" --html "$TMP/svc-compare.html" >/dev/null 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "compare --html of the service results failed"; }
browser_check svc-compare "$TMP/svc-compare.html" # laid out only: check has shot a comparison
python3 - "$TMP/svc-compare.json" <<'PY' || fail "svc-compare: the service table is missing or overflows"
import json, sys
r = json.load(open(sys.argv[1]))
t = [x for x in r["tables"] if x["id"] == "compare-services-1"]
assert t and t[0]["scroll"] and t[0]["pright"] <= r["bodyright"] + 1, r["tables"]
print("svc-compare: the service table fits (%.0f of %.0f px)" % (t[0]["right"], r["bodyright"]))
PY
exit 0
