#!/usr/bin/env bash
# test_staging.sh - dl-stage as slurmd's Prolog, Epilog and TaskProlog on a
# real local Slurm cluster (2 nodes, sched/datalocality), jobs running as
# the unprivileged user nobody.
#
#  (a) jobs read their input files through $DL_CACHE_VIEW: same bytes as
#      the source, hard links into the node's cache, gone after the job;
#  (b) a second wave finds its files cached (dl-stage's log, inventory);
#  (c) CacheCapacity holds, sampled while jobs run, and every job still
#      reads the right bytes while files are evicted;
#  (d) a job whose user cannot read an input fails with a clear message in
#      its output, and its node stays in service (not drained);
#  (e) .inventory lists what the node caches; dl-stage check passes;
#  (f) an unsafe cache directory fails nothing (issue 29): the job reads
#      its sources and completes, the node stays in service, slurmd's log
#      says why; only when the job's storage is not there either is the
#      node unable to run it: Prolog error, drained, and the log says why.
#
# Needs DL_BUILD_DIR: a build tree configured --with-slurm-source (plugins
# in $DL_BUILD_DIR/.libs, dl-partitiond); DL_STAGE names the dl-stage
# binary (default $DL_BUILD_DIR/dl-stage).  Runs as root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${DL_BUILD_DIR:?set DL_BUILD_DIR to a build tree with the plugins}"
DL_STAGE=${DL_STAGE:-$DL_BUILD_DIR/dl-stage}
# shellcheck source=../cluster/cluster.sh
source "$here/../cluster/cluster.sh"
# shellcheck source=lib.sh
source "$here/lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "test_staging: needs root (slurmd runs the Prolog as root)"
	exit 77
fi
[ -x "$DL_STAGE" ] || { echo "test_staging: no dl-stage at $DL_STAGE"; exit 1; }
# The TaskProlog runs as the job's user: the binary must be reachable.
su nobody -s /bin/sh -c "test -x '$DL_STAGE'" ||
	{ echo "test_staging: nobody cannot execute $DL_STAGE"; exit 1; }

export DL_SCHED_TYPE=sched/datalocality
export DL_SCHED_PARAMS=bf_interval=1
export DL_JOB_SUBMIT=datalocality
export DL_PLUGIN_DIR="$DL_BUILD_DIR/.libs"
export DL_PARTITIOND="$DL_BUILD_DIR/dl-partitiond"
export DL_NODES=2
# slurmd runs Prolog=/Epilog=/TaskProlog= without arguments: dl-stage takes
# its mode from SLURM_SCRIPT_CONTEXT.
export DL_PROLOG="$DL_STAGE" DL_EPILOG="$DL_STAGE"
export DL_CLUSTER_EXTRA_CONF="TaskProlog=$DL_STAGE"
CAP=$((10 * 1048576))
trap dl_cluster_stop EXIT
dl_cluster_init
cat >"$DL_CLUSTER_DIR/etc/datalocality.conf" <<CONF
CacheDir=$DL_CLUSTER_DIR/cache/%n
CacheCapacity=10M
EvictionPolicy=lru
StorageBandwidth=1e6
CONF
dl_cluster_start
data=$DL_CLUSTER_DIR/data
out=$DL_CLUSTER_DIR/out
cache=$DL_CLUSTER_DIR/cache
chmod 1777 "$out"

# Groups of three files (1, 2 and 1 MiB of random bytes): 4 MiB a group.
mkgroup() {
	dl_t_mkfile "$data/g$1/f1" 1
	dl_t_mkfile "$data/g$1/f2" 2
	dl_t_mkfile "$data/g$1/f3" 1
	chmod 755 "$data" "$data/g$1"
	chmod 644 "$data/g$1"/f*
}
for g in 0 1 2 3 4 5 6; do mkgroup "$g"; done
sums=$DL_CLUSTER_DIR/sums
(cd / && sha256sum "$data"/g*/f*) >"$sums"

