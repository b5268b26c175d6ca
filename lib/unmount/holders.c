/* holders.c: find the processes that keep a mount or a block device busy.
 *
 * Algorithm (the one `fuser -m` uses, made namespace-aware): walk
 * /proc/[0-9]*; for each process look at cwd, root and every fd/N link,
 * and at the file mappings in maps.  A link is resolved by the kernel, so
 * on the real root statx() of the link itself tells the mount id of what
 * it points to, which is exact even for btrfs subvolumes and paths that
 * moved; the link's text (as readlink shows it to us) is the fallback and
 * the whole story under a fixture sysroot.  maps lines carry the backing
 * file's device number, compared with the mount's.  For devices, one
 * process per foreign mount namespace is enough to name the namespace: its
 * mountinfo is read once.  Processes we may not inspect are counted, not
 * guessed at. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "util/debug.h"
#include "base/grow.h"
#include "unmount/holders.h"
#include "util/parse.h"
#include "util/sysroot.h"

static const char *const how_names[] = {
	[HOLDER_CWD] = "cwd", [HOLDER_ROOT] = "root", [HOLDER_FILE] = "file",
	[HOLDER_MAP] = "map", [HOLDER_DEVICE] = "device",
	[HOLDER_NAMESPACE] = "namespace",
};

const char *holder_how_name(enum holder_how how)
{
	return (unsigned)how < ARRAY_SIZE(how_names) ? how_names[how] : "unknown";
}


/* What one scan looks for. */
struct matcher {
	const struct holders_mount *mount; /* NULL: a device */
	unsigned major, minor;             /* the device */
	const char *devnode;
};

bool holders_path_within(const char *path, const char *dir)
{
	size_t plen = strlen(path), dlen = strlen(dir);
	static const char deleted[] = " (deleted)";

	if (plen >= sizeof(deleted) - 1 &&
	    strcmp(path + plen - (sizeof(deleted) - 1), deleted) == 0)
		plen -= sizeof(deleted) - 1;
	while (dlen > 1 && dir[dlen - 1] == '/')
		dlen--;
	if (dlen == 1 && dir[0] == '/')
		return path[0] == '/';
	if (plen < dlen || strncmp(path, dir, dlen) != 0)
		return false;
	return plen == dlen || path[dlen] == '/';
}

static int list_add(struct holder_list *l, pid_t pid, const char *command,
		    enum holder_how how, const char *path)
{
	struct holder *h;

	for (size_t i = 0; i < l->n; i++)
		if (l->items[i].pid == pid && l->items[i].how == how &&
		    strcmp(l->items[i].path, path) == 0)
			return 0;
	if (GROW(l->items, l->cap, l->n + 1, 8) < 0)
		return -ENOMEM;
	h = &l->items[l->n];
	h->path = strdup(path);
	if (!h->path)
		return -ENOMEM;
	h->pid = pid;
	h->how = how;
	snprintf(h->command, sizeof(h->command), "%s", command);
	l->n++;
	return 0;
}

static bool dev_is(unsigned major, unsigned minor, unsigned want_major, unsigned want_minor)
{
	return (want_major || want_minor) && major == want_major && minor == want_minor;
}

/* The kernel's view of what the link points to, real root only.
 * 1 match, 0 no match, -errno when it could not tell. */
static int link_matches_stat(const char *full, const struct matcher *mt)
{
	struct statx stx;

	if (statx(AT_FDCWD, full, AT_NO_AUTOMOUNT, STATX_BASIC_STATS | STATX_MNT_ID, &stx) < 0)
		return -errno;
	if (!mt->mount)
		return S_ISBLK(stx.stx_mode) &&
		       dev_is(stx.stx_rdev_major, stx.stx_rdev_minor, mt->major, mt->minor);
	if ((stx.stx_mask & STATX_MNT_ID) && mt->mount->mnt_id > 0)
		return stx.stx_mnt_id == (uint64_t)mt->mount->mnt_id;
	return dev_is(stx.stx_dev_major, stx.stx_dev_minor, mt->mount->sb_major,
		      mt->mount->sb_minor) ||
	       dev_is(stx.stx_dev_major, stx.stx_dev_minor, mt->mount->st_major,
		      mt->mount->st_minor);
}

