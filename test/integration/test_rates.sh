#!/usr/bin/env bash
# shellcheck disable=SC2016 # conditions are eval'd by dl_t_check
# test_rates.sh - the controller learns the copy rates from what the nodes
# measure (agent_rates.h), on a cluster whose nodes keep their caches to
# themselves (namespaced nodes with dl-cached, as in test_service.sh), 2
# nodes of 1 CPU, LearnRatesMinBytes=1M, LearnRatesMinReports=2:
#
#  (a) before any copy, `sdatalocality rates` shows the configured rates
#      (StorageBandwidth=50M, PeerBandwidth=1e11) in use, as priors;
#  (b) one job on n1 copies a 4 MiB file from the storage: n1's dl-cached
#      logs the copy's bytes and time; one report is not enough
#      (MinReports=2): plans still use the prior, and sdatalocality shows
#      the measured rate of that report alone;
#  (c) a second job on n1 copies another 4 MiB file: sdatalocality shows
#      the measured storage rate equal to the decayed ratio the test
#      computes from the two reports (dl-cached's logged bytes and
#      microseconds, as sent), plans use it
#      (source learned), and slurmctld's log says the learned rate
#      replaced the prior;
#  (d) jobs on n2 read both files, copied from n1's cache (peer copies):
#      the measured peer rate equals the ratio computed from n2's two
#      reports, plans use it, slurmctld's log says so; a job reading a
#      file smaller than LearnRatesMinBytes is counted as small and
#      changes no rate;
#  (e) the plans price with the learned rates: a job reading both files
#      (Policy=locality) waits for busy n1, and its Reason's bound is
#      WaitFactor (10000) x its 8 MiB / the rate plans use (the peer rate if
#      above the storage one, n1's service being connected), as
#      sdatalocality shows it, not the prior's (8 MiB / 1e11 B/s: MinWait,
#      1 s);
#  (f) after a restart of slurmctld the learned rates are restored from
#      StateSaveLocation/datalocality_rates: the same, still used.
# No check is on a speed: the rates are checked against the bytes and
# times the nodes reported, whatever they are.
#
# Needs DL_BUILD_DIR (plugins, dl-stage, dl-cached); runs as root; about
# 45 s.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${DL_BUILD_DIR:?set DL_BUILD_DIR to a build tree with the plugins}"
# shellcheck source=../cluster/cluster.sh
source "$here/../cluster/cluster.sh"
# shellcheck source=lib.sh
source "$here/lib.sh"

dl_t_use_services test_rates 2
sdl="$DL_BUILD_DIR/sdatalocality"
trap dl_cluster_stop EXIT
dl_cluster_init
cat >"$DL_CLUSTER_DIR/etc/datalocality.conf" <<CONF
CacheDir=$DL_NODE_CACHE_DIR
CacheCapacity=64M
StorageBandwidth=50M
PeerBandwidth=100000000000
Policy=locality
PolicyParameters=slack=10
WaitFactor=10000
MinWait=1
MaxWait=3600
LearnRatesMinBytes=1M
LearnRatesMinReports=2
$(dl_cluster_service_conf)
CONF
data=$DL_CLUSTER_DIR/data
out=$DL_CLUSTER_DIR/out
chmod 1777 "$out"
dl_cluster_start

f1=$data/rates/f1
f2=$data/rates/f2
small=$data/rates/small
dl_t_mkfile "$f1" 4
dl_t_mkfile "$f2" 4
mkdir -p "$(dirname "$small")"
head -c 65536 /dev/urandom >"$small"
chmod -R a+rX "$data"
sleep 2 # past "recently changed" (dl-stage checks such files by content)

