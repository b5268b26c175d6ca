/* mhl_dirhash.h: a folder's content and structure hashes, as the reference ascmhl's
 * create computes them for <directoryhash> and <roothash>.
 *
 * For one folder and one format, with each child (file or folder, ignored ones left
 * out) added once:
 *   content   = H(bytes of the children's content hashes, in sorted string order)
 *   structure = H(bytes of each child's H(name bytes + bytes of its hash), sorted)
 * where a file child's hash is its content hash and a folder child's is its structure
 * hash; "bytes of a hash" is the digest the string stands for (hex decoded; a C4 ID's
 * base58 decoded to the 64 bytes of its SHA-512). An empty folder has the hashes of no
 * bytes. Folders are summed children first (a post-order walk), so a parent adds each
 * sub-folder's finished pair.
 *
 * This part owns no hash function: the caller passes one that hashes bytes in a format
 * and writes the format's string (lib/hash's, in safecp). */
#ifndef SAFECP_MHL_DIRHASH_H
#define SAFECP_MHL_DIRHASH_H

#include <stddef.h>

#include "mhl/mhl_format.h"

/* out: the hash string of len bytes of data in format f; 0 or -errno. */
typedef int (*mhl_digest_fn)(enum mhl_hash_format f, const void *data, size_t len,
			     char out[MHL_HASH_MAX + 1], void *arg);

struct mhl_dirhash;

int mhl_dirhash_new(enum mhl_hash_format f, mhl_digest_fn digest, void *arg,
		    struct mhl_dirhash **ret);
void mhl_dirhash_free(struct mhl_dirhash *d);
/* name: the child's own name (no '/'). -EINVAL: a hash string not of the format. */
int mhl_dirhash_add_file(struct mhl_dirhash *d, const char *name, const char *content);
int mhl_dirhash_add_folder(struct mhl_dirhash *d, const char *name, const char *content,
			   const char *structure);
/* The folder's pair; the children stay, so it can be asked again. */
int mhl_dirhash_result(struct mhl_dirhash *d, char content[MHL_HASH_MAX + 1],
		       char structure[MHL_HASH_MAX + 1]);

/* The digest bytes a hash string of format f stands for; their number, or -EINVAL. */
int mhl_hash_bytes(enum mhl_hash_format f, const char *s, unsigned char out[64]);

#endif
