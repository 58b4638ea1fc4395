# lib.sh - assertions for the integration tests; sourced.  Each check
# prints "ok" or "FAIL" with its description; dl_t_summary prints the
# closing "N passed, N failed" line and returns non-zero on any failure.
DL_T_PASS=0
DL_T_FAIL=0

# DL_TIME_SCALE (a whole number, default 3) multiplies every bound the
# tests wait for a condition (the dl_t_wait_* TIMEOUTs and the cluster's,
# test/cluster/cluster.sh): a busy host is slow, and a wait on a condition
# that holds returns as soon as it does.  Raise it on a heavily loaded
# host.
: "${DL_TIME_SCALE:=3}"
[[ $DL_TIME_SCALE =~ ^[1-9][0-9]*$ ]] || {
	echo "DL_TIME_SCALE must be a whole number >= 1" >&2
	exit 2
}
export DL_TIME_SCALE

# dl_t_secs S : S seconds scaled by DL_TIME_SCALE.
dl_t_secs() {
	echo $(($1 * DL_TIME_SCALE))
}

dl_t_ok() {
	DL_T_PASS=$((DL_T_PASS + 1))
	echo "ok   - $*"
}

dl_t_fail() {
	DL_T_FAIL=$((DL_T_FAIL + 1))
	echo "FAIL - $*"
}

# dl_t_check DESCRIPTION COMMAND... : passes when COMMAND succeeds.
dl_t_check() {
	local desc=$1
	shift
	if "$@"; then dl_t_ok "$desc"; else dl_t_fail "$desc"; fi
}

# dl_t_eq DESCRIPTION EXPECTED ACTUAL
dl_t_eq() {
	if [ "$2" = "$3" ]; then
		dl_t_ok "$1"
	else
		dl_t_fail "$1 (expected '$2', got '$3')"
	fi
}

dl_t_summary() {
	echo "$DL_T_PASS passed, $DL_T_FAIL failed"
	[ "$DL_T_FAIL" -eq 0 ]
}

# dl_t_mkfile PATH MIB : a file of random bytes.
dl_t_mkfile() {
	mkdir -p "$(dirname "$1")"
	head -c "$(($2 * 1048576))" /dev/urandom >"$1"
}

# dl_t_same_slurm : exit 1 unless DL_BUILD_DIR's plugins are built for the
# Slurm the cluster runs (DL_SLURM_PREFIX): slurmctld refuses a plugin of
# another version, which would show as an obscure startup failure.
dl_t_same_slurm() {
	local built run
	built=$(sed -n 's/^SLURM_VERSION_STR = //p' "$DL_BUILD_DIR/Makefile" 2>/dev/null)
	run=$(dl_cluster_slurm_version)
	if [ "$built" != "$run" ]; then
		echo "$DL_BUILD_DIR is built for Slurm ${built:-?}, the cluster runs Slurm ${run:-?} (DL_SLURM_PREFIX=${DL_SLURM_PREFIX:-})" >&2
		exit 1
	fi
}

# dl_t_use_build : run the cluster with this build's plugins, scheduler
# settings and partitioner helper (slurmctld inherits DL_PARTITIOND).
dl_t_use_build() {
	: "${DL_BUILD_DIR:?set DL_BUILD_DIR to a build tree with the plugins}"
	dl_t_same_slurm
	export DL_SCHED_TYPE=sched/datalocality
	export DL_SCHED_PARAMS=bf_interval=1
	export DL_JOB_SUBMIT=datalocality
	export DL_PLUGIN_DIR="$DL_BUILD_DIR/.libs"
	export DL_PARTITIOND="$DL_BUILD_DIR/dl-partitiond"
}

# dl_t_use_services NAME NODES : the setting of a test whose nodes run in
# mount namespaces of their own with dl-cached and dl-stage as Prolog,
# Epilog and TaskProlog (dl_t_use_build, NODES nodes); exits 77 unless
# root, 1 without the binaries.  Sets DL_STAGE, DL_CACHED (exported).
dl_t_use_services() {
	local name=$1 b
	if [ "$(id -u)" != 0 ]; then
		echo "$name: needs root (namespaces, slurmd)"
		exit 77
	fi
	DL_STAGE=${DL_STAGE:-$DL_BUILD_DIR/dl-stage}
	export DL_CACHED=${DL_CACHED:-$DL_BUILD_DIR/dl-cached}
	for b in "$DL_STAGE" "$DL_CACHED"; do
		[ -x "$b" ] || { echo "$name: no $b"; exit 1; }
	done
	dl_t_use_build
	export DL_NODES=$2 DL_NODE_NS=1
	export DL_PROLOG="$DL_STAGE" DL_EPILOG="$DL_STAGE"
	export DL_CLUSTER_EXTRA_CONF="TaskProlog=$DL_STAGE"
}

