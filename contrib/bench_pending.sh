#!/usr/bin/env bash
# bench_pending.sh - what a long queue costs the controller: pending jobs
# on a local Slurm cluster (4 nodes, 1 CPU each, all four busy with a long
# job, so every other job waits for resources), under
#   sched/backfill      Slurm's default, no plugin of ours: the baseline
#   sched/datalocality  with JobSubmitPlugins=datalocality
# with the same slurm.conf otherwise (dl-stage as Prolog/Epilog/TaskProlog
# in both, SchedulerParameters SCHED_PARAMS).  The two clusters run side by
# side, so that whatever else the host does weighs on both alike: their
# queues are submitted at the same time, CPU is measured over the same
# windows, and the latency calls alternate between them.
#
# The queue grows through SIZES (20000): both queues are topped up to each
# size in turn, and at each size the script measures
#   CPU      user+system time of slurmctld and its children (the
#            partitioner helper) over REPEAT (3) windows of WINDOW s (30),
#            SETTLE s (20) after the submission, with no client talking to
#            slurmctld; the rows are printed alternated (backfill,
#            datalocality, backfill, ...), and the ratio datalocality /
#            backfill of each window with their min / median / max
#   agent    the datalocality cluster's slurmctld at SlurmctldDebug=debug
#            (scontrol setdebug) for DEBUG_WINDOW s (30), after the CPU
#            windows: the agent's cycle times (its "planning window" line,
#            the wall time of the cycle before it from its start, to the
#            ms), what that cycle waited for sched/backfill to end before
#            it began, how long it waited inside for slurmctld's locks
#            (held by Slurm's own threads), and plan times (its "plan" line): count, median,
#            p99, max; with DEBUG_RATE R > 0, R new annotated jobs a second
#            arrive at every cluster during that window (a dl-submit
#            stream: Poisson gaps, the jobs of the queue's mix), so that
#            the agent cycles as under a site's steady submissions, not only
#            when backfill's or the nodes' stamps move (a few cycles a
#            minute: too few for a p99); and Slurm's own passes over that
#            window (sdiag, reset at its start: main scheduler's and
#            sched/backfill's count, mean and max time, which is what the
#            cycles' lock waits wait for)
#   passes   the passes of slurmctld's main scheduler and of sched/backfill
#            in each CPU window (sdiag), and the ratio again with each
#            plugin row's backfill thread charged per pass at the backfill
#            row's count (how many passes a row gets is chance of phase,
#            and at 20,000 pending they are nearly all of the CPU)
#   latency  median wall time of NCALLS (11) `squeue` (full listing) and
#            NCALLS `sbatch` (alternately annotated and plain)
# and prints the targets of issue 25 (CPU <= 1.2 at the median, cycle p99
# <= 100 ms, latencies <= 1.2, plan time flat within 2x over SIZES;
# PASS/MISS, not a test).
#
# The jobs are separate submissions, PLAIN_PCT % (20) plain, the others
# annotated with 3 of the 4 images of one of (largest size)/10 patients
# (high sharing; sparse files of IMG_MIB MiB, so the plugin sees real
# sizes).  With ARRAY=1 each top-up is ONE job array instead (MaxArraySize
# raised to fit), every task reading the same 3 images of patient 1.  Each
# top-up is one dl-submit --burst per cluster (slurm_submit_batch_job() in
# a loop, one process); the submission time and rate are printed.
#
#   contrib/bench_pending.sh [BUILD_DIR]        (about 6 minutes; root)
#   SIZES="1000 10000 20000 100000" contrib/bench_pending.sh  (the issue's run, 30 min)
#   ARRAY=1 SIZES=100000 contrib/bench_pending.sh    (one 100,000-task array)
#
# Environment (defaults): SIZES (20000; NPEND is its old name), REPEAT (3),
# WINDOW (30), SETTLE (20), DEBUG_WINDOW (30, 0: no agent figures),
# DEBUG_RATE (0: no arrivals in the debug window), NCALLS
# (11, 0: no latency), ARRAY (0), PLAIN_PCT (20), IMG_MIB (4), SCHED_PARAMS
# (bf_interval=5), ROWS ("backfill datalocality"), SEED (7), PROFILE (0, or
# seconds of `perf record -g` of each slurmctld after the last size, into
# KEEP_LOGS), KEEP_LOGS (dir to copy each row's slurmctld log and
# slurm.conf into), BASE_BUILD (another build, for a row "base" in ROWS:
# sched/datalocality-base, the same cluster under that build's plugins,
# side by side with the others; its CPU is compared with backfill's and
# the datalocality row's with its).
#
# BUSY_MIN (1440): the time limit, in minutes, of the four jobs that keep
# the nodes busy.  sched/backfill's window (bf_window) is a day: with a
# day's limit, backfill can reserve the first 10-minute jobs only once ten
# minutes have passed, and from then on every pass moves Slurm's job stamp
# (last_job_update) as it sets their expected starts again.  BUSY_MIN=1420
# brings that regime to the start of the run (doc/benchmarks.md,
# 2026-11-29 and 2026-11-30).
#
# The ratios are printed again from the CPU time of slurmctld's threads
# (and its children's) to the ns (/proc/.../schedstat), not rounded to
# clock ticks; threads that ended within a window are not counted there.
#
# The CPU figures end with each row's median CPU s per minute: with one
# array pending, backfill's is a few clock ticks (CLK_TCK 100) per 30-s
# window, so a ratio to it is noise unless the windows are long
# (ARRAY=1 WINDOW=120 or more).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/_build/main}
case $build in -* | *=*) echo "usage: $0 [BUILD_DIR] (settings go in the environment)" >&2; exit 2 ;; esac
[ -x "$build/dl-stage" ] || build=$("$top/contrib/build.sh" "$build" | tail -1)
SIZES=${SIZES:-${NPEND:-20000}}
REPEAT=${REPEAT:-3}
WINDOW=${WINDOW:-30}
SETTLE=${SETTLE:-20}
DEBUG_WINDOW=${DEBUG_WINDOW:-30}
DEBUG_RATE=${DEBUG_RATE:-0}
NCALLS=${NCALLS:-11}
ARRAY=${ARRAY:-0}
PLAIN_PCT=${PLAIN_PCT:-20}
IMG_MIB=${IMG_MIB:-4}
SCHED_PARAMS=${SCHED_PARAMS-bf_interval=5}
ROWS=${ROWS:-backfill datalocality}
SEED=${SEED:-7}
PROFILE=${PROFILE:-0}
BUSY_MIN=${BUSY_MIN:-1440}
NMAX=0
for z in $SIZES; do
	if [ "$z" -le "$NMAX" ]; then
		echo "bench: SIZES must grow ($SIZES)" >&2
		exit 2
	fi
	NMAX=$z
