/* safecp_dryrun.c: --dry-run: the prepared copy as a report on stdout,
 * read through <safecp/copy_plan.h> and <safecp/target.h>.
 *
 * What would be copied (counts and bytes; each entry with -v), where it
 * would go and what that is (mount, device, disk, queue limits, write
 * cache), how it would be written (strategy, the reason, window and chunk
 * sizes) and whether it fits.  One "key: value" line per fact, so a
 * script can grep it; the refusal itself goes to stderr from main().
 * Nothing here opens a destination file for writing. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/cleanup.h"
#include "common/quote.h"
#include "safecp/tool.h"
#include "base/size.h"

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static const char *strategy_means(enum safecp_strategy s)
{
	switch (s) {
	case SAFECP_STRATEGY_WINDOW: return "buffered writes with sync_file_range write-behind";
	case SAFECP_STRATEGY_DIRECT: return "O_DIRECT writes, aligned chunks";
	case SAFECP_STRATEGY_SYNC_WINDOW:
		return "fdatasync after each window (into a FUSE daemon on a disk: O_DIRECT writes)";
	case SAFECP_STRATEGY_AUTO: break;
	}
	return "chosen per file";
}

static void print_entry(const struct safecp_entry *e)
{
	char size[SIZE_FORMAT_MAX] = "";

	if (e->identical) {
		size_format(size, sizeof(size), e->size);
		printf("  same     %10s  %s = %s (%s)\n", size, quote(e->rel), quote(e->dest),
		       identical_basis_words(e->identical));
		return;
	}
	if (e->kept) {
		printf("  keep     %10s  %s (exists)\n", "", quote(e->dest));
		return;
	}
	switch (e->type) {
	case SAFECP_ENTRY_FILE:
		size_format(size, sizeof(size), e->size);
		printf("  file     %10s  %s -> %s%s\n", size, quote(e->rel), quote(e->dest),
		       e->dest_exists ? " (replaces the existing file)" : "");
		break;
	case SAFECP_ENTRY_DIR:
		printf("  dir      %10s  %s -> %s\n", "", quote(e->rel), quote(e->dest));
		break;
	case SAFECP_ENTRY_SYMLINK:
		printf("  symlink  %10s  %s -> %s (pointing to %s)\n", "", quote(e->rel),
		       quote(e->dest), quote(e->link_target ? e->link_target : "?"));
		break;
	case SAFECP_ENTRY_OTHER:
		printf("  skip     %10s  %s (not a file, directory or symbolic link)\n", "",
		       quote(e->rel));
		break;
	}
}

static void print_plan(const struct safecp_options *o, size_t d, const struct safecp_copy_plan *p)
{
	char total[SIZE_FORMAT_MAX];
	struct safecp_entry e;
	const char *path;
	uint64_t bytes;

	size_format(total, sizeof(total), p->bytes);
	printf("plan: %" PRIu64 " %s, %" PRIu64 " %s, %" PRIu64 " symbolic %s: %s (%" PRIu64
	       " bytes)\n", p->files, plural(p->files, "file", "files"), p->dirs,
	       plural(p->dirs, "directory", "directories"), p->symlinks,
	       plural(p->symlinks, "link", "links"), total, p->bytes);
	if (p->skipped)
		printf("skipped: %" PRIu64 " (devices, FIFOs, sockets)\n", p->skipped);
	if (p->kept)
		printf("kept: %" PRIu64 " existing %s (%s)\n", p->kept,
		       plural(p->kept, "file", "files"),
		       o->no_clobber ? "--no-clobber"
		       : o->update && o->interactive ? "--update: not older, or answered no"
		       : o->update ? "--update: not older than the source" : "answered no");
	if (o->skip_identical) {
		size_format(total, sizeof(total), p->identical_bytes);
		printf("identical: %" PRIu64 " %s, %s (%" PRIu64 " bytes), already there: not "
		       "copied (--skip-identical=%s)\n", p->identical,
		       plural(p->identical, "file", "files"), total, p->identical_bytes,
		       o->skip_identical);
	}
	printf("into: %s\n", quote(p->dest_root));
	if (p->stale) {
		size_format(total, sizeof(total), p->stale_bytes);
		printf("stale: %" PRIu64 " temporary %s of interrupted copies, %s, would be removed\n",
		       p->stale, plural(p->stale, "file", "files"), total);
	}
	if (o->verbosity < VERBOSITY_VERBOSE)
		return;
	for (size_t i = 0; safecp_copy_stale(o->copy, d, i, &path, &bytes) == 0; i++) {
		size_format(total, sizeof(total), bytes);
		printf("  remove   %10s  %s\n", total, quote(path));
	}
	for (size_t i = 0; safecp_copy_entry(o->copy, d, i, &e, sizeof(e)) == 0; i++)
		print_entry(&e);
}

static void print_disk(const struct safecp_target_facts *t)
{
	char size[SIZE_FORMAT_MAX];

	size_format(size, sizeof(size), t->disk_size);
	printf("device: %s (%u:%u)%s%s\n", quote_bare(t->device), t->dev_major, t->dev_minor,
	       t->partition ? ", a partition of " : "", t->partition ? quote_bare(t->disk) : "");
	/* vendor and model come from the device's own firmware */
	printf("disk: %s (%u:%u), %s, %s%s%s, %s%s\n", quote_bare(t->disk), t->disk_major,
	       t->disk_minor, t->transport, *t->vendor ? quote_bare(t->vendor) : "",
	       *t->vendor ? " " : "", *t->model ? quote_bare(t->model) : "unknown model", size,
	       t->removable ? ", removable" : "");
	printf("queue: max_sectors_kb %u (hardware %u), optimal_io_size %u, minimum_io_size %u, "
	       "nr_requests %u, logical block %u, physical block %u, dma alignment %u\n",
	       t->max_sectors_kb, t->max_hw_sectors_kb, t->optimal_io_size, t->minimum_io_size,
	       t->nr_requests, t->logical_block_size, t->physical_block_size, t->dma_alignment);
	printf("write cache: %s\n", t->write_cache
					    ? "write back (flushes reach the device)"
					    : "write through (the kernel sends the device no flushes)");
	printf("dirty accounting: bdi %s\n", *t->bdi ? quote_bare(t->bdi) : "unknown");
}

