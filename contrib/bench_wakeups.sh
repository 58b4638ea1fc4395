#!/usr/bin/env bash
# bench_wakeups.sh - how often an idle slurmctld's threads wake up, with
# sched/datalocality and a node service (dl-cached) connected on each of 4
# nodes, nothing submitted: for each BUILD in turn, a local cluster (the
# test harness, dl_t_use_services) is started, SECS s (30) after all 4
# services are connected the voluntary context switches of every thread
# of slurmctld are read twice, SECS s apart, and the cluster is stopped.
# Printed per build: the threads sleeping in poll() at the second reading
# (the node channel's listener and one per connection, and Slurm's own)
# and their wakeups a second, and all threads' wakeups a second.  A count,
# not a time: the host's load barely moves it.
#
#   contrib/bench_wakeups.sh BUILD [BUILD...]       (about a minute each; root)
#
# Issue 25: the channel's listener woke every 250 ms and each connection's
# thread every second; with one 100,000-task array pending these were most
# of what the idle controller cost over sched/backfill (doc/benchmarks.md).
#
# Also printed: the agent thread's wakeups a second and CPU time
# (/proc/.../schedstat, to the ns) a second and per wakeup, if it is named
# dl_agent (dl_agent.c names it; a build before does not: "-").  With
# ARRAY=N (0), the 4 nodes are first filled with a long job each and an
# array of N tasks is left pending, so that the agent is idle with a queue.
# BUSY_MIN (1440): the long jobs' time limit in minutes; 1420 puts the
# array in reach of sched/backfill's 1-day window, whose passes then move
# Slurm's job stamp every bf_interval (bench_pending.sh says more).
# BF_INTERVAL (the test harness's 1): sched/backfill's bf_interval, 5 for
# bench_pending.sh's setting.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
SECS=${SECS:-30}
ARRAY=${ARRAY:-0}
BUSY_MIN=${BUSY_MIN:-1440}
[ $# -ge 1 ] || { echo "usage: $0 BUILD [BUILD...]" >&2; exit 2; }

# With PROFILE=DIR, the agent thread is then recorded for SECS s more
# (perf record -F PERF_FREQ (10000) --call-graph dwarf), into
# DIR/agent-N.data for the Nth BUILD: where an idle agent's wakeups go.
PROFILE=${PROFILE:-}
nth=0

# one BUILD: its line of figures
one() (
	export DL_BUILD_DIR=$1 DL_CLUSTER_QUIET=1
	# shellcheck source=../test/cluster/cluster.sh
	source "$top/test/cluster/cluster.sh"
	# shellcheck source=../test/integration/lib.sh
	source "$top/test/integration/lib.sh"
	dl_t_use_services bench_wakeups 4
	[ -z "${BF_INTERVAL:-}" ] || export DL_SCHED_PARAMS=bf_interval=$BF_INTERVAL
	trap dl_cluster_stop EXIT
	dl_cluster_init
	cat >"$DL_CLUSTER_DIR/etc/datalocality.conf" <<CONF
CacheDir=$DL_NODE_CACHE_DIR
CacheCapacity=6M
$(dl_cluster_service_conf)
CONF
	# A pending array's tasks count against MaxJobCount (10,000 by default).
	[ "$ARRAY" -le 1000 ] ||
		printf 'MaxArraySize=%d\nMaxJobCount=%d\n' "$((ARRAY + 1))" \
			"$((2 * ARRAY + 1000))" >>"$DL_CLUSTER_DIR/etc/slurm.conf"
	export DL_MUNGE_SOCKET=$DL_CLUSTER_DIR/munge/munge.socket
	# shellcheck disable=SC2119 # no arguments: the environment says all
	dl_cluster_start
	local port pid a b
	port=$(dl_cluster_service_port)
	conns() { ss -Htn state established "( sport = :$port )" 2>/dev/null | wc -l; }
	for _ in $(seq 1 120); do
		[ "$(conns)" -ge 4 ] && break
		sleep 1
	done
	if [ "$ARRAY" -gt 0 ]; then
		for _ in 1 2 3 4; do
			sbatch -Q -o /dev/null -t "$BUSY_MIN" --exclusive --wrap 'sleep 86400' >/dev/null
		done
		sbatch -Q -o /dev/null -t 10 --array=0-$((ARRAY - 1)) --wrap 'sleep 1' >/dev/null
	fi
	pid=$(cat "$DL_CLUSTER_DIR/run/slurmctld.pid")
	# thread, voluntary switches, the system call it sleeps in, CPU ns, name
	snap() {
		local t
		for t in /proc/"$pid"/task/*; do
			echo "${t##*/} $(awk '/^voluntary_ctxt_switches/ { print $2 }' "$t/status") $(cut -d' ' -f1 "$t/syscall") $(cut -d' ' -f1 "$t/schedstat") $(cat "$t/comm")"
		done | sort
	}
	sleep "$SECS"
	a=$(snap)
	sleep "$SECS"
	b=$(snap)
	# joined: tid, then switches, syscall, CPU ns, name of each reading
	join <(echo "$a") <(echo "$b") | awk -v s="$SECS" -v c="$(conns)" -v bd="$1" -v arr="$ARRAY" '
		{ d = $6 - $2; all += d; if ($7 == 7) { n++; w += d }
		  # the first thread of that name: those it starts inherit it
		  if ($9 == "dl_agent" && (!ag || $1 + 0 < at)) { ag = 1; at = $1 + 0; aw = d; ac = $8 - $4 } }
		END { printf "%-40s array %d services %d  in poll(): %d threads, %.2f wakeups/s  all threads: %.2f wakeups/s  agent thread: ",
			bd, arr, c, n, w / s, all / s
		      if (ag) printf "%.2f wakeups/s, %.1f us CPU/s, %.1f us/wakeup\n", aw / s, ac / s / 1000, aw ? ac / aw / 1000 : 0
		      else print "-" }'
	[ -n "$PROFILE" ] || return 0
	local tid
	tid=$(grep -l '^dl_agent$' /proc/"$pid"/task/*/comm | head -1 | cut -d/ -f5)
	mkdir -p "$PROFILE"
	perf record -q -F "${PERF_FREQ:-10000}" --call-graph dwarf -t "$tid" \
		-o "$PROFILE/agent-$nth.data" -- sleep "$SECS" >/dev/null 2>&1 ||
		echo "bench_wakeups: perf record failed" >&2
)

for b in "$@"; do
	nth=$((nth + 1))
	one "$(cd "$b" && pwd)"
done
