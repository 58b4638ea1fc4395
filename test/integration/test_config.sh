#!/usr/bin/env bash
# test_config.sh - datalocality.conf on a real slurmctld: bad values are
# logged and replaced by defaults, never fatal; good values are applied;
# a missing SchedulerParameters setting is reported loudly.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${DL_BUILD_DIR:?set DL_BUILD_DIR to a build tree with the plugins}"
# shellcheck source=../cluster/cluster.sh
source "$here/../cluster/cluster.sh"
# shellcheck source=lib.sh
source "$here/lib.sh"

export DL_SCHED_TYPE=sched/datalocality
export DL_JOB_SUBMIT=datalocality
export DL_PLUGIN_DIR="$DL_BUILD_DIR/.libs"
# slurmctld inherits it: the partitioner helper of this build.
export DL_PARTITIOND="$DL_BUILD_DIR/dl-partitiond"
export DL_NODES=2
trap dl_cluster_stop EXIT

# _ctld_pid - the running cluster's slurmctld, as the harness started it.
_ctld_pid() {
	awk '$1 == "slurmctld" { p = $2 } END { print p }' "$DL_CLUSTER_DIR/run/harness.pids"
}

# _completed ID... - how many of these jobs COMPLETED.
_completed() {
	local id n=0
	for id in "$@"; do
		[ "$(dl_cluster_job_field "$id" JobState)" = COMPLETED ] && n=$((n + 1))
	done
	echo "$n"
}

# --- 1. bad values, and the required SchedulerParameters missing ----------
export DL_SCHED_PARAMS=""
dl_cluster_init
cat >"$DL_CLUSTER_DIR/etc/datalocality.conf" <<'CONF'
Policy=no-such-policy
PolicyParameters=slack=banana
EvictionPolicy=sometimes
CacheCapacity=lots
StorageBandwidth=-5
WaitFactor=-1
StrictPlacement=maybe
CONF
dl_cluster_start
log=$(dl_cluster_log_ctld)
for pat in "policy no-such-policy(slack=banana): unknown policy; using online-hps with its defaults" \
	   "unknown EvictionPolicy=sometimes" \
	   "CacheCapacity=lots is not a size" \
	   "StorageBandwidth=-5 must be a number above 0" \
	   "WaitFactor=-1 must be a number above 0" \
	   "StrictPlacement=maybe is not yes or no"; do
	dl_t_check "bad setting reported: $pat" \
		dl_t_wait_until 10 grep -qF -- "$pat" "$log"
done
id=$(sbatch --parsable -o /dev/null --comment=files:/etc/hostname --wrap true)
dl_cluster_wait_jobs_done 60
dl_t_eq "jobs still run with a broken datalocality.conf" COMPLETED \
	"$(dl_cluster_job_field "$id" JobState)"
dl_t_check "slurmctld is up" bash -c 'scontrol ping | grep -q UP'
dl_cluster_stop

# --- 2. an unparsable file: defaults, not a crash -------------------------
export DL_SCHED_PARAMS=bf_interval=1
dl_cluster_init
printf 'this is = not\n\001\002 a config ==== file\nPolicy\n' \
	>"$DL_CLUSTER_DIR/etc/datalocality.conf"
dl_cluster_start
log=$(dl_cluster_log_ctld)
dl_t_check "unparsable file reported" \
	dl_t_wait_until 10 grep -q "cannot parse .*datalocality.conf" "$log"
dl_t_check "defaults in force" dl_t_wait_until 10 grep -q "policy online-hps, eviction value, cache capacity unlimited" "$log"
dl_t_check "no JobSubmitPlugins error when it is set" \
	bash -c "! grep -q 'JobSubmitPlugins lacks' '$log'"

# --- 3. good values are applied, also on scontrol reconfigure -------------
cat >"$DL_CLUSTER_DIR/etc/datalocality.conf" <<'CONF'
Policy=locality
PolicyParameters=slack=2
EvictionPolicy=lru
CacheCapacity=1G
CONF
scontrol reconfigure
dl_t_check "reconfigure applies the new settings" \
	dl_t_wait_until 10 grep -q "policy locality slack=2, eviction lru, cache capacity set" "$log"
id=$(sbatch --parsable -o /dev/null --comment=files:/etc/hostname --wrap true)
dl_cluster_wait_jobs_done 60
dl_t_eq "jobs run after reconfigure" COMPLETED "$(dl_cluster_job_field "$id" JobState)"
# --- 4. a dead partitioner: plans go on (greedy), slurmctld stays up ------
# The helper is slurmctld's child; kill exactly that process.
ctld=$(_ctld_pid)
cat >"$DL_CLUSTER_DIR/etc/datalocality.conf" <<'CONF'
Policy=online-hps
CONF
scontrol reconfigure
id=$(sbatch --parsable -o /dev/null --comment=files:/etc/hostname --wrap true)
dl_cluster_wait_jobs_done 60
helper=$(pgrep -P "$ctld" -f dl-partitiond | head -1 || true)
dl_t_check "slurmctld runs the partitioner as a helper process" test -n "$helper"
[ -n "$helper" ] && kill -9 "$helper"
ids=()
for i in 1 2 3; do
	ids+=("$(sbatch --parsable -o /dev/null --comment=files:/etc/hostname,/etc/passwd --wrap true)")
