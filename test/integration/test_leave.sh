#!/usr/bin/env bash
# test_leave.sh - a placed job leaves a node that cannot serve, and a
# changed annotation is re-read (issue 26, items 2 and 3): the same
# submissions under plain sched/backfill and under sched/datalocality (two
# clusters, one after the other, 4 nodes of 2 CPUs, Slurm's power saving
# configured with scripts that only record their calls, so that an admin's
# power-down can be expressed).  Each job's files are 3 GB (sparse, no
# staging): a placed job would wait up to the 300-s cap for its data node.
#
#  (c) comment: two jobs placed on their busy data node A get a new
#      Comment=files:... by `scontrol update` (one a plain list, one an
#      @list reference) naming files cached on the idle node B: the planner
#      re-reads them and they start on B, not after A frees (60 s); a
#      third whose comment no longer names files starts elsewhere;
#  (v) reservation: `scontrol create reservation nodes=<data node>
#      users=nobody` (flags=ignore_jobs) while a job waits for it;
#  (f) FAIL: `scontrol update state=fail`;
#  (o) DOWN: `scontrol update state=down`;
#  (k) DOWN: the node's slurmd stopped, then the node marked down;
#  (p) powered down without resume: `scontrol update state=power_down`
#      (Slurm takes the node out when its jobs end and powers it off; it
#      would have to resume it for the job).
#  For each of v, f, o, k, p: the waiting job is re-placed (its list no
#  longer the node, or it started) within 2 s (times DL_TIME_SCALE) of the
#  event, starts within one backfill interval + slack, and its
#  SystemComment and the log say why it left.  Under backfill the same
#  job starts at once elsewhere (the side-by-side figures are printed).
#
# Needs DL_BUILD_DIR: a build tree configured --with-slurm-source.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${DL_BUILD_DIR:?set DL_BUILD_DIR to a build tree with the plugins}"
# shellcheck source=../cluster/cluster.sh
source "$here/../cluster/cluster.sh"
# shellcheck source=lib.sh
source "$here/lib.sh"

dl_t_side_settings
# shellcheck disable=SC2016
export DL_CLUSTER_PRE_START='
d=$DL_CLUSTER_DIR
for p in suspend resume; do
	printf "#!/bin/sh\necho \"%s \$1\" >>%s/run/power.calls\n" "$p" "$d" >"$d/etc/$p.sh"
	chmod 0755 "$d/etc/$p.sh"
done
# ReturnToService=1 (after the harness line of 2: the last one counts):
# a DOWN set by an admin stays DOWN.  Under 2, a DOWN node whose slurmd
# answers the next ping is returned to service at once (node_did_resp():
# "n1 returned to service" 15 ms after the update), and Slurm could start
# the waiting job there before the agent saw the node down.
printf "%s\n" "SuspendProgram=$d/etc/suspend.sh" "ResumeProgram=$d/etc/resume.sh" \
	SuspendTime=3600 SuspendTimeout=2 ResumeTimeout=30 ReturnToService=1 \
	>>"$d/etc/slurm.conf"
printf "StorageBandwidth=1e6\nWaitFactor=0.1\nMinWait=2\nMaxWait=300\n" \
	>"$d/etc/datalocality.conf"'
trap dl_cluster_stop EXIT

declare -A R
data='' out='' log='' run=''
# (every job of this test is --no-requeue: a job killed with its node must
# not come back and blur the next check)
export SBATCH_NO_REQUEUE=1
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# started JOBID: whether it runs or ran
started() { [[ $(dl_cluster_job_field "$1" JobState) =~ ^(RUNNING|COMPLETING|COMPLETED)$ ]]; }

start_cluster() {
	dl_t_side_start "$1"
	for g in ca cb v f o k p; do
		mkdir -p "$data/g$g"
		for f in 1 2 3; do truncate -s 1000M "$data/g$g/f$f"; done
	done
	printf '%s\n' "$data"/gca/f{1,2,3} >"$data/list.ca"
	printf '%s\n' "$data"/gcb/f{1,2,3} >"$data/list.cb"
}

