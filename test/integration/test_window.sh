#!/usr/bin/env bash
# test_window.sh - the planning window (datalocality.conf(5) PlanWindow,
# doc/design.md "The planning window") on a real local Slurm cluster
# (munged, slurmctld, 2 slurmd of 1 CPU) started and stopped here.
#
# A backlog of 12 annotated jobs, then the job under test, then 300
# annotated low-priority jobs (priority/basic: submission order), with
# PlanWindow=5:
#  (a) the agent reads (parses the files of) only the jobs in the window
#      and the running ones: with 313 jobs queued, a few dozen at most;
#  (b) jobs behind the window are held back by the submit gate
#      (Reason=BeginTime) and never read while they are there;
#  (c) the job under test, deep in the queue at first, enters the window
#      as the backlog drains and is placed before it starts: its
#      placement is logged before Slurm allocates it, and it runs on the
#      planned node;
#  (d) no job was let go by the gate's clock, every job of the backlog
#      was placed before it started, slurmctld is still up;
#  (e) the walks between two full ones skip the jobs below the floors
#      (agent_window.h): most of the 300 are not read at each cycle, and
#      their gate holds are renewed from the due list all the same (d),
#      by id between cycles, a bounded step at a time;
#  (f) an idle agent (both nodes busy with a long job, a 40-task array
#      pending, nothing changing) runs no cycle for 45 s but for the rare
#      ones (it ran one every 10 s and one per gate renewal before), renews
#      the gate holds outside the window between cycles, by id
#      (agent_quiet.h, agent_gate.h), and lets no job go unplaced.
#
# Needs DL_BUILD_DIR: a build tree configured --with-slurm-source, with
# dl-submit (it submits the 300 jobs from one process; sbatch otherwise).
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
printf 'StorageBandwidth=1e6\nPlanWindow=5\n' \
	>"$DL_CLUSTER_DIR/etc/datalocality.conf"
dl_cluster_start
log=$(dl_cluster_log_ctld)
data=$DL_CLUSTER_DIR/data
out=$DL_CLUSTER_DIR/out
mkdir -p "$out"
for g in a b c; do
	for f in 1 2; do
		dl_t_mkfile "$data/$g/f$f" 1
	done
done
files_of() { echo "files:$data/$1/f1,$data/$1/f2"; }

# --- submissions ----------------------------------------------------------
backlog=()
for i in $(seq 1 12); do
	backlog+=("$(sbatch --parsable -o "$out/%j.out" \
		--comment="$(files_of a)" --wrap 'sleep 4')")
done
target=$(sbatch --parsable -o "$out/%j.out" --comment="$(files_of b)" \
	--wrap 'sleep 1')
low_ids=$DL_CLUSTER_DIR/low.ids
if [ -x "$DL_BUILD_DIR/dl-submit" ]; then
	"$DL_BUILD_DIR/dl-submit" --burst --jobs 300 --ids "$low_ids" \
		--template "--comment=$(files_of c) --output=/dev/null --wrap=sleep 1" \
		>/dev/null 2>"$DL_CLUSTER_DIR/dl-submit.err" ||
		{ cat "$DL_CLUSTER_DIR/dl-submit.err"; dl_t_fail "dl-submit failed"; }
else
	for i in $(seq 1 300); do
		sbatch --parsable -o /dev/null --comment="$(files_of c)" \
			--wrap 'sleep 1'
	done >"$low_ids"
fi
nlow=$(grep -c . "$low_ids" || true)
dl_t_eq "300 low-priority jobs submitted" 300 "$nlow"
last=$(tail -1 "$low_ids")
echo "  backlog ${backlog[0]}..${backlog[11]}, target $target, low $(head -1 "$low_ids")..$last"

# --- (c) first: the job under test is held while deep in the queue -------
# Looked at right after the submissions, while most of the backlog still
# waits ahead of it: by the end of (a)'s wait (up to a minute on a loaded
# host) the backlog may have drained into the window and the job with it,
# placed and released (Reason=Priority), as a CI run on 24.11.5 saw.
# Slurm sets the Reason at its next pass, hence the short wait.
dl_t_wait_until 20 eval '[ "$(dl_cluster_job_field "$target" Reason)" = BeginTime ]' || true
reason=$(dl_cluster_job_field "$target" Reason || true)
dl_t_eq "(c) the job under test waits deep in the queue, held by the gate" \
	BeginTime "$reason"

