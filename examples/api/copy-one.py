#!/usr/bin/python3
"""copy-one.py FILE... DIR: copy-one.c through ctypes, python3 alone.

Copies the files into DIR with libsafecp, says once a second how many
bytes the device confirmed, cancels on Ctrl-C, and exits as safecp does
(0 copied and durable, 1 some files failed, 2 refused, 130 interrupted).
SAFECP_LIB names the library (default: libsafecp.so.1 on the loader's path).
"""
import ctypes
import errno
import os
import signal
import sys
import time


class Event(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("dest", ctypes.c_size_t),
                ("path", ctypes.c_char_p), ("source", ctypes.c_char_p),
                ("err", ctypes.c_int), ("fatal", ctypes.c_int)]


class Progress(ctypes.Structure):
    _fields_ = [("bytes_total", ctypes.c_uint64), ("bytes_written", ctypes.c_uint64),
                ("bytes_confirmed", ctypes.c_uint64), ("files_done", ctypes.c_uint64),
                ("files_failed", ctypes.c_uint64), ("syncing", ctypes.c_int)]


class Refusal(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("name", ctypes.c_char_p), ("dest", ctypes.c_size_t),
                ("path", ctypes.c_char_p), ("path2", ctypes.c_char_p), ("err", ctypes.c_int),
                ("need", ctypes.c_uint64), ("have", ctypes.c_uint64)]


KEEP_TIMES, TARGET_DIRECTORY = 1 << 5, 1 << 2
EVENT_ERROR, EVENT_DEST_END = 5, 7


def main(args):
    if len(args) < 2:
        print("usage: copy-one.py FILE... DIR", file=sys.stderr)
        return 2
    lib = ctypes.CDLL(os.environ.get("SAFECP_LIB", "libsafecp.so.1"))
    lib.safecp_copy_cancel.restype = None
    lib.safecp_copy_free.restype = None
    copy = ctypes.c_void_p()
    if lib.safecp_copy_new(KEEP_TIMES | TARGET_DIRECTORY, ctypes.byref(copy)) < 0:
        return 2
    for path in args[:-1]:
        lib.safecp_copy_add_source(copy, os.fsencode(path))
    lib.safecp_copy_add_dest(copy, os.fsencode(args[-1]))
    r = lib.safecp_copy_prepare(copy)
    no, i = Refusal(), 0
    while lib.safecp_copy_refusal(copy, ctypes.c_size_t(i), ctypes.byref(no)) == 0:
        print("copy-one: refused (%s): %s" % (no.name.decode(), os.fsdecode(
            no.path or no.path2 or os.fsencode(args[-1]))), file=sys.stderr)
        i += 1
    if r != 0 or lib.safecp_copy_start(copy) < 0:
        lib.safecp_copy_free(copy)
        return 2
    # the library installs no handler: Ctrl-C cancels, the copy cleans up and ends
    signal.signal(signal.SIGINT, lambda *_: lib.safecp_copy_cancel(copy))
    ev, progress, step = Event(), Progress(), time.monotonic() + 1

    def say_error(e):
        if e.kind == EVENT_ERROR:
            print("copy-one: %s: %s" % (os.fsdecode(e.path or b"?"), os.strerror(e.err)),
                  file=sys.stderr)

    def say():
        lib.safecp_copy_progress(copy, ctypes.c_size_t(0), ctypes.byref(progress))
        print("%d of %d bytes on the device, %d files%s" % (
            progress.bytes_confirmed, progress.bytes_total, progress.files_done,
            ", syncing" if progress.syncing else ""), flush=True)

    while True:
        r = lib.safecp_copy_poll(copy, 200, ctypes.byref(ev))
        if r > 0 and ev.kind == EVENT_DEST_END:
            break
        if r > 0:
            say_error(ev)
        if r == 0 and lib.safecp_copy_done(copy):
            # ended: all it said is queued (its end found no memory)
            while lib.safecp_copy_poll(copy, 0, ctypes.byref(ev)) > 0:
                say_error(ev)
            break
        if r < 0 and r != -errno.EINTR:
            break
        if time.monotonic() >= step:
            say()
            step = time.monotonic() + 1
    say()
    result = lib.safecp_copy_result(copy, ctypes.c_size_t(0))
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # the handler must not see a freed copy
    lib.safecp_copy_free(copy)
    return 0 if result == 0 else 130 if result == -errno.ECANCELED else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
