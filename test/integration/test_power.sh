#!/usr/bin/env bash
# test_power.sh - power saving on a real Slurm: the plugin reads each
# node's power state (Slurm's POWERING_DOWN / POWERED_DOWN / POWERING_UP
# flags) and treats a powered-down node's cache as datalocality.conf says.
#
# Slurm's power saving runs for real: SuspendProgram and ResumeProgram are
# scripts this test writes (they record their calls); a node is powered
# down with `scontrol update state=power_down_force` and, once Slurm says
# POWERED_DOWN, its slurmd is stopped as a power-off would; when Slurm
# runs ResumeProgram for it (`state=power_up`, or a job allocated there),
# the test starts its slurmd again as a booting node would, in a new time
# namespace whose uptime is 0 (dl_cluster_boot_slurmd): Slurm ignores a
# resuming node's registration until its boot time is after the resume
# request, and every slurmd of this harness shares the host's uptime.  dl-stage
# stages for real, the controller reads the nodes' inventories.
#
#  (a) PowerDownCache=lost (the default): the model of a powered-down node
#      is emptied; a job for the files it held is placed on a warm node,
#      and the cold node is not woken; after it is up again, its inventory
#      is the truth again.
#  (b) PowerDownCache=kept: the model survives the power-down; with
#      ResumeCost=1 (a resume is cheaper than copying the 3 MiB at 1 MB/s)
#      a job for the files only it holds is placed on the cold node, Slurm resumes it,
#      and the job runs there with its files cached; with ResumeCost=600
#      it goes to a warm node instead.
#  (c) no job is lost, no node is drained or down.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${DL_BUILD_DIR:?set DL_BUILD_DIR to a build tree with the plugins}"
DL_STAGE=${DL_STAGE:-$DL_BUILD_DIR/dl-stage}
# shellcheck source=../cluster/cluster.sh
source "$here/../cluster/cluster.sh"
# shellcheck source=lib.sh
source "$here/lib.sh"

dl_t_use_build
export DL_NODES=3 DL_NODE_CPUS=1
export DL_PROLOG="$DL_STAGE" DL_EPILOG="$DL_STAGE"
export DL_CLUSTER_EXTRA_CONF="TaskProlog=$DL_STAGE"
sdl="$DL_BUILD_DIR/sdatalocality"
trap dl_cluster_stop EXIT
dl_cluster_init
d=$DL_CLUSTER_DIR
# The programs Slurm runs (as SlurmUser, root here): they only record.
for p in suspend resume; do
	cat >"$d/etc/$p.sh" <<EOF
#!/bin/sh
echo "$p \$1" >>"$d/run/power.calls"
EOF
	chmod 0755 "$d/etc/$p.sh"
done
# Nodes are powered down only when told (SuspendTime is far away); Slurm
# looks every second, a power-down takes 2 s, a resume may take 30 s.
cat >>"$d/etc/slurm.conf" <<EOF
SuspendProgram=$d/etc/suspend.sh
ResumeProgram=$d/etc/resume.sh
SuspendTime=3600
SuspendTimeout=2
ResumeTimeout=30
SlurmctldParameters=power_save_interval=1,power_save_min_interval=0
EOF
conf() {
	{
		echo "CacheDir=$d/cache/%n"
		echo "StorageBandwidth=1e6"
		printf '%s\n' "$@"
	} >"$d/etc/datalocality.conf"
}
conf
dl_cluster_start
log=$(dl_cluster_log_ctld)
touch "$d/run/power.calls"
data=$d/data
for g in 0 1; do
	for f in 1 2 3; do dl_t_mkfile "$data/g$g/f$f" 1; done
