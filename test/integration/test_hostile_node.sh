#!/usr/bin/env bash
# test_hostile_node.sh - a job's user cannot take a node out of service
# through dl-stage, on a real one-node Slurm cluster (2 CPUs, so that two
# jobs of the same user share the node), jobs running as nobody:
#
#  (a) the user's other job SIGKILLs the opener (the helper that opens the
#      job's files as its user): that job fails with a message in its
#      output, the attacking job completes, the node stays idle;
#  (b) the same with SIGSTOP: the request times out (StageOpenTimeout),
#      same outcome, well before PrologEpilogTimeout;
#  (c) 3,000 tiny files through a cache on a 4 MiB tmpfs with a 3 MiB
#      CacheCapacity: the job completes and reads the right bytes, metadata
#      counts against the capacity, the node stays idle;
#  (d) that file system filled from outside: a job of pure cache hits
#      completes (it reads its sources), the node stays idle;
#  (e) a failure note left by a job whose Epilog never ran does not fail a
#      later job that gets the same job id;
#  (f) the view, pins and note of jobs Slurm no longer knows are reaped,
#      while a running job's are kept.
#
# Needs DL_BUILD_DIR (DL_STAGE names the dl-stage binary, default
# $DL_BUILD_DIR/dl-stage) and root (slurmd, tmpfs).  Uses sched/builtin:
# only the node side is under test.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${DL_BUILD_DIR:?set DL_BUILD_DIR to a build tree}"
DL_STAGE=${DL_STAGE:-$DL_BUILD_DIR/dl-stage}
# shellcheck source=../cluster/cluster.sh
source "$here/../cluster/cluster.sh"
# shellcheck source=lib.sh
source "$here/lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "test_hostile_node: needs root (slurmd, tmpfs)"
	exit 77
fi
[ -x "$DL_STAGE" ] || { echo "test_hostile_node: no dl-stage at $DL_STAGE"; exit 1; }
su nobody -s /bin/sh -c "test -x '$DL_STAGE'" ||
	{ echo "test_hostile_node: nobody cannot execute $DL_STAGE"; exit 1; }

export DL_NODES=1 DL_NODE_CPUS=2
export DL_PROLOG="$DL_STAGE" DL_EPILOG="$DL_STAGE"
# A bounded PrologEpilogTimeout, so that a hung Prolog (the old failure of
# (b)) ends in a drained node within the test's time.
export DL_CLUSTER_EXTRA_CONF="TaskProlog=$DL_STAGE
PrologEpilogTimeout=20"
small=$(mktemp -d /tmp/dl_hostile.XXXXXX)
cleanup() {
	umount "$small" 2>/dev/null || true
	rmdir "$small" 2>/dev/null || true
	dl_cluster_stop
}
trap cleanup EXIT
dl_cluster_init
etc=$DL_CLUSTER_DIR/etc
data=$DL_CLUSTER_DIR/data
out=$DL_CLUSTER_DIR/out
cache=$DL_CLUSTER_DIR/cache
mkdir -p "$DL_CLUSTER_DIR/emu" "$data"
chmod 755 "$data"
chmod 1777 "$out"
# conf CACHE_DIR CAPACITY [EXTRA...] : rewrite datalocality.conf (dl-stage
# reads it at every run).
conf() {
	local dir=$1 cap=$2
	shift 2
	{
		echo "CacheDir=$dir/%n"
		echo "CacheCapacity=$cap"
		echo "EvictionPolicy=lru"
		echo "StageOpenTimeout=3"
		printf '%s\n' "$@"
	} >"$etc/datalocality.conf"
	chmod 644 "$etc/datalocality.conf"
}
# Shared storage paced at 400 KiB/s: staging ten 200 KiB files takes 5 s,
# long enough for another job to find the opener.
slow=("EmulateStorageBandwidth=400K" "EmulateStorageServers=1"
      "EmulateStorageLockDir=$DL_CLUSTER_DIR/emu")
conf "$cache" 64M "${slow[@]}"
dl_cluster_start

for i in 0 1 2 3 4 5 6 7 8 9; do
	head -c 204800 /dev/urandom >"$data/f$i"
done
chmod 644 "$data"/f*
ten=$(printf "$data/f%s," 0 1 2 3 4 5 6 7 8 9)
ten=${ten%,}

