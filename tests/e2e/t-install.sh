#!/bin/bash
# make install into a DESTDIR: the binary, scenarios, plot scripts, helpers and the man page.
. "$(dirname "$0")/lib.sh"
[ -f "$TB_ROOT/Makefile" ] || skip "no source tree"
make -s -C "$TB_ROOT" install DESTDIR="$TMP/inst" PREFIX=/usr/local ${LIBPERF_PREFIX:+LIBPERF_PREFIX=$LIBPERF_PREFIX} \
	>"$TMP/out" 2>&1 || { cat "$TMP/out"; fail "make install failed"; }
P=$TMP/inst/usr/local
for f in bin/tracebench share/man/man1/tracebench.1 share/tracebench/scenarios/quick.ini \
	share/tracebench/plots/overhead.gp share/tracebench/scenarios/validation/aa.ini \
	share/tracebench/fleet/tracebench.yml share/tracebench/fleet/roles/tracebench/tasks/run.yml \
	libexec/tracebench/tb-exit; do
	[ -f "$P/$f" ] || fail "$f not installed"
done
[ -x "$P/bin/tracebench" ] || fail "binary not executable"
"$P/bin/tracebench" --version | grep -q '^tracebench ' || fail "installed binary does not run"
man -l "$P/share/man/man1/tracebench.1" 2>/dev/null | grep -q "cleanup" || \
	grep -q "cleanup" "$P/share/man/man1/tracebench.1" || fail "man page lacks the commands"
exit 0
