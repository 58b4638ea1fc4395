#!/usr/bin/env bash
# experiments_provision.sh - data-diffusion-raicu §5.2 with dynamic
# resource provisioning (dl-sim --provision), and the replication
# threshold study of online-hps-khanna Fig. 5 with DataLeastLoaded as
# background copies (jdp-dll replicate=copy).  Writes under
# doc/experiments/:
#   provisioning.csv        every run (one dl-sim CSV row each + figure)
#   provisioning/*.csv      the timeline of every §5.2 run (10 s samples)
#   prov-*.png              summary views (Figs. 4-10), PI and speedup,
#                           slowdown, the Fig. 5 threshold study
#   provisioning.md         tables and the verdicts computed from the runs
#
#   contrib/experiments_provision.sh [BUILD_DIR]
#
# Environment: DIFF_JOBS (250000, the paper's), PAR (2) runs at once,
# F5_SEEDS ("1 2 3 4 5") the seeds of every Fig. 5 point (the §5.2 runs
# at full size take minutes to an hour each: one seed), REUSE=1: no runs,
# the plots and provisioning.md from the existing provisioning.csv and
# timelines; ONLY=fig5: run only the Fig. 5 study and keep the other rows
# of provisioning.csv; PARTS=DIR: a copy of every run's CSV row there as
# soon as it is done.
set -euo pipefail
top=${DL_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
build=${1:-$top/_build/main}
sim="$build/dl-sim"
[ -x "$sim" ] || build=$("$top/contrib/build.sh" "$build" | tail -1)
sim="$build/dl-sim"
export DL_PARTITIOND="$build/dl-partitiond"
out="$top/doc/experiments"
tl="$out/provisioning"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out" "$tl"
command -v gnuplot >/dev/null || { echo "experiments_provision: apt-get install gnuplot-nox" >&2; exit 1; }
DIFF_JOBS=${DIFF_JOBS:-250000}
PAR=${PAR:-2}
read -r -a F5_SEEDS <<<"${F5_SEEDS:-1 2 3 4 5}"
ONLY=${ONLY:-}

# The platform of §5.2: 64 dual-CPU nodes; GPFS gave first-available
# 4.4 Gb/s and saturated at 59 tasks/s: 8 storage nodes of 70 MiB/s
# (587 MB/s, 56 tasks/s of 10 MiB); peers over 1 Gb/s NICs (119 MiB/s);
# Falkon's dispatcher, not Slurm's (--dispatch plan); LRU caches (§3.1).
# The scheduling window W (§3.2) is 20 tasks per node (1280): the Falkon
# policies' own default, 100 per node, made a full run of a thrashing
# configuration take over 20 minutes on the shared machine.
# first-available works on GPFS directly: no cache, no peers; it looks
# at the head of the queue only, so a window of 1000 tasks changes none of
# its decisions (128 slots at most) and saves most of its run time.
DD="--workload diffusion --jobs $DIFF_JOBS --nodes 64 --cores 2 --storage 8 --rbw 70M --peer-bw 119M --dispatch plan --window 1280 --eviction lru"
FA="--policy first-available --cache-size 0 --no-peer-fetch --window 1000"
DRP="--provision alloc=additive"

n=0
run() { # run FIGURE TAG ARGS... : queue one simulation
	[ -z "$ONLY" ] || [ "$1" = "$ONLY" ] || return 0
	n=$((n + 1))
	printf '%s\t%s\t%s\n' "$1" "$2" "${*:3}" >>"$work/runs.tsv"
}
f5run() { # f5run ORDER ARGS... : one Fig. 5 point, every seed
	local seed
	for seed in "${F5_SEEDS[@]}"; do run fig5 "$1" "${@:2}" --seed "$seed"; done
}
# online-hps-khanna Fig. 5 (4 + 4 nodes, 15 GB caches, loads 1-2) with
# DataLeastLoaded as the paper has it (background copies) and as a
# placement (replicate=job), and the low-load comparison of §6.4.
for order in clustered random; do
	for j in 200 400 800 1200 1600; do
		load=$(awk -v j="$j" 'BEGIN { print j / 800 }')
		for t in 1 2 4; do
			for mode in copy job; do
				f5run "$order" --policy jdp-dll --policy-params threshold=$t,replicate=$mode \
					--jobs "$j" --load "$load" --order $order --eviction lru
			done
		done
		for p in online-hps mct; do
			f5run "$order" --policy $p --jobs "$j" --load "$load" --order $order
		done
		f5run "$order" --policy online-hps --policy-params prefetch=2 \
			--jobs "$j" --load "$load" --order $order
	done
done

# Figs. 4-10 and 13: the seven experiments, plus the static 64 nodes.
# (cheap ones first)
run drp fa-gpfs $DD $FA $DRP
for cs in 4G 2G; do
	run drp gcc-$cs $DD --policy good-cache-compute --cache-size $cs $DRP
done
run static gcc-4G-static $DD --policy good-cache-compute --cache-size 4G
run drp mcu-4G $DD --policy max-compute-util --cache-size 4G $DRP
for cs in 1536M 1G; do
	run drp gcc-$cs $DD --policy good-cache-compute --cache-size $cs $DRP
done
run drp mch-4G $DD --policy max-cache-hit --cache-size 4G $DRP
# The four allocation policies (additive is gcc-4G above), caches kept.
# (first-available under each policy: ~8 minutes a run, left out.)
for al in one exponential all; do
	run alloc gcc-4G-$al $DD --policy good-cache-compute --cache-size 4G --provision alloc=$al
done
run keep gcc-1536M-kept $DD --policy good-cache-compute --cache-size 1536M --provision alloc=additive,cache=kept
res="$out/provisioning.csv"
if [ "${REUSE:-0}" = 1 ]; then
	echo "experiments_provision: reusing $res" >&2
	n=$(($(wc -l <"$res") - 1))
else
echo "experiments_provision: $n simulations, $PAR at once" >&2
awk -F'\t' '{ printf "%d\t%s\t%s\t%s\n", NR, $1, $2, $3 }' "$work/runs.tsv" |
	xargs -P "$PAR" -d '\n' -n 1 bash -c '
		IFS=$'"'"'\t'"'"' read -r id fig tag args <<<"$0"
		t=""
		case $fig in drp|static|alloc|keep) t="--timeline '"$tl"'/$tag.csv";; esac
		# shellcheck disable=SC2086
		nice -n 10 "'"$sim"'" -q $args $t --csv "'"$work"'/run.$id.csv" ||
			{ echo "experiments_provision: run $id failed: $args" >&2; exit 255; }
		sed -i "1s/^/figure,tag,/; 2s/^/$fig,$tag,/" "'"$work"'/run.$id.csv"
		[ -z "'"${PARTS:-}"'" ] || cp "'"$work"'/run.$id.csv" "'"${PARTS:-}"'/"'
