#!/usr/bin/env bash
# test_timelimit.sh - staging is not charged to a job's time limit (issue
# 26, item 5): a `-t 1` job whose 75 MiB of input take 75 s to stage at a
# throttled 1 MiB/s completes, where it ended TIMEOUT before (RunTime
# 1:22 against TimeLimit 1:00); the limit itself is still enforced.
#
# Namespaced nodes with dl-cached and dl-stage as Prolog, Epilog and
# TaskProlog (dl_t_use_services), the shared storage emulated as 3
# servers of one transfer at a time at 1 MiB/s (EmulateStorage*), and
# StorageBandwidth=1M for the agent's bound.  Jobs, all `-t 1`, submitted
# together on 3 nodes of 1 CPU, run as nobody:
#
#  (a) A reads 75 MiB (three files) through $DL_CACHE_VIEW, compares
#      them with their sources and computes 20 s: it COMPLETED, after
#      more than its minute plus the 30 s between slurmctld's limit
#      checks (charged for its staging, it would have been killed: on
#      the commit before this test it ends TIMEOUT), and its
#      SystemComment and slurmctld's log say its staging was not charged
#      to the time limit;
#  (b) B, no input, sleeps 300 s: TIMEOUT, killed between its minute and
#      the limit check's period (30 s) plus a margin for a busy host;
#  (c) C reads 4 MiB (4 s of staging alone; up to a minute more when its
#      file's emulated server also serves one of A's) then sleeps 300 s:
#      TIMEOUT too, its credit only its staging (at least 3 s, and never
#      above its bound, twice 4 MiB at 1 MiB/s plus a minute);
#  (d) under sched/backfill without the plugin (the same nodes, services
#      and job as A, a cluster of its own run beside this one by this
#      script, DL_TL_PART=backfill), nothing changes: A ends TIMEOUT with
#      no SystemComment, as today;
#  (e) under the plugstack entry point (sched/backfill with
#      SlurmctldPlugstack=datalocality; on 24.11 JobSubmitPlugins=
#      datalocality,datalocality_agent), (a) to (c) again, on a third
#      cluster run beside (DL_TL_PART=plugstack).
#
# DL_TL_PARTS (default "backfill plugstack") chooses the clusters run
# beside.  Needs DL_BUILD_DIR (plugins, dl-stage, dl-cached); root.
# About 2 minutes on an idle host (the clusters run at the same time).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${DL_BUILD_DIR:?set DL_BUILD_DIR to a build tree with the plugins}"
# shellcheck source=../cluster/cluster.sh
source "$here/../cluster/cluster.sh"
# shellcheck source=lib.sh
source "$here/lib.sh"

part=${DL_TL_PART:-datalocality}
MIB=$((1024 * 1024))

case $part in
backfill)
	dl_t_use_services test_timelimit 1
	# No plugin at all: Slurm's own scheduler, nodes as in (a).
	export DL_SCHED_TYPE=sched/backfill DL_JOB_SUBMIT=
	;;
plugstack)
	dl_t_use_services test_timelimit 3
	dl_t_plugstack
	;;
*)
	dl_t_use_services test_timelimit 3
	;;
esac