# --- (c) a changed annotation is re-read ------------------------------------
check_comment() {
	local wa wb a b hold w1 w2 w3 t0 id st n ok
	wa=$(dl_t_sba ca -c 1 --wrap 'sleep 1')
	dl_t_wait_state "$wa" COMPLETED 30 || true
	a=$(dl_cluster_job_field "$wa" NodeList)
	wb=$(dl_t_sba cb -c 1 -x "$a" --wrap 'sleep 1')
	dl_t_wait_state "$wb" COMPLETED 30 || true
	b=$(dl_cluster_job_field "$wb" NodeList)
	hold=$(dl_t_sba ca -c 2 -w "$a" --wrap 'sleep 60')
	dl_t_wait_state "$hold" RUNNING 30 || true
	w1=$(dl_t_sba ca -c 1 --wrap 'sleep 1')
	w2=$(dl_t_sb --comment="files:@$data/list.ca" -c 1 --wrap 'sleep 1')
	w3=$(dl_t_sba ca -c 1 --wrap 'sleep 1')
	echo "  group ca cached on $a (busy 60 s), cb on $b; waiters $w1 $w2 $w3"
	if [ "$run" = datalocality ]; then
		n=0
		for id in $w1 $w2 $w3; do
			dl_t_wait_field "$id" ReqNodeList "^$a\$" 15 >/dev/null && n=$((n + 1))
		done
		dl_t_eq "$(dl_t_say c "the three waiters were placed on their busy data node $a")" 3 "$n"
	else
		sleep 2
	fi
	t0=$(date +%s)
	scontrol update jobid="$w1" comment="$(dl_t_files_of cb)" 2>/dev/null || true
	scontrol update jobid="$w2" comment="files:@$data/list.cb" 2>/dev/null || true
	# No files any more: the job is free to run anywhere within MinWait.
	scontrol update jobid="$w3" comment="no data" 2>/dev/null || true
	for id in $w3; do
		dl_t_wait_state "$id" 'RUNNING|COMPLETING|COMPLETED' 30 || true
		st=$(dl_t_job_time "$id" StartTime) || st=9999999999
		started "$id" || st=9999999999
		st=$((st - t0))
		[ $st -lt 0 ] && st=0
		echo "  $id (comment now without files) started $st s after the change, on $(dl_cluster_job_field "$id" NodeList)"
		dl_t_le "$(dl_t_say c "$id started within MinWait + one cycle of the change")" "$st" $((2 + BF_INTERVAL + SLACK))
	done
	for id in $w1 $w2; do
		dl_t_wait_state "$id" 'RUNNING|COMPLETING|COMPLETED' 30 || true
		st=$(dl_t_job_time "$id" StartTime) || st=9999999999
		started "$id" || st=9999999999
		st=$((st - t0))
		[ $st -lt 0 ] && st=0
		n=$(dl_cluster_job_field "$id" NodeList)
		echo "  $id started $st s after its comment changed, on $n"
		R[$run.comment.$id]=$st
		dl_t_le "$(dl_t_say c "$id started within one cycle of the change")" "$st" $((BF_INTERVAL + SLACK))
		if [ "$run" = datalocality ]; then
			dl_t_eq "$(dl_t_say c "$id ran on $b, where its new files are")" "$b" "$n"
		fi
	done
	R[$run.comment]=$(( ${R[$run.comment.$w1]} > ${R[$run.comment.$w2]} ?
			    ${R[$run.comment.$w1]} : ${R[$run.comment.$w2]} ))
	if [ "$run" = datalocality ]; then
		ok=0
		grep -q "JobId=$w1: its annotation changed" "$log" &&
			grep -q "JobId=$w2: its annotation changed" "$log" && ok=1
		dl_t_check "$(dl_t_say c "the log says both annotations were re-read")" test $ok = 1
	fi
	dl_t_drain
}

