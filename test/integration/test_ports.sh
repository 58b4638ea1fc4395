#!/usr/bin/env bash
# test_ports.sh - the controller's ServicePort against hostile users
# (issue 27, findings 1 and 2), with the real node cache service on two
# nodes; the attacks run as the unprivileged user nobody:
#  (a) 40 idle connections to ServicePort, reopened as soon as closed,
#      neither keep a restarted node service out nor make slurmctld busy;
#  (b) a user who holds ServicePort while slurmctld restarts receives no
#      HELLO and no inventory (the node services wait for the controller
#      to prove itself first), and slurmctld, which keeps trying to
#      listen, takes the port once the user lets it go; the services then
#      connect again.
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
declare -A cached_pid=()
attackers=()
stop_all() {
	local p
	for p in "${attackers[@]}" "${cached_pid[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	for p in "${attackers[@]}" "${cached_pid[@]}"; do
		wait "$p" 2>/dev/null || true
	done
}
trap 'stop_all; dl_cluster_stop' EXIT
dl_cluster_init
port=$((20000 + RANDOM % 20000))
cat >"$DL_CLUSTER_DIR/etc/datalocality.conf" <<CONF
CacheDir=$DL_CLUSTER_DIR/cache/%n
CacheCapacity=50M
ServicePort=$port
MungeSocket=$DL_CLUSTER_DIR/munge/munge.socket
ServiceController=127.0.0.1
CONF
dl_cluster_start
export SLURM_CONF=$DL_CLUSTER_DIR/etc/slurm.conf
log=$(dl_cluster_log_ctld)
data=$DL_CLUSTER_DIR/data
mkdir -p "$data/secret"
dl_t_mkfile "$data/secret/private-file-name" 1
chmod 0700 "$data/secret"
# (the attacker's helper must be readable by nobody)
cp "$here/port_attacker.py" "$DL_CLUSTER_DIR/attacker.py"
chmod 0755 "$DL_CLUSTER_DIR" "$DL_CLUSTER_DIR/attacker.py"
out=$DL_CLUSTER_DIR/out
mkdir -p "$out"
chmod 0777 "$out"
# a command, not a function: $! of "${nobody[@]}" ... & is the attacker
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)

start_service() { # NODE
	local n=${1#n}
	mkdir -p "$DL_CLUSTER_DIR/cache/$1"
	"$DL_BUILD_DIR/dl-cached" -N "$1" -P $((port + 10 + n)) -a 127.0.0.1 \
		-c 127.0.0.1 -D >>"$DL_CLUSTER_DIR/log/cached.$1.log" 2>&1 &
	cached_pid[$1]=$!
}
stop_service() { # NODE
	kill "${cached_pid[$1]}" 2>/dev/null || true
	wait "${cached_pid[$1]}" 2>/dev/null || true
	unset "cached_pid[$1]"
}
connected_after() { # NODE LINE: its inventory arrived after line LINE
	tail -n +"$2" "$log" | grep -q "node $1 service connected"
}
# A process' CPU time so far, in clock ticks (utime + stime).
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

start_service n1
start_service n2
dl_t_check "both services connected" \
	dl_t_wait_until 60 bash -c "grep -q 'node n1 service connected' '$log' && grep -q 'node n2 service connected' '$log'"
# the node caches a file of a private directory
sbatch -w n1 -o /dev/null --comment="files:$data/secret/private-file-name" \
	--wrap true >/dev/null
dl_cluster_wait_jobs_done 120

# --- (a) -----------------------------------------------------------------
ctld=$(cat "$DL_CLUSTER_DIR/run/slurmctld.pid")
idle0=$(cpu_ticks "$ctld")
sleep 10
idle=$(($(cpu_ticks "$ctld") - idle0))
"${nobody[@]}" /usr/bin/python3 "$DL_CLUSTER_DIR/attacker.py" hold "$port" 40 \
	>"$out/hold.out" 2>&1 &
attackers+=($!)
dl_t_check "(a) the attacker holds 40 idle connections" \
	dl_t_wait_until 60 grep -q ready "$out/hold.out"
stop_service n1
mark=$(($(wc -l <"$log") + 1))
t0=$SECONDS
tmark=$SECONDS
start_service n1
dl_t_check "(a) n1's restarted service connects through the flood" \
	dl_t_wait_until 60 connected_after n1 "$mark"
echo "  n1 reconnected after $((SECONDS - t0)) s"
busy0=$(cpu_ticks "$ctld")
sleep 10
busy=$(($(cpu_ticks "$ctld") - busy0))
echo "  slurmctld CPU over 10 s: $idle ticks idle, $busy under the flood"
# Counted in clock ticks (1/100 s); a few ticks of slack for a busy host.
dl_t_check "(a) slurmctld's CPU under the flood stays near idle ($idle -> $busy ticks)" \
	test "$busy" -le $((idle * 3 / 2 + 20))
lines=$(tail -n +"$mark" "$log" | grep -c 'silent for\|are authenticating already' || true)
dl_t_check "(a) the flood is logged, at most once per 10 s ($lines lines in $((SECONDS - tmark)) s)" \
	test "$lines" -ge 1 -a "$lines" -le $(((SECONDS - tmark) / 10 + 2))
kill "${attackers[0]}" 2>/dev/null || true
wait "${attackers[0]}" 2>/dev/null || true
attackers=()

# --- (b) -----------------------------------------------------------------
mark=$(($(wc -l <"$log") + 1))
: >"$out/squat.bytes"
chmod 0666 "$out/squat.bytes"
dl_cluster_restart_slurmctld --no-wait --while-down \
	"\"\${nobody[@]}\" /usr/bin/python3 '$DL_CLUSTER_DIR/attacker.py' squat $port '$out/squat.bytes' >'$out/squat.out' 2>&1 & attackers+=(\$!); dl_t_wait_until 30 grep -q ready '$out/squat.out'"
dl_t_check "(b) slurmctld says the port is taken and keeps trying" \
	dl_t_wait_until 60 bash -c "tail -n +$mark '$log' | grep -q 'ServicePort $port: .*trying again'"
# the services' reconnection attempts (backoff up to 30 s) reach the squatter
dl_t_check "(b) the node services tried the squatter's port" \
	dl_t_wait_until 90 test -s "$out/squat.bytes"
sleep 5
dl_t_check "(b) the squatter received no HELLO and no inventory" \
	bash -c "! grep -a -q -e 'node=' -e 'private-file-name' -e 'peer=' '$out/squat.bytes'"
kill "${attackers[0]}" 2>/dev/null || true
wait "${attackers[0]}" 2>/dev/null || true
attackers=()
t0=$SECONDS
dl_t_check "(b) slurmctld listens once the port is free" \
	dl_t_wait_until 60 bash -c "tail -n +$mark '$log' | grep -q 'listening on ServicePort $port at last'"
echo "  slurmctld listened $((SECONDS - t0)) s after the port was freed"
dl_t_check "(b) both services connect again" \
	dl_t_wait_until 90 bash -c "connected_after() { tail -n +\"\$2\" '$log' | grep -q \"node \$1 service connected\"; }; connected_after n1 $mark && connected_after n2 $mark"
dl_t_summary
