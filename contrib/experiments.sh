#!/usr/bin/env bash
# experiments.sh - reproduce the papers' comparisons with dl-sim, which runs
# the production policy code, and write under doc/experiments/:
#   results.csv     every run (one dl-sim CSV row each, plus the figure)
#   fig*.png        gnuplot plots
#   README.md       tables and, for every finding the papers state, whether
#                   our runs reproduce it (computed here from results.csv)
#
#   contrib/experiments.sh [BUILD_DIR]     (about 5 minutes on 2 cores, and
#   about 45 more for contrib/experiments_provision.sh; DL_SKIP_PROVISION=1
#   leaves it out)
#
# online-hps-khanna §6: 4 compute + 4 storage nodes, 15 GB cache per node,
# 800-1600 jobs whose last arrival gives load 1-2 (eqs. 9-11), clustered
# and random orders, Lublin arrivals, high/medium/low overlap, 2-16 nodes.
# data-diffusion-raicu §5: 10K files of 10 MB, 10 ms tasks, arrival rate
# x1.3 every 60 s (scaled down to 40K tasks on 64 nodes), cache sizes
# 1/1.5/2/4 GB per node and the four dispatch policies.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/_build/main}
sim="$build/dl-sim"
[ -x "$sim" ] || build=$("$top/contrib/build.sh" "$build" | tail -1)
export DL_PARTITIOND="$build/dl-partitiond"
out="$top/doc/experiments"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
command -v gnuplot >/dev/null || { echo "experiments: apt-get install gnuplot-nox" >&2; exit 1; }

KHANNA=(online-hps mct met sa jdp-dll)
FALKON=(first-available max-cache-hit max-compute-util good-cache-compute)
JOBS=(800 1000 1200 1400 1600)
n=0
run() { # run FIGURE ARGS... : queue one simulation
	n=$((n + 1))
	printf '%s\t%s\n' "$1" "${*:2}" >>"$work/runs.tsv"
}

for order in clustered random; do
	for j in "${JOBS[@]}"; do
		load=$(awk -v j="$j" 'BEGIN { print j / 800 }')
		for t in 1 2 4; do
			run fig5 --policy jdp-dll --policy-params threshold=$t \
				--jobs "$j" --load "$load" --order $order
		done
		for p in "${KHANNA[@]}"; do
			run fig6 --policy "$p" --jobs "$j" --load "$load" --order $order
		done
	done
	for nodes in 2 4 8 16; do
		for p in "${KHANNA[@]}"; do
			run fig8 --policy "$p" --jobs 1600 --load 2 --order $order --nodes $nodes
		done
	done
done
for j in "${JOBS[@]}"; do
	load=$(awk -v j="$j" 'BEGIN { print j / 800 }')
	for p in "${KHANNA[@]}"; do
		run fig9a --policy "$p" --jobs "$j" --load "$load" --arrivals lublin
	done
done
# §6.4: high 1200 jobs, medium 800, low 400, "a uniform value of expected load".
for ov in high:1200 medium:800 low:400; do
	for p in "${KHANNA[@]}"; do
		run fig9b --policy "$p" --overlap "${ov%%:*}" --jobs "${ov##*:}" --load 1.5
	done
done
for cs in 1G 1536M 2G 4G; do
	for p in "${FALKON[@]}"; do
		run diffusion --policy "$p" --workload diffusion --jobs 40000 --nodes 64 --cache-size $cs
	done
done

echo "experiments: $n simulations on $(nproc) cores" >&2
# Every run writes its own CSV, tagged with its figure; then they are joined.
awk -F'\t' '{ printf "%d\t%s\t%s\n", NR, $1, $2 }' "$work/runs.tsv" |
	xargs -P "$(nproc)" -d '\n' -n 1 bash -c '
		IFS=$'"'"'\t'"'"' read -r id fig args <<<"$0"
		# shellcheck disable=SC2086
		"'"$sim"'" -q $args --csv "'"$work"'/run.$id.csv" ||
			{ echo "experiments: run $id failed: $args" >&2; exit 255; }
		sed -i "1s/^/figure,/; 2s/^/$fig,/" "'"$work"'/run.$id.csv"'
first=$(ls "$work"/run.*.csv | head -1)
head -1 "$first" >"$out/results.csv"
for f in $(ls "$work"/run.*.csv | sort -t. -k2 -n); do tail -n +2 "$f"; done >>"$out/results.csv"

