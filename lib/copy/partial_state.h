/* partial_state.h: which resumable partials this machine wrote.
 *
 * A stick can carry a partial and a record of any owner and any content
 * (partial_record.h): that a file is named like ours and owned by this
 * user proves nothing about where it came from.  So each partial this
 * machine starts is also written down here, locally, by what identifies
 * it on the stick: the filesystem (its UUID, else the fsid statfs
 * gives), the partial's inode and its generation or birth time (where
 * the filesystem keeps one), the XXH3 of its record's header (which
 * holds a random nonce, the source's identity and the chunk size), and
 * the PID writing it.  A partial is resumed only when its entry is here;
 * one whose PID is alive (not this process) is another copy's, running
 * now, and is left alone.
 *
 * One file, "partials", in the state directory: $XDG_STATE_HOME/safecp
 * when XDG_STATE_HOME is set, else /var/lib/safecp for root and
 * ~/.local/state/safecp for anyone else (made 0700).  Each change takes
 * an exclusive lock on "partials.lock" beside it, reads the file (at most
 * PARTIAL_STATE_MAX bytes), and replaces it (write, fsync, rename); the
 * oldest entries go beyond PARTIAL_STATE_ENTRIES. */
#ifndef SAFECP_PARTIAL_STATE_H
#define SAFECP_PARTIAL_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define PARTIAL_STATE_ENTRIES 4096
#define PARTIAL_STATE_MAX (PARTIAL_STATE_ENTRIES * 160)

/* What identifies a partial on its filesystem. */
struct partial_key {
	char fs[80];      /* the filesystem: "uuid:..." or "fsid:...", "-" when unknown */
	uint64_t ino;
	char stamp[40];   /* "gen:N", "btime:S.N", or "-" where the fs keeps neither */
	uint64_t header;  /* XXH3 of the record's header */
};

/* The key of the partial open on fd, whose filesystem's UUID is uuid
 * (NULL: unknown), for a record whose header is header_hash; without
 * stable_ino (FUSE, whose inode numbers change with each mount) neither
 * its inode nor its stamp. */
void partial_key_of(int fd, const char *uuid, uint64_t header_hash, bool stable_ino,
		    struct partial_key *ret);

/* Where the state lives, in buf (size bytes); false when no directory
 * can be named (no HOME). */
bool partial_state_dir(char *buf, size_t size);

/* Add (or update) k as written by this process.  0 or -errno. */
int partial_state_add(const char *dir, const struct partial_key *k);

/* Drop k.  0 (also when it was not there) or -errno. */
int partial_state_remove(const char *dir, const struct partial_key *k);

/* Is k here?  1 with *pid its writer, 0 when not, or -errno. */
int partial_state_find(const char *dir, const struct partial_key *k, pid_t *pid);

#endif
