#!/usr/bin/env bash
# bench_pending.sh - what a long queue costs the controller: NPEND (20000)
# real pending jobs on a local Slurm cluster (4 nodes, 1 CPU each, all
# four busy with a long job, so every other job waits for resources), under
#   sched/backfill      Slurm's default, no plugin of ours: the baseline
#   sched/datalocality  with JobSubmitPlugins=datalocality
# with the same slurm.conf otherwise (dl-stage as Prolog/Epilog/TaskProlog
# in both, SchedulerParameters SCHED_PARAMS).  The two clusters run side by
# side, so that whatever else the host does weighs on both alike: their
# queues are submitted at the same time, CPU is measured over the same
# window, and the latency calls alternate between them.
#
# The jobs are separate submissions (a job array would be one record until
# it is split), PLAIN_PCT % (20) plain, the others annotated with 3 of the
# 4 images of one of NPEND/10 patients (high sharing; the images are sparse
# files of IMG_MIB MiB, so the plugin sees real sizes).  They are submitted
# by one dl-submit --burst per cluster (slurm_submit_batch_job() in a loop,
# one process: 20,000 sbatch processes took hours on a busy host, issue
# 29); the submission time and rate are printed.  After SETTLE s (20) the
# script measures
#   CPU      user+system time of slurmctld and its children (the
#            partitioner helper) over WINDOW s (60), from /proc/<pid>/stat,
#            with no client talking to slurmctld
#   latency  median wall time of NCALLS (21) `squeue` (full listing) and
#            NCALLS `sbatch` (alternately annotated and plain)
# and prints both rows and the ratios datalocality / backfill with their
# targets (CPU <= 1.5, latencies <= 1.2; PASS/MISS, not a test).
#
#   contrib/bench_pending.sh [BUILD_DIR]        (about 8 minutes; root)
#
# Environment (defaults): NPEND (20000), PLAIN_PCT (20), SETTLE (20), WINDOW (60), NCALLS (21), IMG_MIB (4), SCHED_PARAMS
# (bf_interval=5), ROWS ("backfill datalocality"), SEED (7), KEEP_LOGS
# (dir to copy each row's slurmctld log and slurm.conf into).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/_build/main}
case $build in -* | *=*) echo "usage: $0 [BUILD_DIR] (settings go in the environment)" >&2; exit 2 ;; esac
[ -x "$build/dl-stage" ] || build=$("$top/contrib/build.sh" "$build" | tail -1)
NPEND=${NPEND:-20000}
PLAIN_PCT=${PLAIN_PCT:-20}
SETTLE=${SETTLE:-20}
WINDOW=${WINDOW:-60}
NCALLS=${NCALLS:-21}
IMG_MIB=${IMG_MIB:-4}
SCHED_PARAMS=${SCHED_PARAMS-bf_interval=5}
ROWS=${ROWS:-backfill datalocality}
SEED=${SEED:-7}
# shellcheck source=../test/cluster/cluster.sh
source "$top/test/cluster/cluster.sh"
# shellcheck source=bench_lib.sh
source "$top/contrib/bench_lib.sh"
export DL_CLUSTER_QUIET=1 DL_NODES=4
work=$(mktemp -d /tmp/dl_bench.XXXXXX)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT

bench_take_build "$build" "$work"

# The jobs, one line each: the files of an annotated job, or "-".
npat=$((NPEND / 10 > 0 ? NPEND / 10 : 1))
data=$work/storage
for p in $(seq 1 "$npat"); do
	mkdir -p "$data/p$p"
	for i in 1 2 3 4; do truncate -s "${IMG_MIB}M" "$data/p$p/img$i"; done
done
chmod -R a+rX "$data"
awk -v n="$NPEND" -v np="$npat" -v plain="$PLAIN_PCT" -v seed="$SEED" -v d="$data" 'BEGIN {
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

# up NAME SCHED PARAMS JOB_SUBMIT: start a cluster, fill its nodes with
# four long jobs; its directory goes into $work/clusters.
up() {
	local k
	export DL_SCHED_TYPE=$2 DL_SCHED_PARAMS=$3 DL_JOB_SUBMIT=$4
	export DL_PROLOG="$stage" DL_EPILOG="$stage"
	export DL_CLUSTER_EXTRA_CONF="TaskProlog=$stage
MaxJobCount=$((NPEND * 2 + 1000))"
	dl_cluster_init
	echo "$1|$DL_CLUSTER_DIR" >>"$work/clusters"
	cat >"$DL_CLUSTER_DIR/etc/datalocality.conf" <<-EOF
		CacheDir=$DL_CLUSTER_DIR/cache/%n
		CacheCapacity=48M
	EOF
	dl_cluster_start
	cp "$DL_CLUSTER_DIR/run/harness.pids" "$work/pids.${DL_CLUSTER_DIR##*/}"
	for k in 1 2 3 4; do
		sbatch -Q -o /dev/null -t 1440 --exclusive --wrap 'sleep 86400' >/dev/null
	done
	dl_cluster_wait_nodes allocated 60
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

# The queue as a dl-submit stream (doc/dl-submit.1), the same jobs as
# sbatch_one's.
# shellcheck disable=SC2016
awk '{ if ($0 == "-") print "0 --output=/dev/null --time=10 --wrap=sleep 1"
	else print "0 --output=/dev/null --time=10 --comment=files:" $0 " --wrap=cat $DL_CACHE_VIEW/* >/dev/null; sleep 1" }' \
	"$work/jobs" >"$work/jobs.stream"

