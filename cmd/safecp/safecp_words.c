/* safecp_words.c: lib's problems and errors as sentences for people.
 *
 * lib/ reports a kind, the paths and the numbers; this file is the one
 * place that words them, in the suite's grammar: lower case, no full stop,
 * subject in quotes, then what to do about it when there is something to
 * do ("need 1.20 GiB, only 800 MiB free on '/media/usb' (ext4 on
 * /dev/sdb1); free space there or copy fewer files").  The same sentences
 * go to stderr and into the JSON error events. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "common/quote.h"
#include "safecp/tool.h"
#include "safecp/safecp_words.h"
#include "base/size.h"

char *words_format(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	return r < 0 ? NULL : s;
}

/* "ext4 on /dev/sdb1", "exfat (fuseblk) on /dev/sdb1", "tmpfs"; a FUSE
 * subtype is the mounting user's choice, hence quote_bare() */
static char *device_words(const char *fstype, const char *format, const char *device)
{
	const char *fs = fstype ? quote_bare(fstype) : "unknown filesystem";

	if (format)
		return device ? words_format("%s (%s) on %s", format, fs, quote_bare(device))
			      : words_format("%s (%s)", format, fs);
	return device ? words_format("%s on %s", fs, quote_bare(device)) : strdup(fs);
}

/* A FUSE block filesystem's format is not its mount type: both are said. */
static char *words_device(const struct safecp_target_facts *t)
{
	bool format = t->fs_name && t->mount_type && strcmp(t->fs_name, t->mount_type) != 0;

	return device_words(t->mount_type, format ? t->fs_name : NULL, t->block ? t->device : NULL);
}

char *words_where_of(const char *mnt, const char *fstype, const char *format,
		     const char *device)
{
	_cleanup_free_ char *dev = device_words(fstype, format, device);

	return dev ? words_format("%s (%s)", quote(mnt), dev) : NULL;
}

char *words_where(const struct safecp_target_facts *t)
{
	_cleanup_free_ char *dev = words_device(t);

	return dev ? words_format("%s (%s)", quote(t->mountpoint ? t->mountpoint : t->path), dev)
		   : NULL;
}

const char *words_step_name(enum safecp_copy_step step)
{
	switch (step) {
	case SAFECP_STEP_READ: return "read";
	case SAFECP_STEP_CREATE: return "create";
	case SAFECP_STEP_WRITE: return "write";
	case SAFECP_STEP_SYNC: return "sync";
	case SAFECP_STEP_RENAME: return "rename";
	case SAFECP_STEP_ATTRS: return "attrs";
	case SAFECP_STEP_FINAL_SYNC: return "final-sync";
	case SAFECP_STEP_CHANGED: return "changed";
	case SAFECP_STEP_VERIFY: return "verify";
	case SAFECP_STEP_SOURCE_VERIFY: return "source-verify";
	case SAFECP_STEP_NAME_CLASH: return "name-clash";
	case SAFECP_STEP_BACKUP: return "backup";
	case SAFECP_STEP_LINK: return "link";
	}
	return "unknown";
}

static char *no_space(const struct refusal *p, const struct safecp_target_facts *t)
{
	char need[SIZE_FORMAT_MAX], have[SIZE_FORMAT_MAX];
	_cleanup_free_ char *where = t ? words_where(t) : NULL;

	size_format(need, sizeof(need), p->need);
	size_format(have, sizeof(have), p->have);
	if (where)
		return words_format("need %s, only %s free on %s; free space there or copy fewer files",
			      need, have, where);
	return words_format("need %s, only %s free on %s; free space there or copy fewer files",
		      need, have, p->path2 ? quote(p->path2) : "the destination");
}

static char *too_big(const struct refusal *p, const struct safecp_target_facts *t)
{
	char size[SIZE_FORMAT_MAX];
	_cleanup_free_ char *where = t ? words_where(t) : NULL;
	bool fat = p->have == UINT32_MAX; /* FAT's limit: 4 GiB - 1 */

	size_format(size, sizeof(size), p->need);
	return words_format("%s is %s, more than one file can hold on %s (at most %" PRIu64
		      " bytes); %s", quote(p->path), size, where ? where : "the destination", p->have,
		      fat ? "use a stick formatted as exFAT, or split the file"
			  : "split the file or use another filesystem");
}

static char *no_inodes(const struct refusal *p, const struct safecp_target_facts *t)
{
	_cleanup_free_ char *where = t ? words_where(t) : NULL;

	return words_format("need %" PRIu64 " new files and directories, only %" PRIu64
		      " more fit on %s; delete files there or copy fewer", p->need, p->have,
		      where ? where : "the destination");
}

