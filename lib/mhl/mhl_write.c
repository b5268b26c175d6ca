/* mhl_write.c: a generation collected in memory, rendered with xmlTextWriter.
 *
 * Entries keep the order they were added in (the caller's walk order); a small
 * open-addressing table of path hashes refuses a path added twice without an O(n^2)
 * scan. Hash strings are copied into fixed slots (no format is longer than a C4 ID). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/xmlwriter.h>

#include "mhl/mhl_write.h"
#include "base/grow.h"

struct owned_hash {
	enum mhl_hash_format format;
	enum mhl_action action;
	time_t date;
	char value[MHL_HASH_MAX + 1];
	char structure[MHL_HASH_MAX + 1]; /* directories only */
};

struct entry {
	char *path;
	uint64_t size;
	time_t mtime;
	size_t n;
	struct owned_hash h[MHL_FORMAT_COUNT]; /* sorted by format: the schema's order */
	bool directory;
};

struct mhl_generation {
	time_t creation_time;
	char *hostname, *tool_name, *tool_version;
	char **ignore;
	size_t n_ignore, cap_ignore;
	struct entry *entries;
	size_t n_entries, cap_entries, n_files;
	struct entry root;
	bool has_root;
	size_t *slots; /* index + 1 of an entry; 0 free */
	size_t n_slots;
};

/* The reference's default ignore list (ascmhl/ignore.py): the history folder itself and
 * macOS's folder metadata. */
static const char *const default_ignores[] = {".DS_Store", MHL_FOLDER, MHL_FOLDER "/"};

static size_t path_hash(const char *s)
{
	size_t h = 1469598103934665603ULL; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* The slot of path: where it is, or the free slot where it goes. */
static size_t *slot_of(const struct mhl_generation *g, const char *path)
{
	size_t i = path_hash(path) & (g->n_slots - 1);

	while (g->slots[i] && strcmp(g->entries[g->slots[i] - 1].path, path) != 0)
		i = (i + 1) & (g->n_slots - 1);
	return &g->slots[i];
}

static int grow_slots(struct mhl_generation *g)
{
	size_t n = g->n_slots ? g->n_slots * 2 : 1024;
	size_t *old = g->slots, old_n = g->n_slots;

	g->slots = calloc(n, sizeof(*g->slots));
	if (!g->slots) {
		g->slots = old;
		return -ENOMEM;
	}
	g->n_slots = n;
	for (size_t i = 0; i < old_n; i++)
		if (old[i])
			*slot_of(g, g->entries[old[i] - 1].path) = old[i];
	free(old);
	return 0;
}

static int dup_text(const char *s, char **ret)
{
	if (!s || !mhl_text_valid(s))
		return -EINVAL;
	*ret = strdup(s);
	return *ret ? 0 : -ENOMEM;
}

int mhl_generation_new(const struct mhl_creator *creator, struct mhl_generation **ret)
{
	struct mhl_generation *g = calloc(1, sizeof(*g));
	char host[256] = "";
	const char *hostname = creator->hostname;
	int r;

	if (!g)
		return -ENOMEM;
	if (!hostname) {
		if (gethostname(host, sizeof(host) - 1) < 0 || !host[0])
			snprintf(host, sizeof(host), "localhost");
		hostname = host;
	}
	g->creation_time = creator->creation_time;
	if ((r = dup_text(hostname, &g->hostname)) < 0 ||
	    (r = dup_text(creator->tool_name, &g->tool_name)) < 0 ||
	    (r = dup_text(creator->tool_version, &g->tool_version)) < 0 || (r = grow_slots(g)) < 0)
		goto fail;
	for (size_t i = 0; i < sizeof(default_ignores) / sizeof(*default_ignores); i++)
		if ((r = mhl_generation_add_ignore(g, default_ignores[i])) < 0)
			goto fail;
	*ret = g;
	return 0;
fail:
	mhl_generation_free(g);
	return r;
}

void mhl_generation_free(struct mhl_generation *g)
{
	if (!g)
		return;
	free(g->hostname);
	free(g->tool_name);
	free(g->tool_version);
	for (size_t i = 0; i < g->n_ignore; i++)
		free(g->ignore[i]);
	free(g->ignore);
	for (size_t i = 0; i < g->n_entries; i++)
		free(g->entries[i].path);
	free(g->entries);
	free(g->slots);
	free(g);
}

int mhl_generation_add_ignore(struct mhl_generation *g, const char *pattern)
{
	char *copy;
	int r;

	for (size_t i = 0; i < g->n_ignore; i++)
		if (strcmp(g->ignore[i], pattern) == 0)
			return 0;
	if (!*pattern || strchr(pattern, '\n'))
		return -EINVAL;
	if (GROW(g->ignore, g->cap_ignore, g->n_ignore + 1, 8) < 0)
		return -ENOMEM;
	if ((r = dup_text(pattern, &copy)) < 0)
		return r;
	g->ignore[g->n_ignore++] = copy;
	return 0;
}

/* Copy n hashes into e->h in the schema's order; structures non-NULL for directories. */
static int take_hashes(struct entry *e, const struct mhl_hash *hashes,
		       const struct mhl_dir_hash *dirs, size_t n)
{
	bool seen[MHL_FORMAT_COUNT] = {false};
	struct owned_hash tmp[MHL_FORMAT_COUNT];

	if (n == 0 || n > MHL_FORMAT_COUNT)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		enum mhl_hash_format f = hashes ? hashes[i].format : dirs[i].format;
		const char *v = hashes ? hashes[i].value : dirs[i].content;
		struct owned_hash *o = &tmp[f];

		if ((unsigned)f >= MHL_FORMAT_COUNT || seen[f] || !v || !mhl_hash_valid(f, v))
			return -EINVAL;
		if (dirs && (!dirs[i].structure || !mhl_hash_valid(f, dirs[i].structure)))
			return -EINVAL;
		if (hashes && (unsigned)hashes[i].action >= MHL_ACTION_COUNT)
			return -EINVAL;
		seen[f] = true;
		o->format = f;
		o->action = hashes ? hashes[i].action : MHL_ORIGINAL;
		o->date = hashes ? hashes[i].hashdate : dirs[i].hashdate;
		snprintf(o->value, sizeof(o->value), "%s", v);
		mhl_hash_normalize(o->value);
		snprintf(o->structure, sizeof(o->structure), "%s", dirs ? dirs[i].structure : "");
		mhl_hash_normalize(o->structure);
	}
	e->n = 0;
	for (int f = 0; f < MHL_FORMAT_COUNT; f++)
		if (seen[f])
			e->h[e->n++] = tmp[f];
	return 0;
}

