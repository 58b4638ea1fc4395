#!/usr/bin/env bash
# test_multinode.sh - multi-node jobs (issue 26, item 4): the same
# submissions under plain sched/backfill, sched/datalocality and backfill
# beside the agent (SlurmctldPlugstack=datalocality; on a Slurm without
# it, 24.11, JobSubmitPlugins=datalocality,datalocality_agent), on 4 nodes
# of 2 CPUs, and the datalocality runs must keep what backfill gives:
#
#  (p) placed: a 2-node job whose files were cached on n3 and n4 (by
#      single-node jobs pinned there with -w) runs on n[3-4]; under
#      backfill the same job runs unharmed (it completes, at once); the
#      submit gate held it until placed (its Prolog saw the gate's mark)
#      and the log says it started as planned;
#  (w) bounded wait: the same with n3 and n4 taken by 2-CPU jobs for 60 s:
#      the 2-node job waits for them (its Reason says so) at most its
#      6.3-s bound, then runs on the idle nodes; under backfill it starts
#      at once there;
#  (m) model: after a 2-node job (its files cached nowhere before),
#      `sdatalocality files nX` lists its files on both of its nodes;
#  (h) hetjob: a hetjob of two 2-node components, component 0 annotated
#      with files cached on n3 and n4, component 1 without files, submitted
#      while all nodes are idle: the submit gate holds component 0 until the
#      agent places it, so it runs on n[3-4] and the log says it started as
#      planned (component 1 on n[1-2]); within backfill's bound plus the
#      gate's.  Before the gate held multi-node components, Slurm could
#      start the hetjob on n[1-2] and n[3-4] the other way round before any
#      placement.  Under backfill the hetjob completes, started at once.
#      Not in the sched/datalocality run: Slurm takes hetjobs under
#      sched/backfill only.
#  (q) the blocked-job quota (issue 30, dl_place_quota_multi()): a group
#      of 120 MiB (bound 12.6 s) cached on n3 and n4, both held busy, n1
#      and n2 each busy but for one CPU: room for ONE 2-node job of a CPU
#      per node.  Two such jobs of the group are placed on n[3-4], both
#      blocked; only the first in Slurm's order counts its wait: it is
#      widened at its bound and runs on n[1-2], the second stays placed
#      on n[3-4], not widened (before multi-node jobs shared the quota
#      both were widened at the same cycle); under backfill the first
#      starts at once on n[1-2] and the second waits.
#  (c) the quota judges a --mincpus job as the running Slurm allocates it
#      (agent_fit_node_take()): n3 and n4 busy, n1 and n2 idle (2 CPUs
#      each); job A of the group, -N 2 -n 2 --mincpus=2 (it needs 2 free
#      CPUs on each node), then job B, -N 2 of a CPU a node: both placed
#      on n[3-4], blocked.  Slurm 22.05 (up to 24.11.0) gives A the 2 CPUs
#      of n1 and n2: only A is widened (at its bound) and runs there, B
#      stays placed and waits, as under backfill (before, A counted by its
#      share of a CPU left room for B, and both were widened).  From
#      24.11.1 Slurm gives A one CPU a node (its tasks'): B starts beside
#      A under backfill, so it must count its wait too and be widened at
#      its bound, not held back.  Each run checks A's allocation first.
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
# A Prolog noting each job's submit-gate mark (agent_gate.h), which
# slurmd hands it as SPANK_DL_GATE: proof that the gate held the job.
pdir=$(mktemp -d)
gates=$pdir/gates
printf '#!/bin/sh\necho "$SLURM_JOB_ID gate=${SPANK_DL_GATE:-none}" >>"%s"\nexit 0\n' \
	"$gates" >"$pdir/prolog"
chmod 755 "$pdir" "$pdir/prolog"
trap 'dl_cluster_stop; rm -rf "$pdir"' EXIT

declare -A R
data='' out='' log='' run=''
sdl="$DL_BUILD_DIR/sdatalocality"
agent() { [ "$run" != backfill ]; }
# Cache group G on nodes N... with single-node jobs pinned there.
warm() {
	local g=$1 n id ids=()
	shift
	for n in "$@"; do ids+=("$(dl_t_sba "$g" -c 1 -w "$n" --wrap 'sleep 1')"); done
	for id in "${ids[@]}"; do dl_t_wait_state "$id" COMPLETED 30 || true; done
}

