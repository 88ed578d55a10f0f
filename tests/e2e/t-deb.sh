#!/bin/bash
# e2e: background
# make deb (issue 28): a Debian package built from the tree with debhelper, with the binary,
# helpers, scenarios, plots, docs, man page and bash completion under the FHS, its version the
# binary's, and lintian reporting no error. Installing it is left to a person (README): it
# would replace a system's tracebench.
. "$(dirname "$0")/lib.sh"
[ -f "$TB_ROOT/debian/control" ] || skip "no source tree"
for t in dpkg-buildpackage dh lintian dpkg-deb; do
	command -v $t >/dev/null || skip "$t not installed (Debian: debhelper lintian; make deps)"
done
# lintian's leftovers (its ELF index, /tmp/mldbm-elf-*) are counted around the build
left() { find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'mldbm-elf-*' 2>/dev/null | wc -l; }
before=$(left)
make -s -C "$TB_ROOT" deb DEB_OUT="$TMP" ${LIBPERF_PREFIX:+LIBPERF_PREFIX=$LIBPERF_PREFIX} \
	>"$TMP/out" 2>&1 || { tail -n 40 "$TMP/out"; fail "make deb failed"; }
[ "$(left)" -le "$before" ] || fail "make deb left lintian's files in ${TMPDIR:-/tmp}"
deb=$(ls "$TMP"/tracebench_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || { cat "$TMP/out"; fail "make deb wrote no .deb into DEB_OUT"; }
grep '^E:' "$TMP/out" && fail "lintian reports errors"
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's#^\./#/#' >"$TMP/files"
for f in /usr/bin/tracebench /usr/libexec/tracebench/tb-exit \
	/usr/libexec/tracebench/libtb-usercall-ust.so /usr/share/tracebench/plots/rate.gp \
	/usr/share/tracebench/plots/common.gp /usr/share/tracebench/scenarios/quick.ini \
	/usr/share/tracebench/scenarios/validation/aa.ini /usr/share/tracebench/fleet/tracebench.yml \
	/usr/share/man/man1/tracebench.1.gz /usr/share/doc/tracebench/copyright \
	/usr/share/doc/tracebench/README.md.gz /usr/share/doc/tracebench/METHODOLOGY.md.gz \
	/usr/share/bash-completion/completions/tracebench; do
	grep -qx "$f" "$TMP/files" || fail "$f not in the package"
done
grep -v '/$' "$TMP/files" | grep -v '^/usr/' && fail "files outside /usr"
[ "$(dpkg-deb -f "$deb" Version)" = "$("$TB" --version | awk '{print $2}')" ] ||
	fail "package version $(dpkg-deb -f "$deb" Version) is not the binary's ($("$TB" --version))"
dpkg-deb -f "$deb" Depends | grep -q libtracefs || fail "no shared-library dependencies computed"
# The packaged binary is built for PREFIX=/usr and runs from anywhere.
mkdir -p "$TMP/x" && dpkg-deb -x "$deb" "$TMP/x"
(cd / && "$TMP/x/usr/bin/tracebench" --version) | grep -q '^tracebench ' ||
	fail "the packaged binary does not run"
strings "$TMP/x/usr/bin/tracebench" | grep -qx '/usr/share/tracebench' ||
	fail "the packaged binary was not built with PREFIX=/usr"
exit 0