done
# shellcheck source=../test/cluster/cluster.sh
source "$top/test/cluster/cluster.sh"
# shellcheck source=bench_lib.sh
source "$top/contrib/bench_lib.sh"
export DL_CLUSTER_QUIET=1 DL_NODES=4
work=$(mktemp -d /tmp/dl_bench.XXXXXX)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT

if [ -n "${BASE_BUILD:-}" ]; then
	bench_take_build "$BASE_BUILD" "$work/base"
	base_lib=$DL_PLUGIN_DIR base_partitiond=$DL_PARTITIOND base_stage=$stage
fi
bench_take_build "$build" "$work"

# The jobs, one line each: the files of an annotated job, or "-".
npat=$((NMAX / 10 > 0 ? NMAX / 10 : 1))
[ "$ARRAY" = 1 ] && npat=1
data=$work/storage
for p in $(seq 1 "$npat"); do
	for i in 1 2 3 4; do echo "$data/p$p/img$i"; done
done >"$work/images"
sed 's,/img[0-9]*$,,' "$work/images" | sort -u | xargs mkdir -p
xargs truncate -s "${IMG_MIB}M" <"$work/images"
chmod -R a+rX "$data"
awk -v n="$NMAX" -v np="$npat" -v plain="$PLAIN_PCT" -v seed="$SEED" -v d="$data" 'BEGIN {
	srand(seed)
	for (j = 0; j < n; j++) {
		if (rand() * 100 < plain) { print "-"; continue }
		p = int(rand() * np) + 1; f = int(rand() * 2) + 1
		printf "%s/p%d/img%d,%s/p%d/img%d,%s/p%d/img%d\n", d, p, f, d, p, f + 1, d, p, f + 2
	} }' >"$work/jobs"

# sbatch_one FILES|-: submit one job (annotated, or plain for "-").
# (Three tries: a busy slurmctld may time a submission out.)
sbatch_one() {
	local try
	for try in 1 2 3; do
		[ "$try" = 1 ] || sleep 1
		if [ "$1" = - ]; then
			sbatch -Q -o /dev/null -t 10 --wrap 'sleep 1' && return 0
		else
			# shellcheck disable=SC2016
			sbatch -Q -o /dev/null -t 10 --comment="files:$1" \
				--wrap 'cat $DL_CACHE_VIEW/* >/dev/null; sleep 1' && return 0
		fi
	done
	echo "bench: sbatch failed 3 times" >&2
}

# CPU ticks of slurmctld, its live descendants and its reaped children.
ctld_ticks() {
	{ cat /proc/[0-9]*/stat 2>/dev/null || true; } | awk -v root="$1" '
		{ p = $1; s = $0; sub(/.*\) /, "", s); split(s, a, " ")
		  # a[1] state, a[2] ppid, a[12..15] utime stime cutime cstime
		  pp[p] = a[2]; t[p] = a[12] + a[13]; c[p] = a[14] + a[15] }
		END {
			in_tree[root] = 1
			do { more = 0
				for (p in pp) if (!(p in in_tree) && (pp[p] in in_tree)) { in_tree[p] = 1; more = 1 }
			} while (more)
			for (p in in_tree) sum += t[p]
			print sum + c[root] }'
}

