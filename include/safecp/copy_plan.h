/* safecp/copy_plan.h: what a prepared copy will do, destination by
 * destination, for a caller that shows it before or while it runs (safecp's
 * --dry-run and -v lines): the plan's figures, each entry, the temporaries
 * of interrupted copies it removes first, the names --rename-invalid gives,
 * the destination's target and how its bytes are written.
 *
 *	safecp_copy_prepare(c);
 *	struct safecp_copy_plan p;
 *	if (safecp_copy_plan(c, 0, &p, sizeof(p)) == 0)
 *		for (size_t i = 0; i < p.entries; i++)
 *			safecp_copy_entry(c, 0, i, &e, sizeof(e)) ... e.dest
 *
 * Everything here is readable from prepare until free; strings are the
 * copy's, valid until free, but for safecp_copy_entry()'s (below).  The structures are filled up to size bytes (pass sizeof): a
 * later version appends fields, and a program built against this header
 * still gets the ones it knows. */
#ifndef SAFECP_COPY_PLAN_API_H
#define SAFECP_COPY_PLAN_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <safecp/copy.h>
#include <safecp/target.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Which disk a destination is on (a destination on the system's disk
 * or on none is refused unless SAFECP_COPY_SYSTEM_DISK). */
enum safecp_place {
	SAFECP_PLACE_REMOVABLE = 0, /* removable, or on USB, MMC, FireWire, Thunderbolt */
	SAFECP_PLACE_LOOP,          /* a loop device: an image attached on purpose */
	SAFECP_PLACE_FIXED,         /* a disk of its own, neither removable nor the system's */
	SAFECP_PLACE_SYSTEM,        /* the disk the system runs from, or a system mount */
	SAFECP_PLACE_NO_DISK,       /* memory (tmpfs) or a network */
};

struct safecp_copy_plan {
	const char *dest_dir;     /* the directory the top entries go into */
	const char *dest_root;    /* the directory written below (synced at the end) */
	size_t entries;           /* safecp_copy_entry()'s count */
	uint64_t bytes;           /* file bytes to write */
	uint64_t files, dirs, symlinks;
	uint64_t skipped;         /* devices, FIFOs, sockets: not copied */
	uint64_t kept;            /* NO_CLOBBER: existing files and links left alone */
	uint64_t identical, identical_bytes; /* left alone as identical */
	uint64_t stale, stale_bytes; /* temporaries of interrupted copies, removed first */
	uint64_t renames;         /* RENAME_INVALID: names given (safecp_copy_rename()) */
	uint64_t space_needed;    /* bytes the destination must have free */
	uint64_t space_free;      /* UINT64_MAX: the filesystem reports no size */
	uint64_t cluster;         /* its allocation unit */
	uint64_t max_file_size;   /* the largest file it holds */
	bool stores_modes;        /* owners and modes (FAT, exFAT, NTFS through FUSE: no) */
	bool stores_symlinks;
	enum safecp_place place;
	/* SAFECP_PLACE_SYSTEM: "root" ("/" itself), "system-mount" (/usr,
	 * /boot, ...), "root-disk" (on the disk that holds "/"), "swap" */
	const char *system_what;
	/* the files' sizes, holes included (bytes: what is written, which is
	 * their data where the destination keeps holes) */
	uint64_t bytes_apparent;
	bool holes;               /* files get the source's holes (--sparse) */
};
/* 0, or -ENOENT before prepare or past the destinations prepared. */
int safecp_copy_plan(const struct safecp_copy *c, size_t d, struct safecp_copy_plan *ret,
		     size_t size);

enum safecp_entry_type {
	SAFECP_ENTRY_FILE = 0,
	SAFECP_ENTRY_DIR,
	SAFECP_ENTRY_SYMLINK,
	SAFECP_ENTRY_OTHER,       /* a device, FIFO or socket: not copied */
};

/* Why a file is left alone as identical (SKIP_IDENTICAL). */
enum safecp_identical_basis {
	SAFECP_IDENTICAL_NO = 0,
	SAFECP_IDENTICAL_SIZE_MTIME, /* the same size and modification time */
	SAFECP_IDENTICAL_MANIFEST,   /* the ASC MHL history's checksum */
	SAFECP_IDENTICAL_LIST,       /* a checksum list of a run before */
	SAFECP_IDENTICAL_CONTENT,    /* both copies read and compared */
};
/* "size-mtime", "manifest", "list", "content"; NULL for another value. */
const char *safecp_identical_basis_name(enum safecp_identical_basis b);

