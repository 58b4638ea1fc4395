#!/usr/bin/env bash
# test_quota.sh - one free slot widens one job (issue 30; dl_place_quota()
# in dl_place.h), on a real cluster of 4 nodes of 2 CPUs under
# sched/datalocality:
#
#  (q) a group's files are cached on a data node D; D is then held busy
#      (2 CPUs, 120 s) and so are the other nodes but for ONE free CPU.
#      Three jobs of the group (1 CPU, 90 s) are placed on D, all three
#      blocked (D full, a CPU free elsewhere).  Slurm's backfill would
#      start one of them on the free CPU; the other two would wait under
#      backfill too.  So only the first in Slurm's order counts its wait:
#      it is widened at its bound and starts on the free CPU, and the
#      two behind it stay placed on D, not widened (before the quota all
#      three were widened at the same cycle and lost their placement).
#
# Needs DL_BUILD_DIR: a build tree configured --with-slurm-source.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${DL_BUILD_DIR:?set DL_BUILD_DIR to a build tree with the plugins}"
# shellcheck source=../cluster/cluster.sh
source "$here/../cluster/cluster.sh"
# shellcheck source=lib.sh
source "$here/lib.sh"

export DL_NODES=4 DL_NODE_CPUS=2
export DL_SCHED_PARAMS="bf_interval=2"
# Storage at 1 MB/s, a job waits a tenth of what re-reading its files
# costs: 3 s for its 30 MB (sparse files: only their sizes matter).
# shellcheck disable=SC2016
export DL_CLUSTER_PRE_START='
printf "StorageBandwidth=1e6\nWaitFactor=0.1\nMinWait=2\nMaxWait=300\n" \
	>"$DL_CLUSTER_DIR/etc/datalocality.conf"'
trap dl_cluster_stop EXIT

data='' out='' log='' run=''
dl_t_side_start datalocality
dl_t_file_groups '10M 10M 10M' q

warm=$(dl_t_sba q -c 1 --wrap 'sleep 1')
dl_t_wait_state "$warm" COMPLETED 30 || true
dnode=$(dl_cluster_job_field "$warm" NodeList)
echo "  group q cached on $dnode (JobId=$warm ran there)"
# Every CPU busy for 120 s but one, on the last other node (the waiters
# run 90 s, so that no room comes back while the test looks).
holds=()
others=()
for n in n1 n2 n3 n4; do [ "$n" = "$dnode" ] || others+=("$n"); done
holds+=("$(dl_t_sb --nodelist="$dnode" -c 2 --wrap 'sleep 120')")
holds+=("$(dl_t_sb --nodelist="${others[0]}" -c 2 --wrap 'sleep 120')")
holds+=("$(dl_t_sb --nodelist="${others[1]}" -c 2 --wrap 'sleep 120')")
holds+=("$(dl_t_sb --nodelist="${others[2]}" -c 1 --wrap 'sleep 120')")
for h in "${holds[@]}"; do dl_t_wait_state "$h" RUNNING 30 || true; done
free_node=${others[2]}
echo "  every CPU busy but one on $free_node (${holds[*]})"

ws=()
for i in 1 2 3; do ws+=("$(dl_t_sba q -c 1 --wrap 'sleep 90')"); done
echo "  waiters ${ws[*]}"
# The first starts within its bound (3 s) and a few cycles.
dl_t_wait_state "${ws[0]}" 'RUNNING|COMPLETING|COMPLETED' 30 || true
first_node=$(dl_cluster_job_field "${ws[0]}" NodeList)
dl_t_check "(q) the first waiter started on the free CPU ($first_node)" \
	test "$first_node" = "$free_node"
# Now no node has room: the two behind it are not blocked.  Give the
# agent several cycles to do what it would do.
sleep "$(dl_t_secs 5)"
placed_on_d=0 widened=0
for w in "${ws[@]}"; do
	grep -q "placed JobId=$w on $dnode " "$log" && placed_on_d=$((placed_on_d + 1))
	grep -q "widened JobId=$w[: ]" "$log" && widened=$((widened + 1))
done
for w in "${ws[1]}" "${ws[2]}"; do
	echo "  JobId=$w: $(dl_cluster_job_field "$w" JobState), $(dl_cluster_job_field "$w" Reason)"
done
dl_t_eq "(q) all three waiters were placed on the data node $dnode" 3 "$placed_on_d"
dl_t_eq "(q) one of them was widened, for the one free CPU" 1 "$widened"
for w in "${ws[1]}" "${ws[2]}"; do
	dl_t_check "(q) JobId=$w still waits for $dnode, placed (SystemComment)" \
		bash -c "scontrol show job -o $w | grep -q 'SystemComment=datalocality: ReqNodeList=$dnode '"
done
dl_t_check "(q) slurmctld still answers" bash -c 'scontrol ping | grep -q UP'
dl_t_summary
