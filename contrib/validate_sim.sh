#!/usr/bin/env bash
# validate_sim.sh - does dl-sim predict the real cluster?  One workload,
# contrib/bench_cluster.sh's stream (NWIDE=0: dl-sim has no multi-node
# jobs), run on the real local Slurm cluster of bench_cluster.sh (4 nodes
# of 1 CPU, namespaced node caches, emulated shared storage) and through
# dl-sim on the same platform, row by row:
#   backfill      sched/backfill + dl-stage caches  | dl-sim first-available
#   <policy>      sched/datalocality Policy=<policy> | dl-sim --policy <policy>
# both with Slurm's dispatch (priority order, the plan as per-job node
# restrictions with the bounded wait: dl-sim --dispatch slurm), caches of
# CACHE with EvictionPolicy=value, STORAGE_SERVERS servers serving one
# transfer at a time at STORAGE_BW, every file on the server dl-stage's
# emulation puts it on.  Peer copies: the real node services copy between
# nodes only when the plugin tells them where files are, so the backfill
# row has none (dl-sim --no-peer-fetch) and the plugin's rows have them
# (--peer-fetch at PEER_BW).  The launch overhead of dl-sim (what Slurm
# spends per job besides the job's script: launch, Prolog, Epilog, the
# controller's reaction) is measured on the real backfill row's plain
# jobs and given to every dl-sim row.
#
# Printed: per row the annotated jobs' mean response and the MiB read from
# the shared storage, real and simulated, their ratios and the ranking of
# the rows by mean response; OUT (if set) gets the same table in Markdown.
#
#   contrib/validate_sim.sh [BUILD_DIR]     (root; about 6 minutes)
#
# Environment: POLICIES ("online-hps locality mct"), PEER_BW (5e8), OUT,
# and bench_cluster.sh's settings (NJOBS, LOAD, SEED, COMPUTE, PLAIN_SEC,
# IMG_MIB, CACHE, STORAGE_BW, STORAGE_SERVERS, ...).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/_build/main}
[ -x "$build/dl-sim" ] || build=$("$top/contrib/build.sh" "$build" | tail -1)
POLICIES=${POLICIES:-"online-hps locality mct"}
PEER_BW=${PEER_BW:-5e8}
export NWIDE=0
export COMPUTE=${COMPUTE:-0.5} PLAIN_SEC=${PLAIN_SEC:-1} IMG_MIB=${IMG_MIB:-4}
export CACHE=${CACHE:-48M} STORAGE_BW=${STORAGE_BW:-$((20 * 1048576))}
export STORAGE_SERVERS=${STORAGE_SERVERS:-2}
work=$(mktemp -d /tmp/dl_validate.XXXXXX)
trap 'rm -rf "$work"' EXIT
py="python3 $top/contrib/validate_sim.py"

# real ROW ROWS DL_CONF: one bench_cluster.sh row, its logs in $work/ROW.
real() {
	local row=$1
	echo "validate: real cluster: $row" >&2
	env ROWS="$2" DL_CONF="$3" KEEP_LOGS="$work/$row" \
		"$top/contrib/bench_cluster.sh" "$build" >"$work/$row.out"
}

# sim ROW POLICY PEER LAUNCH: dl-sim on the row's own stream (its paths
# name its own storage directory).
sim() {
	local row=$1 dir
	dir=$(ls -d "$work/$row"/*/ | head -1)
	$py workload "$dir/stream" "$STORAGE_SERVERS" $((IMG_MIB << 20)) \
		"$COMPUTE" "$PLAIN_SEC" >"$work/$row.wl"
	"$build/dl-sim" -q --policy "$2" --workload-file "$work/$row.wl" \
		--nodes 4 --cores 1 --storage "$STORAGE_SERVERS" \
		--cache-size "$CACHE" --eviction value --rbw "$STORAGE_BW" \
		$3 --peer-bw "$PEER_BW" --launch-overhead "$4" \
		--dispatch slurm --tolerate-fallback \
		--csv "$work/$row.csv" --jobs-csv "$work/$row.jobs.csv"
}

# row_line ROW: "mean MiB" of the real row, then of the simulated one.
row_line() {
	local row=$1 dir
	dir=$(ls -d "$work/$row"/*/ | head -1)
	awk -F'|' '{ split($2, y, " "); printf "%s %s", y[1], y[7] }' "$work/$row/results"
	printf '|'
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$(c["nfiles"]) > 0 { s += $(c["response"]); n++ }
		END { printf "%.3f", n ? s / n : -1 }' "$work/$row.jobs.csv"
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ printf " %.1f\n", $(c["remote_bytes"]) / 1048576 }' "$work/$row.csv"
}

export DL_PARTITIOND="$build/dl-partitiond"
real backfill backfill ""
launch=$($py overhead "$(ls -d "$work/backfill"/*/ | head -1)")
echo "validate: launch overhead measured on the real backfill row: $launch s per job" >&2
sim backfill first-available --no-peer-fetch "$launch"
rows=("backfill|$(row_line backfill)")
for p in $POLICIES; do
	real "$p" datalocality "Policy=$p"
	sim "$p" "$p" --peer-fetch "$launch"
	rows+=("$p|$(row_line "$p")")
done

echo "platform: 4 nodes x 1 CPU, cache $CACHE, $STORAGE_SERVERS storage servers at $((STORAGE_BW / 1048576)) MiB/s, peer copies in the plugin's rows (dl-sim at $PEER_BW B/s), launch overhead $launch s per job (measured)"
echo "stream: $(grep '^stream:' "$work/backfill.out" | head -1 | sed 's/^stream: //')"
$py table "${OUT:--}" "${rows[@]}"