/* rel is "/proc/PID/cwd" and the like.  1 match, 0 none, -errno when the
 * link cannot be read; leaves the link's text in text (for the report). */
static int link_matches(const char *rel, const struct matcher *mt, char *text, size_t size)
{
	char full[PATH_MAX];
	ssize_t n;

	if (sysroot_path(full, sizeof(full), "%s", rel) < 0)
		return -ENAMETOOLONG;
	n = readlink(full, text, size - 1);
	if (n < 0)
		return -errno;
	text[n] = '\0';
	if (sysroot_is_real()) {
		int r = link_matches_stat(full, mt);

		if (r >= 0)
			return r;
	}
	if (mt->mount)
		return text[0] == '/' && holders_path_within(text, mt->mount->mountpoint);
	return mt->devnode && strcmp(text, mt->devnode) == 0;
}

static int scan_fds(pid_t pid, const char *command, const struct matcher *mt,
		    struct holder_list *l)
{
	char dir[PATH_MAX], rel[320], text[PATH_MAX];
	DIR *d;
	struct dirent *de;
	int r = 0;

	if (sysroot_path(dir, sizeof(dir), "/proc/%d/fd", (int)pid) < 0)
		return 0;
	d = opendir(dir);
	if (!d)
		return -errno;
	while (r >= 0 && (de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(rel, sizeof(rel), "/proc/%d/fd/%s", (int)pid, de->d_name);
		if (link_matches(rel, mt, text, sizeof(text)) == 1)
			r = list_add(l, pid, command, mt->mount ? HOLDER_FILE : HOLDER_DEVICE, text);
	}
	closedir(d);
	return r;
}

/* One maps line: "start-end perms offset MAJ:MIN inode   path", MAJ:MIN
 * in hex; the path may hold blanks.  Split in place. */
static bool map_line_matches(char *line, const struct holders_mount *m, const char **ret_path)
{
	char *f[6];
	unsigned maj, min;
	uint64_t ino;

	if (parse_fields(line, f, ARRAY_SIZE(f)) != ARRAY_SIZE(f) ||
	    parse_devnum_hex(f[3], &maj, &min, NULL) < 0 || parse_u64(f[4], &ino, NULL) < 0)
		return false;
	*ret_path = f[5];
	if (ino == 0 || (*ret_path)[0] != '/')
		return false;
	return dev_is(maj, min, m->sb_major, m->sb_minor) ||
	       dev_is(maj, min, m->st_major, m->st_minor) ||
	       holders_path_within(*ret_path, m->mountpoint);
}

static int scan_maps(pid_t pid, const char *command, const struct holders_mount *m,
		     struct holder_list *l)
{
	_cleanup_free_ char *text = NULL;
	char rel[64];
	char *line, *save = NULL;
	int r;

	snprintf(rel, sizeof(rel), "/proc/%d/maps", (int)pid);
	r = sysroot_read_file(rel, &text);
	if (r < 0)
		return r;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *path;

