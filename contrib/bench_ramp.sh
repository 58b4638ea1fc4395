#!/usr/bin/env bash
# bench_ramp.sh [BUILD_DIR] - issue 11, item 5: data-diffusion-raicu's
# ramp (250K tasks of 10 ms on one of 10K files of 10 MB, arrivals x1.3 a
# minute up to 1000/s) through dl-sim with Online-HPS on 64 nodes, side
# by side: as it runs (its guards judge the first 1000 pending jobs,
# guard_horizon) and with the guards over the whole 6,400-job window
# (guard_horizon=0).  Prints CPU seconds (dl-sim and its partitioner
# helper), wall seconds and mean / p95 response of each, and the ratios.
# Target: "a few minutes", mean response within 2%.  One after the other,
# so that neither slows the other: about 4 + 8 minutes on a 2-core host.
#
# Environment: JOBS (250000), SEED (1), PARAMS (policy params added to
# both runs).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/_build/main}
[ -x "$build/dl-sim" ] || build=$("$top/contrib/build.sh" "$build" | tail -1)
export DL_PARTITIOND="$build/dl-partitiond"
jobs=${JOBS:-250000}
seed=${SEED:-1}
extra=${PARAMS:+,$PARAMS}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

run() { # run NAME HORIZON: one ramp; its figures in $out/NAME
	local t0 t1 c0 c1
	c0=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat)
	t0=$(date +%s.%N)
	"$build/dl-sim" --policy online-hps \
		--policy-params "guard_horizon=$2$extra" \
		--workload diffusion --jobs "$jobs" --nodes 64 --cache-size 1G \
		--replan-min-interval 0.1 --seed "$seed" >"$out/$1.txt"
	t1=$(date +%s.%N)
	c1=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat)
	awk -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" \
		-v hz="$(getconf CLK_TCK)" '
		/^response/ { mean = $3; p95 = $8 }
		END { printf "%.1f %.1f %.3f %.3f\n", (c1 - c0) / hz, t1 - t0,
			     mean, p95 }' "$out/$1.txt" >"$out/$1"
}

run horizon 1000
run whole 0
read -r hc hw hm hp <"$out/horizon"
read -r wc ww wm wp <"$out/whole"
printf 'dl-sim, diffusion ramp: %s tasks, 64 nodes, 1 GiB caches, seed %s, --replan-min-interval 0.1\n' \
	"$jobs" "$seed"
printf '%-26s %8s %8s %10s %10s\n' "" "CPU s" "wall s" "mean s" "p95 s"
printf '%-26s %8s %8s %10s %10s\n' "guard_horizon=1000 (now)" "$hc" "$hw" "$hm" "$hp"
printf '%-26s %8s %8s %10s %10s\n' "guard_horizon=0" "$wc" "$ww" "$wm" "$wp"
awk -v hc="$hc" -v wc="$wc" -v hm="$hm" -v wm="$wm" -v hp="$hp" -v wp="$wp" \
	-v hw="$hw" 'BEGIN {
	printf "now / whole window: CPU %.2f, mean response %+.2f%% (target within 2%%: %s), p95 %+.2f%%; now %.1f minutes\n",
	       hc / wc, 100 * (hm / wm - 1),
	       (hm / wm - 1 <= 0.02 && hm / wm - 1 >= -0.02) ? "met" : "not met",
	       100 * (hp / wp - 1), hw / 60 }'
