#!/usr/bin/env python3
"""archive_check.py ARCHIVE SOURCE [TOP]: does ARCHIVE (tar, tar.gz, tar.xz, tar.zst
or zip, read with Python's tarfile and zipfile, zstd through the zstd command) hold
exactly the tree SOURCE, named TOP/... (default: SOURCE's basename; "" for its
contents), with the same types, content, permission bits, symlink targets and
modification times at the format's precision: pax keeps nanoseconds, zip's DOS time
2 seconds?  A plain tar must end right after its two zero blocks (no padding to
the format's blocking).  Devices, FIFOs and sockets must be absent.  Prints each difference and
exits 1 when there is one; 0 and a summary line when the archive is the tree."""
import hashlib
import io
import os
import stat
import subprocess
import sys
import tarfile
import time
import zipfile
from decimal import Decimal


def tree(src, top):
    want = {}
    entries = [(top, src)] if top else []
    for root, dirs, files in os.walk(src):
        dirs.sort()
        for name in sorted(dirs + files):
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src)
            entries.append((f"{top}/{rel}" if top else rel, path))
    for name, path in entries:
        st = os.lstat(path)
        if not (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
            continue
        e = {"mode": st.st_mode, "mtime_ns": st.st_mtime_ns}
        if stat.S_ISREG(st.st_mode):
            with open(path, "rb") as f:
                e["sha"] = hashlib.sha256(f.read()).hexdigest()
        if stat.S_ISLNK(st.st_mode):
            e["link"] = os.readlink(path)
        want[name] = e
    return want


def read_tar(path):
    if path.endswith(".zst"):
        data = subprocess.run(["zstd", "-dc", path], check=True, capture_output=True).stdout
        t = tarfile.open(fileobj=io.BytesIO(data))
    else:
        t = tarfile.open(path)
    got = {}
    for m in t.getmembers():
        mode = m.mode | (stat.S_IFDIR if m.isdir() else stat.S_IFLNK if m.issym()
                         else stat.S_IFREG if m.isfile() else 0)
        e = {"mode": mode, "mtime_ns": int(Decimal(m.pax_headers.get("mtime", m.mtime)) * 10**9)}
        if m.isfile():
            e["sha"] = hashlib.sha256(t.extractfile(m).read()).hexdigest()
        if m.issym():
            e["link"] = m.linkname
        got[m.name.rstrip("/")] = e
    # unpadded: the end-of-archive's two zero blocks and nothing after
    # (libarchive would fill the last 10 KiB block otherwise)
    if path.endswith(".tar") and os.path.getsize(path) != t.offset + 1024:
        got["(end)"] = {"mode": 0, "mtime_ns": 0,
                        "sha": f"{os.path.getsize(path) - t.offset} bytes after the last entry"}
    return got, 1


def read_zip(path):
    z = zipfile.ZipFile(path)
    got = {}
    for i in z.infolist():
        mode = i.external_attr >> 16
        e = {"mode": mode, "mtime_ns": int(time.mktime(i.date_time + (0, 0, -1))) * 10**9}
        data = z.read(i)
        if stat.S_ISREG(mode):
            e["sha"] = hashlib.sha256(data).hexdigest()
        if stat.S_ISLNK(mode):
            e["link"] = data.decode("utf-8", "surrogateescape")
        got[i.filename.rstrip("/")] = e
    return got, 2 * 10**9


def main():
    archive, src = sys.argv[1], sys.argv[2]
    top = sys.argv[3] if len(sys.argv) > 3 else os.path.basename(os.path.normpath(src))
    want = tree(src, top)
    got, step = read_zip(archive) if archive.endswith(".zip") else read_tar(archive)
    bad = []
    for name in sorted(set(want) | set(got)):
        w, g = want.get(name), got.get(name)
        if w is None or g is None:
            bad.append(f"{name}: {'not in the archive' if g is None else 'not in the source'}")
            continue
        if stat.S_IFMT(w["mode"]) != stat.S_IFMT(g["mode"]):
            bad.append(f"{name}: type {oct(g['mode'])}, source {oct(w['mode'])}")
        # a symlink's own bits mean nothing
        elif not stat.S_ISLNK(w["mode"]) and stat.S_IMODE(w["mode"]) != stat.S_IMODE(g["mode"]):
            bad.append(f"{name}: mode {oct(stat.S_IMODE(g['mode']))}, source {oct(stat.S_IMODE(w['mode']))}")
        for k in ("sha", "link"):
            if w.get(k) != g.get(k):
                bad.append(f"{name}: {k} {g.get(k)}, source {w.get(k)}")
        # zip: DOS time has 2-second steps, rounded either way by writers
        if stat.S_ISLNK(w["mode"]) and step > 1:
            continue
        if abs(w["mtime_ns"] - g["mtime_ns"]) >= step:
            bad.append(f"{name}: mtime {g['mtime_ns']}, source {w['mtime_ns']}")
    for b in bad:
        print(b)
    print(f"{archive}: {len(got)} entries, {len(bad)} differences")
    return 1 if bad else 0


sys.exit(main())
