#!/usr/bin/env bash
# test_state.sh - the plugin's state on a real cluster: sdatalocality shows
# it; a slurmctld restart in the middle of a workload loses no job and no
# cache state; a corrupt state file is reported and ignored.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${DL_BUILD_DIR:?set DL_BUILD_DIR to a build tree with the plugins}"
# shellcheck source=../cluster/cluster.sh
source "$here/../cluster/cluster.sh"
# shellcheck source=lib.sh
source "$here/lib.sh"

dl_t_use_build
export DL_NODES=4
sdl="$DL_BUILD_DIR/sdatalocality"
trap dl_cluster_stop EXIT
dl_cluster_init
echo "StorageBandwidth=1e6" >"$DL_CLUSTER_DIR/etc/datalocality.conf"
dl_cluster_start
log=$(dl_cluster_log_ctld)
data=$DL_CLUSTER_DIR/data
for g in 0 1 2 3; do
	for f in 1 2 3; do dl_t_mkfile "$data/g$g/f$f" 1; done
done
files_of() { echo "files:$data/g$1/f1,$data/g$1/f2,$data/g$1/f3"; }
submit() { sbatch --parsable -o /dev/null --comment="$(files_of "$1")" --wrap "sleep $2"; }
node_of_group=()

# --- wave 1, then what sdatalocality shows ---------------------------------
ids=()
for g in 0 1 2 3; do ids+=("$(submit "$g" 1)"); done
dl_cluster_wait_jobs_done 60
for g in 0 1 2 3; do node_of_group[$g]=$(dl_cluster_job_field "${ids[$g]}" NodeList); done
# Group 0's node lists its 3 files, or more: on a busy host two groups'
# jobs may have run on one node.  The state is saved at most once a
# second: wait (bounded) for it.
group0_listed() { # sdatalocality nodes output
	awk -v n="${node_of_group[0]}" '$1 == n && $2 >= 3 { f = 1 } END { exit !f }' <<<"$1"
}
dl_t_wait_until 10 eval 'group0_listed "$("$sdl" nodes)"' || true
out=$("$sdl" nodes)
echo "$out"
dl_t_check "sdatalocality finds the state through slurm.conf" \
	group0_listed "$out"
json=$("$sdl" --json)
dl_t_check "--json is valid JSON with 4 nodes" \
	python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d["nodes"])==4 and d["plan"]["policy"]=="online-hps"' <<<"$json"
files=$("$sdl" files "${node_of_group[2]}")
dl_t_check "sdatalocality files lists group 2's files on ${node_of_group[2]}" \
	bash -c "grep -q '$data/g2/f1' <<<\"\$0\" && grep -q '$data/g2/f3' <<<\"\$0\"" "$files"
rc=0; "$sdl" job notanumber >/dev/null 2>&1 || rc=$?
dl_t_eq "a bad job id is a usage error (exit 2)" 2 "$rc"

# --- a pending job explained ----------------------------------------------
# The holder runs on a node that caches group 1; every other node is taken
# by a long job naming no files, so that the waiter's best node is surely
# the holder's (it frees first and has the files): the plan keeps the
# waiter pending there, and sdatalocality must say so.
# (6 s on an idle host: the waiter below must find it still running)
hold=$(submit 1 $((6 * DL_TIME_SCALE)))
deadline=$((SECONDS + $(dl_t_secs 20)))
until [ "$(dl_cluster_job_field "$hold" JobState)" = RUNNING ] ||
      [ $SECONDS -ge $deadline ]; do sleep 0.2; done
hold_node=$(dl_cluster_job_field "$hold" NodeList)
fillers=()
for n in $(sinfo -h -N -o %N | sort -u); do
	[ "$n" = "$hold_node" ] ||
		fillers+=("$(sbatch --parsable -o /dev/null -w "$n" --wrap "sleep 60")")
done
deadline=$((SECONDS + $(dl_t_secs 20)))
until [ "$(squeue -h -t R -o %i | wc -l)" -ge "$DL_NODES" ] ||
      [ $SECONDS -ge $deadline ]; do sleep 0.2; done
waiter=$(submit 1 1)
# planned at the next cycle, saved within a second: wait (bounded) for it
dl_t_wait_until 10 bash -c "'$sdl' job '$waiter' | grep -q 'planned on $hold_node'" || true
why=$("$sdl" job "$waiter")
echo "  $why"
dl_t_check "sdatalocality job explains the waiting job's node" \
	grep -q "JobId=$waiter: planned on $hold_node, where 3 of its 3 files" <<<"$why"
scancel "${fillers[@]}"

