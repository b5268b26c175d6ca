/* safecp_dryrun.c: --dry-run: the prepared job as a report on stdout.
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

static const char *strategy_means(enum write_strategy s)
{
	switch (s) {
	case STRATEGY_WINDOW: return "buffered writes with sync_file_range write-behind";
	case STRATEGY_DIRECT: return "O_DIRECT writes, aligned chunks";
	case STRATEGY_SYNC_WINDOW:
		return "fdatasync after each window (into a FUSE daemon on a disk: O_DIRECT writes)";
	case STRATEGY_AUTO: break;
	}
	return "chosen per file";
}

static void print_entry(const struct plan_entry *e)
{
	char size[SIZE_FORMAT_MAX] = "";

	if (e->identical) {
		size_format(size, sizeof(size), (uint64_t)e->source->st.st_size);
		printf("  same     %10s  %s = %s (%s)\n", size, quote(e->source->rel), quote(e->dst),
		       identical_basis_words(e->identical));
		return;
	}
	if (e->skip_existing) {
		printf("  keep     %10s  %s (exists)\n", "", quote(e->dst));
		return;
	}
	switch (e->source->type) {
	case PLAN_FILE:
		size_format(size, sizeof(size), (uint64_t)e->source->st.st_size);
		printf("  file     %10s  %s -> %s%s\n", size, quote(e->source->rel), quote(e->dst),
		       e->dst_exists ? " (replaces the existing file)" : "");
		break;
	case PLAN_DIR:
		printf("  dir      %10s  %s -> %s\n", "", quote(e->source->rel), quote(e->dst));
		break;
	case PLAN_SYMLINK:
		printf("  symlink  %10s  %s -> %s (pointing to %s)\n", "", quote(e->source->rel),
		       quote(e->dst), quote(e->source->link_target ? e->source->link_target : "?"));
		break;
	case PLAN_SKIP:
		printf("  skip     %10s  %s (not a file, directory or symbolic link)\n", "",
		       quote(e->source->rel));
		break;
	}
}

static void print_plan(const struct safecp_options *o, const struct plan *p)
{
	char total[SIZE_FORMAT_MAX];

	size_format(total, sizeof(total), p->total_bytes);
	printf("plan: %zu %s, %zu %s, %zu symbolic %s: %s (%" PRIu64 " bytes)\n",
	       p->n_files, plural(p->n_files, "file", "files"), p->tree->n_dirs,
	       plural(p->tree->n_dirs, "directory", "directories"), p->n_symlinks,
	       plural(p->n_symlinks, "link", "links"), total, p->total_bytes);
	if (p->tree->n_skipped)
		printf("skipped: %zu (devices, FIFOs, sockets)\n", p->tree->n_skipped);
	if (p->n_existing_kept)
		printf("kept: %zu existing %s (--no-clobber)\n", p->n_existing_kept,
		       plural(p->n_existing_kept, "file", "files"));
	if (o->skip_identical) {
		size_format(total, sizeof(total), p->identical_bytes);
		printf("identical: %zu %s, %s (%" PRIu64 " bytes), already there: not copied "
		       "(--skip-identical=%s)\n", p->n_identical, plural(p->n_identical, "file", "files"),
		       total, p->identical_bytes, o->skip_identical);
	}
	printf("into: %s\n", quote(p->dest_root));
	if (p->stale.n) {
		size_format(total, sizeof(total), p->stale.bytes);
		printf("stale: %zu temporary %s of interrupted copies, %s, would be removed\n",
		       p->stale.n, plural(p->stale.n, "file", "files"), total);
	}
	if (o->verbosity < VERBOSITY_VERBOSE)
		return;
	for (size_t i = 0; i < p->stale.n; i++) {
		size_format(total, sizeof(total), p->stale.v[i].bytes);
		printf("  remove   %10s  %s\n", total, quote(p->stale.v[i].path));
	}
	for (size_t i = 0; i < p->n_entries; i++)
		print_entry(&p->entries[i]);
}

static void print_disk(const struct target *t)
{
	const struct disk_facts *d = &t->disk;
	char size[SIZE_FORMAT_MAX];

	size_format(size, sizeof(size), d->size_bytes);
	printf("device: %s (%u:%u)%s%s\n", quote_bare(t->devnode), t->dev_major, t->dev_minor,
	       t->is_partition ? ", a partition of " : "",
	       t->is_partition ? quote_bare(t->diskname) : "");
	/* vendor and model come from the device's own firmware */
	printf("disk: %s (%u:%u), %s, %s%s%s, %s%s\n", quote_bare(t->diskname), t->disk_major,
	       t->disk_minor, transport_name(d->transport), *d->vendor ? quote_bare(d->vendor) : "",
	       *d->vendor ? " " : "", *d->model ? quote_bare(d->model) : "unknown model", size,
	       d->removable ? ", removable" : "");
	printf("queue: max_sectors_kb %u (hardware %u), optimal_io_size %u, minimum_io_size %u, "
	       "nr_requests %u, logical block %u, physical block %u, dma alignment %u\n",
	       d->max_sectors_kb, d->max_hw_sectors_kb, d->optimal_io_size, d->minimum_io_size,
	       d->nr_requests, d->logical_block_size, d->physical_block_size, d->dma_alignment);
	printf("write cache: %s\n", d->write_cache_back
					    ? "write back (flushes reach the device)"
					    : "write through (the kernel sends the device no flushes)");
	printf("dirty accounting: bdi %s\n", *t->bdi ? quote_bare(t->bdi) : "unknown");
}

