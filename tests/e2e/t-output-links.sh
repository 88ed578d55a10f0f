#!/bin/bash
# A result directory cannot make tracebench write outside itself (issue 14, item 1): links
# planted where plot, report, gate, compare and run write are refused with exit 2 and a message
# naming the path, and the files they point at stay as they were. Every output is tried with a
# link to a victim file, a dangling link (which must not be created as a file), and for plots a
# symlinked plots/ and plots/data/ directory.
. "$(dirname "$0")/lib.sh"
FIX=${TB_ROOT:?}/tests/data/results
nfail=0
problem() { echo "FAIL: $*" >&2; nfail=$((nfail + 1)); }

V=$TMP/victim
mkdir -p "$V"
printf 'precious\n' >"$V/file"
victim_ok() { # CONTEXT: the victim file is unchanged and nothing new appeared beside it
	[ "$(cat "$V/file")" = precious ] || problem "$1: the victim file was overwritten"
	[ "$(ls -A "$V" | wc -l)" -eq 1 ] || problem "$1: files appeared in the victim directory: $(ls -A "$V")"
}
# refused WHAT CMD...: exit 2, a message saying "symbolic link", the victim untouched.
refused() {
	local what=$1
	shift
	"$@" >"$TMP/out" 2>"$TMP/err"
	local rc=$?
	[ $rc -eq 2 ] || problem "$what: exit $rc, expected 2: $(head -c 400 "$TMP/err")"
	grep -q "symbolic link" "$TMP/err" || problem "$what: no 'symbolic link' in: $(head -c 400 "$TMP/err")"
	victim_ok "$what"
}
fresh() { # a result directory D holding only result.json
	rm -rf "$TMP/d"
	mkdir -p "$TMP/d"
	cp "$FIX/plot-fixture.json" "$TMP/d/result.json"
}

# ---- plot: a data file, a dangling data file, the data directory, the plots directory, an image
for mode in link dangling; do
	fresh
	mkdir -p "$TMP/d/plots/data"
	if [ $mode = link ]; then
		ln -s "$V/file" "$TMP/d/plots/data/overhead.dat"
	else
		ln -s "$V/new-file" "$TMP/d/plots/data/overhead.dat"
	fi
	refused "plot, $mode plots/data/overhead.dat" "$TB" plot "$TMP/d/result.json"
	[ -L "$TMP/d/plots/data/overhead.dat" ] || problem "plot replaced the planted link"
done
fresh
mkdir -p "$TMP/d/plots"
ln -s "$V" "$TMP/d/plots/data"
refused "plot, symlinked plots/data" "$TB" plot "$TMP/d/result.json"
fresh
ln -s "$V" "$TMP/d/plots"
refused "plot, symlinked plots" "$TB" plot "$TMP/d/result.json"
fresh
mkdir -p "$TMP/d/plots"
ln -s "$V/file" "$TMP/d/plots/overhead.svg"
refused "plot, linked plots/overhead.svg" "$TB" plot "$TMP/d/result.json"
fresh
mkdir -p "$TMP/d/plots/data"
ln "$V/file" "$TMP/d/plots/data/timeline.dat" 2>/dev/null &&
	{ # a hard link is replaced by a new file, never written through
		"$TB" plot "$TMP/d/result.json" >"$TMP/out" 2>"$TMP/err" || true
		victim_ok "plot, hard-linked plots/data/timeline.dat"
	}

# ---- report: report.html next to the result, and -o
fresh
ln -s "$V/file" "$TMP/d/report.html"
refused "report, linked report.html" "$TB" report "$TMP/d/result.json"
fresh
ln -s "$V/new-file" "$TMP/d/out.html"
refused "report -o dangling link" "$TB" report "$TMP/d/result.json" -o "$TMP/d/out.html"

# ---- gate --junit / --markdown / --benchmark-json, compare --html
for opt in --junit --markdown --benchmark-json; do
	fresh
	ln -s "$V/file" "$TMP/d/gate.out"
	"$TB" gate "$TMP/d/result.json" "$opt" "$TMP/d/gate.out" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 2 ] || problem "gate $opt: exit $rc, expected 2: $(head -c 400 "$TMP/err")"
	grep -q "symbolic link" "$TMP/err" || problem "gate $opt: no 'symbolic link' in: $(head -c 400 "$TMP/err")"
	victim_ok "gate $opt"
done
fresh
ln -s "$V/file" "$TMP/d/cmp.html"
refused "compare --html" "$TB" compare "$FIX/a.json" "$FIX/b.json" --html "$TMP/d/cmp.html"

# ---- run -o: a link as the run directory
if [ "$(id -u)" -eq 0 ]; then
	printf '[global]\nrepetitions = 1\nwarmup = 0\nduration = 10ms\n[workload g]\ntype = getpid\n[matrix]\nworkloads = g\ntracers = none\n' >"$TMP/s.ini"
	mkdir -p "$TMP/empty"
	ln -s "$TMP/empty" "$TMP/runlink"
	refused "run -o symlink" "$TB" run "$TMP/s.ini" -o "$TMP/runlink" -q --no-plots
	[ -z "$(ls -A "$TMP/empty")" ] || problem "run -o wrote through the link"
fi

[ $nfail -eq 0 ] || fail "$nfail problems"
exit 0
