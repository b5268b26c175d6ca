/* safecp/safecp.h: libsafecp, the library under the safecp tools: its
 * version and what it can do.
 *
 * The contract (threads, signals, errors, memory, what is stable) is
 * doc/api.md.  C99; every symbol is safecp_* or SAFECP_*; no structure
 * is public: handles are opaque, kinds are enums, names are data.
 *
 * Link with $(pkg-config --cflags --libs safecp). */
#ifndef SAFECP_SAFECP_H
#define SAFECP_SAFECP_H

#include <stdbool.h>

#include <safecp/version.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version, "MAJOR.MINOR.PATCH": the one running, which may
 * be newer than the SAFECP_VERSION a program was compiled against. */
const char *safecp_version(void);

/* What the library can do.  The values never change and new ones are
 * added at the end; a program built against newer headers asks
 * safecp_has() before it relies on one. */
enum safecp_feature {
	SAFECP_FEATURE_DIRECT_WRITES = 0, /* O_DIRECT writes where the filesystem
					   * really writes directly */
	SAFECP_FEATURE_DESTINATIONS = 1,  /* several destinations in one pass, each
					   * at its own pace (safecp_max_destinations) */
	SAFECP_FEATURE_VERIFY = 2,        /* every file read back from the device
					   * before it gets its name */
	SAFECP_FEATURE_CHECKSUMS = 3,     /* checksums of every file as it is read,
					   * written as lists xxhsum -c and sha256sum
					   * -c read; values: the algorithms */
	SAFECP_FEATURE_MHL = 4,           /* ASC MHL generations in a destination's
					   * ascmhl folder */
	SAFECP_FEATURE_SKIP_IDENTICAL = 5, /* files the destination holds already are
					    * left alone */
	SAFECP_FEATURE_CHECK = 6,         /* an existing copy read back against its
					   * manifest or lists */
	SAFECP_FEATURE_PACK = 7,          /* the sources written as one archive;
					   * values: the formats */
	SAFECP_FEATURE_UNPACK = 8,        /* archives extracted, every entry checked
					   * first; values: the formats */
	SAFECP_FEATURE_UDISKS_UNMOUNT = 9, /* unmount and power-off through udisks2,
					    * without root */
	SAFECP_FEATURE_POWER_OFF = 10,    /* a stick's disk powered off after the
					   * unmount */
};

/* Whether this library has FEATURE: false for a value it does not know. */
bool safecp_has(enum safecp_feature feature);

/* FEATURE's name, a stable identifier for scripts ("verify",
 * "checksums", "pack", ...): lowercase ASCII letters and '-'; NULL when
 * the library does not have it.  Feature values are consecutive from 0:
 * a program lists them all by counting up until NULL. */
const char *safecp_feature_name(enum safecp_feature feature);

/* The INDEX-th value of FEATURE (from 0), NULL past the last: the
 * checksum algorithms ("xxh128", "sha256", ...), the archive formats
 * ("tar.zst", "zip", ...), for destinations the most of them in decimal
 * ("16").  A feature without values has none.  Static strings. */
const char *safecp_feature_value(enum safecp_feature feature, unsigned index);

/* The most destinations one copy can have. */
unsigned safecp_max_destinations(void);

#ifdef __cplusplus
}
#endif

#endif
