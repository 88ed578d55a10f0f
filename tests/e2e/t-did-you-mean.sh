#!/bin/bash
# Typos get the closest name (issue 28): unknown scenario keys, plugin types, [matrix] names,
# command-line options and `list` names; a missing option value is said by the option's name;
# options after `list`'s names work; a command tracer whose program is not installed is
# unsupported here (exit 3, the reason), and --skip-unsupported drops it.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/typos.ini" <<'INI'
[global]
reptitions = 3
[workload g]
type = getpdi
[workload h]
type = getpid
threds = 2
[tracer t]
type = ftrace-evnts
[tracer u]
type = ftrace-events
evnts = syscalls:sys_enter_getpid
[matrix]
workloads = h, gg
tracers = none, uu
[gate]
max-overhaed = 5%
INI
expect_exit 2 "$TB" run "$TMP/typos.ini" --dry-run
for want in \
	"typos.ini:2: [global]: unknown key 'reptitions'; did you mean 'repetitions'?" \
	"typos.ini:4: [workload g]: unknown workload type 'getpdi'; did you mean 'getpid'?" \
	"typos.ini:7: [workload h]: unknown key 'threds' for getpid; did you mean 'threads'?" \
	"typos.ini:9: [tracer t]: unknown tracer type 'ftrace-evnts'; did you mean 'ftrace-events'?" \
	"typos.ini:12: [tracer u]: unknown key 'evnts' for ftrace-events; did you mean 'events'?" \
	"typos.ini:17: [gate]: unknown key 'max-overhaed'; did you mean 'max-overhead'?"; do
	grep -qF -- "$want" "$TMP/err" || { cat "$TMP/err" >&2; fail "not said: $want"; }
done
# nothing close: no guess
grep -q "did you mean 'frob" "$TMP/err" && fail "a guess for nothing close"

cat >"$TMP/matrix.ini" <<'INI'
[workload getpid]
type = getpid
[tracer tp]
type = ftrace-events
events = syscalls:sys_enter_getpid
[matrix]
workloads = getpdi
tracers = none, tpp
INI
expect_exit 2 "$TB" run "$TMP/matrix.ini" --dry-run
grep -qF "[matrix]: workload 'getpdi' is not defined; did you mean 'getpid'?" "$TMP/err" ||
	fail "no suggestion for a [matrix] workload"
grep -qF "[matrix]: tracer 'tpp' is not defined; did you mean 'tp'?" "$TMP/err" ||
	fail "no suggestion for a [matrix] tracer"

# command line: a missing value by its name, an unknown option with the closest
expect_exit 2 "$TB" run "$TMP/matrix.ini" --rounds
grep -qF "run: option --rounds needs a value" "$TMP/err" || fail "missing value: $(head -1 "$TMP/err")"
grep -q "unknown option" "$TMP/err" && fail "a missing value called an unknown option"
expect_exit 2 "$TB" run "$TMP/matrix.ini" --roudns 3
grep -qF "unknown option --roudns; did you mean '--rounds'?" "$TMP/err" || fail "no --rounds hint"
expect_exit 2 "$TB" gate x.json --max-overhaed=5%
grep -qF "unknown option --max-overhaed; did you mean '--max-overhead'?" "$TMP/err" ||
	fail "no --max-overhead hint"
expect_exit 2 "$TB" run -r 3 "$TMP/matrix.ini"
grep -qF "unknown option -r; did you mean '--rounds'?" "$TMP/err" || fail "no hint for -r"

# commands
expect_exit 2 "$TB" rnu x.ini
grep -qF "unknown command 'rnu'; did you mean 'run'?" "$TMP/err" || fail "no hint for a command"
expect_exit 2 "$TB" history detcet
grep -qF "history: unknown command 'detcet'; did you mean 'detect'?" "$TMP/err" ||
	fail "no hint for a history command"

# list: options after names, and a hint for a plugin name
expect_exit 0 "$TB" list bpf --brief
grep -q '^  bpf ' "$TMP/out" || fail "list bpf --brief: no bpf line"
grep -q 'attach-type\|program=' "$TMP/out" && fail "list bpf --brief printed options"
expect_exit 2 "$TB" list bfp
grep -qF "no workload or tracer named 'bfp'; did you mean 'bpf'?" "$TMP/err" || fail "no bpf hint"

# a tracer's program that is not installed: unsupported here, skippable
cat >"$TMP/nobin.ini" <<'INI'
[global]
duration = 20ms
[workload getpid]
type = getpid
[tracer nope]
type = command
command = tb-no-such-tracer-program -p {pid}
[matrix]
workloads = getpid
tracers = nope
INI
expect_exit 3 "$TB" run "$TMP/nobin.ini" --dry-run
grep -qF "[tracer nope]: command is unsupported here: program 'tb-no-such-tracer-program' is not installed" \
	"$TMP/err" || { cat "$TMP/err" >&2; fail "a missing program is not 'unsupported here'"; }
expect_exit 0 "$TB" run "$TMP/nobin.ini" --dry-run --skip-unsupported
grep -q 'getpid/nope' "$TMP/err" "$TMP/out" && fail "the unsupported cell is still planned"
exit 0
