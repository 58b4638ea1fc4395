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
# staging, jobs read through the same locks with pv at the same rate, and
# so does a cached row's job for a file the cache could not take (a link
# to its source in the job's view).
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
# Two more streams (contrib/bench_streams.sh), chosen with STREAM:
#   STREAM=mixed     (issue 26) nodes of 2 CPUs and 1000 MB under
#                    CR_Core_Memory; besides the default stream's kinds,
#                    MEM_PCT (25) % annotated jobs with --mem=MEM_MB (600:
#                    one a node at a time) and TWO_PCT (10) % annotated
#                    2-node jobs (-N 2, their files read on both nodes by
#                    srun).  Printed besides: the memory jobs' mean
#                    response, the 2-node jobs' mean response and wait,
#                    and the targets of issue 26.
#   STREAM=genomics  (issue 30, item 2) dl-zoo's heavy class: NREF (4)
#                    shared references of HEAVY_MIB (24) MiB, one of them
#                    (Zipf(ZIPF_S) popularity, 1.1; 0: uniform as dl-zoo)
#                    read by HEAVY_SHARE (0.9) of the jobs, plus 2-4
#                    private inputs of PRIV_KIB (768) KiB each; NJOBS 160,
#                    PLAIN_PCT 0, NWIDE 0 by default.
# ROUNDS (1) repeats the rows, alternating their order from one round to
# the next, and prints each round's table, then every target's ratio per
# round with its median and spread (min-max).  STREAM=default and
# ROUNDS=1 print what this script always printed.
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
# reads a kept row; with ROUNDS > 1 each round in DIR/round<N>/),
# DL_NODE_NS (auto), JOB_USER (nobody: the user the jobs run as).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/_build/main}
case $build in -* | *=*) echo "usage: $0 [BUILD_DIR] (settings go in the environment)" >&2; exit 2 ;; esac
[ -x "$build/dl-stage" ] || build=$("$top/contrib/build.sh" "$build" | tail -1)
STORAGE_BW=${STORAGE_BW:-$((20 * 1048576))}
STORAGE_SERVERS=${STORAGE_SERVERS:-2}
STREAM=${STREAM:-default}
ROUNDS=${ROUNDS:-1}
case $STREAM in
default | mixed) NJOBS=${NJOBS:-240} PLAIN_PCT=${PLAIN_PCT:-20} NWIDE=${NWIDE:-1} ;;
genomics) NJOBS=${NJOBS:-160} PLAIN_PCT=${PLAIN_PCT:-0} NWIDE=${NWIDE:-0} ;;
*) echo "bench: STREAM is default, mixed or genomics" >&2; exit 2 ;;
esac
LOAD=${LOAD:-2}
SEED=${SEED:-7}
MEM_PCT=${MEM_PCT:-25}
MEM_MB=${MEM_MB:-600}
TWO_PCT=${TWO_PCT:-10}
NREF=${NREF:-4}
HEAVY_MIB=${HEAVY_MIB:-24}
HEAVY_SHARE=${HEAVY_SHARE:-0.9}
PRIV_KIB=${PRIV_KIB:-768}
ZIPF_S=${ZIPF_S:-1.1}
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
# shellcheck source=bench_streams.sh
source "$top/contrib/bench_streams.sh"
export DL_CLUSTER_QUIET=1 DL_NODES=4
# The mixed stream's nodes: 2 CPUs and 1000 MB each, memory a consumable
# resource (a job asking for none takes DefMemPerCPU, not the node's).
cpus=1 stream_conf=""
if [ "$STREAM" = mixed ]; then
	cpus=2 stream_conf="DefMemPerCPU=100"
	export DL_NODE_CPUS=2 DL_NODE_MEM=1000 DL_SELECT_PARAMS=CR_Core_Memory
fi
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

