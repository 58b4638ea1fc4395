#!/usr/bin/env bash
# test.sh - the whole test suite, from a fresh Debian 12 machine (root):
#   1. build with -Werror against the installed Slurm, run the Check unit
#      tests;
#   2. build the library and unit tests again under AddressSanitizer and
#      UBSan, run them (in the background once the plain unit tests
#      are done, beside the build below and then the first integration
#      tests);
#   3. integration tests (test/cluster/selftest.sh, then every
#      test/integration/test_*.sh, test_service.sh among them: nodes in
#      mount namespaces of their own with dl-cached; test_power.sh with
#      Slurm's power saving, resumed slurmds booted in time namespaces
#      (unshare --time, Linux 5.6)): real munged,
#      slurmctld and 4 slurmd started and stopped by each test, with the
#      freshly built plugins;
#      and, side by side with them, the same tests on Slurm 24.11.5
#      (Debian 13's, built from source by contrib/setup-slurm.sh into a
#      cached prefix, the plugins built against it, in the background
#      from the end of step 1 on); the time of each
#      test is printed at the end of this step, and each step's at the
#      end;
#   4. about 110 s of coverage-guided fuzzing (libFuzzer) of every parser of
#      untrusted input: 30 s for the files: annotation, 10 s each for list
#      files and burst-buffer specs, the state file, dl-sim's traces,
#      dl-stage's cache metadata, notes and configuration, libdlnet's
#      frames and message bodies, the controller's copy of a node
#      service's inventory, and 5 s each for dl-sim's --provision specs
#      and dl-submit's streams (test/fuzz);
#   5. make distcheck (skip with DL_SKIP_DISTCHECK=1), beside step 4.
# The last line is "N passed, N failed"; the exit status is 0 only if all
# passed.
# Under deliberate load (issue 29): every integration test runs beside
# DL_TEST_INTEGRATION_LOAD busy processes (default 2, as in CI; 0: none
# but the suite's own): spinning shells (busy loops), the other stream's
# test and the ASan unit tests while they run; DL_TEST_LOAD=N runs N more
# spinning shells for the whole suite.  Waits in the tests are bounded by
# DL_TIME_SCALE (test/integration/lib.sh), the unit tests' by
# CK_TIMEOUT_MULTIPLIER (test/unit/check_main.c).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
pass=0
fail=0

# The spinning shells: started here, killed by PID when done, on exit
# and on interrupt.
for v in DL_TEST_LOAD DL_TEST_INTEGRATION_LOAD; do
	[[ ${!v:-0} =~ ^[0-9]+$ ]] || { echo "$v must be a number"; exit 2; }
