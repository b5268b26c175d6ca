#!/usr/bin/python3
"""hostile_archive.py CASE OUT VICTIM: write the hostile archive CASE to OUT.

For tests/bats/safecp_unpack.bats: each case is one trick an archive plays on an
extractor (VICTIM is a directory off the stick that must never change), made with
Python's tarfile and zipfile so the bytes are what a real tool would meet. `list`
prints the case names."""
import io
import os
import sys
import tarfile
import zipfile

MTIME = 1700000000


def tar(out, entries, fmt=tarfile.PAX_FORMAT):
    """entries: (name, kind, extra, mode); kind f (extra: bytes), d, l, h (extra: link),
    p (FIFO), c (char device), b (block device)."""
    with tarfile.open(out, 'w', format=fmt) as t:
        for name, kind, extra, mode in entries:
            i = tarfile.TarInfo(name)
            i.mtime = MTIME
            i.mode = mode
            data = None
            if kind == 'f':
                data = extra
                i.size = len(data)
            elif kind == 'd':
                i.type = tarfile.DIRTYPE
            elif kind == 'l':
                i.type = tarfile.SYMTYPE
                i.linkname = extra
            elif kind == 'h':
                i.type = tarfile.LNKTYPE
                i.linkname = extra
            elif kind == 'p':
                i.type = tarfile.FIFOTYPE
            elif kind in 'cb':
                i.type = tarfile.CHRTYPE if kind == 'c' else tarfile.BLKTYPE
                i.devmajor, i.devminor = (1, 3) if kind == 'c' else (7, 0)
            t.addfile(i, io.BytesIO(data) if data is not None else None)


def f(name, data=b'planted\n', mode=0o644):
    return (name, 'f', data, mode)


def d(name, mode=0o755):
    return (name, 'd', None, mode)


def ln(name, target):
    return (name, 'l', target, 0o777)


def hard(name, target):
    return (name, 'h', target, 0o644)


def cases(victim):
    up = '../' * 12 + victim.lstrip('/')
    ok = f('ok.txt', b'fine\n')
    return {
        'absolute': [ok, f(victim + '/planted')],
        'dotdot': [ok, f(up + '/planted')],
        'empty': [ok, f('a//planted')],
        'control': [ok, f('evil\x1b[31mred')],
        'symlink-out': [ok, ln('out', victim)],
        # d/e/b climbs to the top, as its words say; b/.. then climbs out of it
        'symlink-dotdot-middle': [ok, d('d'), d('d/e'), ln('d/e/b', '../..'),
                                  ln('d/e/up', 'b/..')],
        # a symlink, then a file through it (the link points inside: refused anyway)
        'symlink-then-file': [ok, d('real'), ln('via', 'real'), f('via/planted')],
        # CVE-2021-31566: a directory replaced by a symlink, then metadata through it
        'dir-replaced-by-symlink': [ok, d('dir', 0o700), ln('dir', up),
                                    f('dir/planted', mode=0o666), d('dir', 0o777)],
        'duplicate': [ok, f('x', b'first\n'), ln('x', 'ok.txt')],
        'through-file': [ok, f('plain'), f('plain/planted')],
        'hardlink-out': [ok, hard('h', victim + '/secret')],
        'hardlink-dotdot': [ok, hard('h', up + '/secret')],
        'hardlink-later': [ok, hard('h', 'later'), f('later')],
        'device': [ok, ('null', 'c', None, 0o666)],
        'block-device': [ok, ('disk', 'b', None, 0o660)],
        'fifo': [ok, ('fifo', 'p', None, 0o644)],
        'setuid': [ok, f('suid', b'#!/bin/sh\n', 0o4755)],
        'setgid': [ok, d('sgid', 0o2775)],
        'sticky': [ok, d('tmp', 0o1777)],
    }


def zip_bomb(out, size):
    """One entry of size zero bytes, deflated: the central directory tells the size."""
    with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as z:
        z.writestr('ok.txt', 'fine\n')
        with z.open('bomb.bin', 'w', force_zip64=True) as w:
            block = bytes(1 << 20)
            for _ in range(size >> 20):
                w.write(block)


def zip_liar(out):
    """The central directory and the local header say 1 KiB; the data inflates to 8 MiB."""
    big = bytes(8 << 20)
    with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as z:
        z.writestr('ok.txt', 'fine\n')
        z.writestr('liar.bin', big)
    raw = bytearray(open(out, 'rb').read())
    name = b'liar.bin'
    local = raw.index(b'PK\x03\x04')
    while raw[local + 30:local + 30 + len(name)] != name:
        local = raw.index(b'PK\x03\x04', local + 4)
    raw[local + 22:local + 26] = (1024).to_bytes(4, 'little')
    central = raw.index(b'PK\x01\x02')
    while raw[central + 46:central + 46 + len(name)] != name:
        central = raw.index(b'PK\x01\x02', central + 4)
    raw[central + 24:central + 28] = (1024).to_bytes(4, 'little')
    open(out, 'wb').write(raw)


def main():
    if sys.argv[1:2] == ['list']:
        print('\n'.join(cases('/victim')))
        return
    case, out, victim = sys.argv[1:4]
    if case == 'zip-bomb':
        zip_bomb(out, int(os.environ.get('BOMB_MIB', '200')) << 20)
    elif case == 'zip-liar':
        zip_liar(out)
    elif case == 'zip-dotdot':
        with zipfile.ZipFile(out, 'w') as z:
            z.writestr('ok.txt', 'fine\n')
            z.writestr('../' * 12 + victim.lstrip('/') + '/planted', 'planted\n')
    else:
        tar(out, cases(victim)[case])


main()
