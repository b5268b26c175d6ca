/* target_facts.c: the names of a target's kinds (target_facts.h). */
#include <stdbool.h>
#include <string.h>

#include "base/cleanup.h"
#include "device/target_facts.h"

static const char *const transport_names[] = {
	[TRANSPORT_UNKNOWN] = "unknown", [TRANSPORT_USB] = "usb",
	[TRANSPORT_MMC] = "mmc",         [TRANSPORT_SATA] = "sata",
	[TRANSPORT_NVME] = "nvme",       [TRANSPORT_VIRTIO] = "virtio",
	[TRANSPORT_SCSI] = "scsi",       [TRANSPORT_LOOP] = "loop",
	[TRANSPORT_FIREWIRE] = "firewire", [TRANSPORT_THUNDERBOLT] = "thunderbolt",
};

const char *transport_name(enum transport t)
{
	return (unsigned)t < ARRAY_SIZE(transport_names) ? transport_names[t] : "unknown";
}

static const char *const kind_names[] = {
	[FS_OTHER] = "other", [FS_EXT4] = "ext4",       [FS_XFS] = "xfs",
	[FS_BTRFS] = "btrfs", [FS_VFAT] = "vfat",       [FS_EXFAT] = "exfat",
	[FS_F2FS] = "f2fs",   [FS_FUSEBLK] = "fuseblk", [FS_FUSE] = "fuse",
	[FS_NOBLOCK] = "noblock",
};

const char *fs_kind_name(enum fs_kind k)
{
	return (unsigned)k < ARRAY_SIZE(kind_names) ? kind_names[k] : "other";
}

static const struct {
	const char *name;
	enum fs_kind kind;
} kind_table[] = {
	/* ext2/ext3 are served by the ext4 driver and behave as it does */
	{ "ext4", FS_EXT4 },       { "ext3", FS_EXT4 },      { "ext2", FS_EXT4 },
	{ "xfs", FS_XFS },         { "btrfs", FS_BTRFS },    { "vfat", FS_VFAT },
	{ "msdos", FS_VFAT },      { "exfat", FS_EXFAT },    { "f2fs", FS_F2FS },
	{ "tmpfs", FS_NOBLOCK },   { "ramfs", FS_NOBLOCK },  { "proc", FS_NOBLOCK },
	{ "sysfs", FS_NOBLOCK },   { "devtmpfs", FS_NOBLOCK }, { "devpts", FS_NOBLOCK },
	{ "overlay", FS_NOBLOCK }, { "nfs", FS_NOBLOCK },    { "nfs4", FS_NOBLOCK },
	{ "cifs", FS_NOBLOCK },    { "smb3", FS_NOBLOCK },   { "9p", FS_NOBLOCK },
	{ "virtiofs", FS_NOBLOCK }, { "cgroup", FS_NOBLOCK }, { "cgroup2", FS_NOBLOCK },
	{ "debugfs", FS_NOBLOCK }, { "tracefs", FS_NOBLOCK }, { "securityfs", FS_NOBLOCK },
	{ "pstore", FS_NOBLOCK },  { "bpf", FS_NOBLOCK },    { "mqueue", FS_NOBLOCK },
	{ "hugetlbfs", FS_NOBLOCK }, { "autofs", FS_NOBLOCK }, { "configfs", FS_NOBLOCK },
	{ "fusectl", FS_NOBLOCK }, { "binfmt_misc", FS_NOBLOCK }, { "efivarfs", FS_NOBLOCK },
};

static bool is_type_family(const char *fstype, const char *family)
{
	size_t len = strlen(family);

	/* "fuse" and "fuse.sshfs", never "fusectl" */
	return strncmp(fstype, family, len) == 0 && (fstype[len] == '\0' || fstype[len] == '.');
}

enum fs_kind fs_kind_from_name(const char *fstype)
{
	if (!fstype)
		return FS_OTHER;
	if (is_type_family(fstype, "fuseblk"))
		return FS_FUSEBLK;
	if (is_type_family(fstype, "fuse"))
		return FS_FUSE;
	for (size_t i = 0; i < ARRAY_SIZE(kind_table); i++)
		if (strcmp(fstype, kind_table[i].name) == 0)
			return kind_table[i].kind;
	return FS_OTHER;
}