/* The destination side of the operand rules. */
static char *dest_problem(const struct refusal *p, const char *a, const char *b)
{
	switch (p->kind) {
	case SAFECP_REFUSED_DEST_NOT_DIR:
		/* a trailing slash asks for a directory as much as -t does */
		if (b && b[0] && b[strlen(b) - 1] == '/')
			return words_format("target %s is not a directory; create the directory "
				      "first, or leave out the trailing '/' to copy onto that name",
				      quote(b));
		return words_format("target %s is not a directory; with several sources or -t, it "
			      "must be an existing directory", quote(b));
	case SAFECP_REFUSED_DEST_MISSING:
		if (p->err && p->err != ENOENT)
			return words_format("cannot copy to %s: %s: %s", quote(a), quote(b),
				      strerror(p->err));
		return words_format("cannot copy to %s: directory %s does not exist; create it first",
			      quote(a), quote(b));
	case SAFECP_REFUSED_TYPE_CLASH:
		return words_format("cannot overwrite non-directory %s with directory %s", quote(b),
			      quote(a));
	case SAFECP_REFUSED_NONDIR_ONTO_DIR:
		return words_format("cannot overwrite directory %s with non-directory %s", quote(b),
			      quote(a));
	case SAFECP_REFUSED_DEST_CLASH:
		return words_format("%s would overwrite %s, copied from another source; rename one "
			      "of them, or leave one out", quote(a), quote(b));
	case SAFECP_REFUSED_DEST_UNWRITABLE:
		return words_format("cannot write into %s: %s", quote(b), strerror(p->err ? p->err : EACCES));
	case SAFECP_REFUSED_DEST_NOT_BENEATH:
		if (p->err == EINVAL) /* --parents */
			return words_format("refusing to copy %s with --parents: the '..' on its "
					    "path would lead out of %s; give the path without '..'",
					    quote(a), quote(b));
		if (p->err == ELOOP)
			return words_format("refusing to copy to %s: a symbolic link is on the way from "
					    "%s (--beneath); remove the link or choose another "
					    "destination", quote(a), quote(b));
		return words_format("refusing to copy to %s: it leads out of %s, by '..' or onto "
				    "another mount (--beneath); choose a destination inside it",
				    quote(a), quote(b));
	default:
		return NULL;
	}
}

char *words_problem(const struct refusal *p, const struct safecp_target_facts *t)
{
	const char *a = p->path ? p->path : "", *b = p->path2 ? p->path2 : "";

	switch (p->kind) {
	case SAFECP_REFUSED_SOURCE_MISSING:
		return words_format("cannot stat %s: %s", quote(a), strerror(p->err ? p->err : ENOENT));
	case SAFECP_REFUSED_SOURCE_UNREADABLE:
		return words_format("cannot read %s: %s", quote(a), strerror(p->err ? p->err : EACCES));
	case SAFECP_REFUSED_SOURCE_TWICE:
		if (strcmp(a, b) == 0)
			return words_format("source %s is given more than once; give it once", quote(a));
		return words_format("source %s is given more than once (also as %s); give it once",
				    quote(a), quote(b));
	case SAFECP_REFUSED_SOURCE_CHANGED:
		return words_format("%s changed while the copy was planned for its destinations; "
				    "run the copy again", quote(a));
	case SAFECP_REFUSED_OMIT_DIRECTORY:
		return words_format("%s is a directory; use -r to copy it with its contents", quote(a));
	case SAFECP_REFUSED_SAME_FILE:
		return words_format("%s and %s are the same file", quote(a), quote(b));
	case SAFECP_REFUSED_INTO_ITSELF:
		return words_format("cannot copy the directory %s into itself, %s", quote(a), quote(b));
	case SAFECP_REFUSED_LOOP:
		return words_format("%s leads back to %s: a loop; copy without -L or leave it out",
			      quote(a), quote(b));
	case SAFECP_REFUSED_NAME_TOO_LONG:
		return words_format("cannot copy %s: %s", quote(a),
			      strerror(p->err ? p->err : ENAMETOOLONG));
	case SAFECP_REFUSED_NO_SPACE:
		return no_space(p, t);
	case SAFECP_REFUSED_FILE_TOO_BIG:
		return too_big(p, t);
	case SAFECP_REFUSED_NO_INODES:
		return no_inodes(p, t);
	case SAFECP_REFUSED_NAME:
	case SAFECP_REFUSED_NAME_RESERVED:
	case SAFECP_REFUSED_NAME_CLASH:
		return words_name_problem(p, t);
	case SAFECP_REFUSED_DEST_NOT_DIR:
	case SAFECP_REFUSED_DEST_MISSING:
	case SAFECP_REFUSED_TYPE_CLASH:
	case SAFECP_REFUSED_NONDIR_ONTO_DIR:
	case SAFECP_REFUSED_DEST_CLASH:
	case SAFECP_REFUSED_DEST_UNWRITABLE:
	case SAFECP_REFUSED_DEST_NOT_BENEATH:
		return dest_problem(p, a, b);
	case SAFECP_REFUSED_DEST_DANGLING:
		return words_format("not writing through dangling symbolic link %s (for %s), as cp "
				    "does not; remove the link, or give --remove-destination to "
				    "replace it", quote(b), quote(a));
	default:
		break;
	}
	return words_format("cannot copy %s: %s", quote(a), p->name ? p->name : "refused");
}