new=$work/new.csv
runs=("$work"/run.*.csv) # not ls | head under pipefail: SIGPIPE
head -1 "${runs[0]}" >"$new"
for f in $(ls "$work"/run.*.csv | sort -t. -k2 -n); do tail -n +2 "$f"; done >>"$new"
# Quoted fields (policy params, the provisioning spec) hold commas: ';'
# instead, unquoted, so that awk -F, sees one field each.
sed -i -E ':a; s/("[^",]*),([^"]*")/\1;\2/; ta; s/"//g' "$new"
if [ -n "$ONLY" ]; then
	# The other figures' rows stay, in this dl-sim's columns (matched by
	# name; a column they predate is left empty).
	{
		head -1 "$new"
		awk -F, -v f="$ONLY" '
			NR == FNR { if (FNR == 1) { n = NF; for (i = 1; i <= NF; i++) want[i] = $i } next }
			FNR == 1 { for (i = 1; i <= NF; i++) at[$i] = i; next }
			$1 != f {
				line = ""
				for (i = 1; i <= n; i++)
					line = line (i > 1 ? "," : "") (want[i] in at ? $(at[want[i]]) : "")
				print line
			}' "$new" "$res"
		tail -n +2 "$new"
	} >"$work/merged.csv"
	mv "$work/merged.csv" "$new"
	n=$(($(wc -l <"$new") - 1))
