#!/usr/bin/env bash
# bench_cluster.sh - one mixed job stream on a real local Slurm cluster
# (4 nodes, 1 CPU each), scheduled two ways:
#   backfill + cache      sched/backfill (Slurm's default) with dl-stage
#                         staging into node-local caches: the baseline of
#                         every ratio
#   datalocality + cache  sched/datalocality with the same staging
# and, with NOCACHE=1, a third row: sched/backfill without staging, jobs
# reading straight from the storage.  (The sched/builtin rows of earlier
# versions are gone: no site runs it, and backfill is what the plugin has
# to beat.)
#
# The stream: Poisson arrivals at load LOAD (2) in the sense of
# doc/workloads.md (eqs. 9-11: the last job arrives at the stream's
# offered work / (slots x LOAD), a job's work being its eq. 6 estimate),
# made of
#   annotated jobs  --comment=files:... reading 3 of the 4 images of one of
#                   8 patients (high sharing), then COMPUTE s of compute
#   plain jobs      no annotation, PLAIN_SEC s of compute (PLAIN_PCT %)
#   wide jobs       -N 4 --exclusive, WIDE_SEC s (NWIDE, evenly spaced)
# all with --time=TIME_LIMIT minutes, and the same SchedulerParameters in
# every row (SCHED_PARAMS).  Printed per row: mean and p95 response of the
# annotated and of the plain jobs, the plain jobs' mean wait, the wide
# jobs' wait, and the bytes copied from the shared storage into the caches
# (by dl-stage or dl-cached); then
# each as a ratio to backfill + cache, and the targets met or missed.
#
# On one machine the "shared storage" is as fast as the local disk, so it
# is given a realistic cost: STORAGE_SERVERS servers, each serving one
# transfer at a time at STORAGE_BW bytes/s (the end-point contention model
# of online-hps-khanna section 4.3).  dl-stage's copies take the server's
# lock and are paced (EmulateStorage* in datalocality.conf); without
# staging, jobs read through the same locks with pv at the same rate.
#
# Namespaced nodes (the default when BUILD_DIR has dl-cached; DL_NODE_NS=0
# turns it off, DL_NODE_NS=1 insists): as on real hosts, every node's
# slurmd, Prolog, jobs and node cache service dl-cached run in a mount
# namespace of their own whose CacheDir is a private tmpfs
# (test/cluster/cluster.sh), so slurmctld learns the caches only through
# the services; the storage directory stays shared.  Printed besides: the
# bytes the nodes copied from each other's caches, and the share of
# annotated jobs whose Prolog found all their files already in the cache
# (prefetched for them, or left by earlier jobs) and copied nothing.
#
# The stream is submitted by dl-submit, one process calling Slurm's
# slurm_submit_batch_job() at each job's arrival time (one sbatch process
# per job could not keep the clock on a busy host: issue 29).  Each row
# prints the arrival rate it achieved beside the intended one; a row whose
# arrivals took more than 10% longer than intended is NOT VALID, and then
# no ratio and no target is printed: its load was not the stream's.
#
# Times are taken by the jobs themselves (date +%s.%N at the start and the
# end of the batch script) and by dl-submit as each submission begins, so
# response = end - submission, wait = start - submission (after the
# Prolog, i.e. after staging).
#
#   contrib/bench_cluster.sh [BUILD_DIR]        (about 3 minutes; root)
#
# Environment (defaults): NJOBS (240) jobs in all, LOAD (2), SEED (7),
# PLAIN_PCT (20), NWIDE (1), COMPUTE (0.5), PLAIN_SEC (1), WIDE_SEC (3),
# TIME_LIMIT (2), IMG_MIB (4), CACHE (48M), STORAGE_BW (20 MiB/s),
# STORAGE_SERVERS (2), SCHED_PARAMS (bf_interval=5), NOCACHE (0),
# ROWS ("backfill datalocality"), DL_CONF (more lines for
# datalocality.conf, e.g. "WaitFactor=4"; none: the plugin's defaults),
# KEEP_LOGS (dir to copy the slurmctld logs and dl-stage logs of every row
# into, with the stream and the rows' results; contrib/bench_cluster_times.py
# reads a kept row), DL_NODE_NS (auto), JOB_USER (nobody: the user the jobs
# run as).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/_build/main}
case $build in -* | *=*) echo "usage: $0 [BUILD_DIR] (settings go in the environment)" >&2; exit 2 ;; esac
[ -x "$build/dl-stage" ] || build=$("$top/contrib/build.sh" "$build" | tail -1)
STORAGE_BW=${STORAGE_BW:-$((20 * 1048576))}
STORAGE_SERVERS=${STORAGE_SERVERS:-2}
NJOBS=${NJOBS:-240}
LOAD=${LOAD:-2}
SEED=${SEED:-7}
PLAIN_PCT=${PLAIN_PCT:-20}
NWIDE=${NWIDE:-1}
COMPUTE=${COMPUTE:-0.5}
PLAIN_SEC=${PLAIN_SEC:-1}
WIDE_SEC=${WIDE_SEC:-3}
TIME_LIMIT=${TIME_LIMIT:-2}
IMG_MIB=${IMG_MIB:-4}
CACHE=${CACHE:-48M}
SCHED_PARAMS=${SCHED_PARAMS-bf_interval=5}
NOCACHE=${NOCACHE:-0}
ROWS=${ROWS:-backfill datalocality}
DL_NODE_NS=${DL_NODE_NS:-auto}
JOB_USER=${JOB_USER:-nobody}
if [ "$DL_NODE_NS" = auto ]; then
	DL_NODE_NS=0
	[ -x "$build/dl-cached" ] && DL_NODE_NS=1
