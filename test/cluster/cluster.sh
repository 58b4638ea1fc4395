# shellcheck shell=bash
# test/cluster/cluster.sh -- throw-away local Slurm cluster for tests.
#
# Source this file (do not execute it), then:
#
#     source test/cluster/cluster.sh
#     trap dl_cluster_stop EXIT
#     dl_cluster_start --nodes 4 --sched sched/builtin
#     jid=$(sbatch --parsable --wrap hostname)
#     dl_cluster_wait_jobs_done 30
#     dl_cluster_job_field "$jid" JobState      # -> COMPLETED
#
# Everything lives in a fresh temp dir under /tmp ($DL_CLUSTER_DIR): its own
# munged (own key, socket, pid file), one slurmctld and N slurmd started with
# "slurmd -N nX" (Debian's Slurm is built with --enable-multiple-slurmd), all
# on 127.0.0.1.  No systemd, no /etc/slurm, no /run/munge are touched.  The
# library is safe to use from callers running with `set -euo pipefail`.
#
# Layout of $DL_CLUSTER_DIR:
#     etc/slurm.conf   etc/<extra files>     (SLURM_CONF points here)
#     munge/{munge.key,munge.socket,munged.pid,munged.seed}
#     log/{slurmctld.log,slurmd.nX.log}      Slurm daemon logs
#     log/{munged,slurmctld,slurmd.nX}.out   daemon stdout/stderr (munged
#                      logs only here; fatal config errors of slurmctld/slurmd
#                      appear here before their log file is opened)
#     run/{harness.pids,slurmctld.pid,slurmd.nX.pid}
#     state/   (StateSaveLocation)     spool/nX/  (SlurmdSpoolDir)
#     out/     (free for job output; selftest uses it)
#
# Options: every option can be given as an environment variable or as a
# command-line option of dl_cluster_init/dl_cluster_start (options win).
#
#   env var                 option              default
#   DL_NODES                --nodes N           4          nodes n1..nN
#   DL_NODE_CPUS            --cpus N            1          CPUs= of every node
#   DL_NODE_MEM             --mem MB            1000       RealMemory= of every node
#   DL_SCHED_TYPE           --sched TYPE        sched/builtin
#   DL_SCHED_PARAMS         --sched-params P    ""         SchedulerParameters=
#                                                          (batch_sched_delay=0 is
#                                                          prepended unless P sets it)
#   DL_BATCH_SCHED_DELAY                        0          "" = do not prepend it
#   DL_SELECT_PARAMS        --select-params P   CR_Core    SelectTypeParameters=
#   DL_JOB_SUBMIT           --job-submit P      ""         JobSubmitPlugins=
#   DL_PLUGIN_DIR           --plugin-dir D      ""         prepended to Debian's
#                                                          PluginDir (colon list)
#   DL_PROLOG / DL_EPILOG   --prolog / --epilog ""         Prolog= / Epilog=
#   DL_CLUSTER_EXTRA_CONF   --extra-conf LINE   ""         appended verbatim to
#                           (repeatable)                   slurm.conf (may be
#                                                          multi-line); a Key=...
#                                                          line REPLACES the
#                                                          generated Key= line
#                                                          (except NodeName,
#                                                          PartitionName, NodeSet,
#                                                          DownNodes, Include)
#   DL_CLUSTER_ETC_FILES    --etc-file PATH     ""         files copied into
#                           (repeatable)                   $DL_CLUSTER_DIR/etc
#                                                          (env: space separated)
#   DL_CLUSTER_PRE_START    --pre-start CMD     ""         eval'd after slurm.conf
#                                                          is written, before any
#                                                          daemon starts
#   DL_CLUSTER_PORT_BASE    --port-base B       random     slurmctld port = B,
#                                                          slurmd nX port = B+100+X;
#                                                          random B in 20000..31800
#                                                          (step 200, free-checked,
#                                                          locked) so clusters coexist
#   DL_CLUSTER_TIMEOUT      --timeout S         30         startup timeout (s)
#   DL_TIME_SCALE                               3          multiplies the startup
#                                                          timeout and every wait
#                                                          here (a busy host is slow)
#   DL_SLURMD_TIMEOUT                           15         SlurmdTimeout=
#   DL_DEBUG                --debug LEVEL       info       SlurmctldDebug/SlurmdDebug
#   DL_KEEP                                     0          1: dl_cluster_stop keeps
#                                                          the temp dir
#   DL_FAIL_LOGS                                /tmp/dl_failed_logs
#                                                          where dl_cluster_stop
#                                                          copies the logs (and
#                                                          prints their tails) of a
#                                                          cluster whose test counted
#                                                          a failure (DL_T_FAIL > 0)
#   DL_CLUSTER_QUIET                            0          1: no progress messages
#   DL_NODE_NS                                  0          1: namespaced nodes (below)
#   DL_NODE_CACHE_SIZE                          256m       size= of each node's tmpfs
#   DL_CACHED                                   ""         dl-cached binary: started
#                                                          on every node (needs
#                                                          DL_NODE_NS=1)
#   DL_CACHED_ARGS                              ""         more arguments for it
#   DL_CLUSTER_SLURMDBD                         0          1: accounting through a
#                                                          real slurmdbd and MariaDB
#                                                          server of the cluster's
#                                                          own (below)
#   DL_SLURM_PREFIX                             ""         a Slurm installed into
#                                                          its own prefix (e.g. by
#                                                          contrib/setup-slurm.sh -p):
#                                                          its sbin/ daemons, bin/
#                                                          commands (put first in
#                                                          PATH when this file is
#                                                          sourced) and lib/slurm
#                                                          plugins; "" = Debian's
#                                                          installed Slurm
#
# The Slurm a cluster runs: dl_cluster_start says "Slurm <version> from
# <prefix>" (also with DL_CLUSTER_QUIET=1) and dl_cluster_slurm_version
# prints the version.  Plugins of the build under test (DL_PLUGIN_DIR) must
# be built against that version.  Settings of Slurm's whose "none" plugin
# a release no longer has (24.11: accounting_storage/none, jobcomp/none,
# task/none, ...) are left out of slurm.conf: not set is none there.
#
# Namespaced nodes (DL_NODE_NS=1): as on real hosts, a node's cache is local
# to the node.  Each node nX gets its own mount namespace (`unshare --mount
# --propagation private`, held open by a small process "dl-nodens") with a
# private tmpfs mounted over $DL_CLUSTER_DIR/nodecache ($DL_NODE_CACHE_DIR,
# the same path on every node; on the host it stays an empty directory, so
# slurmctld sees nothing in it).  slurmd nX runs in that namespace (and so
# do its Prolog, Epilog, TaskProlog and jobs), and, with DL_CACHED, the
# node's service "$DL_CACHED -D -N nX -P <peer port> -a 127.0.0.1 -p
# run/cached.nX.pid -f etc/datalocality.conf $DL_CACHED_ARGS" too
# (foreground, log on stderr into log/cached.nX.out; its PID is recorded
# like the daemons').  Everything else under $DL_CLUSTER_DIR (data,
# out/, logs, etc/) is the shared storage every node and slurmctld see.
# Ports: the controller agent's ServicePort is B+1, node nX's PeerPort
# B+1+X (dl_cluster_service_port, dl_cluster_peer_port; checked free like
# Slurm's).  Write datalocality.conf between dl_cluster_init and
# dl_cluster_start (dl-cached reads it at start); dl_cluster_service_conf
# prints the lines that connect the services to this cluster.
#
# Set by the library: DL_CLUSTER_DIR, SLURM_CONF (exported),
# DL_CLUSTER_STARTUP_MS (ms dl_cluster_start took).
#
# DL_PLUGIN_DIR: every directory of PluginDir must exist, or slurmctld dies
# with 'Bad value ... for PluginDir'.  Plugins are found as <dir>/<type>_<name>.so
# (e.g. sched_datalocality.so for SchedulerType=sched/datalocality).
# Extra config files (datalocality.conf, ...) are looked up by Slurm next to
# slurm.conf, i.e. in $DL_CLUSTER_DIR/etc.
#
# Timing notes (Slurm 22.05): the first scheduling pass happens ~3 s after
# slurmctld starts (batch_sched_delay is hard-wired to 3 until the first pass
# parses SchedulerParameters); after that pending batch jobs are scheduled on
# the ~1 s background tick.  After dl_cluster_restart_slurmctld the nodes
# re-register ~4 s after the new slurmctld starts.  Batch jobs inherit the
# caller's environment (incl. SLURM_CONF) and their default output file is
# slurm-%j.out in the submit directory: pass -o "$DL_CLUSTER_DIR/out/%j.out".
#
# To put files into etc/ before the daemons start (e.g. datalocality.conf),
# either pass --etc-file, use --pre-start, or split the start in two:
#     dl_cluster_init [options]                 # creates dir + slurm.conf only
#     cat > "$DL_CLUSTER_DIR/etc/datalocality.conf" <<EOF ... EOF
#     dl_cluster_start                          # starts daemons in that dir
# (dl_cluster_start after dl_cluster_init ignores options; give them to init.)
#
# Functions:
#   dl_cluster_init [opts]           create dir, key, slurm.conf (no daemons)
#   dl_cluster_start [opts]          init (if needed) + munged, slurmctld,
#                                    slurmds; waits until all nodes are IDLE;
#                                    exports SLURM_CONF, DL_CLUSTER_DIR
#   dl_cluster_stop                  scancel active jobs, SIGTERM (5 s) then
#                                    SIGKILL the recorded PIDs, SIGKILL
#                                    leftover slurmstepd/job processes of this
#                                    cluster (only if a daemon had died), rm
#                                    the dir unless DL_KEEP=1.  Idempotent,
#                                    always returns 0 (use it as EXIT trap).
#   dl_cluster_wait_jobs_done [T]    wait (T s, default 60) until squeue has no
#                                    PENDING/CONFIGURING/RUNNING/COMPLETING job
#   dl_cluster_wait_nodes [REGEX [T [NODE...]]]
#                                    wait until the state (sinfo %T, e.g.
#                                    "idle", "mixed", "allocated", "down";
#                                    non-responding ones get a '*' suffix) of
#                                    every node (or of NODE...) matches
#                                    ^(REGEX)$; default "idle", T=30
#   dl_cluster_job_field JOBID FIELD print FIELD (NodeList, JobState, Reason,
#                                    ExitCode, ...) from `scontrol show job -o`;
#                                    returns 1 if job/field not found
#   dl_cluster_restart_slurmctld [--no-wait] [--while-down CMD]
#                                    stop slurmctld (by PID, SIGTERM so it
#                                    saves state), start it again with the
#                                    same config and saved state (no -c/-i),
#                                    wait until it answers and (unless
#                                    --no-wait) every node with a running
#                                    slurmd has registered (~4 s)
#   dl_cluster_stop_slurmd NODE      stop one slurmd (by PID)
#   dl_cluster_start_slurmd NODE     (re)start one slurmd
#   dl_cluster_boot_slurmd NODE      (re)start one slurmd as on a node that
#                                    just booted: in a new time namespace
#                                    (unshare --time) whose uptime is 0, so
#                                    that Slurm's power saving takes a node
#                                    it is resuming as resumed (it ignores
#                                    a POWERING_UP node's registration
#                                    while the node's boot time is before
#                                    the resume request: waiting_for_node_boot()
#                                    in src/slurmctld/node_mgr.c, and all
#                                    slurmds here share the host's uptime;
#                                    both times are whole seconds, so start
#                                    it 2 s or more after the request)
#   dl_cluster_log_ctld              print path of slurmctld log
#   dl_cluster_log_slurmd NODE       print path of slurmd log of NODE
#   dl_cluster_logs_tail [N]         print last N (default 30) lines of all logs
#   dl_cluster_pids                  print "role pid" of the started daemons
# Namespaced nodes only (DL_NODE_NS=1):
#   dl_cluster_node_exec NODE CMD... run CMD in NODE's mount namespace
#                                    (nsenter --mount --target <pid>)
#   dl_cluster_node_pid NODE         PID holding NODE's namespace
#   dl_cluster_node_cache_dir NODE   NODE's CacheDir (datalocality.conf's
#                                    CacheDir, %n expanded; default
#                                    $DL_NODE_CACHE_DIR)
#   dl_cluster_start_cached NODE     (re)start NODE's dl-cached in its
#                                    namespace; waits for CacheDir/.sock
#   dl_cluster_stop_cached NODE [--kill]
#                                    stop it by PID (SIGTERM, 5 s, SIGKILL;
#                                    --kill: SIGKILL at once, as a crash)
#   dl_cluster_cached_pid NODE       PID of NODE's dl-cached (1 if none)
#   dl_cluster_service_port          ServicePort for datalocality.conf
#   dl_cluster_peer_port NODE        PeerPort of NODE's dl-cached
#   dl_cluster_service_conf          "ServicePort=.. ServiceController=..
#                                    MungeSocket=.." lines for datalocality.conf
#
# Internal names start with _dl_.

