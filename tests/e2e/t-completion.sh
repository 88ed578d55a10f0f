#!/bin/bash
# Bash completion (issue 28): tools/completion.bash, sourced in bash, completes commands,
# options (from each command's --help), option values that are files, history's subcommands
# and the plugin names of `list`, by asking the binary under test (`__complete`).
. "$(dirname "$0")/lib.sh"
SCRIPT=$TB_ROOT/tools/completion.bash
[ -f "$SCRIPT" ] || skip "no source tree"
cat >"$TMP/c.sh" <<'SH'
. "$1"; shift
COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
_tracebench
printf '%s\n' "${COMPREPLY[@]}"
SH
# comp EXPECTED WORD...: the completion of the last word holds exactly EXPECTED (sorted, spaces).
comp() {
	local want=$1; shift
	local got
	got=$(bash "$TMP/c.sh" "$SCRIPT" "$TB" "$@" | sort -u | tr '\n' ' ' | sed 's/ $//')
	[ "$got" = "$want" ] || fail "completing '$*': got '$got', expected '$want'"
}
comp "report run" r
comp "report" re
comp "history" hi
comp "--quick --quiet" run --qu
comp "--max-overhead --max-p99-increase --max-regression --max-slope-increase --max-throughput-loss" gate r.json --max-
comp "--help --quiet --verbose --version" -
comp "detect" history de
comp "--window" history detect --wi
comp "bpf" list bp
comp "pipe-pingpong" -v list pipe
# Values: none to offer after --rounds, file names after --output and --junit.
comp "" run x.ini --rounds ""
mkdir -p "$TMP/dir/scenarios-x"
(cd "$TMP/dir" && bash "$TMP/c.sh" "$SCRIPT" "$TB" run x.ini --output sc) | grep -qx scenarios-x ||
	fail "no file names after --output"
(cd "$TMP/dir" && bash "$TMP/c.sh" "$SCRIPT" "$TB" gate r.json --junit sc) | grep -qx scenarios-x ||
	fail "no file names after --junit"
# Every option of every command's --help is offered after `CMD -`.
for cmd in run gate compare plot report cleanup sysinfo list explain anonymize fleet; do
	"$TB" $cmd --help >"$TMP/help" 2>&1
	bash "$TMP/c.sh" "$SCRIPT" "$TB" $cmd - >"$TMP/offered"
	for opt in $(grep -oE '(^|[ [,])--[a-zA-Z][a-zA-Z0-9-]*' "$TMP/help" | sed 's/^[ [,]//' | sort -u); do
		grep -qx -- "$opt" "$TMP/offered" || fail "$cmd: $opt in --help but not completed"
	done
done
# An installed tree offers its shipped scenarios to `run` by full path, from any directory.
if [ -f "$TB_ROOT/Makefile" ]; then
	make -s -C "$TB_ROOT" install DESTDIR="$TMP/inst" PREFIX=/opt/tb \
		${LIBPERF_PREFIX:+LIBPERF_PREFIX=$LIBPERF_PREFIX} >"$TMP/out" 2>&1 ||
		{ cat "$TMP/out"; fail "make install failed"; }
	S=$TMP/inst/opt/tb/share/tracebench/scenarios
	(cd / && bash "$TMP/c.sh" "$TMP/inst/opt/tb/share/bash-completion/completions/tracebench" \
		"$TMP/inst/opt/tb/bin/tracebench" run "") | grep -qx "$S/quick.ini" ||
		fail "run does not complete the installed scenarios"
fi
# A command that does not exist completes to nothing, and the hidden command is not listed.
comp "" nosuch --x
"$TB" --help | grep -q __complete && fail "__complete shows in --help"
exit 0