static int add_entry(struct mhl_generation *g, struct entry *e)
{
	size_t *slot;
	int r;

	if (!mhl_path_valid(e->path))
		return -EILSEQ;
	if ((g->n_entries + 1) * 2 > g->n_slots && (r = grow_slots(g)) < 0)
		return r;
	slot = slot_of(g, e->path);
	if (*slot)
		return -EEXIST;
	if (GROW(g->entries, g->cap_entries, g->n_entries + 1, 256) < 0)
		return -ENOMEM;
	if (!(e->path = strdup(e->path)))
		return -ENOMEM;
	g->entries[g->n_entries++] = *e;
	*slot = g->n_entries;
	if (!e->directory)
		g->n_files++;
	return 0;
}

int mhl_generation_add_file(struct mhl_generation *g, const struct mhl_file *file)
{
	struct entry e = {.path = (char *)file->path, .size = file->size, .mtime = file->mtime};
	int r;

	if (!file->path)
		return -EINVAL;
	if (!mhl_path_valid(file->path))
		return -EILSEQ;
	if ((r = take_hashes(&e, file->hashes, NULL, file->n_hashes)) < 0)
		return r;
	return add_entry(g, &e);
}

int mhl_generation_add_directory(struct mhl_generation *g, const char *path, time_t mtime,
				 const struct mhl_dir_hash *hashes, size_t n)
{
	struct entry e = {.path = (char *)path, .mtime = mtime, .directory = true};
	int r;

	if (!path)
		return -EINVAL;
	if (!mhl_path_valid(path))
		return -EILSEQ;
	if ((r = take_hashes(&e, NULL, hashes, n)) < 0)
		return r;
	return add_entry(g, &e);
}

int mhl_generation_set_root(struct mhl_generation *g, const struct mhl_dir_hash *hashes, size_t n)
{
	struct entry e = {.directory = true};
	int r;

	if ((r = take_hashes(&e, NULL, hashes, n)) < 0)
		return r;
	g->root = e;
	g->has_root = true;
	return 0;
}

size_t mhl_generation_files(const struct mhl_generation *g)
{
	return g->n_files;
}

/* ------------------------------------------------------------------------ rendering */

