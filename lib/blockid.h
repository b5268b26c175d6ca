/* blockid.h: filesystem identity through libblkid (the only module that
 * includes <blkid.h>). */
#ifndef SAFECP_BLOCKID_H
#define SAFECP_BLOCKID_H

struct blockid {
	char *label;
	char *uuid;
	char *fstype;
};

/* Probe a device node.  -EACCES without permission; the caller keeps going. */
int blockid_probe(const char *devnode, struct blockid *ret);

/* Resolve "LABEL=x", "UUID=y" or a plain path to a device node (malloc'd).
 * -ENOENT when nothing matches. */
int blockid_resolve(const char *spec, char **ret_devnode);

void blockid_done(struct blockid *b);

#endif
