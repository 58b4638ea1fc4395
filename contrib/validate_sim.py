#!/usr/bin/env python3
"""validate_sim.py - the analysis half of contrib/validate_sim.sh.

  overhead ROWDIR              seconds a job holds its node besides its own
                               script, from a kept bench_cluster.sh row
  workload STREAM SERVERS IMG COMPUTE PLAIN
                               the bench's stream as a dl-sim workload file
  table ROWS...                the side-by-side table (ROWS: name|real|sim,
                               a name once per round: the means of the
                               rounds, and the pairs of rows they tell
                               apart)

No third-party modules: Debian's python3 runs it.
"""
import hashlib
import statistics
import sys

import cluster_logs  # contrib/, beside this script

def overhead(rowdir):
    """Mean over the plain jobs (no staging) of the time their node was
    theirs and not running their script: slurmd's launch, Prolog, Epilog
    and the controller's reaction to the node coming free (from one job's
    end to the next start on that node, when one was waiting)."""
    alloc, done = cluster_logs.slurmctld(rowdir)
    rows = cluster_logs.jobs(rowdir)
    kind = {j: k for j, k, _, _, _ in rows}
    script = {j: end - start for j, _, _, start, end in rows
              if start is not None}
    # the gap before a job on its node, when the node had a job before
    # (single-node jobs: the stream has no wide job here)
    prev_end, gap = {}, {}
    for j in sorted(alloc, key=lambda k: alloc[k][0]):
        if len(alloc[j][1]) != 1:
            continue
        n = alloc[j][1][0]
        if n in prev_end and alloc[j][0] - prev_end[n] < 1.0:
            gap[j] = alloc[j][0] - prev_end[n]
        prev_end[n] = done.get(j, alloc[j][0])
    held = [done[j] - alloc[j][0] - script[j] + gap.get(j, 0.0)
            for j in sorted(kind) if kind[j] == "p" and j in done and
            j in script and j in alloc]
    if not held:
        sys.exit("validate_sim: %s: no plain job to measure" % rowdir)
    print("%.3f" % statistics.mean(held))


def workload(stream, servers, img, compute, plain):
    """One dl-sim workload (doc/workloads.md): every image a file on the
    server dl-stage's emulated storage puts it on (SHA-256 of the path,
    first byte, modulo the servers), every job at its arrival."""
    files, jobs = {}, []
    for n, line in enumerate(open(stream), 1):
        at, kind, paths = line.split()
        idx = []
        if kind == "a":
            for p in paths.split(","):
                if p not in files:
                    files[p] = len(files)
                idx.append(files[p])
        elif kind != "p":
            sys.exit("validate_sim: %s:%d: only annotated and plain jobs "
                     "are simulated (run the bench with NWIDE=0)" % (stream, n))
        jobs.append((n, float(at), compute if kind == "a" else plain, idx))
    print("# dl-sim workload 1 (doc/workloads.md)")
    for p, i in sorted(files.items(), key=lambda kv: kv[1]):
        server = hashlib.sha256(p.encode()).digest()[0] % servers
        print("file %d %d %d %s" % (i, img, server, p))
    for n, at, c, idx in jobs:
        print("job %d %.6f %g 1 %s" % (n, at, c,
                                         ",".join(map(str, idx)) or "-"))


TIE = 0.05


def _rank(vals):
    order = sorted(range(len(vals)), key=lambda i: vals[i])
    return [order.index(i) + 1 for i in range(len(vals))]


# Student's t, two-sided 95%, by degrees of freedom.
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447,
       7: 2.365, 8: 2.306, 9: 2.262}


def _rounds(rows):
    """rows: name|real_resp real_mib|sim_resp sim_mib, a name once per
    round: the names in first-seen order, and per name its rounds (lists
    of the four figures)."""
    order, acc = [], {}
    for r in rows:
        name, rv, sv = r.split("|")
        if name not in acc:
            order.append(name)
            acc[name] = []
        acc[name].append([float(x) for x in rv.split() + sv.split()])
    return order, acc


def _apart(ra, rb):
    """Whether the real cluster tells rows a and b apart (their rounds'
    real mean responses): means TIE or more apart and, with several
    rounds, a paired difference (same stream each round) whose 95%
    interval excludes 0."""
    a = statistics.mean(x[0] for x in ra)
    b = statistics.mean(x[0] for x in rb)
    if abs(a - b) < TIE * min(a, b):
        return False
    n = min(len(ra), len(rb))
    if n < 2:
        return True
    d = [ra[i][0] - rb[i][0] for i in range(n)]
    half = T95.get(n - 1, 2.0) * statistics.stdev(d) / n ** 0.5
    return abs(statistics.mean(d)) > half


def table(rows):
    """rows: name|real_resp real_mib|sim_resp sim_mib, once per round;
    every figure is the mean over the rounds."""
    names, acc = _rounds(rows)
    real, sim = [], []
    for name in names:
        m = [statistics.mean(col) for col in zip(*acc[name])]
        real.append((m[0], m[1]))
        sim.append((m[2], m[3]))
    rr, sr = _rank([x[0] for x in real]), _rank([x[0] for x in sim])
    lines = ["| row | real mean response | dl-sim | dl-sim / real | rank real / dl-sim "
             "| real MiB from storage | dl-sim | dl-sim / real |",
             "|---|---:|---:|---:|---|---:|---:|---:|"]
    within = True
    for i, name in enumerate(names):
        q1 = sim[i][0] / real[i][0] if real[i][0] > 0 else float("inf")
        q2 = sim[i][1] / real[i][1] if real[i][1] > 0 else float("inf")
        within = within and 0.75 <= q1 <= 1.25 and 0.75 <= q2 <= 1.25
        lines.append("| %s | %.2f s | %.2f s | %.2f | %d / %d | %.0f | %.0f | %.2f |"
                     % (name, real[i][0], sim[i][0], q1, rr[i], sr[i],
                        real[i][1], sim[i][1], q2))
    # Only the pairs the real cluster tells apart (_apart()) must come out
    # in the same order in dl-sim: the others are ties.
    pairs, wrong = 0, []
    nrounds = min(len(v) for v in acc.values())
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            if not _apart(acc[names[i]], acc[names[j]]):
                continue
            pairs += 1
            if (real[i][0] < real[j][0]) != (sim[i][0] < sim[j][0]):
                wrong.append("%s/%s" % (names[i], names[j]))
    told = ("whose real means differ by %d%% or more" % round(100 * TIE)
            if nrounds < 2 else
            "whose real means differ by %d%% or more, significantly over "
            "the %d rounds (paired, 95%%)" % (round(100 * TIE), nrounds))
    lines.append("")
    lines.append("within 25%%: %s; same ranking by mean response: %s "
                 "(the %d pairs of rows %s%s)"
                 % ("yes" if within else "no", "no" if wrong else "yes",
                    pairs, told,
                    "; in another order: " + ", ".join(wrong) if wrong
                    else ", all in the same order"))
    sys.stdout.write("\n".join(lines) + "\n")


def main(argv):
    if len(argv) >= 2 and argv[1] == "overhead" and len(argv) == 3:
        overhead(argv[2])
    elif len(argv) >= 2 and argv[1] == "workload" and len(argv) == 7:
        workload(argv[2], int(argv[3]), int(argv[4]), float(argv[5]),
                 float(argv[6]))
    elif len(argv) >= 3 and argv[1] == "table":
        table(argv[2:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
