#!/bin/bash
# report.html and compare.html in a real browser (Debian's chromium, headless): a screenshot of
# the expected size, every plot's SVG present and drawn, no table overflowing a 1400 px window,
# the environment table collapsed (issue 15). Skipped only where chromium is not installed.
. "$(dirname "$0")/lib.sh"
CHROMIUM=$(command -v chromium || command -v chromium-browser) ||
	skip "chromium not installed (Debian: chromium; make deps installs it)"
command -v gnuplot >/dev/null || skip "gnuplot not installed: the reports would have no plots"
R=$TB_ROOT/tests/data/results
W=1400 H=900
browse() { # browse PROFILE ARGS...: chromium headless, as the machine's doc prescribes
	local prof=$TMP/profile-$1; shift
	rm -rf "$prof"
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$prof" --window-size=$W,$H "$@" 2>>"$TMP/chromium.err"
}
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
	{ sed 's#</body>##; s#</html>##' "$page"; printf '<script>\n'; cat "$TB_ROOT/tests/e2e/browser-check.js"
	  printf '</script>\n</body></html>\n'; } >"$TMP/$name-check.html"
	browse "$name-dom" --dump-dom "file://$TMP/$name-check.html" >"$TMP/$name.dom" ||
		{ tail -n 5 "$TMP/chromium.err"; fail "$name: chromium --dump-dom failed"; }
	python3 - "$TMP/$name.dom" "$name" "$minfig" <<'PY' || fail "$name: the page fails in the browser"
import html, json, re, sys
dom, name, minfig = open(sys.argv[1]).read(), sys.argv[2], int(sys.argv[3])
m = re.findall(r'<pre id="tbcheck">(\{.*?)</pre>', dom, re.S)
assert m, "the check script did not run"
r = json.loads(html.unescape(m[-1]))
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
cp "$R/plot-fixture.json" "$TMP/res/result.json"
"$TB" report "$TMP/res/result.json" -o "$TMP/report.html" >/dev/null 2>"$TMP/err" || { cat "$TMP/err"; fail "report failed"; }
check report "$TMP/report.html" 4
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
exit 0
