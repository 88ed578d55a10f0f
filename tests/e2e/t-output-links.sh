#!/bin/bash
# A result directory cannot make tracebench write outside itself (issue 14, item 1): links
# planted where plot, report, gate, compare, run, explain and fleet write are refused with exit 2
# and a message naming the path, and the files they point at stay as they were. Every output is
# tried with a link to a victim file, a dangling link (which must not be created as a file), and
# for plots a symlinked plots/ and plots/data/ directory, for explain a symlinked explain/ and
# cell directory; a run directory and a fleet directory swapped for a link while they are being
# filled still get every file tracebench writes (the tables, report.html, the plots, ansible.log,
# the tracers' logs and streams), and the link's target none.
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
plant() { # MODE PATH: a link at PATH to the victim file (link) or to a name beside it (dangling)
	if [ "$1" = link ]; then
		ln -s "$V/file" "$2"
	else
		ln -s "$V/new-file" "$2"
	fi
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
	plant $mode "$TMP/d/plots/data/overhead.dat"
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
	refused "run -o symlink" "$TB" run --wait "$TMP/s.ini" -o "$TMP/runlink" -q --no-plots
	[ -z "$(ls -A "$TMP/empty")" ] || problem "run -o wrote through the link"
fi

# ---- run: its report.html and plots, with a link planted in the run directory or the run
# directory swapped for a link while it measures. A command tracer (scenarios are code) does it
# at its first sample; tracebench writes what it publishes through the run directory's handle.
drew_plot() { # CONTEXT DIR PLOT: with gnuplot, DIR/plots/PLOT.svg drawn and inlined in DIR/report.html
	command -v gnuplot >/dev/null || return 0
	[ -s "$2/plots/$3.svg" ] || problem "$1: no plots/$3.svg in the directory it made"
	grep -q "id=\"plot-$3\"" "$2/report.html" 2>/dev/null ||
		problem "$1: the report does not inline the $3 plot it drew"
}
# NAME SHELL-COMMAND [REPS [SECTIONS TRACERS]]: the scenario $TMP/NAME.ini whose tracer plant runs
# the command at each of its samples (after printing "plant-sample"), with REPS rounds and more
# tracer sections (SECTIONS, their names in TRACERS).
runplant() {
	printf '[global]\nrepetitions = %s\nwarmup = 0\nduration = 10ms\n[workload g]\ntype = getpid\n[tracer plant]\ntype = command\ncommand = sh -c %s\nready-settle = 50ms\n%b[matrix]\nworkloads = g\ntracers = none, plant%s\n' \
		"${3:-1}" "'echo plant-sample; $2; exec sleep 30'" "${4:-}" "${5:-}" >"$TMP/$1.ini"
}
# A stream consumer (ftrace-events; its st.raw kept) and a second command tracer (its lg.log).
STREAM='[tracer st]\ntype = ftrace-events\nevents = raw_syscalls:sys_enter\npid-filter = workload\nconsumer = stream\nkeep-raw = true\n'
LOGGER='[tracer lg]\ntype = command\ncommand = sleep 30\nready-settle = 50ms\n'
tracefs=false
[ -e /sys/kernel/tracing/events/raw_syscalls ] || [ -e /sys/kernel/debug/tracing/events/raw_syscalls ] &&
	tracefs=true
if [ "$(id -u)" -eq 0 ]; then
	for mode in link dangling; do
		rm -rf "$TMP/r1"
		to=$V/file
		[ $mode = link ] || to=$V/new-file # as plant() does
		runplant r1 "[ -L $TMP/r1/report.html ] || ln -s $to $TMP/r1/report.html"
		"$TB" run --wait "$TMP/r1.ini" -o "$TMP/r1" -q >"$TMP/out" 2>"$TMP/err"
		rc=$?
		[ $rc -ne 0 ] || problem "run, $mode report.html planted: exit 0"
		grep -q "r1/report.html: is a symbolic link" "$TMP/err" ||
			problem "run, $mode report.html planted: not refused naming it: $(head -c 400 "$TMP/err")"
		[ -L "$TMP/r1/report.html" ] || problem "run replaced the planted $mode report.html link"
		[ -s "$TMP/r1/result.json" ] || problem "run, $mode report.html planted: no result.json"
		victim_ok "run, $mode report.html planted"
	done
	# A tracer's stream and a command tracer's log, planted as links by plant's first sample: in
	# the second round each is refused naming it, the link left and never written through.
	for mode in link dangling; do
		rm -rf "$TMP/r3"
		to=$V/file
		[ $mode = link ] || to=$V/new-file
		sec=$LOGGER tr=", lg" files=lg/lg.log
		! $tracefs || sec=$sec$STREAM tr="$tr, st" files="$files st/st.raw"
		cmd="mkdir -p $TMP/r3/tracers/lg $TMP/r3/tracers/st"
		for f in $files; do
			cmd="$cmd; [ -L $TMP/r3/tracers/$f ] || ln -sf $to $TMP/r3/tracers/$f"
		done
		runplant r3 "$cmd" 2 "$sec" "$tr"
		"$TB" run --wait "$TMP/r3.ini" -o "$TMP/r3" -q >"$TMP/out" 2>"$TMP/err"
		for f in $files; do
			grep -q "r3/tracers/$f: is a symbolic link" "$TMP/err" ||
				problem "run, $mode tracers/$f planted: not refused naming it: $(head -c 600 "$TMP/err")"
			[ -L "$TMP/r3/tracers/$f" ] || problem "run replaced the planted $mode tracers/$f link"
		done
		[ -s "$TMP/r3/result.json" ] || problem "run, $mode tracer files planted: no result.json"
		victim_ok "run, $mode tracer files planted"
	done
	# The run directory swapped for a link by plant's first sample; the link's target holds a
	# tracers/ of its own (a stream file to truncate, a log directory to fill). The second round's
	# samples still write the tracers' files in the directory tracebench made.
	rm -rf "$TMP/r2" "$TMP/r2.moved" "$TMP/v2"
	mkdir -p "$TMP/v2/tracers/plant" "$TMP/v2/tracers/st"
	printf 'precious\n' >"$TMP/v2/tracers/st/st.raw"
	sec= tr=
	! $tracefs || sec=$STREAM tr=", st"
	runplant r2 "[ -L $TMP/r2 ] || { mv $TMP/r2 $TMP/r2.moved && ln -s $TMP/v2 $TMP/r2; }" 2 "$sec" "$tr"
	"$TB" run --wait "$TMP/r2.ini" -o "$TMP/r2" -q >"$TMP/out" 2>"$TMP/err" ||
		problem "run, directory swapped: exit $?: $(head -c 400 "$TMP/err")"
	for f in report.html plots result.json; do
		[ ! -e "$TMP/v2/$f" ] || problem "run wrote $f through the swapped run directory"
	done
	[ -z "$(ls -A "$TMP/v2/tracers/plant")" ] ||
		problem "run wrote tracers/plant/$(ls -A "$TMP/v2/tracers/plant") through the swapped run directory"
	printf 'precious\n' | cmp -s - "$TMP/v2/tracers/st/st.raw" ||
		problem "run wrote tracers/st/st.raw through the swapped run directory"
	[ "$(ls -A "$TMP/v2/tracers" | tr '\n' ' ')" = "plant st " ] ||
		problem "run, directory swapped: tracers/ of the link's target changed: $(ls -A "$TMP/v2/tracers")"
	[ -L "$TMP/r2" ] && [ -s "$TMP/r2.moved/result.json" ] && [ -s "$TMP/r2.moved/report.html" ] ||
		problem "run, directory swapped: result.json or report.html not in the directory it made"
	# every sample of plant's cell (its accounting samples too: METHODOLOGY 2.11) wrote its line
	want=$(python3 -c 'import json,sys; print(sum(len(c["samples"]) for c in json.load(open(sys.argv[1]))["cells"] if c["tracer"] == "plant"))' \
		"$TMP/r2.moved/result.json" 2>/dev/null)
	n=$(grep -c plant-sample "$TMP/r2.moved/tracers/plant/plant.log" 2>/dev/null)
	[ "${n:-0}" -ge 2 ] && [ "${n:-0}" -eq "${want:-2}" ] ||
		problem "run, directory swapped: tracers/plant/plant.log in the directory it made has ${n:-0} samples' output, not ${want:-2}"
	if $tracefs; then
		[ -s "$TMP/r2.moved/tracers/st/st.raw" ] ||
			problem "run, directory swapped: no stream tracers/st/st.raw in the directory it made"
	fi
	drew_plot "run, directory swapped" "$TMP/r2.moved" overhead
fi

# ---- explain: the result's explain/, a cell's directory, a graph, and inside -o DIR
EXP=$TB_ROOT/tests/data/explain/run
efresh() { # a result directory E with the explain fixture's result and folded files
	rm -rf "$TMP/e" "$TMP/e-elsewhere"
	cp -r "$EXP" "$TMP/e"
}
snap() { find "$1" -printf '%P %y %s\n' | sort; } # what a directory holds, to compare
efresh # explain/ moved away and a link left in its place: the folds read, nothing written there
mv "$TMP/e/explain" "$TMP/e-elsewhere"
ln -s "$TMP/e-elsewhere" "$TMP/e/explain"
before=$(snap "$TMP/e-elsewhere")
refused "explain, symlinked explain/" "$TB" explain "$TMP/e/result.json"
[ "$(snap "$TMP/e-elsewhere")" = "$before" ] || problem "explain wrote through a symlinked explain/"
efresh
mv "$TMP/e/explain/getpid.tp" "$TMP/e-elsewhere"
ln -s "$TMP/e-elsewhere" "$TMP/e/explain/getpid.tp"
before=$(snap "$TMP/e-elsewhere")
refused "explain, symlinked explain/<cell>" "$TB" explain "$TMP/e/result.json"
[ "$(snap "$TMP/e-elsewhere")" = "$before" ] || problem "explain wrote through a symlinked cell directory"
for f in diff.svg traced.svg; do
	for mode in link dangling; do
		efresh
		plant $mode "$TMP/e/explain/getpid.tp/$f"
		refused "explain, $mode explain/getpid.tp/$f" "$TB" explain "$TMP/e/result.json"
		[ -L "$TMP/e/explain/getpid.tp/$f" ] || problem "explain replaced the planted $f link"
	done
done
efresh # -o DIR is the user's: a cell's directory in it that is a link is refused
mkdir -p "$TMP/eo"
ln -s "$V" "$TMP/eo/getpid.tp"
refused "explain -o DIR, symlinked DIR/<cell>" "$TB" explain "$TMP/e/result.json" -o "$TMP/eo"
rm -rf "$TMP/eo" "$TMP/eo-real"
mkdir -p "$TMP/eo-real" # -o LINK: the user's own path, followed
ln -s "$TMP/eo-real" "$TMP/eo"
"$TB" explain "$TMP/e/result.json" -o "$TMP/eo" >"$TMP/out" 2>"$TMP/err" ||
	problem "explain -o a link to a directory: exit $?: $(head -c 400 "$TMP/err")"
[ -s "$TMP/eo-real/getpid.tp/diff.svg" ] && [ ! -L "$TMP/eo-real/getpid.tp/diff.svg" ] ||
	problem "explain -o a link to a directory: no diff.svg in the directory it names"

# ---- fleet: its tables, report and plot, and its directory swapped for a link while the playbook
# runs. A stand-in ansible-playbook (first in PATH) reports one host, fetches a run of it when
# FAKE_RESULT names one, and plants what FAKE_PLANT says in the fleet directory it finds in the
# variables file; tracebench must write nothing through it.
mkdir -p "$TMP/bin"
cat >"$TMP/bin/ansible-playbook" <<'EOF_FAKE'
#!/bin/bash
vars=
while [ $# -gt 0 ]; do
	case $1 in
	-e) case $2 in @*) vars=${2#@} ;; esac; shift 2 ;;
	*) shift ;;
	esac
