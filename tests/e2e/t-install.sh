#!/bin/bash
# make install into a DESTDIR: the binary, scenarios, plot scripts, helpers and the man page.
# Installed with a PREFIX other than the build's (issue 15), the binary still finds its plot
# scripts and helpers: they are looked up relative to the binary first.
. "$(dirname "$0")/lib.sh"
[ -f "$TB_ROOT/Makefile" ] || skip "no source tree"
for prefix in /usr/local /opt/tb; do
	inst=$TMP/inst-${prefix//\//_}
	make -s -C "$TB_ROOT" install DESTDIR="$inst" PREFIX=$prefix ${LIBPERF_PREFIX:+LIBPERF_PREFIX=$LIBPERF_PREFIX} \
		>"$TMP/out" 2>&1 || { cat "$TMP/out"; fail "make install PREFIX=$prefix failed"; }
	P=$inst$prefix
	for f in bin/tracebench share/man/man1/tracebench.1 share/tracebench/scenarios/quick.ini \
		share/tracebench/plots/overhead.gp share/tracebench/scenarios/validation/aa.ini \
		share/tracebench/fleet/tracebench.yml share/tracebench/fleet/roles/tracebench/tasks/run.yml \
		share/tracebench/scenarios/bpftrace/read-latency.bt share/tracebench/scenarios/real-tools.ini \
		libexec/tracebench/tb-exit share/bash-completion/completions/tracebench \
		share/doc/tracebench/README.md share/doc/tracebench/ci.md; do
		[ -f "$P/$f" ] || fail "$f not installed"
	done
	[ -x "$P/bin/tracebench" ] || fail "binary not executable"
	"$P/bin/tracebench" --version | grep -q '^tracebench ' || fail "installed binary does not run"
	man -l "$P/share/man/man1/tracebench.1" 2>/dev/null | grep -q "cleanup" || \
		grep -q "cleanup" "$P/share/man/man1/tracebench.1" || fail "man page lacks the commands"
done
# The /opt/tb tree, run from a directory that is not the source tree, with no TB_* overrides:
# plot finds the installed scripts, and the exec workload finds the installed helper.
command -v gnuplot >/dev/null || skip "gnuplot not installed (the install itself passed)"
P=$TMP/inst-_opt_tb/opt/tb
mkdir -p "$TMP/res"
cp "$TB_ROOT/tests/data/results/a.json" "$TMP/res/result.json"
(cd "$TMP" && env -u TB_PLOTS_DIR -u TB_HELPERS -u TB_GNUPLOT "$P/bin/tracebench" plot res/result.json) \
	>"$TMP/out" 2>&1 || { cat "$TMP/out"; fail "installed plot failed"; }
ls "$TMP/res/plots/"*.png >/dev/null 2>&1 || { cat "$TMP/out"; fail "installed plot drew no PNG"; }
grep -qi "not found" "$TMP/out" && fail "installed plot: $(cat "$TMP/out")"
cat > "$TMP/exec.ini" <<'INI'
[workload e]
type = exec
[matrix]
workloads = e
tracers = none
INI
(cd "$TMP" && env -u TB_PLOTS_DIR -u TB_HELPERS "$P/bin/tracebench" list exec) >"$TMP/out" 2>&1
grep -q "exec .*supported" "$TMP/out" || { cat "$TMP/out"; fail "installed binary does not find its helper"; }
exit 0
