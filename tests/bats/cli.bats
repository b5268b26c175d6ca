#!/usr/bin/env bats
# tests/bats/cli.bats: behaviour every tool of the suite shares. The long options that
# `TOOL --help` prints are the contract: the man page and both completions must list
# exactly those (kmod's rule). Also --version, the exit code for a bad option, and that
# write errors on stdout are reported at exit. Tools not built yet are skipped.

load helpers

# help_options TOOL: long options from the option column of --help, one per line.
help_options() {
	"$SAFECP_BUILD/cmd/$1" --help |
		grep -oE '^[[:space:]]+(-[^-[:space:]],[[:space:]]+)?--[[:alnum:]][-[:alnum:]]*' |
		grep -oE -- '--[[:alnum:]][-[:alnum:]]*' | sort -u
}

# file_options FILE: every long option named anywhere in FILE.
file_options() {
	grep -oE -- '--[[:alpha:]][-[:alnum:]]*' "$1" | sort -u
}

need_tool() {
	require_tool "$1"
	HELP_OPTS=$(help_options "$1")
	[ -n "$HELP_OPTS" ] || { echo "'$1 --help' lists no long options" >&2; return 1; }
}

man_page() {
	local f
	for f in "$SAFECP_SRC"/man/"$1".*.scd; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	echo "no man page man/$1.*.scd" >&2
	return 1
}

# same_options TOOL FILE: FILE names each --help option, and none that --help lacks.
same_options() {
	[ -f "$2" ] || { echo "missing: $2" >&2; return 1; }
	local missing extra
	missing=$(comm -23 <(echo "$HELP_OPTS") <(file_options "$2"))
	extra=$(comm -13 <(echo "$HELP_OPTS") <(file_options "$2"))
	[ -z "$missing" ] || { echo "${2#"$SAFECP_SRC"/} lacks:" $missing >&2; return 1; }
	[ -z "$extra" ] || { echo "${2#"$SAFECP_SRC"/} lists options --help does not:" $extra >&2; return 1; }
}

# The man page may name other programs' options (lsblk --sysroot, ...) in prose; it must
# cover --help, and every option on an item line (one starting with *-) must be in --help.
man_covers_help() {
	local page missing extra
	page=$(man_page "$1")
	missing=$(comm -23 <(echo "$HELP_OPTS") <(file_options "$page"))
	[ -z "$missing" ] || { echo "${page#"$SAFECP_SRC"/} lacks:" $missing >&2; return 1; }
	extra=$(comm -13 <(echo "$HELP_OPTS") <(grep -E '^\*-' "$page" |
		grep -oE -- '--[[:alpha:]][-[:alnum:]]*' | sort -u))
	[ -z "$extra" ] || { echo "${page#"$SAFECP_SRC"/} documents options --help does not:" $extra >&2; return 1; }
}

check_version() {
	require_tool "$1"
	local version
	version=$(sed -nE "s/^[[:space:]]*version[[:space:]]*:[[:space:]]*'([^']+)'.*/\1/p" "$SAFECP_SRC/meson.build" | head -n1)
	run "$1" --version
	[ "$status" -eq 0 ]
	[[ $output == *"$version"* ]]
}

check_bad_option() {
	require_tool "$1"
	run --separate-stderr "$1" --no-such-option-xyz
	[ "$status" -eq 2 ]
	[[ $stderr == *"--no-such-option-xyz"* ]]
	[[ $stderr == "$1: "* ]]
	[ -z "$output" ]
}

# TOOL OPTION >/dev/full must fail with a message, not succeed and not die of a signal.
full_fails() {
	local rc=0 err=$BATS_TEST_TMPDIR/full.err
	"$1" "$2" >/dev/full 2>"$err" || rc=$?
	[ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] || { echo "$1 $2 >/dev/full: exit $rc" >&2; return 1; }
	[ -s "$err" ] || { echo "$1 $2 >/dev/full: no message on stderr" >&2; return 1; }
}

check_full() {
	require_tool "$1"
	[ -w /dev/full ] || skip "/dev/full is not available"
	full_fails "$1" --help
	full_fails "$1" --version
}

@test "safecp: man page covers --help" { need_tool safecp; man_covers_help safecp; }
@test "safecp: bash completion lists exactly --help's options" {
	need_tool safecp
	same_options safecp "$SAFECP_SRC/completions/bash/safecp"
}
@test "safecp: zsh completion lists exactly --help's options" {
	need_tool safecp
	same_options safecp "$SAFECP_SRC/completions/zsh/_safecp"
}
@test "safecp: --version" { check_version safecp; }
@test "safecp: unknown option exits 2 naming it" { check_bad_option safecp; }
@test "safecp: write errors on stdout fail the exit status" { check_full safecp; }

@test "safeunmount: man page covers --help" { need_tool safeunmount; man_covers_help safeunmount; }
@test "safeunmount: bash completion lists exactly --help's options" {
	need_tool safeunmount
	same_options safeunmount "$SAFECP_SRC/completions/bash/safeunmount"
}
@test "safeunmount: zsh completion lists exactly --help's options" {
	need_tool safeunmount
	same_options safeunmount "$SAFECP_SRC/completions/zsh/_safeunmount"
}
@test "safeunmount: --version" { check_version safeunmount; }
@test "safeunmount: unknown option exits 2 naming it" { check_bad_option safeunmount; }
@test "safeunmount: write errors on stdout fail the exit status" { check_full safeunmount; }

@test "dirtystat: man page covers --help" { need_tool dirtystat; man_covers_help dirtystat; }
@test "dirtystat: bash completion lists exactly --help's options" {
	need_tool dirtystat
	same_options dirtystat "$SAFECP_SRC/completions/bash/dirtystat"
}
@test "dirtystat: zsh completion lists exactly --help's options" {
	need_tool dirtystat
	same_options dirtystat "$SAFECP_SRC/completions/zsh/_dirtystat"
}
@test "dirtystat: --version" { check_version dirtystat; }
@test "dirtystat: unknown option exits 2 naming it" { check_bad_option dirtystat; }
@test "dirtystat: write errors on stdout fail the exit status" { check_full dirtystat; }
