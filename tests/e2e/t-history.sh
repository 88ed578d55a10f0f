#!/bin/bash
# The history end to end: three real runs with run --history, then history list, show, detect,
# report, plot, export and gate --history; a synthetic history (tools/history-synth.py) with a
# known step and a kernel change at run 7, found and explained; bad databases and result files
# refused with exit 2 (3 for a server that cannot be reached), nothing stored lost; two
# concurrent adds; the same runs and commands against a PostgreSQL server this test starts.
. "$(dirname "$0")/lib.sh"
need_root
SCN=$TB_ROOT/tests/data/history/tiny.ini
SYNTH=$TB_ROOT/tools/history-synth.py
DB=$TMP/h.db
PGDIR=
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
# Stops the test's server and removes its directory: nothing of it stays in /tmp.
pg_stop() {
	if [ -n "$PGDIR" ]; then
		runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDIR/data" -m immediate \
			stop >/dev/null 2>&1
		rm -rf "$PGDIR"
	fi
	PGDIR=
}
trap 'pg_stop; rm -rf "$TMP"' EXIT
export TRACEBENCH_DB=$TMP/not-this-one.db # --db and --history=DB must win over it

# Gates below allow untrustworthy cells: another process's tracing on this shared machine (the
# foreign-instrumentation check) must not decide a test of the history.
# 1. Three runs, each added by run --history (no --db: the option's own argument).
for i in 1 2 3; do
	expect_exit 0 "$TB" run "$SCN" --quick -o "$TMP/r$i" -q --no-plots --wait \
		--label commit=c0ffee$i --history="$DB"
	grep -q "history: $DB: run $i (" "$TMP/out" || fail "run $i not added: $(cat "$TMP/out")"
done
[ ! -e "$TMP/not-this-one.db" ] || fail "TRACEBENCH_DB was used although --history=DB was given"
# history add of a run already there: a no-op
expect_exit 0 "$TB" history add "$TMP/r2" --db "$DB"
grep -q "already in the history as run 2" "$TMP/out" || fail "re-add not recognised: $(cat "$TMP/out")"

# 2. list, show, detect, report, plot, export.
expect_exit 0 "$TB" history list --db "$DB"
grep -q 'tiny/getpid/tp-getpid/overhead_pct' "$TMP/out" || fail "list: no overhead series"
grep -q '3 runs' "$TMP/out" || fail "list: not 3 runs: $(cat "$TMP/out")"
expect_exit 0 "$TB" history list --db "$DB" --json
python3 - "$TMP/out" <<'PY' || fail "history list --json is wrong"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["runs"] == 3 and d["backend"] == "sqlite", d
names = {s["name"]: s for s in d["series"]}
s = names["tiny/getpid/tp-getpid/overhead_pct"]
assert s["runs"] == 3 and len(s["hw_class"]) == 16 and s["first"] <= s["last"], s
assert "tiny/getpid/none/ns_per_op" in names and "tiny/getpid/delay/overhead_ns" in names
PY
expect_exit 0 "$TB" history list --runs --db "$DB"
grep -q 'commit=c0ffee3' "$TMP/out" || fail "list --runs: no labels"
expect_exit 0 "$TB" history show 'tiny/getpid/tp-getpid/overhead_pct' --db "$DB"
[ "$(grep -cE '^ +[0-9]+ +[0-9]+ +20[0-9-]+T' "$TMP/out")" -eq 3 ] ||
	fail "show: not 3 points: $(cat "$TMP/out")"
expect_exit 2 "$TB" history show 'no/such/series' --db "$DB"
grep -q "no series matches 'no/such/series'" "$TMP/err" || fail "show: unknown series not named"
expect_exit 0 "$TB" history detect --db "$DB"
grep -q '^10 series' "$TMP/out" || fail "detect: no summary: $(cat "$TMP/out")"
expect_exit 0 "$TB" history detect --db "$DB" --json --all
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["series"]) == 10; assert d["settings"]["window"] == 50' \
	"$TMP/out" || fail "detect --json is wrong"
