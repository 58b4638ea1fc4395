#!/usr/bin/env bash
# test_stress.sh - issue 29's "Done when": job streams at their real
# arrival times on a busy host drain no node, hold no job, and every job
# completes with its files staged.
#
# 4 namespaced nodes (DL_NODE_NS=1: each slurmd, its Prolog, jobs and
# dl-cached in a mount namespace with a private tmpfs CacheDir), dl-cached
# on every node with prefetch on (the default PrefetchMaxBytes), slurmctld
# with sched/datalocality and job_submit/datalocality, dl-stage as Prolog,
# Epilog and TaskProlog; the shared storage emulated as 2 servers of one
# transfer at a time at 20 MiB/s (EmulateStorage* as contrib/bench_cluster.sh
# sets them).  The host is loaded by SPIN (24) spinning shells, started here
# and killed by the EXIT trap: the load at which the prefetch-Prolog race
# drained nodes (issue 29; two spinning shells do not show it).
#
# Each round: dl-submit submits JOBS (90) jobs from one process at Poisson
# arrivals of RATE (2.5) jobs/s (slurm_submit_batch_job() at each job's
# time; its achieved rate is printed, not asserted: tests check
# correctness, never speed).  Every job, run as nobody, reads 2 of 3
# shared reference files (REF_MIB, 8 MiB) and 2 private inputs of its own
# (PRIV_MIB, 6 MiB, new every round) through $DL_CACHE_VIEW, compares them
# with the sources, and computes COMPUTE (1) s: more work than the 4
# one-CPU nodes keep up with, so that jobs wait, placed, while their files
# are prefetched, and often start while the prefetch still copies (the
# race of issue 29).  Checked after every round:
#   - every job finished (waiting with a bound of many minutes; a held job
#     ends the wait at once), and is COMPLETED, never requeued (Restarts=0);
#   - no node is drained, down or failing, no slurmd logged a failed
#     Prolog, slurmctld requeued nothing;
#   - every job's Prolog logged its staging summary on its node, none
#     logged "staging failed", none fell back to its sources after a fault
#     of its node.
# On 080dd34, before the race fix f6497a5, it fails as the issue reports:
# in its first round n4 drained ("Prolog error"; slurmd: "staging failed on
# this node: view of .../j54_1.fq: No such file or directory") and job 55
# "launch failed requeued held", in the second n3 too (with main's
# dl-submit: DL_SUBMIT=...); an earlier run there failed a job instead
# ("cmp: .../.jobs/40.view/...: Permission denied", a late prefetch).
#
# Environment (defaults): DL_BUILD_DIR (required: plugins, dl-stage,
# dl-cached, dl-submit), DL_STRESS_ROUNDS (2), DL_STRESS_JOBS (90),
# DL_STRESS_RATE (2.5), DL_STRESS_SPIN (24), DL_STRESS_SEED (29),
# DL_STRESS_WAIT (900: seconds a round's jobs may take to finish),
# DL_STRESS_COMPUTE (1), DL_STRESS_REF_MIB (8), DL_STRESS_PRIV_MIB (6),
# DL_SUBMIT (DL_BUILD_DIR/dl-submit).  Root.  About 4 minutes on 2 cores
# (a round is about 40 s of arrivals and about 60 s more to drain).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${DL_BUILD_DIR:?set DL_BUILD_DIR to a build tree with the plugins}"
# shellcheck source=../cluster/cluster.sh
source "$here/../cluster/cluster.sh"
# shellcheck source=lib.sh
source "$here/lib.sh"
ROUNDS=${DL_STRESS_ROUNDS:-2}
NJOBS=${DL_STRESS_JOBS:-90}
RATE=${DL_STRESS_RATE:-2.5}
SPIN=${DL_STRESS_SPIN:-24}
SEED=${DL_STRESS_SEED:-29}
WAIT=${DL_STRESS_WAIT:-900}
COMPUTE=${DL_STRESS_COMPUTE:-1}
REF_MIB=${DL_STRESS_REF_MIB:-8}
PRIV_MIB=${DL_STRESS_PRIV_MIB:-6}
BW=$((20 * 1048576))

