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