children=()
cleanup() {
	local p
	# The other clusters' scripts stop theirs on TERM (their EXIT trap).
	for p in "${children[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${children[@]}"; do wait "$p" 2>/dev/null || true; done
	dl_cluster_stop
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

dl_cluster_init
locks=$DL_CLUSTER_DIR/locks
data=$DL_CLUSTER_DIR/data
out=$DL_CLUSTER_DIR/out
mkdir -p "$locks"
chmod 777 "$locks"
chmod 1777 "$out"
cat >"$DL_CLUSTER_DIR/etc/datalocality.conf" <<CONF
CacheDir=$DL_NODE_CACHE_DIR
CacheCapacity=200M
StorageBandwidth=$MIB
EmulateStorageBandwidth=$MIB
EmulateStorageServers=3
EmulateStorageLockDir=$locks
$(dl_cluster_service_conf)
CONF
export DL_NODE_CACHE_SIZE=256m
dl_cluster_start
log=$(dl_cluster_log_ctld)

for k in 1 2 3; do dl_t_mkfile "$data/a/in$k" 25; done
dl_t_mkfile "$data/c/in" 4
chmod -R a+rX "$data"
# Files are "recently changed" for a second or two after they are
# written (dl-stage then checks them by content).
sleep 2

afiles="$data/a/in1,$data/a/in2,$data/a/in3"
# job NAME FILES SCRIPT : a -t 1 job of nobody; FILES "" for none
job() {
	local cm=()
	[ -n "$2" ] && cm=(--comment="files:$2")
	sbatch --parsable --uid=nobody --gid=nogroup -t 1 -J "$1" \
		--chdir="$out" -o "$out/%j.out" "${cm[@]}" --wrap "$3"
}
# shellcheck disable=SC2016 # the job's shell expands them
check_a='for f in '"${afiles//,/ }"'; do cmp "$DL_CACHE_VIEW$f" "$f" || exit 1; done; sleep 20'
# sc JOBID : its SystemComment (printed before Comment= and StdErr=)
sc() {
	scontrol show job -o "$1" | sed -n 's/.*SystemComment=//p' |
		sed 's/ Comment=.*//; s/ StdErr=.*//'
}
runtime() { # seconds from StartTime to EndTime
	local s e
	s=$(dl_t_job_time "$1" StartTime) && e=$(dl_t_job_time "$1" EndTime) &&
		echo $((e - s))
}
report() { # one line per job for the log
	echo "  $2: JobId=$1 $(scontrol show job -o "$1" | grep -o 'JobState=[^ ]*\|RunTime=[^ ]*\|TimeLimit=[^ ]*\|NodeList=[^ ]*' | tr '\n' ' ')"
	echo "  $2: SystemComment '$(sc "$1")'"
}

if [ "$part" = backfill ]; then
	# (d): the same job as A, on sched/backfill without the plugin.
	a=$(job A "$afiles" "$check_a")
	dl_t_wait_state "$a" 'COMPLETED|TIMEOUT|FAILED|CANCELLED|NODE_FAIL' 150 || true
	report "$a" "(d) A under sched/backfill"
	dl_t_eq "(d) under sched/backfill A ends TIMEOUT as before (its staging is charged)" \
		TIMEOUT "$(dl_cluster_job_field "$a" JobState)"
	dl_t_eq "(d) under sched/backfill A has no SystemComment" "" "$(sc "$a")"
	dl_t_summary
	exit
fi

# (d) and (e) run beside: their clusters have ports and directories of
# their own.
if [ "$part" = datalocality ]; then
	for p in ${DL_TL_PARTS-backfill plugstack}; do
		DL_TL_PART=$p DL_CLUSTER_QUIET=1 bash "$0" >"$out/$p.log" 2>&1 &
		children+=("$!")
	done
fi

# Staging is told to the controller by the node services: all in first.
services() { [ "$(grep -o 'node n[0-9]* service connected' "$log" | sort -u | wc -l)" -ge 3 ]; }
dl_t_check "the 3 node services are connected" dl_t_wait_until 60 services

a=$(job A "$afiles" "$check_a")
b=$(job B "" "sleep 300")
c=$(job C "$data/c/in" "sleep 300")
echo "  jobs: A=$a B=$b C=$c (each -t 1)"
done_re='COMPLETED|TIMEOUT|FAILED|CANCELLED|NODE_FAIL|OUT_OF_MEMORY'

# (a)
dl_t_wait_state "$a" "$done_re" 150 || true
report "$a" "(a) A"
dl_t_eq "(a) A (-t 1, 75 MiB at 1 MiB/s) COMPLETED" COMPLETED \
	"$(dl_cluster_job_field "$a" JobState)"
rt=$(runtime "$a" || echo 0)
dl_t_le "(a) A ran past its minute and a limit check (${rt} s): its staging was not charged" 91 "$rt"
sca=$(sc "$a")
dl_t_check "(a) A's SystemComment says its staging was not charged" \
	grep -qE 'staging [0-9]+ s on n[0-9]+ not charged to the time limit' <<<"$sca"
dl_t_check "(a) slurmctld's log says so for A" \
	grep -qE "JobId=$a: staging [0-9]+ s on n[0-9]+ not charged to the time limit" "$log"
secs=$(sed -n 's/.*staging \([0-9]*\) s on.*/\1/p' <<<"$sca")
dl_t_le "(a) A's credit (${secs:-?} s) is at least 60 s of its 75 MiB at 1 MiB/s" 60 "${secs:-0}"
dl_t_le "(a) A's credit is no more than it ran" "${secs:-0}" "$rt"

# (b)
dl_t_wait_state "$b" "$done_re" 150 || true
report "$b" "(b) B"
dl_t_eq "(b) B (no input, sleeps 300 s) still ends TIMEOUT" TIMEOUT \
	"$(dl_cluster_job_field "$b" JobState)"
rt=$(runtime "$b" || echo 0)
dl_t_le "(b) B was not killed before its minute (${rt} s)" 60 "$rt"
dl_t_le "(b) B was killed within its minute plus the check's period and a margin" "$rt" 150
dl_t_eq "(b) B has no SystemComment" "" "$(sc "$b")"

# (c)
dl_t_wait_state "$c" "$done_re" 150 || true
report "$c" "(c) C"
dl_t_eq "(c) C (4 MiB, sleeps 300 s) still ends TIMEOUT" TIMEOUT \
	"$(dl_cluster_job_field "$c" JobState)"
scc=$(sc "$c")
secs=$(sed -n 's/.*staging \([0-9]*\) s on.*/\1/p' <<<"$scc")
dl_t_le "(c) C's credit (${secs:-?} s) is at least its 4 s of staging" 3 "${secs:-0}"
# The bound: twice 4 MiB at 1 MiB/s plus a minute.
dl_t_le "(c) C's credit is within the bound by its bytes (68 s)" "${secs:-999}" 68
rt=$(runtime "$c" || echo 0)
dl_t_le "(c) C was killed within its minute, its credit, the check's period and a margin" \
	"$rt" $((150 + ${secs:-0}))

# (d) and (e), from the clusters beside: their checks counted here.
k=0
for p in ${DL_TL_PARTS-backfill plugstack}; do
	[ "$part" = datalocality ] || break
	wait "${children[$k]}" && rc=0 || rc=$?
	children[k]=
	k=$((k + 1))
	sed "s/^/  [$p] /" "$out/$p.log" | grep -v "^  \[$p\] \(ok\|FAIL\) \|passed, .* failed$" || true
	while read -r st desc; do
		if [ "$st" = ok ]; then dl_t_ok "$p: $desc"; else dl_t_fail "$p: $desc"; fi
	done < <(sed -n 's/^\(ok\|FAIL\) *- \(.*\)/\1 \2/p' "$out/$p.log")
	dl_t_eq "$p: its cluster's script ran to its end (exit $rc)" 0 "$rc"
done

dl_t_eq "slurmctld is still up" 0 "$(scontrol ping >/dev/null 2>&1; echo $?)"
dl_t_summary