# The data: 8 patients x 4 images of IMG_MIB MiB (the other streams: in
# bench_streams.sh), "path bytes" of every file in $work/sizes.
data=$work/storage
img=$((IMG_MIB << 20))
default_stream() {
	for p in $(seq 1 8); do
		mkdir -p "$data/p$p"
		for i in 1 2 3 4; do
			head -c "$img" /dev/urandom >"$data/p$p/img$i"
			echo "$data/p$p/img$i $img" >>"$work/sizes"
		done
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
}
: >"$work/sizes"
case $STREAM in
default) default_stream ;;
mixed) bench_stream_mixed "$data" "$work/kinds" "$work/sizes" ;;
genomics) bench_stream_genomics "$data" "$work/kinds" "$work/sizes" ;;
esac
# Offered work per job: eq. 6 of online-hps-khanna for an annotated job
# (s_f = annotated jobs of the stream reading f, P = 4 nodes, RBW =
# STORAGE_BW, LBW = 500e6, the compute known; twice that for a 2-node
# job), the compute of a plain job, slots x the compute of a wide job;
# the last arrival is at work / (slots x LOAD) (eq. 11), the gaps
# exponential (doc/workloads.md).
slots=$((4 * cpus))
awk -v seed="$SEED" -v ld="$LOAD" -v rbw="$STORAGE_BW" -v slots="$slots" \
	-v lbw=500e6 -v P=4 -v c="$COMPUTE" -v cp="$PLAIN_SEC" -v cw="$WIDE_SEC" '
	NR == FNR { size[$1] = $2; next }
	{ kind[++nj] = $1; files[nj] = $2
	  if ($2 != "-") { n = split($2, f, ","); for (i = 1; i <= n; i++) s[f[i]]++ } }
	END {
		for (j = 1; j <= nj; j++) {
			if (files[j] != "-") {
				n = split(files[j], f, ","); e = c
				for (i = 1; i <= n; i++) {
					fne = 1 / s[f[i]]
					tr = fne / rbw + (1 - fne) * (1 - 1 / P) / rbw
					e += size[f[i]] * (tr + 1 / lbw)
				}
				if (kind[j] == "d") e *= 2
			} else e = (kind[j] == "p") ? cp : slots * cw
			work += e
		}
		tl = work / (slots * ld)
		srand(seed); t = 0
		for (j = 1; j <= nj; j++) { at[j] = t; t += -log(1 - rand()) }
		scale = (nj > 1 && at[nj] > 0) ? tl / at[nj] : 0
		for (j = 1; j <= nj; j++) printf "%.3f %s %s\n", at[j] * scale, kind[j], files[j] > "/dev/stdout"
		printf "%.1f %.1f %.3f\n", work, tl, work / nj > "/dev/stderr"
	}' "$work/sizes" "$work/kinds" >"$work/stream" 2>"$work/load"
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
	a | m | d)
		if [ "$cached" = 1 ]; then
			# A file the cache could not take is a symbolic link to
			# its source in the view (dl-stage's view.c): read
			# through the storage servers' locks at STORAGE_BW like
			# the no-cache row, not for free off the local disk.
			# shellcheck disable=SC2016
			body='for v in $DL_CACHE_VIEW'"${files//,/ \$DL_CACHE_VIEW}"'; do if [ -L "$v" ]; then '"$work"'/read-direct.sh "$(readlink "$v")"; else cat "$v" >/dev/null; fi; done'
		else
			body="$work/read-direct.sh ${files//,/ }"
		fi
		# A 2-node job reads its files on both nodes, one task each
		# (the second node's Prolog stages them at the step's launch).
		[ "$kind" = d ] && body="srun -N 2 --ntasks-per-node=1 sh -c '$body'" &&
			opts="$opts --nodes=2"
		[ "$kind" = m ] && opts="$opts --mem=$MEM_MB"
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
	local logs=$keep
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
		export DL_CLUSTER_EXTRA_CONF="TaskProlog=$stage${stream_conf:+