cached_log() { cat "$DL_CLUSTER_DIR/log/cached.$1.out" 2>/dev/null || true; }
ctld_log() { cat "$(dl_cluster_log_ctld)"; }
model_files() { "$sdl" files "$1" 2>/dev/null | tail -n +2 | awk '{ print $5 }' | sort || true; }
# rate KIND FIELD : FIELD of KIND in `sdatalocality --json rates`
# ("used", "source", "configured", "measured", "reports", "small"...)
rate() {
	"$sdl" --json rates 2>/dev/null | python3 -c '
import json, sys
r = [x for x in json.load(sys.stdin)["rates"] if x["kind"] == sys.argv[1]]
print(r[0][sys.argv[2]] if r else "")' "$1" "$2" 2>/dev/null || true
}
# run NODE FILE : a job of nobody reading FILE on NODE; waits for its end
run() {
	local j
	j=$(sbatch --parsable --uid=nobody --gid=nogroup --chdir="$out" -o "$out/%j.out" -w "$1" \
		--comment="files:$2" --wrap "cat \"\$DL_CACHE_VIEW$2\" >/dev/null")
	dl_t_wait_state "$j" COMPLETED 60 >/dev/null || true
	echo "$j"
}
# copies NODE JOB KIND : "BYTES US" of KIND (storage, peers) that NODE's
# dl-cached logged for JOB's staging
copies() {
	cached_log "$1" | sed -n "s/.*job $2: .* copies: storage \([0-9]*\) bytes in \([0-9]*\) us, peers \([0-9]*\) bytes in \([0-9]*\) us.*/\1 \2 \3 \4/p" |
		tail -1 | awk -v k="$3" '{ if (k == "storage") print $1, $2; else print $3, $4 }'
}
# expect "BYTES US"... : the learned rate of these reports, oldest first,
# as the agent computes it (sums decayed by DECAY)
expect() {
	printf '%s\n' "$@" | awk -v d="$decay" '
		{ b = b * d + $1; s = s * d + $2 / 1e6 }
		END { if (s > 0) printf "%.0f\n", b / s; else print "none" }'
}
# close A B : A and B within 1 B/s (both printed with %.0f from doubles)
close() { [[ $1 =~ ^[0-9]+$ && $2 =~ ^[0-9]+$ ]] && [ $(($1 - $2)) -le 1 ] && [ $(($2 - $1)) -le 1 ]; }
state_dir=$(sed -n 's/^StateSaveLocation=//p' "$SLURM_CONF" | tail -1)
connected() { "$sdl" --json stats 2>/dev/null | grep -q '"connected":true'; }
dl_t_wait_until 20 connected || true
has_rates() { [ -s "$state_dir/datalocality_rates" ]; }
dl_t_wait_until 20 has_rates || true
decay=$(sed -n 's/^rate storage .* decay=\([^ ]*\).*/\1/p' "$state_dir/datalocality_rates" 2>/dev/null || true)
echo "  rates file: $state_dir/datalocality_rates (decay ${decay:-?})"

# --- (a) the priors --------------------------------------------------------
dl_t_check "(a) before any copy, plans use the configured rates: storage $((50 << 20)), peer 100000000000 (priors)" \
	eval '[ "$(rate storage used)" = $((50 << 20)) ] && [ "$(rate storage source)" = prior ] &&
		[ "$(rate peer used)" = 100000000000 ] && [ "$(rate peer source)" = prior ]'
"$sdl" rates | sed 's/^/  /'

# --- (b) one storage copy: measured, not yet used ---------------------------
a=$(run n1 "$f1")
sa=$(copies n1 "$a" storage)
echo "  job $a on n1: storage copy (bytes us) '$sa'"
dl_t_check "(b) job $a's copy of 4 MiB from the storage is in n1's dl-cached log with its time" \
	eval '[[ $sa =~ ^4194304\ [0-9]+$ ]]'
reported() { [ "$(rate "$1" reports)" = "$2" ]; }
dl_t_check "(b) ... the controller took its report (sdatalocality: 1 report)" \
	dl_t_wait_until 20 reported storage 1
want=$(expect "$sa")
dl_t_check "(b) ... measured storage rate = its bytes / its time ($want B/s; shown $(rate storage measured))" \
	eval 'close "$(rate storage measured)" "$want"'
dl_t_check "(b) ... one report of 2: plans still use the prior" \
	eval '[ "$(rate storage source)" = prior ] && [ "$(rate storage used)" = $((50 << 20)) ]'

# --- (c) the second: learned, used, logged ------------------------------------
b=$(run n1 "$f2")
sb=$(copies n1 "$b" storage)
echo "  job $b on n1: storage copy (bytes us) '$sb'"
dl_t_check "(c) job $b's copy is in n1's log, and the controller took it (2 reports)" \
	eval '[[ $sb =~ ^4194304\ [0-9]+$ ]] && dl_t_wait_until 20 reported storage 2'
want=$(expect "$sa" "$sb")
dl_t_check "(c) ... measured storage rate = the decayed ratio of the two reports ($want B/s; shown $(rate storage measured))" \
	eval 'close "$(rate storage measured)" "$want"'
dl_t_check "(c) ... plans use it (source learned, used = measured)" \
	eval '[ "$(rate storage source)" = learned ] && close "$(rate storage used)" "$want"'
logged() { ctld_log | grep -q "$1 rate for plans: learned $2 B/s (learned $2 B/s from 2 reports, configured $3 B/s)"; }
dl_t_check "(c) ... slurmctld's log says the learned storage rate replaced the prior" \
	dl_t_wait_until 10 logged storage "$(rate storage used)" $((50 << 20))
"$sdl" rates | sed 's/^/  /'