# submit GROUP [SECONDS] -> job id; the job prints the view and the sums of
# its files as read through it, then the kind of each (a hard link is a
# regular file; a symbolic link would mean "read from the source").
submit() {
	local g=$1 s=${2:-0} files="$data/g$1/f1 $data/g$1/f2 $data/g$1/f3"
	sbatch --parsable --uid=nobody --gid=nogroup --chdir="$out" \
		-o "$out/%j.out" \
		--comment="files:$data/g$g/f1,$data/g$g/f2,$data/g$g/f3" \
		--wrap "echo view=\$DL_CACHE_VIEW
for f in $files; do
	sha256sum \"\$DL_CACHE_VIEW\$f\" | sed \"s#\$DL_CACHE_VIEW##\"
	if [ -L \"\$DL_CACHE_VIEW\$f\" ]; then echo kind=symlink; else echo kind=file; fi
done
sleep $s"
}

# check_job ID: completed, read the right bytes from its own view.
check_job() {
	local id=$1 o=$out/$1.out state
	state=$(dl_cluster_job_field "$id" JobState)
	[ "$state" = COMPLETED ] || { echo "  JobId=$id: $state"; return 1; }
	grep -q "^view=$cache/n[0-9]*/.jobs/$id.view\$" "$o" ||
		{ echo "  JobId=$id: no DL_CACHE_VIEW"; cat "$o"; return 1; }
	[ "$(grep -c '^[0-9a-f]\{64\}  /' "$o")" = 3 ] ||
		{ echo "  JobId=$id: not 3 sums"; cat "$o"; return 1; }
	grep '^[0-9a-f]\{64\}  /' "$o" | while read -r sum path; do
		grep -qx "$sum  $path" "$sums" ||
			{ echo "  JobId=$id: wrong bytes for $path"; exit 1; }
	done
}

# log_line ID: dl-stage's summary line for a job (".log" of its node).
log_line() {
	grep -h "job $1 on n[0-9]*: " "$cache"/n*/.log 2>/dev/null | tail -1
}

store_bytes() { # data bytes in a node's store (no metadata)
	find "$cache/$1/store" -type f ! -name '*.meta' -printf '%s\n' 2>/dev/null |
		awk '{ s += $1 } END { print s + 0 }'
}

# --- (a) wave 1 -----------------------------------------------------------
wave1=()
for g in 0 1 2; do wave1+=("$(submit "$g")"); done
dl_cluster_wait_jobs_done 120
bad=0
declare -A node_of
for id in "${wave1[@]}"; do
	check_job "$id" || bad=$((bad + 1))
	node_of[$id]=$(dl_cluster_job_field "$id" NodeList)
	grep -q "^kind=symlink" "$out/$id.out" && { echo "  JobId=$id read from source"; bad=$((bad + 1)); }
	echo "  JobId=$id on ${node_of[$id]}: $(log_line "$id" | sed 's/.*: \([0-9]* files:\)/\1/')"
done
dl_t_eq "(a) wave 1: 3 jobs as nobody read the right bytes through \$DL_CACHE_VIEW" 0 "$bad"
left=$(find "$cache"/n*/.jobs -mindepth 1 2>/dev/null | wc -l)
dl_t_eq "(a) views and pins are gone after the jobs (epilog)" 0 "$left"
copied=0
for id in "${wave1[@]}"; do
	log_line "$id" | grep -q ": 3 files: 0 cached (0 B), 3 copied (4.0 MiB)" && copied=$((copied + 1))
done
dl_t_eq "(a) wave 1 copied its 3 files per job into the cache" 3 "$copied"

# --- (b) wave 2 finds its files cached --------------------------------------
# One job at a time: (b) is about staging, and a job planned while its
# group's node is busy may rightly go to the idle one.  On this 2-node
# cluster a group 1 job arriving while group 0's ran on their shared node
# was sometimes placed on the idle node without its files (about 1 run in
# 10 with both cores busy, with or without Online-HPS's guard; not yet
# explained), which (b) then counted as a staging failure.
wave2=()
for g in 0 1 2; do
	wave2+=("$(submit "$g")")
	dl_cluster_wait_jobs_done 60
done
bad=0
hits=0
for id in "${wave2[@]}"; do
	check_job "$id" || bad=$((bad + 1))
	line=$(log_line "$id")
	echo "  JobId=$id on $(dl_cluster_job_field "$id" NodeList): ${line#*: }"
	case $line in *": 3 files: 3 cached (4.0 MiB"*) hits=$((hits + 1)) ;; esac
done
dl_t_eq "(b) wave 2 read the right bytes" 0 "$bad"
dl_t_eq "(b) wave 2: every job found its 3 files cached on its node" 3 "$hits"
hits_inv=$("$DL_STAGE" --cache-dir "$cache/%n" --node "${node_of[${wave1[0]}]}" inventory --json |
	grep -c '"path": "'"$data"'/g0/f[123]", "size": [0-9]*, "hits": 2,' || true)
dl_t_eq "(b) the inventory counts 2 uses of group 0's files" 3 "$hits_inv"

