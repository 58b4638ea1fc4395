#!/usr/bin/env bash
# test.sh - the whole test suite, from a fresh Debian 12 machine (root):
#   1. build with -Werror against the installed Slurm, run the Check unit
#      tests;
#   2. build the library and unit tests again under AddressSanitizer and
#      UBSan, run them (in the background, beside the integration tests
#      of step 3, once Slurm 24.11.5 is built);
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
#      from the end of step 1 on; Debian's Slurm's tests begin beside
#      that build); the time of each
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
# but the suite's own): spinning shells (busy loops), less what the
# suite's background work keeps busy (a Slurm build, the ASan tests, the
# other release's test), and DL_TEST_LOAD=N runs N more for the whole suite.  Waits
# in the tests are bounded by DL_TIME_SCALE (test/integration/lib.sh),
# the unit tests' by CK_TIMEOUT_MULTIPLIER (test/unit/check_main.c).
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

# What runs in the background, beside the plain unit tests and the first
# stream of integration tests (Debian's Slurm, in this shell):
#   - job "s2": Slurm 24.11.5 (Debian 13's) built from source into its
#     own prefix (contrib/setup-slurm.sh, make -j on every core; cached
#     after the first build, which took 626 s on 2 loaded cores), the
#     plugins built against it, then every integration test on it (the
#     second stream).  Only it uses apt-get from here on (the main build
#     above installed the rest).  A failure to build counts as a failure
#     of every test of the stream, never as a skip.
#   - job "asan": the library and the unit tests built again under
#     AddressSanitizer and UBSan and run, once that build is done.
# Until 2026-12-03 the first stream waited for both: the suite took 53
# minutes on a 2-core machine (2026-12-02: unit tests 131 s, then the
# ASan step's 632 s, then the 22.05 stream's 35 minutes) and 64 in CI.
# Each integration test keeps the load it was tuned for ($iload busy
# processes beside it; main_load()): the build keeps every core busy,
# the ASan tests one, the second stream's test and its iload/2 spinning
# shells the rest.  Each job's state is a file in $bgdir, its output is
# printed after the first stream's and its time with the step times.
bgdir=$top/_build/bg
rm -rf "$bgdir"
mkdir -p "$bgdir"
S2=24.11.5
# Every integration test runs on Slurm 24.11.5 too, as on Debian's
# Slurm: the two releases differ in what the plugins touch (the
# scheduler wrapper's entry points, job_submit's job descriptor,
# hetjobs, array splitting, power saving, accounting), so nothing is
# taken for granted on one from the other.  test_arrays.sh runs without
# its side-by-side quality part there (DL_ARRAYS_SIDE_BY_SIDE=0, the
# same on any release).
S2_TESTS="test/cluster/selftest.sh $(echo test/integration/test_*.sh)"

# main_load - how many spinning shells the first stream's next test runs
# beside: iload less what the background jobs keep busy now.
main_load() {
	local n=$iload
	if [ -e "$bgdir/s2-building" ]; then
		n=0
	else
		[ -e "$bgdir/s2-testing" ] && n=$((n - iload / 2))
		[ -e "$bgdir/asan-running" ] && n=$((n - 1))
	fi
	echo $((n < 0 ? 0 : n))
}

