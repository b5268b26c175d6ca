/* copy_meta.c: what a destination file, symlink or directory keeps of
 * its source's metadata (cp's --preserve, issue 29), set on the
 * temporary before it has its name (copy_publish.c: files and symlinks)
 * or on a made directory once its last child is in (copy_finish.c), so
 * that no final name ever shows a file without it.
 *
 * The order is cp's: the owner first (chown clears setuid, setgid and
 * file capabilities, security.capability), then the extended attributes
 * (before the mode: a read-only mode would refuse user.* to us), then
 * the ACLs with the permission bits, then the bits themselves with
 * setuid and setgid (kept only when the copy's owner and group are the
 * source's: else a copy would be setuid to whoever ran it) and a
 * directory's sticky bit, and the times last but one with
 * fusefat's rename (copy_publish.c).  The source is read through an
 * O_PATH fd checked against the tree (source_open_meta()), never by a
 * name that could have been swapped.
 *
 * Without --preserve=mode the bits are cp's: a new file gets the
 * source's less the umask (--no-preserve=mode: 0666/0777 less the
 * umask), a file replaced keeps the mode of the one it replaces, as
 * cp's write in place does (--remove-destination: a new file's).  Without root, ownership is kept where chown
 * allows (the group, to one of ours) and its failure is no error, as
 * cp's.  What a filesystem refuses as such (EOPNOTSUPP; EPERM from a
 * daemon for modes) is said once for the destination, and not tried
 * again: the session said before the first byte what the table knew
 * (meta_attrs.h), this is for filesystems the table cannot know. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "copy/copy.h"
#include "copy/copy_internal.h"
#include "copy/meta_attrs.h"
#include "copy/meta_copy.h"
#include "copy/source_open.h"
#include "io/writer.h"

/* Where meta is applied: an open fd (a file's temporary, a made
 * directory), or a name in dirfd (a symlink's temporary). */
struct meta_dst {
	size_t idx;
	int fd;
	int dirfd;
	const char *name;
};

static bool refused_as_such(int err)
{
	return err == -EOPNOTSUPP || err == -ENOTSUP;
}

/* attrs (META_*) cannot be kept here after all: one note for the run. */
static void lost(struct engine *g, const struct meta_dst *d, unsigned attrs)
{
	char dst[PATH_MAX];

	attrs &= ~g->meta_lost;
	if (!attrs)
		return;
	g->meta_lost |= attrs;
	copy_emit(g, &(struct copy_event){ .kind = COPY_EVENT_NOTE, .note = COPY_NOTE_META_NOT_KEPT,
					   .count = attrs, .bytes = attrs,
					   .path = (char *)plan_dst_path(g->plan, d->idx, dst) });
}

static bool wanted(const struct engine *g, unsigned attr)
{
	return !(g->meta_lost & attr);
}

/* The owner and group: true when they are the source's now.  Without
 * root a chown to another owner is refused (EPERM), and the group alone
 * is tried, as cp does, quietly. */
static bool keep_owner(struct engine *g, const struct meta_dst *d)
{
	struct source_owner o;
	int r;

	if (!g->o->keep_owners || !wanted(g, META_OWNERSHIP) ||
	    !source_owner_of(g->plan->tree, d->idx, &o))
		return false;
	r = d->fd >= 0 ? fchown(d->fd, o.uid, o.gid)
		       : fchownat(d->dirfd, d->name, o.uid, o.gid, AT_SYMLINK_NOFOLLOW);
	if (r == 0)
		return true;
	r = -errno;
	if (geteuid() != 0 && (r == -EPERM || r == -EINVAL)) {
		if (d->fd >= 0)
			(void)!fchown(d->fd, (uid_t)-1, o.gid); /* cp's try, quiet */
		else
			(void)!fchownat(d->dirfd, d->name, (uid_t)-1, o.gid, AT_SYMLINK_NOFOLLOW);
		return false;
	}
	if (refused_as_such(r) || r == -EPERM)
		lost(g, d, META_OWNERSHIP);
	else
		copy_report_dst(g, d->idx, COPY_STEP_ATTRS, r, false);
	return false;
}

/* Extended attributes, then the ACLs (with the permission bits), from
 * the source's inode. */
static void keep_xattrs_acl(struct engine *g, const struct meta_dst *d)
{
	const struct source_entry *e = g->plan->entries[d->idx].source;
	/* an archive's entry (--unpack) has no inode to read them from */
	bool xattrs = g->o->meta_from_source && g->o->keep_xattrs && wanted(g, META_XATTR);
	bool acl = g->o->meta_from_source && g->o->keep_mode && g->fs_has_modes &&
		   wanted(g, META_ACL);
	int src, r;

	if (!xattrs && !acl)
		return;
	src = source_open_meta(g->plan->tree, e);
	if (src < 0) {
		copy_report_dst(g, d->idx, COPY_STEP_ATTRS, src, false);
		return;
	}
	r = xattrs ? meta_copy_xattrs(src, d->fd) : 0;
	if (refused_as_such(r))
		lost(g, d, META_XATTR);
	else if (r < 0)
		copy_report_dst(g, d->idx, COPY_STEP_ATTRS, r, false);
	r = acl ? meta_copy_acl(src, d->fd) : 0;
	if (refused_as_such(r))
		lost(g, d, META_ACL);
	else if (r < 0)
		copy_report_dst(g, d->idx, COPY_STEP_ATTRS, r, false);
	close(src);
}