fi
mv "$new" "$res"
fi

col() { head -1 "$res" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }
C_FIG=$(col figure) C_TAG=$(col tag) C_POL=$(col policy) C_PAR=$(col policy_params)
C_MK=$(col makespan) C_WI=$(col wet_ideal) C_SL=$(col wet_slowdown) C_CPU=$(col cpu_hours)
C_HL=$(col hit_local_pct) C_HP=$(col hit_peer_pct) C_MISS=$(col miss_pct)
C_RESP=$(col resp_mean) C_PEAK=$(col peak_nodes) C_UTIL=$(col cpu_util) C_SLOT=$(col slot_util)
C_JOBS=$(col jobs) C_ORDER=$(col order) C_COP=$(col copies_done) C_REM=$(col remote_transfers)
C_QMAX=$(col max_pending)
# get TAG COL: COL of the run tagged TAG
# (nan, and a note for holds(), when no run has that tag: REUSE=1 on
# the rows of a run cut short)
get() {
	local v
	v=$(awk -F, -v t="$1" -v c="$2" "NR > 1 && \$$C_TAG == t { print \$c; exit }" "$res")
	if [ -z "$v" ]; then : >"$work/missing"; echo nan; else echo "$v"; fi
}
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
f1() { printf '%.1f' "$1"; }
f2() { printf '%.2f' "$1"; }
holds() {
	local r="**not reproduced**"
	rm -f "$work/missing"
	if "$@"; then r=reproduced; fi
	if [ -e "$work/missing" ]; then r="not run"; fi
	echo "$r"
}

# --- Figs. 4-10: summary views over time --------------------------------------
fsize=$((10 * 1048576))
view() { # view TAG TITLE
	local f="$tl/$1.csv"
	[ -s "$f" ] || return 0
	gnuplot <<-EOF
		set terminal png size 900,600
		set output '$out/prov-$1.png'
		set datafile separator ','
		set multiplot layout 2,1 title '$2'
		set ylabel 'Gb/s'
		set key top left
		set grid
		g(n) = n * $fsize * 8 / 1e9 / 10
		plot '$f' every ::1 using 1:(g(\$7)) with lines lw 2 title 'ideal (arrivals)', \
		     '' every ::1 using 1:(g(\$8)) with lines lw 2 title 'throughput', \
		     '' every ::1 using 1:(g(\$8) * \$9 / (\$9 + \$10 + \$11 + 1e-9)) with lines title 'local hits', \
		     '' every ::1 using 1:(g(\$8) * \$10 / (\$9 + \$10 + \$11 + 1e-9)) with lines title 'peer hits', \
		     '' every ::1 using 1:(g(\$8) * \$11 / (\$9 + \$10 + \$11 + 1e-9)) with lines title 'misses (storage)'
		set xlabel 'time (s)'
		set ylabel 'nodes'
		set y2label 'wait queue (tasks)'
		set y2tics
		plot '$f' every ::1 using 1:2 with lines lw 2 title 'nodes on', \
		     '' every ::1 using 1:3 with lines title 'nodes booting', \
		     '' every ::1 using 1:4 axes x1y2 with lines title 'wait queue'
		unset multiplot
	EOF
}
view fa-gpfs "Fig. 4: first-available on the storage nodes, provisioning"
view gcc-1G "Fig. 5: good-cache-compute, 1 GiB caches, provisioning"
view gcc-1536M "Fig. 6: good-cache-compute, 1.5 GiB caches, provisioning"
view gcc-2G "Fig. 7: good-cache-compute, 2 GiB caches, provisioning"
view gcc-4G "Fig. 8: good-cache-compute, 4 GiB caches, provisioning"
view mch-4G "Fig. 9: max-cache-hit, 4 GiB caches, provisioning"
view mcu-4G "Fig. 10: max-compute-util, 4 GiB caches, provisioning"
view gcc-4G-static "good-cache-compute, 4 GiB caches, 64 static nodes"