done
dir=$(sed -n 's/^ *"tb_fleet_dir": "\(.*\)",*$/\1/p' "$vars")
[ -d "$dir" ] || { echo "ERROR! no fleet directory in $vars" >&2; exit 2; }
fetch() { # DIR: h1's record and a run of the fleet's scenario (FAKE_RESULT relabelled) in DIR/h1
	[ -n "$FAKE_RESULT" ] || return 0
	python3 - "$vars" "$FAKE_RESULT" "$1/h1" <<'PY'
import json, os, sys
v, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
r["labels"] = {"host": "h1", "fleet": v["tb_fleet_id"]}
r["scenario"]["text"] = open(v["tb_scenario"]).read()
os.makedirs(sys.argv[3], exist_ok=True)
json.dump(r, open(os.path.join(sys.argv[3], "result.json"), "w"))
json.dump({"schema": "tracebench-fleet-host/1", "host": "h1", "status": "ok", "stage": "",
           "reason": ""}, open(os.path.join(sys.argv[3], "fleet-host.json"), "w"))
PY
}
fetch "$dir"
case $FAKE_PLANT in
tables)
	ln -s "$FAKE_VICTIM/file" "$dir/fleet.txt"
	ln -s "$FAKE_VICTIM/new-file" "$dir/fleet.json" ;;
