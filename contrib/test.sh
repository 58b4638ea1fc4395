#!/usr/bin/env bash
# test.sh - the whole test suite, from a fresh Debian 12 machine (root):
#   1. build with -Werror against the installed Slurm, run the Check unit
#      tests;
#   2. build the library and unit tests again under AddressSanitizer and
#      UBSan, run them;
#   3. integration tests: real munged, slurmctld and 4 slurmd started and
#      stopped by each test, with the freshly built plugins;
#   4. 30 s of coverage-guided fuzzing of the files: parser (libFuzzer);
#   5. make distcheck (skip with DL_SKIP_DISTCHECK=1).
# The last line is "N passed, N failed"; the exit status is 0 only if all
# passed.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
pass=0
fail=0

step() { echo; echo "=== $*"; }

# Adds a Check log's "Checks: N, Failures: F, Errors: E" to the totals.
count_check() {
	local line n f e
	line=$(grep -E 'Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+' "$1" | tail -1)
	if [ -z "$line" ]; then
		fail=$((fail + 1))
		echo "no Check summary in $1"
		return
	fi
	echo "$line"
	n=$(sed -E 's/.*Checks: ([0-9]+).*/\1/' <<<"$line")
	f=$(sed -E 's/.*Failures: ([0-9]+).*/\1/' <<<"$line")
	e=$(sed -E 's/.*Errors: ([0-9]+).*/\1/' <<<"$line")
	pass=$((pass + n - f - e))
	fail=$((fail + f + e))
}

step "build (warnings are errors)"
if ! build=$(contrib/build.sh "$top/_build/main" | tail -1); then
	echo "build failed"
	echo "0 passed, 1 failed"
	exit 1
fi

step "unit tests"
rm -f "$build/test/unit/check_all.log"
make -s -C "$build" check >"$build/make-check.out" 2>&1 ||
	grep -E 'error|Error' "$build/make-check.out" | head -20
count_check "$build/test/unit/check_all.log"
grep -E '^[^:]+:[0-9]+:[EF]:' "$build/test/unit/check_all.log" || true

step "unit tests under AddressSanitizer + UBSan"
san="-g -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
if asan=$(contrib/build.sh "$top/_build/asan" --without-slurm-source \
	CFLAGS="$san" LDFLAGS="-fsanitize=address,undefined" | tail -1); then
	# Check forks each test; ASan reports go to the test's log.
	rm -f "$asan/test/unit/check_all.log"
	ASAN_OPTIONS=detect_leaks=1 make -s -C "$asan" check \
		>"$asan/make-check.out" 2>&1 ||
		grep -E 'error|Error' "$asan/make-check.out" | head -20
	count_check "$asan/test/unit/check_all.log"
	if grep -q 'ERROR: AddressSanitizer\|runtime error:' "$asan/test/unit/check_all.log"; then
		grep -A5 'ERROR: AddressSanitizer\|runtime error:' "$asan/test/unit/check_all.log" | head -40
		fail=$((fail + 1))
	fi
else
	echo "sanitizer build failed"
	fail=$((fail + 1))
fi

for t in test/cluster/selftest.sh test/integration/test_*.sh; do
	step "integration: $t"
	DL_BUILD_DIR="$build" bash "$t" >"$build/$(basename "$t").log" 2>&1
	rc=$?
	cat "$build/$(basename "$t").log"
	line=$(tail -1 "$build/$(basename "$t").log")
	if [[ "$line" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
		pass=$((pass + BASH_REMATCH[1]))
		fail=$((fail + BASH_REMATCH[2]))
		[ "$rc" -ne 0 ] && [ "${BASH_REMATCH[2]}" = 0 ] && fail=$((fail + 1))
	else
		echo "$t ended early (exit $rc)"
		fail=$((fail + 1))
	fi
done

step "fuzzing the annotation parser (libFuzzer, 30 s)"
fz="$top/_build/fuzz_files"
if clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE \
	-I src/libdatalocality src/libdatalocality/files.c \
	src/libdatalocality/error.c src/libdatalocality/log.c \
	test/fuzz/fuzz_files.c -o "$fz" 2>"$top/_build/fuzz.log"; then
	rm -rf "$top/_build/fuzz-corpus"
	cp -r test/fuzz/corpus/files "$top/_build/fuzz-corpus"
	if "$fz" -max_total_time=30 -max_len=4096 "$top/_build/fuzz-corpus" \
		>>"$top/_build/fuzz.log" 2>&1; then
		pass=$((pass + 1))
		grep -E '^Done|stat::number_of_executed_units' "$top/_build/fuzz.log" | tail -1
	else
		grep -A20 'ERROR\|==ERROR' "$top/_build/fuzz.log" | head -30
		fail=$((fail + 1))
	fi
else
	tail -5 "$top/_build/fuzz.log"
	fail=$((fail + 1))
fi

if [ "${DL_SKIP_DISTCHECK:-0}" != 1 ]; then
	step "make distcheck"
	if make -s -C "$build" distcheck >"$build/distcheck.log" 2>&1; then
		pass=$((pass + 1))
		grep -E 'archives ready|\.tar\.gz' "$build/distcheck.log" | head -3
	else
		tail -40 "$build/distcheck.log"
		fail=$((fail + 1))
	fi
fi

echo
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
