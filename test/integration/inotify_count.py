#!/usr/bin/env python3
"""inotify_count.py PATH OUT - count reads of PATH (inotify IN_ACCESS).

Test helper of test_service.sh: the storage is shared by every node's
mount namespace, so a read of a source file by any node (dl-stage or
dl-cached copying it) shows up here.  OUT holds the number of read events
so far ("0" as soon as the watch is in place); runs until killed.
"""
import ctypes
import os
import struct
import sys

IN_ACCESS = 0x1


def main():
    path, out = sys.argv[1], sys.argv[2]
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init()
    if fd < 0 or libc.inotify_add_watch(fd, path.encode(), IN_ACCESS) < 0:
        sys.exit("inotify_count: cannot watch %s" % path)
    count = 0

    def publish():
        tmp = out + ".tmp"
        with open(tmp, "w") as f:
            f.write("%d\n" % count)
        os.replace(tmp, out)

    publish()
    while True:
        buf = os.read(fd, 65536)
        i = 0
        while i + 16 <= len(buf):
            _, mask, _, n = struct.unpack_from("iIII", buf, i)
            if mask & IN_ACCESS:
                count += 1
            i += 16 + n
        publish()


if __name__ == "__main__":
    main()