done
dl_cluster_wait_jobs_done 60
ok=$(_completed "${ids[@]}")
dl_t_eq "jobs still run after the helper was killed" 3 "$ok"
dl_t_check "slurmctld is up after the helper was killed" bash -c 'scontrol ping | grep -q UP'
# A helper that cannot be started at all: the greedy plan is used.
echo "PolicyParameters=helper=/nonexistent/dl-partitiond,timeout_ms=500" >>"$DL_CLUSTER_DIR/etc/datalocality.conf"
mark=$(($(wc -l <"$log") + 1))
scontrol reconfigure
# in force before the job is submitted
dl_t_wait_until 10 bash -c "tail -n +$mark '$log' | grep -qF 'policy online-hps helper=/nonexistent/dl-partitiond'" || true
id=$(sbatch --parsable -o /dev/null --comment=files:/etc/hostname --wrap true)
dl_cluster_wait_jobs_done 60
dl_t_eq "jobs run with no partitioner helper at all" COMPLETED "$(dl_cluster_job_field "$id" JobState)"
dl_t_check "the missing helper is reported" \
	dl_t_wait_until 10 grep -q "partitioner helper failed, greedy plan used" "$log"

# --- 5. scontrol setdebug is no reconfiguration, under either entry point --
# Slurm moves slurm.conf's stamp for setdebug and setdebugflags as for a
# reconfigure.  The agent took them for one: it made its policy anew (the
# partitioner helper restarted), reloaded its state file and restarted the
# node channel (agent_reconf.h).  A changed file is still applied.
_policy_lines() { grep -c "policy online-hps, eviction" "$log" || true; }
_helper() { pgrep -P "$ctld" -f dl-partitiond | head -1 || true; }
for mode in sched plugstack; do
	dl_cluster_stop
	export DL_SCHED_TYPE=sched/datalocality DL_JOB_SUBMIT=datalocality
	unset DL_CLUSTER_EXTRA_CONF
	[ "$mode" = plugstack ] && dl_t_plugstack
	dl_cluster_init
	printf 'Policy=online-hps\n' >"$DL_CLUSTER_DIR/etc/datalocality.conf"
	dl_cluster_start
	log=$(dl_cluster_log_ctld)
	ctld=$(_ctld_pid)
	dl_t_check "$mode: datalocality.conf read at start" \
		dl_t_wait_until 20 grep -q "policy online-hps, eviction" "$log"
	dl_t_check "$mode: the partitioner helper runs" \
		dl_t_wait_until 20 bash -c "pgrep -P $ctld -f dl-partitiond >/dev/null"
	helper=$(_helper)
	n=$(_policy_lines)
	# slurm.conf's stamp counts whole seconds: move it in a later one
	# than the start's, or the agent sees no move to report (only a
	# look at the file once that second is over, agent_reconf.h).
	sleep 1.5
	scontrol setdebug debug
	scontrol setdebugflags +Protocol
	scontrol setdebugflags -Protocol
	id=$(sbatch --parsable -o /dev/null --comment=files:/etc/hostname --wrap true)
	dl_cluster_wait_jobs_done 60
	dl_t_eq "$mode: a job runs after setdebug" COMPLETED \
		"$(dl_cluster_job_field "$id" JobState)"
	dl_t_check "$mode: setdebug's stamp seen and left alone" \
		dl_t_wait_until 10 grep -q "nothing to reconfigure" "$log"
	dl_t_eq "$mode: setdebug does not read datalocality.conf again" "$n" \
		"$(_policy_lines)"
	dl_t_eq "$mode: setdebug keeps the partitioner helper" "$helper" "$(_helper)"
	printf 'Policy=online-hps\nCacheCapacity=1G\n' \
		>"$DL_CLUSTER_DIR/etc/datalocality.conf"
	scontrol reconfigure
	dl_t_check "$mode: a reconfigure with a changed file applies it" \
		dl_t_wait_until 30 grep -q "policy online-hps, eviction value, cache capacity set" "$log"
done

# --- 6. from-scratch partitions in the background (partition_bg.h) -------
# With a fresh partition due at every refined plan (full_every=1, and
# refine_above=2 so that a short queue is refined), each is made on a
# thread of slurmctld with a helper of its own while the agent goes on
# planning, and adopted by a later plan; jobs run as before.  (Whether a
# refine then starts from it depends on which jobs are still unplaced:
# check_partition_bg.c tests that.)
dl_cluster_stop
export DL_SCHED_TYPE=sched/datalocality DL_JOB_SUBMIT=datalocality
unset DL_CLUSTER_EXTRA_CONF
dl_cluster_init
printf 'Policy=online-hps\nPolicyParameters=full_every=1,refine_above=2\n' \
	>"$DL_CLUSTER_DIR/etc/datalocality.conf"
dl_cluster_start
log=$(dl_cluster_log_ctld)
ctld=$(_ctld_pid)
dl_t_check "background: datalocality.conf read at start" \
	dl_t_wait_until 20 grep -q "policy online-hps full_every=1" "$log"
scontrol setdebug debug
ids=()
for i in $(seq 1 16); do
	f=/etc/hostname
	((i % 2)) && f=/etc/os-release
	ids+=("$(sbatch --parsable -o /dev/null --comment="files:$f" --wrap 'sleep 0.3')")
done
dl_cluster_wait_jobs_done 120
ok=$(_completed "${ids[@]}")
dl_t_eq "background: every job runs" 16 "$ok"
dl_t_check "background: a partition made in the background is adopted" \
	dl_t_wait_until 10 grep -q "background partition adopted" "$log"
# The plan's helper and the background's (one more only while a dead
# one is replaced, which the next check would report).
dl_t_check "background: the background has a helper of its own" \
	test "$(pgrep -c -P "$ctld" -f dl-partitiond || true)" -ge 2
dl_t_check "background: no helper failed" \
	bash -c "! grep -q 'helper failed' '$log'"
dl_t_summary