# submit_all DIR I: the whole queue, one dl-submit --burst; prints the
# seconds, its summary into $work/submit.I.log.
submit_all() {
	local t0=$EPOCHREALTIME
	export SLURM_CONF=$1/etc/slurm.conf
	bench_submit "$work/submit.$2" --burst "$work/jobs.stream" || true
	[ "$bench_verdict" = - ] ||
		echo "bench: cluster $1: dl-submit: $bench_verdict" >&2
	awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f\n", b - a }'
}

echo "cluster: 4 nodes x 1 CPU, all busy; $(nproc) CPUs on this host; SchedulerParameters=batch_sched_delay=0${SCHED_PARAMS:+,$SCHED_PARAMS}"
echo "sched/datalocality: $dl_design design${dl_params:+, SchedulerParameters=batch_sched_delay=0,$dl_params}, JobSubmitPlugins=datalocality"
echo "queue: $NPEND separate pending jobs, $PLAIN_PCT% plain, the others reading 3 of 4 images ($IMG_MIB MiB) of one of $npat patients; submitted by one dl-submit --burst per cluster (slurm_submit_batch_job() in a loop)"
echo "CPU over $WINDOW s (after $SETTLE s), no clients; latency: median of $NCALLS calls"
start=$SECONDS
# All clusters run side by side, so that whatever else this host does
# weighs on every row alike: the queues are submitted at the same time,
# CPU is measured over the same window, and the latency calls alternate.
: >"$work/clusters"
for row in $ROWS; do
	case $row in
	backfill) (up "sched/backfill" sched/backfill "$SCHED_PARAMS" "") ;;
	datalocality) (up "sched/datalocality" sched/datalocality "$dl_params" datalocality) ;;
	*) echo "bench: unknown row $row" >&2; exit 2 ;;
	esac
done
mapfile -t names < <(cut -d'|' -f1 "$work/clusters")
mapfile -t dirs < <(cut -d'|' -f2 "$work/clusters")
n=${#dirs[@]}
for i in $(seq 0 $((n - 1))); do
	submit_all "${dirs[i]}" "$i" >"$work/sub.$i" &
done
wait
sleep "$SETTLE"
for i in $(seq 0 $((n - 1))); do
	pid[i]=$(cat "${dirs[i]}/run/slurmctld.pid")
	npd[i]=$(SLURM_CONF=${dirs[i]}/etc/slurm.conf squeue -h -t PD -o %i | wc -l)
	tk0[i]=$(ctld_ticks "${pid[i]}")
done
sleep "$WINDOW"
for i in $(seq 0 $((n - 1))); do tk1[i]=$(ctld_ticks "${pid[i]}"); done
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
for d in "${dirs[@]}"; do
	if [ ! -f "$d/etc/slurm.conf" ]; then
		echo "bench: $d was removed while the cluster ran" >&2
		exit 1
	fi
done
: >"$work/results"
for i in $(seq 0 $((n - 1))); do
	# Jobs the plugin gave a node (the new design sets it while they wait).
	nreq=$(SLURM_CONF=${dirs[i]}/etc/slurm.conf squeue -h -t PD -o '%n' | grep -vc '^$' || true)
	rss=$(awk '/^VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/${pid[i]}/status")
	awk -v n="${names[i]}" -v a="${tk0[i]}" -v b="${tk1[i]}" -v hz="$(getconf CLK_TCK)" \
		-v st="$(cat "$work/sub.$i")" -v pd="${npd[i]}" -v rq="$nreq" \
		-v sq="$(median <"$work/squeue.$i")" -v sb="$(median <"$work/sbatch.$i")" \
		-v rss="$rss" -v np="$NPEND" \
		'BEGIN { printf "%s|%.2f %.1f %.1f %d %d %d %.0f %d\n", n, (b - a) / hz, sq, sb, pd, rq, st, np / (st > 0 ? st : 1), rss }' \
		>>"$work/results"
done
echo
printf '%-20s %10s %11s %11s %9s %11s %14s %8s\n' "" "CPU s" "squeue ms" "sbatch ms" "pending" "given node" "submission" "RSS MiB"
awk -F'|' '
	{ split($2, y, " "); name[NR] = $1; for (i = 1; i <= 8; i++) x[NR, i] = y[i] }
	END {
		for (k = 1; k <= NR; k++)
			printf "%-20s %10.2f %11.1f %11.1f %9d %11d %6d s %3d/s %8d\n", name[k],
				x[k, 1], x[k, 2], x[k, 3], x[k, 4], x[k, 5], x[k, 6], x[k, 7], x[k, 8]
		for (k = 1; k <= NR; k++) if (name[k] == "sched/backfill") b = k
		for (k = 1; k <= NR; k++) if (name[k] == "sched/datalocality") d = k
		if (!b || !d) exit
		r1 = x[b, 1] > 0 ? x[d, 1] / x[b, 1] : 99
		r2 = x[d, 2] / x[b, 2]; r3 = x[d, 3] / x[b, 3]
		printf "%-20s %10.2f %11.2f %11.2f\n", "  / sched/backfill", r1, r2, r3
		printf "\ntargets (sched/datalocality / sched/backfill, this run):\n"
		printf "  slurmctld CPU   %5.2f  (<= 1.5)  %s\n", r1, (r1 <= 1.5 ? "PASS" : "MISS")
		printf "  squeue latency  %5.2f  (<= 1.2)  %s\n", r2, (r2 <= 1.2 ? "PASS" : "MISS")
		printf "  sbatch latency  %5.2f  (<= 1.2)  %s\n", r3, (r3 <= 1.2 ? "PASS" : "MISS")
	}' "$work/results"
echo "runtime $((SECONDS - start)) s; load average of this host at the end: $(cut -d" " -f1-3 /proc/loadavg)"
