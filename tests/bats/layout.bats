#!/usr/bin/env bats
# tests/bats/layout.bats: tests/layout.sh itself fails on what it is there to catch, in a
# copy of the tree with one fault planted: two files that include each other, a lib/
# part that includes one above it, a lib/ header that includes a cmd/ one.

load helpers

setup() {
	T=$BATS_TEST_TMPDIR/tree
	ROOT=$BATS_TEST_DIRNAME/../..
	mkdir -p "$T/tests" "$T/doc"
	cp -r "$ROOT/lib" "$ROOT/cmd" "$T"/
	cp "$ROOT/tests/layout.sh" "$ROOT/tests/layout.allow" "$T/tests"/
	cp "$ROOT/doc/kernel.md" "$T/doc"/
}

@test "layout: the tree as it is passes" {
	run -0 bash "$T/tests/layout.sh" "$T"
	[[ ${lines[-1]} == "layout: 0 violation(s), "*" allowed by tests/layout.allow" ]]
}

@test "layout: two files that include each other fail it, each include named with the loop" {
	printf '#include "util/pong.h"\nint ping(void);\n' >"$T/lib/util/ping.h"
	printf '#include "util/ping.h"\nint pong(void) { return 0; }\n' >"$T/lib/util/pong.c"
	printf 'int pong(void);\n' >"$T/lib/util/pong.h"
	run -1 bash "$T/tests/layout.sh" "$T"
	[[ $output == *"lib/util/pong.c:1: file-cycle: lib/util/pong -> lib/util/ping -> lib/util/pong: "* ]]
	[[ $output == *"lib/util/ping.h:1: file-cycle: lib/util/ping -> lib/util/pong -> lib/util/ping: "* ]]
	[[ ${lines[-1]} == "layout: 2 violation(s), "* ]]
	# a longer loop through a third file is one too
	printf '#include "util/pang.h"\nint pong(void);\n' >"$T/lib/util/pong.h"
	printf '#include "base/size.h"\n' >"$T/lib/util/pong.c"
	printf '#include "util/ping.h"\n' >"$T/lib/util/pang.h"
	run -1 bash "$T/tests/layout.sh" "$T"
	[[ $output == *"lib/util/pang.h:1: file-cycle: lib/util/pang -> lib/util/ping -> lib/util/pong -> lib/util/pang: "* ]]
}

@test "layout: an arrow up the parts and a cmd/ header in lib/ fail it" {
	printf '#include "copy/plan.h"\n' >"$T/lib/util/up.c"
	run -1 bash "$T/tests/layout.sh" "$T"
	[[ $output == *"lib/util/up.c:1: arrow: lib/util may not include lib/copy"* ]]
	rm "$T/lib/util/up.c"
	printf '#include "common/msg.h"\n' >"$T/lib/util/up.c"
	run -1 bash "$T/tests/layout.sh" "$T"
	[[ $output == *"lib/util/up.c:1: lib-cmd: "* ]]
}