awk '$0 != "-" { print; exit }' "$work/jobs" >"$work/jobs.a"
# ms CMD...: wall time of CMD in ms.
ms() {
	local t=$EPOCHREALTIME
	"$@" >/dev/null
	awk -v a="$t" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f\n", (b - a) * 1000 }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# stats: "count median p99 max" of the numbers on stdin ("0 - - -": none),
# to the microsecond.
stats() {
	sort -n | awk '{ v[NR] = $1 }
		END { if (!NR) { print "0 - - -"; exit }
			k = int(NR * 0.99 + 0.999999); if (k > NR) k = NR
			printf "%d %.3f %.3f %.3f\n", NR, v[int((NR + 1) / 2)], v[k], v[NR] }'
}

# up NAME SCHED PARAMS JOB_SUBMIT: start a cluster, fill its nodes with
# four long jobs; its directory goes into $work/clusters.
up() {
	local k
	export DL_SCHED_TYPE=$2 DL_SCHED_PARAMS=$3 DL_JOB_SUBMIT=$4
	export DL_PROLOG="$stage" DL_EPILOG="$stage"
	export DL_CLUSTER_EXTRA_CONF="TaskProlog=$stage
MaxJobCount=$((NMAX * 2 + 1000))
MaxArraySize=$((NMAX + 1))"
	dl_cluster_init
	echo "$1|$DL_CLUSTER_DIR" >>"$work/clusters"
	# A ServicePort of its own (the default, 6830, is one for all the
	# clusters of this host: the others' agents would retry it every 8 s).
	cat >"$DL_CLUSTER_DIR/etc/datalocality.conf" <<-EOF
		CacheDir=$DL_CLUSTER_DIR/cache/%n
		CacheCapacity=48M
		ServicePort=$(dl_cluster_service_port)
	EOF
	dl_cluster_start
	cp "$DL_CLUSTER_DIR/run/harness.pids" "$work/pids.${DL_CLUSTER_DIR##*/}"
	for k in 1 2 3 4; do
		sbatch -Q -o /dev/null -t "$BUSY_MIN" --exclusive --wrap 'sleep 86400' >/dev/null
	done
	dl_cluster_wait_nodes allocated 60
}

# quick_stop DIR: cancel the cluster's running jobs, then shut slurmctld
# down, so that dl_cluster_stop does not cancel the whole queue one
# squeue/scancel at a time (minutes at 100,000 jobs).
quick_stop() {
	local conf=$1/etc/slurm.conf pidf=$1/run/slurmctld.pid p i run part
	[ -f "$conf" ] && [ -f "$pidf" ] || return 0
	p=$(cat "$pidf")
	# No pending job may start when the long ones go.
	for part in $(SLURM_CONF=$conf timeout 30 sinfo -h -o %R 2>/dev/null | sort -u); do
		SLURM_CONF=$conf timeout 30 scontrol update partitionname="$part" state=down >/dev/null 2>&1 || true
	done
	run=$(SLURM_CONF=$conf timeout 30 squeue -h -t R,CG -o %i 2>/dev/null || true)
	# shellcheck disable=SC2086
	[ -z "$run" ] || SLURM_CONF=$conf timeout 30 scancel $run >/dev/null 2>&1 || true
	for i in $(seq 1 50); do
		run=$(SLURM_CONF=$conf timeout 30 squeue -h -t R,CG -o %i 2>/dev/null || true)
		[ -z "$run" ] && break
		sleep 0.2
	done
	SLURM_CONF=$conf timeout 30 scontrol shutdown slurmctld >/dev/null 2>&1 || return 0
	for i in $(seq 1 600); do
		kill -0 "$p" 2>/dev/null || break
		sleep 0.1
	done
}

# stop_all: stop every cluster started (the EXIT trap).  Other processes
# on this host may remove /tmp/dl_cluster.* under a running cluster: the
# list of its daemons is put back so that dl_cluster_stop finds them.
stop_all() {
	local name dir pids
	[ -f "$work/clusters" ] || return 0
	while IFS='|' read -r name dir; do
		if [ -n "${KEEP_LOGS:-}" ] && [ -f "$dir/log/slurmctld.log" ]; then
			mkdir -p "$KEEP_LOGS/$name"
			cp "$dir/log/slurmctld.log" "$dir/etc/slurm.conf" "$KEEP_LOGS/$name/" || true
		fi
		quick_stop "$dir"
		pids=$work/pids.${dir##*/}
		if [ -s "$pids" ] && [ ! -f "$dir/run/harness.pids" ]; then
			mkdir -p "$dir/run"
			cp "$pids" "$dir/run/harness.pids"
		fi
		DL_CLUSTER_DIR=$dir dl_cluster_stop
	done <"$work/clusters"
	rm -f "$work/clusters"
}
trap 'stop_all; rm -rf "$work"' EXIT

# stream FROM TO: jobs FROM+1..TO as a dl-submit stream (doc/dl-submit.1),
# the same jobs as sbatch_one's; with ARRAY=1 one array of TO-FROM tasks.
stream() {
	if [ "$ARRAY" = 1 ]; then
		# shellcheck disable=SC2016
		printf '0 --output=/dev/null --time=10 --array=0-%d --comment=files:%s --wrap=cat $DL_CACHE_VIEW/* >/dev/null; sleep 1\n' \
			$(($2 - $1 - 1)) "$data/p1/img1,$data/p1/img2,$data/p1/img3"
		return
	fi
	# shellcheck disable=SC2016
	sed -n "$(($1 + 1)),$2p" "$work/jobs" |
		awk '{ if ($0 == "-") print "0 --output=/dev/null --time=10 --wrap=sleep 1"
		else print "0 --output=/dev/null --time=10 --comment=files:" $0 " --wrap=cat $DL_CACHE_VIEW/* >/dev/null; sleep 1" }'
}

# submit_all DIR I STREAM: one dl-submit --burst of STREAM; prints the
# seconds, its summary into $work/submit.I.log.
submit_all() {
	local t0=$EPOCHREALTIME
	export SLURM_CONF=$1/etc/slurm.conf
	bench_submit "$work/submit.$2" --burst "$3" || true
	[ "$bench_verdict" = - ] ||
		echo "bench: cluster $1: dl-submit: $bench_verdict" >&2
	awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f\n", b - a }'
}

# pending I: pending jobs of cluster I, array tasks one by one.
pending() {
	SLURM_CONF=${dirs[$1]}/etc/slurm.conf squeue -h -r -t PD -o %i | wc -l
}

# ctld_ns PID: "thread ns name" of every live thread of slurmctld PID and
# of its children (the partitioner helper): CPU time to the ns
# (schedstat), where ticks count a hundredth of a second, a few per window
# with one array; name is the thread's (comm: "bckfl" is sched/backfill's
# thread, "dl_agent" the agent's).
ctld_ns() {
	local kids t
	kids=$(cat /proc/"$1"/task/*/children 2>/dev/null || true)
	for t in /proc/"$1"/task/* $(for k in $kids; do echo /proc/"$k"/task/*; done); do
		echo "$t $(cut -d' ' -f1 "$t/schedstat" 2>/dev/null) $(cat "$t/comm" 2>/dev/null)"
	done 2>/dev/null | awk 'NF == 3' || true
}

# ns_s BEFORE AFTER: CPU s between two ctld_ns readings, of the threads
# alive at the second (a thread that ended in between is not counted).
ns_s() {
	awk 'NR == FNR { a[$1] = $2; next } { s += $2 - ($1 in a ? a[$1] : 0) }
		END { printf "%.4f\n", s / 1e9 }' "$1" "$2"
}

# ns_names BEFORE AFTER PREFIX: the same per thread name, a line "PREFIX
# NAME CPU_S" each: which thread makes a difference between two rows.
ns_names() {
	awk -v p="$3" 'NR == FNR { a[$1] = $2; next } { s[$3] += $2 - ($1 in a ? a[$1] : 0) }
		END { for (k in s) printf "%s %s %.6f\n", p, k, s[k] / 1e9 }' "$1" "$2"
}

# slurm_passes I: "MAIN_N MAIN_MEAN_MS MAIN_MAX_MS BF_N BF_MEAN_MS
# BF_MAX_MS" of cluster I since its statistics were last reset (sdiag -r):
# the passes of slurmctld's main scheduler and of sched/backfill and how
# long each ran (sched/backfill's without its yields' sleeps), which is
# how long each held slurmctld's job write lock at most.
slurm_passes() {
	SLURM_CONF=${dirs[$1]}/etc/slurm.conf sdiag 2>/dev/null | awk '
		/^Main schedule statistics/ { s = 1 }
		/^Backfilling stats/ { s = 2 }
		s && /Total cycles:/ { n[s] = $3 }
		s && /Mean cycle:/ { mean[s] = $3 / 1000 }
		s && /Max cycle:/ { max[s] = $3 / 1000 }
		END { printf "%d %.1f %.1f %d %.1f %.1f\n", n[1], mean[1], max[1], n[2], mean[2], max[2] }'
}

# passes I: "MAIN BACKFILL" of cluster I, the passes slurmctld's main
# scheduler and sched/backfill have made since it started or since the
# last debug window reset them (slurm_passes; a window's count is a
# difference within it): backfill skips a pass when no job, node,
# partition or reservation changed since its last one, so a row whose
# backfill thread costs more may simply run more passes.
passes() {
	slurm_passes "$1" | awk '{ print $1, $4 }'
}

# cpu_windows SIZE: REPEAT windows, every cluster over the same one; one
# line "SIZE ROUND NAME CPU_S" per cluster and window into $work/cpu, the
# same from the threads' ns into $work/cpuns.
cpu_windows() {
	local r i
	for r in $(seq 1 "$REPEAT"); do
		for i in $(seq 0 $((n - 1))); do
			ps0[i]=$(passes "$i")
		done
		for i in $(seq 0 $((n - 1))); do
			tk0[i]=$(ctld_ticks "${pid[i]}")
			ctld_ns "${pid[i]}" >"$work/ns0.$i"
		done
		sleep "$WINDOW"
		for i in $(seq 0 $((n - 1))); do
			tk1[i]=$(ctld_ticks "${pid[i]}")
			ctld_ns "${pid[i]}" >"$work/ns1.$i"
			awk -v z="$1" -v r="$r" -v n="${names[i]}" -v a="${tk0[i]}" -v b="${tk1[i]}" \
				-v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%d %d %s %.2f\n", z, r, n, (b - a) / hz }' \
				>>"$work/cpu"
			echo "$1 $r ${names[i]} $(ns_s "$work/ns0.$i" "$work/ns1.$i")" >>"$work/cpuns"
			ns_names "$work/ns0.$i" "$work/ns1.$i" "$1 $r ${names[i]}" >>"$work/cputhr"
		done
		for i in $(seq 0 $((n - 1))); do
			echo "$1 $r ${names[i]} ${ps0[i]} $(passes "$i")" >>"$work/passes"
		done
	done
}

# agent_figures SIZE: the agent's cycle and plan times at debug level over
# DEBUG_WINDOW s, from the datalocality cluster's log; into $work/agent.
agent_figures() {
	local i log out ag
	local -a off
	# The datalocality row and the base row (BASE_BUILD) over the same window.
	for i in $(seq 0 $((n - 1))); do
		case ${names[i]} in sched/datalocality*) ;; *) continue ;; esac
		off[i]=$(stat -c %s "${dirs[i]}/log/slurmctld.log")
		SLURM_CONF=${dirs[i]}/etc/slurm.conf scontrol setdebug debug
		# Slurm's own passes over the same window (slurm_passes).
		SLURM_CONF=${dirs[i]}/etc/slurm.conf sdiag -r >/dev/null 2>&1 || true
	done
	if awk -v r="$DEBUG_RATE" 'BEGIN { exit !(r + 0 > 0) }'; then
		arrivals "$1"
	else
		sleep "$DEBUG_WINDOW"
	fi
	for i in $(seq 0 $((n - 1))); do
		case ${names[i]} in sched/datalocality*) ;; *) continue ;; esac
		SLURM_CONF=${dirs[i]}/etc/slurm.conf scontrol setdebug info
		log=${dirs[i]}/log/slurmctld.log
		out=$1; ag=$work/agent
		[ "${names[i]}" = sched/datalocality ] || { out=$1.base; ag=$work/agent.base; }
		tail -c +"$((off[i] + 1))" "$log" >"$work/debug.$out"
		# Kept: the agent's debug lines, cycle by cycle.
		if [ -n "${KEEP_LOGS:-}" ]; then
			mkdir -p "$KEEP_LOGS"
			cp "$work/debug.$out" "$KEEP_LOGS/agent-debug.$out.log" || true
		fi
		agent_stats "$1" "$out" >>"$ag"
		echo "$1 ${names[i]} $(slurm_passes "$i")" >>"$work/slurmpasses"
	done
}

# arrivals SIZE: DEBUG_RATE jobs a second at every cluster for
# DEBUG_WINDOW s (dl-submit streams, all started together, Poisson gaps of
# the same seed), the annotated lines of the queue's mix; their verdicts
# and rates into $work/arrivals.
arrivals() {
	local i pids=()
	awk -v r="$DEBUG_RATE" -v w="$DEBUG_WINDOW" -v seed="$SEED$1" '
		$0 != "-" { f[++k] = $0 }
		END { srand(seed); t = 0
			while (k) { printf "%.3f --output=/dev/null --time=10 --comment=files:%s --wrap=cat $DL_CACHE_VIEW/* >/dev/null; sleep 1\n", t, f[int(rand() * k) + 1]
				t += -log(1 - rand()) / r; if (t >= w) break } }' \
		"$work/jobs" >"$work/arrive.$1"
	for i in $(seq 0 $((n - 1))); do
		(export SLURM_CONF=${dirs[i]}/etc/slurm.conf
		 bench_submit "$work/arrive.$1.$i" "$work/arrive.$1"
		 echo "$1 ${names[i]} $(wc -l <"$work/arrive.$1.$i.ids") ${bench_verdict:-?} ${bench_rates:-}" \
			>>"$work/arrivals") &
		pids+=($!)
	done
	sleep "$DEBUG_WINDOW"
	wait "${pids[@]}" || true
}

# agent_stats SIZE TAG: the figures of $work/debug.TAG, one line.
agent_stats() {
	set -- "$2" "$1"
	{
		# The line gives the cycle before it, in s to the ms.
		sed -n 's/.*: planning window .* cycle \([0-9.]*\) s$/\1/p' "$work/debug.$1" |
			awk '{ print $1 * 1000 }' | stats >"$work/cyc.$1"
		# Its waits for slurmctld's locks, and the cycle without them.
		# (a build before 2026-11-29 has no "cpu" field: no cpu figures)
		sed -n 's/.*: planning window .* locks \([0-9.]*\) s, \(cpu [0-9.]* s, \)\{0,1\}cycle \([0-9.]*\) s$/\1 \3/p' "$work/debug.$1" \
			>"$work/lk.$1"
		awk '{ print $1 * 1000 }' "$work/lk.$1" | stats >"$work/locks.$1"
		awk '{ print ($2 - $1) * 1000 }' "$work/lk.$1" | stats >"$work/own.$1"
		# The agent thread's CPU time in the cycle: its own cost, apart
		# from waiting for a CPU on a loaded host.
		sed -n 's/.*: planning window .* cpu \([0-9.]*\) s, cycle [0-9.]* s$/\1/p' "$work/debug.$1" |
			awk '{ print $1 * 1000 }' | stats >"$work/cpu.$1"
		sed -n 's/.*: plan [^:]*: \([0-9]*\) jobs, .*, \([0-9.]*\) ms$/\2/p' "$work/debug.$1" |
			stats >"$work/plan.$1"
		sed -n 's/.*: plan [^:]*: \([0-9]*\) jobs, .*/\1/p' "$work/debug.$1" | median >"$work/planjobs.$1"
		sed -n 's/.*: snapshot of [0-9]* jobs: .*, \([0-9.]*\) ms$/\1/p' "$work/debug.$1" |
			stats >"$work/snap.$1"
		sed -n 's/.*planning window \([0-9]*\) per partition: \([0-9]*\) of \([0-9]*\) queued.*/\2 of \3/p' \
			"$work/debug.$1" | tail -1 >"$work/inwin.$1"
		# What a due cycle waited for sched/backfill to end, before it.
		sed -n 's/.*: planning window .* waited \([0-9.]*\) s for backfill, .*/\1/p' "$work/debug.$1" |
			awk '{ print $1 * 1000 }' | stats >"$work/wait.$1"
		echo "$2 $(cat "$work/cyc.$1") $(cat "$work/plan.$1") $(cat "$work/planjobs.$1") $(cat "$work/snap.$1") $(cat "$work/inwin.$1") $(cat "$work/wait.$1") $(cat "$work/locks.$1") $(cat "$work/own.$1") $(cat "$work/cpu.$1")"
	}
}

# latency SIZE: NCALLS squeue and sbatch calls, alternated between the
# clusters; the medians into $work/lat.
latency() {
	local c i f
	for i in $(seq 0 $((n - 1))); do : >"$work/squeue.$i"; : >"$work/sbatch.$i"; done
	for c in $(seq 1 "$NCALLS"); do
		for i in $(seq 0 $((n - 1))); do
			SLURM_CONF=${dirs[i]}/etc/slurm.conf ms squeue >>"$work/squeue.$i"
		done
	done
	for c in $(seq 1 "$NCALLS"); do
		if [ $((c % 2)) = 0 ]; then f=-; else f=$(cat "$work/jobs.a"); fi
		for i in $(seq 0 $((n - 1))); do
			SLURM_CONF=${dirs[i]}/etc/slurm.conf ms sbatch_one "$f" >>"$work/sbatch.$i"
		done
	done
	for i in $(seq 0 $((n - 1))); do
		echo "$1 ${names[i]} $(median <"$work/squeue.$i") $(median <"$work/sbatch.$i")" >>"$work/lat"
	done
}

# state SIZE: per cluster, what it holds after the measurements.
state() {
	local i nreq rss
	for i in $(seq 0 $((n - 1))); do
		# Jobs the plugin gave a node (set while they wait).
		nreq=$(SLURM_CONF=${dirs[i]}/etc/slurm.conf squeue -h -r -t PD -o '%n' | grep -vc '^$' || true)
		rss=$(awk '/^VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/${pid[i]}/status")
		echo "$1 ${names[i]} ${npd[i]} $nreq $(cat "$work/sub.$i") $rss" >>"$work/state"
	done
}

echo "cluster: 4 nodes x 1 CPU, all busy ($BUSY_MIN-minute jobs); $(nproc) CPUs on this host; SchedulerParameters=batch_sched_delay=0${SCHED_PARAMS:+,$SCHED_PARAMS}"
echo "sched/datalocality: $dl_design design${dl_params:+, SchedulerParameters=batch_sched_delay=0,$dl_params}, JobSubmitPlugins=datalocality"
if [ "$ARRAY" = 1 ]; then
	echo "queue: grown to $SIZES pending jobs, each step ONE job array (every task reading the same 3 images, $IMG_MIB MiB); one dl-submit --burst per cluster"
else
	echo "queue: grown to $SIZES separate pending jobs, $PLAIN_PCT% plain, the others reading 3 of 4 images ($IMG_MIB MiB) of one of $npat patients; one dl-submit --burst per cluster and step (slurm_submit_batch_job() in a loop)"
fi
echo "CPU: $REPEAT windows of $WINDOW s each (after $SETTLE s), no clients; agent: ${DEBUG_WINDOW} s at debug level$(awk -v r="$DEBUG_RATE" 'BEGIN { if (r + 0 > 0) printf ", %s new annotated jobs/s arriving", r }'); latency: median of $NCALLS calls"
start=$SECONDS
# All clusters run side by side, so that whatever else this host does
# weighs on every row alike.
: >"$work/clusters"
for row in $ROWS; do
	case $row in
	backfill) (up "sched/backfill" sched/backfill "$SCHED_PARAMS" "") ;;
	datalocality) (up "sched/datalocality" sched/datalocality "$dl_params" datalocality) ;;
	base)
		[ -n "${BASE_BUILD:-}" ] || { echo "bench: row base needs BASE_BUILD" >&2; exit 2; }
		(export DL_PLUGIN_DIR=$base_lib DL_PARTITIOND=$base_partitiond
		 stage=$base_stage
		 up "sched/datalocality-base" sched/datalocality "$dl_params" datalocality) ;;
	*) echo "bench: unknown row $row" >&2; exit 2 ;;
	esac
