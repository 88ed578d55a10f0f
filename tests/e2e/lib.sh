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
# The tracing state a test may compare on a shared machine (issue 28): only what this test's
# processes could have made or left. own_tracing_state prints, sorted:
#   - tracebench instances whose owner (tracebench-<pid>-...) is this shell, one of its
#     descendants, or dead (a leftover: whoever made it, nothing will remove it);
#   - the top level's current_tracer, set_event and set_event_pid (tracebench never writes
#     them: a change there is a bug, whoever is running);
#   - BPF programs (names matching $1, default any) held through an fd by this test's
#     processes, or by no process at all (left armed, pinned, or being freed);
#   - bpftrace and perf processes among this test's descendants.
# Another user's live instance, program or tracer is left out. state_unchanged BEFORE [RE]
# compares, allowing up to 3 s for the kernel's asynchronous frees (a closed program stays
# listed up to ~0.5 s), and prints the difference when it stays.
# measuring PID: wait until the run PID (started in the background with --wait) holds the
# machine's run lock, i.e. has stopped queueing behind another run (make demo, another user's),
# for up to 10 minutes; returns 1 when PID ended first. A test's own waits for a phase of the
# run start after it, so they need not allow for the queue.
measuring() {
	local pid=$1 end=$((SECONDS + 600))
	while [ $SECONDS -lt $end ]; do
		[ "$(cat /run/tracebench/lock 2>/dev/null)" = "$pid" ] && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}
own_tracing_state() {
	python3 - "$$" "${1:-.}" <<'PY'
import os, re, sys
me, name_re = int(sys.argv[1]), re.compile(sys.argv[2])
T = "/sys/kernel/tracing"
ppid, comm, held = {}, {}, {}
for d in os.listdir("/proc"):
    if not d.isdigit():
        continue
    pid = int(d)
    try:
        st = open(f"/proc/{d}/stat").read()
        comm[pid] = st[st.index("(") + 1:st.rindex(")")]
        ppid[pid] = int(st[st.rindex(")") + 2:].split()[1])
        for fd in os.listdir(f"/proc/{d}/fdinfo"):
            m = re.search(r"^prog_id:\s+(\d+)", open(f"/proc/{d}/fdinfo/{fd}").read(), re.M)
            if m:
                held.setdefault(int(m.group(1)), set()).add(pid)
    except (OSError, ValueError):
        continue
own = {me}
grew = True
while grew:
    grew = False
    for p, pp in ppid.items():
        if pp in own and p not in own:
            own.add(p)
            grew = True
own.discard(os.getpid())
out = []
if os.path.isdir(f"{T}/instances"):
    for inst in os.listdir(f"{T}/instances"):
        m = re.match(r"tracebench-(\d+)-", inst)
        if m and (int(m.group(1)) in own or int(m.group(1)) not in ppid):
            out.append(f"instance {inst}")
    for f in ("current_tracer", "set_event", "set_event_pid"):
        try:
            out.append(f"{f}: " + " ".join(open(f"{T}/{f}").read().split()))
        except OSError:
            pass
import json, subprocess
try:
    progs = json.loads(subprocess.run(["bpftool", "prog", "show", "--json"], capture_output=True,
                                      text=True, timeout=30).stdout or "[]")
except (OSError, ValueError, subprocess.TimeoutExpired):
    progs = []
for p in progs:
    holders = held.get(p["id"], set())
    if name_re.search(p.get("name", "")) and (not holders or holders & own):
        out.append(f"bpf prog {p['id']} {p.get('type')} {p.get('name', '')}")
for p in own:
    if comm.get(p) in ("bpftrace", "perf"):
        out.append(f"process {p} {comm[p]}")
print("\n".join(sorted(out)))
PY
}
state_unchanged() {
	local before=$1 re=${2:-.} now i
	for i in $(seq 1 30); do
		now=$(own_tracing_state "$re")
		[ "$now" = "$before" ] && return 0
		sleep 0.1
	done
	diff <(echo "$before") <(echo "$now")
	return 1
}