/* The error's words.  ESTALE is how the engine says "not the file or
 * directory the plan saw", which "Stale file handle" would not tell;
 * ELOOP, that a link it does not follow is on the way. */
static const char *why(int err)
{
	if (err == ESTALE)
		return "it was replaced or made by someone else since the copy was planned";
	if (err == ELOOP)
		return "a symbolic link is on the way, which is never followed there (was it put "
		       "there since the copy was planned?)";
	return strerror(err);
}

/* What to do about err at step, or NULL. */
static const char *hint(enum safecp_copy_step step, int err)
{
	switch (err) {
	case ENOSPC:
	case EDQUOT:
		return "free space on the destination or copy fewer files";
	case EIO:
		return step == SAFECP_STEP_READ ? "the source may be damaged"
					      : "check the device and its connection, then copy again";
	case EROFS:
		return "the filesystem turned read-only (it may have found an error); check it with fsck";
	case EFBIG:
		return "the file is too big for this filesystem";
	case ENODEV:
	case ENXIO:
	case ENOTCONN:
		return "the device is gone; was it unplugged?";
	case ESTALE:
		return "copy again";
	case EBADMSG: /* --unpack: unpack_data.h */
		if (step == SAFECP_STEP_READ)
			return "the archive's entry is not as long as its header says, or its "
			       "checksum differs (damaged, or a zip bomb); it was not written";
		break;
	case ENOTDIR:
		if (step == SAFECP_STEP_CREATE)
			return "something that is not a directory (a symbolic link?) is in its "
			       "place, and is not followed; remove it and copy again";
		break;
	}
	if (step == SAFECP_STEP_LINK)
		return "see that file's own message, then copy again";
	if (step == SAFECP_STEP_BACKUP)
		return err == ENAMETOOLONG
			       ? "its backup name would be too long; use a shorter --suffix, or "
				 "rename the file"
			       : "the old file is left as it was; make room for its backup name, or "
				 "copy without --backup";
	return NULL;
}

/* A name the plan saw free was taken when the copy was to get it
 * (copy.h SAFECP_STEP_NAME_CLASH): nothing was replaced. */
static char *name_clash_words(const char *action, const struct safecp_entry *e, const char *holder)
{
	if (holder && e && strcmp(holder, e->dest) == 0)
		return words_format("%s: a file appeared there during the copy (the plan found none) "
				    "and is not replaced; not copied: see what it is, remove it and "
				    "copy again", action);
	return words_format("%s: the stick's filesystem counts that name as the same as %s, "
			    "which is kept; not copied: the filesystem folds these names together "
			    "(an exFAT volume carries its own up-case table); rename one, or use "
			    "another stick", action,
			    holder ? quote(holder) : "a file already on it");
}

