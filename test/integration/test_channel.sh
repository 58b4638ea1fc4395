#!/usr/bin/env bash
# test_channel.sh - the controller's end of the node channel, with the real
# node cache service (dl-cached) on two nodes:
#  (a) both services connect and the model of each node becomes what it
#      reports; a service claiming a node slurmctld does not know is
#      refused with a log line;
#  (b) a flood of idle connections is capped, and once it is gone
#      slurmctld holds as many descriptors and threads as before it;
#  (c) scontrol reconfigure with the same settings keeps the connections;
#  (d) a killed service leaves its node's cache unknown (model kept), and
#      the restarted service's full inventory replaces it (resync);
#  (e) a job waiting for its node gets its missing file prefetched there:
#      the node's Prolog copies nothing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${DL_BUILD_DIR:?set DL_BUILD_DIR to a build tree with the plugins}"
DL_STAGE=${DL_STAGE:-$DL_BUILD_DIR/dl-stage}
# shellcheck source=../cluster/cluster.sh
source "$here/../cluster/cluster.sh"
# shellcheck source=lib.sh
source "$here/lib.sh"

dl_t_use_build
export DL_NODES=2
export DL_PROLOG="$DL_STAGE" DL_EPILOG="$DL_STAGE"
export DL_CLUSTER_EXTRA_CONF="TaskProlog=$DL_STAGE"
sdl="$DL_BUILD_DIR/sdatalocality"
declare -A cached_pid=()
stop_services() {
	local p
	for p in "${cached_pid[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${cached_pid[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap 'stop_services; dl_cluster_stop' EXIT
dl_cluster_init
port=$((20000 + RANDOM % 20000))
cat >"$DL_CLUSTER_DIR/etc/datalocality.conf" <<CONF
CacheDir=$DL_CLUSTER_DIR/cache/%n
CacheCapacity=50M
ServicePort=$port
MungeSocket=$DL_CLUSTER_DIR/munge/munge.socket
ServiceController=127.0.0.1
StorageBandwidth=1e7
CONF
dl_cluster_start
export SLURM_CONF=$DL_CLUSTER_DIR/etc/slurm.conf
log=$(dl_cluster_log_ctld)
ctld=$(cat "$DL_CLUSTER_DIR/run/slurmctld.pid")
data=$DL_CLUSTER_DIR/data
for f in a b c; do dl_t_mkfile "$data/$f" 2; done
chmod -R a+rX "$data"

start_service() { # NODE
	local n=${1#n}
	mkdir -p "$DL_CLUSTER_DIR/cache/$1"
	"$DL_BUILD_DIR/dl-cached" -N "$1" -P $((port + 10 + n)) -a 127.0.0.1 \
		-c 127.0.0.1 -D >>"$DL_CLUSTER_DIR/log/cached.$1.log" 2>&1 &
	cached_pid[$1]=$!
}
connected() { # NODE: its full inventory arrived after line $2 of the log
	tail -n +"${2:-1}" "$log" | grep -q "node $1 service connected"
}
model() { "$sdl" files "$1" | tail -n +2 | awk '{ print $5 }' | sort; }
real() {
	grep -v '^#' "$DL_CLUSTER_DIR/cache/$1/.inventory" 2>/dev/null |
		awk '{ print $1 }' | sort
}
same() { [ "$(real "$1")" = "$(model "$1")" ]; } # NODE: model is the cache
counts() { echo "$(ls /proc/"$ctld"/fd | wc -l) $(ls /proc/"$ctld"/task | wc -l)"; }
fdlist() { ls -l /proc/"$ctld"/fd | awk '{ print $NF }' | sort; }

# --- (a) ---------------------------------------------------------------
start_service n1
start_service n2
dl_t_check "(a) both services connected" \
	dl_t_wait_until 10 bash -c "grep -q 'node n1 service connected' '$log' && grep -q 'node n2 service connected' '$log'"
"$DL_BUILD_DIR/dl-cached" -N n9 -P $((port + 19)) -a 127.0.0.1 -c 127.0.0.1 \
	-D >"$DL_CLUSTER_DIR/log/cached.n9.log" 2>&1 &
n9=$!
dl_t_check "(a) a service claiming an unknown node is refused" \
	dl_t_wait_until 10 grep -q "says it is node n9, which slurmctld does not know" "$log"
kill "$n9" 2>/dev/null || true
wait "$n9" 2>/dev/null || true
sbatch --parsable -w n1 -o /dev/null --comment="files:$data/a,$data/b" --wrap true >/dev/null
sbatch --parsable -w n2 -o /dev/null --comment="files:$data/c" --wrap true >/dev/null
dl_cluster_wait_jobs_done 60
# The state file is saved at most once a second: wait for the models.
for n in n1 n2; do
	dl_t_wait_until 10 same $n || true
	dl_t_eq "(a) $n: the model is what the node caches" "$(real $n | tr '\n' ' ')" "$(model $n | tr '\n' ' ')"
done
dl_t_check "(a) stats: n1's model comes from its service" \
	bash -c "'$sdl' stats | grep -q 'n1: model from service, service connected'"

# --- (b) ---------------------------------------------------------------
# After the first plans: the partitioner helper's pipes are there too.
before=$(counts)
fdlist >"$DL_CLUSTER_DIR/log/fds.before"
flood=()
for _ in $(seq 1 40); do
	(exec 3<>/dev/tcp/127.0.0.1/$port && sleep 4) 2>/dev/null &
	flood+=($!)
done
sleep 1
read -r fds threads <<<"$(counts)"
dl_t_check "(b) a flood of 40 idle connections is capped (threads $threads)" \
	test "$threads" -le $(($(echo "$before" | cut -d' ' -f2) + 16 + 2))
for p in "${flood[@]}"; do wait "$p" 2>/dev/null || true; done
sbatch --parsable -w n1 -o /dev/null --comment="files:$data/c" --wrap true >/dev/null
dl_cluster_wait_jobs_done 60
# The refused handshakes end within 10 s each.  A sample may catch the
# state file being saved (once a second) or a child's pipes for an
# instant: a leak is what stays, so sample until it matches, for 10 s
# (times DL_TIME_SCALE: a busy host closes them late).
sleep 11
after=$(counts)
for _ in $(seq 1 $((20 * DL_TIME_SCALE))); do
	[ "$after" = "$before" ] && break
	sleep 0.5
	after=$(counts)
done
fdlist >"$DL_CLUSTER_DIR/log/fds.after"
diff "$DL_CLUSTER_DIR/log/fds.before" "$DL_CLUSTER_DIR/log/fds.after" || true
dl_t_eq "(b) descriptors and threads are back to what they were" "$before" "$after"
stop_services
cached_pid=()
dl_t_wait_until 10 bash -c "[ \$(grep -c 'service disconnected' '$log') -ge 2 ]" || true

# --- (c) and (d) ----------------------------------------------------------
mark=$(($(wc -l <"$log") + 1))
start_service n1
start_service n2
dl_t_check "(d) restarted services resync" \
	dl_t_wait_until 10 bash -c "tail -n +$mark '$log' | grep -c 'service connected' | grep -qx 2"
mark=$(($(wc -l <"$log") + 1))
scontrol reconfigure
sleep 3
dl_t_check "(c) reconfigure keeps the connections" \
	bash -c "! tail -n +$mark '$log' | grep -q 'service disconnected'"
kill "${cached_pid[n2]}"
wait "${cached_pid[n2]}" 2>/dev/null || true
dl_t_check "(d) a killed service: its node's cache is unknown" \
	dl_t_wait_until 10 grep -q "node n2 service disconnected: cache unknown" "$log"
# On one host slurmctld can read the node's inventory file: that is the
# fallback it then uses (on a real cluster the model stays "unknown").
dl_t_check "(d) stats says so" \
	dl_t_wait_until 10 bash -c "sleep 1.2; '$sdl' stats | grep -Eq 'n2: model from (unknown|inventory), service disconnected'"
dl_t_eq "(d) ... and its last model is kept" "$(real n2 | tr '\n' ' ')" "$(model n2 | tr '\n' ' ')"
mark=$(($(wc -l <"$log") + 1))
start_service n2
dl_t_check "(d) the restarted service's inventory replaces it" \
	dl_t_wait_until 10 bash -c "tail -n +$mark '$log' | grep -q 'node n2 service connected'"
dl_t_wait_until 10 same n2 || true
dl_t_eq "(d) n2: the model is what the node caches after the resync" "$(real n2 | tr '\n' ' ')" "$(model n2 | tr '\n' ' ')"

# --- (e) ---------------------------------------------------------------
# Both nodes busy (running, not just submitted) for long enough that the
# job below waits, placed, while a busy host is slow.
busy=$((5 * DL_TIME_SCALE))
b1=$(sbatch --parsable -w n1 -o /dev/null --wrap "sleep $busy")
b2=$(sbatch --parsable -w n2 -o /dev/null --wrap "sleep $busy")
dl_t_wait_state "$b1" RUNNING 30 || true
dl_t_wait_state "$b2" RUNNING 30 || true
dl_t_mkfile "$data/d" 2
chmod a+r "$data/d"
j=$(sbatch --parsable -o /dev/null --comment="files:$data/a,$data/b,$data/c,$data/d" --wrap true)
dl_t_check "(e) the waiting job's files are prefetched on its node" \
	dl_t_wait_until 15 grep -q "prefetch job $j: 4 files on n1" "$log"
dl_cluster_wait_jobs_done 60
dl_t_eq "(e) it ran on n1" n1 "$(dl_cluster_job_field "$j" NodeList)"
dl_t_check "(e) its Prolog copied nothing" \
	grep -q "job $j: 4 files, 4 cached, 0 copied" "$DL_CLUSTER_DIR/log/cached.n1.log"
dl_t_summary
