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
import os
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


if __name__ == "__main__":
    main()
