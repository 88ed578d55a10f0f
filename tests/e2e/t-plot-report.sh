#!/bin/bash
# plot and report from a result file: the images exist, gnuplot is quiet, the HTML report is
# well-formed, complete, self-contained and escapes names; a missing gnuplot is handled.
. "$(dirname "$0")/lib.sh"
FIX=$TB_ROOT/tests/data/results/plot-fixture.json
[ -r "$FIX" ] || fail "missing fixture $FIX"
command -v python3 >/dev/null || skip "python3 not installed"
cp "$FIX" "$TMP/result.json"

# A bad result file is bad input.
echo '{"schema": "nope"}' >"$TMP/bad.json"
expect_exit 2 "$TB" plot "$TMP/bad.json"
expect_exit 2 "$TB" report "$TMP/bad.json"
expect_exit 2 "$TB" plot "$TMP/does-not-exist.json"
expect_exit 2 "$TB" plot

# Without gnuplot: plot says so (exit 3), report still renders and says why.
TB_GNUPLOT=/nonexistent/gnuplot expect_exit 3 "$TB" plot "$TMP/result.json" -o "$TMP/nognu"
grep -q "gnuplot not found" "$TMP/err" || fail "no clear message without gnuplot"
TB_GNUPLOT=/nonexistent/gnuplot expect_exit 0 "$TB" report "$TMP/result.json" -o "$TMP/nognu.html"
grep -q "gnuplot was not found" "$TMP/nognu.html" || fail "report does not say why it has no plots"

# Report checker: balanced tags, no external resource, every cell, the environment.
cat >"$TMP/check.py" <<'PY'
import json, sys
from html.parser import HTMLParser
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}
class Check(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.text = [], [], []
    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k in ("src", "href") and v and not v.startswith("#"):
                self.errors.append("external reference %s=%s" % (k, v))
        if tag in ("script", "link", "iframe", "img", "object", "embed"):
            self.errors.append("<%s> present" % tag)
        if tag not in VOID:
            self.stack.append(tag)
    def handle_startendtag(self, tag, attrs):
        pass
    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("</%s> at %s closes %s" % (tag, self.getpos(), self.stack[-1:]))
        else:
            self.stack.pop()
    def handle_data(self, data):
        self.text.append(data)
html = open(sys.argv[1], encoding="utf-8").read()
res = json.load(open(sys.argv[2]))
c = Check(); c.feed(html); c.close()
if c.stack: c.errors.append("never closed: %s" % c.stack)
for bad in ("http:", "https:", "@import", "url(http"):
    if bad in html.lower(): c.errors.append("contains %s" % bad)
text = "".join(c.text)
for cell in res["cells"]:
    for k in ("workload", "tracer"):
        if cell[k] not in text: c.errors.append("cell %s missing" % cell[k])
for k in ('id="environment"', 'id="verdict-table"', 'id="warnings"', 'id="reproduce"'):
    if k not in html: c.errors.append("no %s" % k)
if res["system"].get("hostname", "") not in text: c.errors.append("hostname missing")
if res.get("command_line") and res["command_line"] not in text:
    c.errors.append("command line missing")
for e in c.errors: print(e)
sys.exit(1 if c.errors else 0)
PY
python3 "$TMP/check.py" "$TMP/nognu.html" "$TMP/result.json" || fail "report without plots is not right"

# A hostile result: names with markup and quotes render as text.
python3 - "$TMP/result.json" "$TMP/evil.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["cells"][0]["workload"] = "<script>alert(1)</script>"
r["cells"][1]["tracer"] = "\"'&amp;<b>x"
r["scenario"]["text"] = "</pre><script>alert(1)</script>"
r["system"]["hostname"] = "h<i>'\"&"
json.dump(r, open(sys.argv[2], "w"))
PY
"$TB" report "$TMP/evil.json" -o "$TMP/evil.html" >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ $rc -eq 0 ]; then
	grep -q "<script>alert" "$TMP/evil.html" && fail "unescaped <script> in the report"
	grep -q "&lt;script&gt;alert(1)&lt;/script&gt;" "$TMP/evil.html" || fail "escaped name missing"
	python3 "$TMP/check.py" "$TMP/evil.html" "$TMP/evil.json" || fail "hostile report is not right"
else
	# The loader may refuse such names; that is fine as long as it says so as bad input.
	[ $rc -eq 2 ] || { cat "$TMP/err"; fail "report of hostile names exited $rc"; }
fi

command -v gnuplot >/dev/null || skip "gnuplot not installed: plots not checked"

expect_exit 0 "$TB" plot "$TMP/result.json"
grep -q "$TMP/plots" "$TMP/out" || fail "plot does not say where the plots are"
for p in overhead ns-per-op timeline; do
	for ext in png svg; do
		[ -s "$TMP/plots/$p.$ext" ] || fail "no $p.$ext"
	done
done
[ -s "$TMP/plots/data/overhead.dat" ] || fail "no overhead.dat"
[ -s "$TMP/err" ] && { cat "$TMP/err"; fail "plot printed warnings"; }
file "$TMP/plots/overhead.png" 2>/dev/null | grep -q PNG || head -c 8 "$TMP/plots/overhead.png" | grep -q PNG ||
	fail "overhead.png is not a PNG"

expect_exit 0 "$TB" report "$TMP/result.json"
[ -s "$TMP/report.html" ] || fail "no report.html next to the result"
grep -q "report.html" "$TMP/out" || fail "report does not say where it is"
grep -q '<figure id="plot-overhead">' "$TMP/report.html" || fail "no overhead plot in the report"
python3 "$TMP/check.py" "$TMP/report.html" "$TMP/result.json" || fail "report is not right"
exit 0