		if (map_line_matches(line, m, &path)) {
			r = list_add(l, pid, command, HOLDER_MAP, path);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

static void read_command(pid_t pid, char *buf, size_t size)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "/proc/%d/comm", (int)pid);
	if (sysroot_read_line(rel, buf, size) < 0)
		snprintf(buf, size, "?");
}

static bool is_denied(int r)
{
	return r == -EACCES || r == -EPERM;
}

/* One more process we may not inspect, named for the report (the user
 * can look it up: pid 1 unreadable even to root says a lot). */
static int denied_add(struct holder_list *l, pid_t pid, const char *command, int error)
{
	struct holder_denied *d;

	l->unreadable++;
	if (GROW(l->denied, l->cap_denied, l->n_denied + 1, 8) < 0)
		return -ENOMEM;
	d = &l->denied[l->n_denied];
	*d = (struct holder_denied){ .pid = pid, .error = error };
	snprintf(d->command, sizeof(d->command), "%s", command);
	l->n_denied++;
	return 0;
}

/* cwd, root, fds and maps of one process against a mount. */
static int scan_pid_mount(pid_t pid, const struct matcher *mt, struct holder_list *l)
{
	static const struct { const char *name; enum holder_how how; } links[] = {
		{ "cwd", HOLDER_CWD }, { "root", HOLDER_ROOT },
	};
	char command[32], rel[64], text[PATH_MAX];
	int denied = 0; /* the first refusal */
	int r;

	read_command(pid, command, sizeof(command));
	for (size_t i = 0; i < ARRAY_SIZE(links); i++) {
		snprintf(rel, sizeof(rel), "/proc/%d/%s", (int)pid, links[i].name);
		r = link_matches(rel, mt, text, sizeof(text));
		if (r == 1) {
			r = list_add(l, pid, command, links[i].how, text);
			if (r < 0)
				return r;
		}
		if (!denied && is_denied(r))
			denied = r;
	}
	r = scan_fds(pid, command, mt, l);
	if (r == -ENOMEM)
		return r;
	if (!denied && is_denied(r))
		denied = r;
	r = scan_maps(pid, command, mt->mount, l);
	if (r == -ENOMEM)
		return r;
	if (!denied && is_denied(r))
		denied = r;
	return denied ? denied_add(l, pid, command, denied) : 0;
}

/* Six fixed fields, the optional ones (shared:N, master:N, ...), "-" and
 * three more: a few more than any kernel writes. */
#define MOUNTINFO_FIELDS_MAX 32

/* In a mountinfo text, the mount point of the device (by MAJ:MIN, or by
 * source for btrfs, whose MAJ:MIN is anonymous).  NULL when absent. */
static char *mountinfo_find_device(char *text, const struct matcher *mt)
{
	char *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* "36 35 98:0 /root /mnt opts [optional...] - fstype source superopts" */
		char *f[MOUNTINFO_FIELDS_MAX], *source = NULL;
		size_t n = parse_fields(line, f, ARRAY_SIZE(f)), sep = 6;
		unsigned maj, min;

		while (sep < n && strcmp(f[sep], "-") != 0)
			sep++;
		if (sep >= n || parse_devnum(f[2], &maj, &min, NULL) < 0)
			continue;
		if (sep + 2 < n) {
			source = f[sep + 2];
			parse_unescape_octal(source);
		}
		if (dev_is(maj, min, mt->major, mt->minor) ||
		    (mt->devnode && source && strcmp(source, mt->devnode) == 0)) {
			parse_unescape_octal(f[4]);
			return strdup(f[4]);
		}
	}
	return NULL;
}

/* Namespaces already looked at; the first entry is our own. */
struct ns_seen {
	char (*ids)[64];
	size_t n, cap;
};

static bool ns_seen_add(struct ns_seen *s, const char *id)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->ids[i], id) == 0)
			return false;
	if (GROW(s->ids, s->cap, s->n + 1, 4) < 0)
		return false;
	snprintf(s->ids[s->n++], sizeof(*s->ids), "%s", id);
	return true;
}

