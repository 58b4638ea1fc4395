#!/usr/bin/env bash
# bench_hostile.sh - what hostile jobs cost slurmctld, on a real local
# cluster with sched/datalocality (a benchmark: it prints, never asserts):
#   - slurmctld's RSS before and after three jobs naming 1,000,000 files
#     each (through list files) were submitted, planned for and cancelled;
#   - how long a victim job waits to start while they are pending.
# Target (issue "hostile input"): RSS after within 20% of before.
#
#   contrib/bench_hostile.sh [BUILD_DIR]        (about 2 minutes; root)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/_build/main}
[ -f "$build/.libs/sched_datalocality.so" ] ||
	build=$("$top/contrib/build.sh" "$build" | tail -1)
NPATHS=${NPATHS:-1000000}
# shellcheck source=../test/cluster/cluster.sh
source "$top/test/cluster/cluster.sh"
# shellcheck source=../test/integration/lib.sh
source "$top/test/integration/lib.sh"
export DL_BUILD_DIR=$build DL_CLUSTER_QUIET=1 DL_NODES=4
dl_t_use_build
trap dl_cluster_stop EXIT
dl_cluster_start
out=$DL_CLUSTER_DIR/out
chmod 1777 "$out"
pid=$(dl_cluster_pids | awk '$1 == "slurmctld" { print $2 }')
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$pid/status"; }
job() { sbatch --parsable --uid=nobody --gid=nogroup --chdir="$out" -o /dev/null "$@"; }

# Warm up: some ordinary annotated jobs, so the baseline is a working one.
for i in $(seq 1 20); do job --comment="files:/etc/hostname,/etc/os-release" --wrap true >/dev/null; done
dl_cluster_wait_jobs_done 60
sleep 2
before=$(rss)

blocker=$(job -N 4 --exclusive --wrap "sleep 600")
for k in 1 2 3; do
	seq -f "/nonexistent/hostile$k/file%07g" 1 "$NPATHS" >"$out/h$k.list"
	chmod 644 "$out/h$k.list"
done
t0=$(date +%s.%N)
ids=()
for k in 1 2 3; do ids+=("$(job --comment="files:@$out/h$k.list" --wrap true)"); done
t1=$(date +%s.%N)
log=$(dl_cluster_log_ctld)
deadline=$((SECONDS + 120))
until [ "$(grep -c 'names [0-9]* files, above MaxFilesPerJob' "$log")" -ge 3 ] ||
      [ $SECONDS -ge $deadline ]; do sleep 0.5; done
t2=$(date +%s.%N)
peak=$(rss)
scancel "$blocker"
victim=$(job --comment="files:/etc/hostname" --wrap true)
v0=$SECONDS
until [ "$(dl_cluster_job_field "$victim" JobState)" = COMPLETED ] ||
      [ $((SECONDS - v0)) -ge 60 ]; do sleep 0.2; done
vwait=$((SECONDS - v0))
scancel "${ids[@]}"
sleep 5
after=$(rss)
printf 'three jobs of %d files each (list files)\n' "$NPATHS"
printf '  submit (validated as the user):      %.2f s for the three\n' "$(echo "$t1 - $t0" | bc)"
printf '  read and refused by the planner:     %.2f s after submission\n' "$(echo "$t2 - $t1" | bc)"
printf '  a victim job completed within:       %d s\n' "$vwait"
printf '  slurmctld RSS before:                %d KiB\n' "$before"
printf '  slurmctld RSS while they pend:       %d KiB\n' "$peak"
printf '  slurmctld RSS after they are gone:   %d KiB  (after / before = %.2f; target <= 1.20: %s)\n' \
	"$after" "$(echo "$after / $before" | bc -l)" \
	"$( [ $((after * 100)) -le $((before * 120)) ] && echo met || echo MISSED)"
