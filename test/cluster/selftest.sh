#!/usr/bin/env bash
# test/cluster/selftest.sh -- self test of the throw-away cluster harness.
#
# Starts a 4-node cluster (sched/builtin), runs a few batch jobs (pinned to
# each node, free ones, a 2-node job running srun), checks states, exit codes,
# node lists and output files, restarts slurmctld, stops the cluster and
# checks that every recorded daemon PID is gone.  Then a 2-node cluster
# with namespaced nodes (DL_NODE_NS=1): a file in n1's cache dir is seen by
# n1, its jobs and its Prolog, and by nobody else; the shared storage by
# all; with dl-cached built, the services run in their nodes' namespaces
# and restart.  Last line of output:
# "N passed, N failed"; exit status non-zero on any failure.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/cluster/cluster.sh
source "$here/cluster.sh"
trap dl_cluster_stop EXIT

pass=0
fail=0
ok() {
	pass=$((pass + 1))
	echo "ok   - $*"
}
not_ok() {
	fail=$((fail + 1))
	echo "FAIL - $*"
}
# check DESCRIPTION CMD... : run CMD, count the result
check() {
	local desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}
# expect_eq DESCRIPTION EXPECTED ACTUAL
expect_eq() {
	if [ "$2" = "$3" ]; then ok "$1 ($3)"; else not_ok "$1: expected '$2', got '$3'"; fi
}
# expect_match DESCRIPTION ERE ACTUAL
expect_match() {
	if [[ $3 =~ $2 ]]; then ok "$1 ($3)"; else not_ok "$1: '$3' does not match /$2/"; fi
}
finish() {
	echo "$pass passed, $fail failed"
	if [ "$fail" -eq 0 ]; then exit 0; fi
	exit 1
}

# ---------------------------------------------------------------- start
t0=$(date +%s%N)
if ! dl_cluster_start --nodes 4 --sched sched/builtin; then
	not_ok "cluster start"
	finish
fi
t1=$(date +%s%N)
echo "cluster came up in $(((t1 - t0) / 1000000)) ms (harness: ${DL_CLUSTER_STARTUP_MS} ms), dir $DL_CLUSTER_DIR"
ok "cluster start"

expect_eq "SLURM_CONF exported" "$DL_CLUSTER_DIR/etc/slurm.conf" "${SLURM_CONF:-}"
expect_match "client uses our munge socket" "socket=$DL_CLUSTER_DIR/munge/munge.socket" \
	"$(scontrol show config | awk -F' = ' '/^AuthInfo/ { print $2 }')"
expect_eq "4 idle nodes" "n1:idle n2:idle n3:idle n4:idle" \
	"$(sinfo -h -N -o '%N:%T' | sort | tr '\n' ' ' | sed 's/ $//')"
expect_eq "SchedulerType" "sched/builtin" \
	"$(scontrol show config | awk -F' = ' '/^SchedulerType/ { print $2 }')"
expect_eq "recorded pids: munged + slurmctld + 4 slurmd" 6 "$(dl_cluster_pids | wc -l)"
check "slurmctld log exists" test -s "$(dl_cluster_log_ctld)"

# ---------------------------------------------------------------- jobs
out=$DL_CLUSTER_DIR/out
declare -A pinned=()
free=()
# shellcheck disable=SC2016
for n in 1 2 3 4; do
	pinned[n$n]=$(sbatch --parsable -w "n$n" -o "$out/%j.out" --wrap 'hostname; echo node=$SLURMD_NODENAME; sleep 1')
done
# shellcheck disable=SC2016
for _ in 1 2 3; do
	free+=("$(sbatch --parsable -o "$out/%j.out" --wrap 'hostname; echo node=$SLURMD_NODENAME; sleep 1')")
done
multi=$(sbatch --parsable -N 2 -o "$out/%j.out" --wrap 'srun -l printenv SLURMD_NODENAME; sleep 1')
echo "submitted: pinned ${pinned[*]}, free ${free[*]}, 2-node $multi"

ts=$(date +%s%N)
check "all jobs finished within 60 s" dl_cluster_wait_jobs_done 60
echo "jobs done $((($(date +%s%N) - ts) / 1000000)) ms after submission"

check_job() { # jobid expected-nodelist-regex
	local j=$1 re=$2 f
	expect_eq "job $j JobState" COMPLETED "$(dl_cluster_job_field "$j" JobState || true)"
	expect_eq "job $j ExitCode" 0:0 "$(dl_cluster_job_field "$j" ExitCode || true)"
	expect_match "job $j NodeList" "$re" "$(dl_cluster_job_field "$j" NodeList || true)"
	f=$out/$j.out
	check "job $j output file $f written" test -s "$f"
}
used=
for n in n1 n2 n3 n4; do
	j=${pinned[$n]}
	check_job "$j" "^$n\$"
	expect_eq "job $j ran on $n (SLURMD_NODENAME)" "node=$n" "$(grep '^node=' "$out/$j.out" 2>/dev/null || true)"
	check "job $j output has hostname" grep -qx "$(hostname)" "$out/$j.out"