fi
# DL_NODE_NS=1 without dl-cached: namespaced nodes staging on their own,
# the controller blind to their caches.
[ "$NOCACHE" = 1 ] && ROWS="$ROWS nocache"
# shellcheck source=../test/cluster/cluster.sh
source "$top/test/cluster/cluster.sh"
# shellcheck source=bench_lib.sh
source "$top/contrib/bench_lib.sh"
export DL_CLUSTER_QUIET=1 DL_NODES=4
work=$(mktemp -d /tmp/dl_bench.XXXXXX)
chmod 755 "$work"
# Other processes on this host may remove /tmp/dl_cluster.* under a running
# cluster; stop() then puts the list of its daemons back so that
# dl_cluster_stop finds them, and wait_done() gives up at once.
stop() {
	if [ -n "${DL_CLUSTER_DIR:-}" ] && [ -s "$work/pids" ] &&
	   [ ! -f "$DL_CLUSTER_DIR/run/harness.pids" ] &&
	   [ ! -f "$DL_CLUSTER_DIR/run/harness.pids.stopped" ]; then
		mkdir -p "$DL_CLUSTER_DIR/run"
		cp "$work/pids" "$DL_CLUSTER_DIR/run/harness.pids"
	fi
	dl_cluster_stop
	rm -f "$work/pids"
}
wait_done() { # wait_done TIMEOUT: until no job is left
	local i=0 jobs
	while [ "$i" -lt $(($1 * 2)) ]; do
		if [ ! -f "$DL_CLUSTER_DIR/etc/slurm.conf" ]; then
			echo "bench: $DL_CLUSTER_DIR was removed while the cluster ran" >&2
			return 1
		fi
		jobs=$(squeue -h -t PD,CF,R,CG -o %i 2>/dev/null) && [ -z "$jobs" ] && return 0
		sleep 0.5
		i=$((i + 1))
	done
	echo "bench: jobs still active after $1 s" >&2
	return 1
}
trap 'stop; rm -rf "$work"' EXIT

bench_take_build "$build" "$work"
export DL_NODE_NS
if [ "$DL_NODE_NS" = 1 ] && [ -x "$build/dl-cached" ]; then
	cp "$build/dl-cached" "$work/bin/"
	export DL_CACHED=$work/bin/dl-cached
fi

# The data: 8 patients x 4 images of IMG_MIB MiB.
data=$work/storage
img=$((IMG_MIB << 20))
for p in $(seq 1 8); do
	mkdir -p "$data/p$p"
	for i in 1 2 3 4; do head -c "$img" /dev/urandom >"$data/p$p/img$i"; done