static int read_ns(const char *pid, char *buf, size_t size)
{
	char full[PATH_MAX];
	ssize_t n;

	if (sysroot_path(full, sizeof(full), "/proc/%s/ns/mnt", pid) < 0)
		return -ENAMETOOLONG;
	n = readlink(full, buf, size - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* 0, or the refusal (-EACCES, -EPERM) when the namespace could not be
 * read, or -ENOMEM. */
static int scan_pid_namespace(pid_t pid, const struct matcher *mt, struct ns_seen *seen,
			      struct holder_list *l)
{
	_cleanup_free_ char *text = NULL, *where = NULL;
	char pidstr[16], ns[64], rel[64], command[32];
	int r;

	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	r = read_ns(pidstr, ns, sizeof(ns));
	if (r < 0)
		return is_denied(r) ? r : 0;
	if (!ns_seen_add(seen, ns))
		return 0;
	snprintf(rel, sizeof(rel), "/proc/%d/mountinfo", (int)pid);
	r = sysroot_read_file(rel, &text);
	if (r < 0)
		return is_denied(r) ? r : 0;
	where = mountinfo_find_device(text, mt);
	if (!where)
		return 0;
	read_command(pid, command, sizeof(command));
	r = list_add(l, pid, command, HOLDER_NAMESPACE, where);
	return r < 0 ? r : 0;
}

static int holder_cmp(const void *a, const void *b)
{
	const struct holder *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->how != y->how)
		return x->how < y->how ? -1 : 1;
	return strcmp(x->path, y->path);
}

static int scan_pid(pid_t pid, const struct matcher *mt, struct ns_seen *seen,
		    struct holder_list *l)
{
	char command[32];
	int denied = 0;
	int r;

	if (mt->mount)
		return scan_pid_mount(pid, mt, l);
	read_command(pid, command, sizeof(command));
	r = scan_fds(pid, command, mt, l);
	if (r == -ENOMEM)
		return r;
	if (is_denied(r))
		denied = r;
	r = scan_pid_namespace(pid, mt, seen, l);
	if (r == -ENOMEM)
		return r;
	if (!denied && is_denied(r))
		denied = r;
	return denied ? denied_add(l, pid, command, denied) : 0;
}

static int scan_all(const struct matcher *mt, struct holder_list *ret)
{
	struct holder_list l = { 0 };
	struct ns_seen seen = { 0 };
	char dir[PATH_MAX], self_ns[64];
	pid_t self = sysroot_is_real() ? getpid() : 0;
	DIR *d;
	struct dirent *de;
	int r = 0;

	if (sysroot_path(dir, sizeof(dir), "/proc") < 0)
		return -ENAMETOOLONG;
	/* Our own namespace is where the caller looks already. */
	if (read_ns("self", self_ns, sizeof(self_ns)) == 0)
		ns_seen_add(&seen, self_ns);
	d = opendir(dir);
	if (!d)
		return -errno;
	while (r >= 0 && (de = readdir(d))) {
		unsigned pid;

		if (parse_uint(de->d_name, &pid, NULL) < 0 || pid == 0 || pid > INT_MAX ||
		    (pid_t)pid == self)
			continue;
		r = scan_pid((pid_t)pid, mt, &seen, &l);
	}
	closedir(d);
	free(seen.ids);
	if (r < 0) {
		holder_list_done(&l);
		return r;
	}
	if (l.n)
		qsort(l.items, l.n, sizeof(*l.items), holder_cmp);
	*ret = l;
	DEBUG(DEBUG_UNMOUNT, "holders: %zu found, %zu processes unreadable", l.n, l.unreadable);
	return 0;
}

int holders_of_mount(const struct holders_mount *m, struct holder_list *ret)
{
	const struct matcher mt = { .mount = m };

	if (!m || !m->mountpoint)
		return -EINVAL;
	return scan_all(&mt, ret);
}

int holders_of_device(unsigned major, unsigned minor, const char *devnode,
		      struct holder_list *ret)
{
	const struct matcher mt = { .major = major, .minor = minor, .devnode = devnode };

	return scan_all(&mt, ret);
}

bool holder_list_equal(const struct holder_list *a, const struct holder_list *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (holder_cmp(&a->items[i], &b->items[i]) != 0)
			return false;
	return true;
}

void holder_list_done(struct holder_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		free(l->items[i].path);
	free(l->items);
	l->items = NULL;
	l->n = l->cap = 0;
	l->unreadable = 0;
	free(l->denied);
	l->denied = NULL;
	l->n_denied = l->cap_denied = 0;
}

int holder_list_copy(const struct holder_list *from, struct holder_list *ret)
{
	struct holder_list l = { .unreadable = from->unreadable };

	if (from->n) {
		l.items = calloc(from->n, sizeof(*l.items));
		if (!l.items)
			return -ENOMEM;
		l.cap = from->n;
	}
	for (; l.n < from->n; l.n++) {
		l.items[l.n] = from->items[l.n];
		l.items[l.n].path = strdup(from->items[l.n].path);
		if (!l.items[l.n].path) {
			holder_list_done(&l);
			return -ENOMEM;
		}
	}
	if (from->n_denied) {
		l.denied = malloc(from->n_denied * sizeof(*l.denied));
		if (!l.denied) {
			holder_list_done(&l);
			return -ENOMEM;
		}
		memcpy(l.denied, from->denied, from->n_denied * sizeof(*l.denied));
		l.n_denied = l.cap_denied = from->n_denied;
	}
	*ret = l;
	return 0;
}
