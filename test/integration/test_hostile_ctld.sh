#!/usr/bin/env bash
# test_hostile_ctld.sh - hostile input against slurmctld's side of the
# plugins, on a real local cluster (jobs submitted as the unprivileged user
# nobody):
#  (a) list files are read as the job's user: a file in a directory only
#      root may search, directly or through a symlink, is refused, with no
#      word of its content, and with the same answer as a missing file;
#  (b) a malformed list the user may read is refused by line number,
#      without quoting it;
#  (c) a held job naming 200,000 files does not stall anyone: a victim job
#      starts at once; a runnable job above MaxFilesPerJob runs without
#      placement and its Reason or log says so;
#  (d) memory returns: the paths of cancelled jobs are released;
#  (e) many files without a list file: #DL directives in the script are
#      checked at submit (errors name the script line) and the job is
#      placed by them; Slurm's 1,024-byte comment limit is real;
#  (f) strict readers: garbage inventory lines are not taken as paths; a
#      state path that cannot be written is reported once, not every second;
#  (g) no existence or size oracle (issue 27): a job naming another user's
#      0600 file that n1 caches is not placed by it, and its Reason and
#      SystemComment say nothing of it, while the same job of a user who
#      may read the file is placed on n1 with the file's bytes cached.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${DL_BUILD_DIR:?set DL_BUILD_DIR to a build tree with the plugins}"
# shellcheck source=../cluster/cluster.sh
source "$here/../cluster/cluster.sh"
# shellcheck source=lib.sh
source "$here/lib.sh"

dl_t_use_build
export DL_NODES=2
trap dl_cluster_stop EXIT
dl_cluster_init
printf 'MaxFilesPerJob=10000\nCacheDir=%s/cache/%%n\n' "$DL_CLUSTER_DIR" \
	>"$DL_CLUSTER_DIR/etc/datalocality.conf"
dl_cluster_start
log=$(dl_cluster_log_ctld)
out=$DL_CLUSTER_DIR/out
chmod 1777 "$out"
as_nobody() { sbatch --parsable --uid=nobody --gid=nogroup --chdir="$out" -o /dev/null "$@"; }
refused() { # refused COMMENT -> sbatch's error, rc 0 if sbatch refused
	local err
	if err=$(as_nobody --comment="$1" --wrap true 2>&1); then
		echo "accepted: $err"
		return 1
	fi
	echo "$err"
}

# --- (a) secrets stay secret ------------------------------------------------
secret=$DL_CLUSTER_DIR/private
mkdir -p "$secret"
chmod 700 "$secret"
printf '/data/ok\nTOPSECRET-7f3a the password is hunter2\n' >"$secret/list"
chmod 644 "$secret/list"
ln -sfn "$secret/list" "$out/link-to-list"
msg_secret=$(refused "files:@$secret/list") || true
msg_link=$(refused "files:@$out/link-to-list") || true
msg_missing=$(refused "files:@$secret/nothing-here") || true
echo "  secret:  $msg_secret"
echo "  link:    $msg_link"
echo "  missing: $msg_missing"
for m in "$msg_secret" "$msg_link"; do
	dl_t_check "(a) refused without content: ${m:0:60}..." \
		bash -c '! grep -qiE "TOPSECRET|hunter2|password|accepted" <<<"$0" && grep -q "does not exist or you may not read it" <<<"$0"' "$m"
done
norm() { sed "s|$1||" <<<"$2"; }
dl_t_eq "(a) unreadable and missing list files get the same answer" \
	"$(norm "$secret/nothing-here" "$msg_missing")" "$(norm "$secret/list" "$msg_secret")"
dl_t_check "(a) nothing of the secret in slurmctld's log either" \
	bash -c "! grep -q 'TOPSECRET' '$log'"

# --- (b) a bad list the user may read: line number, no quote -------------
printf '/data/a\n/data/b\nSECRETLINE-not-a-path\n' >"$out/bad.list"
chmod 644 "$out/bad.list"
msg=$(refused "files:@$out/bad.list") || true
echo "  bad list: $msg"
dl_t_check "(b) a malformed list is refused by line number, unquoted" \
	bash -c 'grep -q "list line 3: path must be absolute" <<<"$0" && ! grep -q SECRETLINE <<<"$0"' "$msg"

# --- (c) one huge held job stalls no one ------------------------------------
seq -f '/nonexistent/huge/file%07g' 1 200000 >"$out/huge.list"
chmod 644 "$out/huge.list"
t0=$(date +%s.%N)
big=$(as_nobody --hold --comment="files:@$out/huge.list" --wrap true)
t1=$(date +%s.%N)
echo "  a 200,000-file job submitted in $(echo "$t1 - $t0" | bc) s"
victim=$(as_nobody --comment="files:/etc/hostname" --wrap true)
t2=$SECONDS
until [ "$(dl_cluster_job_field "$victim" JobState)" = COMPLETED ] ||
      [ $((SECONDS - t2)) -ge 20 ]; do sleep 0.2; done
