/* copy_events.h: what a copy job tells its caller, as records in one
 * queue (util/event_queue.h) that the caller polls: copy_job_poll().
 *
 * The destinations' threads put events in and go on; they never call
 * into the caller.  Events of one destination come in the order they
 * happened; COPY_EVENT_DEST_END is a destination's last. */
#ifndef SAFECP_COPY_EVENTS_H
#define SAFECP_COPY_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash/checksum.h"
#include "io/sizing.h"
#include "util/event_queue.h"

enum copy_step {
	COPY_STEP_READ,     /* source: that file is skipped, the copy goes on */
	COPY_STEP_CREATE,
	COPY_STEP_WRITE,
	COPY_STEP_SYNC,
	COPY_STEP_RENAME,
	COPY_STEP_ATTRS,    /* timestamps/mode: a note, not a failure */
	COPY_STEP_FINAL_SYNC,
	COPY_STEP_CHANGED,  /* the source is not what the plan saw, or changed
			     * while it was read: not published, the copy goes on */
	COPY_STEP_VERIFY,   /* --verify: read back different (err EBADMSG) or
			     * unreadable: not published, the copy goes on */
	COPY_STEP_SOURCE_VERIFY, /* verify_source: the source read again gave
				  * other bytes: not published, the copy goes on */
	COPY_STEP_NAME_CLASH, /* err EEXIST: a name the plan saw free is taken
			       * when the file is to be named: path is the file
			       * there (the destination itself: it appeared
			       * during the copy; another name: the filesystem
			       * counts the two as one, e.g. an exFAT volume's
			       * own up-case table) or NULL (not found); not
			       * published, nothing replaced, the copy goes on */
	COPY_STEP_BACKUP,   /* --backup: the file to be replaced could not get its
			     * backup name: not published, nothing replaced,
			     * the copy goes on */
	COPY_STEP_LINK,     /* --preserve=links: a further name of a file whose first
			     * name (path) was not copied: not made either */
};

/* Why an entry is not copied (cmd/ words it). */
enum copy_skip_reason {
	COPY_SKIP_KEPT,      /* -n: it exists at the destination */
	COPY_SKIP_IDENTICAL, /* the destination holds it already (plan_entry.identical) */
	COPY_SKIP_APPEARED,  /* -n: it appeared at the destination during the copy */
	COPY_SKIP_FIFO,
	COPY_SKIP_SOCKET,
	COPY_SKIP_DEVICE,
	COPY_SKIP_OTHER,     /* not a regular file, directory or symbolic link */
};

/* Something the user should know that is not a failure. */
enum copy_note_kind {
	COPY_NOTE_STALE_REMOVED, /* path: a dead copy's temporary, bytes freed */
	COPY_NOTE_STALE_KEPT,    /* path: could not be removed (err), bytes it holds */
	COPY_NOTE_NO_MODES,      /* path: the filesystem stores no file modes */
	COPY_NOTE_VERIFY_CACHED, /* path (dest root): a read-back could not bypass
				  * the page cache (once per destination) */
	COPY_NOTE_PARTIAL_KEPT,  /* entry, path (its destination), bytes: the copy
				  * stopped in it; its partial keeps that much for
				  * the next run (resume.h) */
	COPY_NOTE_META_NOT_KEPT, /* path, count: META_* (meta_attrs.h) asked that the
				  * filesystem refused as such, once each */
};

enum copy_event_kind {
	COPY_EVENT_FILE_START,     /* entry: its copy begins */
	COPY_EVENT_FILE_DONE,      /* entry: durable under its final name */
	COPY_EVENT_FILE_WITHDRAWN, /* entry: --verify, a file named earlier read back
				    * different at the end (a later write landed on
				    * it): it was removed from its name */
	COPY_EVENT_SKIPPED,        /* entry, skip */
	COPY_EVENT_ERROR,          /* entry, step, err, path (may be NULL), fatal: the
				    * copy stops; else that entry (a directory: its
				    * subtree) is not copied and the rest goes on */
	COPY_EVENT_NOTE,           /* note, path, err, bytes */
	COPY_EVENT_STRATEGY,       /* entry, strategy, switch: the writer changed
				    * strategy in the middle of that file */
	COPY_EVENT_LIST_WRITTEN,   /* path, alg, count: a checksum list */
	COPY_EVENT_LIST_FAILED,    /* path, err: the copy stands, the list does not */
	COPY_EVENT_LIST_LEFT_OUT,  /* path (the list), name (the file), alg: a name the
				    * list's format cannot hold */
	COPY_EVENT_LIST_UNKNOWN,   /* path, count: files left alone as identical whose
				    * digest nobody has (not read, not in the last list) */
	COPY_EVENT_MANIFEST_WRITTEN, /* path, sequence, count, unlisted: ASC MHL */
	COPY_EVENT_MANIFEST_FAILED,  /* path, err */
	COPY_EVENT_DEST_END,       /* this destination's thread is done: its result
				    * is in copy_job_finished() */
};

struct copy_event {
	enum copy_event_kind kind;
	size_t dest;          /* the destination it is about (lists written after
			       * the copy: 0) */
	size_t entry;         /* a plan entry, where the kind has one */
	enum copy_step step;
	enum copy_skip_reason skip;
	enum copy_note_kind note;
	enum write_strategy strategy;
	enum writer_switch_reason why;
	enum checksum_alg alg;
	int err;              /* an errno value, positive; 0: none */
	bool fatal;
	uint64_t bytes;
	uint64_t count;
	unsigned sequence;
	uint64_t unlisted;
	char *path;           /* owned by the event: copy_event_done() */
	char *name;
};

/* Put a copy of ev in q, its strings duplicated (a string that takes no
 * memory goes as NULL; an event that takes none is lost: the job's
 * counters still say what happened). */
void copy_events_emit(struct event_queue *q, const struct copy_event *ev);

/* Free what a polled event owns. */
void copy_event_done(struct copy_event *ev);

#endif
