# shellcheck shell=bash
# bench_streams.sh - the data and the job kinds of contrib/bench_cluster.sh's
# streams other than its default one (sourced by it).
#
# Each generator writes the input files under DATA and, one job a line,
# "kind files" into KINDS (files comma-separated, "-" for none) and
# "path bytes" of every input file into SIZES, from its seed only (the
# arrival times are bench_cluster.sh's, from the jobs' eq. 6 work).  Kinds:
#   a  annotated, one node, one CPU        p  plain (no input), one CPU
#   m  annotated, one node, --mem=MEM_MB   d  annotated, 2 nodes (-N 2),
#   w  -N 4 --exclusive                       its files read on both
#
# bench_stream_mixed DATA KINDS SIZES (issue 26): the default stream's
# data (8 patients x 4 images of IMG_MIB MiB, a job reads 3 of the 4 of
# one patient) on nodes of 2 CPUs and 1000 MB under CR_Core_Memory, where
# MEM_PCT % of the jobs are m (MEM_MB, 600 by default: one such job a
# node at a time, beside a small one), TWO_PCT % are d, PLAIN_PCT % p, NWIDE
# wide jobs evenly spaced, the rest a.  Uses bash's RANDOM seeded with
# SEED, as the default stream does.
bench_stream_mixed() {
	local data=$1 kinds=$2 sizes=$3 j w kind r p first i
	local img=$((IMG_MIB << 20))
	for p in $(seq 1 8); do
		mkdir -p "$data/p$p"
		for i in 1 2 3 4; do
			head -c "$img" /dev/urandom >"$data/p$p/img$i"
			echo "$data/p$p/img$i $img"
		done
	done >"$sizes"
	chmod -R a+rX "$data"
	RANDOM=$SEED
	: >"$kinds"
	for j in $(seq 1 "$NJOBS"); do
		kind=a
		for w in $(seq 1 "$NWIDE"); do
			[ "$j" = $((w * NJOBS / (NWIDE + 1))) ] && kind=w
		done
		if [ "$kind" = a ]; then
			r=$((RANDOM % 100))
			if [ "$r" -lt "$PLAIN_PCT" ]; then kind=p
			elif [ "$r" -lt $((PLAIN_PCT + MEM_PCT)) ]; then kind=m
			elif [ "$r" -lt $((PLAIN_PCT + MEM_PCT + TWO_PCT)) ]; then kind=d
			fi
		fi
		p=$((RANDOM % 8 + 1)) first=$((RANDOM % 2 + 1))
		case $kind in
		a | m | d) echo "$kind $data/p$p/img$first,$data/p$p/img$((first + 1)),$data/p$p/img$((first + 2))" ;;
		*) echo "$kind -" ;;
		esac >>"$kinds"
	done
}

# bench_stream_genomics DATA KINDS SIZES (issue 30, item 2): dl-zoo's
# "heavy" class (src/sim/zoo.c, doc/workloads.md) scaled to the 4-node
# cluster: NREF (4) large shared references of HEAVY_MIB (24) MiB, each
# job reading one of them with probability HEAVY_SHARE (0.9) plus 2 to 4
# private inputs of PRIV_KIB (768) KiB that no other job reads (the zoo's
# 4 GiB against 128 MiB: the same 32:1).  The reference a job reads is
# drawn with Zipf(ZIPF_S) popularity over the NREF (1.1, the zoo's zipf
# exponent: 50/23/15/11 % of the readers for 4 references); ZIPF_S=0
# draws it uniformly, exactly as dl-zoo's heavy class does.  PLAIN_PCT %
# plain jobs and NWIDE wide jobs as in the other streams (0 by default:
# the zoo's class has none).  awk's generator seeded with SEED.
bench_stream_genomics() {
	local data=$1 kinds=$2 sizes=$3 r
	mkdir -p "$data/ref" "$data/private"
	for r in $(seq 1 "$NREF"); do
		head -c $((HEAVY_MIB << 20)) /dev/urandom >"$data/ref/ref$r"
		echo "$data/ref/ref$r $((HEAVY_MIB << 20))"
	done >"$sizes"
	awk -v seed="$SEED" -v n="$NJOBS" -v nref="$NREF" -v s="$ZIPF_S" \
		-v share="$HEAVY_SHARE" -v plain="$PLAIN_PCT" -v nwide="$NWIDE" \
		-v data="$data" -v pb=$((PRIV_KIB << 10)) '
		BEGIN {
			srand(seed)
			for (i = 1; i <= nref; i++) c[i] = (sum += (s > 0 ? i ^ -s : 1))
			for (j = 1; j <= n; j++) {
				kind = "a"
				for (w = 1; w <= nwide; w++) if (j == int(w * n / (nwide + 1))) kind = "w"
				if (kind == "a" && rand() * 100 < plain) kind = "p"
				if (kind != "a") { print kind, "-"; continue }
				f = ""
				if (rand() < share) {
					u = rand() * sum
					for (i = 1; i < nref && c[i] < u; i++) ;
					f = data "/ref/ref" i
				}
				k = 2 + int(rand() * 3)
				for (; k > 0; k--) {
					p = data "/private/j" j "." k
					f = f (f == "" ? "" : ",") p
					print p, pb > "/dev/stderr"
				}
				print "a", f
			}
		}' >"$kinds" 2>"$sizes.private"
	# The private inputs, of random bytes each.
	awk '{ print $1 }' "$sizes.private" | while read -r p; do
		head -c $((PRIV_KIB << 10)) /dev/urandom >"$p"
	done
	cat "$sizes.private" >>"$sizes"
	rm -f "$sizes.private"
	chmod -R a+rX "$data"
}