done
chmod -R a+rX "$data"

# The stream, one job a line: "kind files" (kind a, p or w), then the
# arrival times.  Kinds and files come from RANDOM seeded with SEED, the
# gaps from awk's generator with the same seed, so changing LOAD changes
# only the times.
RANDOM=$SEED
: >"$work/kinds"
for j in $(seq 1 "$NJOBS"); do
	kind=a
	for w in $(seq 1 "$NWIDE"); do
		[ "$j" = $((w * NJOBS / (NWIDE + 1))) ] && kind=w
	done
	if [ "$kind" = a ] && [ $((RANDOM % 100)) -lt "$PLAIN_PCT" ]; then kind=p; fi
	p=$((RANDOM % 8 + 1)) first=$((RANDOM % 2 + 1))
	if [ "$kind" = a ]; then
		echo "a $data/p$p/img$first,$data/p$p/img$((first + 1)),$data/p$p/img$((first + 2))"
	else
		echo "$kind -"
	fi >>"$work/kinds"
done
# Offered work per job: eq. 6 of online-hps-khanna for an annotated job
# (s_f = annotated jobs of the stream reading f, P = 4 nodes, RBW =
# STORAGE_BW, LBW = 500e6, the compute known), the compute of a plain job,
# 4 x the compute of a wide job; the last arrival is at work / (slots x
# LOAD) (eq. 11), the gaps exponential (doc/workloads.md).
awk -v seed="$SEED" -v load="$LOAD" -v img="$img" -v rbw="$STORAGE_BW" \
	-v lbw=500e6 -v P=4 -v c="$COMPUTE" -v cp="$PLAIN_SEC" -v cw="$WIDE_SEC" '
	{ kind[NR] = $1; files[NR] = $2
	  if ($1 == "a") { n = split($2, f, ","); for (i = 1; i <= n; i++) s[f[i]]++ } }
	END {
		for (j = 1; j <= NR; j++) {
			if (kind[j] == "a") {
				n = split(files[j], f, ","); e = c
				for (i = 1; i <= n; i++) {
					fne = 1 / s[f[i]]
					tr = fne / rbw + (1 - fne) * (1 - 1 / P) / rbw
					e += img * (tr + 1 / lbw)
				}
			} else e = (kind[j] == "p") ? cp : 4 * cw
			work += e
		}
		tl = work / (4 * load)
		srand(seed); t = 0
		for (j = 1; j <= NR; j++) { at[j] = t; t += -log(1 - rand()) }
		scale = (NR > 1 && at[NR] > 0) ? tl / at[NR] : 0
		for (j = 1; j <= NR; j++) printf "%.3f %s %s\n", at[j] * scale, kind[j], files[j] > "/dev/stdout"
		printf "%.1f %.1f %.3f\n", work, tl, work / NR > "/dev/stderr"
	}' "$work/kinds" >"$work/stream" 2>"$work/load"
read -r offered span avgexec <"$work/load"

# The no-cache job reads each file through its storage server's lock at
# STORAGE_BW, the server chosen as dl-stage chooses it (SHA-256 of the path).
cat >"$work/read-direct.sh" <<EOF
#!/bin/sh
for f in "\$@"; do
	s=\$(( 0x\$(printf %s "\$f" | sha256sum | cut -c1-2) % $STORAGE_SERVERS ))
	flock "$work/locks/server-\$s.lock" pv -qL $STORAGE_BW "\$f" >/dev/null
done
EOF
chmod 755 "$work/read-direct.sh"