/* The mode a file or directory gets (see the file comment).  A
 * directory's sticky bit is kept in every case, as cp keeps it. */
static mode_t mode_of(const struct engine *g, size_t idx, bool owned)
{
	const struct plan_entry *e = &g->plan->entries[idx];
	bool dir = e->source->type == PLAN_DIR;
	mode_t src = e->source->mode, sticky = dir ? src & S_ISVTX : 0;

	if (g->o->keep_mode)
		return src & (owned ? 07777 : 0777 | S_ISVTX);
	/* --remove-destination, --backup: cp makes a new file */
	if (e->dst_exists && e->dst_regular && !g->plan->opts.remove_destination &&
	    g->plan->opts.backup == BACKUP_NONE)
		return plan_existing_of(g->plan, e)->dst_mode & 0777;
	return ((g->o->drop_mode ? (dir ? 0777 : 0666) : src & 0777) | sticky) & ~g->umask;
}

/* Without ownership kept, the copy may still be the source's owner's (as
 * root copying root's files, or yours): then setuid and setgid are as
 * safe to keep as cp keeps them. */
static bool owner_as_source(const struct engine *g, const struct meta_dst *d)
{
	struct stat s, t;
	bool same;
	int src;

	if (!g->o->keep_mode || !g->o->meta_from_source || d->fd < 0 ||
	    !(g->plan->entries[d->idx].source->mode & (S_ISUID | S_ISGID)))
		return false;
	src = source_open_meta(g->plan->tree, g->plan->entries[d->idx].source);
	if (src < 0)
		return false;
	same = fstat(src, &s) == 0 && fstat(d->fd, &t) == 0 && s.st_uid == t.st_uid &&
	       s.st_gid == t.st_gid;
	close(src);
	return same;
}

static void keep_mode(struct engine *g, const struct meta_dst *d, bool owned)
{
	int r;

	if (!g->fs_has_modes) /* the session noted it when the mode was asked */
		return;
	/* a directory merged into keeps its own mode unless the source's is asked */
	if (!g->o->keep_mode && g->plan->entries[d->idx].source->type == PLAN_DIR &&
	    !g->made[d->idx])
		return;
	r = fchmod(d->fd, mode_of(g, d->idx, owned)) < 0 ? -errno : 0;
	/* only these say the filesystem keeps no modes (a FUSE daemon's
	 * refusal); any other failure is this file's */
	if (r == 0 || !g->o->keep_mode)
		return; /* cp sets no mode it was not asked to keep */
	if (r == -EPERM || refused_as_such(r)) {
		char dst[PATH_MAX];

		if (!g->mode_noted)
			copy_emit(g, &(struct copy_event){
				.kind = COPY_EVENT_NOTE, .note = COPY_NOTE_NO_MODES,
				.path = (char *)plan_dst_path(g->plan, d->idx, dst) });
		g->mode_noted = true;
	} else {
		copy_report_dst(g, d->idx, COPY_STEP_ATTRS, r, false);
	}
}

static void keep_times(struct engine *g, const struct meta_dst *d)
{
	const struct source_entry *e = g->plan->entries[d->idx].source;
	const struct timespec times[2] = { source_atim(e), source_mtim(e) };
	int r;

	if (!g->o->keep_times)
		return;
	r = d->fd >= 0 ? futimens(d->fd, times)
		       : utimensat(d->dirfd, d->name, times, AT_SYMLINK_NOFOLLOW);
	if (r < 0)
		copy_report_dst(g, d->idx, COPY_STEP_ATTRS, -errno, false);
}

static void apply(struct engine *g, const struct meta_dst *d)
{
	bool owned = keep_owner(g, d) || owner_as_source(g, d);

	if (d->fd >= 0) {
		keep_xattrs_acl(g, d);
		keep_mode(g, d, owned);
	}
	keep_times(g, d);
}

void publish_attrs(struct engine *g, struct batch_item *it)
{
	if (g->plan->entries[it->entry].linked)
		return; /* its leader's inode: it got them when the leader was named */
	apply(g, &(struct meta_dst){ .idx = it->entry,
				     .fd = it->file.w ? writer_fd(it->file.w) : -1,
				     .dirfd = it->file.dirfd, .name = it->file.tmp });
}

void meta_dir(struct engine *g, size_t idx, int fd)
{
	apply(g, &(struct meta_dst){ .idx = idx, .fd = fd, .dirfd = -1 });
}
