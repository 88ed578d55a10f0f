#!/bin/bash
# The service workloads end to end (issue 30), with the real servers and clients Debian packages
# (no mocks): nginx + h2load (its default) and + wrk, redis-server + redis-benchmark, PostgreSQL +
# pgbench, each under no tracer and the BPF counter filtered to the server's cgroup: a row per
# cell, a sample of at least 2000 requests sized from the warm-up's rate, a proof for the
# traced ones against the counting pass, result.json's service keys, and nothing of theirs left
# (processes, cgroups). Then the faults: a missing
# client is `unsupported here` with the package to install; a server that fails to start shows
# its log's last lines; a client that fails fails the sample with its message; and a run
# killed with SIGKILL mid-sample leaves nothing after `tracebench cleanup`. The fault cases
# put a stand-in nginx or h2load first on PATH. Only this test's items are compared: its section
# names (in the cgroups' names) and its runs' scratch directories (in the servers' argv).
. "$(dirname "$0")/lib.sh"
need_root
for p in nginx h2load wrk redis-server redis-benchmark; do
	command -v $p >/dev/null ||
		skip "needs $p (make deps: nginx-light nghttp2-client wrk redis-server redis-tools)"
done
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || skip "needs postgresql (make deps)"
export TB_STATE_DIR=$TMP/state
s=sv$$
cat >"$TMP/s.ini" <<INI
[global]
repetitions = 2
warmup = 0
duration = 1s

[workload ng$s]
type = nginx

[workload wk$s]
type = nginx
client = wrk

[workload rd$s]
type = redis

[workload pg$s]
type = postgres

[tracer bpf]
type = bpf
pid-filter = workload

[matrix]
workloads = ng$s, wk$s, rd$s, pg$s
tracers = none, bpf
INI
# What this test can have left: its cgroups, and processes of its runs' scratch directories.
left() {
	find /sys/fs/cgroup -maxdepth 8 -type d -name "tracebench-*-??$s-*" 2>/dev/null
	local p
	for p in "$@"; do pgrep -af "tracebench-$p-" | grep -v pgrep; done
}
[ -z "$(left none)" ] || fail "items of this test exist before it: $(left none)"

"$TB" run "$TMP/s.ini" -o "$TMP/r" --no-plots --wait >"$TMP/out" 2>"$TMP/err" &
pid=$!
wait $pid
rc=$?
[ $rc -eq 0 ] || { cat "$TMP/out" "$TMP/err"; fail "run exited $rc"; }
for w in ng wk rd pg; do
	grep -q "^$w$s *none .*(baseline)" "$TMP/out" || { cat "$TMP/out"; fail "no $w baseline row"; }
	grep -Eq "^$w$s *bpf .*(overhead|no-detectable-overhead|untrustworthy|faster)" "$TMP/out" ||
		{ cat "$TMP/out"; fail "no $w bpf row with a verdict"; }
	grep -Eq "^$w$s *bpf +[0-9]+ .*\[[-+]" "$TMP/out" ||
		{ cat "$TMP/out"; fail "no $w bpf row in the services table"; }
done
python3 - "$TMP/r/result.json" <<'PY' || fail "result.json's service keys"
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r["cells"]) == 8, len(r["cells"])
for c in r["cells"]:
    sv = c["service"]
    for k in ("requests_per_s", "p50_ns", "p99_ns", "errors", "server_cpu_ns_per_request", "decides"):
        assert k in sv, (c["id"], k)
    assert sv["requests_per_s"] > 0 and sv["p99_ns"] >= sv["p50_ns"] > 0, (c["id"], sv)
    assert sv["decides"] == "throughput", sv
    assert c["ops_per_sample"] > 1, c["id"]
    # the server's turn on the workload's CPU is no contention (judged by steal alone)
    assert c["partner_cpu"] is True, c["id"]
    for s in c["samples"]:
        assert not s["failed"], (c["id"], s)
        assert s["ops"] > 1 and s["service"]["requests_per_s"] > 0, s
        assert s["service"]["server_cpu_s"] > 0, s
        # a count-sized client runs at least the minimum the percentiles need (wrk: seconds)
        if not c["workload"].startswith("wk"):
            assert s["ops"] >= 2000, (c["id"], s["ops"])
    if c["workload"].startswith("wk"):
        assert "p999_ns" not in sv, "wrk gives no p99.9: never made up"
    else:
        assert sv["p999_ns"] >= sv["p99_ns"], sv
    if c["baseline"]:
        assert "throughput_loss_pct" not in sv, sv
        continue
    for k in ("throughput_loss_pct", "throughput_loss_ci", "p50_delta_ns", "p50_delta_ci",
              "p99_delta_ns", "p99_delta_ci", "throughput_verdict", "p99_verdict"):
        assert k in sv, (c["id"], k)
    # the BPF filter on the server's cgroup (rearmed to each sample's server) against the
    # counting pass's count of that cgroup: held both ways
    assert c["proof"]["outcome"] == "match", c["proof"]
    assert "at least" not in c["proof"]["message"], c["proof"]
    assert "(counted in its cgroup)" in c["expected_events"]["does"], c["expected_events"]
    assert c["events_recorded"] > 0, c["id"]
