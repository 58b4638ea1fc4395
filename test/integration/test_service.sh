#!/usr/bin/env bash
# shellcheck disable=SC2016 # conditions are eval'd by dl_t_check
# test_service.sh - the node cache service (dl-cached) on a cluster whose
# nodes keep their caches to themselves: every slurmd, its Prolog, its jobs
# and its dl-cached run in a mount namespace of their own with a private
# tmpfs as CacheDir (test/cluster/cluster.sh, DL_NODE_NS=1), so slurmctld
# learns a node's cache only through the service; the data directory is
# the shared storage.  4 nodes, CacheCapacity 6 MiB, files of 1-2 MiB.
#
#  (c) a job on n2 gets a file n1 holds from n1's cache: a peer copy,
#      counted as one (peer bytes), the source not read for it (inotify);
#  (e) hostile: a non-root client's FETCH and forged inventory are
#      refused, a FETCH for a user who cannot read the source is refused,
#      a replayed frame is refused on the same and on a new connection, a
#      frame announcing an over-limit body is refused, each with a log
#      line and no crash; a non-root user cannot use a node's local
#      socket;
#  (b) a job that waits in the queue finds its files prefetched: its
#      Prolog copies nothing;
#  (f) a #BB stage_in file is staged and found cached by its job;
#  (a) after an evicting workload, `sdatalocality files nX` equals what
#      each node's cache really holds (listed inside the node's namespace);
#  (d) a node service killed in the middle of a stream: every job
#      completes, no node is drained, and after the restart the model
#      equals the node's contents again.
#
# Needs DL_BUILD_DIR (plugins, dl-stage, dl-cached); runs as root; about
# 45 s.  Test-only helpers: dl_svc_client.c (built here against
# src/net), inotify_count.py.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${DL_BUILD_DIR:?set DL_BUILD_DIR to a build tree with the plugins}"
DL_STAGE=${DL_STAGE:-$DL_BUILD_DIR/dl-stage}
export DL_CACHED=${DL_CACHED:-$DL_BUILD_DIR/dl-cached}
# shellcheck source=../cluster/cluster.sh
source "$here/../cluster/cluster.sh"
# shellcheck source=lib.sh
source "$here/lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "test_service: needs root (namespaces, slurmd)"
	exit 77
fi
for b in "$DL_STAGE" "$DL_CACHED"; do
	[ -x "$b" ] || { echo "test_service: no $b"; exit 1; }
done

