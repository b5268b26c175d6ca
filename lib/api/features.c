/* features.c: what this library can do, for a program (or a script, through
 * safecp --features) that would otherwise parse --help.
 *
 * The names are identifiers, not words: doc/api.md lists them and they never
 * change.  The values come from the parts that own them (hash's algorithms,
 * archive's pack formats, copy's destination limit), so a new one shows up
 * here without an edit; only the unpack formats are written out below. */
#include <safecp/safecp.h>

#include "archive/pack_writer.h"
#include "copy/copy.h"
#include "hash/checksum.h"
#include "base/cleanup.h"

static const char *const feature_names[] = {
	[SAFECP_FEATURE_DIRECT_WRITES] = "direct-writes",
	[SAFECP_FEATURE_DESTINATIONS] = "destinations",
	[SAFECP_FEATURE_VERIFY] = "verify",
	[SAFECP_FEATURE_CHECKSUMS] = "checksums",
	[SAFECP_FEATURE_MHL] = "mhl",
	[SAFECP_FEATURE_SKIP_IDENTICAL] = "skip-identical",
	[SAFECP_FEATURE_CHECK] = "check",
	[SAFECP_FEATURE_PACK] = "pack",
	[SAFECP_FEATURE_UNPACK] = "unpack",
	[SAFECP_FEATURE_UDISKS_UNMOUNT] = "udisks-unmount",
	[SAFECP_FEATURE_POWER_OFF] = "power-off",
};

/* The formats and filters archive/unpack_open.c enables (tar in its
 * variants, zip; gzip, bzip2, xz, zstd), as file name endings. */
static const char *const unpack_formats[] = {
	"tar", "tar.gz", "tar.bz2", "tar.xz", "tar.zst", "zip",
};

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

bool safecp_has(enum safecp_feature feature)
{
	return (unsigned)feature < ARRAY_SIZE(feature_names) && feature_names[feature];
}

const char *safecp_feature_name(enum safecp_feature feature)
{
	return safecp_has(feature) ? feature_names[feature] : NULL;
}

/* The INDEX-th algorithm a checksum list can hold, in the enum's order
 * (c4 is ASC MHL's only: no tool checks a list of it). */
static const char *list_algorithm(unsigned index)
{
	for (int alg = 0; alg < CHECKSUM_ALG_COUNT; alg++)
		if ((CHECKSUM_SET_LISTS & CHECKSUM_BIT(alg)) && index-- == 0)
			return checksum_alg_name(alg);
	return NULL;
}

const char *safecp_feature_value(enum safecp_feature feature, unsigned index)
{
	switch (feature) {
	case SAFECP_FEATURE_DESTINATIONS:
		return index == 0 ? STRINGIFY(COPY_DESTS_MAX) : NULL;
	case SAFECP_FEATURE_CHECKSUMS:
		return list_algorithm(index);
	case SAFECP_FEATURE_PACK:
		return index < PACK_FORMATS ? pack_format_name(index) : NULL;
	case SAFECP_FEATURE_UNPACK:
		return index < ARRAY_SIZE(unpack_formats) ? unpack_formats[index] : NULL;
	default:
		return NULL;
	}
}

unsigned safecp_max_destinations(void)
{
	return COPY_DESTS_MAX;
}
