# Sourced by tests/e2e/t-*.sh. $TB_BIN is the binary under test, $TB_ROOT the source tree.
set -u
TB=${TB_BIN:?TB_BIN not set}
TMP=$(mktemp -d /tmp/tb-e2e.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "$*"; exit 77; }
# expect_exit CODE CMD...: run CMD, fail unless it exits with CODE; output in $TMP/out, $TMP/err
expect_exit() {
	local want=$1; shift
	"$@" >"$TMP/out" 2>"$TMP/err"
	local got=$?
	[ "$got" -eq "$want" ] || { cat "$TMP/out" "$TMP/err" >&2; fail "'$*' exited $got, expected $want"; }
}
need_root() { [ "$(id -u)" -eq 0 ] || skip "needs root"; }
# The real browser the reports are checked in: Debian's chromium, headless. have_chromium sets
# $CHROMIUM (false when it is not installed); browse PROFILE ARGS... runs it with the machine's
# flags in a window of $BROWSER_W x $BROWSER_H; browser_check NAME PAGE appends
# tests/e2e/browser-check.js to a copy of PAGE (the reports have no scripts), lets chromium lay
# it out and leaves the script's figures as JSON in $TMP/NAME.json.
BROWSER_W=1400 BROWSER_H=900
have_chromium() { CHROMIUM=$(command -v chromium || command -v chromium-browser); }
browse() {
	local prof=$TMP/profile-$1; shift
	rm -rf "$prof"
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$prof" --window-size=$BROWSER_W,$BROWSER_H "$@" 2>>"$TMP/chromium.err"
}
browser_check() {
	local name=$1 page=$2
	{ sed 's#</body>##; s#</html>##' "$page"; printf '<script>\n'; cat "$TB_ROOT/tests/e2e/browser-check.js"
	  printf '</script>\n</body></html>\n'; } >"$TMP/$name-check.html"
	browse "$name-dom" --dump-dom "file://$TMP/$name-check.html" >"$TMP/$name.dom" ||
		{ tail -n 5 "$TMP/chromium.err"; fail "$name: chromium --dump-dom failed"; }
	python3 - "$TMP/$name.dom" "$TMP/$name.json" <<'PY' || fail "$name: the check script did not run"
import html, re, sys
m = re.findall(r'<pre id="tbcheck">(\{.*?)</pre>', open(sys.argv[1]).read(), re.S)
assert m
open(sys.argv[2], "w").write(html.unescape(m[-1]))
PY
}