dl_t_use_build
export DL_NODES=4 DL_NODE_NS=1
export DL_PROLOG="$DL_STAGE" DL_EPILOG="$DL_STAGE"
export DL_CLUSTER_EXTRA_CONF="TaskProlog=$DL_STAGE"
sdl="$DL_BUILD_DIR/sdatalocality"
watchers=
cleanup() {
	local p
	for p in $watchers; do kill "$p" 2>/dev/null || true; done
	dl_cluster_stop
}
trap cleanup EXIT
dl_cluster_init
cat >"$DL_CLUSTER_DIR/etc/datalocality.conf" <<CONF
CacheDir=$DL_NODE_CACHE_DIR
CacheCapacity=6M
EvictionPolicy=lru
StorageBandwidth=4e6
PrefetchTimeout=120
$(dl_cluster_service_conf)
CONF
cdir=$DL_NODE_CACHE_DIR
data=$DL_CLUSTER_DIR/data
out=$DL_CLUSTER_DIR/out
bin=$DL_CLUSTER_DIR/bin
mkdir -p "$bin"
chmod 1777 "$out"
chmod 755 "$bin"
client=$bin/dl_svc_client
if ! cc -std=c11 -D_GNU_SOURCE -O1 -I "$top/src/net" -I "$top/src/libdatalocality" \
	"$here/dl_svc_client.c" "$top"/src/net/*.c "$top/src/libdatalocality/error.c" \
	"$top/src/libdatalocality/decimal.c" \
	-lmunge -o "$client"; then
	echo "test_service: cannot build dl_svc_client"
	exit 1
fi
export DL_MUNGE_SOCKET=$DL_CLUSTER_DIR/munge/munge.socket
dl_cluster_start

# Inputs: 8 groups of three 1 MiB files, a 2 MiB file for peer copies, a
# file only root may read, a file named by a burst-buffer directive.
for g in 0 1 2 3 4 5 6 7 d; do
	for f in 1 2 3; do dl_t_mkfile "$data/g$g/f$f" 1; done
done
dl_t_mkfile "$data/peer/big" 2
dl_t_mkfile "$data/secret/only-daemon" 1
dl_t_mkfile "$data/bb/in1" 1
chmod -R a+rX "$data"
# only user daemon (uid 1) may read it
chown daemon:daemon "$data/secret/only-daemon"
chmod 600 "$data/secret/only-daemon"
# The sums, taken now: reading a source later would count as a read of
# the storage in (c).
declare -A sum=()
for f in "$data"/peer/big "$data"/secret/only-daemon "$data"/bb/in1; do
	sum[$f]=$(sha256sum "$f" | cut -d' ' -f1)
done
# Files are changed "recently" for a second or two after they are written
# (dl-stage then checks them by content); the checks below start later.
sleep 2

nodes="n1 n2 n3 n4"
ns_log() { dl_cluster_node_exec "$1" cat "$cdir/.log" 2>/dev/null || true; }
# job_line ID : dl-stage's summary line for the job, from its node's log
job_line() {
	local n
	for n in $nodes; do ns_log "$n"; done | grep "job $1 on n[0-9]*: [0-9]* files: " | tail -1
}
# copied ID : how many files the job's Prolog copied (from anywhere)
copied() { job_line "$1" | sed -n 's/.*cached ([^)]*), \([0-9]*\) copied.*/\1/p'; }
# The node's real contents, read inside its namespace from its store.
real_files() {
	dl_cluster_node_exec "$1" "$DL_STAGE" --node "$1" inventory 2>/dev/null |
		awk '$1 != "SIZE" && $1 != "#" && NF >= 5 { print $NF }' | sort || true
}
meta_count() {
	dl_cluster_node_exec "$1" find "$cdir/store" -name '*.meta' 2>/dev/null | grep -c . || true
}
model_files() { "$sdl" files "$1" 2>/dev/null | tail -n +2 | awk '{ print $5 }' | sort || true; }
# node_field NODE KEY : a field of the node's service in `sdatalocality
# --json stats` (what slurmctld's state file says of it)
node_field() {
	"$sdl" --json stats 2>/dev/null | python3 -c '
import json, sys
node, key = sys.argv[1], sys.argv[2]
d = json.load(sys.stdin)
for n in d if isinstance(d, list) else (d.get("nodes") or []):
    if isinstance(n, dict) and n.get("name") == node:
        print(n.get(key, "")); break' "$1" "$2"
}
# inv_field NODE KEY : a counter of the .inventory header, in NODE's namespace
inv_field() {
	dl_cluster_node_exec "$1" cat "$cdir/.inventory" 2>/dev/null |
		sed -n "1s/.* $2=\([0-9]*\).*/\1/p" || true
}
# models_equal : 0 when the model of every node equals its real contents
models_equal() {
	local n bad=0
	for n in $nodes; do
		[ "$(real_files "$n")" = "$(model_files "$n")" ] || bad=1
	done
	return $bad
}
show_models() {
	local n r m
	for n in $nodes; do
		r=$(real_files "$n")
		m=$(model_files "$n")
		echo "  $n: cache holds $(grep -c . <<<"$r" || true) files ($(meta_count "$n") .meta), model $(grep -c . <<<"$m" || true)"
		# A difference is shown, not fatal: models_equal's check says it.
		[ "$r" = "$m" ] || diff <(echo "$r") <(echo "$m") | head -6 | sed 's/^/    /' || true
	done
}
# submit GROUP [SBATCH OPTIONS...] : a job of nobody reading the group
submit() {
	local g=$1
	shift
	sbatch --parsable --uid=nobody --gid=nogroup --chdir="$out" -o "$out/%j.out" "$@" \
		--comment="files:$data/g$g/f1,$data/g$g/f2,$data/g$g/f3" \
		--wrap "for f in $data/g$g/f1 $data/g$g/f2 $data/g$g/f3; do cat \"\$DL_CACHE_VIEW\$f\" >/dev/null || exit 1; done; sleep 0.5"
}
completed() { [ "$(dl_cluster_job_field "$1" JobState 2>/dev/null || true)" = COMPLETED ]; }
# watch PATH NAME : count reads of PATH from now on into $out/NAME.reads
watch() {
	python3 "$here/inotify_count.py" "$1" "$out/$2.reads" &
	watchers="$watchers $!"
	dl_t_wait_until 10 test -s "$out/$2.reads"
}
reads() { cat "$out/$1.reads" 2>/dev/null || echo '?'; }
all_services() {
	local n
	for n in $nodes; do dl_cluster_cached_pid "$n" >/dev/null || return 1; done
}

