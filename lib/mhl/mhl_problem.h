/* mhl_problem.h: why an ASC MHL file was refused (a kind, the file, the line), for
 * the reader (mhl_read.h) and for the parsing steps below it (mhl_parse.h), which
 * record the first problem as they meet it. */
#ifndef SAFECP_MHL_PROBLEM_H
#define SAFECP_MHL_PROBLEM_H

/* Largest manifest or chain file read: about 1.5 million files at ~350 bytes each. */
#define MHL_READ_MAX_BYTES (512u << 20)

enum mhl_read_kind {
	MHL_READ_OK = 0,
	MHL_READ_NO_HISTORY, /* no ascmhl folder, or no chain file in it */
	MHL_READ_IO,	     /* a file could not be opened or read: errno in the problem */
	MHL_READ_NOT_REGULAR, /* a symlink, a device, a fifo... where a file should be */
	MHL_READ_TOO_BIG,    /* larger than MHL_READ_MAX_BYTES */
	MHL_READ_DOCTYPE,    /* a DOCTYPE: entity declarations and external subsets refused */
	MHL_READ_MALFORMED,  /* not well-formed XML (a truncated file is one) */
	MHL_READ_NOT_MHL,    /* another root element, namespace or version */
	MHL_READ_BAD_VALUE,  /* an element or attribute whose value is not the schema's form */
	MHL_READ_BAD_PATH,   /* a listed path that is absolute, climbs out or is not text */
	MHL_READ_DUPLICATE,  /* a path listed twice in one generation, a sequence twice */
	MHL_READ_BAD_CHAIN,  /* an empty chain, or a link whose file name or number is wrong */
	MHL_READ_NO_MEMORY,
};

struct mhl_read_problem {
	enum mhl_read_kind kind;
	char file[256]; /* the file inside the ascmhl folder ("" for the folder) */
	int line;	/* its line, when the parser knows it; 0 otherwise */
	int err;	/* errno for MHL_READ_IO */
};

/* The name of a kind, for traces and tests ("doctype"). */
const char *mhl_read_kind_name(enum mhl_read_kind kind);

#endif
