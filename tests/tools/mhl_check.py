#!/usr/bin/python3
"""mhl_check.py DEST: check the ASC MHL history in DEST/ascmhl against DEST itself.

An independent checker for safecp's tests: it shares no code with lib/mhl and reads
the files with lxml (python3-lxml) and hashes them with hashlib and python3-xxhash.
It checks, and names the file and what to look at for every failure:

  - the folder: DEST/ascmhl is a folder; every manifest is named
    NNNN_<DEST's name>_<YYYY-MM-DD>_<HHMMSS>Z.mhl and the numbers run 1..N;
  - the chain: ascmhl_chain.xml is valid against ascmhl_directory.xsd and lists
    exactly the manifests, each with its number and the C4 ID of its bytes;
  - each manifest is valid against ascmhl.xsd (elements in the schema's order), lists
    each path once and each format once per path, and only paths inside DEST;
  - the history: a path's first appearance says "original", later ones "verified"
    (equal to the first hash of that format) or "failed" (different); a "failed"
    entry fails the check, the copy is not good;
  - the files: every listed file exists (a regular file, not a symlink), has the
    listed size and (the newest generation that lists it) a modification time within
    2 s, and every listed hash of every generation matches the file's bytes now;
  - completeness: every regular file under DEST that the newest generation's ignore
    patterns do not cover is listed in some generation, as the reference's verify
    looks each file up in the whole history (a rerun that left files alone unread
    lists only what it read);
  - directory hashes, where a manifest has them (<directoryhash>, <roothash>): content
    and structure hashes recomputed from the tree as the reference's create does.

Exit 0 when all holds, 1 when something does not, 2 on a usage error. Parsing is safe
for hostile input: no entity resolution, no DTD, no network, no huge trees.

Options: --schema-dir DIR (default: this script's folder), --quiet.
"""
import fnmatch
import hashlib
import os
import re
import stat
import sys
from datetime import datetime

try:
    from lxml import etree
    import xxhash
except ImportError as e:  # the self-test reports this as a skip
    print(f"mhl_check: {e.name} is missing: install python3-lxml and python3-xxhash",
          file=sys.stderr)
    sys.exit(2)

NS = "urn:ASC:MHL:v2.0"
DIR_NS = "urn:ASC:MHL:DIRECTORY:v2.0"
FOLDER = "ascmhl"
CHAIN = "ascmhl_chain.xml"
NAME_RE = re.compile(r"^(\d{4,})_(.+)_(\d{4}-\d{2}-\d{2})_(\d{6})Z\.mhl$")
FORMATS = ("md5", "sha1", "c4", "xxh64", "xxh3", "xxh128")
C4_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
MTIME_SLACK = 2  # FAT keeps modification times in 2 s steps


def c4_of_digest(digest):
    """A C4 ID: "c4" and the SHA-512 digest in base58, padded with '1' to 90 characters."""
    value = int.from_bytes(digest, "big")
    out = ""
    while value:
        value, rest = divmod(value, 58)
        out = C4_ALPHABET[rest] + out
    return "c4" + out.rjust(88, "1")


class C4:
    def __init__(self):
        self.h = hashlib.sha512()

    def update(self, b):
        self.h.update(b)

    def hexdigest(self):
        return c4_of_digest(self.h.digest())


HASHERS = {
    "md5": hashlib.md5,
    "sha1": hashlib.sha1,
    "c4": C4,
    "xxh64": xxhash.xxh64,
    "xxh3": xxhash.xxh3_64,
    "xxh128": xxhash.xxh3_128,
}


def hash_file(path, formats):
    """{format: hash string} of the file's bytes, all formats in one read."""
    hashers = {f: HASHERS[f]() for f in formats}
    with open(path, "rb") as fh:
        while True:
            block = fh.read(1 << 20)
            if not block:
                break
            for h in hashers.values():
                h.update(block)
    return {f: h.hexdigest() for f, h in hashers.items()}


def hash_bytes(fmt, value):
    """The digest bytes a hash string stands for (hex, or a C4 ID's base58)."""
    if fmt != "c4":
        return bytes.fromhex(value)
    n = 0
    for ch in value[2:]:
        n = n * 58 + C4_ALPHABET.index(ch)
    return n.to_bytes(64, "big")


def hash_of_hashes(fmt, values):
    """The reference's hash of a list of hashes: of their bytes, in sorted string order."""
    h = HASHERS[fmt]()
    for v in sorted(values):
        h.update(hash_bytes(fmt, v))
    return h.hexdigest()


def hash_data(fmt, data):
    h = HASHERS[fmt]()
    h.update(data)
    return h.hexdigest()


