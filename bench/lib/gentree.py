#!/usr/bin/env python3
"""bench/lib/gentree.py: the files of the tree-100k and tree-1m workloads (lib/trees.bash).

Two steps, each reading a deterministic byte stream (bench_stream: AES-128-CTR of zeros
keyed by a seed) on standard input, so the bench's bash keeps the one definition of the
stream and this program only carves it, as _bench_gen_files does with head -c, but
without a fork per file (a million of those take an hour; this takes a minute):

  gentree.py sizes FILES >NAME.sizes   <stream
      one line per file, "SIZE<TAB>RELPATH", FILES lines. SIZE is uniform in 0..8192
      inclusive: the stream read as little-endian 16-bit words, each masked to 14 bits
      (0..16383) and kept when <= 8192, else dropped (rejection: exactly uniform, about
      two words per file). File n (from 0) is d%03d/s%d/t%d/f%07d with leaf directory
      L = n // 100: d = L // 100, s = L // 10 % 10, t = L % 10; so 100 files per leaf
      directory, 10 x 10 leaves per top directory, and tree-100k's files are the first
      100000 of tree-1m's.
  gentree.py files DIR <NAME.sizes 3<stream
      makes every file of NAME.sizes under DIR, its bytes the next SIZE of the stream.

Exit status: 0, or 1 with a message on stderr (the stream ended early, a write failed).
"""

import os
import sys

FILES_PER_DIR = 100
MAX_SIZE = 8192
CHUNK = 1 << 24


def rel_path(n):
    leaf = n // FILES_PER_DIR
    return "d%03d/s%d/t%d/f%07d" % (leaf // 100, leaf // 10 % 10, leaf % 10, n)


def sizes(nfiles):
    src = sys.stdin.buffer
    out = []
    buf = b""
    pos = 0
    for n in range(nfiles):
        while True:
            if pos + 2 > len(buf):
                buf = buf[pos:] + src.read(CHUNK)
                pos = 0
                if len(buf) < 2:
                    sys.exit("gentree: the size stream ended after %d files" % n)
            word = (buf[pos] | buf[pos + 1] << 8) & 0x3FFF
            pos += 2
            if word <= MAX_SIZE:
                break
        out.append("%d\t%s\n" % (word, rel_path(n)))
    sys.stdout.write("".join(out))


class Stream:
    """Reads the byte stream on fd 3 in large chunks and hands out exact slices."""

    def __init__(self, fd):
        self.f = os.fdopen(fd, "rb", buffering=0)
        self.buf = memoryview(b"")
        self.pos = 0

    def take(self, size):
        if self.pos + size > len(self.buf):
            rest = bytes(self.buf[self.pos:])
            more = bytearray()
            while len(rest) + len(more) < size + CHUNK:
                got = self.f.read(CHUNK)
                if not got:
                    break
                more += got
            self.buf = memoryview(rest + bytes(more))
            self.pos = 0
            if size > len(self.buf):
                sys.exit("gentree: the byte stream ended early")
        piece = self.buf[self.pos:self.pos + size]
        self.pos += size
        return piece


def files(top):
    stream = Stream(3)
    made = set()
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
    for line in sys.stdin:
        size, rel = line.rstrip("\n").split("\t")
        size = int(size)
        path = os.path.join(top, rel)
        parent = os.path.dirname(path)
        if parent not in made:
            os.makedirs(parent, exist_ok=True)
            made.add(parent)
        fd = os.open(path, flags, 0o644)
        try:
            data = stream.take(size)
            while data:
                done = os.write(fd, data)
                data = data[done:]
        finally:
            os.close(fd)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "sizes":
        sizes(int(sys.argv[2]))
    elif len(sys.argv) == 3 and sys.argv[1] == "files":
        files(sys.argv[2])
    else:
        sys.exit("usage: gentree.py sizes FILES <stream | files DIR <SIZES 3<stream")


if __name__ == "__main__":
    main()