# start_cluster RUN: the cluster (dl_t_side_start; plugstack adds to the
# test's own extra configuration) and the groups' files, sparse: only
# their sizes matter (no staging here).
start_cluster() {
	export DL_CLUSTER_EXTRA_CONF=$EXTRA0 DL_PROLOG=$pdir/prolog
	dl_t_side_start "$1"
	dl_t_file_groups '10M 20M 30M' p w m h
}

# --- (p) placed on its data nodes ------------------------------------------
check_placed() {
	local w sub wt node
	warm p n3 n4
	w=$(dl_t_sba p -N 2 --wrap 'sleep 1')
	sub=$(dl_t_job_time "$w" SubmitTime) || sub=$(date +%s)
	wt=$(dl_t_wait_time "$w" "$sub" 40)
	dl_t_wait_state "$w" COMPLETED 30 || true
	node=$(dl_cluster_job_field "$w" NodeList)
	echo "  2-node job $w started after $wt s on $node, $(dl_cluster_job_field "$w" JobState)"
	R[$run.placed]=$wt
	dl_t_eq "$(dl_t_say p "the 2-node job completed")" COMPLETED \
		"$(dl_cluster_job_field "$w" JobState)"
	dl_t_le "$(dl_t_say p "it started at once")" "$wt" $((BF_INTERVAL + SLACK))
	if agent; then
		dl_t_eq "$(dl_t_say p "it ran on its data nodes")" "n[3-4]" "$node"
		dl_t_check "$(dl_t_say p "the log says it was placed there")" \
			grep -q "placed JobId=$w on n\[3-4\]" "$log"
		# The submit gate held it until placed: it started as planned.
		dl_t_check "$(dl_t_say p "it was held by the submit gate (its Prolog saw SPANK_DL_GATE)")" \
			grep -Eq "^$w gate=[0-9]+," "$gates"
		dl_t_wait_until 10 grep -Eq "started JobId=$w on n[0-9]+ \(planned n3: strict" "$log" || true
		dl_t_check "$(dl_t_say p "the log says it started as planned (placed before it started)")" \
			grep -Eq "started JobId=$w on n[0-9]+ \(planned n3: strict" "$log"
	fi
	dl_t_drain
}

# --- (w) bounded wait for busy data nodes ------------------------------------
check_wait() {
	local h3 h4 w sub wt node r='' allowed
	warm w n3 n4
	h3=$(dl_t_sb -c 2 -w n3 --wrap 'sleep 60')
	h4=$(dl_t_sb -c 2 -w n4 --wrap 'sleep 60')
	dl_t_wait_state "$h3" RUNNING 30 || true
	dl_t_wait_state "$h4" RUNNING 30 || true
	w=$(dl_t_sba w -N 2 --wrap 'sleep 1')
	sub=$(dl_t_job_time "$w" SubmitTime) || sub=$(date +%s)
	agent && { r=$(dl_t_wait_reason "$w" '^DataLocality:_waiting_for_n\[3-4\]' 10) || r=; }
	wt=$(dl_t_wait_time "$w" "$sub" 40)
	node=$(dl_cluster_job_field "$w" NodeList)
	echo "  n3, n4 busy 60 s; 2-node job $w started after $wt s on $node${r:+ (it said: $r)}"
	R[$run.wait]=$wt
	if agent; then
		dl_t_check "$(dl_t_say w "it waited for n[3-4] first")" test -n "$r"
		# Its bound is 6.3 s; the data nodes free after 60.
		allowed=$((7 + 1 + BF_INTERVAL + SLACK))
		dl_t_le "$(dl_t_say w "it started within its bound (7 s + $((allowed - 7)) s)")" "$wt" $allowed
		dl_t_check "$(dl_t_say w "the log says it was widened")" \
			grep -q "widened JobId=$w from n\[3-4\]: blocked" "$log"
	else
		dl_t_le "$(dl_t_say w "it started at once")" "$wt" $((BF_INTERVAL + SLACK))
	fi
	dl_t_eq "$(dl_t_say w "it ran on the idle nodes")" "n[1-2]" "$node"
	dl_t_drain
}