# Slurm's own record of when it was submitted and started.
waited=$(( $(date -d "$(dl_cluster_job_field "$victim" StartTime)" +%s) -
	   $(date -d "$(dl_cluster_job_field "$victim" SubmitTime)" +%s) ))
dl_t_check "(c) with a held 200,000-file job pending, a victim job starts within 5 s ($waited s)" \
	test "$waited" -le 5
scontrol release "$big"
deadline=$((SECONDS + 30))
until [ "$(dl_cluster_job_field "$big" JobState)" = COMPLETED ] ||
      [ $SECONDS -ge $deadline ]; do sleep 0.3; done
dl_t_eq "(c) the released huge job ran (without placement)" COMPLETED \
	"$(dl_cluster_job_field "$big" JobState)"
dl_t_check "(c) its size was reported: above MaxFilesPerJob" \
	grep -q "JobId=$big names 200000 files, above MaxFilesPerJob=10000: no placement" "$log"
# A job that started and ended between two cycles is reported by the next.
dl_t_check "(c) and its start says it had no placement" \
	dl_t_wait_until 10 grep -q "started JobId=$big on [^ ]* (no placement" "$log"
dl_t_check "(c) slurmctld is up" bash -c 'scontrol ping | grep -q UP'

# --- (d) paths of jobs that are gone are released ---------------------------
# An array of 12 tasks of 9,000 distinct files each waits behind a job
# holding every node; its tasks are planned (so their paths are
# interned), then cancelled.  One array, so one scancel RPC cancels all
# 12 under one job write lock: with 12 jobs, a cycle could read the queue
# between two of the kill RPCs and compact while the last ones were still
# pending, rightly keeping their paths.
blocker=$(as_nobody -N "$DL_NODES" --exclusive --wrap "sleep 30")
for j in $(seq 1 12); do
	seq -f "/nonexistent/gone$j/file%05g" 1 9000 >"$out/gone$j.list"
	chmod 644 "$out/gone$j.list"
done
gone=$(as_nobody --array=1-12 --comment="files:@$out/gone%a.list" --wrap true)
# Only these tasks name 9,000 files: earlier sections' placements are in
# the same log, and cancelling before all 108,000 paths are interned
# leaves fewer than the compaction threshold (100,000).
placed_gone() { grep -c "placed JobId=[0-9]* on [^ ]* ([0-9]*/9000 files" "$log"; }
deadline=$((SECONDS + 60))
until [ "$(placed_gone)" -ge 12 ] || [ $SECONDS -ge $deadline ]; do
	sleep 0.5
done
echo "  $(placed_gone) of the 12 tasks planned before they are cancelled"
scancel "$gone"
scancel "$blocker"
deadline=$((SECONDS + 20))
until grep -q 'cache model compacted' "$log" || [ $SECONDS -ge $deadline ]; do
	sleep 0.5
done
line=$(grep 'cache model compacted' "$log" | tail -1 || true)
echo "  ${line#*: }"
kept=$(sed -n 's/.*compacted: [0-9]* paths, \([0-9]*\) still referred to.*/\1/p' <<<"$line")
dl_t_check "(d) the 108,000 paths of cancelled jobs were released (${kept:-none} kept)" \
	test -n "$kept" -a "${kept:-999999}" -lt 1000
victim=$(as_nobody --comment="files:/etc/hostname" --wrap true)
deadline=$((SECONDS + 20))
until [ "$(dl_cluster_job_field "$victim" JobState)" = COMPLETED ] ||
      [ $SECONDS -ge $deadline ]; do sleep 0.2; done
dl_t_eq "(d) jobs still run after the compaction" COMPLETED \
	"$(dl_cluster_job_field "$victim" JobState)"

# --- (e) #DL directives -----------------------------------------------------
mkdir -p "$DL_CLUSTER_DIR/data"
for f in 1 2 3; do echo "$f" >"$DL_CLUSTER_DIR/data/in$f"; done
chmod -R a+rX "$DL_CLUSTER_DIR/data"
{
	echo '#!/bin/sh'
	echo '#SBATCH -t 5'
	# 60 lines of 40 paths: far beyond what a comment may hold.
	for l in $(seq 1 60); do
		printf '#DL files:'
		seq -f "/nonexistent/dl/l${l}f%03g" 1 40 | paste -sd,
	done
	echo "#DL files:$DL_CLUSTER_DIR/data/in1,$DL_CLUSTER_DIR/data/in2"
	echo 'true'
} >"$out/many.sh"
many=$(as_nobody "$out/many.sh")
deadline=$((SECONDS + 20))
until [ "$(dl_cluster_job_field "$many" JobState)" = COMPLETED ] ||
      [ $SECONDS -ge $deadline ]; do sleep 0.2; done
