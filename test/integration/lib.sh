# lib.sh - assertions for the integration tests; sourced.  Each check
# prints "ok" or "FAIL" with its description; dl_t_summary prints the
# closing "N passed, N failed" line and returns non-zero on any failure.
DL_T_PASS=0
DL_T_FAIL=0

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

# dl_t_use_build : run the cluster with this build's plugins, scheduler
# settings and partitioner helper (slurmctld inherits DL_PARTITIOND).
dl_t_use_build() {
	: "${DL_BUILD_DIR:?set DL_BUILD_DIR to a build tree with the plugins}"
	export DL_SCHED_TYPE=sched/datalocality
	export DL_SCHED_PARAMS=sched_interval=-1,defer
	export DL_JOB_SUBMIT=datalocality
	export DL_PLUGIN_DIR="$DL_BUILD_DIR/.libs"
	export DL_PARTITIOND="$DL_BUILD_DIR/dl-partitiond"
}