struct safecp_entry {
	const char *source;       /* the source path */
	const char *rel;          /* its path from its operand's parent (lists' names) */
	const char *dest;         /* its destination path */
	const char *link_target;  /* a symbolic link's target, else NULL */
	enum safecp_entry_type type;
	uint64_t size;            /* the source's bytes */
	uint32_t mode;            /* the source's st_mode */
	bool dest_exists;         /* something is at dest already */
	bool kept;                /* it is left alone: NO_CLOBBER, or identical */
	enum safecp_identical_basis identical;
	/* identical and read back from the device this run, equal to the
	 * source; cached: the page cache could not be bypassed */
	bool read_back, read_back_cached;
	/* (0.5.0) its copy gets the source's holes (the source has some, and
	 * this destination keeps them: safecp_copy_set_sparse()) */
	bool holes;
};
/* Entry i of destination d (the same sources in the same order on every
 * destination): 0, or -ENOENT.  Its strings (source, rel, dest) are built
 * from the names the copy keeps and are valid until the next
 * safecp_copy_entry() on the same copy (since 0.4.0: a million entries
 * keep no paths); copy what you keep. */
int safecp_copy_entry(const struct safecp_copy *c, size_t d, size_t i, struct safecp_entry *ret,
		      size_t size);

/* Temporary i of an interrupted copy that the copy removes first: its
 * path and the bytes removing it frees.  0, or -ENOENT. */
int safecp_copy_stale(const struct safecp_copy *c, size_t d, size_t i, const char **path,
		      uint64_t *bytes);

/* RENAME_INVALID: name i given, filled up to size.  0, or -ENOENT. */
struct safecp_rename {
	size_t entry;             /* the entry, whose dest is the new name */
	const char *old_dest;     /* the destination path it would have had */
	const char *why;          /* "character", "reserved", "trailing", "too-long",
				   * "encoding", "clash", ... */
	unsigned char ch;         /* "character": the first refused byte */
};
int safecp_copy_rename(const struct safecp_copy *c, size_t d, size_t i,
		       struct safecp_rename *ret, size_t size);

/* Destination d's target, as safecp_target_probe() answers: the copy's,
 * valid until safecp_copy_free() (never safecp_target_free() it); NULL
 * before prepare or past the destinations prepared. */
const struct safecp_target *safecp_copy_target(const struct safecp_copy *c, size_t d);

/* Why the strategy was chosen, or refused (SAFECP_REFUSED_STRATEGY). */
enum safecp_strategy_reason {
	SAFECP_REASON_NONE = 0,
	SAFECP_REASON_FUSE_DAEMON,       /* FUSE: only fdatasync bounds the daemon's data */
	SAFECP_REASON_DIRECT_SUPPORTED,  /* the filesystem takes O_DIRECT */
	SAFECP_REASON_DIRECT_REFUSED,    /* it refuses O_DIRECT: windows */
	SAFECP_REASON_DIRECT_WOULD_FALL_BACK, /* O_DIRECT would fall back unseen: windows */
	SAFECP_REASON_ASKED_DIRECT_REFUSED, /* direct asked, and it cannot work */
	SAFECP_REASON_ASKED_DIRECT_OK,   /* direct asked; supported */
	SAFECP_REASON_ASKED_DIRECT_UNKNOWN, /* direct asked; the writer checks as it goes */
	SAFECP_REASON_ASKED_WINDOW_FUSE, /* window asked on FUSE: it switches if data piles up */
	SAFECP_REASON_ASKED,             /* asked for */
	SAFECP_REASON_FUSE_NOOP_FSYNC,   /* FUSE whose fsync may write nothing: a device
					  * sync per window too */
};

struct safecp_write_plan {
	enum safecp_strategy strategy;
	enum safecp_strategy_reason reason;
	uint64_t window;          /* bytes a window holds */
	uint64_t window_min, window_max; /* it adapts to the device's rate between */
	uint64_t chunk;           /* bytes a read or write moves */
	unsigned read_buffers;    /* of chunk bytes */
	bool direct_aligned;      /* the chunks are O_DIRECT aligned */
	/* what the filesystem said of O_DIRECT (statx): known false, the
	 * writer asks each file; offset_align 0, unsupported */
	bool dio_known;
	uint32_t dio_mem_align, dio_offset_align;
};
/* 0, or -ENOENT. */
int safecp_copy_write_plan(const struct safecp_copy *c, size_t d, struct safecp_write_plan *ret,
			   size_t size);

#ifdef __cplusplus
}
#endif

#endif
