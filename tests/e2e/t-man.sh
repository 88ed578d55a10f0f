#!/bin/bash
# The man page cannot drift from the code (issue 15): doc/tracebench.1 is what
# `tracebench list --man doc/tracebench.1.in` makes (run `make man` after changing an option),
# and every option of every command's --help, every [global] key and every plugin type is in it.
. "$(dirname "$0")/lib.sh"
MAN=$TB_ROOT/doc/tracebench.1
[ -f "$TB_ROOT/doc/tracebench.1.in" ] || skip "no source tree"
expect_exit 0 "$TB" list --man "$TB_ROOT/doc/tracebench.1.in"
diff -u "$MAN" "$TMP/out" >"$TMP/diff" ||
	{ head -n 40 "$TMP/diff"; fail "doc/tracebench.1 is not what the code generates: run make man"; }
# Roff escapes hyphens in hand-written text: compare against the page with them undone.
sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$MAN" >"$TMP/man.txt"
missing=0
for cmd in run list sysinfo compare gate plot report cleanup; do
	"$TB" "$cmd" --help >"$TMP/help" 2>&1 || fail "$cmd --help failed"
	for opt in $(grep -oE '(^|[ [,])--?[a-zA-Z][a-zA-Z-]*' "$TMP/help" | sed 's/^[ [,]//' | sort -u); do
		grep -qF -- "$opt" "$TMP/man.txt" || { echo "$cmd: $opt not in the man page"; missing=$((missing + 1)); }
	done
done
for key in $("$TB" list --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join(x["name"] for x in d["workloads"] + d["tracers"]))'); do
	grep -q "^\.SS $key\$" "$MAN" || { echo "plugin $key has no section"; missing=$((missing + 1)); }
done
for key in repetitions warmup duration settle cpus precision noise-threshold max-cv alpha power; do
	grep -qF -- "$key = " "$TMP/man.txt" || { echo "[global] $key not in the man page"; missing=$((missing + 1)); }
done
for var in TB_STATE_DIR TB_RUN_DIR TB_GNUPLOT TB_PLOTS_DIR TB_HELPERS; do
	grep -q "^\.B $var\$" "$MAN" || { echo "$var not in ENVIRONMENT"; missing=$((missing + 1)); }
done
[ "$missing" -eq 0 ] || fail "$missing options, keys or variables missing from the man page"
exit 0