# The jobs run as JOB_USER, as users' jobs do (node services copy nothing
# between nodes for root, who may read anything anywhere).
as_user="--uid=$JOB_USER --gid=$(id -gn "$JOB_USER")"
# job_line AT KIND FILES CACHED: the job as a line of dl-submit's stream
# (doc/dl-submit.1).  The batch script writes "start end" into
# $work/t/<jobid>.
job_line() {
	local at=$1 kind=$2 files=$3 cached=$4 body
	local stamp="echo \$t0 \$(date +%s.%N) >$work/t/\$SLURM_JOB_ID"
	local opts="$at $as_user --output=/dev/null --time=$TIME_LIMIT"
	case $kind in
	a)
		if [ "$cached" = 1 ]; then
			# shellcheck disable=SC2016
			body='cat $DL_CACHE_VIEW'"${files//,/ \$DL_CACHE_VIEW}"' >/dev/null'
		else
			body="$work/read-direct.sh ${files//,/ }"
		fi
		echo "$opts --comment=files:$files --wrap=t0=\$(date +%s.%N); $body; sleep $COMPUTE; $stamp"
		;;
	p)
		echo "$opts --wrap=t0=\$(date +%s.%N); sleep $PLAIN_SEC; $stamp"
		;;
	w)
		echo "$opts --nodes=4 --exclusive --wrap=t0=\$(date +%s.%N); sleep $WIDE_SEC; $stamp"
		;;
	esac
}

# node_files NAME: a file of every node's cache (.log, .inventory), read
# inside each node's namespace when the nodes are namespaced.
node_files() {
	local n
	for n in n1 n2 n3 n4; do
		if [ "$DL_NODE_NS" = 1 ]; then
			dl_cluster_node_exec "$n" cat "$DL_NODE_CACHE_DIR/$1" 2>/dev/null || true
		else
			cat "$DL_CLUSTER_DIR/cache/$n/$1" 2>/dev/null || true
		fi
	done
}

# node_bytes KEY: the sum over the nodes of a counter of their caches
# (storage_bytes, peer_bytes: bytes copied from the storage and from other
# nodes' caches, by dl-stage or dl-cached, prefetches included) from the
# header of each .inventory; nothing if no node has it.
node_bytes() {
	node_files .inventory | awk -v k="$1" '
		/^# dl-stage inventory/ { for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) { s += substr($i, length(k) + 2); seen = 1 } }
		END { if (seen) printf "%.0f\n", s }'
}