# connected NODE : NODE's dl-cached has a TCP connection to the
# controller's ServicePort (the network namespace is shared)
connected() {
	local pid
	pid=$(dl_cluster_cached_pid "$1") || return 1
	ss -Htnp state established "( dport = :$(dl_cluster_service_port) )" 2>/dev/null |
		grep -q "pid=$pid,"
}
all_connected() {
	local n
	for n in $nodes; do connected "$n" || return 1; done
}
dl_t_check "every node's service is connected to slurmctld's ServicePort" \
	dl_t_wait_until 20 all_connected

# --- (c) peer copy ---------------------------------------------------------
big=$data/peer/big
watch "$big" first
a=$(sbatch --parsable --uid=nobody --gid=nogroup --chdir="$out" -o "$out/%j.out" -w n1 \
	--comment="files:$big" --wrap "sha256sum \"\$DL_CACHE_VIEW$big\"")
dl_cluster_wait_jobs_done 60
dl_t_check "(c) job $a on n1 copied $big from the storage (read seen: $(reads first))" \
	eval 'completed $a && [ "$(copied $a)" = 1 ] && [ "$(reads first)" -gt 0 ]'
# the model learns n1's copy within about a second: wait (bounded)
dl_t_wait_until 10 eval 'model_files n1 | grep -qx "$big"' || true
peer0=$(inv_field n2 peer_bytes)
stor0=$(inv_field n2 storage_bytes)
watch "$big" second
b=$(sbatch --parsable --uid=nobody --gid=nogroup --chdir="$out" -o "$out/%j.out" -w n2 \
	--comment="files:$big" --wrap "sha256sum \"\$DL_CACHE_VIEW$big\"")
dl_cluster_wait_jobs_done 60
reads2=$(reads second) # before anything else could read it
# n2's counters and slurmctld's copy of them lag by a second or so
big_enough() { [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -ge $((2 << 20)) ]; }
dl_t_wait_until 10 eval 'big_enough "$(node_field n2 peer_bytes)"' || true
peer1=$(inv_field n2 peer_bytes)
stor1=$(inv_field n2 storage_bytes)
ctld_peer=$(node_field n2 peer_bytes || true)
echo "  job $b on n2: $(job_line "$b" | sed 's/.*: \([0-9]* files\)/\1/'); n2's cache: peer_bytes ${peer0:-none} -> $peer1, storage_bytes ${stor0:-none} -> $stor1; slurmctld's peer_bytes for n2: $ctld_peer; source reads $reads2"
dl_t_check "(c) job $b on n2 completed with the right bytes" \
	eval 'completed $b && [ "$(cut -d" " -f1 "$out/$b.out")" = "${sum[$big]}" ]'
