#!/usr/bin/env bash
# test_inventory.sh - one truth about the cache: with dl-stage staging for
# real (Prolog/Epilog/TaskProlog) and a cache too small for the workload,
# the controller's model of every node equals what the node's cache holds,
# and placement follows the real contents.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${DL_BUILD_DIR:?set DL_BUILD_DIR to a build tree with the plugins}"
DL_STAGE=${DL_STAGE:-$DL_BUILD_DIR/dl-stage}
# shellcheck source=../cluster/cluster.sh
source "$here/../cluster/cluster.sh"
# shellcheck source=lib.sh
source "$here/lib.sh"

dl_t_use_build
export DL_NODES=3
export DL_PROLOG="$DL_STAGE" DL_EPILOG="$DL_STAGE"
export DL_CLUSTER_EXTRA_CONF="TaskProlog=$DL_STAGE"
sdl="$DL_BUILD_DIR/sdatalocality"
trap dl_cluster_stop EXIT
dl_cluster_init
cat >"$DL_CLUSTER_DIR/etc/datalocality.conf" <<CONF
CacheDir=$DL_CLUSTER_DIR/cache/%n
CacheCapacity=7M
EvictionPolicy=lru
StorageBandwidth=1e6
CONF
dl_cluster_start
log=$(dl_cluster_log_ctld)
data=$DL_CLUSTER_DIR/data
for g in 0 1 2 3 4 5 6; do
	for f in 1 2 3; do dl_t_mkfile "$data/g$g/f$f" 1; done
done
chmod -R a+rX "$data"
submit() {
	sbatch --parsable -o /dev/null \
		--comment="files:$data/g$1/f1,$data/g$1/f2,$data/g$1/f3" \
		--wrap 'for f in $DL_CACHE_VIEW/*/*/*/*/g*/f*; do cat "$f" >/dev/null; done; sleep 0.3'
}

# 21 jobs over 7 groups of 3 MiB on 3 nodes of 7 MiB (two groups each):
# evictions must happen.
for round in 1 2 3; do
	for g in 0 1 2 3 4 5 6; do submit "$g" >/dev/null; done
done
dl_cluster_wait_jobs_done 180
done_ok=$(scontrol show job -o | grep -c 'JobState=COMPLETED' || true)
dl_t_eq "all 21 jobs completed" 21 "$done_ok"
# Inventories are read, and the state saved, at most once a second: wait
# (bounded) until every model is its node's cache, then check.
same() { # NODE
	[ "$(grep -v '^#' "$DL_CLUSTER_DIR/cache/$1/.inventory" | cut -d' ' -f1 | sort)" = \
	  "$("$sdl" files "$1" | tail -n +2 | awk '{ print $5 }' | sort)" ]
}
dl_t_wait_until 10 bash -c "$(declare -f same); sdl='$sdl' DL_CLUSTER_DIR='$DL_CLUSTER_DIR'; same n1 && same n2 && same n3" || true

bad=0
for n in n1 n2 n3; do
	inv="$DL_CLUSTER_DIR/cache/$n/.inventory"
	real=$(grep -v '^#' "$inv" | cut -d' ' -f1 | sort)
	model=$("$sdl" files "$n" | tail -n +2 | awk '{ print $5 }' | sort)
	used=$(grep -v '^#' "$inv" | awk '{ s += $2 } END { print s + 0 }')
	echo "  $n: node caches $(grep -vc '^#' "$inv") files ($used bytes), model has $(grep -c . <<<"$model" || true)"
	if [ "$real" != "$model" ]; then
		bad=$((bad + 1))
		diff <(echo "$real") <(echo "$model") | head -5
	fi
	[ "$used" -le $((7 * 1048576)) ] || bad=$((bad + 1))
done
dl_t_eq "the controller's model equals every node's cache contents" 0 "$bad"
dl_t_check "evictions happened on the nodes (dl-stage's log)" \
	bash -c "grep -qh 'evicted [1-9]' '$DL_CLUSTER_DIR'/cache/n*/.log"

# A job for a group a node really holds goes there and finds it cached.
# The group is one n2 holds more of than any other node does: evictions
# leave copies of a group on several nodes, and a group n1 or n3 holds as
# well may rightly go there instead.
held() { # NODE GROUP: how many of the group's files the node caches
	grep -v '^#' "$DL_CLUSTER_DIR/cache/$1/.inventory" |
		grep -c "/g$2/f[123] " || true
}
g=
for c in 0 1 2 3 4 5 6; do
	h2=$(held n2 "$c")
	if [ "$h2" -ge 2 ] && [ "$(held n1 "$c")" -lt "$h2" ] &&
	   [ "$(held n3 "$c")" -lt "$h2" ]; then
		g=$c
		break
	fi
done
if [ -n "$g" ]; then
	id=$(submit "$g")
	dl_cluster_wait_jobs_done 60
	dl_t_check "a job of group $g (cached on n2, more than elsewhere) ran on n2 with its files cached" \
		grep -q "started JobId=$id on n2 (planned n2: strict; [23]/3 files" "$log" ||
		grep -E "JobId=$id[^0-9]" "$log" | sed 's/^/    /' | tail -8
else
	dl_t_ok "no group held mostly on n2 to probe (skipped)"
fi
dl_t_summary
