#!/usr/bin/env bash
# test_hetjob.sh - hetjob components placed each as a job (issue 26, item
# 4; agent_het.h): the same submissions under plain sched/backfill and
# under backfill beside the agent (SlurmctldPlugstack=datalocality; on a
# Slurm without it, 24.11, JobSubmitPlugins=datalocality,
# datalocality_agent), on 4 nodes of 2 CPUs.  Slurm schedules hetjobs
# with sched/backfill only, and starts all components together.
#
#  (s) split: a hetjob of two one-CPU components, component 0 reading
#      files cached on n3 (by a job pinned there with -w), component 1
#      files cached on n4: with the agent each runs on its data node and
#      its SystemComment says so; under backfill it runs at once, anywhere;
#  (o) one node: both components read files cached on n3 only.  Slurm
#      forbids two components on one required node ("to avoid scheduling
#      deadlock"): with the agent one component runs on n3, the other on
#      another node, and the hetjob starts within its bound + backfill's
#      interval + slack (never PENDING for good, as when both were placed
#      on n3); under backfill it runs at once;
#  (w) waited for as a whole: as (s) with n3 taken by a 2-CPU job for
#      60 s: component 0 waits for n3, component 1 (whose n4 is free)
#      waits with it, at most the hetjob's bound (6.3 s), then both are
#      widened and the hetjob runs; under backfill at once.
#  (t) three components: one-CPU ones with files on n4 and with none, one
#      of two nodes with files on n1 and n3: with the agent the first
#      runs on n4 and the two-node one on n[1,3] (as a multi-node job,
#      agent_multi.h); under backfill all run at once, anywhere;
#  (z) planned: the leader names no files, component 1's are on n1, which
#      backfill plans for the leader: with the agent component 1 is
#      widened off n1 and the hetjob starts within its bound + backfill's
#      interval + slack; under backfill at once;
#  (x) (run "window", the plugstack's with PlanWindow=1): the leader is
#      placed on n3, then component 1 (files on n3 too) is given a higher
#      priority, which puts it in the window and the leader out; the
#      hetjob still starts within its bound + backfill's interval + slack
#      and its components run on two nodes.
#  In every run each component's SystemComment is true to where it ran
#  (a "ran on X" names its node) and each completes.
#
# Against the code before agent_het.c (889a9e6's parent: components never
# placed) the plugstack run fails 8 of its 26 checks: (s) both components
# run on n1 and n2, (o) none on n3, (w) component 0 never waits for n3.
# With components placeable but without agent_het.c's rules (the first
# attempt of design.md), (o) places both on n3 and the hetjob is still
# PENDING after 180 s.  Against fea098e (multi-node components
# not placed, the exclusion and the window from the snapshot only), (t)
# fails 2 of its checks (component 1 ran on n[1-2]) and (x) 4 (the
# hetjob still PENDING after 60 s: both components placed on n3).
#
# Needs DL_BUILD_DIR: a build tree configured --with-slurm-source.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${DL_BUILD_DIR:?set DL_BUILD_DIR to a build tree with the plugins}"
# shellcheck source=../cluster/cluster.sh
source "$here/../cluster/cluster.sh"
# shellcheck source=lib.sh
source "$here/lib.sh"

# Storage at 1 MB/s, a job waits a tenth of what re-reading its files
# costs: 6.3 s for a group's 60 MiB.
dl_t_side_settings StorageBandwidth=1e6 WaitFactor=0.1 MinWait=2 MaxWait=300
EXTRA0=${DL_CLUSTER_EXTRA_CONF:-}
trap dl_cluster_stop EXIT

declare -A R
data='' out='' log='' run=''
agent() { [ "$run" != backfill ]; }
# Cache group G on node N with a single-node job pinned there.
# With the agent, until its log says it saw the job run (its cache model
# has the files then): a placement made before would not know the node.
warm() {
	local id
	id=$(dl_t_sba "$1" -c 1 -w "$2" --wrap 'sleep 1')
	dl_t_wait_state "$id" COMPLETED 30 || true
	if agent; then
		wait_log "started JobId=$id on $2 " 20 ||
			echo "  (the agent did not say it saw warm-up job $id run)"
	fi
}
# het G0 G1 : submit a hetjob of two one-CPU components annotated with
# groups G0 and G1; prints the leader's id (its components: ID+0, ID+1).
het() {
	sbatch --parsable -o "$out/%j.out" -c 1 --comment="$(dl_t_files_of "$1")" \
		: -c 1 --comment="$(dl_t_files_of "$2")" --wrap 'sleep 1' | cut -d+ -f1
}
field() { dl_cluster_job_field "$1" "$2" 2>/dev/null || true; }
# wait_log PATTERN SECONDS : slurmctld's log has a line matching PATTERN
# (grep -E) within SECONDS (times DL_TIME_SCALE).
wait_log() {
	local deadline=$((SECONDS + $2 * DL_TIME_SCALE))
	until grep -Eq "$1" "$log"; do
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.5
	done
}
# sc_true ID : the component's SystemComment, if it says where the job
# ran, names the node it ran on.
sc_true() {
	local sc node
	sc=$(dl_t_syscomment "$1")
	node=$(field "$1" NodeList)
	case $sc in
	*"ran on "*) [[ $sc == *"ran on $node,"* ]] ;;
	*) true ;;
	esac
}
# common ID ALLOWED CHECK [N] : the hetjob ID (of N components, 2 unless
# given) started within ALLOWED s of its submission, every component
# completed, their SystemComments are true; prints where each ran.  Sets
# wt (seconds to start).
common() {
	local id=$1 allowed=$2 ck=$3 last=$((${4:-2} - 1)) c sub where=''
	sub=$(dl_t_job_time "$id+0" SubmitTime) || sub=$(date +%s)
	wt=$(dl_t_wait_time "$id+0" "$sub" 60)
	for c in $(seq 0 "$last"); do
		dl_t_wait_state "$id+$c" COMPLETED 30 || true
		where="$where, $c on $(field "$id+$c" NodeList)"
	done
	echo "  hetjob $id started after $wt s: component${where#,}"
	for c in $(seq 0 "$last"); do
		echo "  $id+$c SystemComment: $(dl_t_syscomment "$id+$c")"
		dl_t_eq "$(dl_t_say "$ck" "component $c completed")" COMPLETED \
			"$(field "$id+$c" JobState)"
		dl_t_check "$(dl_t_say "$ck" "component $c's SystemComment is true to its node")" \
			sc_true "$id+$c"
	done
	dl_t_le "$(dl_t_say "$ck" "it started within $allowed s")" "$wt" "$allowed"
}

