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
# (--peer-fetch at PEER_BW).  Prefetch: the plugin's agent copies, for
# every policy, the missing files of the jobs at the head of each node's
# queue (2 x its CPUs jobs, within PrefetchMaxBytes, by default half the
# cache); dl-sim models it in the plugin's rows with --prefetch PREFETCH
# (2: the plugin's 2 x 1 CPU) and its default budget (half of CACHE), and
# the backfill row has none.  Every dl-sim row evicts by node-value: the
# nodes' dl-stage computes EvictionPolicy=value with a tracker of its own
# node (its own uses, Numcopies 1), not eq. 7 with the cluster's copies.
# In the plugin's rows the policies see the agent's run-time estimates
# (--agent-estimates: Slurm's whole seconds, the history of the jobs with
# files, the jobs' time limit before the first one is learnt), not the
# workload's compute times.  dl-stage charges a file its blocks, one more
# for its .meta and 160 bytes (dl__charge()) against CACHE, so a node
# holds fewer images than CACHE / IMG_MIB (11 of 4 MiB in 48M, not 12):
# dl-sim's caches get the room of as many images.  The launch overhead of dl-sim (what Slurm
# spends per job besides the job's script: launch, Prolog, Epilog, the
# controller's reaction) is measured on the real backfill row's plain
# jobs and given to every dl-sim row.
#
# Printed: per row the annotated jobs' mean response and the MiB read from
# the shared storage (dl-sim: its jobs' misses and its copies from
# storage, prefetches included), real and simulated, their ratios and the
# ranking of the rows by mean response; OUT (if set, e.g.
# doc/experiments/sim-vs-real.md) gets the same in Markdown.
#
#   contrib/validate_sim.sh [BUILD_DIR]     (root; about 6 minutes a round)
#
# Environment: REPEAT (1: rounds of every row, real and simulated; the
# table gives the means over rounds, and lists each round),
# POLICIES ("online-hps locality mct"), PEER_BW (5e8),
# PREFETCH (2; 0: dl-sim without the agent's prefetch), OUT,
# and bench_cluster.sh's settings (NJOBS, LOAD, SEED, COMPUTE, PLAIN_SEC,
# IMG_MIB, CACHE, STORAGE_BW, STORAGE_SERVERS, ...).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/_build/main}
[ -x "$build/dl-sim" ] || build=$("$top/contrib/build.sh" "$build" | tail -1)
POLICIES=${POLICIES:-"online-hps locality mct"}
PEER_BW=${PEER_BW:-5e8}
PREFETCH=${PREFETCH:-2}
export NWIDE=0
export COMPUTE=${COMPUTE:-0.5} PLAIN_SEC=${PLAIN_SEC:-1} IMG_MIB=${IMG_MIB:-4}
export CACHE=${CACHE:-48M} STORAGE_BW=${STORAGE_BW:-$((20 * 1048576))}
export STORAGE_SERVERS=${STORAGE_SERVERS:-2}
# The images a node's dl-stage fits in CACHE (4 KiB blocks on its tmpfs),
# as dl-sim's cache size.
img_bytes=$((IMG_MIB << 20))
img_charge=$(((img_bytes + 4095) / 4096 * 4096 + 4096 + 160))
CACHE_BYTES=$(numfmt --from=iec "$CACHE")
SIM_CACHE=$((CACHE_BYTES / img_charge * img_bytes))
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