# --- (m) the model records every node -------------------------------------
listed() { # listed NODE : group m's three files in sdatalocality files NODE
	local f
	f=$("$sdl" files "$1" 2>/dev/null) || return 1
	grep -q "$data/gm/f1" <<<"$f" && grep -q "$data/gm/f2" <<<"$f" &&
		grep -q "$data/gm/f3" <<<"$f"
}
check_model() {
	local w n nodes
	w=$(dl_t_sba m -N 2 --wrap 'sleep 1')
	dl_t_wait_state "$w" COMPLETED 40 || true
	nodes=$(dl_cluster_job_field "$w" NodeList)
	echo "  2-node job $w ran on $nodes"
	agent || { dl_t_drain; return; }
	# The state file is written at most once a second.
	for n in $(scontrol show hostnames "$nodes"); do
		dl_t_wait_until 10 listed "$n" || true
		dl_t_check "$(dl_t_say m "sdatalocality files $n lists the job's 3 files")" \
			listed "$n"
	done
	dl_t_drain
}

# --- (h) a hetjob of multi-node components, gated until placed ------------
check_het() {
	local id sub wt n0 n1 x ids=()
	# Slurm takes hetjobs under sched/backfill only ("Requested operation
	# not supported on this system"): the plugstack run is the agent's.
	[ "$run" = datalocality ] && return
	for x in n3 n4; do ids+=("$(dl_t_sba h -c 1 -w "$x" --wrap 'sleep 1')"); done
	for x in "${ids[@]}"; do dl_t_wait_state "$x" COMPLETED 30 || true; done
	# The agent must have seen them run (its cache model): a placement
	# made before would not know the nodes.
	if agent; then
		for x in "${ids[@]}"; do
			dl_t_wait_until 20 grep -q "started JobId=$x on " "$log" || true
		done
	fi
	id=$(dl_t_sb -N 2 -c 1 --comment="$(dl_t_files_of h)" \
		: -N 2 -c 1 --comment=plain \
		--wrap 'sleep 1' | cut -d+ -f1)
	sub=$(dl_t_job_time "$id+0" SubmitTime) || sub=$(date +%s)
	wt=$(dl_t_wait_time "$id+0" "$sub" 40)
	dl_t_wait_state "$id+0" COMPLETED 30 || true
	dl_t_wait_state "$id+1" COMPLETED 30 || true
	n0=$(dl_cluster_job_field "$id+0" NodeList)
	n1=$(dl_cluster_job_field "$id+1" NodeList)
	echo "  hetjob $id started after $wt s: component 0 on $n0, 1 on $n1"
	R[$run.het]=$wt
	dl_t_eq "$(dl_t_say h "component 0 completed")" COMPLETED \
		"$(dl_cluster_job_field "$id+0" JobState)"
	dl_t_eq "$(dl_t_say h "component 1 completed")" COMPLETED \
		"$(dl_cluster_job_field "$id+1" JobState)"
	if agent; then
		# Backfill's bound, the gate's (3 s) and an agent cycle.
		dl_t_le "$(dl_t_say h "it started within backfill's bound + the gate's")" \
			"$wt" $((BF_INTERVAL + SLACK + 4))
		dl_t_eq "$(dl_t_say h "component 0 ran on its data nodes")" "n[3-4]" "$n0"
		dl_t_eq "$(dl_t_say h "component 1 ran on the other nodes")" "n[1-2]" "$n1"
		# The gate's mark reaches its Prolog: component 0 was held
		# until placed, not merely placed in time.
		echo "  its Prologs saw: $(grep "^$id " "$gates" 2>/dev/null | tr '\n' ' ')"
		dl_t_check "$(dl_t_say h "component 0 was held by the submit gate (SPANK_DL_GATE set)")" \
			grep -Eq "^$id gate=[0-9]+," "$gates"
		dl_t_wait_until 10 grep -Eq "started JobId=$id on n[0-9]+ \(planned n3: strict" "$log" || true
		dl_t_check "$(dl_t_say h "the log says component 0 started as planned (placed before it started)")" \
			grep -Eq "started JobId=$id on n[0-9]+ \(planned n3: strict" "$log"
	else
		dl_t_le "$(dl_t_say h "it started at once")" "$wt" $((BF_INTERVAL + SLACK))
	fi
	dl_t_drain
}

