#!/usr/bin/env bash
# shellcheck disable=SC2016
# test_accounting.sh - what staging really found for a job reaches
# accounting (issue 26, item 7): dl-cached sends each job's staging report
# to the controller, the agent writes it into the job's AdminComment, and
# slurmdbd stores it, on a cluster with a REAL slurmdbd and MariaDB
# server of its own (DL_CLUSTER_SLURMDBD=1, test/cluster/cluster.sh; both
# started and stopped by PID), 2 namespaced nodes with dl-cached.
#
# Two files (2 MiB and 1 MiB) on the shared storage:
#  (a) daemon's job on n1 reads both cold: sacct shows for it
#      "storage=2/3145728" and nothing cached, the counts dl-cached logged
#      for the job, and a positive staged_s;
#  (b) daemon's second job on n1 finds both cached: "cached=2/3145728";
#  (c) nobody's job on n2 reads the 2 MiB file, which only n1's cache
#      holds: copied from n1 (peer=1/2097152) or, if the peer could not
#      serve, from the storage; either way the record says which and
#      matches dl-cached's log line;
#  (e) daemon's job on n1 and n2 reading the 1 MiB file (a step on both
#      nodes, so that both stage): the record sums the nodes (nodes=2,
#      files=2; n1 found it cached, n2 copied it);
#  (f) with a slow agent (TestCycleDelay), three short jobs reading the
#      cached 1 MiB file on n1: every record reaches slurmdbd, also when
#      the job ended before its record was written (its completion is sent
#      again; how many did is said);
#  (d) `sdatalocality report` (and --json) sums the jobs per user: daemon
#      6 jobs, 9 files, 6 cached, 3 copied; nobody 1 job, 1 file;
#  (g) a job staged on n1 while slurmctld restarts (its Prolog held until
#      slurmctld is down): dl-cached keeps the report and sends it after
#      the next inventory, and the record reaches slurmdbd
#      ("cached=1/2097152").
#
# Installs mariadb-server and slurmdbd if missing (root, apt-get).  Skips
# (77) on a Slurm without the accounting_storage/mysql plugin (a 24.11
# prefix built by contrib/setup-slurm.sh before it configured MariaDB's
# headers; setup-slurm.sh now rebuilds such a prefix).  Runs on 22.05
# and 24.11 (contrib/test.sh's S2_TESTS).
# Needs DL_BUILD_DIR; runs as root; about 80 s.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${DL_BUILD_DIR:?set DL_BUILD_DIR to a build tree with the plugins}"
# shellcheck source=../cluster/cluster.sh
source "$here/../cluster/cluster.sh"
# shellcheck source=lib.sh
source "$here/lib.sh"

if [ "$(id -u)" != 0 ]; then
	echo "test_accounting: needs root (apt-get, namespaces, slurmd)"
	exit 77
fi
if ! command -v mariadb-install-db >/dev/null || ! command -v mysql >/dev/null ||
   { [ -z "${DL_SLURM_PREFIX:-}" ] && ! [ -x /usr/sbin/slurmdbd ]; }; then
	echo "test_accounting: installing mariadb-server slurmdbd"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends mariadb-server slurmdbd >/dev/null ||
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq --no-install-recommends \
			mariadb-server slurmdbd >/dev/null; }
fi
if ! [ -e "$_DL_SLURM_PLUGIN_DIR/accounting_storage_mysql.so" ] ||
   ! [ -x "$_DL_SLURM_SBIN/slurmdbd" ]; then
	echo "test_accounting: no slurmdbd with accounting_storage/mysql in $_DL_SLURM_PLUGIN_DIR: skipped"
	exit 77
fi

dl_t_use_services test_accounting 2
export DL_CLUSTER_SLURMDBD=1
sdl="$DL_BUILD_DIR/sdatalocality"
trap dl_cluster_stop EXIT
dl_cluster_init
cat >"$DL_CLUSTER_DIR/etc/datalocality.conf" <<CONF
CacheDir=$DL_NODE_CACHE_DIR
CacheCapacity=64M
$(dl_cluster_service_conf)
CONF
data=$DL_CLUSTER_DIR/data
out=$DL_CLUSTER_DIR/out
chmod 1777 "$out"
# (g)'s Prolog: dl-stage, held while $hold exists, as a slow staging is;
# it says it waits in $DL_CLUSTER_DIR/run/prolog.JOBID
hold=$DL_CLUSTER_DIR/run/hold_prolog
cat >"$DL_CLUSTER_DIR/run/prolog.sh" <<SH
#!/bin/sh
if [ -e "$hold" ]; then
	: >"$DL_CLUSTER_DIR/run/prolog.\$SLURM_JOB_ID"
	while [ -e "$hold" ]; do sleep 0.2; done
fi
exec "$DL_STAGE" "\$@"
SH
chmod 755 "$DL_CLUSTER_DIR/run/prolog.sh"
sed -i "s|^Prolog=.*|Prolog=$DL_CLUSTER_DIR/run/prolog.sh|" "$DL_CLUSTER_DIR/etc/slurm.conf"
dl_cluster_start
dl_cluster_dbd_users daemon nobody