done
mapfile -t names < <(cut -d'|' -f1 "$work/clusters")
mapfile -t dirs < <(cut -d'|' -f2 "$work/clusters")
n=${#dirs[@]}
for i in $(seq 0 $((n - 1))); do pid[i]=$(cat "${dirs[i]}/run/slurmctld.pid"); done
: >"$work/cpu"; : >"$work/cpuns"; : >"$work/agent"; : >"$work/lat"; : >"$work/state"; : >"$work/arrivals"
prev=0
for z in $SIZES; do
	stream "$prev" "$z" >"$work/stream.$z"
	for i in $(seq 0 $((n - 1))); do
		submit_all "${dirs[i]}" "$i" "$work/stream.$z" >"$work/sub.$i" &
	done
	wait
	prev=$z
	sleep "$SETTLE"
	for i in $(seq 0 $((n - 1))); do npd[i]=$(pending "$i"); done
	cpu_windows "$z"
	[ "$DEBUG_WINDOW" -gt 0 ] && agent_figures "$z"
	state "$z"
	[ "$NCALLS" -gt 0 ] && latency "$z"
	echo "size $z measured at $((SECONDS - start)) s" >&2
done
if [ "$PROFILE" -gt 0 ] && [ -n "${KEEP_LOGS:-}" ]; then
	for i in $(seq 0 $((n - 1))); do
		mkdir -p "$KEEP_LOGS/${names[i]}"
		perf record -q -g -o "$KEEP_LOGS/${names[i]}/perf.data" -p "${pid[i]}" \
			-- sleep "$PROFILE" >/dev/null 2>&1 || echo "bench: perf record failed" >&2
	done
fi
for d in "${dirs[@]}"; do
	if [ ! -f "$d/etc/slurm.conf" ]; then
		echo "bench: $d was removed while the cluster ran" >&2
		exit 1
	fi
done

echo
echo "slurmctld CPU s per window (rows alternated, every cluster over the same window):"
printf '%9s %6s  %-20s %8s\n' pending window row "CPU s"
awk '{ printf "%9d %6d  %-20s %8.2f\n", $1, $2, $3, $4 }' "$work/cpu"
echo
echo "queue and submission (after the CPU windows):"
printf '%9s  %-20s %9s %11s %14s %8s\n' size row pending "given node" submission "RSS MiB"
awk '{ printf "%9d  %-20s %9d %11d %8d s %4d/s %8d\n", $1, $2, $3, $4, $5, ($1 - p[$2]) / ($5 > 0 ? $5 : 1), $6; p[$2] = $1 }' "$work/state"
if [ -s "$work/lat" ]; then
	echo
	echo "latency, median ms:"
	printf '%9s  %-20s %10s %10s\n' size row squeue sbatch
	awk '{ printf "%9d  %-20s %10.1f %10.1f\n", $1, $2, $3, $4 }' "$work/lat"
fi
if [ -s "$work/agent" ]; then
	echo
	echo "sched/datalocality's agent at debug level ($DEBUG_WINDOW s), ms (count median p99 max): cycle (wall time"
	echo "from its start, slurmctld's lock waits included), plan (the policy), snapshot (the walk of every job, under"
	echo "the read locks), wait (before a due cycle, for sched/backfill to end; the submit gate counts it)"
	printf '%9s  %-32s %-32s %9s  %-32s %-14s %s\n' pending cycle plan "plan jobs" snapshot "in window" wait
	awk '{ printf "%9d  %5d %8s %8s %8s   %5d %8s %8s %8s   %9s  %5d %8s %8s %8s   %-14s %5d %8s %8s %8s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15 " " $16 " " $17, $18, $19, $20, $21 }' "$work/agent"
	if [ -s "$work/arrivals" ]; then
		echo "arrivals in the debug window (size, row, jobs submitted, dl-submit's verdict and rates):"
		sed 's/^/  /' "$work/arrivals"
	fi
	echo "the same cycles split: locks (the cycle's waits for slurmctld's locks, held by Slurm's own threads), own (cycle - locks),"
	echo "cpu (the agent thread's CPU time in the cycle: own minus waiting for a CPU on a loaded host)"
	printf '%9s  %-32s %-32s %-32s\n' pending locks own cpu
	awk 'NF >= 29 { printf "%9d  %5d %8s %8s %8s   %5d %8s %8s %8s   %5s %8s %8s %8s\n", $1, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33 }' "$work/agent"
fi
if [ -s "$work/slurmpasses" ]; then
	echo "Slurm's own passes over the same debug window (sdiag, reset at its start): how many, and how long each held"
	echo "slurmctld's job write lock (sched/backfill's without its yields' sleeps), ms: what the cycles' lock waits wait for"
	printf '%9s  %-24s %-26s %-26s\n' pending row "main: passes mean max" "backfill: passes mean max"
	awk '{ printf "%9d  %-24s %8d %8s %8s %8d %8s %8s\n", $1, $2, $3, $4, $5, $6, $7, $8 }' "$work/slurmpasses"
fi
if [ -s "$work/agent.base" ]; then
	echo "sched/datalocality-base's agent over the same debug window: cycle, plan, snapshot; locks, own (as above)"
	awk '{ printf "%9d  %5d %8s %8s %8s   %5d %8s %8s %8s   %5d %8s %8s %8s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $11, $12, $13, $14 }' "$work/agent.base"
	awk 'NF >= 29 { printf "%9d  %5d %8s %8s %8s   %5d %8s %8s %8s   %5s %8s %8s %8s\n", $1, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33 }' "$work/agent.base"
fi
echo
echo "targets (issue 25; sched/datalocality / sched/backfill, this run; PASS/MISS, not a test):"
# awk functions of both summaries: a line "SIZE ROUND ROW CPU_S" read into
# c[]; ratio Z A B LABEL NOTE: A / B per window (both present), median min
# max.
ratio_awk='
	{ c[$1, $2, $3] = $4; rows[$3] = 1; if (!($1 in seen)) { seen[$1] = 1; zs[++nz] = $1 }; if ($2 > nr) nr = $2 }
	function ratio(z, a, b, label, note,   r, k, x, q, u) {
		k = 0
		for (r = 1; r <= nr; r++) {
			x = c[z, r, a]; q = c[z, r, b]
			if (x == "" || q == "") continue
			u[++k] = q > 0 ? x / q : 99
		}
		if (!k) return
		sortn(u, k)
		printf "  %-26s at %6d   %5.2f (min %.2f, max %.2f over %d windows%s)\n", label, z, u[int((k + 1) / 2)], u[1], u[k], k, note
	}
	function sortn(a, k,   i, j, t) { for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t } }'
