#!/bin/bash
# tests/layout_selftest.sh [SRCDIR]: tests/layout.sh fails when it should. It runs
# layout.sh on copies of the tree (lib/, cmd/, tests/layout.*, doc/kernel.md: what it
# reads) in a temporary directory: the copy as it is must pass; with an include cycle
# planted between two files it must exit 1 and name the file-cycle at both includes.
# TAP on stdout (meson test --suite layout; tests/run counts it).
set -u

SRC=${1:-$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/layout-selftest.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
N=0 FAILED=0

ok() { N=$((N + 1)); echo "ok $N $1"; }
not_ok() {
	N=$((N + 1)) FAILED=$((FAILED + 1))
	echo "not ok $N $1"
	sed 's/^/# /' "$OUT"
}

# tree DIR: a copy of what layout.sh reads
tree() {
	mkdir -p "$1/tests" "$1/doc" &&
		cp -r "$SRC/lib" "$SRC/cmd" "$1/" &&
		cp "$SRC/tests/layout.sh" "$SRC/tests/layout.allow" "$1/tests/" &&
		cp "$SRC/doc/kernel.md" "$1/doc/"
}

# run_layout DIR: layout.sh of the copy on the copy; its output in $OUT, status in $RC
run_layout() {
	OUT=$1.out
	bash "$1/tests/layout.sh" "$1" >"$OUT" 2>&1
	RC=$?
}

# demo_header DIR NAME OTHER: lib/util/NAME.h, which includes lib/util/OTHER.h
demo_header() {
	local guard
	guard=SAFECP_$(tr '[:lower:]' '[:upper:]' <<<"$2")_H
	printf '/* %s.h: planted by tests/layout_selftest.sh */\n#ifndef %s\n#define %s\n#include "util/%s.h"\n#endif\n' \
		"$2" "$guard" "$guard" "$3" >"$1/lib/util/$2.h"
}

echo "1..3"

tree "$TMP/clean" || { echo "Bail out! cannot copy the tree from '$SRC'"; exit 1; }
run_layout "$TMP/clean"
if ((RC == 0)); then
	ok "the tree as it is passes"
else
	not_ok "the tree as it is passes (exit $RC)"
fi

# two headers that include each other
cp -r "$TMP/clean" "$TMP/pair"
demo_header "$TMP/pair" a_demo b_demo
demo_header "$TMP/pair" b_demo a_demo
run_layout "$TMP/pair"
if ((RC == 1)) &&
	grep -qxF 'lib/util/a_demo.h:4: file-cycle: lib/util/a_demo -> lib/util/b_demo -> lib/util/a_demo: files that include each other are one file, or need a third below both' "$OUT" &&
	grep -qxF 'lib/util/b_demo.h:4: file-cycle: lib/util/b_demo -> lib/util/a_demo -> lib/util/b_demo: files that include each other are one file, or need a third below both' "$OUT" &&
	grep -qx 'layout: 2 violation(s), [0-9]* allowed by tests/layout.allow' "$OUT"; then
	ok "two headers that include each other fail it, named at both includes"
else
	not_ok "two headers that include each other fail it, named at both includes (exit $RC)"
fi

# the same loop through a .c: a_demo.c includes b_demo.h, which includes a_demo.h
# (a name.c with its name.h is one file to the rule)
cp -r "$TMP/clean" "$TMP/module"
demo_header "$TMP/module" b_demo a_demo
printf '/* a_demo.h: planted */\n#ifndef SAFECP_A_DEMO_H\n#define SAFECP_A_DEMO_H\n#endif\n' \
	>"$TMP/module/lib/util/a_demo.h"
printf '/* a_demo.c: planted */\n#include "util/a_demo.h"\n#include "util/b_demo.h"\n' \
	>"$TMP/module/lib/util/a_demo.c"
run_layout "$TMP/module"
if ((RC == 1)) &&
	grep -qxF 'lib/util/a_demo.c:3: file-cycle: lib/util/a_demo -> lib/util/b_demo -> lib/util/a_demo: files that include each other are one file, or need a third below both' "$OUT" &&
	grep -qxF 'lib/util/b_demo.h:4: file-cycle: lib/util/b_demo -> lib/util/a_demo -> lib/util/b_demo: files that include each other are one file, or need a third below both' "$OUT"; then
	ok "a .c and a header that reach each other fail it"
else
	not_ok "a .c and a header that reach each other fail it (exit $RC)"
fi

((FAILED == 0))
