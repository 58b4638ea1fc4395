#!/usr/bin/env bash
# experiments.sh - reproduce the papers' comparisons with dl-sim, which runs
# the production policy code, and write under doc/experiments/:
#   results.csv     every run (one dl-sim CSV row each, plus the figure)
#   fig*.png        gnuplot plots: mean of the seeds, 95% confidence bars
#   README.md       tables (mean +- 95% CI half-width over the seeds) and,
#                   for every finding the papers state, whether our runs
#                   reproduce it: only a difference that Welch's t-test
#                   finds significant (p < 0.05) counts
#
#   contrib/experiments.sh [BUILD_DIR]   (then contrib/experiments_provision.sh,
#   about 45 minutes more on 2 cores; DL_SKIP_PROVISION=1 leaves it out)
#
# Environment:
#   SEEDS="1 2 3 4 5"  the seeds of every point (at least 5 for verdicts)
#   DIFF_JOBS=20000    tasks of the data-diffusion runs
#   REUSE=1            skip the runs: tables and plots from results.csv
#   ONLY_POLICY=P      run only policy P's simulations and keep the other
#                      policies' rows of results.csv (after a change to P)
#   DL_SKIP_PROVISION=1  no provisioning study (experiments_provision.sh)
#   DL_SKIP_VALIDATE=1   no sim-vs-real table (contrib/validate_sim.sh, root)
#
# Every comparison runs all its policies on one platform: peer fetch off
# for the online-hps-khanna runs (storage nodes only, as its §2), on for
# every policy of the data-diffusion runs (Falkon's executors fetch from
# each other's caches, data-diffusion-raicu §3.1), and again off for every
# policy (figure "diffusion-storage").
#
# online-hps-khanna §6: 4 compute + 4 storage nodes, 15 GB cache per node,
# 800-1600 jobs whose last arrival gives load 1-2 (eqs. 9-11), clustered
# and random orders, Lublin arrivals, high/medium/low overlap, 2-16 nodes.
# data-diffusion-raicu §5: 10K files of 10 MB, 10 ms tasks, arrival rate
# x1.3 every 60 s (scaled down to DIFF_JOBS tasks on 64 nodes: 40K, five
# seeds and both platforms take over an hour on 2 shared cores), cache
# sizes 1/1.5/2/4 GB per node and the four dispatch policies.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/_build/main}
sim="$build/dl-sim"
[ -x "$sim" ] || build=$("$top/contrib/build.sh" "$build" | tail -1)
sim="$build/dl-sim"
simstat="$build/dl-simstat"
export DL_PARTITIOND="$build/dl-partitiond"
out="$top/doc/experiments"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
command -v gnuplot >/dev/null || { echo "experiments: apt-get install gnuplot-nox" >&2; exit 1; }
read -r -a SEEDS <<<"${SEEDS:-1 2 3 4 5}"
DIFF_JOBS=${DIFF_JOBS:-20000}