# --- Fig. 13: PI and speedup (Fig. 14's slowdown is the table's column) ------
SUMMARY=(fa-gpfs gcc-1G gcc-1536M gcc-2G gcc-4G mch-4G mcu-4G gcc-4G-static
	gcc-4G-one gcc-4G-exponential gcc-4G-all gcc-1536M-kept)
base=$(get fa-gpfs "$C_MK")
# SP = WET_GPFS / WET (§5.2.4), PI = SP / CPU_T normalised to the best.
for t in "${SUMMARY[@]}"; do
	[ "$(get "$t" "$C_MK")" != nan ] || continue
	awk -v t="$t" -v b="$base" -v mk="$(get "$t" "$C_MK")" -v cpu="$(get "$t" "$C_CPU")" \
		'BEGIN { sp = b / mk; printf "%s %.6f %.6f\n", t, sp, (cpu > 0 ? sp / cpu : 0) }'
done >"$work/pi.dat"
pimax=$(awk '$3 > m { m = $3 } END { print m }' "$work/pi.dat")
awk -v m="$pimax" '{ printf "%s %.6f %.6f\n", $1, $2, $3 / m }' "$work/pi.dat" >"$work/pin.dat"
pin() { # pin TAG COL: from pin.dat, nan (noted) when TAG was not run
	local v
	v=$(awk -v t="$1" -v c="$2" '$1 == t { print $c }' "$work/pin.dat")
	if [ -z "$v" ]; then : >"$work/missing"; echo nan; else echo "$v"; fi
}
pi() { pin "$1" 3; }
sp() { pin "$1" 2; }
head -8 "$work/pin.dat" >"$work/pin7.dat"
gnuplot <<-EOF
	set terminal png size 900,480
	set output '$out/prov-pi-speedup.png'
	set multiplot layout 2,1 title 'Fig. 13: performance index (normalised) and speedup over first-available'
	set style fill solid 0.6
	set boxwidth 0.6
	set yrange [0:*]
	set grid
	set ylabel 'PI'
	plot '$work/pin7.dat' using 0:3:xtic(1) with boxes notitle
	set ylabel 'speedup'
	plot '$work/pin7.dat' using 0:2:xtic(1) with boxes notitle
	unset multiplot
EOF

# --- online-hps-khanna Fig. 5 with background replication ---------------------
# The statistics over the seeds of each point (exp_stats.sh).
CSV=$res ALPHA=0.05 simstat="$build/dl-simstat"
# shellcheck source=contrib/exp_stats.sh
. "$top/contrib/exp_stats.sh"
# f5f ORDER [JOBS] PARAMS|POLICY: the filter of a Fig. 5 point (a policy
# name: that policy with no parameters)
f5f() {
	local j=""
	[ $# = 3 ] && j=" && \$$C_JOBS == $2"
	echo "\$$C_ORDER == \"$1\"$j && (\$$C_PAR == \"${*: -1}\" || (\$$C_POL == \"${*: -1}\" && \$$C_PAR == \"\"))"
}
for order in clustered random; do
	cmd=""
	i=0
	for key in "threshold=1;replicate=copy" "threshold=2;replicate=copy" "threshold=4;replicate=copy" \
		"threshold=1;replicate=job" "threshold=2;replicate=job" "threshold=4;replicate=job" \
		online-hps mct prefetch=2; do
		i=$((i + 1))
		series fig5 "$(f5f $order "$key")" "$C_JOBS" "$C_RESP" >"$work/f5.$i.dat"
		title=${key//;replicate=/ (}
		case $key in threshold*) title="$title)" dt=1 ;; prefetch*) title="online-hps $key" dt=3 ;; *) dt=2 ;; esac
		cmd+="${cmd:+, }'$work/f5.$i.dat' using 1:2:3 with yerrorlines dt $dt title '${title//threshold=/threshold }'"
	done
	gnuplot <<-EOF
		set terminal png size 800,520
		set output '$out/prov-fig5-$order.png'
		set title 'JDP-DLL threshold, copies vs placement ($order; ${#F5_SEEDS[@]} seeds, 95% CI)'
		set xlabel 'jobs (load = jobs / 800)'
		set ylabel 'mean response (s)'
		set key top left
		set logscale y
		set grid
		plot $cmd
	EOF
