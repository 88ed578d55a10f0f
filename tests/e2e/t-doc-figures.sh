#!/bin/bash
# One source for the demo's durations (issue 28: README's demo table, `make demo` and
# quick.ini's own comment said three different things). What the scenario is (cells, rounds,
# seconds per sample) is stated in README and in quick.ini's comment exactly as `run --dry-run`
# prints it, for the full run and --quick; the demo's wall time is stated in README only, once,
# with the command and the fingerprint it comes from; quick.ini and the Makefile state none.
. "$(dirname "$0")/lib.sh"
R=$TB_ROOT/README.md
Q=$TB_ROOT/scenarios/quick.ini
plan() { "$TB" run "$Q" --dry-run "$@" 2>&1 | sed -n 's/^scenario quick ([^)]*): \(.*\)$/\1/p'; }
full=$(plan)
quick=$(plan --quick)
[ -n "$full" ] && [ -n "$quick" ] || fail "no plan line from --dry-run"
quick_s=${quick##*, }
python3 - "$R" "$Q" "$TB_ROOT/Makefile" "$full" "$quick_s" <<'PY' || fail "the demo's figures disagree"
import re, sys
readme, quick, makefile = (open(p).read() for p in sys.argv[1:4])
full, quick_s = sys.argv[4], sys.argv[5]
want = f"{full} ({'`--quick`'}: {quick_s})"
flat = lambda t: re.sub(r"\s+", " ", t)
assert flat(f"`make demo` runs `scenarios/quick.ini`: {want}") in flat(readme), \
    f"README does not say: `make demo` runs `scenarios/quick.ini`: {want}"
comment = flat(" ".join(l.lstrip("; ") for l in quick.splitlines() if l.startswith(";")))
assert f"{full} (--quick: {quick_s})" in comment, f"quick.ini's comment does not say: {full} (--quick: {quick_s})"
# wall times: none in quick.ini's comment or at the Makefile's demo target
assert not re.search(r"\b(about|took)\b[^.;]*\b(\d+(\.\d+)? ?(s|seconds?|minutes?))\b", comment, re.I), comment
demo = makefile[makefile.index("\ndemo:") - 300:makefile.index("\ndemo:") + 300]
assert not re.search(r"\d+ ?(s|seconds|minutes)\b", demo), demo
# README: the full demo's wall time once, with its command and fingerprint
took = re.findall(r"It took (\d+(?:\.\d+)?) s on .*?\(`make bench-estimate`, fingerprint ([0-9a-f]{16})",
                  flat(readme))
assert len(took) == 1, took
PY
exit 0