awk -v ref="$work/agent" -v lat="$work/lat" -v win="$WINDOW" "$ratio_awk"'
	END {
		for (q = 1; q <= nz; q++) {
			z = zs[q]; k = 0
			for (r = 1; r <= nr; r++) {
				b = c[z, r, "sched/backfill"]; d = c[z, r, "sched/datalocality"]
				if (b == "" || d == "") continue
				v[++k] = b > 0 ? d / b : 99
			}
			if (!k) continue
			sortn(v, k)
			m = v[int((k + 1) / 2)]
			printf "  slurmctld CPU at %6d   %5.2f (min %.2f, max %.2f over %d windows)  (<= 1.2)  %s\n",
				z, m, v[1], v[k], k, (m <= 1.2 ? "PASS" : "MISS")
			ratio(z, "sched/datalocality-base", "sched/backfill", "base / backfill", "")
			ratio(z, "sched/datalocality", "sched/datalocality-base", "datalocality / base", "")
			for (row in rows) {
				k = 0
				for (r = 1; r <= nr; r++) if (c[z, r, row] != "") w[++k] = c[z, r, row] * 60 / win
				if (!k) continue
				sortn(w, k)
				printf "    %-24s CPU s per minute at %6d: median %.3f (min %.3f, max %.3f)\n", row, z, w[int((k + 1) / 2)], w[1], w[k]
			}
		}
		while ((getline line < ref) > 0) {
			split(line, a, " ")
			if (a[2] > 0)
				printf "  agent cycle p99 at %6d  %5s ms (%d cycles)  (<= 100 ms)  %s\n", a[1], a[4], a[2], (a[4] + 0 <= 100 ? "PASS" : "MISS")
			if (a[6] > 0) { pz[++np] = a[1]; pm[np] = a[7] }
			if (a[11] > 0)
				printf "  snapshot p99 at %6d     %5s ms (%d cycles; part of the cycle)\n", a[1], a[13], a[11]
			if (a[26] > 0)
				printf "  agent cycle p99 without lock waits at %6d  %5s ms; lock waits p99 %s ms\n", a[1], a[28], a[24]
			if (a[30] > 0)
				printf "  agent cycle CPU p99 at %6d  %5s ms, median %s ms (the agent thread'"'"'s CPU time in a cycle)\n", a[1], a[32], a[31]
			if (a[18] > 0)
				printf "  wait for backfill p99 at %6d  %5s ms, max %s ms (before the cycle)\n", a[1], a[20], a[21]
		}
		if (np > 1) {
			lo = hi = pm[1]
			for (i = 2; i <= np; i++) { if (pm[i] < lo) lo = pm[i]; if (pm[i] > hi) hi = pm[i] }
			printf "  plan time median from %d to %d pending: %s to %s ms, max/min %.2f  (<= 2)  %s\n",
				pz[1], pz[np], pm[1], pm[np], (lo > 0 ? hi / lo : 99), (lo > 0 && hi / lo <= 2 ? "PASS" : "MISS")
		}
		while ((getline line < lat) > 0) {
			split(line, a, " ")
			if (a[2] == "sched/backfill") { sq[a[1]] = a[3]; sb[a[1]] = a[4] }
			else if (a[2] == "sched/datalocality") { dq[a[1]] = a[3]; db[a[1]] = a[4] }
		}
		for (z in sq) if (z in dq && sq[z] > 0 && sb[z] > 0)
			printf "  squeue / sbatch latency at %6d  %.2f / %.2f  (<= 1.2)  %s\n", z, dq[z] / sq[z], db[z] / sb[z],
				(dq[z] / sq[z] <= 1.2 && db[z] / sb[z] <= 1.2 ? "PASS" : "MISS")
	}' "$work/cpu"