# --- (a) the window bounds what the agent reads ----------------------------
# The agent's account once it saw the whole queue: "planning window 5 per
# partition: 5 of N queued jobs planned, R jobs read so far".
acct=
dl_t_wait_until 60 bash -c "grep -Eq 'planning window 5 per partition: [0-9]+ of (3[0-9][0-9]) queued jobs' '$log'" &&
	acct=$(grep -Eo 'planning window 5 per partition: [0-9]+ of 3[0-9][0-9] queued jobs planned, [0-9]+ jobs read so far' "$log" | head -1)
echo "  $acct"
planned=$(sed -n 's/.*: \([0-9]*\) of .*/\1/p' <<<"$acct")
read_n=$(sed -n 's/.*planned, \([0-9]*\) jobs read.*/\1/p' <<<"$acct")
dl_t_le "(a) at most PlanWindow=5 of 300+ queued jobs planned" "${planned:-999}" 5
# Read: the backlog's running and windowed jobs, at most 12 + 1 + 5.
dl_t_le "(a) with 300+ jobs queued the agent read only $read_n jobs' files" \
	"${read_n:-999}" 18
# The snapshot's line, at debug level, says what each walk skipped (e).
scontrol setdebug debug

# --- (b) the jobs behind the window are held and not read -----------------
dl_t_eq "(b) the last job, deep behind the window, is held by the gate" \
	BeginTime "$(dl_cluster_job_field "$last" Reason)"
# (the gate keeps it held a GateMaxHold at a time while it is outside)
b=$(dl_t_job_time "$last" EligibleTime) || b=0
dl_t_check "(b) its begin time is ahead ($(dl_cluster_job_field "$last" EligibleTime))" \
	test "$b" -gt "$(date +%s)"

# --- (c) the job entering the window is placed before it starts -----------
dl_t_wait_state "$target" COMPLETED 240 || true
started=
dl_t_wait_until 60 grep -q "started JobId=$target on" "$log" &&
	started=$(grep -o "started JobId=$target on .*" "$log" | head -1)
echo "  $started"
dl_t_check "(c) it started on the node it was placed on" \
	grep -q "started JobId=$target on \([^ ]*\) (planned \1: strict" <<<"$started"
placed_at=$(grep -n "placed JobId=$target on" "$log" | head -1 | cut -d: -f1)
alloc_at=$(grep -nE "(sched: Allocate|_start_job: Started) JobId=$target " "$log" | head -1 | cut -d: -f1)
echo "  placed at log line ${placed_at:-none}, allocated at ${alloc_at:-none}"
dl_t_check "(c) its placement was logged before Slurm allocated it" \
	test -n "$placed_at" -a -n "$alloc_at" -a "${placed_at:-0}" -lt "${alloc_at:-0}"

# --- (d) the rest ----------------------------------------------------------
# Jobs read before the cancel: while the 300 jobs are cancelled one by one,
# the window moves on over the ones left, which then reach it rightly.
ran_low=$(grep -cE "started JobId=($(paste -sd'|' "$low_ids")) on" "$log" || true)
final=$(grep -Eo '[0-9]+ jobs read so far' "$log" | tail -1 | cut -d' ' -f1)
scancel $(cat "$low_ids") 2>/dev/null || true
dl_cluster_wait_jobs_done 240
bad=0
for id in "${backlog[@]}"; do
	# (placed, then run there or, its bounded wait over, widened)
	grep -q "started JobId=$id on [^ ]* (planned " "$log" ||
		{ echo "  backlog JobId=$id: started without a placement"; bad=$((bad + 1)); }
done
dl_t_eq "(d) every backlog job (7 of them entered the window from behind it) was placed before it started" 0 "$bad"
dl_t_check "(d) no job was let go unplaced by the gate's clock" \
	bash -c "! grep -q 'released unplaced' '$log'"
