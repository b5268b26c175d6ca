#!/usr/bin/python3
"""test_mhl_check.py MHL_GEN MHL_CHECK: the checker checked (TAP).

Builds a destination with awkward names, writes its generations with lib/mhl (through
tests/tools/mhl_gen, hashes computed here), and expects mhl_check.py to pass it; then
damages a copy in one way at a time (a changed byte, a wrong C4 in the chain, elements
out of order, a missing or unlisted file, a verified hash that differs...) and expects
each to fail with a message naming the problem. Also reads the history back through
lib/mhl's reader (mhl_gen read) and compares it with what was written.
"""
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

try:
    import lxml  # noqa: F401  (the checker needs it)
    import xxhash
except ImportError as e:
    print(f"1..0 # SKIP {e.name} is not installed (python3-lxml, python3-xxhash)")
    sys.exit(0)

MHL_GEN, MHL_CHECK = sys.argv[1], sys.argv[2]
C4_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
T0 = 1764602517  # 2025-12-01 15:21:57 UTC

# name -> content; names with what breaks naive writers and readers
FILES = {
    "A001/clip one.mov": b"frame data " * 1000,
    "A001/quote\"and'apostrophe.txt": b"q",
    "A001/amp&lt<gt>.xml": b"<not xml>",
    "Gr\u00fc\u00dfe/\u65e5\u672c\u8a9e.txt": "non-ASCII \u00e9".encode(),
    "new\nline.txt": b"line\n",
    "empty": b"",
    "deep/a/b/c/d.bin": bytes(range(256)) * 64,
}

tests = []


def test(fn):
    tests.append(fn)
    return fn


def c4(data):
    v = int.from_bytes(hashlib.sha512(data).digest(), "big")
    s = ""
    while v:
        v, r = divmod(v, 58)
        s = C4_ALPHABET[r] + s
    return "c4" + s.rjust(88, "1")


def hashes_of(data, formats):
    fn = {
        "md5": lambda d: hashlib.md5(d).hexdigest(),
        "sha1": lambda d: hashlib.sha1(d).hexdigest(),
        "c4": c4,
        "xxh64": lambda d: xxhash.xxh64(d).hexdigest(),
        "xxh3": lambda d: xxhash.xxh3_64(d).hexdigest(),
        "xxh128": lambda d: xxhash.xxh3_128(d).hexdigest(),
    }
    return {f: fn[f](data) for f in formats}


def run(*args, data=None):
    return subprocess.run(list(args), input=data, capture_output=True)


def write_generation(dest, number, when, files, formats, action_of, ignores=()):
    """Generation `number` of dest listing `files`, through mhl_gen; returns its name."""
    toks = [str(when), "host & <name>", "safecp", "0.1 test"]
    for p in ignores:
        toks += ["ignore", p]
    for path in files:
        full = os.path.join(dest, path)
        with open(full, "rb") as fh:
            data = fh.read()
        st = os.stat(full)
        hs = hashes_of(data, formats)
        toks += ["file", path, str(len(data)), str(int(st.st_mtime)), str(len(hs))]
        for f, v in hs.items():
            toks += [f, v, action_of(path, f), str(when)]
    blob = b"".join(t.encode() + b"\0" for t in toks)
    r = run(MHL_GEN, "gen", data=blob)
    assert r.returncode == 0, r.stderr.decode()
    name = run(MHL_GEN, "name", str(number), os.path.basename(dest), str(when)).stdout.decode().strip()
    os.makedirs(os.path.join(dest, "ascmhl"), exist_ok=True)
    with open(os.path.join(dest, "ascmhl", name), "wb") as fh:
        fh.write(r.stdout)
    return name


def write_chain(dest, names):
    args = []
    for i, name in enumerate(names, 1):
        with open(os.path.join(dest, "ascmhl", name), "rb") as fh:
            args += [str(i), name, c4(fh.read())]
    r = run(MHL_GEN, "chain", *args)
    assert r.returncode == 0, r.stderr.decode()
    with open(os.path.join(dest, "ascmhl", "ascmhl_chain.xml"), "wb") as fh:
        fh.write(r.stdout)