PY
sleep 0.3
l=$(left $pid)
[ -z "$l" ] || fail "left after the run: $l"
echo "  real services: rows, proofs and keys; nothing left"

# A pid-filtered ftrace cell follows the server ({pid} is its main pid, set_event_pid its tree,
# event-fork its later forks) and not the client: its syscalls per request are well below those
# of the same set system-wide, which holds the client's too. (Filtering on the workload
# process's tree would hold the client too; on the workload process alone, almost nothing.) The
# counting pass's count of the server's cgroup is the expectation: matched both ways by the
# pid-filtered cell, as a floor by the system-wide one; perf-count, opened on the server's
# tree, matched both ways.
sed -e '/^\[workload wk/,/^$/d' -e '/^\[workload rd/,$d' "$TMP/s.ini" >"$TMP/pf.ini" # [global], nginx
cat >>"$TMP/pf.ini" <<INI
[tracer srv]
type = ftrace-events
events = raw_syscalls:sys_enter, raw_syscalls:sys_exit
buffer-size = 16M
pid-filter = workload

[tracer all]
type = ftrace-events
events = raw_syscalls:sys_enter, raw_syscalls:sys_exit
buffer-size = 16M
pid-filter = none

[tracer pc]
type = perf-count
events = raw_syscalls:sys_enter

[matrix]
workloads = ng$s
tracers = srv, all, pc
INI
"$TB" run "$TMP/pf.ini" -o "$TMP/r-pf" --no-plots --wait >"$TMP/out" 2>"$TMP/err" &
pid=$!
wait $pid || { cat "$TMP/out" "$TMP/err"; fail "the pid-filtered run failed"; }
python3 - "$TMP/r-pf/result.json" <<'PY' || { cat "$TMP/out"; fail "the pid filter does not follow the server alone"; }
import json, sys
e = {c["tracer"]: c["proof"]["events_per_op"] for c in json.load(open(sys.argv[1]))["cells"]
     if not c["baseline"]}
assert e["srv"] >= 2, e  # nginx's workers: at least one syscall per request
assert e["srv"] < 0.75 * e["all"], e  # but not the client's
# the counting pass held both to the server cgroup's count: both ways on the server's tree
p = {c["tracer"]: c["proof"] for c in json.load(open(sys.argv[1]))["cells"] if not c["baseline"]}
assert p["srv"]["outcome"] == "match" and "at least" not in p["srv"]["message"], p["srv"]
assert p["all"]["outcome"] == "match" and "at least" in p["all"]["message"], p["all"]
# perf-count on the server's threads and its workers' (inherit adds later forks): both ways too
assert p["pc"]["outcome"] == "match" and "at least" not in p["pc"]["message"], p["pc"]
PY
sleep 0.3
l=$(left $pid)
[ -z "$l" ] || fail "left after the pid-filtered run: $l"
echo "  pid-filtered ftrace: follows the server's workers; nothing left"