report)
	ln -s "$FAKE_VICTIM/file" "$dir/report.html"
	ln -s "$FAKE_VICTIM" "$dir/plots" ;;
swap) # the fetched runs are read by the directory's path (Ansible's files): the link's has one
	fetch "$FAKE_VICTIM" && mv "$dir" "$dir.moved" && ln -s "$FAKE_VICTIM" "$dir" ;;
esac
echo '{"_event": "v2_playbook_on_stats", "stats": {"h1": {"unreachable": 0, "failures": 0}}}'
EOF_FAKE
chmod +x "$TMP/bin/ansible-playbook"
: >"$TMP/inventory"
: >"$TMP/playbook.yml"
fleet() { # DIR [more options]: the fleet of the stand-in's one host into DIR
	local dir=$1
	shift
	env PATH="$TMP/bin:$PATH" FAKE_PLANT="${FAKE_PLANT:-none}" FAKE_VICTIM="${FAKE_VICTIM:-$V}" \
		FAKE_RESULT="${FAKE_RESULT:-}" \
		"$TB" fleet \
		"$TB_ROOT/tests/data/fleet/tiny.ini" -i "$TMP/inventory" --playbook "$TMP/playbook.yml" \
		-o "$dir" -q "$@"
}
rm -rf "$TMP/f0" # the stand-in itself: with nothing planted the tables are written, exit 1
FAKE_PLANT=none fleet "$TMP/f0" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] || problem "fleet with the stand-in playbook: exit $rc, expected 1: $(head -c 400 "$TMP/err")"
[ -s "$TMP/f0/fleet.txt" ] && [ -s "$TMP/f0/fleet.json" ] && [ -s "$TMP/f0/vars.json" ] ||
	problem "fleet with the stand-in playbook: fleet.txt, fleet.json or vars.json missing"