# dl_t_use_plugins : load this build's job_submit plugin and give slurmctld
# this build's plugin directory and partitioner helper, leaving the
# scheduler (DL_SCHED_TYPE, DL_SCHED_PARAMS) to the caller.
dl_t_use_plugins() {
	: "${DL_BUILD_DIR:?set DL_BUILD_DIR to a build tree with the plugins}"
	dl_t_same_slurm
	export DL_JOB_SUBMIT=datalocality
	export DL_PLUGIN_DIR="$DL_BUILD_DIR/.libs"
	export DL_PARTITIOND="$DL_BUILD_DIR/dl-partitiond"
}

# dl_t_job_time JOBID FIELD : FIELD (StartTime, EndTime, SubmitTime, ...)
# of the job as seconds since the epoch; prints nothing and returns 1 when
# the job has no such time yet (Unknown, None) or is not found.
dl_t_job_time() {
	local v
	v=$(dl_cluster_job_field "$1" "$2") || return 1
	case $v in '' | Unknown | None | N/A) return 1 ;; esac
	date -d "$v" +%s 2>/dev/null
}

# dl_t_wait_state JOBID REGEX TIMEOUT : wait until the job's JobState
# matches ^(REGEX)$; returns 1 (printing the state it is in) on timeout
# (TIMEOUT seconds times DL_TIME_SCALE, as in every dl_t_wait_*).
dl_t_wait_state() {
	local id=$1 re=$2 deadline=$((SECONDS + $3 * DL_TIME_SCALE)) st=
	while :; do
		st=$(dl_cluster_job_field "$id" JobState 2>/dev/null || true)
		[[ $st =~ ^($re)$ ]] && return 0
		if [ $SECONDS -ge $deadline ]; then
			echo "  JobId=$id still '$st' after $(dl_t_secs "$3") s (wanted $re)" >&2
			return 1
		fi
		sleep 0.2
	done
}

# dl_t_wait_field JOBID FIELD REGEX TIMEOUT : wait until the job's FIELD
# matches REGEX (unanchored); prints the matching value; returns 1 on
# timeout (printing nothing).
dl_t_wait_field() {
	local id=$1 field=$2 re=$3 deadline=$((SECONDS + $4 * DL_TIME_SCALE)) v
	while :; do
		v=$(dl_cluster_job_field "$id" "$field" 2>/dev/null || true)
		if [[ $v =~ $re ]]; then
			printf '%s\n' "$v"
			return 0
		fi
		[ $SECONDS -ge $deadline ] && return 1
		sleep 0.2
	done
}

# dl_t_wait_reason JOBID REGEX TIMEOUT : wait until the job's Reason
# matches REGEX (unanchored) while it is pending; prints the matching
# Reason; returns 1 (printing nothing) on timeout or as soon as the job
# is no longer pending: a started job's Reason is None, so waiting on
# would only sit out the timeout (a sched/backfill run, where no
# DataLocality Reason ever comes, spent its whole 30 s there).
dl_t_wait_reason() {
	local id=$1 re=$2 deadline=$((SECONDS + $3 * DL_TIME_SCALE)) v st
	while :; do
		v=$(dl_cluster_job_field "$id" Reason 2>/dev/null || true)
		if [[ $v =~ $re ]]; then
			printf '%s\n' "$v"
			return 0
		fi
		st=$(dl_cluster_job_field "$id" JobState 2>/dev/null || true)
		[ -n "$st" ] && [ "$st" != PENDING ] && return 1
		[ $SECONDS -ge $deadline ] && return 1
		sleep 0.2
	done
}

# dl_t_start_order JOBID... : the jobs as "JOBID START" lines (START in
# epoch seconds, "-" if never started), earliest first; ties keep the
# order given.
dl_t_start_order() {
	local id t
	for id in "$@"; do
		t=$(dl_t_job_time "$id" StartTime) || t=-
		echo "$id $t"
	done | awk '{ print ($2 == "-" ? 9999999999 : $2), NR, $1, $2 }' |
		sort -n -k1,1 -k2,2 | awk '{ print $3, $4 }'
}

# dl_t_le DESCRIPTION A B : passes when the integer A <= B.
dl_t_le() {
	if [[ $2 =~ ^-?[0-9]+$ && $3 =~ ^-?[0-9]+$ ]] && [ "$2" -le "$3" ]; then
		dl_t_ok "$1"
	else
		dl_t_fail "$1 (wanted $2 <= $3)"
	fi
}

# dl_t_wait_until TIMEOUT COMMAND... : run COMMAND every 0.2 s until it
# succeeds; returns 1 if it still fails after TIMEOUT seconds.
dl_t_wait_until() {
	local deadline=$((SECONDS + $1 * DL_TIME_SCALE))
	shift
	until "$@"; do
		[ $SECONDS -ge $deadline ] && return 1
		sleep 0.2
	done
}

# --- side by side ------------------------------------------------------------
# The tests that run the same submissions under several schedulers, one
# cluster after the other, share the helpers below.  dl_t_side_start sets
# the test's globals run, data, out and log, which the others read.