_DL_DEBIAN_PLUGIN_DIR=/usr/lib/x86_64-linux-gnu/slurm-wlm
# The Slurm to run (DL_SLURM_PREFIX, above), fixed when this file is sourced.
if [ -n "${DL_SLURM_PREFIX:-}" ]; then
	_DL_SLURM_SBIN=$DL_SLURM_PREFIX/sbin
	_DL_SLURM_PLUGIN_DIR=$DL_SLURM_PREFIX/lib/slurm
	case ":$PATH:" in
	":$DL_SLURM_PREFIX/bin:"*) ;;
	*) export PATH="$DL_SLURM_PREFIX/bin:$PATH" ;;
	esac
else
	_DL_SLURM_SBIN=/usr/sbin
	_DL_SLURM_PLUGIN_DIR=$_DL_DEBIAN_PLUGIN_DIR
fi

# dl_cluster_slurm_version: the version of the slurmctld the cluster runs.
dl_cluster_slurm_version() {
	"$_DL_SLURM_SBIN/slurmctld" -V 2>/dev/null | awk '{ print $2; exit }'
}

# _dl_plugin_line KEY TYPE: "KEY=TYPE" if this Slurm has plugin TYPE
# (x/none plugins are gone from newer releases, where unset means none).
_dl_plugin_line() {
	if [ -e "$_DL_SLURM_PLUGIN_DIR/${2/\//_}.so" ]; then echo "$1=$2"; fi
}

# _dl_secs S: S seconds times DL_TIME_SCALE, the bound of a wait for a
# condition here (returned from as soon as it holds).
_dl_secs() {
	echo $(($1 * ${DL_TIME_SCALE:-3}))
}

_dl_msg() {
	[ "${DL_CLUSTER_QUIET:-0}" = 1 ] || echo "dl_cluster: $*" >&2
}

_dl_err() {
	echo "dl_cluster: ERROR: $*" >&2
}