node_state() { sinfo -h -N -n n1 -o %T; }

# le DESCRIPTION A B : passes when the integer A <= B.
le() {
	if [[ $2 =~ ^[0-9]+$ && $3 =~ ^[0-9]+$ ]] && [ "$2" -le "$3" ]; then
		dl_t_ok "$1"
	else
		dl_t_fail "$1 (wanted $2 <= $3)"
	fi
}

# wait_state ID REGEX TIMEOUT : until the job's state matches ^(REGEX)$.
wait_state() {
	local deadline=$((SECONDS + $3))
	until [[ $(dl_cluster_job_field "$1" JobState 2>/dev/null) =~ ^($2)$ ]]; do
		[ $SECONDS -ge $deadline ] && return 1
		sleep 0.2
	done
}

# settle ID: wait until the job is finished, or held after a failed launch
# (what a Prolog error does); prints its state.
settle() {
	local id=$1 deadline=$((SECONDS + ${2:-60})) st r
	while :; do
		st=$(dl_cluster_job_field "$id" JobState 2>/dev/null || true)
		r=$(dl_cluster_job_field "$id" Reason 2>/dev/null || true)
		case $st in
		COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL) break ;;
		PENDING) case $r in *held* | *Held* | *failed*) break ;; esac ;;
		esac
		[ $SECONDS -ge $deadline ] && break
		sleep 0.2
	done
	echo "$st"
}

# restore: after a failure of the old code, put the node back in service
# and drop held jobs, so that the next case starts from an idle node.
restore() {
	local id
	for id in $(squeue -h -o %i -t PD,R,CG); do scancel "$id"; done
	dl_cluster_wait_jobs_done 30 || true
	case $(node_state) in
	idle) ;;
	*) scontrol update nodename=n1 state=resume 2>/dev/null || true
	   dl_cluster_wait_nodes idle 30 n1 || true ;;
	esac
}

# The attacker: a job of the same user that looks for the opener of the
# other job (its own uid, named dl-stage, child of root's dl-stage) and
# sends it a signal.
attack() {
	cat <<EOF
i=0
while [ \$i -lt 1200 ]; do
	i=\$((i + 1))
	for p in \$(pgrep -u nobody -x dl-stage); do
		pp=\$(ps -o ppid= -p \$p | tr -d ' ')
		[ "\$(ps -o user= -p \$pp)" = root ] || continue
		[ "\$(ps -o comm= -p \$pp)" = dl-stage ] || continue
		kill -$1 \$p && echo "sent $1 to the opener \$p" && exit 0
	done
	sleep 0.05
done
echo "no opener found"
EOF
}

# hostile SIGNAL WHAT : cases (a) and (b).
hostile() {
	local sig=$1 what=$2 atk vic st
	atk=$(sbatch --parsable --uid=nobody --gid=nogroup -w n1 \
		-o "$out/%j.out" --wrap "$(attack "$sig")")
	wait_state "$atk" RUNNING 30 || true
	vic=$(sbatch --parsable --uid=nobody --gid=nogroup -w n1 \
		-o "$out/%j.out" --comment="files:$ten" \
		--wrap 'echo the job body ran')
	st=$(settle "$vic" 60)
	settle "$atk" 60 >/dev/null
	dl_cluster_wait_jobs_done 30 || true
	echo "  victim JobId=$vic: $st; output:"
	sed 's/^/    /' "$out/$vic.out" 2>/dev/null || true
	echo "  attacker JobId=$atk: $(head -1 "$out/$atk.out" 2>/dev/null)"
	dl_t_check "$what the attacker reached the opener" \
		grep -q "^sent $sig to the opener" "$out/$atk.out"
	dl_t_eq "$what the node stays in service" idle "$(node_state)"
	dl_t_eq "$what the victim job fails" FAILED "$st"
	dl_t_check "$what its output says why" grep -q \
		"dl-stage: the helper opening files as user nobody (uid 65534)" \
		"$out/$vic.out"
	dl_t_check "$what its body never ran" \
		bash -c "! grep -q 'the job body ran' '$out/$vic.out'"
	dl_t_eq "$what the attacking job completes" COMPLETED \
		"$(dl_cluster_job_field "$atk" JobState)"
	restore
}