# --- (c) capacity: 4 more groups (16 MiB) through 10 MiB caches ------------
sampler() {
	local m=0 b n
	while [ -e "$DL_CLUSTER_DIR/sampling" ]; do
		for n in n1 n2; do
			b=$(store_bytes "$n")
			[ "$b" -gt "$m" ] && m=$b
		done
		echo "$m" >"$DL_CLUSTER_DIR/max_seen"
		sleep 0.05
	done
}
touch "$DL_CLUSTER_DIR/sampling"
sampler &
sampler_pid=$!
wave3=()
for g in 3 4 5 6 0 3 5; do wave3+=("$(submit "$g" 1)"); done
dl_cluster_wait_jobs_done 180
rm -f "$DL_CLUSTER_DIR/sampling"
wait "$sampler_pid" || true
max_seen=$(cat "$DL_CLUSTER_DIR/max_seen")
bad=0
for id in "${wave3[@]}"; do check_job "$id" || bad=$((bad + 1)); done
dl_t_eq "(c) 7 more jobs read the right bytes while files were evicted" 0 "$bad"
evicted=$(grep -ho 'evicted [1-9][0-9]* (' "$cache"/n*/.log | wc -l)
echo "  largest store seen: $max_seen bytes (capacity $CAP); $evicted prologs evicted files"
dl_t_check "(c) files were evicted to make room" test "$evicted" -gt 0
dl_t_check "(c) no node's cache ever held more than CacheCapacity" test "$max_seen" -le "$CAP"
for n in n1 n2; do
	# each file is charged its blocks, one block for its metadata and
	# 160 bytes for their directory entries
	bs=$(stat -f -c %S "$cache/$n")
	used=$(sed -n '1s/.* used=\([0-9]*\) .*/\1/p' "$cache/$n/.inventory")
	sum=$(awk 'NR > 1 { s += $2 } END { print s + 0 }' "$cache/$n/.inventory")
	charged=$(awk -v bs="$bs" 'NR > 1 { s += int(($2 + bs - 1) / bs) * bs + bs + 160 }
		END { print s + 0 }' "$cache/$n/.inventory")
	dl_t_check "(c) $n: inventory used=$used = its files' charges ($charged) <= capacity; data $sum = store ($(store_bytes $n))" \
		test "$used" = "$charged" -a "$used" -le "$CAP" -a "$sum" = "$(store_bytes $n)"
done

# --- (d) an input its user cannot read ------------------------------------
mkdir -p "$data/secret"
chmod 755 "$data/secret"
head -c 4096 /dev/urandom >"$data/secret/x"
chmod 600 "$data/secret/x"
bad_id=$(sbatch --parsable --uid=nobody --gid=nogroup --chdir="$out" \
	-o "$out/%j.out" --comment="files:$data/g1/f1,$data/secret/x" \
	--wrap 'echo the job body ran')
ok_id=$(submit 1)
dl_cluster_wait_jobs_done 60
state=$(dl_cluster_job_field "$bad_id" JobState)
echo "  JobId=$bad_id: $state, output:"
sed 's/^/    /' "$out/$bad_id.out" 2>/dev/null || true
dl_t_eq "(d) the job ends FAILED" FAILED "$state"
dl_t_check "(d) its output says which file its user cannot read" \
	grep -q "dl-stage: user nobody (uid 65534) cannot read $data/secret/x: Permission denied" "$out/$bad_id.out"
dl_t_check "(d) its body never ran" bash -c "! grep -q 'the job body ran' '$out/$bad_id.out'"
dl_t_check "(d) dl-stage's log on the node says so too" \
	grep -q "job $bad_id on n[0-9]: staging failed: user nobody (uid 65534) cannot read $data/secret/x" "$cache"/n*/.log
dl_t_check "(d) the secret was not cached" bash -c "! grep -q secret '$cache'/n*/.inventory"
dl_t_check "(d) the other job completed" check_job "$ok_id"
states=$(sinfo -h -N -o '%N %T' | sort | tr '\n' ' ')
dl_t_eq "(d) no node drained: sinfo -N shows both idle" "n1 idle n2 idle " "$states"

# --- (e) inventory and check -----------------------------------------------
bad=0
for n in n1 n2; do
	head -1 "$cache/$n/.inventory" |
		grep -q "^# dl-stage inventory 1 node=$n capacity=$CAP used=[0-9]* files=[0-9]* time=[0-9]* storage_bytes=[0-9]* peer_bytes=[0-9]*\$" ||
		{ echo "  $n: bad header: $(head -1 "$cache/$n/.inventory")"; bad=$((bad + 1)); }
	# every listed file is what the source holds (size), and cached
	while read -r path size; do
		[ "$(stat -c %s "$path")" = "$size" ] || { echo "  $n: $path $size"; bad=$((bad + 1)); }
	done < <(tail -n +2 "$cache/$n/.inventory")
	"$DL_STAGE" --cache-dir "$cache/%n" --node "$n" check >"$DL_CLUSTER_DIR/check.$n" ||
		{ echo "  $n: dl-stage check failed:"; cat "$DL_CLUSTER_DIR/check.$n"; bad=$((bad + 1)); }
done
dl_t_eq "(e) .inventory of each node: header and 'path size' lines; dl-stage check passes" 0 "$bad"
# shellcheck disable=SC2016 # expanded by the job
plain=$(sbatch --parsable --uid=nobody --gid=nogroup --chdir="$out" -o "$out/%j.out" \
	--wrap 'echo view=${DL_CACHE_VIEW-unset}')
dl_cluster_wait_jobs_done 60
dl_t_eq "(e) a job naming no files runs, without a view" "COMPLETED view=unset" \
	"$(dl_cluster_job_field "$plain" JobState) $(cat "$out/$plain.out")"

# --- (e) #DL directives in the script are staged like an annotation ----------
# shellcheck disable=SC2016 # expanded by the job
printf '#!/bin/sh\n#DL files:%s,%s\n#DL files:%s\nsha256sum "$DL_CACHE_VIEW%s" "$DL_CACHE_VIEW%s" "$DL_CACHE_VIEW%s" | sed "s#$DL_CACHE_VIEW##"\n' \
	"$data/g5/f1" "$data/g5/f2" "$data/g5/f3" "$data/g5/f1" "$data/g5/f2" \
	"$data/g5/f3" >"$out/dl.sh"
chmod 644 "$out/dl.sh"
dljob=$(sbatch --parsable --uid=nobody --gid=nogroup --chdir="$out" \
	-o "$out/%j.out" "$out/dl.sh")
dl_cluster_wait_jobs_done 60
dl_t_check "(e) a job naming its files in #DL lines reads them through its view" \
	bash -c "[ \"\$(grep -c '^[0-9a-f]\{64\}  $data/g5/f' '$out/$dljob.out')\" = 3 ] &&
		grep -q 'job $dljob on n[0-9]*: 3 files' '$cache'/n*/.log"

# --- (f) an unsafe cache directory is the node's fault, not the job's ----
chmod 0777 "$cache/n2"
unsafe=$(sbatch --parsable --uid=nobody --gid=nogroup --chdir="$out" \
	-o "$out/%j.out" -w n2 --comment="files:$data/g2/f1" \
	--wrap "sha256sum $data/g2/f1")
dl_cluster_wait_jobs_done 120
dl_t_eq "(f) with the cache refused, the job still completes" COMPLETED \
	"$(dl_cluster_job_field "$unsafe" JobState)"
dl_t_check "(f) ... reading its source" grep -q "$data/g2/f1" "$out/$unsafe.out"
dl_t_check "(f) n2 stays in service" \
	bash -c "sinfo -h -N -n n2 -o %T | grep -Eq '^(idle|mixed|allocated)'"
# (slurmd logs a successful Prolog's words at debug2 only: dl-stage says
# it to syslog too, which this harness does not run)
# the job's storage gone too (moved away after submission): the node
# cannot run it
mkdir -p "$data/gone"
dl_t_mkfile "$data/gone/f" 1
chmod -R a+rX "$data/gone"
lost=$(sbatch --parsable --hold --uid=nobody --gid=nogroup --chdir="$out" \
	-o "$out/%j.out" -w n2 --comment="files:$data/gone/f" --wrap true)
mv "$data/gone" "$data/gone.away"
scontrol release "$lost"
# (Slurm 24.11 shows the node draining until the failed job's requeue
# has left it; 22.05 drained at once.)
dl_cluster_wait_nodes drained 60 n2 || true
dl_t_eq "(f) cache refused and storage gone: n2 is drained" drained \
	"$(sinfo -h -N -n n2 -o %T)"
dl_t_check "(f) reason 'Prolog error'" bash -c "sinfo -h -N -n n2 -o %E | grep -q 'Prolog error'"
dl_t_check "(f) slurmd's log says the node cannot run the job" \
	grep -q "this node cannot run the job" "$(dl_cluster_log_slurmd n2)"
scancel "$lost" 2>/dev/null || true
chmod 0711 "$cache/n2"
scontrol update nodename=n2 state=resume
dl_cluster_wait_nodes idle 30 n2 || true
dl_t_eq "(f) n2 resumes once the directory is fixed" idle "$(sinfo -h -N -n n2 -o %T)"

dl_t_summary
