#!/usr/bin/env bash
# demo.sh - build everything, start a throwaway 4-node Slurm cluster on
# this machine with sched/datalocality, run a small biomedical-style
# workload (jobs analysing images of a few patients, sharing them), and
# print where each job ran and how much of its input was already cached
# on that node.  Needs root on Debian 12; installs what is missing.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$("$top/contrib/build.sh" "$top/_build/main" | tail -1)
# shellcheck source=../test/cluster/cluster.sh
source "$top/test/cluster/cluster.sh"

export DL_SCHED_TYPE=sched/datalocality
export DL_SCHED_PARAMS=sched_interval=-1,defer
export DL_JOB_SUBMIT=datalocality
export DL_PLUGIN_DIR="$build/.libs"
# slurmctld inherits it: the partitioner helper of this build.
export DL_PARTITIOND="$build/dl-partitiond"
export DL_NODES=${DL_NODES:-4}
export DL_CLUSTER_QUIET=1
trap dl_cluster_stop EXIT
dl_cluster_start
log=$(dl_cluster_log_ctld)
data=$DL_CLUSTER_DIR/storage
echo "cluster: $DL_NODES nodes (n1-n$DL_NODES), slurmctld with sched/datalocality, in $DL_CLUSTER_DIR"

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
		--wrap "cat ${files//,/ } | md5sum >/dev/null; sleep 1")")
done
dl_cluster_wait_jobs_done 300

printf '\n%-7s %-9s %-5s %-22s\n' JobId patient node "input cached at start"
tot_files=0 hit_files=0 tot_bytes=0 hit_bytes=0
for id in "${ids[@]}"; do
	node=$(dl_cluster_job_field "$id" NodeList)
	name=$(dl_cluster_job_field "$id" JobName)
	line=$(grep "started JobId=$id on" "$log" | tail -1)
	hits=$(sed -n 's/.*planned [^:]*: \([0-9]*\)\/\([0-9]*\) files, \(.*\) cached.*/\1 \2 \3/p' <<<"$line")
	read -r h n b u <<<"$hits"
	printf '%-7s %-9s %-5s %s/%s files, %s %s\n' "$id" "$name" "$node" "$h" "$n" "$b" "$u"
	tot_files=$((tot_files + n))
	hit_files=$((hit_files + h))
	mib=$(awk -v b="$b" -v u="$u" 'BEGIN { m = (u == "GiB") ? 1024 : (u == "KiB" ? 1/1024 : (u == "B" ? 1/1048576 : 1)); printf "%d", b * m + 0.5 }')
	hit_bytes=$((hit_bytes + mib))
done
for id in "${ids[@]}"; do
	for f in $(scontrol show job -o "$id" | sed -n 's/.*Comment=files:\([^ ]*\).*/\1/p' | tr ',' ' '); do
		tot_bytes=$((tot_bytes + $(stat -c %s "$f") / 1048576))
	done
done
echo
echo "jobs completed: $(scontrol show job -o | grep -c 'JobState=COMPLETED') of $njobs"
echo "input files found cached on the job's node: $hit_files of $tot_files ($((100 * hit_files / tot_files))%)"
echo "input bytes found cached: $hit_bytes MiB of $tot_bytes MiB ($((100 * hit_bytes / tot_bytes))%); read from shared storage: $((tot_bytes - hit_bytes)) MiB"