/* The sentence's verb and object for a step: "cannot write '/m/a.jpg'". */
static char *failed_action(const struct safecp_entry *e, enum safecp_copy_step step,
			   const char *path)
{
	const char *src = e ? e->source : path, *dst = e ? e->dest : path;

	switch (step) {
	case SAFECP_STEP_READ: return words_format("cannot read %s", quote(src ? src : "?"));
	case SAFECP_STEP_CREATE: return words_format("cannot create %s", quote(dst ? dst : "?"));
	case SAFECP_STEP_WRITE: return words_format("cannot write %s", quote(dst ? dst : "?"));
	case SAFECP_STEP_SYNC: return words_format("cannot make %s durable", quote(dst ? dst : "?"));
	case SAFECP_STEP_RENAME:
		return path && dst && strcmp(path, dst) != 0
			       ? words_format("cannot rename %s to %s", quote(path), quote(dst))
			       : words_format("cannot rename the copy of %s into place",
					quote(dst ? dst : "?"));
	case SAFECP_STEP_ATTRS:
		return words_format("cannot keep the times, mode, owner, extended attributes or ACL "
				    "of %s", quote(dst ? dst : "?"));
	case SAFECP_STEP_FINAL_SYNC:
		return words_format("cannot flush %s to the device",
			      path ? quote(path) : "the destination");
	case SAFECP_STEP_CHANGED:
		return words_format("%s changed while it was copied, or was replaced since the copy "
			      "was planned", quote(src ? src : "?"));
	case SAFECP_STEP_VERIFY:
		return words_format("the copy of %s", quote(dst ? dst : "?"));
	case SAFECP_STEP_SOURCE_VERIFY:
		return words_format("%s read a second time", quote(src ? src : "?"));
	case SAFECP_STEP_NAME_CLASH:
		return words_format("cannot copy %s to %s", quote(src ? src : "?"),
				    quote(dst ? dst : "?"));
	case SAFECP_STEP_LINK:
		return words_format("cannot make %s, another name of %s, which was not copied (one "
				    "file under several names)", quote(dst ? dst : "?"),
				    quote(path ? path : "?"));
	case SAFECP_STEP_BACKUP:
		return path ? words_format("cannot back up %s as %s", quote(dst ? dst : "?"),
					   quote(path))
			    : words_format("cannot back up %s", quote(dst ? dst : "?"));
	}
	return words_format("cannot copy %s", quote(src ? src : "?"));
}

char *words_copy_error(const struct safecp_entry *e, enum safecp_copy_step step, int err,
		       const char *path, const struct safecp_target_facts *t, bool fatal)
{
	_cleanup_free_ char *action = failed_action(e, step, path);
	_cleanup_free_ char *dev = NULL;
	const char *h = hint(step, err);

	/* FAT and exFAT have no symbolic links: EPERM from symlink() */
	if (e && e->type == SAFECP_ENTRY_SYMLINK && step == SAFECP_STEP_CREATE &&
	    (err == EPERM || err == EOPNOTSUPP || err == ENOSYS))
		h = "this filesystem cannot store symbolic links; use -L to copy what they point to";
	/* the copy goes on without it: a file, or a directory's subtree */
	const char *tail = !fatal && step != SAFECP_STEP_ATTRS ? ", skipping" : "";

	if (!action)
		return NULL;
	if (step == SAFECP_STEP_CHANGED)
		return words_format("%s; not copied (nothing partial is left under its name): "
			      "copy it again", action);
	if (step == SAFECP_STEP_SOURCE_VERIFY)
		return words_format("%s gave other bytes than the first read: the card or disk may be "
				    "failing; not copied (nothing partial is left under its name): "
				    "copy it again, or from a backup", action);
	if (step == SAFECP_STEP_NAME_CLASH)
		return name_clash_words(action, e, path);
	if (step == SAFECP_STEP_VERIFY) {
		dev = t ? words_device(t) : NULL;
		if (err != EBADMSG)
			return words_format("cannot read back %s from the device%s%s%s: %s; it is "
					    "not under its name: copy it again",
					    quote(e ? e->dest : path ? path : "?"),
					    dev ? " (" : "", dev ? dev : "", dev ? ")" : "", why(err));
		return words_format("%s read back from the device%s%s%s different from what was "
				    "written; it is not under its name: the stick may be failing "
				    "or fake, copy it again to another one", action,
				    dev ? " (" : "", dev ? dev : "", dev ? ")" : "");
	}
	/* destination errors name the device: which stick, which filesystem */
	if (t && step != SAFECP_STEP_READ && step != SAFECP_STEP_ATTRS)
		dev = words_device(t);
	return words_format("%s%s%s%s: %s%s%s%s", action, dev ? " (" : "", dev ? dev : "",
		      dev ? ")" : "", why(err), tail, h ? "; " : "", h ? h : "");
}

char *words_sizing_refused(const struct safecp_options *o, const struct safecp_target_facts *t,
			   const struct safecp_write_plan *w)
{
	_cleanup_free_ char *where = words_where(t);

	/* sizing's reason says which strategy to use instead */
	return words_format("cannot use --strategy=%s on %s: %s", o->strategy ? o->strategy : "auto",
		      where ? where : "the destination",
		      w->reason ? words_sizing_reason(w->reason)
				: "not supported there; use --strategy=auto");
}