# The same ratios from the threads' CPU to the ns: not rounded to ticks.
awk "$ratio_awk"'
	END { for (q = 1; q <= nz; q++) {
		ratio(zs[q], "sched/datalocality", "sched/backfill", "datalocality / backfill", "; threads to the ns")
		ratio(zs[q], "sched/datalocality-base", "sched/backfill", "base / backfill", "; threads to the ns")
		ratio(zs[q], "sched/datalocality", "sched/datalocality-base", "datalocality / base", "; threads to the ns") } }' "$work/cpuns"
# Per thread name, CPU ms per minute (median over the windows): where a
# difference between the rows is.
echo "  CPU ms per minute by thread (median over the windows; threads to the ns):"
awk -v win="$WINDOW" '{ k = $1 SUBSEP $3 SUBSEP $4; v[k, ++n[k]] = $5 * 60000 / win; key[k] = 1; rows[$3] = 1; nm[$4] = 1; z[$1] = 1 }
	function med(k,   i, j, t, m, a) { m = n[k]; for (i = 1; i <= m; i++) a[i] = v[k, i]
		for (i = 2; i <= m; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
		return m ? a[int((m + 1) / 2)] : 0 }
	END { for (q in z) for (t in nm) { line = ""; any = 0
		for (r in rows) { k = q SUBSEP r SUBSEP t; x = (k in key) ? med(k) : 0; if (x >= 0.05) any = 1
			line = line sprintf("  %s %.2f", r, x) }
		if (any) printf "    at %6d %-12s%s\n", q, t, line } }' "$work/cputhr" | sort
# Scheduler passes per window: what a thread's CPU above is spent on.
echo "  passes per window (main scheduler, sched/backfill; from sdiag):"
awk '{ printf "    at %6d round %d %-26s main %4d  backfill %4d\n", $1, $2, $3, $6 - $4, $7 - $5 }' "$work/passes" 2>/dev/null || true
# sched/backfill's passes come when a job, node, partition or reservation
# stamp moved since the last pass, to the second: the nodes' load reports
# (every 10 s), the pass's own start-time updates when it ends within the
# second it began, the main scheduler.  Which row gets more of them is
# chance of phase (7 against 10 a minute either way round in two runs of
# the same builds), and at 20,000 pending the passes are nearly all of the
# CPU.  So: the same ratio with each plugin row's backfill thread charged
# per pass at the backfill row's pass count in that window.
echo "  the same ratios with sched/backfill's passes equalized (each row's bckfl thread per pass x the backfill row's passes):"
awk 'FILENAME ~ /passes$/ { p[$1, $2, $3] = $7 - $5; next }
	FILENAME ~ /cputhr$/ { if ($4 == "bckfl") b[$1, $2, $3] = $5; next }
	{ t[$1, $2, $3] = $4; z[$1] = 1; r[$2] = 1; rows[$3] = 1 }
	END { for (q in z) for (row in rows) { if (row == "sched/backfill") continue; m = 0
		for (w in r) { k = q SUBSEP w SUBSEP row; kb = q SUBSEP w SUBSEP "sched/backfill"
			if (!(k in t) || !(kb in t) || !p[k] || !t[kb]) continue
			v[++m] = (t[k] - b[k] + b[k] / p[k] * p[kb]) / t[kb] }
		for (i = 2; i <= m; i++) for (j = i; j > 1 && v[j-1] > v[j]; j--) { x = v[j]; v[j] = v[j-1]; v[j-1] = x }
		if (m) printf "    at %6d %-22s / sched/backfill  %.2f (min %.2f, max %.2f over %d windows)\n", q, row, v[int((m + 1) / 2)], v[1], v[m], m } }' \
	"$work/passes" "$work/cputhr" "$work/cpuns" 2>/dev/null || true
echo "runtime $((SECONDS - start)) s; load average of this host at the end: $(cut -d" " -f1-3 /proc/loadavg)"