echo "  low-priority jobs that ran: $ran_low; jobs read before the cancel: $final, in all: $(grep -Eo '[0-9]+ jobs read so far' "$log" | tail -1 | cut -d' ' -f1)"
dl_t_le "(d) of the 300 low-priority jobs only those that reached the window were read" \
	"${final:-999}" $((12 + 1 + ran_low + 5))
dl_t_check "(d) slurmctld answers scontrol ping" \
	bash -c 'scontrol ping | grep -q UP'

# --- (e) jobs below the floors are skipped between full walks -------------
skip=$(sed -n 's/.*queued in the window, \([0-9]*\) skipped (floor walk).*/\1/p' "$log" | sort -n | tail -1)
nfloor=$(grep -c 'skipped (floor walk)' "$log" || true)
echo "  walks that skipped: $nfloor, most jobs skipped by one: ${skip:-none}"
dl_t_check "(e) walks between full walks skipped the jobs below the floors (${skip:-no} of 300+)" \
	test "${skip:-0}" -ge 200
# Renewed from the due list between cycles, a bounded step at a time
# (agent_snapshot_renew_due()): (d) says none of these holds ran out.
bylist=$(sed -n 's/.* gate holds renewed between cycles (\([0-9]*\) from the due list).*/\1/p' "$log" | sort -n | tail -1)
dl_t_check "(e) the due list's holds were renewed between cycles (${bylist:-none} at most in one step)" \
	test "${bylist:-0}" -ge 1

# --- (f) an idle agent ------------------------------------------------------
busy=()
for n in n1 n2; do
	busy+=("$(sbatch --parsable -w "$n" -t 30 -o /dev/null --wrap 'sleep 900')")
done
for id in "${busy[@]}"; do dl_t_wait_state "$id" RUNNING 60 || true; done
arr=$(sbatch --parsable -o /dev/null --array=0-39 --comment="$(files_of a)" \
	--wrap 'sleep 1')
dl_t_wait_until 60 grep -q "split JobId=${arr}_" "$log" || true
# Settled: no cycle for 12 s (bounded; the build before never got there:
# it cycled every 10 s).
quiet_since() {
	local n0
	n0=$(grep -c ': cycle [0-9]* due:' "$log" || true)
	sleep 12
	[ "$(grep -c ': cycle [0-9]* due:' "$log" || true)" = "$n0" ]
}
dl_t_wait_until 60 quiet_since || true
off=$(stat -c %s "$log")
sleep 45
tail -c +"$((off + 1))" "$log" >"$DL_CLUSTER_DIR/idle.log"
ncyc=$(grep -c ': cycle [0-9]* due:' "$DL_CLUSTER_DIR/idle.log" || true)
nren=$(grep -Ec '(^|[^0-9])[1-9][0-9]* gate holds renewed between cycles' "$DL_CLUSTER_DIR/idle.log" || true)
echo "  idle 45 s: $ncyc cycles ($(grep -o 'due: .*' "$DL_CLUSTER_DIR/idle.log" | sort | uniq -c | paste -sd, -)), $nren renewals between cycles"
dl_t_le "(f) an idle agent ran at most 3 cycles in 45 s" "$ncyc" 3
dl_t_check "(f) it renewed the gate holds outside the window between cycles" \
	test "$nren" -ge 1
# (the array's own record: the line of a task range)
meta=$(scontrol show job -o "$arr" | grep -E 'ArrayTaskId=[0-9]+-' | head -1)
field() { grep -Eo "$1=[^ ]*" <<<"$meta" | head -1 | cut -d= -f2-; }
dl_t_eq "(f) the array's own record ($(field ArrayTaskId)) is still held by the gate" \
	BeginTime "$(field Reason)"
b=$(date -d "$(field EligibleTime)" +%s 2>/dev/null) || b=0
dl_t_check "(f) its begin time is ahead ($(field EligibleTime))" \
	test "$b" -gt "$(date +%s)"
dl_t_check "(f) no job was let go unplaced by the gate's clock" \
	bash -c "! grep -q 'released unplaced' '$log'"
scancel "$arr" "${busy[@]}" 2>/dev/null || true

dl_t_summary