done
chmod -R a+rX "$data"
submit() { # GROUP [sbatch options...]
	local g=$1
	shift
	sbatch --parsable -o /dev/null "$@" \
		--comment="files:$data/g$g/f1,$data/g$g/f2,$data/g$g/f3" \
		--wrap 'for f in $DL_CACHE_VIEW/*/*/*/*/g*/f*; do cat "$f" >/dev/null; done; sleep 0.3'
}
node_state() { scontrol show node "$1" -o | sed -n 's/.* State=\([^ ]*\).*/\1/p'; }
model_files() { "$sdl" files "$1" 2>/dev/null | tail -n +2 | grep -c "/g$2/" || true; }
powered_down() { [[ $(node_state "$1") == *POWERED_DOWN* ]]; }
is_up() { ! [[ $(node_state "$1") =~ POWER(ED|ING)_ ]] && [[ $(node_state "$1") =~ ^(IDLE|MIXED|ALLOCATED) ]]; }
# In the state file (saved at most once a second): NODE's power line.
power_line() { "$sdl" nodes | awk -v n="$1" '$1 == n { $1 = $2 = $3 = $4 = $5 = $6 = $7 = ""; print }' | sed 's/^ *//'; }
# The model (read from inventories, saved at most once a second) and the
# state file lag the node: wait for them (bounded), then check.
model_is() { [ "$(model_files "$1" "$2")" = "$3" ]; } # NODE GROUP COUNT
power_is() { grep -q "^$2" <<<"$(power_line "$1")"; } # NODE POWER_RE
# scontrol reconfigure, and wait until the plugin has read its settings.
reconfigure() {
	local mark=$(($(wc -l <"$log") + 1))
	scontrol reconfigure
	dl_t_wait_until 10 bash -c "tail -n +$mark '$log' | grep -q ': policy .*, eviction '" || true
}

# Power NODE down as a power-off: Slurm's flags first, then its slurmd.
power_down() {
	scontrol update nodename="$1" state=power_down_force
	dl_t_wait_until 30 powered_down "$1" || {
		echo "  $1 is $(node_state "$1")"
		return 1
	}
	dl_cluster_stop_slurmd "$1"
}
# After power_down NODE: CASE's log line WORDS and sdatalocality's power
# column (matching POWER_RE) are checked.
check_down() { # CASE NODE WORDS POWER_RE
	local pl
	dl_t_wait_until 10 power_is "$2" "$4" || true
	dl_t_check "($1) slurmctld's log: $2 powered down, $3" \
		grep -q "node $2 is powered_down: $3" "$log"
	pl=$(power_line "$2")
	echo "  sdatalocality nodes: $2 $pl"
	dl_t_check "($1) sdatalocality nodes shows $2 $4" grep -q "^$4" <<<"$pl"
}
# Boot NODE when Slurm runs ResumeProgram for it (the calls so far: $2).
boot_when_resumed() {
	dl_t_wait_until 40 bash -c "[ \$(grep -c '^resume $1\$' '$d/run/power.calls') -gt $2 ]" ||
		return 1
	sleep 2 # booting; Slurm compares boot and request times in seconds
	dl_cluster_boot_slurmd "$1"
	dl_t_wait_until 30 is_up "$1"
}

# Group 0's files on one node.
id0=$(submit 0)
dl_cluster_wait_jobs_done 60
x=$(dl_cluster_job_field "$id0" NodeList)
dl_t_wait_until 10 model_is "$x" 0 3 || true
dl_t_eq "the model of $x holds group 0 (3 files) before the power-down" 3 "$(model_files "$x" 0)"

# --- (a) PowerDownCache=lost ---------------------------------------------
power_down "$x"
check_down a "$x" "its cache is lost (PowerDownCache=lost)" \
	"powered_down (cache lost, model emptied 1x)"
dl_t_check "(a) slurmctld's log: $x's model emptied" \
	grep -q "node $x: cache model emptied (3 files) by the power-down" "$log"
dl_t_eq "(a) the model of $x holds nothing while it is powered down" 0 "$(model_files "$x" 0)"
dl_t_check "(a) sdatalocality stats lists $x under power saving" \
	bash -c "'$sdl' stats | grep -q \"$x: powered_down since .*cache lost at power-down, model emptied 1 times\""
id1=$(submit 0)
dl_cluster_wait_jobs_done 60
n1=$(dl_cluster_job_field "$id1" NodeList)
echo "  group 0's job $id1 ran on $n1 ($x powered down)"
dl_t_check "(a) group 0's job ran on a warm node, not on $x" test "$n1" != "$x"
dl_t_check "(a) it was placed there by the plugin" \
	grep -q "placed JobId=$id1 on $n1 " "$log"
dl_t_check "(a) $x was not woken for it" powered_down "$x"
dl_t_eq "(a) no ResumeProgram call" 0 "$(grep -c '^resume' "$d/run/power.calls" || true)"