#define X(s) ((const xmlChar *)(s))
/* every xmlTextWriter call returns < 0 on failure */
#define TRY(call) \
	do { \
		if ((call) < 0) \
			return -EIO; \
	} while (0)

static int write_date_attr(xmlTextWriterPtr w, const char *name, time_t t)
{
	char date[MHL_DATE_MAX];

	mhl_date_format(t, date);
	TRY(xmlTextWriterWriteAttribute(w, X(name), X(date)));
	return 0;
}

static int write_creator(xmlTextWriterPtr w, const struct mhl_generation *g)
{
	char date[MHL_DATE_MAX];

	mhl_date_format(g->creation_time, date);
	TRY(xmlTextWriterStartElement(w, X("creatorinfo")));
	TRY(xmlTextWriterWriteElement(w, X("creationdate"), X(date)));
	TRY(xmlTextWriterWriteElement(w, X("hostname"), X(g->hostname)));
	TRY(xmlTextWriterStartElement(w, X("tool")));
	TRY(xmlTextWriterWriteAttribute(w, X("version"), X(g->tool_version)));
	TRY(xmlTextWriterWriteString(w, X(g->tool_name)));
	TRY(xmlTextWriterEndElement(w));
	TRY(xmlTextWriterEndElement(w));
	return 0;
}

/* <content> and <structure> of a directory or the root, one element per format each */
static int write_dir_hashes(xmlTextWriterPtr w, const struct entry *e)
{
	static const char *const parts[] = {"content", "structure"};

	for (int p = 0; p < 2; p++) {
		TRY(xmlTextWriterStartElement(w, X(parts[p])));
		for (size_t i = 0; i < e->n; i++) {
			TRY(xmlTextWriterStartElement(w, X(mhl_format_name(e->h[i].format))));
			if (write_date_attr(w, "hashdate", e->h[i].date) < 0)
				return -EIO;
			TRY(xmlTextWriterWriteString(w, X(p ? e->h[i].structure : e->h[i].value)));
			TRY(xmlTextWriterEndElement(w));
		}
		TRY(xmlTextWriterEndElement(w));
	}
	return 0;
}

static int write_process(xmlTextWriterPtr w, const struct mhl_generation *g)
{
	TRY(xmlTextWriterStartElement(w, X("processinfo")));
	TRY(xmlTextWriterWriteElement(w, X("process"), X("transfer")));
	if (g->has_root) {
		TRY(xmlTextWriterStartElement(w, X("roothash")));
		if (write_dir_hashes(w, &g->root) < 0)
			return -EIO;
		TRY(xmlTextWriterEndElement(w));
	}
	TRY(xmlTextWriterStartElement(w, X("ignore")));
	for (size_t i = 0; i < g->n_ignore; i++)
		TRY(xmlTextWriterWriteElement(w, X("pattern"), X(g->ignore[i])));
	TRY(xmlTextWriterEndElement(w));
	TRY(xmlTextWriterEndElement(w));
	return 0;
}

static int write_entry(xmlTextWriterPtr w, const struct entry *e)
{
	char size[24];

	TRY(xmlTextWriterStartElement(w, X(e->directory ? "directoryhash" : "hash")));
	TRY(xmlTextWriterStartElement(w, X("path")));
	if (!e->directory) {
		snprintf(size, sizeof(size), "%llu", (unsigned long long)e->size);
		TRY(xmlTextWriterWriteAttribute(w, X("size"), X(size)));
	}
	if (write_date_attr(w, "lastmodificationdate", e->mtime) < 0)
		return -EIO;
	TRY(xmlTextWriterWriteString(w, X(e->path)));
	TRY(xmlTextWriterEndElement(w));
	if (e->directory) {
		if (write_dir_hashes(w, e) < 0)
			return -EIO;
	} else {
		for (size_t i = 0; i < e->n; i++) {
			TRY(xmlTextWriterStartElement(w, X(mhl_format_name(e->h[i].format))));
			TRY(xmlTextWriterWriteAttribute(w, X("action"), X(mhl_action_name(e->h[i].action))));
			if (write_date_attr(w, "hashdate", e->h[i].date) < 0)
				return -EIO;
			TRY(xmlTextWriterWriteString(w, X(e->h[i].value)));
			TRY(xmlTextWriterEndElement(w));
		}
	}
	TRY(xmlTextWriterEndElement(w));
	return 0;
}