# dl_t_side_settings [CONF_LINE...] : the cluster of the side-by-side
# tests: 4 nodes of 2 CPUs, backfill every BF_INTERVAL (2) s so that its
# decisions show within the tests' tolerances, and SLACK (2 s times
# DL_TIME_SCALE: a loaded 2-core host delays slurmctld's passes and the
# tests' polling by a second or two) for the tests' bounds.  Each
# CONF_LINE ("Key=value") becomes a line of the cluster's
# datalocality.conf, written before the start.
dl_t_side_settings() {
	export DL_NODES=4 DL_NODE_CPUS=2
	BF_INTERVAL=2
	export DL_SCHED_PARAMS="bf_interval=$BF_INTERVAL"
	SLACK=$((2 * DL_TIME_SCALE))
	[ $# -gt 0 ] || return 0
	# shellcheck disable=SC2016
	DL_CLUSTER_PRE_START="printf '%s\\n' $(printf "'%s' " "$@")"'>"$DL_CLUSTER_DIR/etc/datalocality.conf"'
	export DL_CLUSTER_PRE_START
}

# dl_t_plugstack : run the agent beside sched/backfill (after
# dl_t_use_plugins or dl_t_use_services): SlurmctldPlugstack=datalocality,
# or on a Slurm without it (24.11) JobSubmitPlugins=datalocality,
# datalocality_agent (dl_compat.h).
dl_t_plugstack() {
	export DL_SCHED_TYPE=sched/backfill
	if [ -e "$DL_PLUGIN_DIR/slurmctld_datalocality.so" ]; then
		DL_CLUSTER_EXTRA_CONF="${DL_CLUSTER_EXTRA_CONF:-}
SlurmctldPlugstack=datalocality"
	else
		export DL_JOB_SUBMIT=datalocality,datalocality_agent
	fi
}

# dl_t_side_start RUN : start the cluster for RUN, one of backfill (plain
# sched/backfill, no plugin), datalocality (sched/datalocality and this
# build's plugins) or plugstack (dl_t_plugstack); sets run=RUN, data (the
# shared storage directory), out (job output) and log (slurmctld's log).
dl_t_side_start() {
	run=$1
	unset DL_JOB_SUBMIT DL_PLUGIN_DIR DL_PARTITIOND
	case $run in
	backfill) export DL_SCHED_TYPE=sched/backfill ;;
	datalocality)
		dl_t_use_plugins
		export DL_SCHED_TYPE=sched/datalocality
		;;
	plugstack)
		dl_t_use_plugins
		dl_t_plugstack
		;;
	*)
		echo "dl_t_side_start: unknown run '$run'" >&2
		return 1
		;;
	esac
	echo "# --- $run: SchedulerType=$DL_SCHED_TYPE ---"
	dl_cluster_start
	data=$DL_CLUSTER_DIR/data
	out=$DL_CLUSTER_DIR/out
	log=$(dl_cluster_log_ctld)
}

# dl_t_file_groups "S1 S2 S3" GROUP... : for each GROUP the files
# $data/gGROUP/f1..f3, sparse, of the sizes S1..S3 (truncate -s): only
# their sizes matter where nothing is staged.
dl_t_file_groups() {
	local sizes=$1 g s i
	shift
	for g in "$@"; do
		mkdir -p "$data/g$g"
		i=1
		for s in $sizes; do
			truncate -s "$s" "$data/g$g/f$i"
			i=$((i + 1))
		done
	done
}

# dl_t_files_of GROUP : the job annotation naming GROUP's three files.
dl_t_files_of() { echo "files:$data/g$1/f1,$data/g$1/f2,$data/g$1/f3"; }

# dl_t_sb SBATCH-ARGS... : submit, the output under $out; prints the id.
dl_t_sb() { sbatch --parsable -o "$out/%j.out" "$@"; }

# dl_t_sba GROUP SBATCH-ARGS... : submit a job annotated with GROUP's files.
dl_t_sba() {
	local g=$1
	shift
	dl_t_sb --comment="$(dl_t_files_of "$g")" "$@"
}

# dl_t_drain : cancel whatever a check left behind, so that one failure
# does not spill into the next check.
dl_t_drain() {
	scancel -u root 2>/dev/null || true
	dl_cluster_wait_jobs_done 60 || true
}

# dl_t_say CHECK TEXT : a check's description, naming the run.
dl_t_say() { echo "($1) $2 [$run]"; }

# dl_t_syscomment JOBID : the job's whole SystemComment (it has spaces).
dl_t_syscomment() { scontrol show job "$1" | sed -n 's/^ *SystemComment=//p'; }

# dl_t_wait_time JOBID SUB [TIMEOUT] : seconds from SUB (epoch) to the
# job's start, waiting up to TIMEOUT (default 40) for it; 9999 if never.
dl_t_wait_time() {
	local st
	dl_t_wait_state "$1" 'RUNNING|COMPLETING|COMPLETED' "${3:-40}" || true
	st=$(dl_t_job_time "$1" StartTime) || { echo 9999; return; }
	[ "$(dl_cluster_job_field "$1" JobState)" = PENDING ] && { echo 9999; return; }
	echo $((st - $2))
}