# --- restart slurmctld in the middle of a workload -------------------------
# The jobs are placed and pending across the restart, behind a job taking
# every node until well after the nodes have registered again: a batch job
# launched in the very moment its node re-registers is lost to a race in
# Slurm 22.05's slurmd ("Purging vestigial job script"), whatever the
# scheduler.
dl_cluster_wait_jobs_done 60
blocker=$(sbatch --parsable -o /dev/null -N "$DL_NODES" --exclusive --wrap "sleep $((9 * DL_TIME_SCALE))")
deadline=$((SECONDS + $(dl_t_secs 20)))
until [ "$(dl_cluster_job_field "$blocker" JobState)" = RUNNING ] ||
      [ $SECONDS -ge $deadline ]; do sleep 0.2; done
more=()
for g in 0 1 2 3 0 1 2 3; do more+=("$(submit "$g" 2)"); done
n_placed() {
	local id n=0
	for id in "${more[@]}"; do
		scontrol show job "$id" | grep -q 'SystemComment=datalocality: ReqNodeList=' &&
			n=$((n + 1))
	done
	echo "$n"
}
dl_t_wait_until 10 eval '[ "$(n_placed)" = 8 ]' || true
placed=$(n_placed)
dl_t_eq "the 8 jobs are placed before the restart" 8 "$placed"
dl_cluster_restart_slurmctld
restored=$(sed -n 's/.*restored the cache model from .*datalocality_state: \([0-9]*\) files.*/\1/p' "$log" | tail -1)
dl_t_check "state restored after the restart: all 12 files of the 4 groups (got ${restored:-none})" \
	test "${restored:-0}" -ge 12
dl_cluster_wait_jobs_done 120
lost=0
for id in "$hold" "$waiter" "$blocker" "${more[@]}"; do
	st=$(dl_cluster_job_field "$id" JobState || echo MISSING)
	[ "$st" = COMPLETED ] || { echo "  JobId=$id: $st"; lost=$((lost + 1)); }
done
dl_t_eq "no job lost across the restart" 0 "$lost"
# The plugin's restrictions survived as the plugin's, not as user settings:
# each job ran on the node it was placed on, or the plugin itself lifted
# its restriction when the job had waited its bound (a plan after the
# restart may move a job to a busy node caching its files), and no list
# was left on a started job.
kept=0
for id in "${more[@]}"; do
	# a job that started and ended between two cycles: the next reports
	# it and lifts its list
	dl_t_wait_until 10 grep -q "started JobId=$id " "$log" || true
	{ grep -q "started JobId=$id on \([^ ]*\) (planned \1: strict" "$log" ||
	  grep -q "started JobId=$id on [^ ]* (planned [^ ]*: widened" "$log"; } &&
		[ "$(dl_cluster_job_field "$id" ReqNodeList)" = "(null)" ] &&
		kept=$((kept + 1))
done
dl_t_eq "placements survive the restart and are lifted at start" 8 "$kept"
# New jobs still find their data cached.  Which node that is may have
# changed: until a node registers again after the restart it takes no job,
# and jobs that ran elsewhere meanwhile cached their files there too.
after=()
for g in 0 1 2 3; do after+=("$(submit "$g" 0.2)"); done
dl_cluster_wait_jobs_done 60
bad=0
for g in 0 1 2 3; do
	id=${after[$g]}
	# a job that started and ended between two cycles: the next reports it
	dl_t_wait_until 10 grep -q "started JobId=$id " "$log" || true
	grep -q "started JobId=$id on \([^ ]*\) (planned \1: strict; 3/3 files" "$log" ||
		{ echo "  JobId=$id (group $g) did not find its files cached on its node:" \
			"$(grep -h "placed JobId=$id \|started JobId=$id " "$log" | tr '\n' ' ')"
		  bad=$((bad + 1)); }
done
dl_t_eq "after the restart, jobs still land on a node caching their files" 0 "$bad"

# --- a corrupt state file is reported and ignored --------------------------
# slurmctld saves its state when it stops, so the damage is done while it
# is down.
state="$DL_CLUSTER_DIR/state/datalocality_state"
dl_cluster_restart_slurmctld --while-down \
	"printf 'slurm-datalocality-state 1\nnode garbage\ncrc 00000000\n' >'$state'"
dl_t_check "corrupt state file reported" \
	grep -q "ignoring .*datalocality_state: checksum mismatch" "$log"
id=$(submit 0 0.2)
dl_cluster_wait_jobs_done 60
dl_t_eq "jobs run after a corrupt state file" COMPLETED "$(dl_cluster_job_field "$id" JobState)"
dl_t_check "slurmctld is up" bash -c 'scontrol ping | grep -q UP'
dl_t_summary