# --- (v f o k p) a node that cannot serve is left ------------------------------
# leave CASE GROUP WORD EVENT UNDO: a job waits for its busy data node;
# EVENT NODE takes the node out, UNDO NODE brings it back.
leave() {
	local c=$1 g=$2 word=$3 ev=$4 undo=$5 warm hold hnode w t0 t0s ms=999999
	local rq st sc deadline
	warm=$(dl_t_sba "$g" -c 1 --wrap 'sleep 1')
	dl_t_wait_state "$warm" COMPLETED 30 || true
	hnode=$(dl_cluster_job_field "$warm" NodeList)
	hold=$(dl_t_sba "$g" -c 2 -w "$hnode" --wrap 'sleep 60')
	dl_t_wait_state "$hold" RUNNING 30 || true
	w=$(dl_t_sba "$g" -c 1 --wrap 'sleep 1')
	if [ "$run" = datalocality ]; then
		rq=$(dl_t_wait_reason "$w" "^DataLocality:_waiting_for_${hnode}_" 15) || rq=
		dl_t_check "$(dl_t_say "$c" "$w waits for its busy data node $hnode")" test -n "$rq"
	else
		sleep 2
	fi
	t0=$(now_ms)
	t0s=$(date +%s)
	$ev "$hnode"
	# Re-placed: its list is no longer the node (widened or moved), or
	# it started.
	deadline=$((SECONDS + 20 * DL_TIME_SCALE))
	while [ $SECONDS -lt $deadline ]; do
		rq=$(dl_cluster_job_field "$w" ReqNodeList 2>/dev/null || true)
		st=$(dl_cluster_job_field "$w" JobState 2>/dev/null || true)
		if [ "$st" != PENDING ] || [ "$rq" != "$hnode" ]; then
			ms=$(($(now_ms) - t0))
			break
		fi
		sleep 0.1
	done
	dl_t_wait_state "$w" 'RUNNING|COMPLETING|COMPLETED' 30 || true
	st=$(dl_t_job_time "$w" StartTime) || st=9999999999
	started "$w" || st=9999999999
	st=$((st - t0s))
	[ $st -lt 0 ] && st=0
	echo "  $hnode $word: job $w re-placed after ${ms} ms, started $st s after on $(dl_cluster_job_field "$w" NodeList)"
	R[$run.$c]="$ms ms / $st s"
	dl_t_le "$(dl_t_say "$c" "re-placed within $(dl_t_secs 2) s of the event (ms)")" "$ms" $((2000 * DL_TIME_SCALE))
	dl_t_le "$(dl_t_say "$c" "it started within one cycle of the event")" "$st" $((BF_INTERVAL + SLACK))
	if [ "$run" = datalocality ]; then
		sc=$(dl_t_syscomment "$w")
		echo "  SystemComment: $sc"
		dl_t_check "$(dl_t_say "$c" "its SystemComment says $hnode was $word")" \
			grep -q "$hnode was $word" <<<"$sc"
		dl_t_check "$(dl_t_say "$c" "the log says it left $hnode")" \
			grep -q "widened JobId=$w: $hnode is $word" "$log"
	fi
	scancel "$hold" "$w" 2>/dev/null || true
	$undo "$hnode"
	dl_t_drain
}

resv_on() {
	scontrol create reservation reservationname="judge_$run" nodes="$1" \
		users=nobody starttime=now duration=10 flags=ignore_jobs >/dev/null
}
resv_off() { scontrol delete reservation="judge_$run" || true; }
fail_on() { scontrol update nodename="$1" state=fail reason=judge; }
down_on() { scontrol update nodename="$1" state=down reason=judge; }
kill_on() {
	dl_cluster_stop_slurmd "$1"
	scontrol update nodename="$1" state=down reason=judge-slurmd-stopped
}
resume() {
	scontrol update nodename="$1" state=resume 2>/dev/null || true
	dl_cluster_wait_nodes 'idle|mixed|allocated' 30 "$1" || true
}
kill_off() {
	dl_cluster_start_slurmd "$1"
	resume "$1"
}
power_on() { scontrol update nodename="$1" state=power_down; }
# The node stays powered down: this case comes last.
power_off() { :; }

want() { [[ " ${DL_LEAVE_CHECKS:-c v f o k p} " == *" $1 "* ]]; }
for r in ${DL_LEAVE_RUNS:-backfill datalocality}; do
	start_cluster "$r"
	want c && check_comment
	want v && leave v v reserved resv_on resv_off
	want f && leave f f failing fail_on resume
	want o && leave o o down down_on resume
	want k && leave k k down kill_on kill_off
	want p && leave p p 'powered down' power_on power_off
	dl_t_check "$(dl_t_say - "slurmctld still answers")" bash -c 'scontrol ping | grep -q UP'
	dl_cluster_stop
done
echo "# --- datalocality against backfill (re-placed / started after the event) ---"
for k in comment v f o k p; do
	echo "  $k: backfill ${R[backfill.$k]:--}, datalocality ${R[datalocality.$k]:--}"
done
dl_t_summary
