#!/bin/bash
# A command workload leaves nothing behind (issue 27, item 1): its cgroups (cgroup2 and the v1
# memory twin) and the armed records of its sample processes are gone after a run that succeeds
# (/bin/true), one whose command fails (/bin/false) and one whose command is killed by its timeout.
# Compared: only this test's cgroups (the workload's name is in theirs) and its own state directory.
. "$(dirname "$0")/lib.sh"
need_root
export TB_STATE_DIR=$TMP/state
wl=lo$$
cat >"$TMP/c.ini" <<EOF
[global]
repetitions = 2
warmup = 0

[workload $wl]
type = command
command = CMD
timeout = 1s

[matrix]
workloads = $wl
tracers = none
EOF
ours() { find /sys/fs/cgroup -maxdepth 8 -type d -name "tracebench-*-$wl-*" 2>/dev/null | sort; }
records() { ls "$TB_STATE_DIR" 2>/dev/null | grep armed-; }
[ -z "$(ours)" ] || fail "cgroups of this test exist before it: $(ours)"
for cmd in /bin/true /bin/false "sleep 30"; do
	sed "s#^command = CMD#command = $cmd#" "$TMP/c.ini" >"$TMP/run.ini"
	"$TB" run "$TMP/run.ini" -o "$TMP/r" -q --no-plots --wait >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$cmd" = /bin/true ] && [ $rc -ne 0 ]; then
		cat "$TMP/err"
		fail "$cmd: run exited $rc"
	fi
	rm -rf "$TMP/r"
	l=$(ours)
	[ -z "$l" ] || { for d in $l; do rmdir "$d"; done; fail "$cmd: cgroups left: $l"; }
	[ -z "$(records)" ] || fail "$cmd: armed records left: $(records)"
done
exit 0