done
for j in "${free[@]}"; do
	check_job "$j" '^n[1-4]$'
	used="$used $(dl_cluster_job_field "$j" NodeList || true)"
done
echo "free jobs ran on:$used"
check_job "$multi" '^n\[[1-4][-,][1-4]\]$'
expect_eq "2-node job NumNodes" 2 "$(dl_cluster_job_field "$multi" NumNodes || true)"
mnodes=$(sed -n 's/^[0-9]*: *//p' "$out/$multi.out" 2>/dev/null | sort | tr '\n' ' ' | sed 's/ $//')
expect_match "2-node job srun ran on two distinct nodes" '^n[1-4] n[1-4]$' "$mnodes"
if [ "${mnodes% *}" = "${mnodes#* }" ]; then not_ok "2-node job nodes distinct ($mnodes)"; fi

expect_eq "field of unknown job fails" "rc=1" "rc=$(dl_cluster_job_field 999999 JobState >/dev/null 2>&1 && echo 0 || echo 1)"

# ---------------------------------------------------------------- restart
old_ctld=$(_dl_pid_of slurmctld)
ts=$(date +%s%N)
check "slurmctld restart" dl_cluster_restart_slurmctld
echo "slurmctld restart took $((($(date +%s%N) - ts) / 1000000)) ms"
new_ctld=$(_dl_pid_of slurmctld)
check "slurmctld has a new pid ($old_ctld -> $new_ctld)" test "$old_ctld" != "$new_ctld"
check "old slurmctld pid gone" bash -c "! kill -0 $old_ctld 2>/dev/null || grep -q '^[0-9]* ([^)]*) Z' /proc/$old_ctld/stat"
expect_eq "finished job survives restart" COMPLETED "$(dl_cluster_job_field "${pinned[n1]}" JobState || true)"
j=$(sbatch --parsable -o "$out/%j.out" --wrap 'hostname')
check "job after restart finished" dl_cluster_wait_jobs_done 30
check_job "$j" '^n[1-4]$'

# ---------------------------------------------------------------- stop
pids=$(dl_cluster_pids | awk '{ print $2 }')
dir=$DL_CLUSTER_DIR
base=$(cat "$dir/run/port_base")
ts=$(date +%s%N)
dl_cluster_stop
echo "stop took $((($(date +%s%N) - ts) / 1000000)) ms"
for p in $pids; do
	check "pid $p gone" bash -c "! kill -0 $p 2>/dev/null || grep -q '^[0-9]* ([^)]*) Z' /proc/$p/stat"
done
if [ "${DL_KEEP:-0}" = 1 ]; then
	check "dir kept (DL_KEEP=1)" test -d "$dir"
else
	check "dir removed" test ! -e "$dir"
fi
# Released means no longer ours: another integration test's next cluster may
# take the same base the moment it is free (stop 50's CI saw that).
expect_eq "port lock released" "" \
	"$(grep -Fx "$dir" "/tmp/dl_cluster.ports.$base/owner" 2>/dev/null || true)"
check "second stop is a no-op" dl_cluster_stop

# ---------------------------------------------------------------- namespaced nodes
# DL_NODE_NS=1: every slurmd (and its Prolog and jobs) in its own mount
# namespace with a private tmpfs over $DL_NODE_CACHE_DIR; the rest of the
# cluster dir is shared.  With a built dl-cached (DL_CACHED, or
# $DL_BUILD_DIR/dl-cached), every node's service runs in it too.
if [ -z "${DL_CACHED:-}" ] && [ -n "${DL_BUILD_DIR:-}" ] && [ -x "$DL_BUILD_DIR/dl-cached" ]; then
	DL_CACHED=$DL_BUILD_DIR/dl-cached
fi
export DL_NODE_NS=1 DL_CACHED
# The Prolog writes what it sees in the node cache dir into out/.
pro=$(mktemp -d /tmp/dl_selftest.XXXXXX)
trap 'dl_cluster_stop; rm -rf "$pro"' EXIT
chmod 755 "$pro"
nsconf() {
	cat >"$pro/prolog" <<-EOF
		#!/bin/sh
		ls -A "$DL_NODE_CACHE_DIR" >"$DL_CLUSTER_DIR/out/prolog.\$SLURM_JOB_ID" 2>&1
	EOF
	chmod 755 "$pro/prolog"
	if [ -n "${DL_CACHED:-}" ]; then
		{
			echo "CacheDir=$DL_NODE_CACHE_DIR"
			echo "CacheCapacity=8M"
			dl_cluster_service_conf
		} >"$DL_CLUSTER_DIR/etc/datalocality.conf"
	fi
}
if ! dl_cluster_init --nodes 2 --sched sched/builtin --prolog "$pro/prolog" ||
   ! nsconf || ! dl_cluster_start; then
	not_ok "namespaced cluster start"
	finish