def make_dest(base, generations=2, formats=("xxh128", "md5", "c4")):
    """A destination folder "CARD_01" with FILES, a .DS_Store (ignored) and `generations`
    generations: the first original, the later ones verified."""
    dest = os.path.join(base, "CARD_01")
    for path, data in FILES.items():
        full = os.path.join(dest, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as fh:
            fh.write(data)
        os.utime(full, (T0 - 3600, T0 - 3600))
    with open(os.path.join(dest, "A001", ".DS_Store"), "wb") as fh:
        fh.write(b"finder")
    names = []
    for g in range(1, generations + 1):
        act = "original" if g == 1 else "verified"
        names.append(write_generation(dest, g, T0 + 86400 * (g - 1), sorted(FILES), formats,
                                      lambda p, f, a=act: a, ignores=("*.xxh128",)))
    write_chain(dest, names)
    return dest, names


def check(dest):
    r = run(sys.executable, MHL_CHECK, "--quiet", dest)
    return r.returncode, r.stderr.decode()


def expect_fail(dest, pattern):
    rc, err = check(dest)
    assert rc == 1, f"checker passed a damaged copy (exit {rc}): {err}"
    assert re.search(pattern, err), f"no message matching /{pattern}/ in: {err}"


def edit(path, fn):
    with open(path, "rb") as fh:
        data = fh.read()
    new = fn(data)
    assert new != data, f"the edit changed nothing in {path}"
    with open(path, "wb") as fh:
        fh.write(new)


@test
def good_history_passes(base):
    dest, names = make_dest(base)
    assert names[0].startswith("0001_CARD_01_2025-12-01_152157Z"), names
    rc, err = check(dest)
    assert rc == 0, err


@test
def one_generation_of_every_format_passes(base):
    dest, _ = make_dest(base, 1, ("md5", "sha1", "c4", "xxh64", "xxh3", "xxh128"))
    rc, err = check(dest)
    assert rc == 0, err


@test
def reader_gives_back_what_was_written(base):
    dest, _ = make_dest(base)
    r = run(MHL_GEN, "read", dest)
    assert r.returncode == 0, r.stderr.decode()
    fields = r.stdout.split(b"\0")
    assert fields[0] == b"2", fields[0]
    got, i = {}, 1
    while i < len(fields) and fields[i]:
        path, size, mtime = fields[i].decode(), int(fields[i + 1]), int(fields[i + 2])
        i += 3
        hs = {}
        while fields[i]:
            f, rest = fields[i].decode().split("=", 1)
            hs[f] = tuple(rest.split(":"))
            i += 1
        i += 1
        got[path] = (size, mtime, hs)
    assert sorted(got) == sorted(FILES), sorted(got)
    for path, data in FILES.items():
        size, mtime, hs = got[path]
        assert size == len(data) and mtime == T0 - 3600, (path, size, mtime)
        want = hashes_of(data, ("xxh128", "md5", "c4"))
        assert hs == {f: (v, "verified") for f, v in want.items()}, (path, hs)


@test
def changed_byte_fails(base):
    dest, _ = make_dest(base)
    clip = os.path.join(dest, "A001/clip one.mov")
    edit(clip, lambda d: d[:500] + b"X" + d[501:])
    os.utime(clip, (T0 - 3600, T0 - 3600))  # same size, same time: only the bytes tell
    expect_fail(dest, r"clip one\.mov' xxh128 is .*, the manifest says")


@test
def wrong_c4_in_chain_fails(base):
    dest, names = make_dest(base)
    # the manifest changed after it was linked: one byte of its creation date
    edit(os.path.join(dest, "ascmhl", names[0]), lambda d: d.replace(b"<hostname>", b"<hostname>x", 1))
    expect_fail(dest, r"C4 of '0001_.*' is .*, the chain says")


@test
def element_out_of_order_fails(base):
    dest, names = make_dest(base, 1)
    path = os.path.join(dest, "ascmhl", names[0])

    def swap(d):  # <processinfo> before <creatorinfo>
        ci = re.search(rb"\s*<creatorinfo>.*?</creatorinfo>", d, re.S)
        pi = re.search(rb"\s*<processinfo>.*?</processinfo>", d, re.S)
        return d[:ci.start()] + pi.group(0) + ci.group(0) + d[pi.end():]
    edit(path, swap)
    write_chain(dest, names)  # the chain right, only the order wrong
    expect_fail(dest, r"schema: .*processinfo.*expected.*creatorinfo")


@test
def path_after_hash_fails(base):
    dest, names = make_dest(base, 1)
    path = os.path.join(dest, "ascmhl", names[0])

    def move(d):  # the first <hash>'s <path> after its hashes
        h = re.search(rb"<hash>(\s*<path[^>]*>[^<]*</path>)(.*?)(\s*</hash>)", d, re.S)
        return d[:h.start()] + b"<hash>" + h.group(2) + h.group(1) + h.group(3) + d[h.end():]
    edit(path, move)
    write_chain(dest, names)
    expect_fail(dest, r"schema: .*path")


@test
def missing_file_fails(base):
    dest, _ = make_dest(base)
    os.unlink(os.path.join(dest, "empty"))
    expect_fail(dest, r"'empty' is listed but cannot be found")


@test
def unlisted_file_fails_ignored_one_passes(base):
    dest, _ = make_dest(base)
    with open(os.path.join(dest, "A001", "sums.xxh128"), "w") as fh:
        fh.write("ignored by *.xxh128\n")
    rc, err = check(dest)
    assert rc == 0, err
    with open(os.path.join(dest, "A001", "extra.mov"), "w") as fh:
        fh.write("not in the manifest")
    expect_fail(dest, r"A001/extra\.mov: is not listed in any generation nor ignored")


@test
def file_listed_only_in_an_older_generation_passes(base):
    """A rerun that left files alone unread lists only what it read: the reference's
    verify looks each file up in the whole history, so does the checker."""
    dest, names = make_dest(base)
    os.unlink(os.path.join(dest, "ascmhl", names[1]))
    names[1] = write_generation(dest, 2, T0 + 86400, ["empty"], ("xxh128", "md5", "c4"),
                                lambda p_, f: "verified", ignores=("*.xxh128",))
    write_chain(dest, names)
    rc, err = check(dest)
    assert rc == 0, err
    # a generation that lists nothing at all, as a no-op rerun writes
    names.append(write_generation(dest, 3, T0 + 2 * 86400, [], ("xxh128",),
                                  lambda p_, f: "verified", ignores=("*.xxh128",)))
    write_chain(dest, names)
    rc, err = check(dest)
    assert rc == 0, err
    # still checked against the bytes: a file only generation 1 lists, changed
    clip = os.path.join(dest, "A001/clip one.mov")
    edit(clip, lambda d: d[:10] + b"X" + d[11:])
    os.utime(clip, (T0 - 3600, T0 - 3600))
    expect_fail(dest, r"clip one\.mov' xxh128 is .*, the manifest says")


@test
def file_in_no_generation_fails(base):
    """A file the first generation never got (its run killed) and the later one did
    not list either."""
    dest, names = make_dest(base, 1)
    with open(os.path.join(dest, "A001", "late.mov"), "wb") as fh:
        fh.write(b"copied by the rerun, listed nowhere")
    names.append(write_generation(dest, 2, T0 + 86400, ["empty"], ("xxh128",),
                                  lambda p_, f: "verified", ignores=("*.xxh128",)))
    write_chain(dest, names)
    expect_fail(dest, r"A001/late\.mov: is not listed in any generation nor ignored")
    # and its mtime: the newest generation listing a file is the one asked
    dest2 = os.path.join(base, "two")
    os.makedirs(dest2)
    dest2, names2 = make_dest(dest2, 1)
    os.utime(os.path.join(dest2, "empty"), (T0, T0))  # an hour after gen 1 says
    expect_fail(dest2, r"'empty' was modified at")


@test
def verified_hash_that_differs_fails(base):
    dest, names = make_dest(base)
    # generation 2 says "verified" for a hash that is not generation 1's: make both the
    # file and generation 2 agree on new bytes, so only the history is wrong
    p = os.path.join(dest, "empty")
    with open(p, "wb") as fh:
        fh.write(b"now something")
    os.utime(p, (T0 - 3600, T0 - 3600))
    os.unlink(os.path.join(dest, "ascmhl", names[1]))
    names[1] = write_generation(dest, 2, T0 + 86400, sorted(FILES), ("xxh128", "md5", "c4"),
                                lambda p_, f: "verified", ignores=("*.xxh128",))
    write_chain(dest, names)
    expect_fail(dest, r"'empty' xxh128 'verified' as .*, generation 1 has")


@test
def original_twice_and_failed_fail(base):
    dest, names = make_dest(base)
    edit(os.path.join(dest, "ascmhl", names[1]), lambda d: d.replace(b'action="verified"', b'action="original"', 1))
    write_chain(dest, names)
    expect_fail(dest, r"was listed before, its .* says 'original' again")
    edit(os.path.join(dest, "ascmhl", names[1]), lambda d: d.replace(b'action="original"', b'action="failed"', 1))
    write_chain(dest, names)
    expect_fail(dest, r"failed its verification")


@test
def generation_gap_and_bad_names_fail(base):
    dest, names = make_dest(base)
    os.rename(os.path.join(dest, "ascmhl", names[1]),
              os.path.join(dest, "ascmhl", names[1].replace("0002_", "0003_")))
    expect_fail(dest, r"generation numbers \[1, 3\] do not run 1\.\.2")
    shutil.copy(os.path.join(dest, "ascmhl", names[0]), os.path.join(dest, "ascmhl", "0002_OTHER_2025-12-02_000000Z.mhl"))
    expect_fail(dest, r"names the root 'OTHER', the folder is 'CARD_01'")


@test
def size_and_mtime_checked(base):
    dest, _ = make_dest(base)
    os.utime(os.path.join(dest, "empty"), (T0, T0))
    expect_fail(dest, r"'empty' was modified at")
    dest2 = os.path.join(base, "two")
    os.makedirs(dest2)
    dest2, _ = make_dest(dest2)
    with open(os.path.join(dest2, "empty"), "wb") as fh:
        fh.write(b"")  # same bytes, size still 0: passes
    os.utime(os.path.join(dest2, "empty"), (T0 - 3600, T0 - 3600))
    assert check(dest2)[0] == 0


@test
def hostile_manifest_refused(base):
    dest, names = make_dest(base, 1)
    edit(os.path.join(dest, "ascmhl", names[0]),
         lambda d: d.replace(b"?>", b'?>\n<!DOCTYPE hashlist [<!ENTITY x SYSTEM "file:///etc/passwd">]>', 1))
    write_chain(dest, names)
    expect_fail(dest, r"holds a DOCTYPE")


@test
def path_outside_root_refused(base):
    dest, names = make_dest(base, 1)
    edit(os.path.join(dest, "ascmhl", names[0]), lambda d: d.replace(b">empty</path>", b">../../etc/passwd</path>", 1))
    write_chain(dest, names)
    expect_fail(dest, r"path '\.\./\.\./etc/passwd' is not inside the root")


@test
def directory_hashes_match_the_reference(base):
    """The reference's own figures (its tests/test_dirhash.py: Stuff.txt "stuff\\n" and
    A/A1.txt "A1\\n", xxh64): written through lib/mhl, the checker recomputes them."""
    dest = os.path.join(base, "root")
    os.makedirs(os.path.join(dest, "A"))
    for path, data in (("Stuff.txt", b"stuff\n"), ("A/A1.txt", b"A1\n")):
        with open(os.path.join(dest, path), "wb") as fh:
            fh.write(data)

    def generation(a_structure):
        toks = [str(T0), "h", "safecp", "1",
                "root", "1", "xxh64", "ca56d22f064fdf1b", "2ccca3899111eabb", str(T0),
                "dir", "A", str(T0), "1", "xxh64", "d3904ee76bba3d2a", a_structure, str(T0)]
        for path, data in (("A/A1.txt", b"A1\n"), ("Stuff.txt", b"stuff\n")):
            st = os.stat(os.path.join(dest, path))
            toks += ["file", path, str(len(data)), str(int(st.st_mtime)), "1",
                     "xxh64", xxhash.xxh64(data).hexdigest(), "original", str(T0)]
        r = run(MHL_GEN, "gen", data=b"".join(t.encode() + b"\0" for t in toks))
        assert r.returncode == 0, r.stderr.decode()
        os.makedirs(os.path.join(dest, "ascmhl"), exist_ok=True)
        name = run(MHL_GEN, "name", "1", "root", str(T0)).stdout.decode().strip()
        with open(os.path.join(dest, "ascmhl", name), "wb") as fh:
            fh.write(r.stdout)
        write_chain(dest, [name])
    generation("3fbe33b2924e26aa")
    rc, err = check(dest)
    assert rc == 0, err
    generation("3fbe33b2924e26ab")
    expect_fail(dest, r"folder 'A': structure xxh64 is 3fbe33b2924e26aa, the manifest says 3fbe33b2924e26ab")
    generation("3fbe33b2924e26aa")
    os.rename(os.path.join(dest, "A/A1.txt"), os.path.join(dest, "A/A2.txt"))  # same bytes, new name
    expect_fail(dest, r"folder 'A': structure xxh64 is")


def main():
    print(f"1..{len(tests)}")
    failed = 0
    for n, fn in enumerate(tests, 1):
        base = tempfile.mkdtemp(prefix="test_mhl_check.")
        try:
            fn(base)
            print(f"ok {n} - {fn.__name__}")
        except AssertionError as e:
            failed += 1
            print(f"not ok {n} - {fn.__name__}")
            for line in str(e).splitlines():
                print(f"# {line}")
        finally:
            shutil.rmtree(base, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
