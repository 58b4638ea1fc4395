#!/usr/bin/env bash
# test_patterns.sh - Slurm's filename patterns in job files (dl_pattern.h):
# the tasks of a job array each name their own input with %a, on a real
# cluster whose nodes keep their caches to themselves (namespaced nodes
# with dl-cached, dl-stage as Prolog, Epilog and TaskProlog, as in
# test_replica.sh), jobs of nobody.
#
#  (a) sbatch --array=0-9 --comment=files:<data>/shared,<data>/in_%a: all
#      10 tasks complete, each read its own in_<task> (and the shared
#      file) with the right bytes through $DL_CACHE_VIEW, as a file staged
#      into the node's cache (a hard link, not a link to the source);
#  (b) with in_5 missing, the same submission is refused at submit, and
#      sbatch's message names task 5 and in_5; a 1000-task array is
#      checked on its sample of 64 tasks (the first refused is task 15);
#  (c) zero padding (%03a) and a pattern in a list file's path
#      (@.../list_%a): staged; refused at submit, each with a message
#      saying why: %a in a job that is not an array, an unknown pattern;
#  (d) a pattern inside a list file's line (one list for every task,
#      line <data>/in_%a): each task stages its own input; a task whose
#      line names a missing file is refused at submit, naming the task,
#      the list and the line.
#  (e) dl-stage asks slurmctld for a job's task id and name (one squeue,
#      slurmd gives its Prolog neither) only when a line of its list
#      needs them (issue 25): counted in slurmctld's log of RPCs
#      (DebugFlags=Protocol: squeue -j is a REQUEST_JOB_INFO_SINGLE), the
#      tasks of (d) (line in_%a) ask once each, a task whose list holds
#      plain paths never does, and is staged all the same.
#
# Needs DL_BUILD_DIR (plugins, dl-stage, dl-cached); runs as root; about
# 40 s.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${DL_BUILD_DIR:?set DL_BUILD_DIR to a build tree with the plugins}"
# shellcheck source=../cluster/cluster.sh
source "$here/../cluster/cluster.sh"
# shellcheck source=lib.sh
source "$here/lib.sh"

dl_t_use_services test_patterns 2
trap dl_cluster_stop EXIT
dl_cluster_init
cat >"$DL_CLUSTER_DIR/etc/datalocality.conf" <<CONF
CacheDir=$DL_NODE_CACHE_DIR
CacheCapacity=64M
EvictionPolicy=lru
$(dl_cluster_service_conf)
CONF
data=$DL_CLUSTER_DIR/data
out=$DL_CLUSTER_DIR/out
chmod 1777 "$out"
dl_cluster_start

dl_t_mkfile "$data/shared" 1
for i in $(seq 0 9); do
	# distinct bytes per task, so a task reading another's file shows
	{ echo "input of task $i"; head -c 65536 /dev/urandom; } >"$data/in_$i"
done
{ echo "padded"; head -c 4096 /dev/urandom; } >"$data/pad_007"
{ echo "listed"; head -c 4096 /dev/urandom; } >"$data/listed_7"
echo "$data/listed_7" >"$data/list_7"
echo "$data/in_%a" >"$data/list_in"
chmod -R a+rX "$data"
sums=$DL_CLUSTER_DIR/sums
(cd / && sha256sum "$data"/shared "$data"/in_* "$data"/pad_007 "$data"/listed_7) >"$sums"
sleep 2 # past "recently changed" (dl-stage checks such files by content)

# The job: for each file it is given (patterns for the task expanded by
# the shell), its sum as read through the view and what kind of entry the
# view holds (a hard link into the cache is a file; a symbolic link would
# mean the job reads the source).
cat >"$out/job.sh" <<'JOB'
#!/bin/sh
set -e
echo "view=$DL_CACHE_VIEW task=$SLURM_ARRAY_TASK_ID"
for f in "$@"; do
	t=$SLURM_ARRAY_TASK_ID
	f=$(echo "$f" | sed "s/%03a/$(printf %03d "$t")/; s/%a/$t/")
	sha256sum "$DL_CACHE_VIEW$f" | sed "s#$DL_CACHE_VIEW##"
	if [ -L "$DL_CACHE_VIEW$f" ]; then echo "kind=symlink $f"
	elif [ -f "$DL_CACHE_VIEW$f" ]; then echo "kind=file $f"
	else echo "kind=missing $f"; fi