static int write_generation(xmlTextWriterPtr w, const struct mhl_generation *g)
{
	TRY(xmlTextWriterStartDocument(w, "1.0", "UTF-8", NULL));
	/* version first, as the reference writes it (xmlns as an attribute, not through
	 * StartElementNS, which would put it first) */
	TRY(xmlTextWriterStartElement(w, X("hashlist")));
	TRY(xmlTextWriterWriteAttribute(w, X("version"), X("2.0")));
	TRY(xmlTextWriterWriteAttribute(w, X("xmlns"), X(MHL_NAMESPACE)));
	if (write_creator(w, g) < 0 || write_process(w, g) < 0)
		return -EIO;
	/* the schema needs at least one entry in <hashes>; an empty generation has none */
	if (g->n_entries) {
		TRY(xmlTextWriterStartElement(w, X("hashes")));
		/* directories first, as the reference writes them */
		for (int dirs = 1; dirs >= 0; dirs--)
			for (size_t i = 0; i < g->n_entries; i++)
				if (g->entries[i].directory == (bool)dirs && write_entry(w, &g->entries[i]) < 0)
					return -EIO;
		TRY(xmlTextWriterEndElement(w));
	}
	TRY(xmlTextWriterEndDocument(w));
	return 0;
}

static int write_chain(xmlTextWriterPtr w, const struct mhl_chain_link *links, size_t n)
{
	char seq[16];

	TRY(xmlTextWriterStartDocument(w, "1.0", "UTF-8", NULL));
	TRY(xmlTextWriterStartElement(w, X("ascmhldirectory")));
	TRY(xmlTextWriterWriteAttribute(w, X("xmlns"), X(MHL_DIRECTORY_NAMESPACE)));
	for (size_t i = 0; i < n; i++) {
		snprintf(seq, sizeof(seq), "%u", links[i].sequence);
		TRY(xmlTextWriterStartElement(w, X("hashlist")));
		TRY(xmlTextWriterWriteAttribute(w, X("sequencenr"), X(seq)));
		TRY(xmlTextWriterWriteElement(w, X("path"), X(links[i].path)));
		TRY(xmlTextWriterWriteElement(w, X("c4"), X(links[i].c4)));
		TRY(xmlTextWriterEndElement(w));
	}
	TRY(xmlTextWriterEndDocument(w));
	return 0;
}

/* Run one of the writers above into memory and hand the bytes over. */
static int render(int (*fn)(xmlTextWriterPtr, const void *), const void *arg, char **ret_xml,
		  size_t *ret_len)
{
	xmlBufferPtr buf;
	xmlTextWriterPtr w;
	int r = -ENOMEM;

	mhl_xml_init();
	if (!(buf = xmlBufferCreate()))
		return -ENOMEM;
	w = xmlNewTextWriterMemory(buf, 0);
	if (!w)
		goto out;
	if (xmlTextWriterSetIndent(w, 1) < 0 || xmlTextWriterSetIndentString(w, X("  ")) < 0)
		r = -EIO;
	else
		r = fn(w, arg);
	xmlFreeTextWriter(w); /* flushes into buf */
	if (r == 0) {
		size_t len = (size_t)xmlBufferLength(buf);
		char *out = malloc(len + 1);

		if (!out) {
			r = -ENOMEM;
			goto out;
		}
		memcpy(out, xmlBufferContent(buf), len);
		out[len] = '\0';
		*ret_xml = out;
		*ret_len = len;
	}
out:
	xmlBufferFree(buf);
	return r;
}

static int render_generation(xmlTextWriterPtr w, const void *g)
{
	return write_generation(w, g);
}

int mhl_generation_render(const struct mhl_generation *g, char **ret_xml, size_t *ret_len)
{
	return render(render_generation, g, ret_xml, ret_len);
}

struct chain_args {
	const struct mhl_chain_link *links;
	size_t n;
};

static int render_chain(xmlTextWriterPtr w, const void *arg)
{
	const struct chain_args *a = arg;

	return write_chain(w, a->links, a->n);
}

int mhl_chain_render(const struct mhl_chain_link *links, size_t n, char **ret_xml, size_t *ret_len)
{
	struct chain_args a = {links, n};

	if (n == 0) /* the schema wants one <hashlist> at least */
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!links[i].path || !links[i].c4 || links[i].sequence == 0 ||
		    mhl_generation_number(links[i].path) != links[i].sequence ||
		    !mhl_text_valid(links[i].path) || !mhl_hash_valid(MHL_C4, links[i].c4))
			return -EINVAL;
	return render(render_chain, &a, ret_xml, ret_len);
}
