# shellcheck shell=bash disable=SC2034 # stage, dlsubmit, dl_design, dl_params are for the caller
# bench_lib.sh - sourced by contrib/bench_cluster.sh and bench_pending.sh.
#
# bench_take_build BUILD WORK: copy BUILD's plugins and programs into WORK
# (lib/, bin/), so that a rebuild during a run does not change them under
# a running slurmctld, and point the cluster harness at the copies
# (DL_PLUGIN_DIR, DL_PARTITIOND).  Sets stage (the copied dl-stage),
# dlsubmit (the copied dl-submit, which submits the streams: one process
# at the jobs' arrival times, not one sbatch per job) and
# the plugin's design: dl_design, and dl_params, the SchedulerParameters
# it runs under.  The new design (Slurm decides when, the plugin where)
# has a slurmctld plugin and runs under the same SCHED_PARAMS as
# sched/backfill; the old one (a BUILD of an earlier version, for
# comparison) started every job itself and needed Slurm's scheduler off.
bench_take_build() {
	local build=$1 work=$2
	mkdir -p "$work/lib" "$work/bin"
	cp "$build"/.libs/*_datalocality*.so "$work/lib/"
	cp "$build/dl-stage" "$build/dl-partitiond" "$work/bin/"
	if [ ! -x "$build/dl-submit" ]; then
		echo "bench: no $build/dl-submit (built with the plugins; libslurm-dev, contrib/setup.sh)" >&2
		return 1
	fi
	cp "$build/dl-submit" "$work/bin/"
	export DL_PLUGIN_DIR="$work/lib" DL_PARTITIOND="$work/bin/dl-partitiond"
	stage=$work/bin/dl-stage
	dlsubmit=$work/bin/dl-submit
	# (on a Slurm without SlurmctldPlugstack, 24.11, the new design's
	# agent beside the scheduler is job_submit/datalocality_agent)
	if [ -e "$work/lib/slurmctld_datalocality.so" ] ||
	   [ -e "$work/lib/job_submit_datalocality_agent.so" ]; then
		dl_design=new
		dl_params=${SCHED_PARAMS:-}
	else
		dl_design="old (starts every job itself)"
		dl_params=sched_interval=-1,defer
	fi
}

# bench_submit PREFIX DL-SUBMIT-ARGS...: submit with dl-submit, its job ids
# into PREFIX.ids, its records (index, id, intended and actual submission
# time, call seconds) into PREFIX.rec, its summary into PREFIX.log; sets
# bench_verdict to VALID, "NOT VALID (arrivals lagged by X%)", "-" (a
# burst) or "FAILED (...)", and bench_rates to "intended R jobs/s over S s,
# achieved R jobs/s over S s" (a stream) or "R submissions/s" (a burst).
# Returns 0 unless dl-submit could not run at all.
bench_submit() {
	local prefix=$1 rc=0
	shift
	"$dlsubmit" --ids "$prefix.ids" --record "$prefix.rec" "$@" \
		2>"$prefix.log" || rc=$?
	bench_rates=$(sed -n 's/^dl-submit: arrival rate //p; s/^dl-submit: burst: [0-9]* submissions in [0-9.]* s, //p' "$prefix.log" | head -1)
	case $rc in
	0) bench_verdict=$(grep -x 'VALID' "$prefix.log" || echo -) ;;
	3) bench_verdict=$(grep '^NOT VALID' "$prefix.log") ;;
	1) bench_verdict="FAILED ($(grep -c '^dl-submit: job ' "$prefix.log") submissions failed)" ;;
	*)
		echo "bench: dl-submit failed (exit $rc):" >&2
		cat "$prefix.log" >&2
		return 1
		;;
	esac
}
