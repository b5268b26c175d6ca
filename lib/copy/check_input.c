/* check_input.c: see check_input.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "copy/check_input.h"
#include "copy/mhl_record.h"
#include "hash/sums_list.h"
#include "base/cleanup.h"

bool check_mhl_c4_matches(const struct mhl_history *h)
{
	return mhl_record_newest_ok(h);
}

/* The formats of one entry into L: each known one, the failed mark once. */
static int add_entry(struct check_list *l, const struct mhl_entry *e)
{
	bool failed = false;
	int r = 0;

	for (int f = 0; f < MHL_FORMAT_COUNT; f++)
		failed = failed || (e->hash[f] && e->has_action[f] && e->action[f] == MHL_FAILED);
	for (int f = 0; f < MHL_FORMAT_COUNT && r == 0; f++) {
		int alg = e->hash[f] ? checksum_alg_from_name(mhl_format_name(f)) : -1;

		if (alg >= 0)
			r = check_list_add(l, e->path, alg, e->hash[f],
					   e->has_size ? e->size : UINT64_MAX, failed);
	}
	return r;
}

int check_list_add_manifest(const struct mhl_manifest *m, struct check_list *l)
{
	int r = 0;

	for (size_t i = 0; i < mhl_manifest_count(m) && r == 0; i++)
		r = add_entry(l, mhl_manifest_entry(m, i));
	return r == -EINVAL ? 0 : r; /* a digest mhl_read let through is its own form */
}

int check_list_from_mhl(const struct mhl_history *h, struct check_list *l)
{
	return check_list_add_manifest(mhl_history_newest(h), l);
}

static enum check_list_kind fail(struct check_list_problem *why, enum check_list_kind kind,
				 int err, size_t line)
{
	if (why)
		*why = (struct check_list_problem){ .kind = kind, .err = err, .line = line };
	return kind;
}

/* The lines of f into L; *n counts them. */
static enum check_list_kind read_lines(FILE *f, enum checksum_alg alg, struct check_list *l,
				       size_t *n, struct check_list_problem *why)
{
	_cleanup_free_ char *line = NULL;
	size_t cap = 0, no = 0;
	ssize_t len;

	while ((len = getline(&line, &cap, f)) >= 0) {
		char digest[CHECKSUM_TEXT_MAX], *name = NULL;
		int r;

		no++;
		if (len == 0 || strspn(line, " \t\r\n") == (size_t)len)
			continue;
		r = sums_line_parse(alg, line, (size_t)len, digest, &name);
		if (r == 0)
			r = check_list_add(l, name, alg, digest, UINT64_MAX, false);
		free(name);
		if (r == -ENOMEM)
			return fail(why, CHECK_LIST_NO_MEMORY, ENOMEM, no);
		if (r < 0)
			return fail(why, CHECK_LIST_BAD_LINE, 0, no);
		(*n)++;
	}
	if (ferror(f))
		return fail(why, CHECK_LIST_IO, errno ? errno : EIO, 0);
	return CHECK_LIST_OK;
}

enum check_list_kind check_list_load_sums(const char *path, enum checksum_alg alg,
					  struct check_list *l, size_t *ret_files,
					  struct check_list_problem *why)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	_cleanup_fclose_ FILE *f = NULL;
	struct stat st;

	*ret_files = 0;
	if (fd < 0)
		return fail(why, errno == ELOOP ? CHECK_LIST_NOT_REGULAR : CHECK_LIST_IO, errno, 0);
	if (fstat(fd, &st) < 0) {
		int err = errno;

		close(fd);
		return fail(why, CHECK_LIST_IO, err, 0);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return fail(why, CHECK_LIST_NOT_REGULAR, 0, 0);
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return fail(why, CHECK_LIST_NO_MEMORY, ENOMEM, 0);
	}
	return read_lines(f, alg, l, ret_files, why);
}