# --- (q) one room, two blocked 2-node jobs: one widened -------------------
check_quota() {
	local x w1 w2 sub wt node r1 sc2 widened=0 ids=()
	dl_t_file_groups '20M 40M 60M' q
	warm q n3 n4
	for x in n3 n4; do ids+=("$(dl_t_sb -c 2 -w "$x" --wrap 'sleep 90')"); done
	for x in n1 n2; do ids+=("$(dl_t_sb -c 1 -w "$x" --wrap 'sleep 90')"); done
	for x in "${ids[@]}"; do dl_t_wait_state "$x" RUNNING 30 || true; done
	w1=$(dl_t_sba q -N 2 --wrap 'sleep 60')
	w2=$(dl_t_sba q -N 2 --wrap 'sleep 60')
	sub=$(dl_t_job_time "$w1" SubmitTime) || sub=$(date +%s)
	wt=$(dl_t_wait_time "$w1" "$sub" 60)
	node=$(dl_cluster_job_field "$w1" NodeList)
	echo "  n3, n4 busy, one CPU free on n1 and n2; 2-node job $w1 started after $wt s on $node"
	dl_t_eq "$(dl_t_say q "the first 2-node job ran on the free CPUs")" "n[1-2]" "$node"
	if ! agent; then
		dl_t_le "$(dl_t_say q "it started at once")" "$wt" $((BF_INTERVAL + SLACK))
		dl_t_drain
		return
	fi
	# Its bound is 12.6 s: it waited for n[3-4] first.
	dl_t_le "$(dl_t_say q "it started within its bound (13 s + $((1 + BF_INTERVAL + SLACK)) s)")" \
		"$wt" $((13 + 1 + BF_INTERVAL + SLACK))
	# No room is left for the second: several cycles to do what it would.
	sleep "$(dl_t_secs 5)"
	for x in "$w1" "$w2"; do
		dl_t_check "$(dl_t_say q "JobId=$x was placed on n[3-4]")" \
			grep -q "placed JobId=$x on n\[3-4\]" "$log"
		grep -q "widened JobId=$x from " "$log" && widened=$((widened + 1))
	done
	r1=$(grep -o "widened JobId=$w1 from .*" "$log" | head -1)
	sc2=$(dl_t_syscomment "$w2")
	echo "  $r1; JobId=$w2: $(dl_cluster_job_field "$w2" JobState), $(dl_cluster_job_field "$w2" Reason)"
	dl_t_check "$(dl_t_say q "the first was widened, blocked (log)")" \
		grep -q "widened JobId=$w1 from n\[3-4\]: blocked" "$log"
	dl_t_eq "$(dl_t_say q "only one of the two was widened, for the one room")" 1 "$widened"
	dl_t_check "$(dl_t_say q "JobId=$w2 still waits for n[3-4], placed (SystemComment: $sc2)")" \
		grep -q "ReqNodeList=n\[3-4\] " <<<"$sc2"
	dl_t_eq "$(dl_t_say q "JobId=$w2 is pending")" PENDING \
		"$(dl_cluster_job_field "$w2" JobState)"
	dl_t_drain
}

