#!/usr/bin/env python3
"""port_attacker.py - test-only hostile user for test_ports.sh.

  port_attacker.py hold PORT N
      keeps N idle TCP connections to 127.0.0.1:PORT, opening a new one as
      soon as one is closed, until killed; prints "ready" once N are open.
  port_attacker.py squat PORT OUT
      listens on PORT, accepts everything, writes every byte received to
      OUT (appended, flushed), never sends anything; prints "ready".
"""
import select
import socket
import sys


def hold(port, n):
    socks = []
    while len(socks) < n:
        try:
            socks.append(socket.create_connection(("127.0.0.1", port), 5))
        except OSError:
            pass
    print("ready", flush=True)
    while True:
        ready, _, _ = select.select(socks, [], [], 1.0)
        for s in ready:
            try:
                data = s.recv(4096)
            except OSError:
                data = b""
            if not data:
                socks.remove(s)
                s.close()
        while len(socks) < n:
            try:
                socks.append(socket.create_connection(("127.0.0.1", port), 5))
            except OSError:
                break


def squat(port, out):
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", port))
    ls.listen(64)
    print("ready", flush=True)
    conns = []
    with open(out, "ab") as f:
        while True:
            ready, _, _ = select.select([ls] + conns, [], [], 1.0)
            for s in ready:
                if s is ls:
                    conns.append(ls.accept()[0])
                    continue
                data = s.recv(65536)
                if not data:
                    conns.remove(s)
                    s.close()
                f.write(data)
                f.flush()


if __name__ == "__main__":
    if sys.argv[1] == "hold":
        hold(int(sys.argv[2]), int(sys.argv[3]))
    else:
        squat(int(sys.argv[2]), sys.argv[3])