# --- (s) each component on its data node ------------------------------------
check_split() {
	local id c n
	warm s0 n3
	warm s1 n4
	id=$(het s0 s1)
	common "$id" $((BF_INTERVAL + SLACK + 4)) s
	R[$run.split]=$wt
	agent || { dl_t_drain; return; }
	for c in 0 1; do
		n=n$((3 + c))
		dl_t_eq "$(dl_t_say s "component $c ran on its data node")" "$n" \
			"$(field "$id+$c" NodeList)"
		dl_t_check "$(dl_t_say s "component $c's SystemComment says it was placed on $n")" \
			grep -q "ran on $n, the node it was placed on" <(dl_t_syscomment "$id+$c")
	done
	dl_t_drain
}

# --- (o) both components' files on one node ---------------------------------
check_one_node() {
	local id n0 n1
	warm o n3
	id=$(het o o)
	# Its bound is 6.3 s (7), then backfill's interval and slack.
	common "$id" $((7 + BF_INTERVAL + SLACK + 4)) o
	R[$run.one]=$wt
	n0=$(field "$id+0" NodeList)
	n1=$(field "$id+1" NodeList)
	dl_t_check "$(dl_t_say o "the components ran on two nodes ($n0, $n1)")" \
		test -n "$n0" -a "$n0" != "$n1"
	agent || { dl_t_drain; return; }
	dl_t_check "$(dl_t_say o "one component ran on the data node n3")" \
		test "$n0" = n3 -o "$n1" = n3
	dl_t_check "$(dl_t_say o "the log says one was placed on n3")" \
		grep -Eq "placed JobId=($id|$((id + 1))) on n3" "$log"
	dl_t_drain
}

# --- (w) the hetjob waits as a whole, at most its bound ---------------------
check_wait() {
	local h id r='' allowed
	warm w0 n3
	warm w1 n4
	h=$(dl_t_sb -c 2 -w n3 --wrap 'sleep 60')
	dl_t_wait_state "$h" RUNNING 30 || true
	id=$(het w0 w1)
	if agent; then
		r=$(dl_t_wait_reason "$id+0" '^DataLocality:_waiting_for_n3' 10) || r=
	fi
	# Its bound is 6.3 s (7), n3 frees after 60.
	allowed=$((7 + 1 + BF_INTERVAL + SLACK))
	agent || allowed=$((BF_INTERVAL + SLACK + 4))
	common "$id" "$allowed" w
	R[$run.wait]=$wt
	dl_t_check "$(dl_t_say w "component 0 did not wait for n3 to free")" \
		test "$(field "$id+0" NodeList)" != n3
	agent || { dl_t_drain; return; }
	echo "  component 0 said: ${r:-nothing}"
	dl_t_check "$(dl_t_say w "component 0 waited for n3 first")" test -n "$r"
	dl_t_check "$(dl_t_say w "the log says component 1 was widened with its hetjob")" \
		grep -q "widened JobId=$((id + 1)) from n4 with its hetjob $id" "$log"
	dl_t_drain
}