# --- (c) --mincpus: what a node needs free and what A takes there ---------
# Whether this Slurm gives a -n job only its tasks' CPUs (24.11.1 on).
tasks_only() {
	[ "$(printf '%s\n' 24.11.1 "$(dl_cluster_slurm_version)" | sort -V | head -1)" = 24.11.1 ]
}
check_mincpus() {
	local x a b node cpus alloc want_cpus want_b ids=() sub wt
	dl_t_file_groups '20M 40M 60M' c
	warm c n3 n4
	for x in n3 n4; do ids+=("$(dl_t_sb -c 2 -w "$x" --wrap 'sleep 90')"); done
	for x in "${ids[@]}"; do dl_t_wait_state "$x" RUNNING 30 || true; done
	a=$(dl_t_sba c -N 2 -n 2 --mincpus=2 --wrap 'sleep 60')
	b=$(dl_t_sba c -N 2 --wrap 'sleep 60')
	sub=$(dl_t_job_time "$b" SubmitTime) || sub=$(date +%s)
	dl_t_wait_state "$a" RUNNING 60 || true
	node=$(dl_cluster_job_field "$a" NodeList)
	cpus=$(dl_cluster_job_field "$a" NumCPUs)
	want_cpus=4 want_b=PENDING
	tasks_only && want_cpus=2 want_b=RUNNING
	alloc=$(scontrol show job -d "$a" | grep -o 'Nodes=n[^ ]* CPU_IDs=[^ ]*' | tr '\n' ' ')
	echo "  Slurm $(dl_cluster_slurm_version): JobId=$a (-n 2 --mincpus=2) on $node, NumCPUs=$cpus: $alloc"
	dl_t_eq "$(dl_t_say c "A ran on n1 and n2")" "n[1-2]" "$node"
	dl_t_eq "$(dl_t_say c "Slurm gave A $want_cpus CPUs on its 2 nodes")" "$want_cpus" "$cpus"
	if [ "$want_b" = RUNNING ]; then
		wt=$(dl_t_wait_time "$b" "$sub" 60)
		echo "  JobId=$b started after $wt s on $(dl_cluster_job_field "$b" NodeList)"
		# What the agent said of A and B, should a check below fail.
		agent && grep -E "JobId=($a|$b)[ :]" "$log" | grep -v _slurm_rpc |
			cut -c 1-200 | head -8 | sed 's/^/    /'
		dl_t_eq "$(dl_t_say c "B ran beside A on n1 and n2")" "n[1-2]" \
			"$(dl_cluster_job_field "$b" NodeList)"
		if agent; then
			# Counted from the first cycle: widened at its bound,
			# 12.6 s, as A.
			dl_t_le "$(dl_t_say c "B started within its bound (13 s + $((1 + BF_INTERVAL + SLACK)) s)")" \
				"$wt" $((13 + 1 + BF_INTERVAL + SLACK))
			dl_t_check "$(dl_t_say c "the log says B was widened, blocked")" \
				grep -q "widened JobId=$b from n\[3-4\]: blocked" "$log"
		else
			dl_t_le "$(dl_t_say c "B started at once")" "$wt" $((BF_INTERVAL + SLACK))
		fi
	elif agent; then
		# A cycle or two after A's widening: B's, had it been counted.
		sleep "$(dl_t_secs 5)"
		echo "  JobId=$b: $(dl_cluster_job_field "$b" JobState), $(dl_cluster_job_field "$b" Reason)"
		dl_t_check "$(dl_t_say c "B was placed on n[3-4]")" \
			grep -q "placed JobId=$b on n\[3-4\]" "$log"
		dl_t_check "$(dl_t_say c "and not widened: A took the room of n1 and n2")" \
			bash -c "! grep -q 'widened JobId=$b from ' '$log'"
	fi
	[ "$want_b" = PENDING ] &&
		dl_t_eq "$(dl_t_say c "B waits")" PENDING "$(dl_cluster_job_field "$b" JobState)"
	dl_t_drain
}

want() { [[ " ${DL_MULTI_CHECKS:-p w m h q c} " == *" $1 "* ]]; }
for r in ${DL_MULTI_RUNS:-backfill datalocality plugstack}; do
	start_cluster "$r"
	want p && check_placed
	want w && check_wait
	want m && check_model
	want h && check_het
	want q && check_quota
	want c && check_mincpus
	dl_t_check "$(dl_t_say - "slurmctld still answers")" bash -c 'scontrol ping | grep -q UP'
	dl_cluster_stop
done
echo "# --- against backfill ---"
for k in placed wait het; do
	echo "  $k: backfill ${R[backfill.$k]:--} s, datalocality ${R[datalocality.$k]:--} s, plugstack ${R[plugstack.$k]:--} s"
done
dl_t_summary
