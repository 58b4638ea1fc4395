#!/usr/bin/env python3
"""bench_cluster_times.py - where the time of one bench_cluster.sh row goes.

Reads a row directory that contrib/bench_cluster.sh left with
KEEP_LOGS=DIR (DIR/<row>/: slurmctld.log, sub, stream, times.<row>) and
prints, from slurmctld's "Allocate" and "_job_complete" lines against the
jobs' own clocks:

  * per node: jobs run, the share of the row's span it was allocated, its
    idle gaps longer than 0.15 s;
  * per kind of job (a annotated, p plain): the median seconds from
    Allocate to the batch script's first line (Slurm's launch, Prolog,
    TaskProlog), of the script itself, and from its last line to
    _job_complete;
  * the median gap from one job's _job_complete to the node's next
    Allocate;
  * per input file read by more than one job (the genomics stream's
    references): the jobs reading it, the nodes they ran on, their
    median Allocate-to-start (staging) and mean wait for Allocate; and
    over all jobs the MiB each copied, and from peers (dl-stage's logs,
    stage.nX.log);
  * a FIFO bound: the mean response of the annotated jobs if the stream's
    jobs ran in submission order on the 4 one-CPU nodes, each holding its
    node for its compute plus the measured per-job overhead and nothing
    else (no wait for data, no placement).  The row is bound by the
    per-job overhead when its mean response is near this.

  contrib/bench_cluster_times.py "DIR/datalocality + cache" [COMPUTE PLAIN WIDE]

COMPUTE, PLAIN, WIDE: the stream's seconds of compute per annotated,
plain and wide job (bench_cluster.sh's defaults 0.5, 1, 3).
Slurm's log has milliseconds: the figures are good to about 1 ms.
"""
import glob
import os
import re
import statistics
import sys

import cluster_logs  # contrib/, beside this script
from cluster_logs import NODES

def _med(v):
    return statistics.median(v) if v else float("nan")


def _nodes(alloc, done):
    end = max(done.values())
    gaps_all = []
    for n in NODES:
        iv = sorted((t, done.get(j, end)) for j, (t, ns) in alloc.items()
                    if n in ns)
        if not iv:
            continue
        busy = sum(e - s for s, e in iv)
        gaps = [iv[i + 1][0] - iv[i][1] for i in range(len(iv) - 1)]
        gaps_all += [g for g in gaps if g < 1]
        big = [g for g in gaps if g > 0.15]
        print("%s: %d jobs, allocated %.1f%% of %.1f s, %d idle gaps over "
              "0.15 s (%.2f s)" % (n, len(iv), 100 * busy / (end - iv[0][0]),
                                  end - iv[0][0], len(big), sum(big)))
    return _med(gaps_all)


def _fifo_starts(stream, overhead, compute, plain, wide):
    """[(arrival, kind, start)] of the stream run FIFO on 4 slots."""
    free, out = [0.0] * 4, []
    for line in open(stream):
        at, kind = float(line.split()[0]), line.split()[1]
        if kind == "w":
            t = max([at] + free)
            free = [t + wide + overhead] * 4
        else:
            i = min(range(4), key=lambda k: free[k])
            t = max(at, free[i])
            free[i] = t + (compute if kind == "a" else plain) + overhead
        out.append((at, kind, t))
    return out


def _fifo(stream, overhead, compute, plain, wide):
    """Mean response of the annotated jobs, FIFO on 4 slots."""
    return statistics.mean(
        t - at + compute + overhead
        for at, kind, t in _fifo_starts(stream, overhead, compute, plain, wide)
        if kind == "a")


