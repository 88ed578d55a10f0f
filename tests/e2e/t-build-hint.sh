#!/bin/bash
# `make` in a fresh clone without .deps/ stops at once with the hint to run `make deps`, before
# compiling anything (issue 15). Runs in a copy of the sources, so the tree's build is untouched.
. "$(dirname "$0")/lib.sh"
[ -f "$TB_ROOT/Makefile" ] || skip "no source tree"
command -v make >/dev/null || skip "make not installed"
mkdir -p "$TMP/src"
tar -C "$TB_ROOT" --exclude='./build*' --exclude=./.deps --exclude=./results --exclude=./.git \
	--exclude='./tracebench*' -cf - . | tar -C "$TMP/src" -xf - || fail "cannot copy the tree"
# A fresh make, not a sub-make of `make test SAN=1` (whose MAKEFLAGS would carry SAN=1).
unset MAKEFLAGS MFLAGS MAKELEVEL
for goal in all build/run-tests; do
	make -C "$TMP/src" -j2 SAN= DEPS_DIR="$TMP/no-deps" $goal >"$TMP/out" 2>&1 && fail "make $goal succeeded without deps"
	grep -q 'run `make deps` first (libperf is built from linux-source into .deps/)' "$TMP/out" ||
		{ cat "$TMP/out"; fail "make $goal: no hint to run make deps"; }
	objs=$(find "$TMP/src" -name '*.o' -o -name vmlinux.h | wc -l)
	[ "$objs" -eq 0 ] || fail "make $goal compiled $objs files before stopping"
	grep -q 'fatal error' "$TMP/out" && fail "make $goal reached the compiler: $(cat "$TMP/out")"
done
exit 0
