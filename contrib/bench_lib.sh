# shellcheck shell=bash disable=SC2034 # stage, dl_design, dl_params are for the caller
# bench_lib.sh - sourced by contrib/bench_cluster.sh and bench_pending.sh.
#
# bench_take_build BUILD WORK: copy BUILD's plugins and programs into WORK
# (lib/, bin/), so that a rebuild during a run does not change them under
# a running slurmctld, and point the cluster harness at the copies
# (DL_PLUGIN_DIR, DL_PARTITIOND).  Sets stage (the copied dl-stage) and
# the plugin's design: dl_design, and dl_params, the SchedulerParameters
# it runs under.  The new design (Slurm decides when, the plugin where)
# has a slurmctld plugin and runs under the same SCHED_PARAMS as
# sched/backfill; the old one (a BUILD of an earlier version, for
# comparison) started every job itself and needed Slurm's scheduler off.
bench_take_build() {
	local build=$1 work=$2
	mkdir -p "$work/lib" "$work/bin"
	cp "$build"/.libs/*_datalocality.so "$work/lib/"
	cp "$build/dl-stage" "$build/dl-partitiond" "$work/bin/"
	export DL_PLUGIN_DIR="$work/lib" DL_PARTITIOND="$work/bin/dl-partitiond"
	stage=$work/bin/dl-stage
	if [ -e "$work/lib/slurmctld_datalocality.so" ]; then
		dl_design=new
		dl_params=${SCHED_PARAMS:-}
	else
		dl_design="old (starts every job itself)"
		dl_params=sched_interval=-1,defer
	fi
}