expect_exit 0 "$TB" history report --db "$DB" -o "$TMP/h.html"
grep -q '</html>' "$TMP/h.html" || fail "report is not a whole page"
grep -qiE '<script|<link|src="http|href="http' "$TMP/h.html" && fail "report references something external"
grep -q 'tiny/getpid/tp-getpid/overhead_pct' "$TMP/h.html" || fail "report lists no series"
if command -v gnuplot >/dev/null; then
	expect_exit 0 "$TB" history plot 'tiny/getpid/none/*' --db "$DB" -o "$TMP/plots"
	ls "$TMP"/plots/plots/trend-*.png "$TMP"/plots/plots/trend-*.svg >/dev/null 2>&1 ||
		fail "plot: no PNG and SVG"
fi
expect_exit 0 "$TB" history export 1 --db "$DB" -o "$TMP/export.json"
python3 - "$TMP/export.json" "$TMP/r1/result.json" <<'PY' || fail "export is not the run as added"
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert a == b, "exported result differs"
PY
# (--allow-faster: whether a real traced cell measured faster than its baseline is the minute's
# noise, not what this checks; CI once failed here on a 'delay' cell 3% faster on a busy machine)
expect_exit 0 "$TB" gate "$TMP/r3/result.json" --history "$DB" --max-overhead none \
	--allow-untrustworthy --allow-faster
grep -q 'no regression check (needs 3)' "$TMP/out" || fail "gate --history: $(cat "$TMP/out")"
# run --gate --history: gated against the history first, added whatever the verdict
"$TB" run "$SCN" --quick -o "$TMP/r4" -q --no-plots --wait --gate --history="$DB" \
	>"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 1 ] || fail "run --gate --history exited $rc: $(cat "$TMP/err")"
grep -q "vs the history $DB" "$TMP/out" || fail "run --gate --history did not gate against it"
grep -q "history: $DB: run 4 (" "$TMP/out" || fail "run --gate --history did not add the run"

# 3. A synthetic history: overhead of tp-getpid +30% and the kernel changed, both at run 7.
# --flatten: the history's noise is the seeded synthetic one, not this machine's load in r1
python3 "$SYNTH" "$TMP/r1/result.json" "$TMP/syn" --runs 12 --seed 3 --noise 0.01 --flatten \
	--step 6:getpid/tp-getpid:1.3 --env 6:kernel.release=6.19.0-test --reanalyse ||
	fail "history-synth.py failed"
# two processes add at once: both land
"$TB" history add "$TMP"/syn/run-000[0-5] --db "$TMP/s.db" >"$TMP/a1" 2>&1 &
p1=$!
"$TB" history add "$TMP"/syn/run-00{06,07,08,09,10} --db "$TMP/s.db" >"$TMP/a2" 2>&1 &
p2=$!
wait $p1 || fail "concurrent add 1 failed: $(cat "$TMP/a1")"
wait $p2 || fail "concurrent add 2 failed: $(cat "$TMP/a2")"
expect_exit 0 "$TB" history list --runs --db "$TMP/s.db" --json
python3 -c 'import json,sys; assert len(json.load(open(sys.argv[1]))) == 11' "$TMP/out" ||
	fail "concurrent adds did not both land"
expect_exit 0 "$TB" history add "$TMP/syn/run-0011" --db "$TMP/s.db"
expect_exit 0 "$TB" history detect 'tiny/getpid/tp-getpid/overhead_pct' --db "$TMP/s.db"
grep -q 'overhead % of tp-getpid on getpid +[0-9.]* pp .* at run 7 of 12' "$TMP/out" ||
	fail "the step is not found at run 7: $(cat "$TMP/out")"
grep -q 'kernel.release 6.* -> 6.19.0-test changed at the same run' "$TMP/out" ||
	fail "the kernel change is not named: $(cat "$TMP/out")"