# --- (d) peer copies ------------------------------------------------------------
dl_t_wait_until 10 eval 'model_files n1 | grep -qx "$f1" && model_files n1 | grep -qx "$f2"' || true
c=$(run n2 "$f1")
d=$(run n2 "$f2")
pc=$(copies n2 "$c" peers)
pd=$(copies n2 "$d" peers)
echo "  jobs $c $d on n2: peer copies (bytes us) '$pc' '$pd'"
dl_t_check "(d) jobs $c and $d on n2 copied the files from n1's cache (n2's dl-cached log)" \
	eval '[[ $pc =~ ^4194304\ [0-9]+$ && $pd =~ ^4194304\ [0-9]+$ ]]'
dl_t_check "(d) ... the controller took both peer reports" \
	dl_t_wait_until 20 reported peer 2
want=$(expect "$pc" "$pd")
dl_t_check "(d) ... measured peer rate = the decayed ratio of n2's reports ($want B/s; shown $(rate peer measured)), plans use it" \
	eval 'close "$(rate peer measured)" "$want" && [ "$(rate peer source)" = learned ] &&
		close "$(rate peer used)" "$want"'
dl_t_check "(d) ... slurmctld's log says the learned peer rate replaced the prior" \
	dl_t_wait_until 10 logged peer "$(rate peer used)" 100000000000
# A copy below LearnRatesMinBytes measures latency: counted, not learned.
stor=$(rate storage measured) # read in the eval below
export stor
e=$(run n1 "$small")
small_seen() { [ "$(rate storage small)" = 1 ]; }
dl_t_check "(d) a 64 KiB copy (job $e) is counted as small and changes no rate" \
	eval 'dl_t_wait_until 20 small_seen && [ "$(rate storage reports)" = 2 ] &&
		[ "$(rate storage measured)" = "$stor" ]'
"$sdl" rates | sed 's/^/  /'
dl_t_check "sdatalocality --json rates: both kinds, as sdatalocality rates" \
	eval '"$sdl" --json rates | grep -q "\"kind\":\"storage\",\"used\":$(rate storage used),\"source\":\"learned\"" &&
		"$sdl" rates | grep -q "^  peer: plans use $(rate peer used) B/s (learned)"'

# --- (e) plans price with them ---------------------------------------------------
long=$(sbatch --parsable --uid=nobody --gid=nogroup --chdir="$out" -o /dev/null -w n1 --wrap "sleep 600")
dl_t_wait_state "$long" RUNNING 60 >/dev/null || true
w=$(sbatch --parsable --uid=nobody --gid=nogroup --chdir="$out" -o /dev/null \
	--comment="files:$f1,$f2" --wrap "cat \"\$DL_CACHE_VIEW$f1\" >/dev/null")
r=$(dl_t_wait_reason "$w" '^DataLocality:_waiting_for_n1_' 30) || r=
got=$(sed -n 's/.*any_node_after_\([0-9]*\)_s_blocked.*/\1/p' <<<"$r")
su=$(rate storage used)
pu=$(rate peer used)
want=$(awk -v s="$su" -v p="$pu" 'BEGIN { r = p > s ? p : s; b = 10000 * 8388608 / r;
	if (b < 1) b = 1; if (b > 3600) b = 3600; printf "%.0f\n", b }')
echo "  job $w: $r (rates used: storage $su, peer $pu B/s: bound $want s expected)"
dl_t_check "(e) job $w waits for busy n1, its bound priced at the learned rate: $want s (got ${got:-none}; the prior would give 1 s)" \
	eval '[[ $got =~ ^[0-9]+$ && $want =~ ^[0-9]+$ ]] && [ $((got - want)) -le 1 ] &&
		[ $((want - got)) -le 1 ] && [ "$got" -gt 1 ]'
scancel "$w" "$long" 2>/dev/null || true

# --- (f) a restart of slurmctld keeps what was learned ------------------------------
sm=$(rate storage measured)
pm=$(rate peer measured)
dl_cluster_restart_slurmctld
restored() { ctld_log | grep -q "copy rates learned before restored from .*datalocality_rates (2 kinds)"; }
dl_t_check "(f) after a restart, slurmctld restores the learned rates (its log)" \
	dl_t_wait_until 30 restored
dl_t_check "(f) ... sdatalocality shows them as before ($sm, $pm B/s; now $(rate storage measured), $(rate peer measured)), used by plans" \
	eval 'dl_t_wait_until 10 eval "[ \"\$(rate peer measured)\" = $pm ]" && [ "$(rate storage measured)" = "$sm" ] &&
		[ "$(rate storage source)" = learned ] && [ "$(rate peer source)" = learned ] &&
		[ "$(rate peer reports)" = 2 ] && [ "$(rate storage reports)" = 2 ]'

dl_t_summary