_dl_now_ms() {
	local s
	s=$(date +%s%N)
	echo $((s / 1000000))
}

# 0 if pid exists and is not a zombie
_dl_pid_alive() {
	local pid=$1 stat rest
	[ -n "$pid" ] || return 1
	[ -r "/proc/$pid/stat" ] || return 1
	stat=$(cat "/proc/$pid/stat" 2>/dev/null) || return 1
	[ -n "$stat" ] || return 1
	rest=${stat##*) }
	case $rest in
	Z* | X*) return 1 ;;
	esac
	return 0
}

# 0 if pid is alive AND its command line mentions our cluster dir (guards
# against PID reuse: every daemon we start has the dir in its argv)
_dl_pid_ours() {
	local pid=$1 cmd
	_dl_pid_alive "$pid" || return 1
	cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
	case $cmd in
	*"$DL_CLUSTER_DIR"*) return 0 ;;
	esac
	return 1
}

_dl_pid_of() { # role -> pid (from harness.pids; last entry wins)
	local role=$1 f=$DL_CLUSTER_DIR/run/harness.pids
	[ -f "$f" ] || return 1
	awk -v r="$role" '$1 == r { p = $2 } END { if (p == "") exit 1; print p }' "$f"
}

dl_cluster_pids() {
	[ -n "${DL_CLUSTER_DIR:-}" ] && [ -f "$DL_CLUSTER_DIR/run/harness.pids" ] || return 0
	cat "$DL_CLUSTER_DIR/run/harness.pids"
}

# _dl_spawn ROLE CMD ARGS... : run CMD in the background (foreground mode of
# the daemon), stdout/stderr to log/ROLE.out, stdin /dev/null, fds >2 closed
# (so e.g. bats' fd 3 does not keep the test runner waiting), record its PID.
_dl_spawn() {
	local role=$1
	shift
	local out=$DL_CLUSTER_DIR/log/$role.out
	(
		for _fd in "/proc/$BASHPID/fd/"*; do
			_fd=${_fd##*/}
			if [ "$_fd" -gt 2 ] 2>/dev/null; then
				eval "exec $_fd>&-" 2>/dev/null || true
			fi
		done
		export DL_CLUSTER_ID="$DL_CLUSTER_DIR"
		# shellcheck disable=SC2030
		export SLURM_CONF="$DL_CLUSTER_DIR/etc/slurm.conf"
		exec "$@"
	) </dev/null >>"$out" 2>&1 &
	local pid=$!
	disown "$pid" 2>/dev/null || true
	echo "$role $pid" >>"$DL_CLUSTER_DIR/run/harness.pids"
	_DL_LAST_PID=$pid
}

# _dl_kill_pid PID [WAIT_S]: SIGTERM, wait, SIGKILL.  Only if the pid is ours.
_dl_kill_pid() {
	local pid=$1 wait_s=${2:-5} i=0 n
	_dl_pid_ours "$pid" || return 0
	kill -TERM "$pid" 2>/dev/null || true
	n=$(($(_dl_secs "$wait_s") * 10))
	while [ "$i" -lt "$n" ]; do
		_dl_pid_alive "$pid" || return 0
		sleep 0.1
		i=$((i + 1))
	done
	_dl_msg "pid $pid did not exit after SIGTERM, sending SIGKILL"
	kill -KILL "$pid" 2>/dev/null || true
	i=0
	while [ "$i" -lt 20 ]; do
		_dl_pid_alive "$pid" || return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 0
}

# ports in LISTEN state, as upper-case 4-digit hex
_dl_listening_ports_hex() {
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		awk '$4 == "0A" { split($2, a, ":"); print a[2] }' | sort -u || true
}

_dl_ports_free() { # base nodes
	local base=$1 nodes=$2 listening p i
	listening=" $(_dl_listening_ports_hex | tr '\n' ' ') "
	local more=
	# namespaced nodes: the controller agent's port B+1, peer ports B+1+X
	if [ "${DL_NODE_NS:-0}" = 1 ]; then
		more=$(i=0; while [ "$i" -le "$nodes" ]; do echo $((base + 1 + i)); i=$((i + 1)); done)
	fi
	# accounting: slurmdbd's DbdPort B+190, its MariaDB server's B+191
	if [ "${DL_CLUSTER_SLURMDBD:-0}" = 1 ]; then
		more="$more $((base + 190)) $((base + 191))"
	fi
	for p in "$base" $more $(i=1; while [ "$i" -le "$nodes" ]; do echo $((base + 100 + i)); i=$((i + 1)); done); do
		case $listening in
		*" $(printf '%04X' "$p") "*) return 1 ;;
		esac
	done
	return 0
}

# Reserve a port base: lock dir /tmp/dl_cluster.ports.BASE holding the owner
# cluster dir; stale if that dir no longer exists.
_dl_lock_ports() { # base -> 0 if locked by us
	local base=$1 lock=/tmp/dl_cluster.ports.$1 owner
	if mkdir "$lock" 2>/dev/null; then
		echo "$DL_CLUSTER_DIR" >"$lock/owner"
		return 0
	fi
	owner=$(cat "$lock/owner" 2>/dev/null || true)
	if [ -n "$owner" ] && [ ! -d "$owner" ]; then
		echo "$DL_CLUSTER_DIR" >"$lock/owner"
		return 0
	fi
	return 1
}

_dl_pick_ports() { # nodes
	local nodes=$1 base tries=0
	if [ -n "${DL_CLUSTER_PORT_BASE:-}" ]; then
		base=$DL_CLUSTER_PORT_BASE
		if ! _dl_ports_free "$base" "$nodes"; then
			_dl_err "ports $base / $((base + 101))..$((base + 100 + nodes)) are in use"
			return 1
		fi
		_dl_lock_ports "$base" || _dl_msg "warning: port base $base locked by another cluster"
		_DL_PORT_BASE=$base
		return 0
	fi
	while [ "$tries" -lt 100 ]; do
		base=$((20000 + 200 * (RANDOM % 60)))
		tries=$((tries + 1))
		_dl_ports_free "$base" "$nodes" || continue
		_dl_lock_ports "$base" || continue
		_DL_PORT_BASE=$base
		return 0
	done
	_dl_err "could not find free ports"
	return 1
}

_dl_parse_opts() {
	_DL_EXTRA_LINES=()
	_DL_ETC_FILES=()
	while [ $# -gt 0 ]; do
		case $1 in
		--nodes) DL_NODES=$2; shift 2 ;;
		--cpus) DL_NODE_CPUS=$2; shift 2 ;;
		--mem) DL_NODE_MEM=$2; shift 2 ;;
		--sched) DL_SCHED_TYPE=$2; shift 2 ;;
		--sched-params) DL_SCHED_PARAMS=$2; shift 2 ;;
		--select-params) DL_SELECT_PARAMS=$2; shift 2 ;;
		--job-submit) DL_JOB_SUBMIT=$2; shift 2 ;;
		--plugin-dir) DL_PLUGIN_DIR=$2; shift 2 ;;
		--prolog) DL_PROLOG=$2; shift 2 ;;
		--epilog) DL_EPILOG=$2; shift 2 ;;
		--extra-conf) _DL_EXTRA_LINES+=("$2"); shift 2 ;;
		--etc-file) _DL_ETC_FILES+=("$2"); shift 2 ;;
		--pre-start) DL_CLUSTER_PRE_START=$2; shift 2 ;;
		--port-base) DL_CLUSTER_PORT_BASE=$2; shift 2 ;;
		--timeout) DL_CLUSTER_TIMEOUT=$2; shift 2 ;;
		--debug) DL_DEBUG=$2; shift 2 ;;
		*)
			_dl_err "unknown option: $1"
			return 1
			;;
		esac
	done
	return 0
}