# A missing client: unsupported here, naming the package; a section that chooses wrk without it
# is refused with the package too.
mkdir -p "$TMP/noclient"
ln -s "$(command -v nginx)" "$TMP/noclient/nginx"
PATH=$TMP/noclient:/usr/sbin:/sbin expect_exit 0 "$TB" list
grep -A1 -E "^  nginx +UNSUPPORTED" "$TMP/out" |
	grep -q "why: needs h2load: apt-get install nginx-light nghttp2-client" ||
	{ cat "$TMP/out"; fail "a missing h2load is not unsupported with its package"; }
ln -s "$(command -v h2load)" "$TMP/noclient/h2load"
PATH=$TMP/noclient:/usr/sbin:/sbin expect_exit 2 "$TB" run "$TMP/s.ini" --dry-run
grep -q "\[workload wk$s\]: client: needs wrk: apt-get install wrk" "$TMP/err" ||
	{ cat "$TMP/err"; fail "client = wrk without wrk is not refused with its package"; }
echo "  missing client: unsupported here, with the package"

one() { # one sample of one nginx cell, with $1 first on PATH, into $TMP/r-$2
	sed -e '/^\[workload wk/,/^$/d' -e '/^\[workload rd/,/^$/d' -e '/^\[workload pg/,/^$/d' \
		-e 's/^repetitions = 2/repetitions = 1/' \
		-e "s/^workloads = .*/workloads = ng$s/" -e 's/^tracers = .*/tracers = none/' \
		"$TMP/s.ini" >"$TMP/one.ini"
	PATH=$1:$PATH "$TB" run "$TMP/one.ini" -o "$TMP/r-$2" --no-plots --wait >"$TMP/out" 2>"$TMP/err"
}
mkdir -p "$TMP/badnginx" "$TMP/badh2load"
printf '#!/bin/sh\necho "nginx: [emerg] a stand-in that fails (%s)" >&2\nexit 1\n' $$ >"$TMP/badnginx/nginx"
printf '#!/bin/sh\necho "unable to connect: a stand-in (%s)" >&2\nexit 1\n' $$ >"$TMP/badh2load/h2load"
chmod +x "$TMP/badnginx/nginx" "$TMP/badh2load/h2load"
one "$TMP/badnginx" srv
grep -q "before it answered on port" "$TMP/err" && grep -q "a stand-in that fails ($$)" "$TMP/err" ||
	{ cat "$TMP/err"; fail "a server that fails to start: no log lines"; }
echo "  server that fails: its log's last lines"
one "$TMP/badh2load" cli
grep -q "the client h2load exited with status 1" "$TMP/err" && grep -q "unable to connect: a stand-in ($$)" "$TMP/err" ||
	{ cat "$TMP/err"; fail "a client that fails: no message"; }
python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["cells"][0]; assert c["samples"][0]["failed"], c' \
	"$TMP/r-cli/result.json" || fail "the client's failure did not fail the sample"
echo "  client that fails: the sample fails with its message"
l=$(left)
[ -z "$l" ] || fail "left after the faults: $l"

# SIGKILL mid-sample (the client running against the server), then cleanup.
sed -e 's/^duration = 1s/duration = 30s/' -e 's/^tracers = .*/tracers = none/' "$TMP/s.ini" >"$TMP/k.ini"
"$TB" run "$TMP/k.ini" -o "$TMP/r-k" -q --no-plots --wait >"$TMP/out" 2>"$TMP/err" &
pid=$!
measuring $pid || { cat "$TMP/err"; fail "the run to kill ended before it measured"; }
for i in $(seq 1 600); do
	pgrep -f "^(h2load|wrk|redis-benchmark|/usr/lib/postgresql/.*/pgbench) .*-[cn]" >/dev/null &&
		[ -n "$(pgrep -f "tracebench-$pid-")" ] && break
	sleep 0.05
done
[ -n "$(pgrep -f "tracebench-$pid-")" ] || { kill -9 $pid; fail "no server of the run came up"; }
kill -9 $pid
wait $pid 2>/dev/null
sleep 0.5
"$TB" cleanup >"$TMP/cl" 2>&1 || { cat "$TMP/cl"; fail "cleanup failed"; }
sleep 0.5
l=$(left $pid)
[ -z "$l" ] || { cat "$TMP/cl"; fail "left after SIGKILL and cleanup: $l"; }
echo "  SIGKILL mid-sample + cleanup: nothing left"
exit 0
