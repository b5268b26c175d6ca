#!/usr/bin/env bats
# tests/bats/readme.bats: the README's install recipe, run as written (with its build
# directory moved into the test's and DESTDIR set), gives release binaries: no test
# pause points compiled in, man pages where the README says they are (issue 25 item 8).

load helpers

setup() {
	require_cmd meson
	require_cmd ninja
	require_cmd jq
	README=$BATS_TEST_DIRNAME/../../README.md
	B=$BATS_TEST_TMPDIR/build-release
}

# readme_setup_command: the `meson setup ...` of the README's install step.
readme_setup_command() {
	grep -o 'meson setup --buildtype=release build-release' "$README" | head -n 1
}

@test "README's install recipe builds a release without the test pause points" {
	# a release build with the system's compiler: nothing in it is sanitized, so under
	# --sanitize it would only build again what the plain pass (CI runs both) built
	((${SAFECP_SANITIZE:-0} == 0)) || skip "the plain pass builds the README's release; --sanitize adds nothing to it"
	local cmd f
	cmd=$(readme_setup_command)
	[[ -n $cmd ]] || { echo "README.md has no 'meson setup --buildtype=release build-release' step" >&2; return 1; }
	# the recipe's own words, with its build directory here
	(cd "$BATS_TEST_DIRNAME/../.." && eval "${cmd/build-release/"$B"}") >"$BATS_TEST_TMPDIR/setup.log" 2>&1 ||
		{ cat "$BATS_TEST_TMPDIR/setup.log"; return 1; }
	ninja -C "$B" >"$BATS_TEST_TMPDIR/ninja.log" 2>&1 || { tail -n 30 "$BATS_TEST_TMPDIR/ninja.log"; return 1; }
	DESTDIR=$BATS_TEST_TMPDIR/root meson install -C "$B" --no-rebuild >"$BATS_TEST_TMPDIR/install.log" 2>&1 ||
		{ cat "$BATS_TEST_TMPDIR/install.log"; return 1; }
	meson introspect --buildoptions "$B" | jq -e '.[] | select(.name == "test_hooks") | .value == false'
	meson introspect --buildoptions "$B" | jq -e '.[] | select(.name == "buildtype") | .value == "release"'
	for f in safecp safeunmount dirtystat; do
		f=$(find "$BATS_TEST_TMPDIR/root" -type f -path "*bin/$f" | head -n 1)
		[[ -x $f ]]
		if grep -q -a SAFECP_TEST_PAUSE "$f"; then
			echo "the installed $f has the test pause points compiled in" >&2
			return 1
		fi
	done
	# the man pages the README points to, rendered: one for each tool and offload-card
	mapfile -t pages < <(grep -o 'man -l build-release/man/[a-z-]*\.[18]' "$README" | sed 's/^man -l //')
	((${#pages[@]} == 4))
	for f in "${pages[@]}"; do
		[[ -s ${f/build-release/"$B"} ]] || { echo "README names $f, which the build does not make" >&2; return 1; }
	done
}