dl_t_check "(e) a script naming 2,402 files in #DL lines is placed by them" \
	grep -q "placed JobId=$many on [^ ]* (0/2402 files" "$log"
printf '#!/bin/sh\n#SBATCH -t 5\n#DL files:relative/path\ntrue\n' >"$out/bad.sh"
msg=$(as_nobody "$out/bad.sh" 2>&1) && msg="accepted: $msg"
echo "  bad #DL: $msg"
dl_t_check "(e) a bad #DL line is refused at submit, naming its line" \
	grep -q "script line 3: .*absolute" <<<"$msg"
long="files:$(seq -f '/d/f%06g' 1 100 | paste -sd,)"
msg=$(as_nobody --comment="$long" --wrap true 2>&1) && msg="accepted: $msg"
dl_t_check "(e) a ${#long}-byte comment is refused by Slurm itself" \
	bash -c '! grep -q accepted <<<"$0"' "$msg"

# --- (f) strict readers -----------------------------------------------------
mkdir -p "$DL_CLUSTER_DIR/cache/n1"
printf '%s\n' "/data/good/file 100" "/a b/c 100" "not a path 5" \
	"/data/neg -5" "/data/../etc/shadow 1" "/data/huge 99999999999999999999999" \
	>"$DL_CLUSTER_DIR/cache/n1/.inventory"
# read at most once a second: wait (bounded) until it has been
dl_t_wait_until 10 grep -q 'n1/.inventory: 5 lines are not' "$log" || true
files=$("$DL_BUILD_DIR/sdatalocality" files n1 2>&1 || true)
echo "$files" | sed 's/^/  /'
dl_t_check "(f) the valid inventory line is in the model" grep -q '/data/good/file' <<<"$files"
dl_t_check "(f) garbage lines are not taken as paths" \
	bash -c '! grep -qE "^ */a( |$)|/etc/shadow|/data/neg|/data/huge|not" <<<"$0"' "$files"
dl_t_check "(f) the garbage was reported" \
	grep -q 'n1/.inventory: 5 lines are not "<path> <size>", ignored' "$log"
state=$DL_CLUSTER_DIR/state/datalocality_state
rm -f "$state"
mkdir "$state"
# Saves are tried once a second: the first failure is reported (however
# late a busy host is), the next 4 s of failures are not.
dl_t_wait_until 10 grep -q "cannot save $state" "$log" || true
sleep 4
n=$(grep -c "cannot save $state" "$log" || true)
dl_t_eq "(f) a state path that is a directory is reported once in 4 s" 1 "$n"
rmdir "$state"

# --- (g) no oracle ------------------------------------------------------------
secret=$DL_CLUSTER_DIR/secret
mkdir -p "$secret"
dl_t_mkfile "$secret/victim.dat" 3
chmod 0600 "$secret/victim.dat"
chmod 0755 "$secret"   # the directory is searchable: only the file is not
printf 'mine\n' >"$out/mine.dat"
chmod 0644 "$out/mine.dat"
printf '%s\n' "# dl-stage inventory 1 node=n1" \
	"$secret/victim.dat $((3 << 20))" >"$DL_CLUSTER_DIR/cache/n1/.inventory"
# The agent reads an inventory file at most once a second: the control
# job is submitted once the model holds the file (root sees it), so that
# it is not planned on the model before (in one CI run on 24.11 it was
# placed on n2 with 0 B cached and never moved: both nodes busy).
dl_t_wait_until 30 bash -c "\"$DL_BUILD_DIR/sdatalocality\" files n1 2>&1 | grep -q '$secret/victim.dat'" ||
	echo "  (the model did not show $secret/victim.dat on n1 within 30 s)"
busy=()
for n in n1 n2; do
	busy+=("$(sbatch --parsable -w "$n" -o /dev/null --wrap 'sleep 600')")
done
ann="files:$secret/victim.dat,$out/mine.dat"
control=$(sbatch --parsable --chdir="$out" -o /dev/null --comment="$ann" \
	--wrap true)
attack=$(as_nobody --comment="$ann" --wrap true 2>&1) || attack=
placed() { scontrol show job "$1" | grep -q "3.0 MiB cached"; }
dl_t_check "(g) control: root's job is placed by the cached file" \
	dl_t_wait_until 60 placed "$control"
if [ -n "$attack" ]; then
	sleep 3 # a few more agent cycles
	scontrol show job "$attack" | grep -E 'Reason|SystemComment' | sed 's/^/  /'
	dl_t_check "(g) nobody's job says nothing of the file it may not read" \
		bash -c "! scontrol show job '$attack' | grep -qE 'MiB cached|[1-9][0-9.]* ?[KMG]i?B cached'"
else
	dl_t_ok "(g) nobody's job naming a file it may not read was refused at submit"
fi
scancel "${busy[@]}" "$control" ${attack:+"$attack"} 2>/dev/null || true

dl_t_summary