_dl_write_conf() {
	local d=$DL_CLUSTER_DIR conf=$DL_CLUSTER_DIR/etc/slurm.conf
	local nodes=${DL_NODES:-4} cpus=${DL_NODE_CPUS:-1} mem=${DL_NODE_MEM:-1000}
	local pdir=$_DL_SLURM_PLUGIN_DIR i l sp
	if [ -n "${DL_PLUGIN_DIR:-}" ]; then
		pdir=$DL_PLUGIN_DIR:$_DL_SLURM_PLUGIN_DIR
	fi
	local base=$DL_CLUSTER_DIR/run/slurm.conf.base extra=$DL_CLUSTER_DIR/run/slurm.conf.extra
	{
		echo "# generated by test/cluster/cluster.sh"
		echo "ClusterName=dltest"
		echo "SlurmctldHost=localhost(127.0.0.1)"
		echo "SlurmctldPort=$_DL_PORT_BASE"
		echo "SlurmUser=root"
		echo "SlurmdUser=root"
		echo "AuthType=auth/munge"
		echo "CredType=cred/munge"
		echo "AuthInfo=socket=$d/munge/munge.socket"
		echo "PluginDir=$pdir"
		echo "StateSaveLocation=$d/state"
		echo "SlurmdSpoolDir=$d/spool/%n"
		echo "SlurmctldPidFile=$d/run/slurmctld.pid"
		echo "SlurmdPidFile=$d/run/slurmd.%n.pid"
		echo "SlurmctldLogFile=$d/log/slurmctld.log"
		echo "SlurmdLogFile=$d/log/slurmd.%n.log"
		echo "SlurmctldDebug=${DL_DEBUG:-info}"
		echo "SlurmdDebug=${DL_DEBUG:-info}"
		echo "SlurmdParameters=config_overrides"
		echo "ProctrackType=proctrack/linuxproc"
		_dl_plugin_line TaskPlugin task/none
		_dl_plugin_line JobAcctGatherType jobacct_gather/none
		echo "SelectType=select/cons_tres"
		echo "SelectTypeParameters=${DL_SELECT_PARAMS:-CR_Core}"
		echo "SchedulerType=${DL_SCHED_TYPE:-sched/builtin}"
		sp=${DL_SCHED_PARAMS:-}
		case $sp in
		*batch_sched_delay=*) ;;
		*)
			if [ -n "${DL_BATCH_SCHED_DELAY-0}" ]; then
				sp="batch_sched_delay=${DL_BATCH_SCHED_DELAY-0}${sp:+,$sp}"
			fi
			;;
		esac
		if [ -n "$sp" ]; then echo "SchedulerParameters=$sp"; fi
		if [ -n "${DL_JOB_SUBMIT:-}" ]; then echo "JobSubmitPlugins=$DL_JOB_SUBMIT"; fi
		if [ -n "${DL_PROLOG:-}" ]; then echo "Prolog=$DL_PROLOG"; fi
		if [ -n "${DL_EPILOG:-}" ]; then echo "Epilog=$DL_EPILOG"; fi
		echo "MpiDefault=none"
		_dl_plugin_line SwitchType switch/none
		_dl_plugin_line JobCompType jobcomp/none
		if [ "${DL_CLUSTER_SLURMDBD:-0}" = 1 ]; then
			echo "AccountingStorageType=accounting_storage/slurmdbd"
			echo "AccountingStorageHost=localhost"
			echo "AccountingStoragePort=$((_DL_PORT_BASE + 190))"
			# how Slurm names the MUNGE socket of its connection to
			# slurmdbd (also sacct's and sacctmgr's)
			echo "AccountingStoragePass=$d/munge/munge.socket"
		else
			_dl_plugin_line AccountingStorageType accounting_storage/none
		fi
		echo "MailProg=/bin/true"
		echo "ReturnToService=2"
		echo "MinJobAge=600"
		echo "KillWait=2"
		echo "SlurmctldTimeout=10"
		echo "SlurmdTimeout=${DL_SLURMD_TIMEOUT:-15}"
		echo "InactiveLimit=0"
		echo "Waittime=0"
		i=1
		while [ "$i" -le "$nodes" ]; do
			echo "NodeName=n$i NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((_DL_PORT_BASE + 100 + i)) CPUs=$cpus RealMemory=$mem State=UNKNOWN"
			i=$((i + 1))
		done
		echo "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
	} >"$base" || return 1
	{
		if [ -n "${DL_CLUSTER_EXTRA_CONF:-}" ]; then
			echo "# DL_CLUSTER_EXTRA_CONF"
			printf '%s\n' "$DL_CLUSTER_EXTRA_CONF"
		fi
		if [ "${#_DL_EXTRA_LINES[@]}" -gt 0 ]; then
			echo "# --extra-conf"
			for l in "${_DL_EXTRA_LINES[@]}"; do printf '%s\n' "$l"; done
		fi
	} >"$extra" || return 1
	# A "Key=..." line in the extra config replaces the generated line with
	# the same key (case-insensitive), so Slurm does not log "specified more
	# than once" errors.  Keys that may legitimately repeat are only appended.
	awk '
		function key(line,   k) {
			if (line ~ /^[ \t]*#/ || line !~ /=/) return ""
			k = line; sub(/^[ \t]*/, "", k); sub(/=.*/, "", k)
			k = tolower(k)
			if (k ~ /^(nodename|partitionname|downnodes|nodeset|frontendname|include)$/) return ""
			return k
		}
		FILENAME == ARGV[1] { k = key($0); if (k != "") over[k] = 1; next }
		{ k = key($0); if (k == "" || !(k in over)) print }
	' "$extra" "$base" >"$conf" || return 1
	cat "$extra" >>"$conf"
}

