#!/bin/bash
# Build the libFuzzer targets (tests/fuzz/fuzz_*.c) with clang, ASan and UBSan, and run each for
# SECONDS (default 300). Exits 1 if any target found something (a crash-, leak-, timeout- or
# oom- file appears in tests/fuzz/, or the fuzzer exits non-zero), 2 if the build fails.
#
#   tools/fuzz.sh [SECONDS]          (make fuzz FUZZ_SECONDS=N calls this)
#   FUZZ_TARGETS="scenario result"   which targets to run (default: all)
#   FUZZ_BUILD=build-fuzz            build directory
#
# The seed corpora (tests/fuzz/corpus/NAME/, committed) are copied into a work corpus
# (tests/fuzz/corpus-NAME/, git-ignored) that grows from run to run; the shipped scenarios and
# result fixtures are added to the seeds each time.
set -u
secs=${1:-}
[ -n "$secs" ] || secs=300
case $secs in *[!0-9]*) echo "fuzz.sh: SECONDS must be a whole number, not '$secs'" >&2; exit 2 ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
build=${FUZZ_BUILD:-build-fuzz}
san="-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"

echo "== building fuzzers into $build/fuzz (clang, ASan, UBSan)"
# CC, BUILD and SANFLAGS on the command line override the Makefile's; everything else (include
# paths, libraries, warnings) is the Makefile's own.
# -Wno-error: the gcc build is the warnings gate; a clang-only warning must not stop fuzzing.
if ! make --no-print-directory CC=clang BUILD="$build" SANFLAGS="$san" CFLAGS="-O1 -g -Wno-error" \
	fuzzers; then
	echo "fuzz.sh: build failed" >&2
	exit 2
fi

targets=${FUZZ_TARGETS:-$(for f in tests/fuzz/fuzz_*.c; do n=${f##*/fuzz_}; echo "${n%.c}"; done)}
# Leaks are findings; the harness never forks in the parsers, so fork-related noise is moot.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

findings() { ls tests/fuzz/ 2>/dev/null | grep -E '^(crash|leak|timeout|oom)-' ; }
before=$(findings | sort)
status=0
for t in $targets; do
	bin=$build/fuzz/fuzz_$t
	[ -x "$bin" ] || { echo "fuzz.sh: no fuzzer $bin" >&2; status=2; continue; }
	work=tests/fuzz/corpus-$t
	mkdir -p "$work"
	cp -n tests/fuzz/corpus/"$t"/* "$work"/ 2>/dev/null
	case $t in
	scenario) for f in scenarios/*.ini tests/data/scenarios/*.ini tests/data/bad/*.ini; do
			[ -f "$f" ] && cp -n "$f" "$work/seed-$(basename "$f")"
		done ;;
	result) for f in tests/data/results/*.json tests/data/bad/results/*.json; do
			# Seeds over 1 MB only slow the fuzzer down (-max_len caps them anyway).
			[ -f "$f" ] && [ "$(stat -c %s "$f")" -le 1048576 ] &&
				cp -n "$f" "$work/seed-$(basename "$f")"
		done ;;
	esac
	dict=()
	[ -f tests/fuzz/$t.dict ] && dict=(-dict=tests/fuzz/$t.dict)
	log=$build/fuzz/$t.log
	echo "== fuzz_$t: ${secs}s, corpus $work ($(ls "$work" | wc -l) inputs), log $log"
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-print_final_stats=1 -artifact_prefix=tests/fuzz/ "${dict[@]}" "$work" >"$log" 2>&1
	rc=$?
	grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb)' "$log" | sed 's/^/   /'
	if [ $rc -ne 0 ]; then
		echo "FINDING in fuzz_$t (exit $rc):" >&2
		grep -E 'ERROR: |SUMMARY: |runtime error|Test unit written' "$log" | head -n 20 >&2
		status=1
	fi
done
after=$(findings | sort)
new=$(comm -13 <(echo "$before") <(echo "$after") | grep . )
if [ -n "$new" ]; then
	echo "fuzz.sh: new findings in tests/fuzz/ (reproduce: $build/fuzz/fuzz_NAME FILE):" >&2
	echo "$new" | sed 's|^|  tests/fuzz/|' >&2
	status=1
fi
[ $status -eq 0 ] && echo "fuzz: no findings"
exit $status
