#!/bin/bash
# tests/api/install.sh BUILD SRCDIR PREFIX LIBDIR SANITIZE VERSION: libsafecp as a program that
# is not ours meets it. The build dir is installed as it is (no rebuild) into a
# temporary DESTDIR; pkg-config finds safecp.pc there (PKG_CONFIG_SYSROOT_DIR puts its
# paths under it); examples/api/version.c is compiled with the strict flags a client
# may use, against the installed headers and .so only, and run: it must load the
# installed libsafecp.so.1 and print the version and the features the tool prints
# (safecp --features, the same library linked statically) and VERSION, meson's. SANITIZE is meson's
# b_sanitize: a sanitized library needs its runtime in the program too. $CC: meson's
# compiler. TAP.
set -u
build=$1 src=$2 prefix=$3 libdir=$4 sanitize=$5 version=$6
CC=${CC:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/safecp-api.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
libpath=$root$prefix/$libdir
[[ $libdir == /* ]] && libpath=$root$libdir
echo "1..4"

# fail N WHAT [LOG]: one failed case; the rest cannot run without it
fail() {
	echo "not ok $1 $2"
	[[ -n ${3-} && -f $3 ]] && sed 's/^/#   /' "$3"
	for ((i = $1 + 1; i <= 4; i++)); do echo "not ok $i skipped: case $1 failed"; done
	exit 1
}

meson install -C "$build" --no-rebuild --quiet --destdir "$root" >"$tmp/install.log" 2>&1 ||
	fail 1 "meson install --destdir" "$tmp/install.log"
echo "ok 1 meson install --no-rebuild --destdir"

export PKG_CONFIG_PATH=$libpath/pkgconfig PKG_CONFIG_SYSROOT_DIR=$root
flags=$(pkg-config --cflags --libs safecp 2>"$tmp/pc.log") || fail 2 "pkg-config --cflags --libs safecp" "$tmp/pc.log"
[[ " $flags " == *" -I$root$prefix/include "* || $prefix/include == /usr/include ]] &&
	[[ " $flags " == *" -L$libpath "* && " $flags " == *" -lsafecp "* ]] ||
	{ echo "$flags" >"$tmp/pc.log"; fail 2 "pkg-config --cflags --libs safecp: not the installed paths" "$tmp/pc.log"; }
echo "ok 2 pkg-config --cflags --libs safecp: $flags"

san=()
[[ $sanitize == none ]] || san=(-fsanitize="$sanitize")
# $flags unquoted: the words pkg-config printed
# shellcheck disable=SC2086
$CC -std=c99 -Wall -Wextra -Werror -pedantic "${san[@]}" -o "$tmp/version" \
	"$src/examples/api/version.c" $flags >"$tmp/cc.log" 2>&1 ||
	fail 3 "cc -std=c99 -pedantic examples/api/version.c \$(pkg-config --cflags --libs safecp)" "$tmp/cc.log"
echo "ok 3 examples/api/version.c built against the installed headers and library"

loaded=$(LD_LIBRARY_PATH=$libpath LD_TRACE_LOADED_OBJECTS=1 "$tmp/version" | awk '$1 == "libsafecp.so.1" { print $3 }')
[[ $loaded == "$libpath/libsafecp.so.1" ]] ||
	{ echo "libsafecp.so.1 => '$loaded'" >"$tmp/run.log"; fail 4 "not the installed libsafecp.so.1" "$tmp/run.log"; }
LD_LIBRARY_PATH=$libpath "$tmp/version" >"$tmp/out" 2>"$tmp/run.log" || fail 4 "version exited $?" "$tmp/run.log"
{
	echo "libsafecp $version (compiled against $version)"
	"$build/cmd/safecp" --features
} >"$tmp/expected" 2>>"$tmp/run.log" || fail 4 "safecp --features failed" "$tmp/run.log"
if diff -u "$tmp/expected" "$tmp/out" >"$tmp/diff"; then
	echo "ok 4 the installed library says what safecp --features says ($(wc -l <"$tmp/out") lines)"
else
	echo "not ok 4 examples/api/version.c and safecp --features disagree"
	sed 's/^/#   /' "$tmp/diff"
	exit 1
fi