const char *words_sizing_reason(enum safecp_strategy_reason r)
{
	switch (r) {
	case SAFECP_REASON_NONE: break;
	case SAFECP_REASON_FUSE_DAEMON:
		return "FUSE passes data to its daemon, whose writes are dirty in the "
		       "device's cache: only fdatasync per window bounds them";
	case SAFECP_REASON_FUSE_NOOP_FSYNC:
		return "FUSE passes data to its daemon, whose writes are dirty in the "
		       "device's cache, and its fsync may write nothing (fusefat's does not): "
		       "each window is fdatasynced and the device itself synced";
	case SAFECP_REASON_DIRECT_SUPPORTED:
		return "the filesystem supports O_DIRECT (statx DIOALIGN): nothing is "
		       "left dirty and each completed write is on the device";
	case SAFECP_REASON_DIRECT_REFUSED:
		return "the filesystem refuses O_DIRECT here: buffered writes with "
		       "sync_file_range write-behind windows";
	case SAFECP_REASON_DIRECT_WOULD_FALL_BACK:
		return "O_DIRECT would silently fall back to synchronous buffered writes on "
		       "this filesystem: sync_file_range write-behind windows instead";
	case SAFECP_REASON_ASKED_DIRECT_REFUSED:
		return "this filesystem does not support O_DIRECT (statx reports "
		       "no DIO alignment); use --strategy=window";
	case SAFECP_REASON_ASKED_DIRECT_OK:
		return "requested; the filesystem supports O_DIRECT";
	case SAFECP_REASON_ASKED_DIRECT_UNKNOWN:
		return "requested; the kernel may fall back to buffered writes, "
		       "which the writer detects at run time";
	case SAFECP_REASON_ASKED_WINDOW_FUSE:
		return "requested; on FUSE, sync_file_range does not reach the device, "
		       "so the writer will switch to sync-window if dirty data grows";
	case SAFECP_REASON_ASKED:
		return "requested";
	}
	return "";
}

const char *words_switch_reason(enum safecp_switch_reason r)
{
	switch (r) {
	case SAFECP_SWITCH_DIRECT_REFUSED:
		return "the filesystem refused O_DIRECT on this file";
	case SAFECP_SWITCH_DEVICE_DIRTY:
		return "dirty data grew in the underlying device's cache: "
		       "sync_file_range does not reach this filesystem's device";
	case SAFECP_SWITCH_FELL_BACK:
		return "O_DIRECT writes left dirty pages (a silent buffered fallback)";
	}
	return "";
}

const char *words_skip_reason(enum safecp_skip_reason why)
{
	switch (why) {
	case SAFECP_SKIP_KEPT: return "exists, not replaced (-n, -u or -i's answer)";
	/* a word, not a sentence: scripts count these (--skip-identical) */
	case SAFECP_SKIP_IDENTICAL: return "identical";
	case SAFECP_SKIP_APPEARED:
		return "appeared at the destination during the copy; kept (--no-clobber)";
	case SAFECP_SKIP_FIFO: return "a FIFO is not copied";
	case SAFECP_SKIP_SOCKET: return "a socket is not copied";
	case SAFECP_SKIP_DEVICE: return "a device node is not copied";
	case SAFECP_SKIP_OTHER: break;
	}
	return "not a regular file, directory or symbolic link";
}

char *words_note(enum safecp_event_note kind, int err, uint64_t bytes)
{
	char size[SIZE_FORMAT_MAX];

	size_format(size, sizeof(size), bytes);
	switch (kind) {
	case SAFECP_NOTE_STALE_REMOVED:
		return words_format("removed a temporary file left by an interrupted copy (%s)", size);
	case SAFECP_NOTE_STALE_KEPT:
		return words_format("cannot remove this temporary file of an interrupted copy: %s; "
				    "remove it by hand to free its %s", strerror(err), size);
	case SAFECP_NOTE_NO_MODES:
		return words_format("this filesystem does not store file modes; files get its "
				    "default");
	case SAFECP_NOTE_ATTRS_NOT_KEPT:
		return words_not_kept((unsigned)bytes);
	case SAFECP_NOTE_VERIFY_CACHED:
		return words_format("verified, device cache not bypassed: the read-back may come "
				    "from memory, not from the stick (on FUSE, run safecp as root "
				    "to drop the device's cache; a small file whose data the "
				    "filesystem keeps in its metadata, as ext4's inline_data does, "
				    "is always read through it)");
	case SAFECP_NOTE_PARTIAL_KEPT:
		return words_format("the copy stopped in this file: its first %s are kept, hidden, "
				    "on the device; the same command goes on from there (with "
				    "--no-resume it copies the file whole)", size);
	}
	return words_format("note");
}
