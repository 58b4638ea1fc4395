#!/usr/bin/env bash
# bench_cluster.sh - the same high-sharing workload on a real local Slurm
# cluster (4 nodes, 1 CPU each), three ways:
#   builtin+cache   sched/builtin (Slurm's data-oblivious default) with
#                   dl-stage staging into node-local caches
#   datalocality    sched/datalocality with the same staging and caches
#   builtin, no cache  sched/builtin, jobs read straight from storage
# and prints mean response time and bytes read from shared storage for
# each, and the ratios.
#
# On one machine the "shared storage" is as fast as the local disk, so it
# is given a realistic cost: STORAGE_SERVERS servers, each serving one
# transfer at a time at STORAGE_BW bytes/s (the end-point contention model
# of online-hps-khanna §4.3).  dl-stage's copies take the server's lock and
# are paced (EmulateStorage* in datalocality.conf); in the no-cache run,
# jobs read through the same locks with pv at the same rate.
#
#   contrib/bench_cluster.sh [BUILD_DIR]        (about 3 minutes; root)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/_build/main}
[ -x "$build/dl-stage" ] || build=$("$top/contrib/build.sh" "$build" | tail -1)
STORAGE_BW=${STORAGE_BW:-$((20 * 1048576))}
STORAGE_SERVERS=${STORAGE_SERVERS:-2}
NJOBS=${NJOBS:-48}
CACHE=${CACHE:-48M}
# shellcheck source=../test/cluster/cluster.sh
source "$top/test/cluster/cluster.sh"
export DL_CLUSTER_QUIET=1 DL_NODES=4
export DL_PLUGIN_DIR="$build/.libs" DL_PARTITIOND="$build/dl-partitiond"
work=$(mktemp -d /tmp/dl_bench.XXXXXX)
chmod 755 "$work"
trap 'dl_cluster_stop; rm -rf "$work"' EXIT

# The workload: 8 patients x 4 images of 4 MiB; each job analyses 3
# images of one patient (high sharing), 0.5 s of compute; all submitted
# at once in a random but fixed order.
data=$work/storage
RANDOM=7
for p in $(seq 1 8); do
	mkdir -p "$data/p$p"
	for i in 1 2 3 4; do head -c $((4 << 20)) /dev/urandom >"$data/p$p/img$i"; done
done
chmod -R a+rX "$data"
jobs=()
for j in $(seq 1 "$NJOBS"); do
	p=$((RANDOM % 8 + 1)) first=$((RANDOM % 2 + 1))
	jobs+=("$data/p$p/img$first,$data/p$p/img$((first + 1)),$data/p$p/img$((first + 2))")
done
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

run() { # run NAME SCHED CACHED(0/1)
	local name=$1 sched=$2 cached=$3 start end resp=0 n=0 bytes=0 id f
	mkdir -p "$work/locks"
	export DL_SCHED_TYPE=$sched DL_JOB_SUBMIT=datalocality
	if [ "$sched" = sched/datalocality ]; then
		export DL_SCHED_PARAMS=sched_interval=-1,defer
	else
		export DL_SCHED_PARAMS=""
	fi
	if [ "$cached" = 1 ]; then
		export DL_PROLOG="$build/dl-stage" DL_EPILOG="$build/dl-stage"
		export DL_CLUSTER_EXTRA_CONF="TaskProlog=$build/dl-stage"
	else
		export DL_PROLOG="" DL_EPILOG="" DL_CLUSTER_EXTRA_CONF=""
	fi
	dl_cluster_init
	cat >"$DL_CLUSTER_DIR/etc/datalocality.conf" <<-EOF
		CacheDir=$DL_CLUSTER_DIR/cache/%n
		CacheCapacity=$CACHE
		EvictionPolicy=value
		StorageBandwidth=$STORAGE_BW
		EmulateStorageBandwidth=$STORAGE_BW
		EmulateStorageServers=$STORAGE_SERVERS
		EmulateStorageLockDir=$work/locks
	EOF
	dl_cluster_start
	local ids=()
	for f in "${jobs[@]}"; do
		if [ "$cached" = 1 ]; then
			ids+=("$(sbatch --parsable -o /dev/null --comment="files:$f" \
				--wrap 'cat $DL_CACHE_VIEW'"${f//,/ \$DL_CACHE_VIEW}"' >/dev/null; sleep 0.5')")
		else
			ids+=("$(sbatch --parsable -o /dev/null --comment="files:$f" \
				--wrap "$work/read-direct.sh ${f//,/ }; sleep 0.5")")
		fi
	done
	dl_cluster_wait_jobs_done 900
	for id in "${ids[@]}"; do
		line=$(scontrol show job -o "$id")
		start=$(date -d "$(sed -n 's/.* SubmitTime=\([^ ]*\).*/\1/p' <<<"$line")" +%s)
		end=$(date -d "$(sed -n 's/.* EndTime=\([^ ]*\).*/\1/p' <<<"$line")" +%s)
		grep -q 'JobState=COMPLETED' <<<"$line" || echo "bench: JobId=$id did not complete" >&2
		resp=$((resp + end - start))
		n=$((n + 1))
	done
	if [ "$cached" = 1 ]; then
		# dl-stage logs every copy it made from the storage.
		bytes=$(cat "$DL_CLUSTER_DIR"/cache/n*/.log 2>/dev/null |
			sed -n 's/.* \([0-9]*\) copied (\([0-9.]*\) \([KMG]*i*B\)).*/\2 \3/p' |
			awk '{ m = ($2 == "GiB") ? 1073741824 : ($2 == "MiB") ? 1048576 : ($2 == "KiB") ? 1024 : 1; s += $1 * m } END { printf "%.0f", s }')
	else
		for f in "${jobs[@]}"; do
			for x in ${f//,/ }; do bytes=$((bytes + $(stat -c %s "$x"))); done
		done
	fi
	dl_cluster_stop
	awk -v n="$name" -v r="$resp" -v c="$n" -v b="$bytes" \
		'BEGIN { printf "%-22s %8.1f s %10.1f MiB\n", n, r / c, b / 1048576 }' | tee -a "$work/results"
}

echo "workload: $NJOBS jobs, 3 of the 4 images (4 MiB) of one of 8 patients each, 0.5 s compute; 4 nodes x 1 CPU; cache $CACHE per node"
echo "shared storage: $STORAGE_SERVERS servers, one transfer at a time each, $((STORAGE_BW / 1048576)) MiB/s"
printf '%-22s %10s %14s\n' "" "mean resp" "from storage"
run "builtin, no cache" sched/builtin 0
run "builtin + cache" sched/builtin 1
run "datalocality + cache" sched/datalocality 1
awk '{ r[NR] = $(NF - 3); b[NR] = $(NF - 1) }
     END { printf "\nresponse time: builtin+cache / datalocality = %.2f, no cache / datalocality = %.2f\n", r[2] / r[3], r[1] / r[3];
           printf "bytes from storage: builtin+cache / datalocality = %.2f, no cache / datalocality = %.2f\n", b[2] / b[3], b[1] / b[3] }' "$work/results"
