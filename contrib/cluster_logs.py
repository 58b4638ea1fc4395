"""cluster_logs.py - readers of a row that contrib/bench_cluster.sh kept
with KEEP_LOGS=DIR (DIR/<row>/: slurmctld.log, sub, times.<row>), shared
by contrib/validate_sim.py and contrib/bench_cluster_times.py.

No third-party modules: Debian's python3 runs it.
"""
import datetime
import glob
import os
import re
import sys

# bench_cluster.sh's nodes; "n[1-4]" in an Allocate line means all of them
NODES = ["n1", "n2", "n3", "n4"]


def _ts(s):
    return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%f").timestamp()


def slurmctld(rowdir):
    """({job: (Allocate time, [nodes])}, {job: _job_complete time}) from
    the row's slurmctld.log (milliseconds)."""
    alloc, done = {}, {}
    for line in open(os.path.join(rowdir, "slurmctld.log"), errors="replace"):
        m = re.match(r"\[(\S+)\] sched: Allocate JobId=(\d+) NodeList=(\S+) ",
                     line)
        if m:
            nl = m[3]
            alloc[int(m[2])] = (_ts(m[1]), NODES if "[" in nl else [nl])
            continue
        m = re.match(r"\[(\S+)\] _job_complete: JobId=(\d+) done", line)
        if m:
            done[int(m[2])] = _ts(m[1])
    return alloc, done


def times_file(rowdir):
    found = glob.glob(os.path.join(rowdir, "times.*"))
    if len(found) != 1:
        sys.exit("%s: no single times file" % rowdir)
    return found[0]


def jobs(rowdir):
    """[(job id, kind, submitted, started, ended)] in submission order, from
    the row's sub (id kind time, the bench's clock before sbatch) and
    times.<row> (kind resp wait a line, same order; "-" for a job that
    left no times: started and ended None)."""
    sub = {}
    for line in open(os.path.join(rowdir, "sub")):
        j, kind, t = line.split()
        sub[int(j)] = (kind, float(t))
    times = [line.split() for line in open(times_file(rowdir))]
    ids = sorted(sub)
    if len(times) != len(ids):
        sys.exit("%s: times and submissions differ" % rowdir)
    out = []
    for j, (_, resp, wait) in zip(ids, times):
        kind, ts = sub[j]
        if resp == "-":
            out.append((j, kind, ts, None, None))
        else:
            out.append((j, kind, ts, ts + float(wait), ts + float(resp)))
    return out