def _early(row, alloc, stream, overhead, compute, plain, wide):
    """The annotated jobs' wait for Allocate, real against FIFO, by the
    arrival's 4-second window: where the row falls behind the bound."""
    model = _fifo_starts(stream, overhead, compute, plain, wide)
    rows = cluster_logs.jobs(row)
    t0 = min(ts for _, _, ts, _, _ in rows)
    win = {}
    for (jid, kind, ts, _, _), (at, _, ms) in zip(rows, model):
        if kind == "a" and jid in alloc:
            w = win.setdefault(int(at // 4), [[], []])
            w[0].append(alloc[jid][0] - t0 - at)
            w[1].append(ms - at)
    for k in sorted(win):
        print("  arrivals %2d-%2d s: %2d jobs, wait %.2f s, FIFO bound %.2f s"
              % (4 * k, 4 * k + 4, len(win[k][0]),
                 statistics.mean(win[k][0]), statistics.mean(win[k][1])))


def _stage_logs(row):
    """{job: (node, files cached, MiB copied, bytes from peers)} from the
    row's dl-stage logs (a job's last Prolog line per node wins; a 2-node
    job keeps one of its nodes)."""
    out = {}
    for path in glob.glob(os.path.join(row, "stage.n*.log")):
        for line in open(path, errors="replace"):
            m = re.search(r"job (\d+) on (n\d+): \d+ files: (\d+) cached "
                          r"\([^)]*\), \d+ copied \(([\d.]+) ([KMG]?i?B)\)",
                          line)
            if m:
                mib = float(m[4]) * {"GiB": 1024, "MiB": 1, "KiB": 1 / 1024,
                                     "B": 1 / 1048576}[m[5]]
                out[int(m[1])] = (m[2], int(m[3]), mib, 0)
                continue
            m = re.search(r"job (\d+) on (n\d+): \d+ of the copies from "
                          r"other nodes' caches \((\d+) bytes\)", line)
            if m and int(m[1]) in out:
                n, c, mib, _ = out[int(m[1])]
                out[int(m[1])] = (n, c, mib, int(m[3]))
    return out


def _shared(row, alloc):
    """Per file read by more than one job: where its readers ran, how
    they got it, their staging and their wait (see the docstring)."""
    stage = _stage_logs(row)
    if not stage:
        return
    rows = cluster_logs.jobs(row)
    lines = [ln.split() for ln in open(os.path.join(row, "stream"))]
    readers = {}
    for (jid, kind, ts, start, _), ln in zip(rows, lines):
        for f in (ln[2].split(",") if len(ln) > 2 and ln[2] != "-" else []):
            readers.setdefault(f, []).append((jid, ts, start))
    print("shared inputs (readers on nodes; their median staging, "
          "Allocate to start; their mean wait for Allocate):")
    for f in sorted(readers, key=lambda k: -len(readers[k])):
        r = readers[f]
        if len(r) < 2:
            continue
        nodes, stg, wait = {}, [], []
        for jid, ts, start in r:
            if jid in alloc:
                for n in alloc[jid][1]:
                    nodes[n] = nodes.get(n, 0) + 1
                wait.append(alloc[jid][0] - ts)
                if start is not None:
                    stg.append(start - alloc[jid][0])
        print("  %s: %d readers on %s; median staging %.2f s, mean wait "
              "%.2f s" % (os.path.basename(f), len(r),
                          " ".join("%s:%d" % kv for kv in sorted(nodes.items())),
                          _med(stg), statistics.mean(wait) if wait else
                          float("nan")))
    st = [v[2] for v in stage.values()]
    pe = [v[3] / 1048576 for v in stage.values()]
    print("  per job: %.2f MiB copied (median %.2f), of which %.2f MiB "
          "from peers; %d of %d jobs copied nothing" %
          (statistics.mean(st), _med(st), statistics.mean(pe),
           sum(1 for v in stage.values() if v[2] == 0), len(stage)))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    row = sys.argv[1]
    compute, plain, wide = (float(x) for x in (sys.argv[2:5] or
                                               ["0.5", "1", "3"]))
    alloc, done = cluster_logs.slurmctld(row)
    gap = _nodes(alloc, done)
    launch, run, finish = {}, {}, {}
    for jid, kind, _, start, end in cluster_logs.jobs(row):
        if (jid not in alloc or jid not in done or kind == "w" or
                start is None):
            continue
        launch.setdefault(kind, []).append(start - alloc[jid][0])
        run.setdefault(kind, []).append(end - start)
        finish.setdefault(kind, []).append(done[jid] - end)
    for kind in sorted(launch):
        print("%s jobs: Allocate to start %.3f s, script %.3f s, end to "
              "_job_complete %.3f s (medians of %d)" %
              (kind, _med(launch[kind]), _med(run[kind]),
               _med(finish[kind]), len(launch[kind])))
    print("_job_complete to the node's next Allocate: %.3f s (median)" % gap)
    a = "a" if "a" in launch else sorted(launch)[0]
    over = _med(launch[a]) + _med(run[a]) - compute + _med(finish[a]) + gap
    stream = os.path.join(row, "stream")
    print("per-job overhead %.3f s; FIFO bound on the annotated mean "
          "response: %.2f s (at %.3f s: %.2f s)" %
          (over, _fifo(stream, over, compute, plain, wide), over + 0.03,
           _fifo(stream, over + 0.03, compute, plain, wide)))
    print("annotated jobs' wait for Allocate against the bound's:")
    _early(row, alloc, stream, over, compute, plain, wide)
    _shared(row, alloc)


if __name__ == "__main__":
    main()
