/* mhl_write.h: one ASC MHL v2 generation, and the chain file, built in memory.
 *
 * A generation is collected entry by entry (mhl_generation_add_file() as each file is
 * confirmed) and rendered at the end, because the schema puts <processinfo> (with its
 * optional root hash) before <hashes>. The XML is made by libxml2's xmlTextWriter,
 * never by hand, so every name is escaped as XML requires; the bytes go to the caller,
 * which writes them through the safe writer like any file (temporary, durable, named).
 *
 * What is written, in the schema's order:
 *   <hashlist version="2.0" xmlns="urn:ASC:MHL:v2.0">
 *     <creatorinfo> creationdate, hostname, <tool version=...>name</tool> </creatorinfo>
 *     <processinfo> <process>transfer</process>, <roothash> when the caller gave one,
 *       <ignore> the reference's defaults (.DS_Store, ascmhl, ascmhl/) then the caller's
 *       patterns, each once </ignore> </processinfo>
 *     <hashes> the <directoryhash> entries the caller gave, then one <hash> per file:
 *       <path size= lastmodificationdate=>rel/path</path> and one element per format, in
 *       the schema's order, with action= and hashdate= </hashes>
 *   </hashlist>
 * Author, location and comment (optional in the schema) are not written.
 *
 * Directory hashes: the reference's create writes a <directoryhash> per folder and a
 * <roothash>, each with a content and a structure hash per format, computed from the
 * files' hashes. mhl_dirhash.h computes them with a digest function the caller passes
 * (this part owns no hash function); the caller adds them with
 * mhl_generation_add_directory() and mhl_generation_set_root(). Without them only files
 * are listed, which the schema allows and the reference's verify accepts (it does not
 * look for directories). But the reference's folder-hash verification (verify -dh)
 * reads every generation's <roothash> without checking it is there and fails on a
 * generation without one: where the reference's tools will read the history, set the
 * root. */
#ifndef SAFECP_MHL_WRITE_H
#define SAFECP_MHL_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "mhl/mhl_format.h"

struct mhl_generation;

/* One hash of a file. value: the hash string as the format writes it (lower-case hex;
 * a C4 ID). */
struct mhl_hash {
	enum mhl_hash_format format;
	const char *value;
	enum mhl_action action;
	time_t hashdate;
};

struct mhl_file {
	const char *path; /* relative to the root (the destination directory) */
	uint64_t size;
	time_t mtime;
	const struct mhl_hash *hashes;
	size_t n_hashes;
};

/* A directory's (or the root's) hashes in one format. */
struct mhl_dir_hash {
	enum mhl_hash_format format;
	const char *content;
	const char *structure;
	time_t hashdate;
};

struct mhl_creator {
	time_t creation_time;
	const char *hostname; /* NULL: gethostname() */
	const char *tool_name;
	const char *tool_version;
};

/* -EINVAL when a name is not text mhl_text_valid() accepts, -ENOMEM. */
int mhl_generation_new(const struct mhl_creator *creator, struct mhl_generation **ret);
void mhl_generation_free(struct mhl_generation *g);

/* An ignore pattern (gitignore syntax, as the reference reads it) after the defaults;
 * a pattern already there is not added again. */
int mhl_generation_add_ignore(struct mhl_generation *g, const char *pattern);

/* Every string is copied. -EILSEQ: the path is not one mhl_path_valid() accepts (a
 * name that is not UTF-8, holds a control character, or climbs out of the root): it
 * cannot be listed. -EINVAL: no hash, a format twice, or a hash string that is not
 * well formed for its format. -EEXIST: the path is listed already. */
int mhl_generation_add_file(struct mhl_generation *g, const struct mhl_file *file);
int mhl_generation_add_directory(struct mhl_generation *g, const char *path, time_t mtime,
				 const struct mhl_dir_hash *hashes, size_t n);
int mhl_generation_set_root(struct mhl_generation *g, const struct mhl_dir_hash *hashes,
			    size_t n);
size_t mhl_generation_files(const struct mhl_generation *g);

/* The document, UTF-8, indented; *ret_xml is malloc'd (free() it), NUL-terminated for
 * convenience; *ret_len excludes the NUL. -ENOMEM, -EIO when libxml2 fails. */
int mhl_generation_render(const struct mhl_generation *g, char **ret_xml, size_t *ret_len);

/* One generation in ascmhl_chain.xml: its sequence number, its file name inside the
 * ascmhl folder, and the C4 ID of that file's bytes (computed by the caller). */
struct mhl_chain_link {
	unsigned sequence;
	const char *path;
	const char *c4;
};

/* <ascmhldirectory xmlns="urn:ASC:MHL:DIRECTORY:v2.0"> with one <hashlist sequencenr=>
 * per link, in the order given. -EINVAL: a path that is not a manifest file name
 * (mhl_generation_number() of it must be its sequence) or a c4 that is not a C4 ID. */
int mhl_chain_render(const struct mhl_chain_link *links, size_t n, char **ret_xml,
		     size_t *ret_len);

#endif
