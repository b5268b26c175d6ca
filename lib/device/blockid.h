/* blockid.h: filesystem identity through libblkid (the only module that
 * includes <blkid.h>).  It reads real device nodes, so it ignores the
 * sysroot; callers skip it when probing a captured tree. */
#ifndef SAFECP_BLOCKID_H
#define SAFECP_BLOCKID_H

#include <stdbool.h>

struct blockid {
	char *label;   /* NULL when the fs has none */
	char *uuid;
	char *fstype;  /* "vfat", "ext4"; NULL when no filesystem was found */
};

/* Probe a device node's superblock.  0 also when no (or no unambiguous)
 * filesystem is found, with the fields NULL; -EACCES without permission
 * to read the node: the caller keeps going without the names. */
int blockid_probe(const char *devnode, struct blockid *ret);

/* Resolve "LABEL=x", "UUID=y", "PARTUUID=z", "PARTLABEL=w" or a path to a
 * device node (malloc'd).  A path is canonicalised (/dev/mapper/x ->
 * /dev/dm-0, /dev/disk/by-label/x -> /dev/sdb1) and must be a block
 * device (-ENOTBLK).  Tags are found by scanning the devices with libblkid
 * (no cache file is read or written), which needs root to read them;
 * without it, the udev link (/dev/disk/by-label/x) where there is one.
 * -ENOENT when nothing matches, -ENOTUNIQ when several devices have the
 * tag (two sticks called "NO NAME"): blockid_tag_devices() names them. */
/* spec starts LABEL=, UUID=, PARTUUID= or PARTLABEL=. */
bool blockid_is_tag(const char *spec);

int blockid_resolve(const char *spec, char **ret_devnode);

/* Every device that has the tag spec ("LABEL=x", ...), found by reading
 * each device (root): 0 with *ret_devnodes (malloc'd, n of them, none
 * twice; free with blockid_devices_free) and *ret_n, possibly 0;
 * -EINVAL for a spec that is no tag. */
int blockid_tag_devices(const char *spec, char ***ret_devnodes, size_t *ret_n);
void blockid_devices_free(char **devnodes, size_t n);

void blockid_done(struct blockid *b);

#endif