rm -rf "$TMP/f1"
FAKE_PLANT=tables refused "fleet, linked fleet.txt and dangling fleet.json" fleet "$TMP/f1"
[ -L "$TMP/f1/fleet.txt" ] && [ -L "$TMP/f1/fleet.json" ] || problem "fleet replaced a planted link"
grep -q "f1/fleet.json: is a symbolic link" "$TMP/err" || problem "fleet: the dangling fleet.json not named"
mkdir -p "$TMP/f2" # vars.json planted before: the directory is not empty, nothing written
ln -s "$V/file" "$TMP/f2/vars.json"
FAKE_PLANT=none fleet "$TMP/f2" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 2 ] || problem "fleet -o DIR holding a vars.json link: exit $rc, expected 2"
victim_ok "fleet -o DIR holding a vars.json link"
mkdir -p "$TMP/f3-real"
ln -s "$TMP/f3-real" "$TMP/f3"
refused "fleet -o symlink" fleet "$TMP/f3"
[ -z "$(ls -A "$TMP/f3-real")" ] || problem "fleet -o wrote through the link"
rm -rf "$TMP/f5" # a linked report.html and a symlinked plots/ planted while it runs: refused
FAKE_PLANT=report FAKE_RESULT=$FIX/a.json refused "fleet, linked report.html and plots/" fleet "$TMP/f5"
[ -L "$TMP/f5/report.html" ] && [ -L "$TMP/f5/plots" ] || problem "fleet replaced a planted link"
grep -q "f5/report.html: is a symbolic link" "$TMP/err" || problem "fleet: the report.html link not named"
grep -q '"merged": true' "$TMP/f5/fleet.json" 2>/dev/null ||
	problem "fleet, linked report.html: the tables were not written, or the run not merged"
rm -rf "$TMP/f4" "$TMP/f4.moved" "$TMP/v4"
mkdir -p "$TMP/v4"
FAKE_PLANT=swap FAKE_VICTIM=$TMP/v4 FAKE_RESULT=$FIX/a.json fleet "$TMP/f4" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] || problem "fleet, directory swapped: exit $rc, expected 0: $(head -c 400 "$TMP/err")"
grep -q '"merged": true' "$TMP/f4.moved/fleet.json" 2>/dev/null ||
	problem "fleet, directory swapped: the fetched run was not merged"
for f in fleet.txt fleet.json compare.txt report.html ansible.log plots; do
	[ ! -e "$TMP/v4/$f" ] || problem "fleet wrote $f through the swapped fleet directory"
done
for f in fleet.txt fleet.json compare.txt report.html; do
	[ -s "$TMP/f4.moved/$f" ] || problem "fleet, directory swapped: $f not in the directory it made"
done
[ -f "$TMP/f4.moved/ansible.log" ] && grep -q v2_playbook_on_stats "$TMP/f4.moved/ansible.log" ||
	problem "fleet, directory swapped: ansible.log not in the directory it made"
drew_plot "fleet, directory swapped" "$TMP/f4.moved" compare

[ $nfail -eq 0 ] || fail "$nfail problems"
exit 0