KHANNA=(online-hps mct met sa jdp-dll)
FALKON=(first-available max-cache-hit max-compute-util good-cache-compute)
JOBS=(800 1000 1200 1400 1600)
n=0
run() { # run FIGURE ARGS... : queue one simulation per seed
	local seed
	[ -z "${ONLY_POLICY:-}" ] || [[ " ${*:2} " == *" --policy $ONLY_POLICY "* ]] ||
		return 0
	for seed in "${SEEDS[@]}"; do
		n=$((n + 1))
		printf '%s\t%s --seed %s\n' "$1" "${*:2}" "$seed" >>"$work/runs.tsv"
	done
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
		run diffusion --policy "$p" --workload diffusion --jobs "$DIFF_JOBS" --nodes 64 \
			--cache-size $cs --peer-fetch
		# The same on the platform without peer fetch, for every policy.
		run diffusion-storage --policy "$p" --workload diffusion --jobs "$DIFF_JOBS" \
			--nodes 64 --cache-size $cs --no-peer-fetch
	done
done

if [ "${REUSE:-0}" = 1 ]; then
	[ -s "$out/results.csv" ] || { echo "experiments: REUSE=1 needs $out/results.csv" >&2; exit 1; }
	n=$(($(wc -l <"$out/results.csv") - 1))
else
	echo "experiments: $n simulations (${#SEEDS[@]} seeds) on $(nproc) cores" >&2
	start=$(date +%s)
	# Every run writes its own CSV, tagged with its figure; then they are
	# joined.  A run whose policy fell back, or that failed, stops it all.
	awk -F'\t' '{ printf "%d\t%s\t%s\n", NR, $1, $2 }' "$work/runs.tsv" |
		xargs -P "$(nproc)" -d '\n' -n 1 bash -c '
			IFS=$'"'"'\t'"'"' read -r id fig args <<<"$0"
			# shellcheck disable=SC2086
			"'"$sim"'" -q $args --csv "'"$work"'/run.$id.csv" ||
				{ echo "experiments: run $id failed: $args" >&2; exit 255; }
			sed -i "1s/^/figure,/; 2s/^/$fig,/" "'"$work"'/run.$id.csv"'
	# Not `ls | head -1`: with pipefail, ls killed by SIGPIPE after
	# head's first line (960 names overflow the pipe) stopped the script.
	runs=("$work"/run.*.csv)
	head -1 "${runs[0]}" >"$work/new.csv"
	for f in $(ls "$work"/run.*.csv | sort -t. -k2 -n); do tail -n +2 "$f"; done >>"$work/new.csv"
	if [ -n "${ONLY_POLICY:-}" ]; then
		only_runs=$n
		# The other policies' rows stay, in this dl-sim's columns
		# (matched by name; a column they predate is left empty).
		python3 - "$work/new.csv" "$out/results.csv" "$ONLY_POLICY" >"$work/merged.csv" <<-'PY'
			import csv, sys
			new, old, only = sys.argv[1:4]
			with open(new, newline="") as f:
			    rows = list(csv.DictReader(f))
			with open(new, newline="") as f:
			    cols = next(csv.reader(f))
			with open(old, newline="") as f:
			    kept = [r for r in csv.DictReader(f) if r["policy"] != only]
			w = csv.DictWriter(sys.stdout, cols, extrasaction="ignore", restval="",
			                   lineterminator="\n")
			w.writeheader()
			w.writerows(kept + rows)
		PY
		mv "$work/merged.csv" "$work/new.csv"
		n=$(($(wc -l <"$work/new.csv") - 1))
	fi
	mv "$work/new.csv" "$out/results.csv"
	echo "experiments: runs took $(( $(date +%s) - start )) s" >&2
fi

# --- statistics ----------------------------------------------------------------
# col NAME: column number of NAME in results.csv
col() { head -1 "$out/results.csv" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }
C_FIG=$(col figure) C_POL=$(col policy) C_PAR=$(col policy_params)
C_JOBS=$(col jobs) C_ORDER=$(col order) C_RESP=$(col resp_mean)
C_P95=$(col resp_p95) C_MAX=$(col resp_max) C_SEED=$(col seed)
C_REMOTE=$(col remote_transfers) C_NODES=$(col nodes) C_OV=$(col overlap_target)
C_CACHE=$(col cache_bytes) C_HIT=$(col hit_local_pct) C_EFF=$(col efficiency)
C_SPEED=$(col speedup) C_EFF5=$(col efficiency_wet) C_FB=$(col fallback_plans)
CSV="$out/results.csv"
ALPHA=0.05

# vals, agg, ci, mean, cmp, pol, verdict, beats, best_at, series
. "$top/contrib/exp_stats.sh"

# --- plots ------------------------------------------------------------------
plot() { # plot PNG TITLE XLABEL YLABEL FIG FILTER XCOL YCOL KEYCOL KEYS...
	local png=$1 title=$2 xl=$3 yl=$4 fig=$5 filter=$6 xc=$7 yc=$8 kc=$9
	shift 9
	local cmd="" k
	for k in "$@"; do
		series "$fig" "$filter && \$$kc == \"$k\"" "$xc" "$yc" >"$work/s.$k.dat"
		cmd+="${cmd:+, }'$work/s.$k.dat' using 1:2:3 with yerrorlines title '$k'"
	done
	gnuplot <<-EOF
		set terminal png size 720,480
		set output '$out/$png'
		set title '$title (mean of ${#SEEDS[@]} seeds, 95% CI)'
		set xlabel '$xl'
		set ylabel '$yl'
		set key below
		set grid
		set offsets graph 0.03, graph 0.03, 0, 0
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
plot diffusion-efficiency.png "Data diffusion: efficiency (s5, ideal / actual run time)" "cache bytes per node" "efficiency" \
	diffusion 1 "$C_CACHE" "$C_EFF5" "$C_POL" "${FALKON[@]}"
plot diffusion-storage-cache.png "Data diffusion without peer fetch (64 nodes)" "cache bytes per node" "mean response (s)" \
	diffusion-storage 1 "$C_CACHE" "$C_RESP" "$C_POL" "${FALKON[@]}"
plot diffusion-storage-efficiency.png "Data diffusion without peer fetch: efficiency (s5)" "cache bytes per node" "efficiency" \
	diffusion-storage 1 "$C_CACHE" "$C_EFF5" "$C_POL" "${FALKON[@]}"

# --- tables -------------------------------------------------------------------
# cell FIG FILTER: "mean ± CI (p95 P, max M)" of the response time, seconds
cell() {
	printf '%s (%s, %s)' "$(ci "$1" "$2" "$C_RESP" %.1f)" \
		"$(mean "$1" "$2" "$C_P95" %.1f)" "$(mean "$1" "$2" "$C_MAX" %.1f)"
}
# table FIG FILTER XNAME XCOL KEYCOL "X..." KEYS...: one row per X (a
# number: compared as one), one column per key
table() {
	local fig=$1 f=$2 xn=$3 xc=$4 kc=$5 xs=$6 x k
	shift 6
	printf '| %s |' "$xn"; for k in "$@"; do printf ' %s |' "$k"; done; echo
	printf '|---|'; for k in "$@"; do printf -- '---|'; done; echo
	for x in $xs; do
		printf '| %s |' "$x"
		for k in "$@"; do
			printf ' %s |' "$(cell "$fig" "$f && \$$xc == $x && \$$kc == \"$k\"")"
		done
		echo
	done
}

fallbacks=$(awk -F, -v c="$C_FB" 'NR > 1 && $c > 0' "$CSV" | wc -l)
{
	echo "# Reproducing the papers' comparisons"
	echo
	echo "Generated by \`contrib/experiments.sh\` on $(date -u +%Y-%m-%d) from $n runs of \`dl-sim\`"
	[ -z "${only_runs:-}" ] ||
		echo "($ONLY_POLICY's $only_runs runs made then, with \`ONLY_POLICY=$ONLY_POLICY\`; the other policies' rows are from the previous full run)"
	echo "(the same policy code as the Slurm plugin): every point is run with seeds"
	echo "$(awk -F, -v c="$C_SEED" 'NR > 1 { s[$c] = 1 } END { for (k in s) print k }' "$CSV" | sort -n | paste -sd, -) and shown as the mean ± the half-width of its 95% confidence interval"
	echo "(Student t, n - 1 degrees of freedom), with the mean 95th percentile and"
	echo "the mean maximum of the response time in parentheses.  A finding is"
	echo "*reproduced* only when every difference it states goes the paper's way and"
	echo "Welch's t-test finds it significant (p < $ALPHA); the largest p is shown."
	echo "Runs whose policy fell back to a simpler method: $fallbacks (dl-sim fails"
	echo "them, so none can be here). Raw rows: \`results.csv\`."
	echo
	echo "Platform: online-hps-khanna runs fetch from storage nodes only (peer fetch"
	echo "off for every policy); data-diffusion runs fetch from peers' caches too"
	echo "(peer fetch on for every policy). Per row of \`results.csv\`: column \`peer_fetch\`."
	echo
	echo "## Mean response time (s), 4 compute + 4 storage nodes (Figs. 6-7)"
	for order in clustered random; do
		echo
		echo "$order order, mean ± 95% CI (p95, max):"
		echo
		table fig6 "\$$C_ORDER == \"$order\"" "jobs" "$C_JOBS" "$C_POL" "${JOBS[*]}" "${KHANNA[@]}"
	done
	echo
	echo "Remote transfers, mean ± 95% CI:"
	echo
	printf '| order, jobs |'; for p in "${KHANNA[@]}"; do printf ' %s |' "$p"; done; echo
	printf '|---|'; for p in "${KHANNA[@]}"; do printf -- '---|'; done; echo
	for order in clustered random; do
		for j in "${JOBS[@]}"; do
			printf '| %s, %s |' "$order" "$j"
			for p in "${KHANNA[@]}"; do
				printf ' %s |' "$(ci fig6 "$(pol "$p") && \$$C_JOBS == $j && \$$C_ORDER == \"$order\"" "$C_REMOTE" %.0f)"
			done
			echo
		done
	done
	echo
	echo "## JDP-DLL's replication threshold (Fig. 5), response time (s)"
	for order in clustered random; do
		echo
		echo "$order order:"
		echo
		table fig5 "\$$C_ORDER == \"$order\"" "jobs" "$C_JOBS" "$C_PAR" "${JOBS[*]}" threshold=1 threshold=2 threshold=4
	done
	echo
	echo "## 1600 jobs on 2-16 compute nodes (Fig. 8), response time (s)"
	for order in clustered random; do
		echo
		echo "$order order:"
		echo
		table fig8 "\$$C_ORDER == \"$order\"" "nodes" "$C_NODES" "$C_POL" "2 4 8 16" "${KHANNA[@]}"
	done
	echo
	echo "## Lublin-Feitelson arrivals (Fig. 9a), response time (s)"
	echo
	table fig9a 1 "jobs" "$C_JOBS" "$C_POL" "${JOBS[*]}" "${KHANNA[@]}"
	echo
	echo "## Degree of overlap (Fig. 9b), response time (s)"
	echo
	table fig9b 1 "target overlap" "$C_OV" "$C_POL" "0.8500 0.4000 0.1000" "${KHANNA[@]}"
	echo
	echo "## Findings"
	echo
	echo "| paper | finding | our runs |"
	echo "|---|---|---|"
	hi="\$$C_JOBS == 1600 && \$$C_ORDER == \"clustered\""
	hr="\$$C_JOBS == 1600 && \$$C_ORDER == \"random\""
	lo="\$$C_JOBS == 800 && \$$C_ORDER == \"clustered\""
	echo "| khanna §6.4 | Online-HPS beats MCT, MET, SA and JDPDLL at high overlap and load (1600 jobs, clustered) | $(beats fig6 "$hi" online-hps "$C_RESP" lt "${KHANNA[@]}") (best: $(best_at fig6 "$hi" "$C_RESP")) |"
	echo "| khanna §6.4 | ... and with random order (1600 jobs) | $(beats fig6 "$hr" online-hps "$C_RESP" lt "${KHANNA[@]}") (best: $(best_at fig6 "$hr" "$C_RESP")) |"
	echo "| khanna §6.4 | JDPDLL wins at very low load (800 jobs, load 1) | $(beats fig6 "$lo" jdp-dll "$C_RESP" lt "${KHANNA[@]}") (best: $(best_at fig6 "$lo" "$C_RESP")) |"
	echo "| khanna §6.4 | MET makes the fewest remote transfers (1600 jobs, clustered) | $(beats fig6 "$hi" met "$C_REMOTE" lt "${KHANNA[@]}") (fewest: $(best_at fig6 "$hi" "$C_REMOTE")) |"
	echo "| khanna §6.4 | ... yet has the worst response time | $(beats fig6 "$hi" met "$C_RESP" gt "${KHANNA[@]}") |"
	echo "| khanna §6.4 | Online-HPS makes fewer remote transfers than MCT, SA and JDPDLL (1600 jobs, clustered) | $(beats fig6 "$hi" online-hps "$C_REMOTE" lt online-hps mct sa jdp-dll) |"
	thr() { # JDPDLL's threshold 2 against 1 and 4, 1600 jobs, clustered
		local f="\$$C_JOBS == 1600 && \$$C_ORDER == \"clustered\"" t res=()
		for t in 1 4; do
			res+=("$(cmp fig5 "\$$C_PAR == \"threshold=2\" && $f" "\$$C_PAR == \"threshold=$t\" && $f" "$C_RESP") threshold=$t")
		done
		verdict lt "${res[@]}"
	}
	echo "| khanna §6.4 | JDPDLL's best replication threshold is 2 (Fig. 5, 1600 jobs, clustered) | $(thr) (best: $(best_at fig5 "\$$C_JOBS == 1600 && \$$C_ORDER == \"clustered\"" "$C_RESP" "$C_PAR")) |"
	all_nodes() {
		local nodes v all=reproduced
		for nodes in 2 4 8 16; do
			v=$(beats fig8 "\$$C_NODES == $nodes && \$$C_ORDER == \"clustered\"" online-hps "$C_RESP" lt "${KHANNA[@]}")
			printf '%s nodes: %s; ' "$nodes" "${v%% (*}" >&2
			case $v in
			"**not reproduced**"*) all="**not reproduced**" ;;
			"**not significant**"*) [ "$all" = reproduced ] && all="**not significant**" ;;
			esac
			echo "$nodes: ${v%% (*}" >>"$work/nodes.txt"
		done
		echo "$all ($(paste -sd';' "$work/nodes.txt" | sed 's/;/; /g'))"
	}
	echo "| khanna §6.4 | Online-HPS best at every node count, 2-16 (Fig. 8, clustered) | $(all_nodes 2>/dev/null) |"
	echo "| khanna §6.4 | Online-HPS best under Lublin arrivals (1600 jobs, Fig. 9a) | $(beats fig9a "\$$C_JOBS == 1600" online-hps "$C_RESP" lt "${KHANNA[@]}") (best: $(best_at fig9a "\$$C_JOBS == 1600" "$C_RESP")) |"
	# gains OVERLAP: per seed, the best other policy's response (best by
	# its mean over the seeds) over Online-HPS's, as "k<TAB>gain" lines
	gains() {
		local f="\$$C_OV == $1" b
		b=$(awk -F, -v c="$C_RESP" -v pc="$C_POL" "NR > 1 && \$$C_FIG == \"fig9b\" && ($f) && \$pc != \"online-hps\" { s[\$pc] += \$c; n[\$pc]++ } END { for (p in s) if (!m++ || s[p] / n[p] < v) { v = s[p] / n[p]; q = p } print q }" "$CSV")
		awk -F, -v c="$C_RESP" -v pc="$C_POL" -v sc="$C_SEED" -v b="$b" -v k="$2" "NR > 1 && \$$C_FIG == \"fig9b\" && ($f) { if (\$pc == b) o[\$sc] = \$c; if (\$pc == \"online-hps\") h[\$sc] = \$c } END { for (s in h) if (s in o) print k \"\t\" o[s] / h[s] }" "$CSV"
	}
	gcmp() { # gcmp OV_A OV_B: gains at A against gains at B
		{ gains "$1" a; gains "$2" b; } | "$simstat" welch |
			awk -F'\t' -v a="$ALPHA" '{ printf "%s %.3g", ($7 >= a ? "ns" : $3 < $4 ? "lt" : "gt"), $7 }'
	}
	gci() { gains "$1" k | "$simstat" ci | awk -F'\t' '{ printf "%.2f ± %.2f", $3, $5 }'; }
	echo "| khanna §6.4 | Online-HPS's benefit is greatest at high overlap and shrinks with overlap (Fig. 9b) | $(verdict gt "$(gcmp 0.8500 0.4000) high-vs-medium" "$(gcmp 0.4000 0.1000) medium-vs-low") (best other / Online-HPS: high $(gci 0.8500), medium $(gci 0.4000), low $(gci 0.1000)) |"
	f2g="\$$C_CACHE == 2147483648"
	fa_worst() { # fa_worst FIG
		local p res=()
		for p in max-cache-hit max-compute-util good-cache-compute; do
			res+=("$(cmp "$1" "$(pol $p) && $f2g" "$(pol first-available) && $f2g" "$C_RESP") $p")
		done
		verdict lt "${res[@]}"
	}
	echo "| raicu §5 | Data-aware dispatch beats first-available (2 GB caches, peer fetch on for all) | $(fa_worst diffusion) |"
	echo "| raicu §5 | ... and with peer fetch off for all (2 GB caches) | $(fa_worst diffusion-storage) |"
	for p in max-cache-hit max-compute-util good-cache-compute; do
		echo "| raicu §5 | Larger caches raise the local hit rate ($p, 1 GB vs 4 GB per node) | $(verdict lt "$(cmp diffusion "$(pol $p) && \$$C_CACHE == 1073741824" "$(pol $p) && \$$C_CACHE == 4294967296" "$C_HIT") 1-GB-caches") |"
	done
	echo
	echo "## Data diffusion: cache size and dispatch policy (64 nodes, $DIFF_JOBS tasks)"
	echo
	echo "Efficiency §5 is the ideal run time over the actual one (1 / WET slowdown),"
	echo "the measure of data-diffusion-raicu §5; §4.3's efficiency and speedup follow"
	echo "its model literally and stay at 1 and 64 whenever arrivals bound the run."
	for fig in diffusion diffusion-storage; do
		echo
		if [ $fig = diffusion ]; then
			echo "Peer fetch on for every policy (Falkon's executors read each other's caches):"
		else
			echo "Peer fetch off for every policy (files from the storage nodes only):"
		fi
		echo
		echo "| cache/node | policy | response (s), mean ± CI (p95, max) | local hits % | efficiency §5 | efficiency §4.3 | speedup §4.3 |"
		echo "|---|---|---|---|---|---|---|"
		for cs in 1073741824 1610612736 2147483648 4294967296; do
			for p in "${FALKON[@]}"; do
				f="$(pol "$p") && \$$C_CACHE == $cs"
				printf '| %s GiB | %s | %s | %s | %s | %s | %s |\n' \
					"$(awk -v c=$cs 'BEGIN { printf "%.1f", c / 1073741824 }')" "$p" \
					"$(cell $fig "$f")" "$(ci $fig "$f" "$C_HIT" %.1f)" \
					"$(ci $fig "$f" "$C_EFF5" %.3f)" "$(mean $fig "$f" "$C_EFF" %.3f)" \
					"$(mean $fig "$f" "$C_SPEED" %.1f)"
			done
		done
	done
	echo
	echo "## Plots"
	echo
	# (prov-*: experiments_provision.sh's, shown in provisioning.md)
	for f in "$out"/*.png; do
		case $(basename "$f") in prov-*) continue ;; esac
		echo "![$(basename "$f" .png)]($(basename "$f"))"
	done
} >"$out/README.md"
echo "experiments: wrote $out/README.md, results.csv and $(ls "$out"/*.png | grep -vc '/prov-') plots" >&2

# Dynamic provisioning (data-diffusion-raicu §5.2 at full size) and the
# Fig. 5 threshold study with background copies: provisioning.md.
if [ "${DL_SKIP_PROVISION:-0}" != 1 ]; then
	"$top/contrib/experiments_provision.sh" "$build"
fi

# dl-sim against the real cluster on one workload (sim-vs-real.md): needs
# root and the Slurm daemons (contrib/setup.sh); elsewhere the committed
# table stays.  DL_SKIP_VALIDATE=1 leaves it out.
if [ "${DL_SKIP_VALIDATE:-0}" != 1 ]; then
	if [ "$(id -u)" = 0 ] && command -v slurmctld >/dev/null; then
		OUT="$out/sim-vs-real.md" "$top/contrib/validate_sim.sh" "$build"
	else
		echo "experiments: not root or no Slurm: sim-vs-real.md not regenerated" >&2
	fi
fi