expect_exit 0 "$TB" history report --db "$TMP/s.db" -o "$TMP/s.html"
grep -q '<svg' "$TMP/s.html" || command -v gnuplot >/dev/null || fail "report without trend plot"
grep -q 'kernel.release' "$TMP/s.html" || fail "report does not name the kernel change"
# gate --history: a run like the last segment passes, a twice as costly one fails (twice, not
# +30%: the pooled per-sample test sees the real run's sample noise, which a loaded machine
# makes wide enough to hide +30% in a --quick run's few samples). --allow-faster: the source
# run's cells are real measurements, and a delay cell measured faster than its baseline (seen
# once under SAN=1) is not what this checks.
python3 "$SYNTH" "$TMP/r1/result.json" "$TMP/new" --runs 14 --seed 3 --noise 0.01 --flatten \
	--step 6:getpid/tp-getpid:1.3 --step 13:getpid/tp-getpid:2.0 --reanalyse ||
	fail "history-synth.py failed"
expect_exit 0 "$TB" gate "$TMP/new/run-0012/result.json" --history "$TMP/s.db" \
	--max-overhead none --allow-untrustworthy --allow-faster
expect_exit 1 "$TB" gate "$TMP/new/run-0013/result.json" --history="$TMP/s.db" \
	--max-overhead none --allow-untrustworthy --allow-faster --junit "$TMP/j.xml" --markdown "$TMP/g.md" \
	--benchmark-json "$TMP/g.json"
grep -q 'FAIL  getpid/tp-getpid .*regressed by more than max-regression 3 percentage points against the history' \
	"$TMP/out" || fail "gate --history: no regression: $(cat "$TMP/out")"
python3 -c 'import sys, xml.etree.ElementTree as E; r=E.parse(sys.argv[1]).getroot(); assert len(r.findall(".//failure")) == 1' \
	"$TMP/j.xml" || fail "gate --history: JUnit wrong"
if command -v xmllint >/dev/null; then
	xmllint --noout --schema "$TB_ROOT/tests/data/junit/junit-10.xsd" "$TMP/j.xml" ||
		fail "gate --history: JUnit fails junit-10.xsd"
fi
grep -q 'against the last stable segment of each series in' "$TMP/g.md" ||
	fail "gate --history: Markdown does not say what it gated against"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))' "$TMP/g.json" ||
	fail "gate --history: benchmark JSON wrong"

# 4. Bad input: exit 2 naming the database or file, nothing stored lost.
before=$(sqlite3 "$TMP/s.db" 'SELECT count(*) FROM runs')
cp "$TMP/r1/result.json" "$TMP/bad.json"
sed -i 's/"ns_per_op": [0-9.e+-]*/"ns_per_op": "fast"/' "$TMP/bad.json"
expect_exit 2 "$TB" history add "$TMP/bad.json" "$TMP/syn/run-0000" --db "$TMP/s.db"
grep -q 'bad.json: cells\[0\].samples\[0\].ns_per_op: expected a number' "$TMP/err" ||
	fail "bad result not named: $(cat "$TMP/err")"