static void print_target(const struct safecp_target_facts *t)
{
	_cleanup_free_ char *where = words_where(t);

	printf("target: %s\n", where ? where : quote(t->path));
	if (t->label || t->uuid)
		printf("volume: label %s, uuid %s\n", quote(t->label ? t->label : ""),
		       t->uuid ? quote_bare(t->uuid) : "unknown");
	if (t->block)
		print_disk(t);
	else
		printf("device: none (not a block device: nothing to remove)\n");
}

static void print_strategy(const struct safecp_write_plan *w)
{
	char win[SIZE_FORMAT_MAX], lo[SIZE_FORMAT_MAX], hi[SIZE_FORMAT_MAX], chunk[SIZE_FORMAT_MAX];

	if (!w->dio_known)
		printf("direct I/O: unknown here (the writer asks each file)\n");
	else if (w->dio_offset_align == 0)
		printf("direct I/O: not supported\n");
	else
		printf("direct I/O: memory alignment %u, offset alignment %u\n", w->dio_mem_align,
		       w->dio_offset_align);
	size_format(win, sizeof(win), w->window);
	size_format(lo, sizeof(lo), w->window_min);
	size_format(hi, sizeof(hi), w->window_max);
	size_format(chunk, sizeof(chunk), w->chunk);
	printf("strategy: %s (%s)\n", safecp_strategy_name(w->strategy),
	       strategy_means(w->strategy));
	printf("why: %s\n", words_sizing_reason(w->reason));
	printf("window: %s (adapts to the device rate between %s and %s)\n", win, lo, hi);
	printf("chunk: %s, %u read buffers%s\n", chunk, w->read_buffers,
	       w->direct_aligned ? ", O_DIRECT aligned" : "");
}

static void print_space(const struct safecp_copy_plan *p)
{
	char need[SIZE_FORMAT_MAX], have[SIZE_FORMAT_MAX], cl[SIZE_FORMAT_MAX];

	size_format(need, sizeof(need), p->space_needed);
	size_format(have, sizeof(have), p->space_free);
	size_format(cl, sizeof(cl), p->cluster);
	printf("space: need %s, %s free (allocation unit %s): %s\n", need, have, cl,
	       p->space_needed <= p->space_free ? "fits" : "does not fit");
	/* only worth a line where the limit bites: FAT32's 4 GiB - 1 */
	if (p->max_file_size && p->max_file_size < (1ULL << 40))
		printf("largest file: %" PRIu64 " bytes on this filesystem\n", p->max_file_size);
	if (!p->stores_modes)
		printf("attributes: this filesystem stores no owners or modes; timestamps only\n");
	if (!p->stores_symlinks && p->symlinks)
		printf("symbolic links: this filesystem cannot store them; %" PRIu64 " would fail "
		       "(-L copies what they point to)\n", p->symlinks);
}

/* --rename-invalid: each name given, whatever the verbosity: they are
 * what the user will find on the stick. */
static void print_renames(const struct safecp_options *o, size_t d,
			  const struct safecp_copy_plan *p, const struct safecp_target_facts *t)
{
	struct safecp_rename r;
	struct safecp_entry e;

	if (p->renames)
		printf("renamed: %" PRIu64 " %s (--rename-invalid)\n", p->renames,
		       plural(p->renames, "name", "names"));
	for (size_t i = 0; safecp_copy_rename(o->copy, d, i, &r, sizeof(r)) == 0; i++) {
		_cleanup_free_ char *msg = words_rename(o->copy, d, &r, t);
		bool named = msg || safecp_copy_entry(o->copy, d, r.entry, &e, sizeof(e)) == 0;

		if (named)
			printf("  rename   %10s  %s\n", "", msg ? msg : e.dest);
	}
}

/* Destination d refused (a name, space): a refusal of it among all. */
static bool refused(const struct safecp_options *o, size_t d)
{
	struct refusal r;

	for (size_t i = 0; refusal_get(o, i, &r) == 0; i++)
		if (r.dest == d)
			return true;
	return false;
}

void dryrun_print(const struct safecp_options *o, size_t d)
{
	const struct safecp_target *target = safecp_copy_target(o->copy, d);
	struct safecp_target_facts t = { 0 };
	struct safecp_copy_plan p;
	struct safecp_write_plan w;

	if (safecp_copy_plan(o->copy, d, &p, sizeof(p)) < 0 ||
	    safecp_copy_write_plan(o->copy, d, &w, sizeof(w)) < 0 || !target ||
	    safecp_target_facts(target, &t, sizeof(t)) < 0)
		return;
	print_plan(o, d, &p);
	print_renames(o, d, &p, &t);
	print_target(&t);
	print_strategy(&w);
	print_space(&p);
	printf("result: %s\n", refused(o, d) ? "refused (dry run: nothing written)"
					     : "would copy (dry run: nothing written)");
}