run() { # run NAME SCHED CACHED(0/1)
	local name=$1 sched=$2 cached=$3 at kind files id sub bytes=0
	local peer=-1 allc=-1 sb pb cdir
	local logs=${KEEP_LOGS:-}
	rm -rf "$work/locks" "$work/t"
	mkdir -p "$work/locks" "$work/t"
	chmod 777 "$work/t" "$work/locks"
	export DL_SCHED_TYPE=$sched DL_JOB_SUBMIT=datalocality
	if [ "$sched" = sched/datalocality ]; then
		export DL_SCHED_PARAMS=$dl_params
	else
		export DL_SCHED_PARAMS=$SCHED_PARAMS
	fi
	if [ "$cached" = 1 ]; then
		export DL_PROLOG="$stage" DL_EPILOG="$stage"
		export DL_CLUSTER_EXTRA_CONF="TaskProlog=$stage"
	else
		export DL_PROLOG="" DL_EPILOG="" DL_CLUSTER_EXTRA_CONF=""
	fi
	dl_cluster_init
	cdir=$DL_CLUSTER_DIR/cache/%n
	[ "$DL_NODE_NS" = 1 ] && cdir=$DL_NODE_CACHE_DIR
	cat >"$DL_CLUSTER_DIR/etc/datalocality.conf" <<-EOF
		CacheDir=$cdir
		CacheCapacity=$CACHE
		EvictionPolicy=value
		StorageBandwidth=$STORAGE_BW
		EmulateStorageBandwidth=$STORAGE_BW
		EmulateStorageServers=$STORAGE_SERVERS
		EmulateStorageLockDir=$work/locks
		${DL_CONF:-}
	EOF
	[ -n "${DL_CACHED:-}" ] && dl_cluster_service_conf >>"$DL_CLUSTER_DIR/etc/datalocality.conf"
	dl_cluster_start
	cp "$DL_CLUSTER_DIR/run/harness.pids" "$work/pids"
	while read -r at kind files; do
		job_line "$at" "$kind" "$files" "$cached"
	done <"$work/stream" >"$work/jobs.stream"
	# Slurm's first scheduling pass comes about 3 s after slurmctld starts
	# (test/cluster/cluster.sh); the stream begins after it.
	sleep 5
	bench_submit "$work/submit" "$work/jobs.stream"
	echo "$name|$bench_rates|$bench_verdict" >>"$work/arrivals"
	echo "$name: arrivals $bench_rates: $bench_verdict"
	# "id kind submission" per job, in stream order ("-": not submitted).
	awk 'NR == FNR { kind[FNR - 1] = $2; next } /^#/ { next } { print $2, kind[$1], $4 }' \
		"$work/stream" "$work/submit.rec" >"$work/sub"
	wait_done 1800
	# One line per job: kind response wait (s), or "kind - -" if it left
	# no times (failed).
	while read -r id kind sub; do
		if [ "$id" != - ] && [ -s "$work/t/$id" ]; then
			read -r s e <"$work/t/$id"
			awk -v k="$kind" -v s="$s" -v e="$e" -v b="$sub" \
				'BEGIN { printf "%s %.3f %.3f\n", k, e - b, s - b }'
		else
			echo "bench: $name: JobId=$id ($kind) left no times:" \
				"$(dl_cluster_job_field "$id" JobState || true)" >&2
			echo "$kind - -"
		fi
	done <"$work/sub" >"$work/times.$name"
	if [ "$cached" = 1 ]; then
		# The caches count what was copied into them from the storage
		# and from peers (.inventory's header; prefetches included);
		# caches without those counters: dl-stage's log of its copies.
		node_files .log >"$work/stage.log"
		bytes=$(sed -n 's/.* \([0-9]*\) copied (\([0-9.]*\) \([KMG]*i*B\)).*/\2 \3/p' "$work/stage.log" |
			awk '{ m = ($2 == "GiB") ? 1073741824 : ($2 == "MiB") ? 1048576 : ($2 == "KiB") ? 1024 : 1; s += $1 * m } END { printf "%.0f", s }')
		sb=$(node_bytes storage_bytes)
		pb=$(node_bytes peer_bytes)
		if [ -n "$sb" ]; then bytes=$sb; fi
		if [ -n "$pb" ]; then peer=$pb; fi
		# Annotated jobs whose Prolog copied nothing: "job J on nX: N
		# files: N cached (...), 0 copied".
		allc=$(awk 'NR == FNR { if ($2 == "a") a[$1] = 1; next }
			match($0, /job [0-9]+ on n[0-9]+: [0-9]+ files: [0-9]+ cached/) {
				split(substr($0, RSTART, RLENGTH), w, " ")
				if (w[2] in a) all[w[2]] = (w[5] == w[7] && w[5] > 0) }
			END { for (j in all) { n++; c += all[j] }
				printf "%.1f", n ? 100 * c / n : -1 }' "$work/sub" "$work/stage.log")
	else
		while read -r kind files; do
			[ "$kind" = a ] && bytes=$((bytes + 3 * img))
		done <"$work/kinds"
	fi
	if [ "$sched" = sched/datalocality ]; then
		# How the plugin placed the jobs.
		awk -v n="$name" '/datalocality: started JobId=/ { s++
			on = $0; sub(/.* on /, "", on); sub(/ .*/, "", on)
			pl = $0; sub(/.*\(planned /, "", pl); sub(/[: ].*/, "", pl)
			if (on == pl) same++
			if (/: strict[;)]/) st++; else if (/: widened[;)]/) wi++; else if (/no data preference/) nd++ }
			END { printf "%s: the plugin started %d jobs, %d on their planned node; %d strict, %d widened, %d without data preference\n", n, s, same, st, wi, nd }' \
			"$(dl_cluster_log_ctld)" >>"$work/notes"
	fi
	if [ -n "$logs" ]; then
		mkdir -p "$logs/$name"
		cp "$(dl_cluster_log_ctld)" "$DL_CLUSTER_DIR/etc/slurm.conf" "$logs/$name/"
		if [ "$DL_NODE_NS" = 1 ]; then
			for d in n1 n2 n3 n4; do
				dl_cluster_node_exec "$d" cat "$DL_NODE_CACHE_DIR/.log" >"$logs/$name/stage.$d.log" 2>/dev/null || true
				cp "$DL_CLUSTER_DIR/log/cached.$d.out" "$logs/$name/" 2>/dev/null || true
			done
		else
			for d in "$DL_CLUSTER_DIR"/cache/n*; do
				[ -f "$d/.log" ] && cp "$d/.log" "$logs/$name/stage.${d##*/}.log"
			done
		fi
		cp "$work/times.$name" "$work/sub" "$work/stream" "$work/jobs.stream" \
			"$work/submit.log" "$logs/$name/"
	fi
	stop
	# name, then: annotated mean p95, plain mean p95, plain wait mean,
	# wide wait mean, MiB from storage, jobs without times, MiB from peers
	# (-1: not counted), % of annotated jobs found all cached (-1: none)
	awk -v n="$name" -v b="$bytes" -v pb="$peer" -v ac="$allc" '
		function pct(a, k, q,   i, j, t) { # nearest rank, after sorting a[1..k]
			for (i = 2; i <= k; i++) { t = a[i]; for (j = i - 1; j > 0 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
			return k ? a[int(q * k + 0.999999)] : -1 }
		$2 == "-" { bad++; next }
		$1 == "a" { ra[++na] = $2; sa += $2 }
		$1 == "p" { rp[++np] = $2; sp += $2; wp += $3 }
		$1 == "w" { ww += $3; nw++ }
		END { printf "%s|%.2f %.2f %.2f %.2f %.2f %.2f %.1f %d %.1f %.1f\n", n,
			na ? sa / na : -1, pct(ra, na, 0.95), np ? sp / np : -1, pct(rp, np, 0.95),
			np ? wp / np : -1, nw ? ww / nw : -1, b / 1048576, bad,
			pb < 0 ? -1 : pb / 1048576, ac }' \
		"$work/times.$name" >>"$work/results"
}

na=$(grep -c '^a' "$work/kinds" || true)
np=$(grep -c '^p' "$work/kinds" || true)
nw=$(grep -c '^w' "$work/kinds" || true)
echo "cluster: 4 nodes x 1 CPU; SchedulerParameters=batch_sched_delay=0${SCHED_PARAMS:+,$SCHED_PARAMS} in every row; sched/datalocality: $dl_design design${dl_params:+, SchedulerParameters=batch_sched_delay=0,$dl_params}"
echo "stream: $NJOBS jobs, Poisson arrivals over $span s, load $LOAD (offered work $offered s = mean $avgexec s per job, eq. 6 estimates, doc/workloads.md eqs. 9-11, on 4 slots)"
echo "  $na annotated: 3 of the 4 images ($IMG_MIB MiB) of one of 8 patients (high sharing), $COMPUTE s compute"
echo "  $np plain: $PLAIN_SEC s compute; $nw wide: -N 4 --exclusive, $WIDE_SEC s; every job --time=$TIME_LIMIT (minutes)"
if [ -n "${DL_CACHED:-}" ]; then
	echo "nodes: namespaced (each slurmd and its dl-cached in a mount namespace with a private tmpfs CacheDir; storage shared)"
elif [ "$DL_NODE_NS" = 1 ]; then
	echo "nodes: namespaced without dl-cached (private tmpfs CacheDir, storage shared; slurmctld cannot see the caches)"
else
	echo "nodes: one file system (no dl-cached)"
fi
echo "cache $CACHE per node (dl-stage, EvictionPolicy=value${DL_CONF:+, $DL_CONF}); shared storage: $STORAGE_SERVERS servers, one transfer at a time each, $((STORAGE_BW / 1048576)) MiB/s"
start=$SECONDS
: >"$work/results"
: >"$work/notes"
: >"$work/arrivals"
for row in $ROWS; do
	case $row in
	backfill) run "backfill + cache" sched/backfill 1 ;;
	datalocality) run "datalocality + cache" sched/datalocality 1 ;;
	nocache) run "backfill, no cache" sched/backfill 0 ;;
	*) echo "bench: unknown row $row" >&2; exit 2 ;;
	esac