# rowdir ROW: the directory bench_cluster.sh kept the row's logs,
# stream and times in.
rowdir() { ls -d "$work/$1"/*/ | head -1; }

# sim ROW POLICY PEER LAUNCH [PREFETCH [AGENT]]: dl-sim on the row's own
# stream (its paths name its own storage directory); PREFETCH jobs per
# node get the agent's prefetch (0 or none: off); AGENT: the time limit
# the agent's estimates start from (0 or none: the workload's times).
sim() {
	local row=$1
	$py workload "$(rowdir "$row")/stream" "$STORAGE_SERVERS" $((IMG_MIB << 20)) \
		"$COMPUTE" "$PLAIN_SEC" >"$work/$row.wl"
	"$build/dl-sim" -q --policy "$2" --workload-file "$work/$row.wl" \
		--nodes 4 --cores 1 --storage "$STORAGE_SERVERS" \
		--cache-size "$SIM_CACHE" --eviction node-value --rbw "$STORAGE_BW" \
		$3 --peer-bw "$PEER_BW" --launch-overhead "$4" \
		--dispatch slurm --prefetch "${5:-0}" \
		--prefetch-budget $((CACHE_BYTES / 2)) \
		--agent-estimates "${6:-0}" --tolerate-fallback \
		--csv "$work/$row.csv" --jobs-csv "$work/$row.jobs.csv"
}

# row_line ROW: "mean MiB" of the real row, then of the simulated one.
row_line() {
	local row=$1
	awk -F'|' '{ split($2, y, " "); printf "%s %s", y[1], y[7] }' "$work/$row/results"
	printf '|'
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$(c["nfiles"]) > 0 { s += $(c["response"]); n++ }
		END { printf "%.3f", n ? s / n : -1 }' "$work/$row.jobs.csv"
	# From storage: the jobs' misses, and the copies not from a peer.
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ b = $(c["remote_bytes"]) + $(c["copy_bytes"])
		  printf " %.1f\n", (b - $(c["copy_bytes_peer"])) / 1048576 }' \
		"$work/$row.csv"
}

export DL_PARTITIOND="$build/dl-partitiond"
# Every row REPEAT times (rows of round r kept as ROW.r); each round's
# dl-sim runs on that round's stream with its launch overhead.  The real
# rows move by more between runs of one stream than the plugin's rows
# differ (doc/experiments/sim-vs-real.md): their order needs the means.
REPEAT=${REPEAT:-1}
runs=()
for r in $(seq 1 "$REPEAT"); do
	real "backfill.$r" backfill ""
	launch=$($py overhead "$(rowdir "backfill.$r")")
	echo "validate: round $r: launch overhead measured on the real backfill row: $launch s per job" >&2
	sim "backfill.$r" first-available --no-peer-fetch "$launch"
	runs+=("backfill|$(row_line "backfill.$r")")
	for p in $POLICIES; do
		real "$p.$r" datalocality "Policy=$p"
		sim "$p.$r" "$p" --peer-fetch "$launch" "$PREFETCH" \
			$((${TIME_LIMIT:-2} * 60))
		runs+=("$p|$(row_line "$p.$r")")
	done
done

{
	echo "platform: 4 nodes x 1 CPU, cache $CACHE (dl-sim: $SIM_CACHE B, the room of as many images as dl-stage fits), $STORAGE_SERVERS storage servers at $((STORAGE_BW / 1048576)) MiB/s, peer copies and prefetch in the plugin's rows (dl-sim at $PEER_BW B/s, --prefetch $PREFETCH), launch overhead $launch s per job (measured, last round)"
	echo "stream: $(grep '^stream:' "$work/backfill.1.out" | head -1 | sed 's/^stream: //')"
	echo "rounds: $REPEAT (every figure below is the mean over the rounds)"
	echo
	$py table "${runs[@]}"
	if [ "$REPEAT" -gt 1 ]; then
		echo
		echo "Each round (row|real mean s, MiB|dl-sim mean s, MiB):"
		echo
		printf '    %s\n' "${runs[@]}"
	fi
} >"$work/table"
cat "$work/table"
if [ -n "${OUT:-}" ]; then
	{
		echo "# dl-sim against the real cluster"
		echo
		echo "Generated by \`contrib/validate_sim.sh\` on $(date -u +%Y-%m-%d) (host load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)). One stream of contrib/bench_cluster.sh (without its wide job), run on the real local Slurm cluster (namespaced nodes with dl-cached, emulated shared storage) and through dl-sim on the same platform; real = the jobs' own clocks, mean response of the annotated jobs; MiB from storage = what the node caches copied from the shared storage (prefetches included; dl-sim: its jobs' misses and its copies from storage). Rows: backfill = sched/backfill with dl-stage caches (dl-sim: first-available, no peer copies, no prefetch); the others = sched/datalocality with that Policy (dl-sim: that policy, peer copies, the agent's prefetch of the first $PREFETCH jobs placed on each node within the default budget of half the cache, their files pinned as dl-stage pins them, \`--prefetch $PREFETCH\`, 0 = none; and the agent's run-time estimates, \`--agent-estimates\`). Every dl-sim row evicts as the nodes' dl-stage does (\`--eviction node-value\`: EvictionPolicy=value with the node's own uses, Numcopies 1). Target: dl-sim within 25% of the real figure, and the same ranking."
		echo
		sed 's/^platform:/Platform:/; s/^stream:/Stream:/; s/^rounds:/Rounds:/' "$work/table" | awk 'NR <= 3 { print $0 "  " ; next } { print }'
	} >"$OUT.new" && mv "$OUT.new" "$OUT"
	echo "validate: wrote $OUT" >&2
fi