done
JOB
chmod 755 "$out/job.sh"

# submit ARRAY COMMENT FILE... : sbatch as nobody; prints the job id, or
# sbatch's error (and returns 1) when it is refused.
submit() {
	local array=$1 comment=$2
	shift 2
	sbatch --parsable --uid=nobody --gid=nogroup --chdir="$out" \
		${array:+--array=$array} -o "$out/%A_%a.out" \
		--comment="$comment" "$out/job.sh" "$@" 2>&1
}

# check_task JOBID TASK FILE... : the task completed and read each FILE
# (its own path) with the right bytes, staged.
check_task() {
	local id=$1 t=$2 o=$out/$1_$2.out state f sum
	shift 2
	state=$(dl_cluster_job_field "${id}_$t" JobState)
	[ "$state" = COMPLETED ] || { echo "  ${id}_$t: $state"; cat "$o" 2>/dev/null; return 1; }
	for f in "$@"; do
		sum=$(grep "  $f\$" "$sums" | cut -d' ' -f1)
		grep -qx "$sum  $f" "$o" || { echo "  ${id}_$t: wrong or no bytes for $f"; cat "$o"; return 1; }
		grep -qx "kind=file $f" "$o" || { echo "  ${id}_$t: $f not staged"; cat "$o"; return 1; }
	done
}

# --- (a) ten tasks, ten inputs ------------------------------------------------
aid=$(submit 0-9 "files:$data/shared,$data/in_%a" "$data/shared" "$data/in_%a")
echo "  array job: $aid"
dl_t_check "(a) the array is accepted" test -n "$aid" -a "$aid" -eq "$aid"
dl_cluster_wait_jobs_done 180
bad=0
for t in $(seq 0 9); do
	check_task "$aid" "$t" "$data/shared" "$data/in_$t" || bad=$((bad + 1))
done
dl_t_eq "(a) all 10 tasks read their own in_<task> and the shared file, staged, through \$DL_CACHE_VIEW" 0 "$bad"

# --- (b) task 5's input missing: refused at submit ----------------------------
mv "$data/in_5" "$data/moved_in_5"
rc=0
msg=$(submit 0-9 "files:$data/shared,$data/in_%a" "$data/in_%a") || rc=$?
echo "  sbatch: $msg"
dl_t_check "(b) sbatch fails" test "$rc" -ne 0
dl_t_check "(b) the message names task 5 and its file" \
	grep -q "files: task 5: $data/in_5: No such file or directory" <<<"$msg"
# only task 5 is missing: a range without it is accepted
aid2=$(submit 6-7 "files:$data/in_%a" "$data/in_%a")
dl_t_check "(b) tasks 6-7 of the same annotation are accepted" test "$aid2" -eq "$aid2"
mv "$data/moved_in_5" "$data/in_5"
# 1000 tasks, inputs only for 0-9: a sample of 64 is checked (0, 15, 31,
# ... 999), not every task, so the first refused is 15, not 10
rc=0
msg=$(submit 0-999 "files:$data/in_%a" "$data/in_%a") || rc=$?
echo "  sbatch: $msg"
dl_t_check "(b) a 1000-task array is checked on a sample: refused at task 15" \
	test "$rc" -ne 0 -a -n "$(grep "files: task 15: $data/in_15: No such file" <<<"$msg")"