# --- plots ------------------------------------------------------------------
# col NAME: column number of NAME in results.csv
col() { head -1 "$out/results.csv" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }
C_FIG=$(col figure) C_POL=$(col policy) C_PAR=$(col policy_params)
C_JOBS=$(col jobs) C_ORDER=$(col order) C_RESP=$(col resp_mean)
C_REMOTE=$(col remote_transfers) C_NODES=$(col nodes) C_OV=$(col overlap_target)
C_CACHE=$(col cache_bytes) C_HIT=$(col hit_local_pct) C_EFF=$(col efficiency)
C_SPEED=$(col speedup)

# series FIG FILTER-AWK XCOL YCOL -> "x y" lines sorted by x
series() {
	awk -F, -v fig="$1" -v x="$3" -v y="$4" "NR > 1 && \$$C_FIG == fig && ($2) { print \$x, \$y }" \
		"$out/results.csv" | sort -n
}

plot() { # plot PNG TITLE XLABEL YLABEL FIG FILTER XCOL YCOL KEYCOL KEYS...
	local png=$1 title=$2 xl=$3 yl=$4 fig=$5 filter=$6 xc=$7 yc=$8 kc=$9
	shift 9
	local cmd="" k
	for k in "$@"; do
		series "$fig" "$filter && \$$kc == \"$k\"" "$xc" "$yc" >"$work/s.$k.dat"
		cmd+="${cmd:+, }'$work/s.$k.dat' using 1:2 with linespoints title '$k'"
	done
	gnuplot <<-EOF
		set terminal png size 720,480
		set output '$out/$png'
		set title '$title'
		set xlabel '$xl'
		set ylabel '$yl'
		set key top left
		set grid
		plot $cmd
	EOF
}

for order in clustered random; do
	plot "fig5-$order.png" "JDP-DLL replication threshold ($order)" jobs "mean response (s)" \
		fig5 "\$$C_ORDER == \"$order\"" "$C_JOBS" "$C_RESP" "$C_PAR" \
		threshold=1 threshold=2 threshold=4
	plot "fig6-$order.png" "Mean response time ($order, 4+4 nodes)" jobs "mean response (s)" \
		fig6 "\$$C_ORDER == \"$order\"" "$C_JOBS" "$C_RESP" "$C_POL" "${KHANNA[@]}"
	plot "fig7-$order.png" "Remote transfers ($order, 4+4 nodes)" jobs "remote file transfers" \
		fig6 "\$$C_ORDER == \"$order\"" "$C_JOBS" "$C_REMOTE" "$C_POL" "${KHANNA[@]}"
	plot "fig8-$order.png" "1600 jobs, 2-16 compute nodes ($order)" "compute nodes" "mean response (s)" \
		fig8 "\$$C_ORDER == \"$order\"" "$C_NODES" "$C_RESP" "$C_POL" "${KHANNA[@]}"
done
plot fig9a-lublin.png "Lublin-Feitelson arrivals" jobs "mean response (s)" \
	fig9a 1 "$C_JOBS" "$C_RESP" "$C_POL" "${KHANNA[@]}"
plot fig9b-overlap.png "Degree of overlap (x = target overlap)" "overlap" "mean response (s)" \
	fig9b 1 "$C_OV" "$C_RESP" "$C_POL" "${KHANNA[@]}"
plot diffusion-cache.png "Data diffusion: cache size per node (64 nodes)" "cache bytes per node" "mean response (s)" \
	diffusion 1 "$C_CACHE" "$C_RESP" "$C_POL" "${FALKON[@]}"
plot diffusion-hits.png "Data diffusion: local cache hits (64 nodes)" "cache bytes per node" "local hit %" \
	diffusion 1 "$C_CACHE" "$C_HIT" "$C_POL" "${FALKON[@]}"

