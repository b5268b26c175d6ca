/* mount.c: the mount table ($sysroot/proc/self/mountinfo through
 * libmount) and which mount holds a path.
 *
 * Finding the mount of a path walks the mount tree the way path lookup
 * does, not by longest prefix: start at the root mount; for each prefix
 * of the path ("/", "/media", "/media/usb") descend into the last child
 * mount whose mount point is that prefix, repeatedly, so stacked mounts
 * on one directory end at the topmost.  A mount on /a/b whose /a was later
 * mounted over is a child of the old /a, never reached: it is hidden, as
 * the kernel sees it.  mountinfo lists children after their parent and
 * later mounts later, which the "last child" rule relies on.  No stat()
 * is involved, so the walk works on captured fixture trees. */
#include <errno.h>
#include <libgen.h>
#include <libmount.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#include "base/cleanup.h"
#include "util/debug.h"
#include "device/mount.h"
#include "util/sysroot.h"

static inline void table_unrefp(struct libmnt_table **tb)
{
	mnt_unref_table(*tb);
}

static inline void iter_freep(struct libmnt_iter **it)
{
	mnt_free_iter(*it);
}

void mount_entry_done(struct mount_entry *e)
{
	if (!e)
		return;
	free(e->target);
	free(e->fstype);
	free(e->source);
	free(e->options);
	free(e->root);
	memset(e, 0, sizeof(*e));
}

void mount_list_free(struct mount_entry *list, size_t n)
{
	if (!list)
		return;
	for (size_t i = 0; i < n; i++)
		mount_entry_done(&list[i]);
	free(list);
}

static char *strdup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

static int entry_from_fs(struct libmnt_fs *fs, struct mount_entry *e)
{
	dev_t devno = mnt_fs_get_devno(fs);

	e->target = strdup_or_empty(mnt_fs_get_target(fs));
	e->fstype = strdup_or_empty(mnt_fs_get_fstype(fs));
	e->source = strdup_or_empty(mnt_fs_get_source(fs));
	e->root = strdup_or_empty(mnt_fs_get_root(fs));
	/* merges the VFS and fs option strings of the mountinfo line */
	e->options = mnt_fs_strdup_options(fs);
	if (!e->options)
		e->options = strdup("");
	e->major = major(devno);
	e->minor = minor(devno);
	e->id = mnt_fs_get_id(fs);
	e->parent_id = mnt_fs_get_parent_id(fs);
	if (!e->target || !e->fstype || !e->source || !e->root || !e->options)
		return -ENOMEM;
	return 0;
}

static int table_to_list(struct libmnt_table *tb, struct mount_entry **ret, size_t *ret_n)
{
	_cleanup_(iter_freep) struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	int n = mnt_table_get_nents(tb);
	struct mount_entry *list;
	struct libmnt_fs *fs;
	size_t i = 0;

	if (!it)
		return -ENOMEM;
	list = calloc(n > 0 ? (size_t)n : 1, sizeof(*list));
	if (!list)
		return -ENOMEM;
	while (i < (size_t)n && mnt_table_next_fs(tb, it, &fs) == 0) {
		int r = entry_from_fs(fs, &list[i++]);

		if (r < 0) {
			mount_list_free(list, i);
			return r;
		}
	}
	*ret = list;
	*ret_n = i;
	return 0;
}

int mount_list(struct mount_entry **ret, size_t *ret_n)
{
	_cleanup_(table_unrefp) struct libmnt_table *tb = NULL;
	char file[PATH_MAX];
	int r;

	r = sysroot_path(file, sizeof(file), "/proc/self/mountinfo");
	if (r < 0)
		return r;
	tb = mnt_new_table();
	if (!tb)
		return -ENOMEM;
	r = mnt_table_parse_file(tb, file);
	if (r < 0) {
		DEBUG(DEBUG_TARGET, "cannot parse %s: %s", file, strerror(-r));
		return r;
	}
	return table_to_list(tb, ret, ret_n);
}