# dl_cluster_init [options]: fresh dir, munge key, slurm.conf.  No daemons.
dl_cluster_init() {
	if [ -n "${_DL_INITED:-}" ] && [ "${_DL_INITED}" = "${DL_CLUSTER_DIR:-}" ] && [ -d "$DL_CLUSTER_DIR" ]; then
		_dl_err "cluster already initialised in $DL_CLUSTER_DIR (call dl_cluster_stop first)"
		return 1
	fi
	_dl_parse_opts "$@" || return 1
	local nodes=${DL_NODES:-4} i f
	case $nodes in
	'' | *[!0-9]*) _dl_err "DL_NODES must be a number (got '$nodes')"; return 1 ;;
	esac
	if [ "$nodes" -lt 1 ] || [ "$nodes" -gt 99 ]; then
		_dl_err "DL_NODES must be 1..99"
		return 1
	fi
	case ${DL_NODE_NS:-0} in
	0) if [ -n "${DL_CACHED:-}" ]; then _dl_err "DL_CACHED needs DL_NODE_NS=1"; return 1; fi ;;
	1) if [ "$nodes" -gt 98 ]; then _dl_err "DL_NODE_NS=1: at most 98 nodes"; return 1; fi ;;
	*) _dl_err "DL_NODE_NS must be 0 or 1"; return 1 ;;
	esac
	if [ -n "${DL_CACHED:-}" ] && [ ! -x "$DL_CACHED" ]; then
		_dl_err "DL_CACHED=$DL_CACHED is not an executable"
		return 1
	fi
	DL_CLUSTER_DIR=$(mktemp -d /tmp/dl_cluster.XXXXXX) || return 1
	export DL_CLUSTER_DIR
	_DL_INITED=$DL_CLUSTER_DIR
	_DL_STARTED=
	chmod 755 "$DL_CLUSTER_DIR"
	mkdir -p "$DL_CLUSTER_DIR"/{etc,munge,log,run,state,out} || return 1
	if [ "${DL_NODE_NS:-0}" = 1 ]; then
		# the mount point of every node's private tmpfs; empty on the host
		mkdir -m 755 "$DL_CLUSTER_DIR/nodecache" || return 1
		export DL_NODE_CACHE_DIR=$DL_CLUSTER_DIR/nodecache
	fi
	i=1
	while [ "$i" -le "$nodes" ]; do
		mkdir -p "$DL_CLUSTER_DIR/spool/n$i"
		i=$((i + 1))
	done
	chmod 755 "$DL_CLUSTER_DIR/munge" "$DL_CLUSTER_DIR/log" "$DL_CLUSTER_DIR/run"
	: >"$DL_CLUSTER_DIR/run/harness.pids"
	echo "$nodes" >"$DL_CLUSTER_DIR/run/nodes"
	# munge key: owned by us (root), 0400
	(umask 077 && dd if=/dev/urandom of="$DL_CLUSTER_DIR/munge/munge.key" bs=1 count=1024 status=none) || return 1
	chmod 0400 "$DL_CLUSTER_DIR/munge/munge.key"
	_dl_pick_ports "$nodes" || return 1
	echo "$_DL_PORT_BASE" >"$DL_CLUSTER_DIR/run/port_base"
	_dl_write_conf || return 1
	if [ "${DL_CLUSTER_SLURMDBD:-0}" = 1 ]; then
		_dl_dbd_init || return 1
	fi
	for f in "${_DL_ETC_FILES[@]}" ${DL_CLUSTER_ETC_FILES:-}; do
		cp "$f" "$DL_CLUSTER_DIR/etc/" || { _dl_err "cannot copy $f"; return 1; }
	done
	return 0
}

_dl_conf() { echo "$DL_CLUSTER_DIR/etc/slurm.conf"; }

_dl_start_munged() {
	local d=$DL_CLUSTER_DIR/munge i=0 n
	_dl_spawn munged /usr/sbin/munged --foreground --force \
		--socket="$d/munge.socket" --key-file="$d/munge.key" \
		--pid-file="$d/munged.pid" --seed-file="$d/munged.seed" \
		--num-threads=4
	n=$(($(_dl_secs "${DL_CLUSTER_TIMEOUT:-30}") * 10))
	while [ "$i" -lt "$n" ]; do
		if [ -S "$d/munge.socket" ] && munge -n -S "$d/munge.socket" 2>/dev/null | unmunge -S "$d/munge.socket" >/dev/null 2>&1; then
			return 0
		fi
		_dl_pid_alive "$_DL_LAST_PID" || { _dl_err "munged died"; return 1; }
		sleep 0.1
		i=$((i + 1))
	done
	_dl_err "munged did not come up"
	return 1
}

# Accounting (DL_CLUSTER_SLURMDBD=1): a MariaDB server of the cluster's own
# (datadir $DL_CLUSTER_DIR/mysql/data, socket $DL_CLUSTER_DIR/mysql/sock,
# 127.0.0.1:B+191, started directly, not through systemd) and a slurmdbd
# on B+190 (etc/slurmdbd.conf, 0600, SlurmUser root, log/slurmdbd.log),
# both started before slurmctld and stopped by PID like the daemons.  The
# cluster "dltest" is registered by slurmctld; dl_cluster_dbd_users adds
# the users whose jobs a test runs (an account "dltest" holds them).
# Needs Debian's mariadb-server and slurmdbd (contrib/setup.sh installs
# them) and, with DL_SLURM_PREFIX, that prefix's slurmdbd and its
# accounting_storage/mysql plugin.
_dl_dbd_init() {
	local d=$DL_CLUSTER_DIR
	mkdir -p "$d/mysql/data" || return 1
	(umask 077 && cat >"$d/etc/slurmdbd.conf") <<EOF || return 1
# generated by test/cluster/cluster.sh
AuthType=auth/munge
AuthInfo=socket=$d/munge/munge.socket
DbdHost=localhost
DbdPort=$((_DL_PORT_BASE + 190))
SlurmUser=root
PidFile=$d/run/slurmdbd.pid
LogFile=$d/log/slurmdbd.log
DebugLevel=${DL_DEBUG:-info}
PluginDir=$_DL_SLURM_PLUGIN_DIR
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$((_DL_PORT_BASE + 191))
StorageUser=slurm
StoragePass=dltest
StorageLoc=slurm_acct_db_dltest
EOF
	chmod 0600 "$d/etc/slurmdbd.conf"
}

_dl_mysql() { mysql --no-defaults --socket="$DL_CLUSTER_DIR/mysql/sock" -u root "$@"; }

_dl_dbd_start() {
	local d=$DL_CLUSTER_DIR i=0 n mysqld
	n=$(($(_dl_secs "${DL_CLUSTER_TIMEOUT:-30}") * 10))
	mysqld=$(command -v mariadbd || command -v mysqld || echo /usr/sbin/mariadbd)
	if ! mariadb-install-db --no-defaults --datadir="$d/mysql/data" \
		--user=root --auth-root-authentication-method=socket \
		--skip-test-db >"$d/log/mysql-install.out" 2>&1; then
		_dl_err "mariadb-install-db failed (log/mysql-install.out)"
		return 1
	fi
	_dl_spawn mysqld "$mysqld" --no-defaults --user=root \
		--datadir="$d/mysql/data" --socket="$d/mysql/sock" \
		--pid-file="$d/mysql/mysqld.pid" --bind-address=127.0.0.1 \
		--port=$((_DL_PORT_BASE + 191)) --skip-name-resolve \
		--log-error="$d/log/mysqld.err" --innodb-buffer-pool-size=32M \
		--innodb-lock-wait-timeout=900 \
		--skip-log-bin
	while ! _dl_mysql -e 'SELECT 1' >/dev/null 2>&1; do
		_dl_pid_alive "$_DL_LAST_PID" || { _dl_err "mysqld died (log/mysqld.err)"; return 1; }
		i=$((i + 1))
		[ "$i" -lt "$n" ] || { _dl_err "mysqld did not come up"; return 1; }
		sleep 0.1
	done
	_dl_mysql -e "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'dltest';
		GRANT ALL ON slurm_acct_db_dltest.* TO 'slurm'@'127.0.0.1';" || return 1
	# slurmdbd takes no file argument: its command line names the cluster
	# through argv[0], so that it is known as ours (_dl_pid_ours).
	# shellcheck disable=SC2016 # $1 and $2 are the inner shell's
	_dl_spawn slurmdbd bash -c 'exec -a "slurmdbd $1" "$2" -D' _ \
		"$d" "$_DL_SLURM_SBIN/slurmdbd"
	i=0
	while ! _dl_port_listening $((_DL_PORT_BASE + 190)); do
		_dl_pid_alive "$_DL_LAST_PID" || { _dl_err "slurmdbd died (log/slurmdbd.log)"; return 1; }
		i=$((i + 1))
		[ "$i" -lt "$n" ] || { _dl_err "slurmdbd did not come up"; return 1; }
		sleep 0.1
	done
}

_dl_port_listening() {
	_dl_listening_ports_hex | grep -qx "$(printf '%04X' "$1")"
}