fi
ok "namespaced cluster start (dl-cached: ${DL_CACHED:-none})"
c=$DL_NODE_CACHE_DIR
out=$DL_CLUSTER_DIR/out
ns1=$(dl_cluster_node_pid n1)
ns2=$(dl_cluster_node_pid n2)
mnt() { readlink "/proc/$1/ns/mnt"; }
nroles=6
[ -n "${DL_CACHED:-}" ] && nroles=8
expect_eq "recorded pids: munged + slurmctld + 2 x (namespace, slurmd${DL_CACHED:+, dl-cached})" \
	"$nroles" "$(dl_cluster_pids | wc -l)"
check "the nodes' namespaces differ from each other and from the host's" \
	test "$(mnt "$ns1")" != "$(mnt "$ns2")" -a "$(mnt "$ns1")" != "$(mnt $$)" -a "$(mnt "$ns2")" != "$(mnt $$)"
for n in n1 n2; do
	expect_eq "slurmd $n runs in $n's namespace" "$(mnt "$(dl_cluster_node_pid $n)")" \
		"$(mnt "$(_dl_pid_of slurmd.$n)")"
	if [ -n "${DL_CACHED:-}" ]; then
		expect_eq "dl-cached $n runs in $n's namespace" "$(mnt "$(dl_cluster_node_pid $n)")" \
			"$(mnt "$(dl_cluster_cached_pid $n || echo 1)")"
	fi
	expect_eq "$n: a tmpfs on the cache dir" tmpfs \
		"$(dl_cluster_node_exec $n findmnt -n -o FSTYPE --mountpoint "$c" || true)"
done
expect_eq "host: no mount on the cache dir" "" "$(findmnt -n -o FSTYPE --mountpoint "$c" || true)"
check "a file written into n1's cache dir" dl_cluster_node_exec n1 sh -c "echo secret >'$c/probe'"
expect_eq "n1 reads it back" secret "$(dl_cluster_node_exec n1 cat "$c/probe" || true)"
check "invisible from the host" test ! -e "$c/probe"
expect_eq "the host's cache dir stays empty" "" "$(ls -A "$c")"
check "invisible from n2" dl_cluster_node_exec n2 test ! -e "$c/probe"
echo shared >"$out/from-host"
for n in n1 n2; do
	expect_eq "$n sees the shared storage" shared \
		"$(dl_cluster_node_exec $n cat "$out/from-host" || true)"
done
check "n2 writes into the shared storage" \
	dl_cluster_node_exec n2 sh -c "echo n2 >'$out/from-n2'"
expect_eq "the host and n1 see it" "n2 n2" \
	"$(cat "$out/from-n2") $(dl_cluster_node_exec n1 cat "$out/from-n2" || true)"
# Jobs and the Prolog run in their node's namespace.
j1=$(sbatch --parsable -w n1 -o "$out/%j.out" --wrap "cat '$c/probe' 2>&1")
j2=$(sbatch --parsable -w n2 -o "$out/%j.out" --wrap "cat '$c/probe' 2>&1; true")
check "namespaced jobs finished" dl_cluster_wait_jobs_done 30
expect_eq "a job on n1 reads n1's cache" secret "$(cat "$out/$j1.out" 2>/dev/null || true)"
check "a job on n2 does not see it" grep -q 'No such file' "$out/$j2.out"
check "n1's Prolog sees n1's cache" grep -qx probe "$out/prolog.$j1"
check "n2's Prolog ran and does not" bash -c "[ -f '$out/prolog.$j2' ] && ! grep -qx probe '$out/prolog.$j2'"
# A restarted slurmd comes back into the same namespace, cache intact.
dl_cluster_stop_slurmd n1
dl_cluster_start_slurmd n1
check "n1 back after a slurmd restart" dl_cluster_wait_nodes idle 30 n1
expect_eq "restarted slurmd n1 in n1's namespace" "$(mnt "$ns1")" "$(mnt "$(_dl_pid_of slurmd.n1)")"
expect_eq "n1's cache survives it" secret "$(dl_cluster_node_exec n1 cat "$c/probe" || true)"
if [ -n "${DL_CACHED:-}" ]; then
	old=$(dl_cluster_cached_pid n1 || echo 1)
	dl_cluster_stop_cached n1 --kill
	check "dl-cached n1 killed" bash -c "! kill -0 $old 2>/dev/null"
	check "dl-cached n1 restarted" dl_cluster_start_cached n1
	check "with a new pid" test "$(dl_cluster_cached_pid n1 || echo 1)" != "$old"
fi
pids=$(dl_cluster_pids | awk '{ print $2 }')
dl_cluster_stop
for p in $pids; do
	check "pid $p gone" bash -c "! kill -0 $p 2>/dev/null || grep -q '^[0-9]* ([^)]*) Z' /proc/$p/stat"
done

finish
