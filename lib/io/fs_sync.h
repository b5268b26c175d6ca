/* fs_sync.h: make everything on one filesystem durable.
 *
 * syncfs(2), except on btrfs.  There syncfs first writes the running
 * transaction's dirty tree blocks (sync_inodes_sb reaches the btree
 * inode) and then commits; the commit's delayed inode and directory-index
 * updates land in those same leaves, which are copied and written again.
 * BTRFS_IOC_SYNC starts and waits for all data (ordered extents) and
 * commits at once, so each leaf is written once (the bench's tree of 2000
 * small files: 2.7 MB less written, 76.5-77.1 MB against 74.1).  It needs
 * no privilege; where it is refused (an old kernel, an LSM) syncfs does
 * the job. */
#ifndef SAFECP_FS_SYNC_H
#define SAFECP_FS_SYNC_H

/* fd: any file or directory on the filesystem.  0 or -errno. */
int fs_sync(int fd);

/* For a fuseblk daemon whose fsync writes nothing (fusefat,
 * doc/kernel.md 1.5): what it wrote is dirty in the block device's page
 * cache.  With bdev_fd (>= 0, the device node, root only) fsync of the
 * device: it writes that cache, waits and flushes the device
 * (blkdev_fsync).  Without, syncfs of fd on the mount: for a filesystem
 * on a block device sync_filesystem ends with sync_blockdev of it,
 * which writes and waits but sends no flush.  0 or -errno. */
int fs_sync_device(int fd, int bdev_fd);

#endif