# dl_cluster_dbd_users USER... : an account "dltest" in the cluster's
# database holding USER (and root), so that their jobs have associations.
dl_cluster_dbd_users() {
	local u
	sacctmgr -i add account dltest cluster=dltest >/dev/null || return 1
	for u in root "$@"; do
		sacctmgr -i add user "$u" account=dltest cluster=dltest >/dev/null || return 1
	done
}

_dl_ctld_up() {
	local out
	out=$(scontrol ping 2>/dev/null) || return 1
	case $out in
	*" is UP"*) return 0 ;;
	esac
	return 1
}

_dl_start_ctld() {
	local i=0 n
	_dl_spawn slurmctld "$_DL_SLURM_SBIN/slurmctld" -D -f "$(_dl_conf)"
	local pid=$_DL_LAST_PID
	n=$(($(_dl_secs "${DL_CLUSTER_TIMEOUT:-30}") * 10))
	while [ "$i" -lt "$n" ]; do
		_dl_ctld_up && return 0
		_dl_pid_alive "$pid" || { _dl_err "slurmctld (pid $pid) died"; return 1; }
		sleep 0.1
		i=$((i + 1))
	done
	_dl_err "slurmctld did not answer within $(_dl_secs "${DL_CLUSTER_TIMEOUT:-30}")s"
	return 1
}

dl_cluster_start_slurmd() {
	local node=$1 ns=
	if [ "${DL_NODE_NS:-0}" = 1 ]; then
		ns=$(dl_cluster_node_pid "$node") || { _dl_err "no namespace for $node"; return 1; }
		_dl_spawn "slurmd.$node" nsenter --mount --target "$ns" -- \
			"$_DL_SLURM_SBIN/slurmd" -D -N "$node" -f "$(_dl_conf)"
		return 0
	fi
	_dl_spawn "slurmd.$node" "$_DL_SLURM_SBIN/slurmd" -D -N "$node" -f "$(_dl_conf)"
}

dl_cluster_boot_slurmd() {
	local node=$1 ns= up
	up=$(cut -d. -f1 /proc/uptime)
	if [ "${DL_NODE_NS:-0}" = 1 ]; then
		ns=$(dl_cluster_node_pid "$node") || { _dl_err "no namespace for $node"; return 1; }
		_dl_spawn "slurmd.$node" nsenter --mount --target "$ns" -- \
			unshare --time --boottime "-$up" -- \
			"$_DL_SLURM_SBIN/slurmd" -D -N "$node" -f "$(_dl_conf)"
		return 0
	fi
	_dl_spawn "slurmd.$node" unshare --time --boottime "-$up" -- \
		"$_DL_SLURM_SBIN/slurmd" -D -N "$node" -f "$(_dl_conf)"
}

# ------------------------------------------------ namespaced nodes
# _dl_start_nodens NODE: the process that holds NODE's mount namespace: it
# mounts the node's private tmpfs over $DL_NODE_CACHE_DIR and then sleeps,
# renamed "dl-nodens <dir> <node>" (so that _dl_pid_ours knows it).  The
# namespace outlives slurmd and dl-cached restarts, as a node's disk would.
_dl_start_nodens() {
	local node=$1 pid i=0 n cmd
	# shellcheck disable=SC2016
	_dl_spawn "nodens.$node" unshare --mount --propagation private -- \
		/bin/bash -c 'mount -t tmpfs -o "size=$1,mode=0755" "dl-nodecache-$3" "$2" &&
			exec -a "dl-nodens $4 $3" sleep infinity' \
		dl-nodens "${DL_NODE_CACHE_SIZE:-256m}" "$DL_NODE_CACHE_DIR" "$node" "$DL_CLUSTER_DIR"
	pid=$_DL_LAST_PID
	n=$(($(_dl_secs "${DL_CLUSTER_TIMEOUT:-30}") * 10))
	while [ "$i" -lt "$n" ]; do
		_dl_pid_alive "$pid" || { _dl_err "namespace of $node: mount failed"; return 1; }
		cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null || true)
		case $cmd in
		"dl-nodens $DL_CLUSTER_DIR $node "*) break ;;
		esac
		sleep 0.05
		i=$((i + 1))
	done
	if [ "$(nsenter --mount --target "$pid" -- findmnt -n -o FSTYPE --mountpoint "$DL_NODE_CACHE_DIR" 2>/dev/null)" != tmpfs ]; then
		_dl_err "namespace of $node: no tmpfs on $DL_NODE_CACHE_DIR"
		return 1
	fi
}

dl_cluster_node_pid() {
	local pid
	pid=$(_dl_pid_of "nodens.$1") || return 1
	_dl_pid_ours "$pid" || return 1
	echo "$pid"
}

dl_cluster_node_exec() {
	local node=$1 pid
	shift
	pid=$(dl_cluster_node_pid "$node") || { _dl_err "no namespace for $node"; return 1; }
	nsenter --mount --target "$pid" -- "$@"
}

dl_cluster_service_port() { echo $(($(cat "$DL_CLUSTER_DIR/run/port_base") + 1)); }