$stream_conf}"
	else
		export DL_PROLOG="" DL_EPILOG="" DL_CLUSTER_EXTRA_CONF="$stream_conf"
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
		allc=$(awk 'NR == FNR { if ($2 ~ /^[amd]$/) a[$1] = 1; next }
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
	# name, then: annotated (one-node: kinds a and m) mean p95, plain
	# mean p95, plain wait mean, wide wait mean, MiB from storage, jobs
	# without times, MiB from peers (-1: not counted), % of annotated jobs
	# found all cached (-1: none), memory jobs' mean response, 2-node
	# jobs' mean response and mean wait (-1: none of the kind)
	awk -v n="$name" -v b="$bytes" -v pb="$peer" -v ac="$allc" '
		function pct(a, k, q,   i, j, t) { # nearest rank, after sorting a[1..k]
			for (i = 2; i <= k; i++) { t = a[i]; for (j = i - 1; j > 0 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
			return k ? a[int(q * k + 0.999999)] : -1 }
		$2 == "-" { bad++; next }
		$1 == "a" || $1 == "m" { ra[++na] = $2; sa += $2 }
		$1 == "m" { sm += $2; nm++ }
		$1 == "d" { sd += $2; wd += $3; nd++ }
		$1 == "p" { rp[++np] = $2; sp += $2; wp += $3 }
		$1 == "w" { ww += $3; nw++ }
		END { printf "%s|%.2f %.2f %.2f %.2f %.2f %.2f %.1f %d %.1f %.1f %.2f %.2f %.2f\n", n,
			na ? sa / na : -1, pct(ra, na, 0.95), np ? sp / np : -1, pct(rp, np, 0.95),
			np ? wp / np : -1, nw ? ww / nw : -1, b / 1048576, bad,
			pb < 0 ? -1 : pb / 1048576, ac,
			nm ? sm / nm : -1, nd ? sd / nd : -1, nd ? wd / nd : -1 }' \
		"$work/times.$name" >>"$work/results"
}

na=$(grep -c '^a' "$work/kinds" || true)
np=$(grep -c '^p' "$work/kinds" || true)
nw=$(grep -c '^w' "$work/kinds" || true)
nm=$(grep -c '^m' "$work/kinds" || true)
nd=$(grep -c '^d' "$work/kinds" || true)
echo "cluster: 4 nodes x $cpus CPU${stream_conf:+ (1000 MB each, CR_Core_Memory, $stream_conf)}; SchedulerParameters=batch_sched_delay=0${SCHED_PARAMS:+,$SCHED_PARAMS} in every row; sched/datalocality: $dl_design design${dl_params:+, SchedulerParameters=batch_sched_delay=0,$dl_params}"
echo "stream: $NJOBS jobs, Poisson arrivals over $span s, load $LOAD (offered work $offered s = mean $avgexec s per job, eq. 6 estimates, doc/workloads.md eqs. 9-11, on $slots slots)"
case $STREAM in
default) echo "  $na annotated: 3 of the 4 images ($IMG_MIB MiB) of one of 8 patients (high sharing), $COMPUTE s compute" ;;
mixed)
	echo "  $((na + nm + nd)) annotated: 3 of the 4 images ($IMG_MIB MiB) of one of 8 patients (high sharing), $COMPUTE s compute;"
	echo "    of them $nm with --mem=$MEM_MB (MB; the others DefMemPerCPU=100) and $nd 2-node (-N 2, read on both nodes)"
	;;
genomics)
	echo "  $na annotated (dl-zoo's heavy class): $(grep -c /ref/ "$work/kinds" || true) read one of $NREF references of $HEAVY_MIB MiB (Zipf($ZIPF_S) popularity: $(grep -o 'ref/ref[0-9]*' "$work/kinds" | sort | uniq -c | awk '{ printf "%s%s %d", n++ ? ", " : "", substr($2, 5), $1 }')),"
	echo "    every job 2-4 private inputs of $PRIV_KIB KiB; $COMPUTE s compute"
	;;
esac
echo "  $np plain: $PLAIN_SEC s compute; $nw wide: -N 4 --exclusive, $WIDE_SEC s; every job --time=$TIME_LIMIT (minutes)"
if [ -n "${DL_CACHED:-}" ]; then
	echo "nodes: namespaced (each slurmd and its dl-cached in a mount namespace with a private tmpfs CacheDir; storage shared)"
elif [ "$DL_NODE_NS" = 1 ]; then
	echo "nodes: namespaced without dl-cached (private tmpfs CacheDir, storage shared; slurmctld cannot see the caches)"
else
	echo "nodes: one file system (no dl-cached)"