# --- (a), (b) ---------------------------------------------------------------
hostile KILL "(a) opener killed by the job's user:"
t0=$SECONDS
hostile STOP "(b) opener stopped by the job's user:"
le "(b) settled within 15 s (StageOpenTimeout=3, not PrologEpilogTimeout=20)" \
	$((SECONDS - t0)) 15

# --- (c) 3,000 tiny files on a small cache file system -----------------------
mount -t tmpfs -o size=4m,nr_inodes=8192,mode=0755 tmpfs "$small"
conf "$small" 3M
mkdir -p "$data/tiny"
chmod 755 "$data/tiny"
head -c 300000 /dev/urandom | split -b 100 -d -a 4 - "$data/tiny/t"
chmod 644 "$data"/tiny/t*
ls -1 "$data"/tiny/t* >"$data/tiny.list"
chmod 644 "$data/tiny.list"
want=$(xargs cat <"$data/tiny.list" | sha256sum | cut -d' ' -f1)
reader() { # the job body: the sum of its files read through the view
	echo "sed \"s#^#\$DL_CACHE_VIEW#\" '$1' | xargs cat | sha256sum"
}
tiny=$(sbatch --parsable --uid=nobody --gid=nogroup -w n1 -o "$out/%j.out" \
	--comment="files:@$data/tiny.list" --wrap "$(reader "$data/tiny.list")")
st=$(settle "$tiny" 120)
echo "  JobId=$tiny: $st; $(grep -h "job $tiny on n1: " "$small/n1/.log" 2>/dev/null | tail -1 | sed 's/.*n1: //')"
dl_t_eq "(c) 3,000 tiny files: the node stays in service" idle "$(node_state)"
dl_t_eq "(c) the job completes" COMPLETED "$st"
dl_t_check "(c) it read the right bytes" grep -q "^$want " "$out/$tiny.out"
used=$(sed -n '1s/.* used=\([0-9]*\) .*/\1/p' "$small/n1/.inventory" 2>/dev/null || true)
le "(c) the inventory's used (metadata included) is within 3 MiB" \
	"${used:-99999999}" $((3 << 20))
dl_t_check "(c) the file system has room and inodes left" \
	bash -c "[ \$(df --output=pcent '$small' | tail -1 | tr -dc 0-9) -lt 100 ] &&
		[ \$(df --output=ipcent '$small' | tail -1 | tr -dc 0-9) -lt 100 ]"
restore

# --- (d) the cache file system full: pure hits -----------------------------
hits=$(awk 'NR > 1 && NR <= 21 { printf "%s%s", s, $1; s = "," }' "$small/n1/.inventory")
dd if=/dev/zero of="$small/filler" bs=64k status=none 2>/dev/null || true
hit=$(sbatch --parsable --uid=nobody --gid=nogroup -w n1 -o "$out/%j.out" \
	--comment="files:$hits" \
	--wrap "for f in \$(echo '$hits' | tr , ' '); do cat \"\$DL_CACHE_VIEW\$f\"; done | sha256sum")
st=$(settle "$hit" 60)
want=$(echo "$hits" | tr , '\n' | xargs cat | sha256sum | cut -d' ' -f1)
echo "  JobId=$hit: $st; $(grep -h "job $hit on n1: " "$small/n1/.log" 2>/dev/null | tail -1 | sed 's/.*n1: //')"
dl_t_check "(d) 20 files to hit (the cache kept some of (c))" \
	test "$(echo "$hits" | tr , '\n' | grep -c .)" = 20
dl_t_eq "(d) cache file system full, pure hits: the node stays in service" \
	idle "$(node_state)"
dl_t_eq "(d) the job completes" COMPLETED "$st"
dl_t_check "(d) it read the right bytes" grep -q "^$want " "$out/$hit.out"
rm -f "$small/filler"
restore