/* Drop repeated and trailing slashes: "/media//usb/" -> "/media/usb". */
static void squeeze_slashes(char *p)
{
	char *w = p;

	for (const char *s = p; *s; s++)
		if (!(*s == '/' && w > p && w[-1] == '/'))
			*w++ = *s;
	if (w > p + 1 && w[-1] == '/')
		w--;
	*w = '\0';
}

static int resolve_missing_leaf(const char *path, char **ret)
{
	_cleanup_free_ char *dcopy = strdup(path), *bcopy = strdup(path);
	_cleanup_free_ char *dir = NULL;
	const char *base;
	char *out;

	if (!dcopy || !bcopy)
		return -ENOMEM;
	dir = realpath(dirname(dcopy), NULL);
	if (!dir)
		return -errno;
	base = basename(bcopy);
	if (asprintf(&out, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", base) < 0)
		return -ENOMEM;
	DEBUG(DEBUG_TARGET, "'%s' does not exist yet: using its directory, '%s'", path, dir);
	*ret = out;
	return 0;
}

int mount_resolve_path(const char *path, char **ret)
{
	char *p;

	if (!path || !*path)
		return -EINVAL;
	if (!sysroot_is_real()) {
		if (path[0] != '/')
			return -EINVAL;
		p = strdup(path);
		if (!p)
			return -ENOMEM;
		squeeze_slashes(p);
		*ret = p;
		return 0;
	}
	p = realpath(path, NULL);
	if (p) {
		*ret = p;
		return 0;
	}
	if (errno != ENOENT)
		return -errno;
	return resolve_missing_leaf(path, ret);
}

static ssize_t find_root(const struct mount_entry *list, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		bool has_parent = false;

		if (strcmp(list[i].target, "/") != 0)
			continue;
		for (size_t j = 0; j < n; j++)
			if (j != i && list[j].id == list[i].parent_id)
				has_parent = true;
		if (!has_parent)
			return (ssize_t)i;
	}
	return -1;
}

/* Descend from cur into the topmost mount stacked on prefix.  At most n steps: a
 * longer chain means repeated ids or parents in a loop (a broken or forged table),
 * which must end the walk, not hang it. */
static size_t descend(const struct mount_entry *list, size_t n, size_t cur, const char *prefix)
{
	for (size_t steps = 0; steps < n; steps++) {
		ssize_t next = -1;

		for (size_t i = 0; i < n; i++)
			if (i != cur && list[i].parent_id == list[cur].id &&
			    strcmp(list[i].target, prefix) == 0)
				next = (ssize_t)i;
		if (next < 0)
			return cur;
		cur = (size_t)next;
	}
	return cur;
}

static ssize_t walk_mount_tree(const struct mount_entry *list, size_t n, const char *path)
{
	_cleanup_free_ char *prefix = strdup(path);
	ssize_t root = find_root(list, n);
	const char *p = path + 1;
	size_t cur;

	if (!prefix)
		return -ENOMEM;
	if (root < 0)
		return -ENOENT;
	cur = descend(list, n, (size_t)root, "/");
	while (*p) {
		p += strcspn(p, "/"); /* end of this component */
		memcpy(prefix, path, (size_t)(p - path));
		prefix[p - path] = '\0';
		cur = descend(list, n, cur, prefix);
		if (*p)
			p++;
	}
	return (ssize_t)cur;
}

int mount_find_for_path(const char *path, struct mount_entry *ret)
{
	_cleanup_free_ char *abs = NULL;
	struct mount_entry *list = NULL;
	size_t n = 0;
	ssize_t i;
	int r;

	r = mount_resolve_path(path, &abs);
	if (r < 0)
		return r;
	r = mount_list(&list, &n);
	if (r < 0)
		return r;
	i = walk_mount_tree(list, n, abs);
	if (i < 0) {
		DEBUG(DEBUG_TARGET, "no root mount in mountinfo for '%s'", abs);
		mount_list_free(list, n);
		return (int)i;
	}
	*ret = list[i];
	memset(&list[i], 0, sizeof(list[i]));
	mount_list_free(list, n);
	DEBUG(DEBUG_TARGET, "'%s' is on mount %d '%s' (%s, %u:%u, source '%s')", abs, ret->id,
	      ret->target, ret->fstype, ret->major, ret->minor, ret->source);
	return 0;
}