def safe_parser():
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                           dtd_validation=False, huge_tree=False, remove_comments=False)


class Checker:
    def __init__(self, dest, schema_dir, quiet):
        self.dest = dest
        self.folder = os.path.join(dest, FOLDER)
        self.quiet = quiet
        self.problems = 0
        self.manifest_schema = etree.XMLSchema(etree.parse(os.path.join(schema_dir, "ascmhl.xsd")))
        self.chain_schema = etree.XMLSchema(etree.parse(os.path.join(schema_dir, "ascmhl_directory.xsd")))
        self.hash_cache = {}  # path -> {format: hash}
        self.dir_cache = {}  # (folder, format, patterns) -> (content, structure)

    def fail(self, where, what):
        self.problems += 1
        print(f"mhl_check: {where}: {what}", file=sys.stderr)

    def note(self, what):
        if not self.quiet:
            print(f"mhl_check: {what}")

    def rel(self, *parts):
        return os.path.join(FOLDER, *parts)

    def parse(self, name, schema):
        """The document tree of a file in the ascmhl folder, validated; None if not."""
        path = os.path.join(self.folder, name)
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError as e:
            self.fail(self.rel(name), f"cannot read it: {e.strerror}")
            return None, b""
        if b"<!DOCTYPE" in data:
            self.fail(self.rel(name), "holds a DOCTYPE: ASC MHL files have none")
            return None, data
        try:
            doc = etree.fromstring(data, safe_parser()).getroottree()
        except etree.XMLSyntaxError as e:
            self.fail(self.rel(name), f"not well-formed XML: {e}")
            return None, data
        if not schema.validate(doc):
            for err in schema.error_log:
                self.fail(f"{self.rel(name)}:{err.line}", f"schema: {err.message}")
            return None, data
        return doc, data

    # ------------------------------------------------------------------ folder, chain

    def manifests(self):
        """{number: file name} of the manifests, the names checked."""
        if os.path.islink(self.folder) or not os.path.isdir(self.folder):
            self.fail(self.folder, "no ascmhl folder (or not a folder): nothing to check")
            return None
        root_name = os.path.basename(os.path.realpath(self.dest))
        found = {}
        for name in sorted(os.listdir(self.folder)):
            if name == CHAIN:
                continue
            if not name.endswith(".mhl"):
                self.note(f"{self.rel(name)}: not a manifest, left alone")
                continue
            m = NAME_RE.match(name)
            if not m:
                self.fail(self.rel(name), "name is not NNNN_<root>_<YYYY-MM-DD>_<HHMMSS>Z.mhl")
                continue
            number, root, day, hms = int(m.group(1)), m.group(2), m.group(3), m.group(4)
            if root != root_name:
                self.fail(self.rel(name), f"names the root '{root}', the folder is '{root_name}'")
            try:
                datetime.strptime(day + hms, "%Y-%m-%d%H%M%S")
            except ValueError:
                self.fail(self.rel(name), f"'{day}_{hms}' is not a date and time")
            if number in found:
                self.fail(self.rel(name), f"generation {number} again (also {found[number]})")
            found[number] = name
        if not found:
            self.fail(self.folder, "no manifest (*.mhl) in it")
        elif sorted(found) != list(range(1, len(found) + 1)):
            self.fail(self.folder, f"generation numbers {sorted(found)} do not run 1..{len(found)}")
        return found

    def check_chain(self, found):
        doc, _ = self.parse(CHAIN, self.chain_schema)
        if doc is None:
            return
        linked = {}
        for link in doc.getroot().iterfind(f"{{{DIR_NS}}}hashlist"):
            number = int(link.get("sequencenr"))
            path = link.findtext(f"{{{DIR_NS}}}path")
            c4 = link.findtext(f"{{{DIR_NS}}}c4")
            where = f"{self.rel(CHAIN)}:{link.sourceline}"
            if number in linked:
                self.fail(where, f"generation {number} is linked twice")
            linked[number] = path
            if not path.startswith(f"{number:04d}_") and not path.startswith(f"{number}_"):
                self.fail(where, f"'{path}' does not carry its number {number}")
            if found.get(number) != path:
                self.fail(where, f"generation {number} is '{path}', the folder has "
                                 f"'{found.get(number, 'nothing')}'")
                continue
            with open(os.path.join(self.folder, path), "rb") as fh:
                actual = c4_of_digest(hashlib.sha512(fh.read()).digest())
            if actual != c4:
                self.fail(where, f"C4 of '{path}' is {actual}, the chain says {c4}: "
                                 "the manifest changed after it was linked")
        for number in sorted(set(found) - set(linked)):
            self.fail(self.rel(CHAIN), f"'{found[number]}' (generation {number}) is not in the chain")

    # --------------------------------------------------------------------- manifests

    def entries(self, name, doc):
        """[(path, size, mtime or None, {format: (hash, action)}, line)] of a manifest."""
        out, seen = [], set()
        for h in doc.getroot().iterfind(f"{{{NS}}}hashes/{{{NS}}}hash"):
            where = f"{self.rel(name)}:{h.sourceline}"
            p = h.find(f"{{{NS}}}path")
            path = p.text or ""
            if path.startswith("/") or any(c in ("", ".", "..") for c in path.split("/")):
                self.fail(where, f"path '{path}' is not inside the root")
                continue
            if path in seen:
                self.fail(where, f"'{path}' is listed twice")
            seen.add(path)
            size = p.get("size")
            date = p.get("lastmodificationdate")
            hashes = {}
            for child in h:
                tag = etree.QName(child).localname
                if tag not in FORMATS:
                    continue
                if tag in hashes:
                    self.fail(where, f"'{path}' has two {tag} hashes")
                hashes[tag] = ((child.text or "").lower() if tag != "c4" else child.text,
                               child.get("action"))
            mtime = datetime.fromisoformat(date).timestamp() if date else None
            out.append((path, int(size) if size is not None else None, mtime, hashes, where))
        return out

    def ignored(self, patterns, rel, is_dir):
        """Whether a gitignore-style pattern (the reference's pathspec) covers rel."""
        parts = rel.split("/")
        for pat in patterns:
            dir_only = pat.endswith("/")
            pat = pat.rstrip("/")
            if not pat:
                continue
            if dir_only and not is_dir:
                continue
            if "/" in pat:
                if fnmatch.fnmatchcase(rel, pat.lstrip("/")):
                    return True
            elif fnmatch.fnmatchcase(parts[-1], pat):
                return True
        return False

    def file_hashes(self, path, formats):
        have = self.hash_cache.setdefault(path, {})
        need = [f for f in formats if f not in have]
        if need:
            have.update(hash_file(os.path.join(self.dest, path), need))
        return have

    def dir_hashes(self, rel, fmt, patterns):
        """(content, structure) of folder rel ("" the root) in fmt, as the reference's
        create computes them: content from the children's content hashes, structure
        from each child's hash of its name's bytes and its hash (a folder's structure)."""
        key = (rel, fmt, tuple(patterns))
        if key in self.dir_cache:
            return self.dir_cache[key]
        contents, structures = [], []
        for entry in os.scandir(os.path.join(self.dest, rel) if rel else self.dest):
            child = rel + "/" + entry.name if rel else entry.name
            if entry.is_symlink() or self.ignored(patterns, child, entry.is_dir()):
                continue
            if entry.is_dir():
                content, structure = self.dir_hashes(child, fmt, patterns)
                contents.append(content)
                structures.append(hash_data(fmt, entry.name.encode() + hash_bytes(fmt, structure)))
            elif entry.is_file():
                content = self.file_hashes(child, [fmt])[fmt]
                contents.append(content)
                structures.append(hash_data(fmt, entry.name.encode() + hash_bytes(fmt, content)))
        self.dir_cache[key] = (hash_of_hashes(fmt, contents), hash_of_hashes(fmt, structures))
        return self.dir_cache[key]

    def check_directories(self, name, doc, patterns):
        """Every <directoryhash> and the <roothash> against the tree on disk."""
        root = doc.getroot()
        dirs = [(d.findtext(f"{{{NS}}}path"), d) for d in root.iterfind(f"{{{NS}}}hashes/{{{NS}}}directoryhash")]
        dirs += [("", r) for r in root.iterfind(f"{{{NS}}}processinfo/{{{NS}}}roothash")]
        for rel, el in dirs:
            where = f"{self.rel(name)}:{el.sourceline}"
            label = f"folder '{rel}'" if rel else "the root"
            if rel and (rel.startswith("/") or any(c in ("", ".", "..") for c in rel.split("/"))):
                self.fail(where, f"path '{rel}' is not inside the root")
                continue
            if rel and not os.path.isdir(os.path.join(self.dest, rel)):
                self.fail(where, f"{label} is listed but is not a folder")
                continue
            for part, index in (("content", 0), ("structure", 1)):
                for h in el.iterfind(f"{{{NS}}}{part}/*"):
                    fmt = etree.QName(h).localname
                    if fmt not in FORMATS:
                        continue
                    value = h.text if fmt == "c4" else (h.text or "").lower()
                    actual = self.dir_hashes(rel, fmt, patterns)[index]
                    if actual != value:
                        self.fail(where, f"{label}: {part} {fmt} is {actual}, the manifest says {value}")

    def check_generations(self, found):
        first = {}  # (path, format) -> (hash, generation)
        latest = {}  # path -> (mtime, where) of the newest generation listing it
        patterns = []
        for number in sorted(found):
            name = found[number]
            doc, _ = self.parse(name, self.manifest_schema)
            if doc is None:
                continue
            newest = number == max(found)
            own = [p.text for p in doc.getroot().iterfind(
                f"{{{NS}}}processinfo/{{{NS}}}ignore/{{{NS}}}pattern")]
            if newest:
                patterns = own
            self.check_directories(name, doc, own)
            for path, size, mtime, hashes, where in self.entries(name, doc):
                latest[path] = (mtime, where)
                self.check_file(path, size, hashes, where)
                known = any((path, f) in first for f in FORMATS)
                for f, (value, action) in hashes.items():
                    earlier = first.get((path, f))
                    if not known and action != "original":
                        self.fail(where, f"'{path}' appears first here but its {f} says '{action}'")
                    elif known and action == "original":
                        self.fail(where, f"'{path}' was listed before, its {f} says 'original' again")
                    elif action == "verified" and earlier and earlier[0] != value:
                        self.fail(where, f"'{path}' {f} 'verified' as {value}, generation "
                                         f"{earlier[1]} has {earlier[0]}")
                    elif action == "failed":
                        self.fail(where, f"'{path}' {f} failed its verification: the copy is not good")
                    if not earlier:
                        first[(path, f)] = (value, number)
        for path, (mtime, where) in latest.items():
            self.check_mtime(path, mtime, where)
        self.check_complete(latest, patterns)

    def check_mtime(self, path, mtime, where):
        try:
            st = os.lstat(os.path.join(self.dest, path))
        except OSError:
            return  # check_file said so
        if mtime is not None and stat.S_ISREG(st.st_mode) and abs(st.st_mtime - mtime) > MTIME_SLACK:
            self.fail(where, f"'{path}' was modified at {st.st_mtime:.0f}, the manifest says {mtime:.0f}")

    def check_file(self, path, size, hashes, where):
        full = os.path.join(self.dest, path)
        try:
            st = os.lstat(full)
        except OSError as e:
            self.fail(where, f"'{path}' is listed but cannot be found: {e.strerror}")
            return
        if not stat.S_ISREG(st.st_mode):
            self.fail(where, f"'{path}' is listed but is not a regular file")
            return
        if size is not None and st.st_size != size:
            self.fail(where, f"'{path}' has {st.st_size} bytes, the manifest says {size}")
        actual = self.file_hashes(path, list(hashes))
        for f, (value, _) in hashes.items():
            if actual[f] != value:
                self.fail(where, f"'{path}' {f} is {actual[f]}, the manifest says {value}")

    def check_complete(self, listed, patterns):
        for top, dirs, files in os.walk(self.dest):
            rel_top = os.path.relpath(top, self.dest)
            rel_top = "" if rel_top == "." else rel_top + "/"
            dirs[:] = [d for d in dirs if not self.ignored(patterns, rel_top + d, True)]
            for f in files:
                rel = rel_top + f
                if self.ignored(patterns, rel, False):
                    continue
                if not os.path.isfile(os.path.join(top, f)) or os.path.islink(os.path.join(top, f)):
                    continue
                if rel not in listed:
                    self.fail(rel, "is not listed in any generation nor ignored")

    def run(self):
        found = self.manifests()
        if found:
            self.check_chain(found)
            self.check_generations(found)
        return self.problems


def main(argv):
    args, schema_dir, quiet = [], os.path.dirname(os.path.abspath(__file__)), False
    it = iter(argv)
    for a in it:
        if a == "--schema-dir":
            schema_dir = next(it, None)
        elif a == "--quiet":
            quiet = True
        elif a.startswith("-"):
            print(f"mhl_check: unknown option '{a}'", file=sys.stderr)
            return 2
        else:
            args.append(a)
    if len(args) != 1 or not schema_dir:
        print("usage: mhl_check.py [--schema-dir DIR] [--quiet] DEST", file=sys.stderr)
        return 2
    checker = Checker(args[0], schema_dir, quiet)
    problems = checker.run()
    if problems:
        print(f"mhl_check: {args[0]}: {problems} problem(s)", file=sys.stderr)
        return 1
    checker.note(f"{args[0]}: the history and every listed file check out")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