dl_t_check "(c) ... its Prolog got the file copied into n2's cache" \
	eval '[ "$(copied $b)" = 1 ] && real_files n2 | grep -qx "$big"'
dl_t_eq "(c) ... and the source was not read for it" 0 "$reads2"
# n2 had no .inventory before its first copy: counters from 0.
peer0=${peer0:-0} stor0=${stor0:-0}
dl_t_check "(c) ... counted as a peer copy on n2: its peer_bytes grew by the size, its storage_bytes did not" \
	eval '[[ $peer1 =~ ^[0-9]+$ && $stor1 =~ ^[0-9]+$ ]] &&
		[ $((peer1 - peer0)) -ge $((2 << 20)) ] && [ "$stor1" = "$stor0" ]'
dl_t_check "(c) ... and slurmctld counts it (sdatalocality --json stats: n2's peer_bytes)" \
	eval '[[ $ctld_peer =~ ^[0-9]+$ ]] && [ "$ctld_peer" -ge $((2 << 20)) ]'

# --- (e) hostile -----------------------------------------------------------
p1=$(dl_cluster_peer_port n1)
asnobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
# Requests come from a root service acting for a job's user (nobody).
r=$("$client" fetch 127.0.0.1 "$p1" 65534 65534 nobody "$big" 2>&1 || true)
dl_t_eq "(e) control: a root client's FETCH of a file n1 holds is served, right bytes" \
	"ok $((2 << 20)) ${sum[$big]}" "$r"
r=$(asnobody env DL_MUNGE_SOCKET="$DL_MUNGE_SOCKET" "$client" fetch 127.0.0.1 "$p1" 65534 65534 nobody "$big" 2>&1 || true)
echo "  nobody's FETCH: $r"
dl_t_check "(e) a FETCH signed by a non-root user is refused (connection closed)" \
	eval '[[ $r == closed* ]]'
dl_t_check "(e) ... with a line in n1's service log naming uid 65534" \
	grep -q '65534' "$DL_CLUSTER_DIR/log/cached.n1.out"
fake=$data/g7/forged
r=$(asnobody env DL_MUNGE_SOCKET="$DL_MUNGE_SOCKET" "$client" inv 127.0.0.1 \
	"$(dl_cluster_service_port)" n4 "$fake" 1048576 2>&1 || true)
# refused and logged (bounded wait): then the model is checked
dl_t_wait_until 10 grep -q 'refused.*65534' "$(dl_cluster_log_ctld)" || true
echo "  nobody's HELLO/INV for n4: $r"
dl_t_check "(e) a non-root client's inventory for n4 is refused, the model unchanged" \
	eval '[[ $r == closed* ]] && ! model_files n4 | grep -qx "$fake"'
dl_t_check "(e) ... with a line in slurmctld's log naming uid 65534" \
	grep -q 'refused.*65534' "$(dl_cluster_log_ctld)"
dl_t_check "(e) no service died of it" all_services
# A file only daemon may read, cached on n1 by a job of daemon.
sec=$data/secret/only-daemon
s=$(sbatch --parsable --uid=daemon --gid=daemon --chdir="$out" -o "$out/%j.out" -w n1 --comment="files:$sec" \
	--wrap "cat \"\$DL_CACHE_VIEW$sec\" >/dev/null")
dl_cluster_wait_jobs_done 60
dl_t_check "(e) daemon's job $s cached $sec on n1" eval 'completed $s && real_files n1 | grep -qx "$sec"'
r=$("$client" fetch 127.0.0.1 "$p1" 65534 65534 nobody "$sec" 2>&1 || true)
echo "  FETCH of $sec for nobody: $r"
dl_t_check "(e) a FETCH for a user who cannot read the source is refused" \
	eval '[[ $r == refused* ]]'