big=$data/acct/big
small=$data/acct/small
dl_t_mkfile "$big" 2
dl_t_mkfile "$small" 1
chmod -R a+rX "$data"
sleep 2 # past "recently changed" (dl-stage checks such files by content)

connected() {
	"$sdl" --json stats 2>/dev/null | grep -o '"connected":true' | wc -l |
		grep -qx 2
}
dl_t_wait_until 30 connected || echo "  (not every node service connected yet)" >&2

# job USER GROUP NODE FILES : a job reading FILES (comma list) on NODE
job() {
	local files=$4 f cmd=
	for f in ${files//,/ }; do cmd="$cmd cat \"\$DL_CACHE_VIEW$f\" >/dev/null &&"; done
	sbatch --parsable --uid="$1" --gid="$2" --chdir="$out" -o "$out/%j.out" \
		-w "$3" --comment="files:$files" --wrap "$cmd true"
}
# record JOBID : the job's staging record as sacct shows it ("" if none)
record() {
	sacct -n -X -P -j "$1" -o AdminComment%300 2>/dev/null |
		grep -o 'datalocality:[^;]*' || true
}
has_record() { [ -n "$(record "$1")" ]; }
# field JOBID KEY : the value of KEY in the job's record
field() { record "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# logged NODE JOBID : "files cached copied from_peers peer_bytes uncached"
# from dl-cached's line for the job ("job N: 2 files, 0 cached, 2 copied
# (0 from peers, 0 bytes), 0 from source")
logged() {
	sed -n "s/.*job $2: \([0-9]*\) files, \([0-9]*\) cached, \([0-9]*\) copied (\([0-9]*\) from peers, \([0-9]*\) bytes), \([0-9]*\) from source.*/\1 \2 \3 \4 \5 \6/p" \
		"$DL_CLUSTER_DIR/log/cached.$1.out" | tail -1
}
# from_record JOBID : the same six numbers from the job's record
from_record() {
	local c p s d
	c=$(field "$1" cached)
	p=$(field "$1" peer)
	s=$(field "$1" storage)
	d=$(field "$1" direct)
	echo "$(field "$1" files) ${c%/*} $((${p%/*} + ${s%/*})) ${p%/*} ${p#*/} ${d%/*}"
}
# finished JOBID : waits for the job to complete and its record in sacct
finished() {
	dl_t_wait_state "$1" COMPLETED 60 || return 1
	dl_t_wait_until 30 has_record "$1"
}

# (a) cold on n1
a=$(job daemon daemon n1 "$big,$small")
dl_t_check "(a) job $a completed and its record reached slurmdbd" finished "$a"
echo "  sacct: $(sacct -n -X -P -j "$a" -o JobID,User,AdminComment%300 || true)"
dl_t_eq "(a) storage files/bytes" "2/3145728" "$(field "$a" storage)"
dl_t_eq "(a) cached files/bytes" "0/0" "$(field "$a" cached)"
dl_t_eq "(a) the record has dl-cached's counts" "$(logged n1 "$a")" "$(from_record "$a")"
dl_t_check "(a) staged_s is positive" \
	awk -v s="$(field "$a" staged_s)" 'BEGIN { exit !(s + 0 > 0) }'

# (b) warm on n1
b=$(job daemon daemon n1 "$big,$small")
dl_t_check "(b) job $b completed and its record reached slurmdbd" finished "$b"
dl_t_eq "(b) cached files/bytes" "2/3145728" "$(field "$b" cached)"
dl_t_eq "(b) storage files/bytes" "0/0" "$(field "$b" storage)"
dl_t_eq "(b) the record has dl-cached's counts" "$(logged n1 "$b")" "$(from_record "$b")"

# (c) nobody on n2: the file is in n1's cache only
c=$(job nobody nogroup n2 "$big")
dl_t_check "(c) job $c completed and its record reached slurmdbd" finished "$c"
echo "  sacct: $(sacct -n -X -P -j "$c" -o JobID,User,AdminComment%300 || true)"
cp=$(field "$c" peer)
cs=$(field "$c" storage)
dl_t_check "(c) one copy of 2 MiB, from a peer or the storage (peer=$cp storage=$cs)" \
	test "$cp $cs" = "1/2097152 0/0" -o "$cp $cs" = "0/0 1/2097152"
dl_t_eq "(c) the record has dl-cached's counts" "$(logged n2 "$c")" "$(from_record "$c")"

# (e) a job on both nodes: each node's Prolog stages the file (n2's when
# the step reaches it), and the record sums them
e=$(sbatch --parsable --uid=daemon --gid=daemon --chdir="$out" -o "$out/%j.out" \
	-N 2 -w n1,n2 --comment="files:$small" \
	--wrap "srun -N 2 true")
two_nodes() { [ "$(field "$e" nodes)" = 2 ]; }
dl_t_check "(e) 2-node job $e completed and its record reached slurmdbd" finished "$e"
dl_t_wait_until 10 two_nodes || true
echo "  sacct: $(sacct -n -X -P -j "$e" -o JobID,User,AdminComment%300 || true)"
dl_t_eq "(e) the record sums both nodes: files, nodes" "2 2" \
	"$(field "$e" files) $(field "$e" nodes)"
ec=$(field "$e" cached)
dl_t_eq "(e) n1 found the file cached, n2 copied it: cached, copies" \
	"1/1048576 1" "$ec $(($(field "$e" peer | cut -d/ -f1) + $(field "$e" storage | cut -d/ -f1)))"

# (f) a slow agent (TestCycleDelay=3, test-only: each planning cycle 3 s
# longer; the reports wait for the cycle): a job that ends before its
# record is written has its completion sent again with it.  Whether a job
# took that path depends on the timing, so it is said, not checked; that
# every record reaches the database is checked.
ctld_log=$(dl_cluster_log_ctld)
{ grep -v '^TestCycleDelay=' "$DL_CLUSTER_DIR/etc/datalocality.conf"
  echo "TestCycleDelay=3"; } >"$DL_CLUSTER_DIR/etc/datalocality.conf.new"
mv "$DL_CLUSTER_DIR/etc/datalocality.conf.new" "$DL_CLUSTER_DIR/etc/datalocality.conf"
scontrol reconfigure
dl_t_wait_until 30 grep -q "TestCycleDelay=3" "$ctld_log" || true
f=()
for _ in 1 2 3; do f+=("$(job daemon daemon n1 "$small")"); done
for j in "${f[@]}"; do
	dl_t_check "(f) slow agent: job $j's record reached slurmdbd" finished "$j"
done
again=0
for j in "${f[@]}"; do
	grep -q "JobId=$j had ended: its completion sent again" "$ctld_log" &&
		again=$((again + 1))
done
echo "  (f) $again of ${#f[@]} jobs had ended before their record was written"

# (d) the report sums per user
since=$(date -d '-1 hour' +%Y-%m-%dT%H:%M:%S)
# A job that ended seconds before may have no eligible time (nor
# partition) in the database yet, which a plain "sacct -S" leaves out; the
# report selects by state (cli_report.c) and must count it.
sacct -P -X -j "$a,$b,$c" -o JobID,Submit,Eligible,Start,End | sed 's/^/    /' || true
echo "  report:"
"$sdl" report -S "$since" | sed 's/^/    /' || true
json=$("$sdl" report --json -S "$since" || true)
sum() { # USER : "jobs files cached storage+peer" of USER's groups
	printf '%s' "$json" | python3 -c '
import json, sys
g = [x for x in json.load(sys.stdin)["groups"] if x["user"] == sys.argv[1]]
print(sum(x["jobs"] for x in g), sum(x["files"] for x in g),
      sum(x["cached"]["files"] for x in g),
      sum(x["storage"]["files"] + x["peer"]["files"] for x in g),
      sum(x["cached"]["bytes"] for x in g))' "$1"
}
dl_t_eq "(d) daemon: jobs files cached copied cached-bytes" "6 9 6 3 7340032" "$(sum daemon)"
dl_t_eq "(d) nobody: jobs files cached copied cached-bytes" "1 1 0 1 0" "$(sum nobody)"
# (a line per day, user and partition: a job whose record in the database
# has no partition, as some have, is a group of its own, "-")
text=$("$sdl" report -S "$since" || true)
has_users() { grep -q " daemon " <<<"$text" && grep -q " nobody " <<<"$text"; }
dl_t_check "(d) the text report has lines for both users" has_users

# (g) staged while slurmctld restarts: the Prolog of a job on n1 (the big
# file, cached there) waits until slurmctld is down, then stages; the
# report dl-cached makes meanwhile must not be lost (it was before the
# outbox: sent to no one), and reaches slurmdbd once slurmctld is back.
touch "$hold"
g=$(job daemon daemon n1 "$big")
dl_t_check "(g) job $g's Prolog waits on n1" \
	dl_t_wait_until 60 test -e "$DL_CLUSTER_DIR/run/prolog.$g"
staged_g() { grep -q "job $g: [0-9]* files, [0-9]* cached" "$DL_CLUSTER_DIR/log/cached.n1.out"; }
dl_t_check "(g) slurmctld restarted while job $g staged" \
	dl_cluster_restart_slurmctld --while-down \
	'rm -f "$hold"; dl_t_wait_until 60 staged_g || true'
rm -f "$hold"
dl_t_check "(g) job $g staged while slurmctld was down" staged_g
dl_t_check "(g) job $g's record reached slurmdbd" finished "$g"
dl_t_eq "(g) cached files/bytes" "1/2097152" "$(field "$g" cached)"
dl_t_check "(g) dl-cached sent what it kept while disconnected" \
	grep -q "sent [0-9]* messages made while disconnected" \
	"$DL_CLUSTER_DIR/log/cached.n1.out"

dl_t_summary