head -c 3000 /dev/urandom >"$TMP/garbage.db"
expect_exit 2 "$TB" history list --db "$TMP/garbage.db"
grep -q "garbage.db: not an SQLite database" "$TMP/err" || fail "garbage: $(cat "$TMP/err")"
sqlite3 "$TMP/foreign.db" 'CREATE TABLE users (name TEXT)'
expect_exit 2 "$TB" history add "$TMP/r1" --db "$TMP/foreign.db"
grep -q 'foreign.db: not a tracebench history' "$TMP/err" || fail "foreign: $(cat "$TMP/err")"
cp "$TMP/s.db" "$TMP/newer.db"
sqlite3 "$TMP/newer.db" "UPDATE tb_meta SET value = '2' WHERE key = 'schema_version'"
expect_exit 2 "$TB" history add "$TMP/r1" --db "$TMP/newer.db"
grep -q 'newer.db: the history has schema version 2, newer' "$TMP/err" || fail "newer: $(cat "$TMP/err")"
ln -s "$TMP/s.db" "$TMP/link.db"
expect_exit 2 "$TB" history add "$TMP/r1" --db "$TMP/link.db"
grep -q 'link.db: is a symbolic link' "$TMP/err" || fail "link: $(cat "$TMP/err")"
python3 - "$TMP/s.db" "$TMP/locked" <<'PY' &
import sqlite3, sys, time, os
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN EXCLUSIVE")
open(sys.argv[2], "w").close()
time.sleep(3)
c.execute("COMMIT")
PY
lock=$!
for _ in $(seq 1 50); do [ -e "$TMP/locked" ] && break; sleep 0.1; done
TRACEBENCH_DB_TIMEOUT=300ms expect_exit 3 "$TB" history add "$TMP/syn/run-0000" --db "$TMP/s.db"
grep -q 's.db: the database is locked' "$TMP/err" || fail "locked: $(cat "$TMP/err")"
wait $lock
expect_exit 3 "$TB" history list --db 'postgresql://tb:pw@/h?host=/nonexistent&port=1'
grep -q 'cannot be reached' "$TMP/err" || fail "unreachable: $(cat "$TMP/err")"
grep -q ':pw@' "$TMP/err" && fail "the password was printed"
after=$(sqlite3 "$TMP/s.db" 'SELECT count(*) FROM runs')
[ "$after" -eq "$((before))" ] || fail "runs changed by refused input: $before -> $after"
expect_exit 2 "$TB" history detect --db "$TMP/missing.db"
[ ! -e "$TMP/missing.db" ] || fail "a read created the database"
expect_exit 2 "$TB" history list --label a=b --db "$DB"
# A database someone else wrote: ESC and C1 controls in the columns list, show and detect print
# come out escaped; a trigger of theirs is refused before anything is read or added.
cp "$TMP/s.db" "$TMP/esc.db"
python3 - "$TMP/esc.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("UPDATE points SET workload = workload || char(27) || '[2J'")
c.execute("UPDATE runs SET host = char(27) || ']0;owned' || char(7), hw_desc = hw_desc || char(155) || '2J'")
c.commit()
PY
for c in list "list --runs" detect; do
	expect_exit 0 "$TB" history $c --db "$TMP/esc.db"
	! grep -q $'\033\|\xc2\x9b' "$TMP/out" "$TMP/err" || fail "history $c printed a raw escape"
done
grep -q 'x1b\[2J' <("$TB" history list --db "$TMP/esc.db") || fail "history list: the escape is not shown as text"
cp "$TMP/s.db" "$TMP/trig.db"
python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("CREATE TRIGGER zero AFTER INSERT ON points BEGIN UPDATE points SET value = 0; END"); c.commit()' "$TMP/trig.db"
expect_exit 2 "$TB" history add "$TMP/syn/run-0000" --db "$TMP/trig.db"
grep -q 'holds the trigger zero' "$TMP/err" || fail "a trigger in the history: $(cat "$TMP/err")"

# 5. The same against a PostgreSQL server of this test's own.
if [ -z "$PGBIN" ] || ! id postgres >/dev/null 2>&1; then
	echo "no PostgreSQL server binaries or postgres user: the PostgreSQL part is not exercised"
	exit 0
fi
PGDIR=$(mktemp -d /tmp/tb-e2e-pg.XXXXXX)
chown postgres: "$PGDIR"
chmod 0700 "$PGDIR"
runuser -u postgres -- "$PGBIN/initdb" -D "$PGDIR/data" -A trust -U postgres -E UTF8 \
	--locale=C --no-sync >"$TMP/initdb.log" 2>&1 || fail "initdb failed: $(tail "$TMP/initdb.log")"
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDIR/data" -w -l "$PGDIR/log" \
	-o "-k $PGDIR -p 55433 -c listen_addresses= -c fsync=off" start >/dev/null ||
	fail "pg_ctl start failed: $(cat "$PGDIR/log")"
URL="postgresql://postgres@/postgres?host=$PGDIR&port=55433"
# The third run's URL carries planted passwords (the server trusts local users and ignores
# them), one in the user part and one under a percent-encoded key libpq decodes: neither may
# reach a message, result.json, report.html or the history's stored run.
SECRET_URL="postgresql://postgres:PLANTEDPW1@/postgres?host=$PGDIR&port=55433&pass%77ord=PLANTEDPW2"
: >"$TMP/all-logs"
for i in 1 2 3; do
	u=$URL
	[ "$i" -eq 3 ] && u=$SECRET_URL
	expect_exit 0 "$TB" run "$SCN" --quick -o "$TMP/p$i" -q --no-plots --wait \
		--label commit=beef$i --history "$u"
	cat "$TMP/out" "$TMP/err" >>"$TMP/all-logs"
	grep -qE "history: postgresql://postgres(:\*\*\*)?@/postgres.*: run $i \(" "$TMP/out" ||
		fail "run $i not added to PostgreSQL: $(cat "$TMP/out")"