r=$("$client" fetch 127.0.0.1 "$p1" 1 1 daemon "$sec" 2>&1 || true)
dl_t_eq "(e) control: the same FETCH for daemon is served" \
	"ok $((1 << 20)) ${sum[$sec]}" "$r"
rej0=$(grep -c 'rejected' "$DL_CLUSTER_DIR/log/cached.n1.out" || true)
r=$("$client" replay 127.0.0.1 "$p1" 65534 65534 nobody "$big" 2>&1 || true)
echo "$r" | sed 's/^/  replay: /'
rej1=$(grep -c 'rejected' "$DL_CLUSTER_DIR/log/cached.n1.out" || true)
dl_t_check "(e) a replayed FETCH is not served again, on the same connection or a new one" \
	eval 'grep -q "^first: ok " <<<"$r" && grep -q "^same: closed" <<<"$r" && grep -q "^new: closed" <<<"$r"'
dl_t_check "(e) ... and n1's service logged the rejection ($rej0 -> $rej1 'rejected' lines)" \
	eval '[ "$rej1" -gt "$rej0" ]'
for port in "$p1" "$(dl_cluster_service_port)"; do
	r=$("$client" oversized 127.0.0.1 "$port" 2>&1 || true)
	dl_t_check "(e) a frame announcing a body over 8 MiB is refused on port $port ($r)" \
		eval '[[ $r == closed* ]]'
done
dl_t_check "(e) ... with a log line of n1's service and of slurmctld each" \
	eval 'grep -q "over the limit" "$DL_CLUSTER_DIR/log/cached.n1.out" &&
		grep -q "over the limit" "$(dl_cluster_log_ctld)"'
