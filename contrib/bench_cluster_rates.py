#!/usr/bin/env python3
"""bench_cluster_rates.py - what copies cost and how long nodes stayed free,
from the slurmctld logs bench_cluster.sh keeps (KEEP_LOGS=DIR).

    contrib/bench_cluster_rates.py 'DIR/round1/datalocality + cache/slurmctld.log' ...

Staging: the agent logs every job's staging record (agent_acct.c:
"JobId=N staging: datalocality: files=.. cached=K/B peer=K/B storage=K/B
direct=K/B staged_s=S").  Jobs are grouped by what their Prolog copied:
a large file (BIG_MIB, 20 MiB: the genomics stream's references) from a
peer's cache, from the storage, both, read from its source (direct), or
nothing large; per group the median and mean staging time.  The
difference between a group's median and the "small" group's is what one
such copy cost a job, e.g. 24 MiB from a peer in 0.3 s: 80 MB/s.

Gaps: for every node, the time from a job's completion ("_job_complete:
JobId=N done") to the next "Allocate" on that node; a node that stays
free for long is one a placed job may really be blocked by.
"""
import re
import statistics as st
import sys
from datetime import datetime

BIG_MIB = 20
STAGING = re.compile(r'JobId=(\d+) staging: datalocality: files=\d+ '
                     r'cached=\d+/\d+ peer=\d+/(\d+) storage=\d+/(\d+) '
                     r'direct=\d+/(\d+) staged_s=([\d.]+)')
ALLOC = re.compile(r'Allocate JobId=(\d+) NodeList=(\S+)')
DONE = re.compile(r'_job_complete: JobId=(\d+) done')


def when(line):
    return datetime.strptime(line[1:24], '%Y-%m-%dT%H:%M:%S.%f').timestamp()


def group(peer, storage, direct):
    big = BIG_MIB << 20
    if peer >= big and storage >= big:
        return 'peer+storage'
    if peer >= big:
        return 'peer'
    if storage >= big:
        return 'storage'
    if direct >= big:
        return 'direct'
    return 'small'


def main(paths):
    groups = {}
    for path in paths:
        node, free, gaps = {}, {}, []
        for line in open(path, errors='replace'):
            if not line.startswith('[20'):
                continue
            m = STAGING.search(line)
            if m:
                peer, sto, direct = (int(m.group(i)) for i in (2, 3, 4))
                groups.setdefault(group(peer, sto, direct), []).append(
                    float(m.group(5)))
                continue
            m = ALLOC.search(line)
            if m:
                node[m.group(1)] = m.group(2)
                if m.group(2) in free:
                    gaps.append(when(line) - free.pop(m.group(2)))
                continue
            m = DONE.search(line)
            if m and m.group(1) in node:
                free[node[m.group(1)]] = when(line)
        if gaps:
            gaps.sort()
            print('%s: %d gaps, median %.2f s, p90 %.2f s, max %.2f s, '
                  'over 1 s: %d' % (path, len(gaps), gaps[len(gaps) // 2],
                                    gaps[int(len(gaps) * 0.9)], gaps[-1],
                                    sum(g > 1 for g in gaps)))
    print('staging by what the Prolog copied (large: >= %d MiB):' % BIG_MIB)
    for k in sorted(groups):
        v = groups[k]
        print('  %-13s jobs %4d  median %.3f s  mean %.3f s' %
              (k, len(v), st.median(v), st.mean(v)))


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
