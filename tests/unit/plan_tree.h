/* plan_tree.h: helpers the plan unit tests share: a temporary tree per
 * case (mkdtemp under /tmp, the case works in it with relative paths as a
 * user types them, then it is removed), and plan_build() wrapped so a case
 * reads as the command line it stands for: BUILD(&rec, "dest", "src"). */
#ifndef SAFECP_TEST_PLAN_TREE_H
#define SAFECP_TEST_PLAN_TREE_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "copy/plan.h"
#include "test.h"
#include "plan_paths.h"

#define KIB 1024ULL
#define GIB (1024ULL * 1024 * 1024)

static char tmp_root[64];

static inline void tree_new_in(const char *base)
{
	snprintf(tmp_root, sizeof(tmp_root), "%s/test_plan.XXXXXX", base);
	if (!mkdtemp(tmp_root) || chmod(tmp_root, 0755) < 0 || chdir(tmp_root) < 0) {
		perror("test_plan: temporary tree");
		exit(99);
	}
}

/* fd-relative, so trees deeper than PATH_MAX go too (nftw cannot) */
static inline void tree_new(void)
{
	tree_new_in("/tmp");
}

static inline int rm_at(int at, const char *name)
{
	struct dirent *d;
	DIR *dir;
	int fd, r = 0;

	if (unlinkat(at, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno != EISDIR) /* Linux: unlink on a directory */
		return -errno;
	/* cases lock directories; where this fails, the unlinks below say why */
	int unlocked = fchmodat(at, name, 0755, 0);
	(void)unlocked;
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	dir = fd < 0 ? NULL : fdopendir(fd);
	if (!dir)
		return -errno;
	while ((d = readdir(dir)))
		if (strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0)
			r = rm_at(dirfd(dir), d->d_name) < 0 ? -1 : r;
	closedir(dir);
	return unlinkat(at, name, AT_REMOVEDIR) < 0 ? -errno : r;
}

static inline void tree_done(void)
{
	if (chdir("/") < 0)
		exit(99);
	if (rm_at(AT_FDCWD, tmp_root) < 0)
		printf("# could not remove %s\n", tmp_root);
}

static inline void mkfile(const char *path, uint64_t size)
{
	static char buf[64 * 1024];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	uint64_t left = size;

	if (fd < 0)
		FAIL_AT("create %s: %m", path);
	memset(buf, 'x', sizeof(buf));
	while (fd >= 0 && left > 0) {
		ssize_t n = write(fd, buf, MIN(left, sizeof(buf)));

		if (n <= 0)
			break;
		left -= (uint64_t)n;
	}
	if (fd >= 0)
		close(fd);
}

static inline void mkdirs(const char *a, const char *b, const char *c)
{
	const char *v[] = { a, b, c };

	for (size_t i = 0; i < 3; i++)
		if (v[i] && mkdir(v[i], 0755) < 0)
			FAIL_AT("mkdir %s: %m", v[i]);
}

struct run {
	int r;
	struct plan *p;
	struct plan_problem pr;
};

static inline struct run build_opts(const struct plan_options *o, const char *dest, size_t n,
			     const char *const *src)
{
	struct run x = { 0 };

	x.r = plan_build(src, n, dest, o, &x.p, &x.pr);
	if (x.r < 0)
		x.p = NULL;
	return x;
}

#define BUILD(o, dest, ...) \
	build_opts((o), (dest), sizeof((const char *[]){ __VA_ARGS__ }) / sizeof(char *), \
		   (const char *const[]){ __VA_ARGS__ })

static inline void run_done(struct run *x)
{
	plan_free(x->p);
	plan_problem_done(&x->pr);
}

#define CHECK_REFUSED(x, k) \
	do { \
		CHECK((x).r < 0); \
		CHECK((x).p == NULL); \
		if ((x).pr.kind != (k)) \
			FAIL_AT("problem %s, expected %s", plan_problem_kind_name((x).pr.kind), \
				plan_problem_kind_name(k)); \
	} while (0)

static inline const struct plan_entry *find(const struct plan *p, const char *rel)
{
	for (size_t i = 0; p && i < p->n_entries; i++)
		if (strcmp(t_rel(p->entries[i].source), rel) == 0)
			return &p->entries[i];
	return NULL;
}

static const struct plan_options plain = { 0 }, rec = { .recursive = true };
static const struct plan_options rec_L = { .recursive = true, .follow_symlinks = true };
static const struct plan_options rec_n = { .recursive = true, .no_clobber = true };
static const struct plan_options rec_T_n = { .recursive = true, .no_target_directory = true,
					     .no_clobber = true };

#endif
