#!/usr/bin/env bash
# demo.sh - build everything, start a throwaway 4-node Slurm cluster on
# this machine with sched/datalocality, run a small biomedical-style
# workload (jobs analysing images of a few patients, sharing them), and
# print where each job ran and how much of its input was already cached
# on that node.  Needs root on Debian 12; installs what is missing.
#
# Usage: demo.sh [--slurm VERSION]
#   --slurm 24.11.5  run on Slurm 24.11.5 (Debian 13's) instead of the
#                    installed 22.05: built from source into its own prefix
#                    by contrib/setup-slurm.sh the first time (about 10 min
#                    on 2 cores),
#                    the plugins built against it in _build/main-VERSION.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
slurm=
case "${1:-}" in
--slurm) slurm=${2:?--slurm needs a version, e.g. 24.11.5} ;;
--slurm=*) slurm=${1#--slurm=} ;;
"") ;;
*) echo "usage: $0 [--slurm VERSION]" >&2; exit 2 ;;
esac
if [ -n "$slurm" ]; then
	src=$("$top/contrib/setup-slurm.sh" "$slurm" | tail -1)
	export DL_SLURM_PREFIX
	DL_SLURM_PREFIX=$("$top/contrib/setup-slurm.sh" -p "$slurm" | tail -1)
	build=$(DL_SLURM_SOURCE="$src" "$top/contrib/build.sh" \
		"$top/_build/main-$slurm" | tail -1)
else
	build=$("$top/contrib/build.sh" "$top/_build/main" | tail -1)
fi
# shellcheck source=../test/cluster/cluster.sh
source "$top/test/cluster/cluster.sh"

export DL_SCHED_TYPE=sched/datalocality
export DL_SCHED_PARAMS=bf_interval=1
export DL_JOB_SUBMIT=datalocality
export DL_PLUGIN_DIR="$build/.libs"
# slurmctld inherits it: the partitioner helper of this build.
export DL_PARTITIOND="$build/dl-partitiond"
export DL_NODES=${DL_NODES:-4}
export DL_CLUSTER_QUIET=1
# dl-stage copies each job's files into its node's cache before it runs.
export DL_PROLOG="$build/dl-stage" DL_EPILOG="$build/dl-stage"
export DL_CLUSTER_EXTRA_CONF="TaskProlog=$build/dl-stage"
trap dl_cluster_stop EXIT
dl_cluster_init
# WaitFactor: the cost model sees one server's 20 MiB/s, but the four nodes
# share two servers, so a fetch costs several times that when all stage at
# once; a job may wait that much longer for the node that has its data.
cat >"$DL_CLUSTER_DIR/etc/datalocality.conf" <<CONF
CacheDir=$DL_CLUSTER_DIR/cache/%n
CacheCapacity=128M
StorageBandwidth=20M
WaitFactor=6
EmulateStorageBandwidth=20M
EmulateStorageServers=2
EmulateStorageLockDir=$DL_CLUSTER_DIR
CONF
dl_cluster_start
log=$(dl_cluster_log_ctld)
data=$DL_CLUSTER_DIR/storage
echo "cluster: $DL_NODES nodes (n1-n$DL_NODES), Slurm $(dl_cluster_slurm_version), slurmctld with sched/datalocality (Online-HPS),"
echo "         dl-stage staging into 128 MiB node caches, shared storage emulated as 2 servers x 20 MiB/s"

# 6 patients with 6 images each (MRI 4 MiB, CT 8 MiB: the paper's 4/64 MB,
# scaled down); 24 jobs, each analysing 4 images of one patient.
npat=6 nimg=6 njobs=24
for p in $(seq 1 $npat); do
	for i in $(seq 1 $nimg); do
		sz=$(( i % 2 ? 4 : 8 ))
		mkdir -p "$data/patient$p"
		head -c $((sz << 20)) /dev/urandom >"$data/patient$p/img$i.dcm"
	done
done
RANDOM=42
echo "workload: $njobs jobs over $npat patients, 4 of 6 images each, random order"
ids=()
for j in $(seq 1 $njobs); do
	p=$((RANDOM % npat + 1))
	first=$((RANDOM % (nimg - 3) + 1))
	files=""
	for i in $(seq "$first" $((first + 3))); do
		files+="${files:+,}$data/patient$p/img$i.dcm"
	done
	ids+=("$(sbatch --parsable -J "p$p" -o /dev/null --comment="files:$files" \
		--wrap 'cat $DL_CACHE_VIEW'"${files//,/ \$DL_CACHE_VIEW}"' | md5sum >/dev/null; sleep 1')")
done
dl_cluster_wait_jobs_done 300

printf '\n%-6s %-8s %-5s %-26s %s\n' JobId patient node "plan: cached on the node" "staging: found cached / copied from storage"
tot_files=0 hit_files=0 hit_bytes=0 copy_bytes=0
mib() { awk -v b="$1" -v u="$2" 'BEGIN { m = (u == "GiB") ? 1024 : (u == "KiB" ? 1/1024 : (u == "B" ? 1/1048576 : 1)); printf "%.1f", b * m }'; }
for id in "${ids[@]}"; do
	node=$(dl_cluster_job_field "$id" NodeList)
	name=$(dl_cluster_job_field "$id" JobName)
	plan=$(grep "started JobId=$id on" "$log" | tail -1 |
		sed -n 's/.*; \([0-9]*\/[0-9]*\) files, \(.*\) cached.*/\1 files, \2/p')
	# dl-stage: "job N on nX: 4 files: 3 cached (12.0 MiB), 1 copied (4.0 MiB), ..."
	st=$(grep -h "job $id on $node:" "$DL_CLUSTER_DIR/cache/$node/.log" | tail -1)
	read -r nf hc hb hu cc cb cu < <(sed -n 's/.*: \([0-9]*\) files: \([0-9]*\) cached (\([0-9.]*\) \([KMGi]*B\)), \([0-9]*\) copied (\([0-9.]*\) \([KMGi]*B\)).*/\1 \2 \3 \4 \5 \6 \7/p' <<<"$st")
	printf '%-6s %-8s %-5s %-26s %s\n' "$id" "$name" "$node" "${plan:-?}" "$hc cached ($hb $hu), $cc copied ($cb $cu)"
	tot_files=$((tot_files + nf))
	hit_files=$((hit_files + hc))
	hit_bytes=$(awk -v a="$hit_bytes" -v b="$(mib "$hb" "$hu")" 'BEGIN { print a + b }')
	copy_bytes=$(awk -v a="$copy_bytes" -v b="$(mib "$cb" "$cu")" 'BEGIN { print a + b }')
done
echo
echo "jobs completed: $(scontrol show job -o | grep -c 'JobState=COMPLETED') of $njobs (each read its images through its node's cache)"
echo "input files found already cached on the job's node: $hit_files of $tot_files ($((100 * hit_files / tot_files))%)"
echo "input read from node caches: $hit_bytes MiB; copied from shared storage: $copy_bytes MiB"
echo "(contrib/bench_cluster.sh compares the same kind of workload under Slurm's sched/backfill with the same caches)"
