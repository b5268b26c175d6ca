/* dirtystat.h: what dirtystat.c (options, arguments, the watch loop)
 * shares with dirtystat_frame.c (taking a reading) and dirtystat_render.c
 * (table, one-line and JSON output).
 *
 * A frame is everything read at one moment: the system counters, one
 * row per device shown, one row per FILE argument.  Rates compare a row
 * with the same row (same disk and bdi) of the previous frame. */
#ifndef SAFECP_DIRTYSTAT_H
#define SAFECP_DIRTYSTAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <safecp/dirty.h>
#include <safecp/target.h>

#include "common/event.h"

enum arg_kind { ARG_FILE, ARG_DIR };

struct path_arg {
	const char *path;          /* as given */
	enum arg_kind kind;
	struct safecp_target *t;   /* owned */
	int fd;                    /* ARG_FILE: O_PATH descriptor, else -1 */
	bool noted;                /* the cachestat fallback note was printed */
};

/* What a frame is read from: the PATH arguments (none: every device). */
struct sources {
	struct path_arg *args;
	size_t n_args;
	struct safecp_dirty *dirs; /* with arguments: the directory arguments'
				    * devices, fixed at start (a selection) */
	bool all;                  /* -v: every device's row, pending or not */
};

struct dev_row {
	struct safecp_dirty_device dev; /* its strings are the frame's reading's */
	bool have;                 /* figures read (false: no bdi, no disk) */
	struct safecp_dirty_figures fig; /* valid when have */
	double rate;               /* bytes/s; NAN without a previous sample */
	double eta;                /* s; 0 nothing pending, -1 pending at rate 0, NAN unknown */
	bool shown;                /* selected for output (all rows are kept for rates) */
};

struct file_figures {
	int err;                   /* 0, or -errno of cachestat: figures unknown */
	struct safecp_dirty_file fc;
};

struct file_row {
	const char *path;          /* as given */
	char *fstype;
	struct file_figures file;
	/* fuseblk: the data is dirty in the page cache of the block device
	 * node the filesystem is mounted from (doc/kernel.md 3.2, 3.4) */
	char *blockdev;            /* NULL when not fuseblk */
	struct file_figures bdev;
};

struct frame {
	double t_real;             /* CLOCK_REALTIME seconds */
	double t_mono;
	double interval;           /* seconds since the previous frame; NAN for none */
	struct safecp_dirty_system sys;
	struct safecp_dirty *reading; /* owned: holds the rows' strings */
	struct dev_row *rows;
	size_t n_rows;
	struct file_row *files;
	size_t n_files;
};

/* Read a frame; rates and the rows shown depend on prev (NULL for the
 * first).  On failure *ret_what names what could not be read. */
int frame_take(const struct sources *src, const struct frame *prev, struct frame *ret,
	       const char **ret_what);
void frame_done(struct frame *fr);

struct render_opts {
	bool bytes;                /* exact numbers instead of human sizes */
	bool json;
	int width;                 /* terminal columns to clip lines to; 0: no clipping */
	const char *header;        /* tty watch: first line ("Every 1.0s: ..."), or NULL */
	const char *footer;        /* tty watch: notes, newline-terminated lines, or NULL */
};

/* One-shot output and the tty --watch screen: the system lines, the
 * device table, the file table.  Each line ends with "\033[K" when
 * width > 0 (redrawing in place over the previous frame). */
void render_table(FILE *f, const struct frame *fr, const struct render_opts *o);

/* One line per frame for --watch into a pipe or file. */
void render_line(FILE *f, const struct frame *fr, const struct render_opts *o);

/* One "reading" event per frame, on one line. */
void render_json(FILE *f, const struct frame *fr);

/* The error event of common/event.h (--json: errors on stdout too). */
void render_json_error(FILE *f, enum event_subject kind, const char *name, int err,
		       const char *message);

#endif