# Job "s2".  Its own counts ("PASS FAIL" in s2.counts), spinners (killed
# on its exit) and step names; stream_load() is its test's share of the
# load while the first stream runs.
touch "$bgdir/s2-building"
(
	pass=0 fail=0 spinners=() step_times=() step_name=''
	trap 'rm -f "$bgdir/s2-building" "$bgdir/s2-testing"; unspin ${#spinners[@]} 2>/dev/null' EXIT
	trap 'exit 130' INT TERM
	t0=$SECONDS
	if s2_src=$(contrib/setup-slurm.sh "$S2" | tail -1) &&
	   s2_prefix=$(contrib/setup-slurm.sh -p "$S2" 2>/dev/null | tail -1) &&
	   build2=$(DL_SLURM_SOURCE="$s2_src" \
		contrib/build.sh "$top/_build/main-$S2" | tail -1); then
		echo "Slurm $S2 and the plugins for it ready in $((SECONDS - t0)) s"
		echo "$((SECONDS - t0))" >"$bgdir/s2-build.secs"
		t0=$SECONDS
		touch "$bgdir/s2-testing"
		rm -f "$bgdir/s2-building"
		stream_load() { echo $((iload / 2)); }
		# shellcheck disable=SC2086
		DL_ARRAYS_SIDE_BY_SIDE=0 integration "$S2" "$build2" "$s2_prefix" $S2_TESTS
		echo "$((SECONDS - t0))" >"$bgdir/s2-tests.secs"
	else
		echo "Slurm $S2 or the plugins for it failed to build: its tests count as failed"
		fail=$((1 + $(wc -w <<<"$S2_TESTS")))
	fi
	echo "$pass $fail" >"$bgdir/s2.counts"
) >"$bgdir/s2.out" 2>&1 &
s2_pid=$!
bg_pids+=("$s2_pid")

step "unit tests (Slurm $S2 being built beside them)"
rm -f "$build/test/unit/check_all.log"
make -s -C "$build" check >"$build/make-check.out" 2>&1 ||
	grep -E 'error|Error' "$build/make-check.out" | head -20
count_check "$build/test/unit/check_all.log"
grep -E '^[^:]+:[0-9]+:[EF]:' "$build/test/unit/check_all.log" || true

# Job "asan": waits for the 24.11.5 build to end (the three would be
# more load than any test was tuned for), then counts like the unit
# tests ("PASS FAIL" in asan.counts).
(
	pass=0 fail=0
	trap 'rm -f "$bgdir/asan-running"' EXIT
	while [ -e "$bgdir/s2-building" ]; do
		sleep 2
	done
	touch "$bgdir/asan-running"
	t0=$SECONDS
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

# bg_count NAME PID - wait for job NAME, print its output, add its
# counts (a job that ended without them counts FAIL_IF_LOST failures).
bg_count() {
	local name=$1 pid=$2 lost=$3 p f
	bg_wait "$pid"
	cat "$bgdir/$name.out"
	if read -r p f <"$bgdir/$name.counts" 2>/dev/null &&
	   [[ "$p $f" =~ ^[0-9]+\ [0-9]+$ ]]; then
		pass=$((pass + p))
		fail=$((fail + f))
	else
		echo "job $name ended early: counted as $lost failed"
		fail=$((fail + lost))
	fi
}

stream_load() { main_load; }
echo
echo "integration tests run beside $iload busy processes (DL_TEST_INTEGRATION_LOAD): spinning shells, the Slurm $S2 build, the ASan unit tests and the second stream's tests, shared by the two streams while both run"
integration "$(dpkg-query -W -f='${Version}' slurmctld | sed 's/-.*//')" \
	"$build" "" test/cluster/selftest.sh test/integration/test_*.sh
step "integration (Slurm $S2), run beside the tests above"
bg_count s2 "$s2_pid" $((1 + $(wc -w <<<"$S2_TESTS")))
step "unit tests under AddressSanitizer + UBSan, run beside the tests above"
bg_count asan "$asan_pid" 1
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
# bg_time NAME WHAT: job NAME's time, as a step's.
bg_time() {
	[ -r "$bgdir/$1.secs" ] &&
		printf '%5d s  (in the background) %s\n' "$(cat "$bgdir/$1.secs")" "$2"
}
echo
echo "=== step times (the whole suite: $SECONDS s)"
printf '%s\n' "${step_times[@]}"
bg_time s2-build "Slurm $S2 and the plugins for it built"
bg_time s2-tests "integration (Slurm $S2): every test"
bg_time asan "unit tests under AddressSanitizer + UBSan (build and run)"
echo
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
