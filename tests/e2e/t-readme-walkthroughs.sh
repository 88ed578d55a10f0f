#!/bin/bash
# The README's three walkthroughs (the SRE, the CI engineer, the kernel engineer) run as
# written (issue 28): every command of every `<!-- walkthrough: NAME -->` block, in order, in
# a scratch directory where `scenarios/` is the checkout's and `tracebench` the binary under
# test. Each must exit 0; `gate` may also exit 1 (a cell over its limit is its answer). Then
# what each walkthrough says it produces is there.
. "$(dirname "$0")/lib.sh"
need_root
W=$TMP/w
mkdir -p "$W/bin"
ln -s "$TB" "$W/bin/tracebench"
ln -s "$TB_ROOT/scenarios" "$W/scenarios"
python3 - "$TB_ROOT/README.md" "$TMP/blocks" <<'PY' || fail "README's walkthroughs not found"
import os, re, sys
text = open(sys.argv[1]).read()
blocks = re.findall(r"<!-- walkthrough: (\w+) -->\n```sh\n(.*?)```", text, re.S)
names = [n for n, _ in blocks]
assert names == ["sre", "ci", "kernel"], names
os.makedirs(sys.argv[2])
for n, body in blocks:
    lines = [l for l in body.splitlines() if l.strip() and not l.lstrip().startswith("#")]
    assert all(l.startswith("tracebench ") for l in lines), lines
    open(os.path.join(sys.argv[2], n), "w").write("\n".join(lines) + "\n")
PY
for name in sre ci kernel; do
	while IFS= read -r line; do
		(cd "$W" && PATH=$W/bin:$PATH TB_PROGRESS_INTERVAL=0 bash -c "$line") \
			>"$TMP/out" 2>"$TMP/err"
		rc=$?
		ok=0
		case "$line" in tracebench\ gate\ *) [ $rc -le 1 ] && ok=1 ;; *) [ $rc -eq 0 ] && ok=1 ;; esac
		[ $ok -eq 1 ] || { tail -n 20 "$TMP/out" "$TMP/err" >&2; fail "$name: '$line' exited $rc"; }
		echo "$name: $line: exit $rc"
	done <"$TMP/blocks/$name"
done
for f in sre/result.json sre.html sre-gate.md ci-1/result.json ci-2/result.json junit.xml ci.db \
	k-old/result.json k-new/result.json k.db; do
	[ -s "$W/$f" ] || fail "a walkthrough's $f is missing"
done
(cd "$W" && "$TB" history list --db ci.db --runs) | grep -c 'commit=' | grep -qx 2 ||
	fail "the CI history does not hold the two labelled runs"
exit 0