static void print_target(const struct target *t)
{
	_cleanup_free_ char *where = words_where(t);

	printf("target: %s\n", where ? where : quote(t->path));
	if (t->label || t->uuid)
		printf("volume: label %s, uuid %s\n", quote(t->label ? t->label : ""),
		       t->uuid ? quote_bare(t->uuid) : "unknown");
	if (t->has_block)
		print_disk(t);
	else
		printf("device: none (not a block device: nothing to remove)\n");
}

static void print_dio(const struct dio_caps *d)
{
	if (!d->known)
		printf("direct I/O: unknown here (the writer asks each file)\n");
	else if (d->offset_align == 0)
		printf("direct I/O: not supported\n");
	else
		printf("direct I/O: memory alignment %u, offset alignment %u\n", d->mem_align,
		       d->offset_align);
}

static void print_strategy(const struct write_plan *w)
{
	char win[SIZE_FORMAT_MAX], lo[SIZE_FORMAT_MAX], hi[SIZE_FORMAT_MAX], chunk[SIZE_FORMAT_MAX];

	size_format(win, sizeof(win), w->window);
	size_format(lo, sizeof(lo), w->window_min);
	size_format(hi, sizeof(hi), w->window_max);
	size_format(chunk, sizeof(chunk), w->chunk);
	printf("strategy: %s (%s)\n", strategy_name(w->strategy), strategy_means(w->strategy));
	printf("why: %s\n", words_sizing_reason(w->reason));
	printf("window: %s (adapts to the device rate between %s and %s)\n", win, lo, hi);
	printf("chunk: %s, %u read buffers%s\n", chunk, w->ring_slots,
	       w->offset_align ? ", O_DIRECT aligned" : "");
}

static void print_space(const struct copy_prepared *job)
{
	char need[SIZE_FORMAT_MAX], have[SIZE_FORMAT_MAX], cl[SIZE_FORMAT_MAX];
	const struct fs_space *s = &job->space;

	size_format(need, sizeof(need), job->space_needed);
	size_format(have, sizeof(have), s->avail_bytes);
	size_format(cl, sizeof(cl), s->cluster);
	printf("space: need %s, %s free (allocation unit %s): %s\n", need, have, cl,
	       job->space_needed <= s->avail_bytes ? "fits" : "does not fit");
	/* only worth a line where the limit bites: FAT32's 4 GiB - 1 */
	if (s->max_file_size && s->max_file_size < (1ULL << 40))
		printf("largest file: %" PRIu64 " bytes on this filesystem\n", s->max_file_size);
	if (!s->stores_modes)
		printf("attributes: this filesystem stores no owners or modes; timestamps only\n");
	if (!s->stores_symlinks && job->plan->n_symlinks)
		printf("symbolic links: this filesystem cannot store them; %zu would fail "
		       "(-L copies what they point to)\n", job->plan->n_symlinks);
}

/* --rename-invalid: each name given, whatever the verbosity: they are
 * what the user will find on the stick. */
static void print_renames(const struct copy_prepared *job)
{
	const struct plan_names *n = &job->names;

	if (n->n_renames)
		printf("renamed: %zu %s (--rename-invalid)\n", n->n_renames,
		       plural(n->n_renames, "name", "names"));
	for (size_t i = 0; i < n->n_renames; i++) {
		_cleanup_free_ char *msg = words_rename(job->plan, &n->renames[i], job->target);

		printf("  rename   %10s  %s\n", "", msg ? msg : job->plan->entries[n->renames[i].entry].dst);
	}
}

void dryrun_print(const struct safecp_options *o, const struct copy_prepared *job)
{
	print_plan(o, job->plan);
	print_renames(job);
	print_target(job->target);
	print_dio(&job->dio);
	print_strategy(&job->wplan);
	print_space(job);
	printf("result: %s\n", job->refusal.kind == PLAN_OK && !job->names.n_problems
					? "would copy (dry run: nothing written)"
					: "refused (dry run: nothing written)");
}