dl_cluster_peer_port() {
	local x=${1#n}
	echo $(($(cat "$DL_CLUSTER_DIR/run/port_base") + 1 + x))
}

dl_cluster_service_conf() {
	echo "ServicePort=$(dl_cluster_service_port)"
	echo "ServiceController=127.0.0.1"
	echo "MungeSocket=$DL_CLUSTER_DIR/munge/munge.socket"
}

# CacheDir= of datalocality.conf (last one wins, %n = the node's name)
dl_cluster_node_cache_dir() {
	local node=$1 d
	d=$(awk -F= 'tolower($1) ~ /^[ \t]*cachedir[ \t]*$/ { v = $2 } END { gsub(/^[ \t]+|[ \t]+$/, "", v); print v }' \
		"$DL_CLUSTER_DIR/etc/datalocality.conf" 2>/dev/null || true)
	[ -n "$d" ] || d=${DL_NODE_CACHE_DIR:-$DL_CLUSTER_DIR/nodecache}
	echo "${d//%n/$node}"
}

dl_cluster_cached_pid() {
	local pid
	pid=$(_dl_pid_of "cached.$1") || return 1
	_dl_pid_ours "$pid" || return 1
	echo "$pid"
}

# dl_cluster_start_cached NODE: start NODE's dl-cached in the node's
# namespace, wait until its local socket CacheDir/.sock is there.
dl_cluster_start_cached() {
	local node=$1 ns pid i=0 n sock
	[ -n "${DL_CACHED:-}" ] || { _dl_err "DL_CACHED is not set"; return 1; }
	ns=$(dl_cluster_node_pid "$node") || { _dl_err "no namespace for $node"; return 1; }
	# shellcheck disable=SC2086
	_dl_spawn "cached.$node" nsenter --mount --target "$ns" -- \
		"$DL_CACHED" -D -N "$node" -P "$(dl_cluster_peer_port "$node")" \
		-a 127.0.0.1 -p "$DL_CLUSTER_DIR/run/cached.$node.pid" \
		-f "$DL_CLUSTER_DIR/etc/datalocality.conf" ${DL_CACHED_ARGS:-}
	pid=$_DL_LAST_PID
	sock=$(dl_cluster_node_cache_dir "$node")/.sock
	n=$(($(_dl_secs "${DL_CLUSTER_TIMEOUT:-30}") * 10))
	while [ "$i" -lt "$n" ]; do
		_dl_pid_alive "$pid" || { _dl_err "dl-cached of $node (pid $pid) died"; return 1; }
		nsenter --mount --target "$ns" -- test -S "$sock" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	_dl_err "dl-cached of $node: no $sock after $(_dl_secs "${DL_CLUSTER_TIMEOUT:-30}")s"
	return 1
}

dl_cluster_stop_cached() {
	local node=$1 pid
	pid=$(dl_cluster_cached_pid "$node") || return 0
	if [ "${2:-}" = --kill ]; then
		kill -KILL "$pid" 2>/dev/null || true
		while _dl_pid_alive "$pid"; do sleep 0.05; done
		return 0
	fi
	_dl_kill_pid "$pid" 5
}

dl_cluster_stop_slurmd() {
	local node=$1 pid
	pid=$(_dl_pid_of "slurmd.$node") || return 0
	_dl_kill_pid "$pid" 5
}

_dl_nnodes() { cat "$DL_CLUSTER_DIR/run/nodes"; }

# dl_cluster_wait_nodes [REGEX [TIMEOUT [NODE...]]]
dl_cluster_wait_nodes() {
	local re=${1:-idle} timeout=${2:-30} i=0 n states bad want
	if [ $# -gt 2 ]; then
		shift 2
		want=" $* "
	else
		want=" "
		i=1
		n=$(_dl_nnodes)
		while [ "$i" -le "$n" ]; do want="${want}n$i "; i=$((i + 1)); done
		i=0
	fi
	n=$(($(_dl_secs "$timeout") * 10))
	while [ "$i" -lt "$n" ]; do
		if states=$(sinfo -h -N -o '%N %T' 2>/dev/null); then
			bad=$(printf '%s\n' "$states" | awk -v re="^($re)\$" -v want="$want" '
				NF == 2 && index(want, " " $1 " ") { seen[$1] = 1; if ($2 !~ re) b++ }
				END { c = 0; for (k in seen) c++; n = split(want, w, " "); print ((b == 0 && c == n) ? "ok" : "no") }')
			[ "$bad" = ok ] && return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	_dl_err "nodes${want% } not all in state '$re' after $(_dl_secs "$timeout")s:"
	sinfo -N -o '%N %T %E' >&2 2>&1 || true
	return 1
}

# dl_cluster_start [options]
dl_cluster_start() {
	local t0 t1 node i nodes
	t0=$(_dl_now_ms)
	if [ -z "${_DL_INITED:-}" ] || [ "${_DL_INITED}" != "${DL_CLUSTER_DIR:-}" ] || [ -n "${_DL_STARTED:-}" ]; then
		dl_cluster_init "$@" || { dl_cluster_stop; return 1; }
	elif [ $# -gt 0 ]; then
		_dl_msg "warning: options ignored, cluster was initialised by dl_cluster_init"
	fi
	_DL_STARTED=1
	# shellcheck disable=SC2031
	export SLURM_CONF="$DL_CLUSTER_DIR/etc/slurm.conf"
	if [ -n "${DL_CLUSTER_PRE_START:-}" ]; then
		eval "$DL_CLUSTER_PRE_START" || { _dl_err "pre-start hook failed"; dl_cluster_stop; return 1; }
	fi
	if ! _dl_start_munged ||
	   { [ "${DL_CLUSTER_SLURMDBD:-0}" = 1 ] && ! _dl_dbd_start; } ||
	   ! _dl_start_ctld; then
		dl_cluster_logs_tail 30 >&2
		dl_cluster_stop
		return 1
	fi
	nodes=$(_dl_nnodes)
	i=1
	while [ "$i" -le "$nodes" ]; do
		if [ "${DL_NODE_NS:-0}" = 1 ]; then
			if ! _dl_start_nodens "n$i" ||
			   { [ -n "${DL_CACHED:-}" ] && ! dl_cluster_start_cached "n$i"; }; then
				dl_cluster_logs_tail 30 >&2
				dl_cluster_stop
				return 1
			fi
		fi
		dl_cluster_start_slurmd "n$i"
		i=$((i + 1))
	done
	if ! dl_cluster_wait_nodes idle "${DL_CLUSTER_TIMEOUT:-30}"; then
		dl_cluster_logs_tail 30 >&2
		dl_cluster_stop
		return 1
	fi
	t1=$(_dl_now_ms)
	DL_CLUSTER_STARTUP_MS=$((t1 - t0))
	_dl_msg "cluster up in ${DL_CLUSTER_STARTUP_MS} ms: $nodes nodes, dir $DL_CLUSTER_DIR, ctld port $(cat "$DL_CLUSTER_DIR/run/port_base")"
	# Always said: which Slurm a test ran on belongs in its output.
	echo "dl_cluster: Slurm $(dl_cluster_slurm_version) from ${DL_SLURM_PREFIX:-/usr (Debian)}" >&2
	return 0
}

# Leftover processes of this cluster, other than us and our ancestors:
#  - processes that inherited DL_CLUSTER_ID=<dir> (set for every daemon),
#  - slurmstepd (slurmd clears its environment, but stepd keeps the slurmd
#    log $dir/log/slurmd.nX.log open) and anything with a file open in spool/,
#  - job processes: SLURM_CONF=<our slurm.conf> plus SLURM_JOB_ID in their
#    environment, or a command line under spool/ (the batch script).
# Normally empty: dl_cluster_stop cancels jobs while the daemons still run.
# Needed when slurmctld/slurmd were killed (e.g. by a test) with jobs running.
_dl_leftover_pids() {
	local dir=$1 self_chain=" " p pp
	p=$BASHPID
	while [ -n "$p" ] && [ "$p" != 0 ]; do
		self_chain="$self_chain$p "
		pp=$(awk '{ s = $0; sub(/.*\) /, "", s); split(s, a, " "); print a[2] }' "/proc/$p/stat" 2>/dev/null) || break
		[ "$pp" = "$p" ] && break
		p=$pp
	done
	{
		grep -lzxF "DL_CLUSTER_ID=$dir" /proc/[0-9]*/environ 2>/dev/null || true
		grep -lzxF "SLURM_CONF=$dir/etc/slurm.conf" /proc/[0-9]*/environ 2>/dev/null |
			xargs -r grep -lz '^SLURM_JOB_ID=' 2>/dev/null || true
		grep -lzF "$dir/spool/" /proc/[0-9]*/cmdline 2>/dev/null || true
		find /proc/[0-9]*/fd -maxdepth 1 \( -lname "$dir/spool/*" -o -lname "$dir/log/slurmd.*" \) 2>/dev/null || true
	} | sed -n 's#^/proc/\([0-9]*\)/.*#\1#p' | sort -un | while read -r p; do
		case $self_chain in *" $p "*) continue ;; esac
		_dl_pid_alive "$p" && echo "$p"
	done
	return 0
}

# _dl_keep_failed_logs DIR : when the test using the cluster counted a
# failure (lib.sh's DL_T_FAIL), copy DIR's logs to
# DL_FAIL_LOGS/<cluster>/ (default /tmp/dl_failed_logs) and print their
# tails, so that a failure seen once in a CI run, on a loaded host, can
# be read afterwards instead of guessed at.
_dl_keep_failed_logs() {
	local dir=$1 keep f n
	[ "${DL_T_FAIL:-0}" -gt 0 ] && [ -d "$dir/log" ] || return 0
	keep=${DL_FAIL_LOGS:-/tmp/dl_failed_logs}/$(basename "$dir")
	mkdir -p "$keep" && cp -r "$dir/log/." "$dir/etc" "$keep/" 2>/dev/null || true
	echo "cluster logs of a failed test kept in $keep; their tails:"
	for f in "$dir"/log/*; do
		[ -s "$f" ] || continue
		case $f in
		*/slurmctld.out | */slurmd.*.out) continue ;; # their .log again
		*/slurmctld.log) n=40 ;;
		*) n=12 ;;
		esac
		echo "===== $(basename "$f") (last $n lines) ====="
		tail -n "$n" "$f"
	done
	return 0
}