# --- verdicts -----------------------------------------------------------------
# get FIG FILTER COL: the value of COL in the one run matching FILTER
get() {
	awk -F, -v fig="$1" -v c="$3" "NR > 1 && \$$C_FIG == fig && ($2) { print \$c; exit }" "$out/results.csv"
}
pol() { echo "\$$C_POL == \"$1\""; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
verdict() { if "$@"; then echo "reproduced"; else echo "**not reproduced**"; fi; }

best_at() { # best_at FIG FILTER COL: the policy with the lowest COL
	awk -F, -v fig="$1" -v c="$3" -v pc="$C_POL" "NR > 1 && \$$C_FIG == fig && ($2) { if (!n++ || \$c < m) { m = \$c; p = \$pc } } END { print p }" "$out/results.csv"
}
ohps_beats_all() { # ohps_beats_all FIG FILTER
	[ "$(best_at "$1" "$2" "$C_RESP")" = online-hps ]
}

{
	echo "# Reproducing the papers' comparisons"
	echo
	echo "Generated by \`contrib/experiments.sh\` on $(date -u +%Y-%m-%d) from $n runs of \`dl-sim\`"
	echo "(the same policy code as the Slurm plugin). Raw rows: \`results.csv\`."
	echo
	echo "## Mean response time (s) and remote transfers, 4 compute + 4 storage nodes (Figs. 6-7)"
	for order in clustered random; do
		echo
		echo "$order order:"
		echo
		printf '| jobs (load) |'; for p in "${KHANNA[@]}"; do printf ' %s |' "$p"; done; echo
		printf '|---|'; for p in "${KHANNA[@]}"; do printf -- '---|'; done; echo
		for j in "${JOBS[@]}"; do
			printf '| %s (%s) |' "$j" "$(awk -v j="$j" 'BEGIN { print j / 800 }')"
			for p in "${KHANNA[@]}"; do
				f="$(pol "$p") && \$$C_JOBS == $j && \$$C_ORDER == \"$order\""
				printf ' %.1f s, %s |' "$(get fig6 "$f" "$C_RESP")" "$(get fig6 "$f" "$C_REMOTE")"
			done
			echo
		done
	done
	echo
	echo "## Findings"
	echo
	echo "| paper | finding | our runs |"
	echo "|---|---|---|"
	hi="\$$C_JOBS == 1600 && \$$C_ORDER == \"clustered\""
	echo "| khanna §6.4 | Online-HPS beats MCT, MET, SA and JDPDLL at high overlap and load (1600 jobs, clustered) | $(verdict ohps_beats_all fig6 "$hi") (best: $(best_at fig6 "$hi" "$C_RESP")) |"
	hr="\$$C_JOBS == 1600 && \$$C_ORDER == \"random\""
	echo "| khanna §6.4 | ... and with random order (1600 jobs) | $(verdict ohps_beats_all fig6 "$hr") (best: $(best_at fig6 "$hr" "$C_RESP")) |"
	lo="\$$C_JOBS == 800 && \$$C_ORDER == \"clustered\""
	echo "| khanna §6.4 | JDPDLL wins at very low load (800 jobs, load 1) | $(verdict test "$(best_at fig6 "$lo" "$C_RESP")" = jdp-dll) (best: $(best_at fig6 "$lo" "$C_RESP")) |"
	met_fewest() { [ "$(best_at fig6 "$hi" "$C_REMOTE")" = met ]; }
	met_worst() {
		awk -F, -v fig=fig6 -v c="$C_RESP" -v pc="$C_POL" "NR > 1 && \$$C_FIG == fig && ($hi) { if (!n++ || \$c > m) { m = \$c; p = \$pc } } END { exit p != \"met\" }" "$out/results.csv"
	}
	echo "| khanna §6.4 | MET makes the fewest remote transfers (1600 jobs, clustered) | $(verdict met_fewest) (fewest: $(best_at fig6 "$hi" "$C_REMOTE")) |"
	echo "| khanna §6.4 | ... yet has the worst response time | $(verdict met_worst) |"
	ohps_fewer() {
		local o; o=$(get fig6 "$(pol online-hps) && $hi" "$C_REMOTE")
		for p in mct sa jdp-dll; do lt "$o" "$(get fig6 "$(pol $p) && $hi" "$C_REMOTE")" || return 1; done
	}
	echo "| khanna §6.4 | Online-HPS makes fewer remote transfers than MCT, SA and JDPDLL | $(verdict ohps_fewer) |"
	thr2() {
		local f="\$$C_JOBS == 1600 && \$$C_ORDER == \"clustered\""
		[ "$(best_at fig5 "$f" "$C_RESP" | tr -d '\n')" = jdp-dll ] || true
		awk -F, -v c="$C_RESP" -v pc="$C_PAR" "NR > 1 && \$$C_FIG == \"fig5\" && ($f) { if (!n++ || \$c < m) { m = \$c; p = \$pc } } END { exit p != \"threshold=2\" }" "$out/results.csv"
	}
	echo "| khanna §6.4 | JDPDLL's best replication threshold is 2 (Fig. 5) | $(verdict thr2) |"
	all_nodes() {
		local nodes
		for nodes in 2 4 8 16; do
			ohps_beats_all fig8 "\$$C_NODES == $nodes && \$$C_ORDER == \"clustered\"" || return 1
		done
	}
	echo "| khanna §6.4 | Online-HPS best at every node count, 2-16 (Fig. 8, clustered) | $(verdict all_nodes) |"
	echo "| khanna §6.4 | Online-HPS best under Lublin arrivals (1600 jobs, Fig. 9a) | $(verdict ohps_beats_all fig9a "\$$C_JOBS == 1600") (best: $(best_at fig9a "\$$C_JOBS == 1600" "$C_RESP")) |"
	gain() { # gain OVERLAP: best other policy's response / Online-HPS's
		local f="\$$C_OV == $1" o b
		o=$(get fig9b "$(pol online-hps) && $f" "$C_RESP")
		b=$(awk -F, -v c="$C_RESP" -v pc="$C_POL" "NR > 1 && \$$C_FIG == \"fig9b\" && ($f) && \$pc != \"online-hps\" { if (!n++ || \$c < m) m = \$c } END { print m }" "$out/results.csv")
		awk -v o="$o" -v b="$b" 'BEGIN { printf "%.2f", b / o }'
	}
	gh=$(gain 0.8500) gm=$(gain 0.4000) gl=$(gain 0.1000)
	echo "| khanna §6.4 | Online-HPS's benefit is greatest at high overlap and shrinks with overlap (Fig. 9b) | $(verdict bash -c "awk -v h=$gh -v m=$gm -v l=$gl 'BEGIN { exit !(h >= m && m >= l) }'") (best other / Online-HPS: high $gh, medium $gm, low $gl) |"
	dd_fa_worst() {
		local f="\$$C_CACHE == 2147483648" o
		o=$(get diffusion "$(pol first-available) && $f" "$C_RESP")
		for p in max-cache-hit max-compute-util good-cache-compute; do
			lt "$(get diffusion "$(pol $p) && $f" "$C_RESP")" "$o" || return 1
		done
	}
	echo "| raicu §5 | Data-aware dispatch beats first-available (2 GB caches) | $(verdict dd_fa_worst) |"
	dd_cache() { # dd_cache POLICY: hit rate 1 GB < 4 GB
		local a b
		a=$(get diffusion "$(pol "$1") && \$$C_CACHE == 1073741824" "$C_HIT")
		b=$(get diffusion "$(pol "$1") && \$$C_CACHE == 4294967296" "$C_HIT")
		lt "$a" "$b"
	}
	for p in max-cache-hit max-compute-util good-cache-compute; do
		echo "| raicu §5 | Larger caches raise the local hit rate ($p, 1 GB vs 4 GB per node) | $(verdict dd_cache $p) |"
	done
	echo
	echo "## Data diffusion: cache size and dispatch policy (64 nodes, 40K tasks)"
	echo
	echo "| cache/node | policy | mean response (s) | local hits % | efficiency | speedup |"
	echo "|---|---|---|---|---|---|"
	awk -F, -v fig="$C_FIG" "NR > 1 && \$fig == \"diffusion\" { printf \"| %.1f GiB | %s | %.2f | %.1f | %.3f | %.1f |\\n\", \$$C_CACHE / 1073741824, \$$C_POL, \$$C_RESP, \$$C_HIT, \$$C_EFF, \$$C_SPEED }" "$out/results.csv"
	echo
	echo "## Plots"
	echo
	for f in "$out"/*.png; do echo "![$(basename "$f" .png)]($(basename "$f"))"; done
} >"$out/README.md"
echo "experiments: wrote $out/README.md, results.csv and $(ls "$out"/*.png | wc -l) plots" >&2

# Dynamic provisioning (data-diffusion-raicu §5.2 at full size) and the
# Fig. 5 threshold study with background copies: provisioning.md.
if [ "${DL_SKIP_PROVISION:-0}" != 1 ]; then
	"$top/contrib/experiments_provision.sh" "$build"
fi