# --- (t) three components, one of two nodes --------------------------------
# Component 0 (1 CPU) reads files cached on n4, component 1 (2 nodes)
# files cached on n1 and n3, component 2 (1 CPU) names none (an explicit
# comment: later components inherit an earlier one's options).  Slurm,
# left alone, gives a component of two nodes two consecutive ones (n1,
# n[2-3], n4 under backfill; with component 0 placed on n4 and component
# 1 not placed, as before agent_het.c placed such components, 1 ran on
# n[1-2]).
check_three() {
	local id
	warm t0 n4
	warm t1 n1
	warm t1 n3
	id=$(sbatch --parsable -o "$out/%j.out" -c 1 --comment="$(dl_t_files_of t0)" \
		: -N 2 -c 1 --comment="$(dl_t_files_of t1)" : -c 1 --comment=plain \
		--wrap 'sleep 1' | cut -d+ -f1)
	common "$id" $((BF_INTERVAL + SLACK + 4)) t 3
	R[$run.three]=$wt
	agent || { dl_t_drain; return; }
	dl_t_eq "$(dl_t_say t "component 0 ran on its data node")" n4 \
		"$(field "$id+0" NodeList)"
	dl_t_eq "$(dl_t_say t "component 1 ran on its data nodes")" "n[1,3]" \
		"$(field "$id+1" NodeList)"
	dl_t_check "$(dl_t_say t "the log says component 1 was placed on n[1,3]")" \
		grep -q "placed JobId=$((id + 1)) on n\[1,3\]" "$log"
	dl_t_drain
}

# --- (z) a component without files beside one with files on n1 -----------
# The leader names no files, component 1 files cached on n1.  Backfill
# plans the leader first, on n1, the lowest free node, and reserves it
# whole: component 1, restricted to n1, cannot start, and since n1 looks
# free it never counted as blocked: the hetjob stayed PENDING (over 180 s
# at 2231f7b).  Seen at the next cycle (the leader's SchedNodeList), both
# are widened and the hetjob runs.
check_planned() {
	local id
	warm z n1
	id=$(sbatch --parsable -o "$out/%j.out" -c 1 --comment=plain \
		: -c 1 --comment="$(dl_t_files_of z)" --wrap 'sleep 1' | cut -d+ -f1)
	common "$id" $((7 + 1 + BF_INTERVAL + SLACK)) z
	R[$run.planned]=$wt
	agent || { dl_t_drain; return; }
	if grep -q "placed JobId=$((id + 1)) on n1" "$log"; then
		dl_t_check "$(dl_t_say z "the log says component 1 was widened off n1, where Slurm plans the leader")" \
			grep -q "widened JobId=$((id + 1)) from n1 with its hetjob $id: Slurm plans JobId=$id" "$log"
	fi
	dl_t_drain
}

# --- (x) a component pushed out of the planning window ----------------------
# With PlanWindow=1 (one pending job per partition planned), the leader,
# whose priority is the higher, is planned and placed on n3, the data
# node of both components; then component 1 is given a higher priority
# than the leader (scontrol), which puts it in the window and the leader
# out.  Seen without its leader, component 1 was placed on n3 too, and
# the hetjob waited for ever (two components on one node; n3 free, so
# never blocked).  The window takes a hetjob whole and the exclusion
# reads Slurm's records: component 1 runs on another node.
check_window() {
	local id p allowed
	warm x n3
	id=$(het x x)
	dl_t_check "$(dl_t_say x "the log says the leader was placed on n3")" \
		wait_log "placed JobId=$id on n3" 20
	p=$(field "$id+0" Priority)
	scontrol update jobid=$((id + 1)) priority=$((${p:-1000} + 1000)) || true
	echo "  component 1's priority: $(field "$id+1" Priority) (the leader's $p)"
	allowed=$((7 + 1 + BF_INTERVAL + SLACK))
	common "$id" "$allowed" x
	R[$run.window]=$wt
	dl_t_check "$(dl_t_say x "the components ran on two nodes")" \
		test "$(field "$id+0" NodeList)" != "$(field "$id+1" NodeList)"
	dl_t_drain
}

want() { [[ " ${DL_HET_CHECKS:-s o w t z x} " == *" $1 "* ]]; }
# The window run (x) is the plugstack's with PlanWindow=1; the others'
# checks are not run there (a window of one changes what they plan).
for r in ${DL_HET_RUNS:-backfill plugstack window}; do
	export DL_CLUSTER_EXTRA_CONF=$EXTRA0
	if [ "$r" = window ]; then
		want x || continue
		dl_t_side_settings StorageBandwidth=1e6 WaitFactor=0.1 \
			MinWait=2 MaxWait=300 PlanWindow=1
		dl_t_side_start plugstack
		run=window
		dl_t_file_groups '10M 20M 30M' x
		check_window
		dl_t_check "$(dl_t_say - "slurmctld still answers")" bash -c 'scontrol ping | grep -q UP'
		dl_cluster_stop
		continue
	fi
	dl_t_side_start "$r"
	dl_t_file_groups '10M 20M 30M' s0 s1 o w0 w1 t0 t1 z
	want s && check_split
	want o && check_one_node
	want w && check_wait
	want t && check_three
	want z && check_planned
	dl_t_check "$(dl_t_say - "slurmctld still answers")" bash -c 'scontrol ping | grep -q UP'
	dl_cluster_stop
done
echo "# --- against backfill (seconds to start) ---"
for k in split one wait three planned; do
	echo "  $k: backfill ${R[backfill.$k]:--} s, plugstack ${R[plugstack.$k]:--} s"
done
echo "  window (PlanWindow=1, plugstack): ${R[window.window]:--} s"
dl_t_summary