done

# --- the document ---------------------------------------------------------------
f5() { mean fig5 "$(f5f "$@")" "$C_RESP" %.2f; } # f5 ORDER JOBS KEY
f5ci() { ci fig5 "$(f5f "$@")" "$C_RESP" %.2f; }
best_threshold() { # best_threshold ORDER JOBS MODE: lowest mean
	local best="" bv="" t v
	for t in 1 2 4; do
		v=$(f5 "$1" "$2" "threshold=$t;replicate=$3")
		if [ -z "$bv" ] || lt "$v" "$bv"; then bv=$v best=$t; fi
	done
	echo "$best"
}
# f5cmp ORDER JOBS KEY_A KEY_B: "lt P LABEL", "gt P LABEL" or "ns P LABEL"
f5cmp() { echo "$(cmp fig5 "$(f5f "$1" "$2" "$3")" "$(f5f "$1" "$2" "$4")" "$C_RESP") ${4%%;*} at $2 jobs"; }
{
	echo "# Dynamic provisioning and background replication"
	echo
	echo "Generated by \`contrib/experiments_provision.sh\` on $(date -u +%Y-%m-%d) from $n runs"
	echo "of \`dl-sim\` (the §5.2 runs one seed each, every Fig. 5 point ${#F5_SEEDS[@]} seeds); raw rows:"
	echo "\`provisioning.csv\`, timelines:"
	echo "\`provisioning/*.csv\`. The discussion of every verdict is in"
	echo "[provisioning-discussion.md](provisioning-discussion.md)."
	echo
	echo "Workload (data-diffusion-raicu §5.2): $DIFF_JOBS tasks, 10K files of 10 MiB, one"
	echo "file per task chosen uniformly, 10 ms of compute, arrival rate 1/s x1.3 every"
	echo "60 s up to 1000/s. Platform: \`$DD\`; first-available \`$FA\`;"
	echo "provisioning \`$DRP\` (defaults: latency 30-60 s, idle release 60 s,"
	echo "decisions every 5 s, caches lost on release; \`dl-sim --help\`)."
	echo
	echo "## Summary (Figs. 4-10, 13; Fig. 14's slowdown overall)"
	echo
	echo "| run | WET (s) | efficiency | slowdown | CPU hours | speedup | PI | local % | peer % | miss % | mean response (s) | peak nodes | queue max |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for t in "${SUMMARY[@]}"; do
		mk=$(get "$t" "$C_MK")
		[ "$mk" != nan ] || continue
		printf '| %s | %.0f | %.2f | %.2f | %.2f | %.2f | %.3f | %.1f | %.1f | %.1f | %.1f | %s | %s |\n' \
			"$t" "$mk" "$(awk -v a="$(get "$t" "$C_WI")" -v b="$mk" 'BEGIN { print a / b }')" \
			"$(get "$t" "$C_SL")" "$(get "$t" "$C_CPU")" "$(sp "$t")" "$(pi "$t")" \
			"$(get "$t" "$C_HL")" "$(get "$t" "$C_HP")" "$(get "$t" "$C_MISS")" \
			"$(get "$t" "$C_RESP")" "$(get "$t" "$C_PEAK")" "$(get "$t" "$C_QMAX")"
	done
	echo
	echo "efficiency = ideal WET / WET (§5.2.1), slowdown SL = WET / ideal WET (§5.2.5),"
	echo "speedup SP = WET(fa-gpfs) / WET, PI = SP / CPU hours normalised to the best run"
	echo "of this table (§5.2.4). CPU hours: node time on x 2 CPUs within the run."
	echo
	echo "## Verdicts"
	echo
	echo "| paper | finding | our runs |"
	echo "|---|---|---|"
	fa_worst() { local t; for t in gcc-1G gcc-1536M gcc-2G gcc-4G mch-4G mcu-4G; do lt "$(get $t "$C_MK")" "$(get fa-gpfs "$C_MK")" || return 1; done; }
	echo "| raicu §5.2.1 | first-available on GPFS has the longest WET of all (5011 s) | $(holds fa_worst) (fa-gpfs $(printf %.0f "$(get fa-gpfs "$C_MK")") s) |"
	cache_order() { lt "$(get gcc-1536M "$C_MK")" "$(get gcc-1G "$C_MK")" && lt "$(get gcc-2G "$C_MK")" "$(get gcc-1536M "$C_MK")"; }
	echo "| raicu §5.2.1 | good-cache-compute's WET falls with the cache: 1 GB 3762 s > 1.5 GB 1596 s > 2 GB 1436 s | $(holds cache_order) ($(printf %.0f "$(get gcc-1G "$C_MK")"), $(printf %.0f "$(get gcc-1536M "$C_MK")"), $(printf %.0f "$(get gcc-2G "$C_MK")") s) |"
	near_ideal() { awk -v a="$(get gcc-2G "$C_SL")" -v b="$(get gcc-4G "$C_SL")" 'BEGIN { exit !(a < 1.1 && b < 1.1) }'; }
	echo "| raicu §5.2.1 | with 2 and 4 GB caches the WET is within 1% of ideal (99% efficiency) | $(holds near_ideal) (slowdown $(f2 "$(get gcc-2G "$C_SL")"), $(f2 "$(get gcc-4G "$C_SL")"); we accept < 1.10) |"
	no_gain_4g() { awk -v a="$(get gcc-2G "$C_MK")" -v b="$(get gcc-4G "$C_MK")" 'BEGIN { exit !(b <= a && b > 0.95 * a) }'; }
	echo "| raicu §5.2.1 | 4 GB gives no significant gain over 2 GB (1427 vs 1436 s) | $(holds no_gain_4g) |"
	hits_1g() { lt "$(get gcc-1G "$C_HL")" "$(get gcc-1536M "$C_HL")" && lt "$(get gcc-1536M "$C_HL")" "$(get gcc-4G "$C_HL")"; }
	echo "| raicu §5.2.2 | local hits grow with the cache; 1 GB (working set does not fit) is far below | $(holds hits_1g) ($(f1 "$(get gcc-1G "$C_HL")")%, $(f1 "$(get gcc-1536M "$C_HL")")%, $(f1 "$(get gcc-4G "$C_HL")")%) |"
	mch_slow() { lt "$(get gcc-4G "$C_MK")" "$(get mch-4G "$C_MK")"; }
	echo "| raicu §5.2.1 | max-cache-hit is slower than good-cache-compute at 4 GB (2888 vs 1427 s) | $(holds mch_slow) ($(printf %.0f "$(get mch-4G "$C_MK")") s) |"
	mch_util() { lt "$(get mch-4G "$C_SLOT")" "$(get gcc-4G "$C_SLOT")"; }
	echo "| raicu §5.2.1 | ... with a poor CPU utilisation | $(holds mch_util) (slot util $(f2 "$(get mch-4G "$C_SLOT")") vs $(f2 "$(get gcc-4G "$C_SLOT")")) |"
	mcu_mid() { lt "$(get gcc-4G "$C_MK")" "$(get mcu-4G "$C_MK")" && lt "$(get mcu-4G "$C_MK")" "$(get mch-4G "$C_MK")"; }
	echo "| raicu §5.2.1 | max-compute-util lies between them (2037 s) | $(holds mcu_mid) ($(printf %.0f "$(get mcu-4G "$C_MK")") s) |"
	mcu_peer() { local t; for t in gcc-4G mch-4G; do lt "$(get $t "$C_HP")" "$(get mcu-4G "$C_HP")" || return 1; done; }
	echo "| raicu §5.2.3 | max-compute-util makes the most remote-cache (peer) accesses | $(holds mcu_peer) ($(f1 "$(get mcu-4G "$C_HP")")% vs $(f1 "$(get gcc-4G "$C_HP")")%, $(f1 "$(get mch-4G "$C_HP")")%) |"
	sp_range() { awk -v lo="$(sp gcc-1G)" -v hi="$(sp gcc-4G)" 'BEGIN { exit !(lo > 1 && hi > lo) }'; }
	echo "| raicu §5.2.4 | data diffusion's speedup over first-available is 1.3x (1 GB) to 3.5x (4 GB) | $(holds sp_range) ($(printf %.2f "$(sp gcc-1G)")x to $(printf %.2f "$(sp gcc-4G)")x) |"
	pi_ratio() { awk -v a="$(pi fa-gpfs)" -v b="$(pi gcc-4G)" -v c="$(pi gcc-1G)" 'BEGIN { exit !(a > 0 && c / a >= 2 && b / a > c / a) }'; }
	echo "| raicu §5.2.4 | data diffusion's PI is 2x to 34x first-available's | $(holds pi_ratio) ($(awk -v a="$(pi fa-gpfs)" -v c="$(pi gcc-1G)" 'BEGIN { printf "%.1f", c / a }')x to $(awk -v a="$(pi fa-gpfs)" -v b="$(pi gcc-4G)" 'BEGIN { printf "%.1f", b / a }')x) |"
	static_same() { awk -v a="$(sp gcc-4G)" -v b="$(sp gcc-4G-static)" 'BEGIN { d = a / b; exit !(d > 0.95 && d < 1.05) }'; }
	echo "| raicu §5.2.4 | 64 static nodes: the same speedup as with provisioning ... | $(holds static_same) ($(printf %.2f "$(sp gcc-4G-static)")x vs $(printf %.2f "$(sp gcc-4G)")x) |"
	static_pi() { lt "$(pi gcc-4G-static)" "$(pi gcc-4G)" && lt "$(get gcc-4G "$C_CPU")" "$(get gcc-4G-static "$C_CPU")"; }
	echo "| raicu §5.2.4 | ... but a much lower PI (0.33 vs 1; 46 vs 17 CPU hours) | $(holds static_pi) (PI $(f2 "$(pi gcc-4G-static)") vs $(f2 "$(pi gcc-4G)"); $(f1 "$(get gcc-4G-static "$C_CPU")") vs $(f1 "$(get gcc-4G "$C_CPU")") CPU hours) |"
	cpu_4g() { lt "$(get gcc-4G "$C_CPU")" "$(get gcc-2G "$C_CPU")"; }
	echo "| raicu §5.2.4 | 4 GB uses fewer CPU hours than 2 GB (17 vs 24) | $(holds cpu_4g) ($(f1 "$(get gcc-4G "$C_CPU")") vs $(f1 "$(get gcc-2G "$C_CPU")")) |"
	echo
	echo "## Allocation policies (good-cache-compute, 4 GB caches)"
	echo
	echo "| policy | WET (s) | CPU hours | mean response (s) | p95 response (s) | peak nodes | allocations |"
	echo "|---|---|---|---|---|---|---|"
	for al in one additive exponential all; do
		g=gcc-4G-$al
		[ $al = additive ] && g=gcc-4G
		printf '| %s | %.0f | %.2f | %.2f | %.2f | %s | %s |\n' $al \
			"$(get $g "$C_MK")" "$(get $g "$C_CPU")" "$(get $g "$C_RESP")" \
			"$(get $g "$(col resp_p95)")" "$(get $g "$C_PEAK")" "$(get $g "$(col allocations)")"
	done
	echo
	[ "$(get gcc-1536M-kept "$C_MK")" = nan ] ||
	printf 'Caches kept on release (gcc 1.5 GB): WET %.0f s, local hits %.1f%%, CPU hours %.2f (lost: %.0f s, %.1f%%, %.2f).\n' \
		"$(get gcc-1536M-kept "$C_MK")" "$(get gcc-1536M-kept "$C_HL")" "$(get gcc-1536M-kept "$C_CPU")" \
		"$(get gcc-1536M "$C_MK")" "$(get gcc-1536M "$C_HL")" "$(get gcc-1536M "$C_CPU")"
	echo
	echo "## online-hps-khanna Fig. 5: JDP-DLL's replication threshold"
	echo
	echo "Mean response (s) over ${#F5_SEEDS[@]} seeds ± the half-width of its 95% confidence"
	echo "interval, 4 + 4 nodes, 15 GB caches, load = jobs / 800; DataLeastLoaded as background"
	echo "copies (\`replicate=copy\`, the paper's) and as a placement (\`replicate=job\`)."
	for order in clustered random; do
		echo
		echo "$order order:"
		echo
		echo "| jobs | t=1 copy | t=2 copy | t=4 copy | t=1 job | t=2 job | t=4 job | copies (t=2, mean) | online-hps | online-hps prefetch=2 | mct |"
		echo "|---|---|---|---|---|---|---|---|---|---|---|"
		for j in 200 400 800 1200 1600; do
			printf '| %s |' $j
			for mode in copy job; do for t in 1 2 4; do printf ' %s |' "$(f5ci $order $j "threshold=$t;replicate=$mode")"; done; done
			printf ' %s |' "$(mean fig5 "$(f5f $order $j "threshold=2;replicate=copy")" "$C_COP" %.0f)"
			printf ' %s | %s | %s |\n' "$(f5ci $order $j online-hps)" "$(f5ci $order $j prefetch=2)" "$(f5ci $order $j mct)"
		done
	done
	echo
	echo "A verdict is reproduced when every comparison it makes goes the paper's way and"
	echo "is significant (Welch's t-test over the seeds, p < $ALPHA), not reproduced when one"
	echo "goes significantly the other way, not significant otherwise."
	echo
	echo "| paper | finding | our runs |"
	echo "|---|---|---|"
	for order in clustered random; do
		bt="" res=()
		for j in 200 400 800 1200 1600; do
			bt+="$(best_threshold $order $j copy) "
			for t in 1 4; do res+=("$(f5cmp $order $j "threshold=2;replicate=copy" "threshold=$t;replicate=copy")"); done
		done
		echo "| khanna Fig. 5 | threshold 2 is best ($order, background copies) | $(verdict lt "${res[@]}") (lowest mean per load: $bt) |"
	done
	res=()
	for o in clustered random; do
		best="threshold=$(best_threshold $o 200 copy);replicate=copy"
		for p in online-hps mct; do res+=("$(f5cmp $o 200 "$best" $p) ($o)"); done
	done
	echo "| khanna §6.4 | at very low load JDPDLL performs best (replication in idle periods) | $(verdict lt "${res[@]}") (200 jobs, load 0.25, its best threshold) |"
	res=()
	for o in clustered random; do res+=("$(f5cmp $o 200 "threshold=2;replicate=copy" "threshold=2;replicate=job") ($o)"); done
	echo "| (ours) | background copies beat replication by placement at low load | $(verdict lt "${res[@]}") |"
	echo
	echo "## Plots"
	echo
	for t in fa-gpfs gcc-1G gcc-1536M gcc-2G gcc-4G mch-4G mcu-4G gcc-4G-static; do
		if [ -e "$out/prov-$t.png" ]; then echo "![$t](prov-$t.png)"; fi
	done
	echo "![pi](prov-pi-speedup.png)"
	echo "![fig5-clustered](prov-fig5-clustered.png)"
	echo "![fig5-random](prov-fig5-random.png)"
} >"$out/provisioning.md"
echo "experiments_provision: wrote $out/provisioning.md" >&2