fi
echo "cache $CACHE per node (dl-stage, EvictionPolicy=value${DL_CONF:+, $DL_CONF}); shared storage: $STORAGE_SERVERS servers, one transfer at a time each, $((STORAGE_BW / 1048576)) MiB/s"
# table ROUND: one round's table (its rows' results, the ratios, the
# targets), the round's targets also into $work/targets as "round|target|
# value|PASS or MISS".
table() {
	local r=$1 lagging
	# Ratios only between rows that offered the stream's load.
	lagging=$(awk -F'|' '$3 != "VALID" { printf "%s%s: %s", (n++ ? "; " : ""), $1, $3 }' "$work/arrivals.$r")
	echo
	printf '%-22s %17s %17s %9s %9s %12s %12s %9s\n' "" "annotated resp" "plain resp" "plain" "wide" "from" "from" "all"
	printf '%-22s %8s %8s %8s %8s %9s %9s %12s %12s %9s\n' "" mean p95 mean p95 "mean wait" wait storage peers cached
	awk -F'|' -v lagging="$lagging" -v stream="$STREAM" -v round="$r" -v tf="$work/targets" '
		{ split($2, y, " "); name[NR] = $1; for (i = 1; i <= 13; i++) x[NR, i] = y[i] }
		function f(val) { return val < 0 ? "-" : sprintf("%.2f", val) }
		function r(val, base) { return (val < 0 || base <= 0) ? "-" : sprintf("%.2f", val / base) }
		function t(what, dir, v, goal, ok, extra) { # one target, printed and kept
			printf "  %-24s %-24s %5.2f  target %s %-4s %s%s\n", what, dir, v,
				(goal ~ /^</ ? "<=" : ">="), substr(goal, 2), ok ? "PASS" : "MISS", extra
			printf "%s|%s (%s)|%.2f|%s %s\n", round, what, dir, v, (goal ~ /^</ ? "<=" : ">="), substr(goal, 2) >> tf
		}
		END {
			for (k = 1; k <= NR; k++)
				printf "%-22s %7ss %7ss %7ss %7ss %8ss %8ss %8.1f MiB %8s MiB %8s%%%s\n", name[k],
					f(x[k, 1]), f(x[k, 2]), f(x[k, 3]), f(x[k, 4]), f(x[k, 5]), f(x[k, 6]), x[k, 7],
					x[k, 9] < 0 ? "-" : sprintf("%.1f", x[k, 9]), x[k, 10] < 0 ? "-" : sprintf("%.1f", x[k, 10]),
					x[k, 8] ? "  (" x[k, 8] " jobs failed)" : ""
			if (stream == "mixed")
				for (k = 1; k <= NR; k++)
					printf "%-22s memory jobs mean response %ss; 2-node jobs mean response %ss, mean wait %ss\n",
						name[k], f(x[k, 11]), f(x[k, 12]), f(x[k, 13])
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
				if (stream == "default") {
					v = x[k, 7] > 0 ? x[b, 7] / x[k, 7] : 0
					printf "  bytes from storage       backfill / datalocality  %5.2f  target >= 4    %s  (%.1f MiB against %.1f MiB)\n", v, (v >= 4 ? "PASS" : "MISS"), x[k, 7], x[b, 7]
					printf "%s|bytes from storage|%.2f|>= 4\n", round, v >> tf
					v = x[k, 1] > 0 ? x[b, 1] / x[k, 1] : 0
					printf "  annotated mean response  backfill / datalocality  %5.2f  target >= 3    %s\n", v, (v >= 3 ? "PASS" : "MISS")
					printf "%s|annotated mean response|%.2f|>= 3\n", round, v >> tf
					v = x[b, 5] > 0 ? x[k, 5] / x[b, 5] : (x[k, 5] <= 0 ? 1 : 99)
					printf "  plain mean wait          datalocality / backfill  %5.2f  target <= 1.1  %s\n", v, (v <= 1.1 ? "PASS" : "MISS")
					printf "%s|plain mean wait|%.2f|<= 1.1\n", round, v >> tf
					printf "  wide job wait            datalocality / backfill  %5s  target <= 1    %s  (%.2f s against %.2f s)\n",
						r(x[k, 6], x[b, 6]), (x[k, 6] <= x[b, 6] ? "PASS" : "MISS"), x[k, 6], x[b, 6]
					if (x[b, 6] > 0)
						printf "%s|wide job wait|%.2f|<= 1\n", round, x[k, 6] / x[b, 6] >> tf
					continue
				}
				v = x[k, 1] > 0 ? x[b, 1] / x[k, 1] : 0
				t("annotated mean response", "backfill / datalocality", v, ">2.5", v >= 2.5, "")
				if (stream == "mixed") {
					v = x[b, 5] > 0 ? x[k, 5] / x[b, 5] : (x[k, 5] <= 0 ? 1 : 99)
					t("plain mean wait", "datalocality / backfill", v, "<1.1", v <= 1.1, "")
					v = x[b, 13] > 0 ? x[k, 13] / x[b, 13] : (x[k, 13] <= 0 ? 1 : 99)
					t("2-node mean wait", "datalocality / backfill", v, "<1.1", v <= 1.1,
						sprintf("  (%.2f s against %.2f s)", x[k, 13], x[b, 13]))
					v = x[k, 11] > 0 ? x[b, 11] / x[k, 11] : 0
					printf "  %-24s %-24s %5.2f  (no target)\n", "memory jobs mean resp", "backfill / datalocality", v
				}
				v = x[k, 7] > 0 ? x[b, 7] / x[k, 7] : 0
				printf "  %-24s %-24s %5.2f  (no target; %.1f MiB against %.1f MiB)\n", "bytes from storage",
					"backfill / datalocality", v, x[k, 7], x[b, 7]
			}
		}' "$work/results.$r"
	[ -s "$work/notes.$r" ] && cat "$work/notes.$r"
	return 0
}

