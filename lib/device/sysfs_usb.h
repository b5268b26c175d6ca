/* sysfs_usb.h: the USB device a disk hangs from, in sysfs.
 *
 * udisks calls it the disk's parent with subsystem usb_device: the
 * directory whose "remove" detaches the whole device, and under which a
 * multi-slot card reader's other disks sit.  One definition for the
 * target's facts and for power-off, which must agree on it. */
#ifndef SAFECP_SYSFS_USB_H
#define SAFECP_SYSFS_USB_H

#include <stddef.h>

/* The nearest ancestor of sysfs_path ("/sys/devices/...", read under the
 * sysroot) that has idVendor, busnum and devnum: a usb_device, not one of
 * its interfaces (which have none of them).  "" in buf when there is none
 * or it does not fit. */
void sysfs_usb_device(const char *sysfs_path, char *buf, size_t size);

#endif