# Up again: its inventory (the files are still on disk here) is the truth.
calls=$(grep -c "^resume $x\$" "$d/run/power.calls" || true)
scontrol update nodename="$x" state=power_up
dl_t_check "(a) $x resumed by ResumeProgram and up" boot_when_resumed "$x" "$calls"
dl_t_wait_until 10 model_is "$x" 0 3 || true
dl_t_eq "(a) after the resume, $x's model is its inventory again" 3 "$(model_files "$x" 0)"
dl_t_check "(a) slurmctld's log: $x up" grep -q "node $x is up" "$log"

# --- (b) PowerDownCache=kept ---------------------------------------------
# Group 1's files on $x alone (its user's own --nodelist: no placement).
submit 1 -w "$x" >/dev/null
dl_cluster_wait_jobs_done 60
dl_t_wait_until 10 model_is "$x" 1 3 || true
dl_t_eq "(b) the model of $x holds group 1 (3 files)" 3 "$(model_files "$x" 1)"
conf "PowerDownCache=kept" "ResumeCost=1"
reconfigure
power_down "$x"
check_down b "$x" "its cache model is kept (PowerDownCache=kept)" \
	"powered_down (cache kept"
dl_t_eq "(b) the model of $x still holds group 1" 3 "$(model_files "$x" 1)"
calls=$(grep -c "^resume $x\$" "$d/run/power.calls" || true)
id2=$(submit 1)
dl_t_check "(b) ResumeCost=1 < 3 s of copying: group 1's job is placed on cold $x" \
	dl_t_wait_until 20 grep -q "placed JobId=$id2 on $x (3/3 files, 3.0 MiB cached; $x is powered down, resume ~1 s" "$log"
# Slurm allocates it to $x at once (CONFIGURING while $x resumes); the
# agent then rewrites the comment to say where it ran.
sc=$(scontrol show job "$id2" | sed -n 's/^ *SystemComment=//p')
echo "  JobId=$id2: $(dl_cluster_job_field "$id2" JobState) SystemComment=$sc"
dl_t_check "(b) its SystemComment names $x as the plugin's (powered down when placed)" \
	grep -Eq "^datalocality: (ReqNodeList=$x is the plugin's placement \(3/3 files, 3.0 MiB cached when placed, powered down then \(resume ~1 s\), policy online-hps\)|ran on $x, the node it was placed on)" <<<"$sc"
dl_t_check "(b) Slurm resumed $x for it (ResumeProgram ran)" boot_when_resumed "$x" "$calls"
dl_cluster_wait_jobs_done 60
dl_t_eq "(b) it ran on $x" "$x" "$(dl_cluster_job_field "$id2" NodeList)"
dl_t_check "(b) and found its 3 files cached there" \
	grep -q "started JobId=$id2 on $x (planned $x: strict; 3/3 files" "$log"

# ResumeCost=600: a warm node, 3 s of copying, is cheaper than a resume.
conf "PowerDownCache=kept" "ResumeCost=600"
reconfigure
power_down "$x"
dl_t_wait_until 10 power_is "$x" "powered_down (cache kept" || true
dl_t_eq "(b) the model of $x holds group 1 after the second power-down" 3 "$(model_files "$x" 1)"
calls=$(grep -c "^resume $x\$" "$d/run/power.calls" || true)
id3=$(submit 1)
dl_cluster_wait_jobs_done 60
n3=$(dl_cluster_job_field "$id3" NodeList)
echo "  group 1's job $id3 ran on $n3 (ResumeCost=600)"
dl_t_check "(b) with ResumeCost=600 it ran on a warm node" test "$n3" != "$x"
dl_t_check "(b) and $x stayed powered down" powered_down "$x"
scontrol update nodename="$x" state=power_up
dl_t_check "(b) $x resumed and up" boot_when_resumed "$x" "$calls"

# --- (c) nothing lost -----------------------------------------------------
dl_cluster_wait_jobs_done 30
completed=$(scontrol show job -o | grep -c 'JobState=COMPLETED' || true)
dl_t_eq "(c) all 5 jobs completed" 5 "$completed"
bad=$(sinfo -h -N -o '%N %T' | grep -Eiv ' (idle|mixed|allocated)$' || true)
dl_t_eq "(c) every node idle, none drained or down" "" "$bad"
dl_t_eq "(c) no job rescued from a placement Slurm could not use" 0 \
	"$(grep -c 'Slurm found it never runnable' "$log" || true)"
echo "  power calls: $(tr '\n' ';' <"$d/run/power.calls")"
dl_t_summary
