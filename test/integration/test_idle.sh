#!/usr/bin/env bash
# test_idle.sh - what an idle planning agent still does (agent_quiet.h,
# doc/design.md "One cycle") on a real local Slurm cluster (munged,
# slurmctld, 2 slurmd of 1 CPU) started and stopped here.
#
# Both nodes busy with a long job, an annotated job pending behind them:
# nothing changes, so the agent plans no cycle; it used to run one every
# 10 s to see, among others, a node's inventory file rewritten.  Now it
# looks at those files every 10 s without a cycle and cycles only when one
# changed.  Slurm's job stamp moves for much the agent never reads (with
# a job array pending, sched/backfill moved it at every pass,
# agent_snapfp.h): a cycle due for it alone takes its snapshot and stops
# there when nothing it reads changed.
#  (a) idle: no cycle planned for 12 s (the build before cycled every 10
#      s);
#  (b) an inventory file written on n1 meanwhile is read all the same: a
#      cycle "due: change (inventory)" follows, and the model (sdatalocality
#      files n1) holds its file;
#  (c) the checks that found nothing ran no cycle: idle again after it;
#  (d) a running job's comment updated (scontrol update Comment=, which
#      moves the stamp): the cycle due for it stops at its snapshot ("not
#      planned"; the build before planned one);
#  (f) then, the stamp moved again for nothing a walk reads (the running
#      job's AdminComment): the cycle due stops before its walk ("not
#      walked", agent_peek.h: no job record changed);
#  (e) a change the agent reads (the pending job's time limit) is planned,
#      and no cycle stopped before its walk in between: the peek saw it.
#  (g) idle again (its poll now 5 s apart), an annotated job submitted:
#      job_submit/datalocality gates it and wakes the agent at once
#      ("woken by a job gated at submit", jsub_wake.h), which places it.
#  (h) idle again, n2's long job cancelled and at once an annotated job
#      pinned to n2 (-w: not gated, nothing wakes the agent) that runs a
#      moment: it may start and end between two cycles, 5 s apart.  Its
#      file is in the model of n2 all the same, and its start in the log
#      (agent_ended.h; before, a job the agent never saw was left out,
#      and the next job of its files let go unplaced: CI 2026-11-30).
#
# Needs DL_BUILD_DIR: a build tree configured --with-slurm-source.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${DL_BUILD_DIR:?set DL_BUILD_DIR to a build tree with the plugins}"
# shellcheck source=../cluster/cluster.sh
source "$here/../cluster/cluster.sh"
# shellcheck source=lib.sh
source "$here/lib.sh"

dl_t_use_build
export DL_NODES=2 DL_NODE_CPUS=1
trap dl_cluster_stop EXIT
dl_cluster_init
printf 'CacheDir=%s/cache/%%n\n' "$DL_CLUSTER_DIR" \
	>"$DL_CLUSTER_DIR/etc/datalocality.conf"
dl_cluster_start
log=$(dl_cluster_log_ctld)
data=$DL_CLUSTER_DIR/data
dl_t_mkfile "$data/f1" 1
dl_t_mkfile "$data/inv" 2
mkdir -p "$DL_CLUSTER_DIR/cache/n1" "$DL_CLUSTER_DIR/cache/n2"
scontrol setdebug debug

busy=()
for n in n1 n2; do
	busy+=("$(sbatch --parsable -w "$n" -t 30 -o /dev/null --wrap 'sleep 900')")
done
for id in "${busy[@]}"; do dl_t_wait_state "$id" RUNNING 60 || true; done
job=$(sbatch --parsable -o /dev/null --comment="files:$data/f1" --wrap true)
dl_t_wait_until 60 grep -q "placed JobId=$job on" "$log" || true

# --- (a) idle ---------------------------------------------------------------
ncycles() { grep -c ': planning window [0-9]* per partition' "$log" || true; }
quiet_for() {
	local n0
	n0=$(ncycles)
	sleep "$1"
	[ "$(ncycles)" = "$n0" ]
}
dl_t_check "(a) an idle agent ran no cycle for 12 s" \
	dl_t_wait_until 60 quiet_for 12