done
iload=${DL_TEST_INTEGRATION_LOAD:-2}
spinners=()
spin() { # N: start N more
	local i
	for ((i = 0; i < $1; i++)); do
		bash -c 'while :; do :; done' &
		spinners+=($!)
	done
}
unspin() { # N: kill the N started last
	local keep=$((${#spinners[@]} - $1))
	[ "$1" -gt 0 ] || return 0
	{ kill "${spinners[@]:keep}"; wait "${spinners[@]:keep}"; } 2>/dev/null
	spinners=("${spinners[@]:0:keep}")
}
# What runs in the background (the second stream of integration tests,
# make distcheck; below) is stopped with this script.
bg_pids=()
trap 'kill "${bg_pids[@]}" 2>/dev/null; unspin ${#spinners[@]} 2>/dev/null' EXIT
# bg_wait PID: wait for it, then forget it (its PID may be reused); its
# exit status.
bg_wait() {
	local p rc=0 keep=()
	wait "$1" || rc=$?
	for p in "${bg_pids[@]}"; do
		[ "$p" = "$1" ] || keep+=("$p")
	done
	bg_pids=("${keep[@]}")
	return "$rc"
}
trap 'exit 130' INT TERM
spin "${DL_TEST_LOAD:-0}"
[ "${DL_TEST_LOAD:-0}" -gt 0 ] &&
	echo "load: ${DL_TEST_LOAD} spinning shells for the whole suite"

# Each step's name and time, printed at the end so that a slow suite
# shows where its hour goes.
step_times=()
step_name='' step_t0=$SECONDS
step_done() {
	[ -n "$step_name" ] &&
		step_times+=("$(printf '%5d s  %s' $((SECONDS - step_t0)) "$step_name")")
	step_name='' step_t0=$SECONDS
}
step() {
	step_done
	step_name=$*
	echo; echo "=== $*"
}

# add_counts FILE WHAT LOST - adds a background job's "PASS FAIL" line in
# FILE to the totals; without one, WHAT ended early: LOST failures.
add_counts() {
	local p f
	if read -r p f 2>/dev/null <"$1" && [[ "$p $f" =~ ^[0-9]+\ [0-9]+$ ]]; then
		pass=$((pass + p))
		fail=$((fail + f))
	else
		echo "$2 ended early: counted as $3 failed"
		fail=$((fail + $3))
	fi
}

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

# Slurm 24.11.5 (Debian 13's), built from source into its own prefix
# (contrib/setup-slurm.sh; cached after the first build, which took
# 626 s on 2 loaded cores), and the plugins built against it, begun here
# in the background beside the unit tests: those run one test at a time
# on one core, and until 2026-12-02 the build waited for them and the
# integration tests for it: the suite took 71 minutes in CI on
# 2026-12-01, 53 with the build here on a 2-core machine (2026-12-02,
# the build ready 581 s after the unit tests began).  Only it
# uses apt-get from here on (the main build above installed the rest).
# Its output is printed once it is done, before the integration tests.
S2=24.11.5
s2_ready=$top/_build/slurm-$S2.ready
s2_build_out=$top/_build/slurm-$S2.build.out
rm -f "$s2_ready" "$s2_build_out"
(
	t0=$SECONDS
	s2_src=$(contrib/setup-slurm.sh "$S2" | tail -1) &&
	s2_prefix=$(contrib/setup-slurm.sh -p "$S2" 2>/dev/null | tail -1) &&
	build2=$(DL_SLURM_SOURCE="$s2_src" \
		contrib/build.sh "$top/_build/main-$S2" | tail -1) &&
	printf '%s\n%s\n' "$s2_prefix" "$build2" >"$s2_ready" &&
	echo "Slurm $S2 and the plugins for it ready in $((SECONDS - t0)) s"
) >"$s2_build_out" 2>&1 &
s2_build_pid=$!
bg_pids+=("$s2_build_pid")

step "unit tests"
rm -f "$build/test/unit/check_all.log"
make -s -C "$build" check >"$build/make-check.out" 2>&1 ||
	grep -E 'error|Error' "$build/make-check.out" | head -20
count_check "$build/test/unit/check_all.log"
grep -E '^[^:]+:[0-9]+:[EF]:' "$build/test/unit/check_all.log" || true

# The library and the unit tests built again under AddressSanitizer and
# UBSan and run, in the background from here on: beside Slurm 24.11.5's
# build, as before 2026-12-03, and then beside the first integration
# tests instead of in front of them (632 s on the critical path in a
# 53-minute suite on a 2-core machine, 2026-12-02).  While it runs it
# stands in for one of the first stream's spinning shells (stream_load()
# below), so no test has more load beside it than it was tuned for.  Its
# counts ("PASS FAIL"), time and output are in $bgdir, printed after the
# integration tests.
bgdir=$top/_build/bg
rm -rf "$bgdir"
mkdir -p "$bgdir"
touch "$bgdir/asan-running"
(
	pass=0 fail=0 t0=$SECONDS
	trap 'rm -f "$bgdir/asan-running"' EXIT
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
	echo "$((SECONDS - t0))" >"$bgdir/asan.secs"
	echo "$pass $fail" >"$bgdir/asan.counts"
) >"$bgdir/asan.out" 2>&1 &
asan_pid=$!
bg_pids+=("$asan_pid")

# integration SLURM BUILD PREFIX TESTS... - run each test against the
# plugins of BUILD on Slurm SLURM (PREFIX: DL_SLURM_PREFIX, "" = Debian's
# installed Slurm); logs in BUILD; each test's time goes to $times.  Each
# test runs beside $(stream_load) spinning shells.
times=$top/_build/test-times.txt
: >"$times"
integration() {
	local slurm=$1 b=$2 prefix=$3 t log rc line t0 n
	shift 3
	for t in "$@"; do
		step "integration (Slurm $slurm): $t"
		log=$b/$(basename "$t").log
		t0=$SECONDS
		n=$(stream_load)
		spin "$n"
		DL_BUILD_DIR="$b" DL_SLURM_PREFIX="$prefix" bash "$t" >"$log" 2>&1
		rc=$?
		unspin "$n"
		echo "$slurm $t $((SECONDS - t0)) s" >>"$times"
		cat "$log"
		# The summary is the last such line: the harness may still
		# report on stderr what it stopped after the test printed it.
		line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -1)
		if [[ "$line" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
			pass=$((pass + BASH_REMATCH[1]))
			fail=$((fail + BASH_REMATCH[2]))
			[ "$rc" -ne 0 ] && [ "${BASH_REMATCH[2]}" = 0 ] &&
				fail=$((fail + 1))
		else
			echo "$t ended early on Slurm $slurm (exit $rc)"
			fail=$((fail + 1))
		fi
	done
}

# Two streams of integration tests run side by side: Debian's Slurm in
# this shell, Slurm 24.11.5's in a background one; run one after the
# other they were 46 of the suite's 60-63 minutes (CI 2026-12-01, with 15
# tests on 24.11.5), and most of a test's time is its jobs' sleeps.  The
# load stays what a test was tuned for: while both streams run, each test
# has the other stream's test and iload/2 spinning shells beside it
# (iload - iload/2 for Debian's stream), and once the second stream is
# done the first runs beside iload shells again.  Clusters do not share
# anything (own directory, munged, ports under a lock, state).
stream2_pid=''
stream_load() {
	local n=$iload
	[ -n "$stream2_pid" ] && kill -0 "$stream2_pid" 2>/dev/null &&
		n=$((n - iload / 2))
	[ -e "$bgdir/asan-running" ] && n=$((n - 1))
	echo $((n < 0 ? 0 : n))
}

# Every integration test runs on Slurm 24.11.5 too, as on Debian's
# Slurm: the two releases differ in what the plugins touch (the
# scheduler wrapper's entry points, job_submit's job descriptor,
# hetjobs, array splitting, power saving, accounting), so nothing is
# taken for granted on one from the other.  test_arrays.sh runs without
# its side-by-side quality part there (DL_ARRAYS_SIDE_BY_SIDE=0, the
# same on any release).  Until 2026-12-01 only 15 of the 28 ran on
# 24.11.5, one after the other with 22.05's, for time; side by side, all
# of them fit.  A failure to build counts as a failure, never as a skip.
S2_TESTS="test/cluster/selftest.sh $(echo test/integration/test_*.sh)"
step "Slurm $S2: its build, begun beside the unit tests"
s2_out=$top/_build/stream-$S2.out
s2_counts=$top/_build/stream-$S2.counts
rm -f "$s2_out" "$s2_counts"
bg_wait "$s2_build_pid"
s2_rc=$?
cat "$s2_build_out"
if [ "$s2_rc" = 0 ] && { read -r s2_prefix && read -r build2; } <"$s2_ready"; then
	# Its own counts, spinners (killed on its exit) and step names; its
	# output is printed after the first stream's.
	(
		pass=0 fail=0 spinners=() step_times=() step_name=''
		trap 'unspin ${#spinners[@]} 2>/dev/null' EXIT
		trap 'exit 130' INT TERM
		stream_load() { echo $((iload / 2)); }
		# shellcheck disable=SC2086
		DL_ARRAYS_SIDE_BY_SIDE=0 integration "$S2" "$build2" "$s2_prefix" $S2_TESTS
		echo "$pass $fail" >"$s2_counts"
	) >"$s2_out" 2>&1 &
	stream2_pid=$!
	bg_pids+=("$stream2_pid")
else
	echo "Slurm $S2 or the plugins for it failed to build: its tests count as failed"
	fail=$((fail + 1 + $(wc -w <<<"$S2_TESTS")))
fi

echo
echo "integration tests run beside $iload spinning shells (DL_TEST_INTEGRATION_LOAD), shared by the two streams while both run, the ASan unit tests standing in for one while they run"
integration "$(dpkg-query -W -f='${Version}' slurmctld | sed 's/-.*//')" \
	"$build" "" test/cluster/selftest.sh test/integration/test_*.sh
if [ -n "$stream2_pid" ]; then
	step "integration (Slurm $S2), run beside the tests above"
	bg_wait "$stream2_pid"
	cat "$s2_out"
	add_counts "$s2_counts" "the Slurm $S2 stream" "$(wc -w <<<"$S2_TESTS")"
fi
step "unit tests under AddressSanitizer + UBSan, run in the background"
bg_wait "$asan_pid"
cat "$bgdir/asan.out"
add_counts "$bgdir/asan.counts" "the ASan unit tests" 1
step "integration test times (s)"
cat "$times"

# fuzz NAME SECONDS MAX_LEN SOURCES_AND_LIBS... - build test/fuzz/NAME.c
# with libFuzzer, ASan and UBSan, run it for SECONDS on a fresh copy of
# test/fuzz/corpus/FORMAT (FORMAT is NAME without "fuzz_") with the
# format's tokens from test/fuzz/FORMAT.dict, inputs of at most MAX_LEN
# bytes and 10 s each, and count one pass or one fail.  A crash leaves its
# input in _build/fuzz/NAME-crash-*.
fuzz() {
	local name=$1 secs=$2 max_len=$3 dir="$top/_build/fuzz"
	local bin="$dir/$1" log="$dir/$1.log" corpus="$dir/corpus-$1"
	local format=${1#fuzz_} tmp
	shift 3
	mkdir -p "$dir"
	if ! clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE \
		-I src/libdatalocality "test/fuzz/$name.c" "$@" -o "$bin" \
		>"$log" 2>&1; then
		echo "$name: build failed"
		tail -5 "$log"
		fail=$((fail + 1))
		return
	fi
	rm -rf "$corpus"
	cp -r "test/fuzz/corpus/$format" "$corpus"
	# Targets that need files write them under TMPDIR: tmpfs if there is
	# one, and removed here even when a crash left them behind.
	tmp=$(mktemp -d /dev/shm/dl-fuzz-step.XXXXXX 2>/dev/null ||
		mktemp -d)
	if TMPDIR="$tmp" "$bin" -max_total_time="$secs" -max_len="$max_len" \
		-timeout=10 -dict="test/fuzz/$format.dict" \
		-print_final_stats=1 -artifact_prefix="$dir/$name-" \
		"$corpus" >>"$log" 2>&1; then
		pass=$((pass + 1))
		echo "$name ($secs s):" \
			"$(grep -E '^stat::number_of_executed_units' "$log")"
	else
		fail=$((fail + 1))
		echo "$name: FAILED (log: $log)"
		grep -A20 '==ERROR\|ERROR: libFuzzer' "$log" | head -30
		grep 'Test unit written to' "$log"
	fi
	rm -rf "$tmp"
}

# make distcheck (the tarball built and its unit tests run, on one core)
# runs beside the fuzzers (one core, one after the other): about 2.5
# minutes each, together rather than in turn.
dc_pid=''
if [ "${DL_SKIP_DISTCHECK:-0}" != 1 ]; then
	make -s -C "$build" distcheck >"$build/distcheck.log" 2>&1 &
	dc_pid=$!
	bg_pids+=("$dc_pid")
fi

step "fuzzing the parsers of untrusted input (libFuzzer, 110 s; make distcheck beside it)"
lib=src/libdatalocality
stage_src=()
for f in src/stage/*.c; do
	# dl-stage's main and its client of dl-cached are not the library
	[ "$f" = src/stage/dl-stage.c ] || [ "$f" = src/stage/client.c ] ||
		stage_src+=("$f")
done
# The annotation parser of job comments, which every job goes through.
fuzz fuzz_files 30 4096 $lib/files.c $lib/error.c $lib/log.c
# Slurm's filename patterns (%a %A %j %u %x) in those paths; array indexes.
fuzz fuzz_pattern 10 4096 $lib/pattern.c $lib/files.c $lib/error.c \
	$lib/log.c
# The staging record of a job's AdminComment (slurmctld, sdatalocality).
fuzz fuzz_acct 10 4096 $lib/acct.c $lib/decimal.c $lib/error.c
# List files, burst-buffer specs, #DL directives of scripts (and sizes).
fuzz fuzz_filelist 10 16384 $lib/files.c $lib/script.c $lib/error.c \
	$lib/log.c
# The state file under StateSaveLocation: load, then save and load again.
fuzz fuzz_persist 10 8192 $lib/persist.c $lib/cache.c $lib/files.c \
	$lib/error.c $lib/log.c -lm
# dl-sim's workload files, SWF traces and their sidecars.
fuzz fuzz_workload 10 8192 -I src/sim src/sim/workload.c $lib/state.c \
	$lib/u64set.c $lib/cache.c $lib/cost.c $lib/files.c $lib/error.c \
	$lib/log.c -lgsl -lgslcblas -lm
# dl-stage: .meta files, pins and notes in a real cache, datalocality.conf.
fuzz fuzz_stage 10 8192 -I src/stage -I src/net "${stage_src[@]}" \
	src/net/sha256.c src/net/sha256_x86.c $lib/cache.c \
	$lib/files.c $lib/pattern.c $lib/error.c $lib/log.c
# libdlnet: frames and message bodies from the network (node service).
fuzz fuzz_net 10 8192 -I src/net src/net/frame.c src/net/msg.c \
	src/net/sha256.c src/net/sha256_x86.c $lib/decimal.c $lib/error.c
# The controller's copy of a node service's inventory, fed with INV and
# DELTA messages as the node channel decodes them, against a reference.
fuzz fuzz_agent_inv 10 8192 -I src/net -I src/plugins/common/agent \
	src/plugins/common/agent/agent_inv.c src/net/msg.c src/net/frame.c \
	$lib/decimal.c $lib/files.c $lib/error.c $lib/log.c
# dl-sim --provision SPEC.
fuzz fuzz_provision 5 256 -I src/sim src/sim/provision.c $lib/error.c -lm
# dl-submit's stream files and templates (with their --time values).
fuzz fuzz_stream 5 4096 -I src/submit src/submit/stream.c $lib/error.c -lm

if [ -n "$dc_pid" ]; then
	step "make distcheck (the rest of it, begun beside the fuzzers)"
	if bg_wait "$dc_pid"; then
		pass=$((pass + 1))
		grep -E 'archives ready|\.tar\.gz' "$build/distcheck.log" | head -3
	else
		tail -40 "$build/distcheck.log"
		fail=$((fail + 1))
	fi
fi

step_done
echo
echo "=== step times (the whole suite: $SECONDS s)"
printf '%s\n' "${step_times[@]}"
[ -r "$bgdir/asan.secs" ] &&
	printf '%5d s  %s\n' "$(cat "$bgdir/asan.secs")" \
		"(in the background) unit tests under AddressSanitizer + UBSan, built and run"
echo
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