r=$(dl_cluster_node_exec n1 setpriv --reuid=65534 --regid=65534 --clear-groups \
	/usr/bin/python3 -c "
import socket
s = socket.socket(socket.AF_UNIX)
try:
    s.connect('$cdir/.sock')
    print('connected')
except PermissionError:
    print('denied')
except OSError as e:
    print('error', e)" 2>&1 | tail -1 || true)
dl_t_eq "(e) a non-root user on n1 cannot connect to its service's local socket" denied "$r"
dl_t_check "(e) every service is still running" all_services

# --- (b) prefetch while the job waits ---------------------------------------
# All four nodes busy for 8 s; a job of group 0 waits meanwhile.
blockers=()
for n in $nodes; do
	blockers+=("$(sbatch --parsable -o /dev/null -w "$n" --wrap 'sleep 8')")
done
dl_t_wait_until 10 eval '[ "$(squeue -h -t R | wc -l)" = 4 ]' || true
w=$(submit 0)
reason=$(dl_t_wait_reason "$w" 'prefetch' 8 || true)
dl_cluster_wait_jobs_done 90
echo "  job $w: $(job_line "$w" | sed 's/.*: \([0-9]* files\)/\1/')${reason:+; while waiting: $reason}"
dl_t_check "(b) the waiting job $w completed" completed "$w"
dl_t_check "(b) ... its 3 files were cached when it started, its Prolog copied nothing" \
	eval 'job_line $w | grep -q ": 3 files: 3 cached " && [ "$(copied $w)" = 0 ]'

# --- (f) #BB stage_in --------------------------------------------------------
bbf=$data/bb/in1
cat >"$out/bb.sh" <<EOF
#!/bin/sh
#BB stage_in source=$bbf destination=\$DW_JOB_STRIPED/in1 type=file
v=\$DL_CACHE_VIEW$bbf
if [ -n "\$DL_CACHE_VIEW" ] && [ -f "\$v" ] && [ ! -L "\$v" ]; then echo kind=cached; else echo "kind=missing (view '\$DL_CACHE_VIEW')"; fi
sha256sum "\$DL_CACHE_VIEW$bbf" | cut -d' ' -f1
EOF
f=$(sbatch --parsable --uid=nobody --gid=nogroup --chdir="$out" -o "$out/%j.out" "$out/bb.sh" 2>&1 || true)
if [[ $f =~ ^[0-9]+$ ]]; then
	dl_cluster_wait_jobs_done 60
	fnode=$(dl_cluster_job_field "$f" NodeList || true)
	echo "  job $f on $fnode: $(head -1 "$out/$f.out" 2>/dev/null); $(job_line "$f" | sed 's/.*: \([0-9]* files\)/\1/')"
	dl_t_check "(f) the #BB stage_in job $f found its file in the cache, right bytes" \
		eval 'completed $f && grep -qx kind=cached "$out/$f.out" && grep -qx "${sum[$bbf]}" "$out/$f.out"'
	dl_t_check "(f) ... its node's cache holds it" eval 'real_files "$fnode" | grep -qx "$bbf"'
else
	dl_t_fail "(f) sbatch refused the #BB stage_in job: $f"
fi

# --- (a) an evicting workload; the model equals the caches ------------------
# 24 jobs over 8 groups of 3 MiB on 4 nodes of 6 MiB: evictions happen.
for _ in 1 2 3; do
	for g in 0 1 2 3 4 5 6 7; do submit "$g" >/dev/null; done
done
dl_cluster_wait_jobs_done 180
dl_t_eq "(a) no job failed" 0 "$(scontrol show job -o | grep -v -c 'JobState=COMPLETED' || true)"
dl_t_check "(a) evictions happened on the nodes" \
	eval 'for n in $nodes; do ns_log $n; done | grep -q "evicted [1-9]"'
dl_t_wait_until 5 models_equal || true
show_models
dl_t_check "(a) sdatalocality files nX equals the real contents of every node" models_equal
dl_t_check "(a) the host sees nothing in the cache dir" eval '[ -z "$(ls -A "$cdir")" ]'

# --- (d) a service killed in the middle of a stream --------------------------
ids=()
for _ in 1 2; do
	for g in 7 6 5 4 3 2 1 0; do ids+=("$(submit "$g")"); done
done
dl_t_wait_until 20 eval '[ "$(squeue -h -t R | wc -l)" -ge 2 ]' || true
victim=n3
old=$(dl_cluster_cached_pid $victim || echo none)
dl_cluster_stop_cached $victim --kill
echo "  killed dl-cached of $victim (pid $old) with $(squeue -h -t PD,R | wc -l) jobs left"
# shellcheck disable=SC2034 # used in an eval below
before=$(real_files $victim)
dl_t_check "(d) slurmctld notices the lost service (sdatalocality stats: not connected)" \
	dl_t_wait_until 5 eval '[ "$(node_field $victim connected)" = False ]'
# While the service is down, a job on the node stages through the direct
# path (dl-stage's fallback): the node's cache changes behind the
# controller's back.
down=$(submit d -w $victim)
dl_t_wait_until 60 eval 'completed $down' || true
dl_t_check "(d) a job on $victim ran while its service was down" completed "$down"
dl_t_check "(d) ... and changed $victim's cache" eval '[ "$(real_files $victim)" != "$before" ]'
dl_t_check "(d) dl-cached of $victim restarts" dl_cluster_start_cached $victim
dl_t_check "(d) ... and connects to slurmctld again" dl_t_wait_until 40 connected $victim
dl_cluster_wait_jobs_done 180 || true
bad=0
for id in "${ids[@]}"; do completed "$id" || bad=$((bad + 1)); done
dl_t_eq "(d) every job of the stream completed" 0 "$bad"
dl_t_eq "(d) no node is drained or down" "" \
	"$(sinfo -h -N -o '%N %T' | grep -Ei 'drain|down|fail' || true)"
dl_t_wait_until 5 models_equal || true
show_models
dl_t_check "(d) after the restart the model equals every node's contents again" models_equal

dl_t_summary