done
expect_exit 0 "$TB" history export 3 --db "$SECRET_URL" -o "$TMP/p3-export.json"
cat "$TMP/out" "$TMP/err" >>"$TMP/all-logs"
grep -q '"command_line"' "$TMP/p3-export.json" || fail "the export has no command line"
# (the runs have no plots, hence no report.html of their own: the report of run 3's result)
expect_exit 0 "$TB" report "$TMP/p3/result.json" -o "$TMP/p3/report.html"
cat "$TMP/out" "$TMP/err" >>"$TMP/all-logs"
grep -q 'postgres:\*\*\*@' "$TMP/p3/report.html" || fail "report.html shows no masked command line"
leaks=$(grep -rl 'PLANTEDPW' "$TMP/p3" "$TMP/p3-export.json" "$TMP/all-logs")
[ -z "$leaks" ] || fail "the history password is in: $leaks"
grep -q 'postgres:\*\*\*@' "$TMP/p3/result.json" || fail "result.json's command line is not masked"
expect_exit 2 "$TB" history list --dbx="$SECRET_URL" # a mistyped option is said masked too
grep -q 'PLANTEDPW' "$TMP/err" && fail "a mistyped option printed the password"
expect_exit 0 "$TB" history list --db "$URL" --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["runs"] == 3 and d["backend"] == "postgresql", d' \
	"$TMP/out" || fail "PostgreSQL list is wrong"
# the synthetic history in a database of its own (with the real runs its last segment would be
# three runs of another noise)
psql -q -h "$PGDIR" -p 55433 -U postgres -d postgres -c 'CREATE DATABASE syn' >/dev/null ||
	fail "cannot create a second database"
SYN="postgresql://postgres@/syn?host=$PGDIR&port=55433"
expect_exit 0 "$TB" history add "$TMP"/syn --db "$SYN"
expect_exit 0 "$TB" history detect 'tiny/getpid/tp-getpid/overhead_pct' --db "$SYN" --comparable
grep -q 'at run 7 of 12' "$TMP/out" || fail "PostgreSQL detect: $(cat "$TMP/out")"
grep -q 'kernel.release 6.* -> 6.19.0-test changed at the same run' "$TMP/out" ||
	fail "PostgreSQL detect: the kernel change is not named: $(cat "$TMP/out")"
expect_exit 0 "$TB" history report --db "$SYN" -o "$TMP/pg.html"
grep -q 'kernel.release' "$TMP/pg.html" || fail "PostgreSQL report does not name the kernel change"
expect_exit 0 "$TB" gate "$TMP/p3/result.json" --history "$URL" --max-overhead none \
	--allow-untrustworthy --allow-faster
# (the segment is the 3 runs, or fewer where this machine's noise made a change point of them)
grep -Eq 'vs the last stable segment \(3 runs since|runs? in the last stable segment of postgresql' \
	"$TMP/out" || fail "gate --history on PostgreSQL did not read the segment: $(cat "$TMP/out")"
# A database without a history yet: the gate says so, and names it masked in its reports too.
psql -q -h "$PGDIR" -p 55433 -U postgres -d postgres -c 'CREATE DATABASE empty' >/dev/null ||
	fail "cannot create an empty database"
expect_exit 0 "$TB" gate "$TMP/p3/result.json" --max-overhead none --allow-untrustworthy --allow-faster \
	--history "postgresql://postgres:PLANTEDPW1@/empty?host=$PGDIR&port=55433" --junit "$TMP/pj.xml"
grep -q 'no history at postgresql://postgres:\*\*\*@' "$TMP/err" || fail "no history: $(cat "$TMP/err")"
! grep -q 'PLANTEDPW' "$TMP/out" "$TMP/err" "$TMP/pj.xml" || fail "the gate showed the password"
pg_stop
expect_exit 3 "$TB" history list --db "$URL"
exit 0