start=$SECONDS
: >"$work/targets"
order=$ROWS
for round in $(seq 1 "$ROUNDS"); do
	: >"$work/results.$round"
	: >"$work/notes.$round"
	: >"$work/arrivals.$round"
	: >"$work/results"
	: >"$work/notes"
	: >"$work/arrivals"
	keep=${KEEP_LOGS:-}
	[ -n "$keep" ] && [ "$ROUNDS" -gt 1 ] && keep=$keep/round$round
	if [ "$ROUNDS" -gt 1 ]; then echo "round $round of $ROUNDS: rows $order"; fi
	for row in $order; do
		case $row in
		backfill) run "backfill + cache" sched/backfill 1 ;;
		datalocality) run "datalocality + cache" sched/datalocality 1 ;;
		nocache) run "backfill, no cache" sched/backfill 0 ;;
		*) echo "bench: unknown row $row" >&2; exit 2 ;;
		esac
		cat "$work/results" >>"$work/results.$round"
		: >"$work/results"
		cat "$work/notes" >>"$work/notes.$round"
		: >"$work/notes"
		cat "$work/arrivals" >>"$work/arrivals.$round"
		: >"$work/arrivals"
	done
	# Rows alternated: the next round runs them in the reverse order, so
	# that a drift of the host's load weighs on each row alike.
	# shellcheck disable=SC2086 # the rows, one word each
	order=$(printf '%s\n' $order | tac | paste -sd' ')
	if [ -n "$keep" ]; then mkdir -p "$keep" && cp "$work/results.$round" "$keep/results"; fi
	if [ "$ROUNDS" -gt 1 ]; then echo "round $round:" && table "$round"; fi
done
if [ "$ROUNDS" = 1 ]; then
	table 1
else
	# Every target over the rounds: each round's ratio, the median, the
	# spread (min-max), and the median against the target.
	echo
	echo "targets over $ROUNDS rounds (rows alternated; a round whose rows lagged has no ratios):"
	awk -F'|' '
		{ if (!($2 in goal)) ord[++nt] = $2; goal[$2] = $4; v[$2, ++n[$2]] = $3 }
		END {
			for (i = 1; i <= nt; i++) {
				k = ord[i]; m = n[k]; s = ""
				for (a = 1; a <= m; a++) { w[a] = v[k, a] + 0; s = s sprintf("%s%.2f", a > 1 ? " " : "", w[a]) }
				for (a = 2; a <= m; a++) { x = w[a]; for (b = a - 1; b > 0 && w[b] > x; b--) w[b + 1] = w[b]; w[b + 1] = x }
				med = (m % 2) ? w[(m + 1) / 2] : (w[m / 2] + w[m / 2 + 1]) / 2
				split(goal[k], g, " ")
				ok = (g[1] == ">=") ? med >= g[2] : med <= g[2]
				printf "  %-58s rounds %-20s median %5.2f (%.2f-%.2f)  target %s  %s\n", k, s, med, w[1], w[m], goal[k], ok ? "PASS" : "MISS"
			}
		}' "$work/targets"
fi
echo "runtime $((SECONDS - start)) s; load average of this host at the end: $(cut -d" " -f1-3 /proc/loadavg)"