# --- (c) padding, list files, refusals -------------------------------------------
aid3=$(submit 7 "files:$data/pad_%03a,@$data/list_%a" "$data/pad_%03a" "$data/listed_%a")
dl_t_check "(c) --array=7 with %03a and @list_%a is accepted" test "$aid3" -eq "$aid3"
dl_cluster_wait_jobs_done 120
dl_t_check "(c) task 7 read pad_007 and listed_7 (named in list_7), staged" \
	check_task "$aid3" 7 "$data/pad_007" "$data/listed_7"
rc=0
msg=$(submit "" "files:$data/in_%a" "$data/in_0") || rc=$?
echo "  sbatch: $msg"
dl_t_check "(c) %a outside an array is refused at submit" \
	test "$rc" -ne 0 -a -n "$(grep 'not an array job' <<<"$msg")"
rc=0
msg=$(submit 0-1 "files:$data/in_%q" "$data/in_0") || rc=$?
echo "  sbatch: $msg"
dl_t_check "(c) an unknown pattern is refused at submit" \
	test "$rc" -ne 0 -a -n "$(grep "unknown pattern '%q'" <<<"$msg")"
# The REQUEST_JOB_INFO_SINGLE RPCs slurmctld logged after line $1 of its
# log: what dl-stage's squeue -j sends (scontrol show job too: none is
# run between a mark and its count).
ctld_log=$(dl_cluster_log_ctld)
single_rpcs() {
	tail -n +"$(($1 + 1))" "$ctld_log" |
		grep -c 'received opcode REQUEST_JOB_INFO_SINGLE' || true
}
scontrol setdebugflags +Protocol
# (d) patterns inside a list file: one list for every task, its line
# in_%a expanded for each task by the agent and the nodes alike.
mark=$(wc -l <"$ctld_log")
aid4=$(submit 2-4 "files:@$data/list_in" "$data/in_%a")
echo "  array with a pattern in its list's line: $aid4"
dl_t_check "(d) --array=2-4 naming @list_in (line in_%a) is accepted" \
	test -n "$aid4" -a "$aid4" -eq "$aid4"
dl_cluster_wait_jobs_done 120
n=$(single_rpcs "$mark")
echo "  squeue -j RPCs while tasks 2-4 ran: $n"
dl_t_check "(e) each of tasks 2-4 (list line in_%a) asked slurmctld for its task id" \
	test "$n" -ge 3
bad=0
for t in 2 3 4; do
	check_task "$aid4" "$t" "$data/in_$t" || bad=$((bad + 1))
done
dl_t_eq "(d) tasks 2-4 each read their own in_<task> named by the list's line, staged" 0 "$bad"
# a task whose expanded line names a missing file is refused at submit,
# naming the task, the list and the line
mv "$data/in_1" "$data/moved_in_1"
rc=0
msg=$(submit 0-3 "files:@$data/list_in" "$data/in_0") || rc=$?
echo "  sbatch: $msg"
dl_t_check "(d) a list line naming a missing file for task 1 is refused at submit, naming the task, list and line" \
	test "$rc" -ne 0 -a -n "$(grep -F "files: task 1: list file $data/list_in, line $data/in_%a: $data/in_1: No such file" <<<"$msg")"
mv "$data/moved_in_1" "$data/in_1"
dl_cluster_wait_jobs_done 60
# (e) a task whose list holds only plain paths (list_7: listed_7, and a
# comment line with a '%'): staged without asking slurmctld anything.
echo "# 100% plain" >>"$data/list_7"
mark=$(wc -l <"$ctld_log")
aid5=$(submit 7 "files:@$data/list_7" "$data/listed_7")
dl_t_check "(e) --array=7 naming @list_7 (plain paths) is accepted" \
	test -n "$aid5" -a "$aid5" -eq "$aid5"
dl_cluster_wait_jobs_done 120
n=$(single_rpcs "$mark")
echo "  squeue -j RPCs while the task of a plain list ran: $n"
dl_t_eq "(e) a task whose list holds no pattern makes no squeue call" 0 "$n"
dl_t_check "(e) that task read listed_7, staged" \
	check_task "$aid5" 7 "$data/listed_7"
dl_t_summary