# --- (e) a stale note and a reused job id -----------------------------------
conf "$cache" 64M
mkdir -p "$data/secret"
head -c 4096 /dev/urandom >"$data/secret/x"
chmod 600 "$data/secret/x"
last=$(sbatch --parsable --uid=nobody --gid=nogroup -o /dev/null --wrap true)
dl_cluster_wait_jobs_done 30 || true
next=$((last + 1))
# What a failed staging leaves when the job's Epilog never runs (slurmd
# died, the node rebooted): a note for the job id that comes next.
SLURM_JOB_UID=65534 SLURM_JOB_GID=65534 SLURM_JOB_USER=nobody \
	SLURMD_NODENAME=n1 SLURM_JOB_COMMENT="files:$data/secret/x" \
	"$DL_STAGE" -q --job "$next" prolog 2>/dev/null || true
dl_t_check "(e) a stale note is planted for job $next" \
	test -e "$cache/n1/.jobs/$next.failed"
reuse=$(sbatch --parsable --uid=nobody --gid=nogroup -w n1 -o "$out/%j.out" \
	--wrap 'echo the job body ran')
st=$(settle "$reuse" 60)
echo "  JobId=$reuse: $st; output: $(tr '\n' ' ' <"$out/$reuse.out" 2>/dev/null)"
dl_t_eq "(e) the new job got the id" "$next" "$reuse"
dl_t_eq "(e) a reused job id is not failed by a stale note" COMPLETED "$st"
dl_t_check "(e) its body ran" grep -q 'the job body ran' "$out/$reuse.out"
restore

# --- (f) leftovers of jobs Slurm no longer knows ----------------------------
SLURM_JOB_UID=65534 SLURM_JOB_GID=65534 SLURM_JOB_USER=nobody \
	SLURMD_NODENAME=n1 SLURM_JOB_COMMENT="files:$data/f1" \
	"$DL_STAGE" -q --job 999999 prolog
SLURM_JOB_UID=65534 SLURM_JOB_GID=65534 SLURM_JOB_USER=nobody \
	SLURMD_NODENAME=n1 SLURM_JOB_COMMENT="files:$data/secret/x" \
	"$DL_STAGE" -q --job 999998 prolog 2>/dev/null || true
touch -h -d '-1 hour' "$cache"/n1/.jobs/99999[89].* "$cache"/n1/.locks/* 2>/dev/null || true
left_before=$(ls "$cache/n1/.jobs" | grep -c '^99999[89]\.' || true)
conf "$cache" 64M "${slow[@]}"
# long runs while short's Prolog and Epilog reap (6 s on an idle host)
long=$(sbatch --parsable --uid=nobody --gid=nogroup -w n1 -o "$out/%j.out" \
	--comment="files:$data/f2" \
	--wrap "sleep $((6 * DL_TIME_SCALE)); sha256sum \"\$DL_CACHE_VIEW$data/f2\"")
wait_state "$long" RUNNING 30 || true
sleep 1
short=$(sbatch --parsable --uid=nobody --gid=nogroup -w n1 -o /dev/null \
	--wrap true)
settle "$short" 30 >/dev/null
# its Epilog (bounded wait; the count below decides)
dl_t_wait_until 10 bash -c "! ls '$cache/n1/.jobs' | grep -q '^99999[89]\.'" || true
left_after=$(ls "$cache/n1/.jobs" | grep -c '^99999[89]\.' || true)
kept=$(ls "$cache/n1/.jobs" | grep -c "^$long\.\(view\|pins\)\$" || true)
st=$(settle "$long" 60)
dl_t_eq "(f) leftovers planted: view, pins, note" 3 "$left_before"
dl_t_eq "(f) leftovers of jobs Slurm does not know are reaped" 0 "$left_after"
dl_t_eq "(f) the running job's view and pins are kept" 2 "$kept"
dl_t_eq "(f) the running job completes" COMPLETED "$st"
dl_t_check "(f) and read the right bytes" \
	grep -q "^$(sha256sum <"$data/f2" | cut -d' ' -f1)  " "$out/$long.out"
pins=$("$DL_STAGE" --cache-dir "$cache/%n" --node n1 inventory --json |
	grep -o '"path": "'"$data"'/f1", [^}]*"pins": [0-9]*' | sed 's/.*"pins": //')
dl_t_eq "(f) the reaped job's file is no longer pinned" 0 "${pins:-none}"
dl_cluster_wait_nodes idle 20 n1 || true
dl_t_eq "(f) the node stays in service" idle "$(node_state)"

dl_t_summary