dl_cluster_stop() {
	local dir=${DL_CLUSTER_DIR:-} pid role jobs i pids left base
	[ -n "$dir" ] && [ -d "$dir" ] || return 0
	[ -f "$dir/run/harness.pids" ] || return 0
	# 1. cancel active jobs while slurmctld/slurmd are still there, so that
	#    slurmstepd and job processes go away cleanly
	pid=$(_dl_pid_of slurmctld 2>/dev/null || true)
	if [ -n "$pid" ] && _dl_pid_ours "$pid"; then
		jobs=$(SLURM_CONF=$dir/etc/slurm.conf timeout 5 squeue -h -t PD,CF,R,CG,S -o %i 2>/dev/null || true)
		if [ -n "$jobs" ]; then
			# shellcheck disable=SC2086
			SLURM_CONF=$dir/etc/slurm.conf timeout 5 scancel $jobs >/dev/null 2>&1 || true
			i=0
			while [ "$i" -lt 50 ]; do
				jobs=$(SLURM_CONF=$dir/etc/slurm.conf timeout 5 squeue -h -t PD,CF,R,CG -o %i 2>/dev/null || true)
				[ -z "$jobs" ] && break
				sleep 0.1
				i=$((i + 1))
			done
		fi
	fi
	# 2. SIGTERM everything we started (slurmd, slurmctld, munged last),
	#    in parallel, then wait / SIGKILL
	pids=
	for role in slurmd cached slurmctld slurmdbd mysqld munged nodens; do
		while read -r r pid; do
			case $r in "$role"*) ;; *) continue ;; esac
			if _dl_pid_ours "$pid"; then
				kill -TERM "$pid" 2>/dev/null || true
				pids="$pids $pid"
			fi
		done <"$dir/run/harness.pids"
	done
	i=0
	while [ "$i" -lt 50 ]; do
		left=
		for pid in $pids; do _dl_pid_alive "$pid" && left="$left $pid"; done
		[ -z "$left" ] && break
		sleep 0.1
		i=$((i + 1))
	done
	for pid in $pids; do
		if _dl_pid_alive "$pid"; then
			_dl_msg "pid $pid still alive after 5s, SIGKILL"
			kill -KILL "$pid" 2>/dev/null || true
		fi
	done
	# 3. leftovers (slurmstepd / job processes of jobs that could not be
	#    cancelled, e.g. because a test killed slurmctld)
	left=$(_dl_leftover_pids "$dir")
	if [ -n "$left" ]; then
		for pid in $left; do
			_dl_msg "killing leftover process $pid: $(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | cut -c1-70)"
			kill -KILL "$pid" 2>/dev/null || true
		done
		pids="$pids $left"
	fi
	i=0
	while [ "$i" -lt 20 ]; do
		left=
		for pid in $pids; do _dl_pid_alive "$pid" && left="$left $pid"; done
		[ -z "$left" ] && break
		sleep 0.1
		i=$((i + 1))
	done
	# 4. release port lock and remove dir
	base=$(cat "$dir/run/port_base" 2>/dev/null || true)
	if [ -n "$base" ] && [ "$(cat "/tmp/dl_cluster.ports.$base/owner" 2>/dev/null || true)" = "$dir" ]; then
		rm -rf "/tmp/dl_cluster.ports.$base"
	fi
	mv "$dir/run/harness.pids" "$dir/run/harness.pids.stopped" 2>/dev/null || true
	_dl_keep_failed_logs "$dir"
	if [ "${DL_KEEP:-0}" = 1 ]; then
		_dl_msg "DL_KEEP=1: keeping $dir"
	else
		rm -rf "$dir"
	fi
	_DL_INITED=
	_DL_STARTED=
	return 0
}

# dl_cluster_wait_jobs_done [TIMEOUT]
dl_cluster_wait_jobs_done() {
	local timeout=${1:-60} i=0 n jobs
	n=$(($(_dl_secs "$timeout") * 10))
	while [ "$i" -lt "$n" ]; do
		if jobs=$(squeue -h -t PD,CF,R,CG -o %i 2>/dev/null); then
			[ -z "$jobs" ] && return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	_dl_err "jobs still active after $(_dl_secs "$timeout")s:"
	squeue -o '%i %j %T %r %N' >&2 2>&1 || true
	return 1
}

# dl_cluster_job_field JOBID FIELD
dl_cluster_job_field() {
	local jobid=$1 field=$2 line
	line=$(scontrol show job -o "$jobid" 2>/dev/null) || return 1
	[ -n "$line" ] || return 1
	printf '%s\n' "$line" | awk -v f="$field=" '
		NR == 1 { for (i = 1; i <= NF; i++) if (index($i, f) == 1) { print substr($i, length(f) + 1); found = 1; exit } }
		END { exit found ? 0 : 1 }'
}

# dl_cluster_restart_slurmctld [--no-wait]
# dl_cluster_restart_slurmctld [--no-wait] [--while-down CMD]: stop it,
# eval CMD while it is down (e.g. to damage its state), start it again.
dl_cluster_restart_slurmctld() {
	local pid node live= nowait= down=
	while [ $# -gt 0 ]; do
		case "$1" in
		--no-wait) nowait=1 ;;
		--while-down) down=$2; shift ;;
		*) _dl_err "restart_slurmctld: unknown option $1"; return 1 ;;
		esac
		shift
	done
	pid=$(_dl_pid_of slurmctld) || { _dl_err "no slurmctld recorded"; return 1; }
	_dl_kill_pid "$pid" 10
	[ -n "$down" ] && eval "$down"
	_dl_start_ctld || { dl_cluster_logs_tail 30 >&2; return 1; }
	[ -n "$nowait" ] && return 0
	# Wait until every node whose slurmd is running has registered again
	# (22.05 asks the nodes to register ~4 s after start; until then their
	# state is "unknown", and sinfo appends '*' to non-responding nodes, so
	# "idle*" does not match).
	# shellcheck disable=SC2013
	for node in $(awk '$1 ~ /^slurmd\./ { sub(/^slurmd\./, "", $1); print $1 }' "$DL_CLUSTER_DIR/run/harness.pids" | sort -u); do
		pid=$(_dl_pid_of "slurmd.$node") || continue
		_dl_pid_alive "$pid" && live="$live $node"
	done
	[ -n "$live" ] || return 0
	# shellcheck disable=SC2086
	dl_cluster_wait_nodes '(idle|mixed|allocated|completing|drained|draining|reserved|planned)' "${DL_CLUSTER_TIMEOUT:-30}" $live
}

dl_cluster_log_ctld() { echo "$DL_CLUSTER_DIR/log/slurmctld.log"; }
dl_cluster_log_slurmd() { echo "$DL_CLUSTER_DIR/log/slurmd.$1.log"; }

dl_cluster_logs_tail() {
	local n=${1:-30} f
	[ -n "${DL_CLUSTER_DIR:-}" ] && [ -d "$DL_CLUSTER_DIR/log" ] || return 0
	for f in "$DL_CLUSTER_DIR"/log/*; do
		[ -s "$f" ] || continue
		echo "===== $f (last $n lines) ====="
		tail -n "$n" "$f"
	done
	return 0
}