# --- (b) an inventory file rewritten while idle ----------------------------
off=$(stat -c %s "$log")
printf '%s\n' "# dl-stage inventory 1 node=n1" "$data/inv $((2 << 20))" \
	>"$DL_CLUSTER_DIR/cache/n1/.inventory"
inmodel() {
	"$DL_BUILD_DIR/sdatalocality" files n1 2>&1 | grep -q "$data/inv"
}
dl_t_check "(b) the model holds the file of n1's new inventory" \
	dl_t_wait_until 30 inmodel
dl_t_check "(b) a cycle came for it: due: change (inventory)" \
	bash -c "tail -c +$((off + 1)) '$log' | grep -q 'due: change (inventory)'"

# --- (c) idle again ------------------------------------------------------------
dl_t_check "(c) idle again: no cycle for 22 s (two checks of the files)" \
	dl_t_wait_until 60 quiet_for 22

# --- (d) the job stamp moved for nothing the agent reads -------------------
nstop() { grep -c "not planned: only Slurm's job stamp moved" "$log" || true; }
n0=$(ncycles)
s0=$(nstop)
scontrol update jobid="${busy[0]}" Comment=touched
stopped() { [ "$(nstop)" -gt "$s0" ]; }
dl_t_check "(d) the cycle due for a running job's comment stopped at its snapshot" \
	dl_t_wait_until 30 stopped
dl_t_check "(d) and planned nothing" test "$(ncycles)" = "$n0"

# --- (f) again for nothing: stopped before the walk ------------------------
npeek() { grep -c "not walked: only Slurm's job stamp moved" "$log" || true; }
n0=$(ncycles)
p0=$(npeek)
scontrol update jobid="${busy[0]}" AdminComment=touched
peeked() { [ "$(npeek)" -gt "$p0" ]; }
dl_t_check "(f) the cycle due for a running job's AdminComment stopped before its walk" \
	dl_t_wait_until 30 peeked
dl_t_check "(f) and planned nothing" test "$(ncycles)" = "$n0"

# --- (e) a change the agent reads is planned ------------------------------
n0=$(ncycles)
p0=$(npeek)
scontrol update jobid="$job" TimeLimit=6
planned() { [ "$(ncycles)" -gt "$n0" ]; }
dl_t_check "(e) the pending job's new time limit was planned" \
	dl_t_wait_until 30 planned
dl_t_check "(e) and no cycle stopped before its walk meanwhile" \
	test "$(npeek)" = "$p0"

# --- (g) a job gated at submit wakes the quiet agent ----------------------
dl_t_check "(g) idle again: no cycle for 12 s" dl_t_wait_until 60 quiet_for 12
off=$(stat -c %s "$log")
j2=$(sbatch --parsable -o /dev/null --comment="files:$data/f1" --wrap true)
dl_t_check "(g) the agent was woken by the job gated at submit" \
	dl_t_wait_until 30 bash -c "tail -c +$((off + 1)) '$log' | grep -q 'woken by a job gated at submit'"
dl_t_check "(g) and placed it" \
	dl_t_wait_until 30 grep -q "placed JobId=$j2 on" "$log"

# --- (h) a job that ran between two cycles ------------------------------------
dl_t_mkfile "$data/f2" 1
scancel "$job" "$j2" 2>/dev/null || true
dl_t_check "(h) idle again: no cycle for 12 s" dl_t_wait_until 60 quiet_for 12
off=$(stat -c %s "$log")
scancel "${busy[1]}"
pinned=$(sbatch --parsable -w n2 -o /dev/null --comment="files:$data/f2" --wrap true)
dl_t_wait_state "$pinned" COMPLETED 60 || true
walks() { tail -c +$((off + 1)) "$log" | grep -c 'datalocality: snapshot of ' || true; }
echo "  JobId=$pinned $(dl_cluster_job_field "$pinned" JobState) on n2; cycles' snapshots from its submission to its end: $(walks)"
n2model() { "$DL_BUILD_DIR/sdatalocality" files n2 2>&1 | grep -q "$data/f2"; }
dl_t_check "(h) its file is in the model of n2" dl_t_wait_until 30 n2model
dl_t_check "(h) the log says it started on n2" \
	dl_t_wait_until 30 grep -q "started JobId=$pinned on n2 " "$log"
scancel "${busy[@]}" 2>/dev/null || true

dl_t_summary
