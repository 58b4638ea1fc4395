# exp_stats.sh - the statistics of repeated dl-sim runs (mean, 95%
# confidence intervals, Welch's test, verdicts), sourced by
# contrib/experiments.sh and contrib/experiments_provision.sh.
#
# The caller sets CSV (the runs, one dl-sim CSV row each, with a figure
# column), C_FIG, C_POL (their column numbers), ALPHA (the significance
# level) and simstat (dl-simstat).  FILTER arguments are awk conditions
# over the row's fields.
# shellcheck shell=bash

# vals FIG FILTER COL: "k<TAB>value" for every seed of the point
vals() {
	awk -F, -v fig="$1" -v c="$3" "NR > 1 && \$$C_FIG == fig && ($2) { print \"k\t\" \$c }" "$CSV"
}
# agg FIG FILTER COL: "n mean sd half" over the seeds (half: 95% CI, Student t)
agg() { vals "$@" | "$simstat" ci | cut -f2- | tr '\t' ' '; }
# ci FIG FILTER COL FMT: "mean ± half" formatted with FMT
ci() {
	agg "$1" "$2" "$3" | awk -v f="$4" '{ printf f " ± " f, $2, $4 }'
}
# mean FIG FILTER COL FMT
mean() { agg "$1" "$2" "$3" | awk -v f="$4" '{ printf f, $2 }'; }
# cmp FIG FILTER_A FILTER_B COL: "lt P", "gt P" (A's mean below/above B's,
# Welch p < ALPHA) or "ns P"
cmp() {
	# dl-simstat takes the keys in order of appearance: A's rows first.
	awk -F, -v fig="$1" -v c="$4" "NR > 1 && \$$C_FIG == fig { if ($2) print \"a\t\" \$c; if ($3) print \"b\t\" \$c }" "$CSV" |
		sort -s -k1,1 | "$simstat" welch |
		awk -F'\t' -v a="$ALPHA" '{ printf "%s %.3g", ($7 >= a ? "ns" : $3 < $4 ? "lt" : "gt"), $7 }'
}
pol() { echo "\$$C_POL == \"$1\""; }

# A verdict is "reproduced" when every comparison the finding makes goes
# the paper's way and is significant, "not reproduced" when one goes
# significantly the other way (named), "not significant" otherwise.
# verdict WANT RESULT...: each RESULT is the "lt P [LABEL]", "gt P
# [LABEL]" or "ns P [LABEL]" of a comparison whose paper's direction is
# WANT.
verdict() {
	local want=$1 r kind p label sig=1 against="" worst=0
	shift
	for r in "$@"; do
		read -r kind p label <<<"$r"
		case $kind in
		"$want") ;;
		ns) sig=0 ;;
		lt | gt) against+="${against:+, }${label:-the other} (p = $p)" ;;
		*) echo "**no data**"; return ;;
		esac
		worst=$(awk -v a="$worst" -v b="$p" 'BEGIN { print (b > a ? b : a) }')
	done
	if [ -n "$against" ]; then echo "**not reproduced** (significantly the other way: $against)"
	elif [ $sig = 1 ]; then echo "reproduced (p ≤ $worst)"
	else echo "**not significant** (p ≤ $worst)"; fi
}
# beats FIG FILTER POLICY COL WANT OTHERS...: POLICY against each other
beats() {
	local fig=$1 f=$2 p=$3 c=$4 want=$5 o res=()
	shift 5
	for o in "$@"; do
		[ "$o" = "$p" ] && continue
		res+=("$(cmp "$fig" "$(pol "$p") && $f" "$(pol "$o") && $f" "$c") $o")
	done
	verdict "$want" "${res[@]}"
}
# best_at FIG FILTER COL KEYCOL: the key with the lowest mean
best_at() {
	awk -F, -v fig="$1" -v c="$3" -v k="${4:-$C_POL}" "NR > 1 && \$$C_FIG == fig && ($2) { s[\$k] += \$c; n[\$k]++ } END { for (p in s) if (!m++ || s[p] / n[p] < b) { b = s[p] / n[p]; q = p } print q }" "$CSV"
}

# series FIG FILTER XCOL YCOL -> "x mean half" lines sorted by x
series() {
	awk -F, -v fig="$1" -v x="$3" -v y="$4" "NR > 1 && \$$C_FIG == fig && ($2) { print \$x \"\t\" \$y }" "$CSV" |
		"$simstat" ci | awk -F'\t' '{ print $1, $3, $5 }' | sort -n
}

