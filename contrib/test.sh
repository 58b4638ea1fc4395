#!/usr/bin/env bash
# test.sh - the whole test suite, from a fresh Debian 12 machine (root):
#   1. build with -Werror against the installed Slurm, run the Check unit
#      tests;
#   2. build the library and unit tests again under AddressSanitizer and
#      UBSan, run them (in the background once the plain unit tests
#      are done);
#   3. integration tests (test/cluster/selftest.sh and every
#      test/integration/test_*.sh, test_service.sh among them: nodes in
#      mount namespaces of their own with dl-cached; test_power.sh with
#      Slurm's power saving, resumed slurmds booted in time namespaces
#      (unshare --time, Linux 5.6)): real munged, slurmctld and 4 slurmd
#      started and stopped by each test, with the freshly built plugins,
#      on Debian's Slurm and on Slurm 24.11.5 (Debian 13's, built from
#      source by contrib/setup-slurm.sh into a cached prefix, the plugins
#      built against it, in the background from the end of step 1 on);
#      each release's tests are a queue that three workers take from, one
#      from the end of the unit tests on, the other two once 24.11.5 is
#      built; the time of each test is printed at the end;
#   4. about 220 s of coverage-guided fuzzing (libFuzzer) of every parser
#      of untrusted input, beside the integration tests: 60 s for the
#      files: annotation, 20 s each for list files and burst-buffer specs,
#      the state file, dl-sim's traces, dl-stage's cache metadata, notes
#      and configuration, libdlnet's frames and message bodies, the
#      controller's copy of a node service's inventory, and 10 s each for
#      dl-sim's --provision specs and dl-submit's streams (test/fuzz);
#   5. make distcheck (skip with DL_SKIP_DISTCHECK=1), beside them too.
# The last line is "N passed, N failed"; the exit status is 0 only if all
# passed.
# Under deliberate load (issue 29): every integration test runs beside
# at least DL_TEST_INTEGRATION_LOAD busy processes (default 2, as in CI;
# 0: none but the suite's own): the other workers' tests, Slurm 24.11.5's
# build, the ASan unit tests, the fuzzers and make distcheck while they
# run, spinning shells (busy loops) for the rest;
# DL_TEST_LOAD=N runs N more spinning shells for the whole suite,
# DL_TEST_WORKERS=N runs N workers of integration tests (default 3).  Waits
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
# What runs in the background (the integration workers, the ASan tests,
# the fuzzers, make distcheck; below) is stopped with this script.
bg_pids=() busy_pids=()
trap 'kill "${bg_pids[@]}" 2>/dev/null; unspin ${#spinners[@]} 2>/dev/null' EXIT
# bg_wait PID: wait for it, then forget it (its PID may be reused); its
# exit status.
bg_wait() {
	local p rc=0 keep=() busy=()
	wait "$1" || rc=$?
	for p in "${bg_pids[@]}"; do
		[ "$p" = "$1" ] || keep+=("$p")
	done
	for p in "${busy_pids[@]}"; do
		[ "$p" = "$1" ] || busy+=("$p")
	done
	bg_pids=("${keep[@]}") busy_pids=("${busy[@]}")
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

# Background jobs of this script that keep a core busy: Slurm 24.11.5's
# build, the ASan unit tests, the fuzzers, make distcheck.  While
# integration tests run they are the load beside them (keep_load()).
busy_pids+=("$s2_build_pid")
# running PID: is this script's background job PID still running?  Asked
# of bash's own job table, since a PID that was waited for may be reused
# (pid_max is 32768 on Debian).
running() { jobs -rp | grep -qx "$1"; }

# bg_check NAME FUNCTION: FUNCTION (which adds to pass and fail) run in
# the background as a busy job: its output, time and "PASS FAIL" in
# $bgdir/NAME.{out,secs,counts}, printed after the integration tests; its
# PID in bg_last.
bgdir=$top/_build/bg
rm -rf "$bgdir"
mkdir -p "$bgdir"
bg_check() {
	(
		pass=0 fail=0 t0=$SECONDS
		"$2"
		echo "$((SECONDS - t0))" >"$bgdir/$1.secs"
		echo "$pass $fail" >"$bgdir/$1.counts"
	) >"$bgdir/$1.out" 2>&1 &
	bg_last=$!
	bg_pids+=("$bg_last")
	busy_pids+=("$bg_last")
}

# The library and the unit tests built again under AddressSanitizer and
# UBSan and run, in the background from here on: beside Slurm 24.11.5's
# build and then beside the first integration tests (632 s on the
# critical path in a 53-minute suite on a 2-core machine, 2026-12-02).
asan_tests() {
	local asan san="-g -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
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
}
bg_check asan asan_tests
asan_pid=$bg_last

# integration SLURM BUILD PREFIX TEST [VAR=VALUE...] - run TEST against
# the plugins of BUILD on Slurm SLURM (PREFIX: DL_SLURM_PREFIX, "" =
# Debian's installed Slurm) with the variables in its environment, add
# its counts to pass and fail; its log in BUILD, its time to $times.
times=$top/_build/test-times.txt
: >"$times"
integration() {
	local slurm=$1 b=$2 prefix=$3 t=$4 log rc line t0
	shift 4
	echo; echo "=== integration (Slurm $slurm): $t"
	log=$b/$(basename "$t").log
	t0=$SECONDS
	env "$@" DL_BUILD_DIR="$b" DL_SLURM_PREFIX="$prefix" bash "$t" \
		>"$log" 2>&1
	rc=$?
	echo "$((SECONDS - t0)) s $slurm $t" >>"$times"
	cat "$log"
	# The summary is the last such line: the harness may still report
	# on stderr what it stopped after the test printed it.
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
}

# Every integration test runs on Debian's Slurm and on Slurm 24.11.5:
# the two releases differ in what the plugins touch (the scheduler
# wrapper's entry points, job_submit's job descriptor, hetjobs, array
# splitting, power saving, accounting), so nothing is taken for granted
# on one from the other.  test_arrays.sh runs without its side-by-side
# quality part on 24.11.5 (DL_ARRAYS_SIDE_BY_SIDE=0, the same on any
# release).
#
# Each release's tests are a queue, the longest first.  DL_TEST_WORKERS
# workers (default 3) take one test at a time from them: one from the end
# of the unit tests on, with Debian's Slurm, beside Slurm 24.11.5's
# build; the others once it is built, with 24.11.5; a worker whose
# release's tests are all taken takes the other's.  Most of a test's
# time is its jobs' sleeps (test_judge.sh alone keeps 14% of 2 cores
# busy).  With one stream per release, both waiting for that build, the
# suite took 60 minutes in CI (2026-12-03), the 22.05 stream 50 of them.
# Four workers were too many for 2 cores (2026-12-03): with the ASan
# tests and a spinning shell beside them, test_judge.sh ran 2.4 times
# slower than alone and two of its checks and one of test_replica.sh's
# failed.  Clusters share nothing (own directory, munged, ports under a
# lock, state).
INTEGRATION_TESTS="test/cluster/selftest.sh $(echo test/integration/test_*.sh)"
nworkers=${DL_TEST_WORKERS:-3}
[[ $nworkers =~ ^[1-9][0-9]*$ ]] || {
	echo "DL_TEST_WORKERS must be a number >= 1"; exit 2; }
qdir=$top/_build/queues
rm -rf "$qdir"
mkdir -p "$qdir"
# queue_init NAME SLURM BUILD PREFIX [VAR=VALUE...]: the queue NAME of
# every integration test with integration()'s arguments, the tests that
# took longest in CI first (so that no worker is left with a long one at
# the end), then the rest in name order.  It exists once NAME.taken does.
queue_init() {
	local q=$qdir/$1 t first="test_arrays test_cooperation test_stress
		test_multinode test_service test_timelimit test_replica
		test_judge test_hetjob test_window test_idle"
	shift
	printf '%s\n' "$@" >"$q.params"
	{
		for t in $first; do
			t=test/integration/$t.sh
			[[ " $INTEGRATION_TESTS " == *" $t "* ]] && echo "$t"
		done
		for t in $INTEGRATION_TESTS; do
			[[ " $(echo $first) " == *" $(basename "$t" .sh) "* ]] ||
				echo "$t"
		done
	} >"$q.tests"
	echo 0 >"$q.taken"
}
# queue_next NAME...: takes the next test of the first existing queue
# NAME... that has one left and prints "NAME TEST"; fails when none has.
queue_next() {
	local n q i t
	for n; do
		q=$qdir/$n
		[ -e "$q.taken" ] || continue
		{
			flock 9
			i=$(($(cat "$q.taken") + 1))
			echo "$i" >"$q.taken"
		} 9>"$q.lock"
		t=$(sed -n "${i}p" "$q.tests")
		[ -n "$t" ] && echo "$n $t" && return 0
	done
	return 1
}
# start_worker QUEUE...: a background worker running the tests of the
# queues, QUEUE... in that order of preference, until none is left; its
# output and counts in $qdir.
workers=()
start_worker() {
	local k=${#workers[@]}
	(
		local q t args
		pass=0 fail=0
		trap 'exit 130' INT TERM
		while read -r q t < <(queue_next "$@"); do
			mapfile -t args <"$qdir/$q.params"
			integration "${args[@]:0:3}" "$t" "${args[@]:3}"
		done
		echo "$pass $fail" >"$qdir/worker$k.counts"
	) >"$qdir/worker$k.out" 2>&1 &
	workers+=($!)
	bg_pids+=($!)
	echo "worker $k: queues $* (started at $SECONDS s)"
}
# keep_load: every integration test runs beside at least iload busy
# processes: the other workers' tests (as the other stream's test did
# until 2026-12-03), the busy background jobs, then spinning shells for
# the rest (on top of DL_TEST_LOAD's, started first and kept).  Every
# running worker counts, its own too: hence iload + 1.
keep_load() {
	local n=$((iload + 1)) p
	for p in "${workers[@]}" "${busy_pids[@]}"; do
		running "$p" && n=$((n - 1))
	done
	[ "$n" -lt 0 ] && n=0
	n=$((n + ${DL_TEST_LOAD:-0} - ${#spinners[@]}))
	if [ "$n" -gt 0 ]; then spin "$n"; else unspin $((-n)); fi
}
any_running() { # PID...
	local p
	for p; do running "$p" && return 0; done
	return 1
}

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


# fuzz_all: every fuzzer in turn (fuzz() above), "PASS FAIL" and output
# in $bgdir/fuzz.*.  A fuzzer's time is wall-clock; beside the
# integration tests each gets DL_FUZZ_SCALE (default 2) times the seconds
# it had on a core of its own, when it ran after them (until 2026-12-03).
fuzz_all() {
	local lib=src/libdatalocality f k=${DL_FUZZ_SCALE:-2} stage_src=()
	for f in src/stage/*.c; do
		# dl-stage's main and its client of dl-cached are not the library
		[ "$f" = src/stage/dl-stage.c ] || [ "$f" = src/stage/client.c ] ||
			stage_src+=("$f")
	done
	# The annotation parser of job comments, which every job goes through.
	fuzz fuzz_files $((30 * k)) 4096 $lib/files.c $lib/error.c $lib/log.c
	# Slurm's filename patterns (%a %A %j %u %x) in those paths; array indexes.
	fuzz fuzz_pattern $((10 * k)) 4096 $lib/pattern.c $lib/files.c \
		$lib/error.c $lib/log.c
	# The staging record of a job's AdminComment (slurmctld, sdatalocality).
	fuzz fuzz_acct $((10 * k)) 4096 $lib/acct.c $lib/decimal.c $lib/error.c
	# List files, burst-buffer specs, #DL directives of scripts (and sizes).
	fuzz fuzz_filelist $((10 * k)) 16384 $lib/files.c $lib/script.c \
		$lib/error.c $lib/log.c
	# The state file under StateSaveLocation: load, then save and load again.
	fuzz fuzz_persist $((10 * k)) 8192 $lib/persist.c $lib/cache.c \
		$lib/files.c $lib/error.c $lib/log.c -lm
	# dl-sim's workload files, SWF traces and their sidecars.
	fuzz fuzz_workload $((10 * k)) 8192 -I src/sim src/sim/workload.c \
		$lib/state.c $lib/u64set.c $lib/cache.c $lib/cost.c $lib/files.c \
		$lib/error.c $lib/log.c -lgsl -lgslcblas -lm
	# dl-stage: .meta files, pins and notes in a real cache, datalocality.conf.
	fuzz fuzz_stage $((10 * k)) 8192 -I src/stage -I src/net \
		"${stage_src[@]}" src/net/sha256.c src/net/sha256_x86.c \
		$lib/cache.c $lib/files.c $lib/pattern.c $lib/error.c $lib/log.c
	# libdlnet: frames and message bodies from the network (node service).
	fuzz fuzz_net $((10 * k)) 8192 -I src/net src/net/frame.c src/net/msg.c \
		src/net/sha256.c src/net/sha256_x86.c $lib/decimal.c $lib/error.c
	# The controller's copy of a node service's inventory, fed with INV and
	# DELTA messages as the node channel decodes them, against a reference.
	fuzz fuzz_agent_inv $((10 * k)) 8192 -I src/net \
		-I src/plugins/common/agent \
		src/plugins/common/agent/agent_inv.c src/net/msg.c src/net/frame.c \
		$lib/decimal.c $lib/files.c $lib/error.c $lib/log.c
	# dl-sim --provision SPEC.
	fuzz fuzz_provision $((5 * k)) 256 -I src/sim src/sim/provision.c \
		$lib/error.c -lm
	# dl-submit's stream files and templates (with their --time values).
	fuzz fuzz_stream $((5 * k)) 4096 -I src/submit src/submit/stream.c \
		$lib/error.c -lm
}

# start_checks: the fuzzers and make distcheck (the tarball built and its
# unit tests run, on one core), in the background beside the integration
# tests, as part of their load, once Slurm 24.11.5's build and the ASan
# tests are done: started beside those too, everything beside the tests
# ran 1.5-2.5 times slower (one gated job was released unplaced: its
# agent cycle took twice the gate's estimate) and the fuzzers ran 3-17
# times fewer inputs than on a core of their own.  Until 2026-12-03 they
# ran after the integration tests, one beside the other, 4.5 minutes on
# the critical path.
fuzz_pid='' dc_pid=''
start_checks() {
	bg_check fuzz fuzz_all
	fuzz_pid=$bg_last
	[ "${DL_SKIP_DISTCHECK:-0}" = 1 ] && return
	make -s -C "$build" distcheck >"$build/distcheck.log" 2>&1 &
	dc_pid=$!
	bg_pids+=("$dc_pid")
	busy_pids+=("$dc_pid")
}

step "integration tests, $nworkers workers, beside $iload busy processes (DL_TEST_INTEGRATION_LOAD)"
echo "Busy processes: the other workers' tests, Slurm $S2's build, the ASan unit tests, the fuzzers and make distcheck while they run, spinning shells for the rest."
slurm1=$(dpkg-query -W -f='${Version}' slurmctld | sed 's/-.*//')
queue_init 22 "$slurm1" "$build" ""
start_worker 22 24
s2_pending=1 checks_pending=1
while :; do
	if [ -n "$s2_pending" ] && ! running "$s2_build_pid"; then
		s2_pending=''
		bg_wait "$s2_build_pid"
		s2_rc=$?
		cat "$s2_build_out"
		if [ "$s2_rc" = 0 ] && { read -r s2_prefix && read -r build2; } <"$s2_ready"; then
			queue_init 24 "$S2" "$build2" "$s2_prefix" \
				DL_ARRAYS_SIDE_BY_SIDE=0
		else
			echo "Slurm $S2 or the plugins for it failed to build: its tests count as failed"
			fail=$((fail + 1 + $(wc -w <<<"$INTEGRATION_TESTS")))
		fi
		for ((i = 1; i < nworkers; i++)); do
			start_worker 24 22
		done
	fi
	if [ -n "$checks_pending" ] && [ -z "$s2_pending" ] &&
		! running "$asan_pid"; then
		checks_pending=''
		start_checks
	fi
	keep_load
	[ -n "$s2_pending" ] || any_running "${workers[@]}" || break
	sleep 2
done
[ -n "$checks_pending" ] && start_checks
unspin $((${#spinners[@]} - ${DL_TEST_LOAD:-0}))
for ((i = 0; i < ${#workers[@]}; i++)); do
	bg_wait "${workers[i]}"
	echo; echo "=== worker $i"
	cat "$qdir/worker$i.out"
	add_counts "$qdir/worker$i.counts" "worker $i" 1
done

step "the rest of the background checks (ASan unit tests, fuzzers, make distcheck)"
bg_wait "$asan_pid"
echo "=== unit tests under AddressSanitizer + UBSan"
cat "$bgdir/asan.out"
add_counts "$bgdir/asan.counts" "the ASan unit tests" 1
bg_wait "$fuzz_pid"
echo "=== fuzzing the parsers of untrusted input (libFuzzer)"
cat "$bgdir/fuzz.out"
add_counts "$bgdir/fuzz.counts" "the fuzzers" 1
if [ -n "$dc_pid" ]; then
	echo "=== make distcheck"
	if bg_wait "$dc_pid"; then
		pass=$((pass + 1))
		grep -E 'archives ready|\.tar\.gz' "$build/distcheck.log" | head -3
	else
		tail -40 "$build/distcheck.log"
		fail=$((fail + 1))
	fi
fi
echo "=== integration test times (s)"
sort -rn "$times"

step_done
echo
echo "=== step times (the whole suite: $SECONDS s)"
printf '%s\n' "${step_times[@]}"
for w in asan fuzz; do
	[ -r "$bgdir/$w.secs" ] && printf '%5d s  (in the background) %s\n' \
		"$(cat "$bgdir/$w.secs")" "$w"
done
echo
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