done

[ -z "${KEEP_LOGS:-}" ] || cp "$work/results" "$KEEP_LOGS/results"
# Ratios only between rows that offered the stream's load.
lagging=$(awk -F'|' '$3 != "VALID" { printf "%s%s: %s", (n++ ? "; " : ""), $1, $3 }' "$work/arrivals")
echo
printf '%-22s %17s %17s %9s %9s %12s %12s %9s\n' "" "annotated resp" "plain resp" "plain" "wide" "from" "from" "all"
printf '%-22s %8s %8s %8s %8s %9s %9s %12s %12s %9s\n' "" mean p95 mean p95 "mean wait" wait storage peers cached
awk -F'|' -v lagging="$lagging" '
	{ split($2, y, " "); name[NR] = $1; for (i = 1; i <= 10; i++) x[NR, i] = y[i] }
	function f(val) { return val < 0 ? "-" : sprintf("%.2f", val) }
	function r(val, base) { return (val < 0 || base <= 0) ? "-" : sprintf("%.2f", val / base) }
	END {
		for (k = 1; k <= NR; k++)
			printf "%-22s %7ss %7ss %7ss %7ss %8ss %8ss %8.1f MiB %8s MiB %8s%%%s\n", name[k],
				f(x[k, 1]), f(x[k, 2]), f(x[k, 3]), f(x[k, 4]), f(x[k, 5]), f(x[k, 6]), x[k, 7],
				x[k, 9] < 0 ? "-" : sprintf("%.1f", x[k, 9]), x[k, 10] < 0 ? "-" : sprintf("%.1f", x[k, 10]),
				x[k, 8] ? "  (" x[k, 8] " jobs failed)" : ""
		if (lagging != "") {
			printf "\nno ratios, no targets: not every row kept the stream'"'"'s arrivals (%s)\n", lagging
			exit
		}
		b = 0
		for (k = 1; k <= NR; k++) if (name[k] == "backfill + cache") b = k
		if (!b) exit
		for (k = 1; k <= NR; k++) {
			if (k == b) continue
			printf "%-22s %8s %8s %8s %8s %9s %9s %12s\n", "  / backfill + cache",
				r(x[k, 1], x[b, 1]), r(x[k, 2], x[b, 2]), r(x[k, 3], x[b, 3]), r(x[k, 4], x[b, 4]),
				r(x[k, 5], x[b, 5]), r(x[k, 6], x[b, 6]), r(x[k, 7], x[b, 7])
		}
		for (k = 1; k <= NR; k++) {
			if (name[k] != "datalocality + cache") continue
			printf "\ntargets (datalocality + cache against backfill + cache, this run):\n"
			v = x[k, 7] > 0 ? x[b, 7] / x[k, 7] : 0
			printf "  bytes from storage       backfill / datalocality  %5.2f  target >= 4    %s  (%.1f MiB against %.1f MiB)\n", v, (v >= 4 ? "PASS" : "MISS"), x[k, 7], x[b, 7]
			v = x[k, 1] > 0 ? x[b, 1] / x[k, 1] : 0
			printf "  annotated mean response  backfill / datalocality  %5.2f  target >= 3    %s\n", v, (v >= 3 ? "PASS" : "MISS")
			v = x[b, 5] > 0 ? x[k, 5] / x[b, 5] : (x[k, 5] <= 0 ? 1 : 99)
			printf "  plain mean wait          datalocality / backfill  %5.2f  target <= 1.1  %s\n", v, (v <= 1.1 ? "PASS" : "MISS")
			printf "  wide job wait            datalocality / backfill  %5s  target <= 1    %s  (%.2f s against %.2f s)\n",
				r(x[k, 6], x[b, 6]), (x[k, 6] <= x[b, 6] ? "PASS" : "MISS"), x[k, 6], x[b, 6]
		}
	}' "$work/results"
[ -s "$work/notes" ] && cat "$work/notes"
echo "runtime $((SECONDS - start)) s; load average of this host at the end: $(cut -d" " -f1-3 /proc/loadavg)"