dl_t_use_services test_stress 4
submit=${DL_SUBMIT:-$DL_BUILD_DIR/dl-submit}
[ -x "$submit" ] || { echo "test_stress: no $submit"; exit 1; }

spin_pids=()
cleanup() {
	local p
	# The spinners first, so that the cluster stops at an idle host.
	for p in "${spin_pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${spin_pids[@]}"; do wait "$p" 2>/dev/null || true; done
	dl_cluster_stop
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

dl_cluster_init
cdir=$DL_NODE_CACHE_DIR
data=$DL_CLUSTER_DIR/data
out=$DL_CLUSTER_DIR/out
locks=$DL_CLUSTER_DIR/locks
mkdir -p "$locks"
chmod 777 "$locks"
chmod 1777 "$out"
cat >"$DL_CLUSTER_DIR/etc/datalocality.conf" <<CONF
CacheDir=$cdir
CacheCapacity=48M
EvictionPolicy=value
StorageBandwidth=$BW
EmulateStorageBandwidth=$BW
EmulateStorageServers=2
EmulateStorageLockDir=$locks
PrefetchTimeout=120
$(dl_cluster_service_conf)
CONF
dl_cluster_start

# The data of every round, written before the host is loaded.
for k in 1 2 3; do dl_t_mkfile "$data/ref/ref$k.fa" "$REF_MIB"; done
# Private inputs: a line naming the file, then one random block (a
# quarter of the time /dev/urandom takes for each file, the same bytes
# copied and compared).
head -c $((PRIV_MIB << 20)) /dev/urandom >"$DL_CLUSTER_DIR/block"
for r in $(seq 1 "$ROUNDS"); do
	mkdir -p "$data/in/r$r"
	for i in $(seq 0 $((NJOBS - 1))); do
		for k in 0 1; do
			{ echo "round $r job $i input $k"; cat "$DL_CLUSTER_DIR/block"; } \
				>"$data/in/r$r/j${i}_$k.fq"
		done
	done
done
rm -f "$DL_CLUSTER_DIR/block"
chmod -R a+rX "$data"
# Files are "recently changed" for a second or two after they are written
# (dl-stage then checks them by content); the stream starts later anyway.
sleep 2

spin() { while :; do :; done; }
for _ in $(seq 1 "$SPIN"); do
	spin &
	spin_pids+=("$!")
done
printf '%s\n' "${spin_pids[@]}" >"$DL_CLUSTER_DIR/run/spin.pids"
echo "  $SPIN spinning shells started (PIDs in run/spin.pids); load average $(cut -d' ' -f1-3 /proc/loadavg)"

nodes="n1 n2 n3 n4"
node_logs() {
	local n
	for n in $nodes; do
		dl_cluster_node_exec "$n" cat "$cdir/.log" 2>/dev/null || true
	done
}

# wait_round TIMEOUT: until no job is pending, configuring, running or
# completing; returns 1 at once if one is held (it would wait forever).
wait_round() {
	local deadline=$((SECONDS + $1)) act
	while :; do
		act=$(squeue -h -t PD,CF,R,CG -o '%i %T %r' 2>/dev/null) || act='? squeue failed'
		[ -z "$act" ] && return 0
		if grep -qi 'held' <<<"$act"; then
			echo "  held jobs:"
			grep -i 'held' <<<"$act" | head -5 | sed 's/^/    /'
			return 1
		fi
		if [ $SECONDS -ge $deadline ]; then
			echo "  still active after $1 s: $(grep -c . <<<"$act") jobs"
			head -5 <<<"$act" | sed 's/^/    /'
			return 1
		fi
		sleep 2
	done
}

# round R: one stream, then the checks.
round() {
	local r=$1 tmpl=$DL_CLUSTER_DIR/templates.$r ids=$out/ids.$r
	local rc=0 t0=$SECONDS k jobs bad logs f
	: >"$tmpl"
	for k in 1 2 3; do
		f="$data/ref/ref$k.fa $data/ref/ref$((k % 3 + 1)).fa $data/in/r$r/j%i_0.fq $data/in/r$r/j%i_1.fq"
		echo "--uid=nobody --gid=nogroup --time=10 --chdir=$out --output=$out/%j.out --job-name=r$r-%i --comment=files:${f// /,} --wrap=for f in $f; do cmp \"\$DL_CACHE_VIEW\$f\" \"\$f\" || exit 1; done; sleep $COMPUTE" >>"$tmpl"
	done
	"$submit" --rate "$RATE" --jobs "$NJOBS" --seed $((SEED + r)) -T "$tmpl" \
		--ids "$ids" --record "$out/record.$r" 2>"$out/submit.$r" || rc=$?
	sed "s/^/  round $r: /" "$out/submit.$r"
	dl_t_check "round $r: dl-submit submitted all $NJOBS jobs (exit $rc: 0 valid, 3 lagging)" \
		eval '[ "$rc" = 0 ] || [ "$rc" = 3 ] && [ "$(grep -c . "$ids")" = "$NJOBS" ]'
	dl_t_check "round $r: every job finished, none held (bound $WAIT s)" wait_round "$WAIT"
	echo "  round $r: $((SECONDS - t0)) s; load average $(cut -d' ' -f1-3 /proc/loadavg)"
	# One listing of all jobs: "id state restarts reason".
	jobs=$(scontrol show job -o 2>/dev/null | awk '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = substr($i, length(kv[1]) + 2) }
		print v["JobId"], v["JobState"], v["Restarts"], v["Reason"] }' || true)
	bad=$(awk 'NR == FNR { want[$1] = 1; next } ($1 in want) && $2 != "COMPLETED"' "$ids" - <<<"$jobs")
	dl_t_eq "round $r: every job COMPLETED" "" "$(head -5 <<<"$bad")"
	# What the first failed jobs said (their cmp of the view).
	for f in $(awk '{ print $1 }' <<<"$bad" | head -3); do
		echo "  job $f: $(head -2 "$out/$f.out" 2>/dev/null | tr '\n' ' ')"
	done
	bad=$(awk 'NR == FNR { want[$1] = 1; next } ($1 in want) && $3 != 0' "$ids" - <<<"$jobs")
	dl_t_eq "round $r: no job requeued (Restarts=0)" "" "$(head -5 <<<"$bad")"
	dl_t_eq "round $r: every job is known to slurmctld" "$NJOBS" \
		"$(awk 'NR == FNR { want[$1] = 1; next } ($1 in want) { n++ } END { print n + 0 }' "$ids" - <<<"$jobs")"
	dl_t_eq "round $r: no node drained, down or failing" "" \
		"$(sinfo -h -N -o '%N %T %E' 2>/dev/null | grep -Ei 'drain|down|fail' || true)"
	dl_t_eq "round $r: no slurmd logged a failed Prolog" "" \
		"$(cat "$DL_CLUSTER_DIR"/log/slurmd.n*.log | grep -i 'prolog failed' | head -3 || true)"
	dl_t_eq "round $r: slurmctld requeued and held nothing" "" \
		"$(grep -Ei 'requeu|prolog.*(fail|error)|launch failed' "$(dl_cluster_log_ctld)" | head -3 || true)"
	logs=$(node_logs)
	bad=$(while read -r id; do
		grep -q "job $id on n[0-9]*: [0-9]* files: " <<<"$logs" || echo "$id"
	done <"$ids")
	dl_t_eq "round $r: every job's Prolog logged its staging on its node" "" \
		"$(head -5 <<<"$bad" | tr '\n' ' ' | sed 's/ $//')"
	bad=$(awk 'NR == FNR { want[$1] = 1; next }
		match($0, /job [0-9]+ on n[0-9]+: /) { split(substr($0, RSTART, RLENGTH), w, " ")
			if ((w[2] in want) && /staging failed|fell back to the source/) print }' "$ids" - <<<"$logs")
	dl_t_eq "round $r: no job's staging failed or fell back after a fault of its node" "" \
		"$(head -3 <<<"$bad")"
	echo "  round $r: prefetches: $(cat "$DL_CLUSTER_DIR"/log/cached.n*.out 2>/dev/null | grep -c 'prefetch for job' || true) logged, of which" \
		"$(cat "$DL_CLUSTER_DIR"/log/cached.n*.out 2>/dev/null | grep 'prefetch for job' | grep -ci 'fail\|error' || true) with an error"
}

for r in $(seq 1 "$ROUNDS"); do round "$r"; done
echo "  load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
dl_t_summary
